//! From what the agent saw to what the model knows: each branch event's source range is
//! mapped to a condition of the function's decisions (a chained comparison's links by their
//! index), consecutive evaluations of one decision in one frame are grouped into a decision
//! instance, and an instance settles a branch side and shows MC/DC obligations.

use crate::agent::protocol::{Event, Execution, Position};
use crate::model::mcdc::{Independence, McdcTable};
use crate::symbolic::Expr;
use lacuna_grammar::{Anchor, BoolExpr, FunctionSyntax, LineCol, LineIndex, TextRange};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// The function being explored, with what is needed to read the agent's positions.
#[derive(Clone)]
pub struct FunctionUnderTest {
    pub module: String,
    pub qualname: String,
    /// The file as the agent reports it (`co_filename`), canonicalised.
    pub file: std::path::PathBuf,
    pub syntax: Arc<FunctionSyntax>,
    pub anchor: Anchor,
    pub lines: Arc<LineIndex>,
    pub tables: Vec<Option<McdcTable>>,
    /// The text of the file.
    pub text: Arc<str>,
}

/// Where a condition is: decision index and condition index.
pub type ConditionRef = (usize, u16);

/// Source ranges of the function's conditions, absolute.
pub struct ConditionIndex {
    by_range: FxHashMap<(u32, u32), ConditionRef>,
    /// A chained comparison's whole range → its links in order.
    chains: FxHashMap<(u32, u32), Vec<ConditionRef>>,
}

impl ConditionIndex {
    pub fn new(f: &FunctionUnderTest) -> Self {
        let mut by_range = FxHashMap::default();
        let mut chains: FxHashMap<(u32, u32), Vec<ConditionRef>> = FxHashMap::default();
        for (d, decision) in f.syntax.decisions.iter().enumerate() {
            let ranges: Vec<TextRange> = decision
                .conditions
                .iter()
                .map(|c| c.range.absolute(f.anchor))
                .collect();
            for (c, r) in ranges.iter().enumerate() {
                by_range.insert((r.start, r.end), (d, c as u16));
            }
            // Links of a chain overlap: `a < b` and `b < c` share `b`.
            let mut i = 0;
            while i < ranges.len() {
                let mut j = i;
                while j + 1 < ranges.len() && ranges[j].end > ranges[j + 1].start {
                    j += 1;
                }
                if j > i {
                    let links = (i..=j).map(|c| (d, c as u16)).collect();
                    chains.insert((ranges[i].start, ranges[j].end), links);
                }
                i = j + 1;
            }
        }
        ConditionIndex { by_range, chains }
    }

    /// The condition an event at `pos` (chain link `link`) tested.
    pub fn lookup(
        &self,
        lines: &LineIndex,
        pos: Position,
        link: Option<u32>,
    ) -> Option<ConditionRef> {
        let (Some(sc), Some(ec)) = (pos.1, pos.3) else {
            return None;
        };
        let start = lines.offset(LineCol {
            line: pos.0.checked_sub(1)?,
            col: sc,
        })?;
        let end = lines.offset(LineCol {
            line: pos.2.checked_sub(1)?,
            col: ec,
        })?;
        if let Some(link) = link
            && let Some(links) = self.chains.get(&(start, end))
        {
            return Some(links[link as usize % links.len()]);
        }
        self.by_range.get(&(start, end)).copied()
    }
}

/// One step of the path an execution took, as the solver sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct PathStep {
    pub expr: Expr,
    /// The value the expression had on this path.
    pub value: bool,
    pub origin: Origin,
    /// How many times the same condition or loop was evaluated earlier on the path: the
    /// iteration a loop is in.
    pub occurrence: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    Condition(ConditionRef),
    /// A step of a `for` loop over a symbolic container or range.
    Loop,
    /// A truth value taken outside a jump, or a jump outside the function's decisions.
    Other,
}

impl PathStep {
    /// The expression asserting this step as it happened.
    pub fn assertion(&self) -> Expr {
        if self.value {
            self.expr.clone()
        } else {
            self.expr.clone().negate()
        }
    }

    /// The expression asserting the other way.
    pub fn negation(&self) -> Expr {
        if self.value {
            self.expr.clone().negate()
        } else {
            self.expr.clone()
        }
    }
}

/// What one execution showed about the function's decisions.
#[derive(Clone, Debug, Default)]
pub struct Observed {
    /// (decision, outcome) settled.
    pub sides: FxHashSet<(usize, bool)>,
    /// Decisions evaluated at least once.
    pub reached: FxHashSet<usize>,
    /// (decision, condition, value) evaluated.
    pub conditions: FxHashSet<(usize, u16, bool)>,
    /// MC/DC obligations shown, per decision.
    pub independence: FxHashMap<usize, Independence>,
    /// The symbolic path, in order.
    pub path: Vec<PathStep>,
    /// Conditions evaluated without a symbolic expression (decision, condition).
    pub concrete_only: FxHashSet<(usize, u16)>,
    /// Iterations observed per loop position.
    pub loop_iterations: FxHashMap<Position, u32>,
    /// Boolean values (`x = a or b`) evaluated up to their last operand: CPython does not
    /// test the last operand, so the outcome of such an evaluation cannot be observed.
    pub unobservable: FxHashSet<usize>,
}

struct Instance {
    decision: usize,
    values: Vec<Option<bool>>,
    evaluations: Vec<(u16, bool)>,
}

/// Reads one execution's events against the function's decisions.
pub fn observe(f: &FunctionUnderTest, index: &ConditionIndex, run: &Execution) -> Observed {
    let mut out = Observed::default();
    let own_file = run.files.iter().position(|p| same_file(p, &f.file));
    let mut open: FxHashMap<u64, Vec<Instance>> = FxHashMap::default();
    let mut loop_steps: FxHashMap<Position, u32> = FxHashMap::default();
    let mut occurrences: FxHashMap<(usize, u16), u32> = FxHashMap::default();
    for event in &run.events {
        match event {
            Event::Branch {
                f: file,
                pos,
                taken,
                frame,
                expr,
                link,
            } => {
                let found = match (Some(*file) == own_file, pos) {
                    (true, Some(pos)) => index.lookup(&f.lines, *pos, *link),
                    _ => None,
                };
                let occurrence = match found {
                    Some(dc) => {
                        let n = occurrences.entry(dc).or_default();
                        *n += 1;
                        *n - 1
                    }
                    None => 0,
                };
                if let Some(e) = expr {
                    out.path.push(PathStep {
                        expr: e.clone(),
                        value: *taken,
                        origin: found.map_or(Origin::Other, Origin::Condition),
                        occurrence,
                    });
                }
                let Some((d, c)) = found else { continue };
                if expr.is_none() {
                    out.concrete_only.insert((d, c));
                }
                settle(f, &mut out, open.entry(*frame).or_default(), d, c, *taken);
            }
            Event::Loop {
                pos, taken, expr, ..
            } => {
                let occurrence = match pos {
                    Some(pos) => {
                        let n = loop_steps.entry(*pos).or_default();
                        if *taken {
                            *n += 1;
                        }
                        *n - u32::from(*taken)
                    }
                    None => 0,
                };
                if let Some(e) = expr {
                    out.path.push(PathStep {
                        expr: e.clone(),
                        value: *taken,
                        origin: Origin::Loop,
                        occurrence,
                    });
                }
            }
            Event::Constraint { value, expr, .. } => out.path.push(PathStep {
                expr: expr.clone(),
                value: *value,
                origin: Origin::Other,
                occurrence: 0,
            }),
            Event::Call { .. } | Event::Blocked { .. } => {}
        }
    }
    for (pos, n) in loop_steps {
        let e = out.loop_iterations.entry(pos).or_default();
        *e = (*e).max(n);
    }
    out
}

fn settle(
    f: &FunctionUnderTest,
    out: &mut Observed,
    open: &mut Vec<Instance>,
    d: usize,
    c: u16,
    value: bool,
) {
    let decision = &f.syntax.decisions[d];
    let Some(expr) = &decision.expr else { return };
    out.reached.insert(d);
    out.conditions.insert((d, c, value));
    // Continue the innermost open instance of this decision that has not evaluated `c` yet;
    // otherwise this is a new evaluation of the decision.
    let slot = open
        .iter()
        .rposition(|i| i.decision == d && i.values[c as usize].is_none());
    let slot = match slot {
        Some(s) => s,
        None => {
            open.retain(|i| i.decision != d);
            open.push(Instance {
                decision: d,
                values: vec![None; decision.conditions.len()],
                evaluations: vec![],
            });
            open.len() - 1
        }
    };
    let instance = &mut open[slot];
    instance.values[c as usize] = Some(value);
    instance.evaluations.push((c, value));
    if decision.kind == lacuna_grammar::DecisionKind::BoolValue {
        let last = decision.conditions.len() - 1;
        let mut with_last = instance.values.clone();
        if partial(expr, &instance.values).is_none() && with_last[last].is_none() {
            with_last[last] = Some(true);
            let needs_last_only = partial(expr, &with_last).is_some();
            if needs_last_only {
                open.remove(slot);
                out.unobservable.insert(d);
                return;
            }
        }
    }
    let instance = &mut open[slot];
    if let Some(outcome) = partial(expr, &instance.values) {
        let instance = open.remove(slot);
        out.sides.insert((d, outcome));
        if let Some(Some(table)) = f.tables.get(d) {
            out.independence
                .entry(d)
                .or_default()
                .union(table.mark(&instance.evaluations));
        }
    }
}

/// The decision's outcome when the values known so far settle it.
pub fn partial(e: &BoolExpr, values: &[Option<bool>]) -> Option<bool> {
    match e {
        BoolExpr::Condition(i) => values.get(*i as usize).copied().flatten(),
        BoolExpr::Not(inner) => partial(inner, values).map(|v| !v),
        BoolExpr::And(l, r) => match partial(l, values)? {
            false => Some(false),
            true => partial(r, values),
        },
        BoolExpr::Or(l, r) => match partial(l, values)? {
            true => Some(true),
            false => partial(r, values),
        },
        BoolExpr::Eq {
            left,
            right,
            negated,
        } => Some((partial(left, values)? == partial(right, values)?) != *negated),
    }
}

fn same_file(reported: &str, file: &std::path::Path) -> bool {
    let reported = std::path::Path::new(reported);
    reported == file
        || std::fs::canonicalize(reported)
            .map(|p| p == file)
            .unwrap_or(false)
}
