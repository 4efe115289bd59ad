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
    /// The definition's identity in its file (`f`, `f#2` for a second `def f`): what its
    /// diagnostics name, as the report's functions do.
    pub id: lacuna_grammar::FunctionId,
    pub module: String,
    pub qualname: String,
    /// How a test reaches it, when not by calling `qualname`.
    pub call: crate::agent::protocol::Call,
    /// The file as the agent reports it (`co_filename`), canonicalised.
    pub file: std::path::PathBuf,
    pub syntax: Arc<FunctionSyntax>,
    pub anchor: Anchor,
    pub lines: Arc<LineIndex>,
    pub tables: Vec<Option<McdcTable>>,
    /// The text of the file.
    pub text: Arc<str>,
    /// The file as the syntax layer read it (the database's parse, shared): its other
    /// functions, for explanations that look at them (the receiver's methods, the helper an
    /// external call is made in).
    pub file_syntax: Arc<lacuna_grammar::Module>,
    /// What its code seeds the inputs with (literals, uses of its parameters).
    pub seeds: Arc<lacuna_grammar::FunctionSeeds>,
    /// What the statements of its file read and store (its own body's, the module's, the other
    /// functions'): what explanations follow a decision back through, and what proofs of dead
    /// code read of the names it uses.
    pub flow: Arc<lacuna_grammar::ModuleFlow>,
}

/// The flow facts of a body the file's facts do not hold (a file too large to read).
static NO_FLOW: lacuna_grammar::FunctionFlow = lacuna_grammar::FunctionFlow {
    statements: Vec::new(),
    tests: Vec::new(),
};

impl FunctionUnderTest {
    /// The flow facts of its own body.
    pub fn own_flow(&self) -> &lacuna_grammar::FunctionFlow {
        self.flow.get(&self.id).unwrap_or(&NO_FLOW)
    }

    /// `module:qualname` as the agent names the function's code when it runs (`co_qualname`):
    /// what the suite's observations, its tests' reached functions and an observed run's
    /// invocations are keyed by. Not `qualname`, which is how a test reaches it
    /// (`Customer.tier.setter`).
    pub fn observed_name(&self) -> String {
        format!("{}:{}", self.module, self.syntax.qualname)
    }
}

/// Where a condition is: decision index and condition index.
pub type ConditionRef = (usize, u16);

/// Source ranges of the function's conditions, absolute.
pub struct ConditionIndex {
    by_range: FxHashMap<(u32, u32), ConditionRef>,
    /// Conditions by end offset: CPython 3.11 starts the position of a method call whose
    /// receiver spans lines at the method's name.
    by_end: FxHashMap<u32, Vec<(u32, ConditionRef)>>,
    /// A chained comparison's whole range → its links in order.
    chains: FxHashMap<(u32, u32), Vec<ConditionRef>>,
    /// Decisions that are a boolean `==`/`!=` (under `not`s): CPython tests the comparison's
    /// result, not its operands. (decision range, span of its conditions, decision, `not`s)
    equalities: Vec<(TextRange, TextRange, usize, bool)>,
    /// Boolean operations and chained comparisons used as values, by whole range: the agent
    /// reports the value they return or store.
    values: FxHashMap<(u32, u32), usize>,
    /// `for` loops by the start of their statement and by their iterable's range: where
    /// CPython puts a loop step (see [`Event::Loop`]).
    loop_starts: FxHashMap<u32, usize>,
    loop_iterables: FxHashMap<(u32, u32), usize>,
}

/// What a jump tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tested {
    Condition(ConditionRef),
    /// The outcome of a whole decision (a boolean equality), negated when `.1`.
    Outcome(usize, bool),
    /// The value of a whole chained comparison (CPython tests it where its links' paths
    /// merge): the decision and its links.
    Chain(usize, u16, u16),
}

impl ConditionIndex {
    pub fn new(f: &FunctionUnderTest) -> Self {
        Self::of(std::iter::once((f.syntax.decisions.as_slice(), f.anchor)))
    }

    /// The conditions of every function of a module (decision indices then count per function,
    /// so only the ranges are meaningful across functions).
    pub fn of_module(module: &lacuna_grammar::Module) -> Self {
        Self::of(
            module
                .functions
                .iter()
                .map(|f| (f.syntax.decisions.as_slice(), f.anchor)),
        )
    }

    fn of<'a>(functions: impl Iterator<Item = (&'a [lacuna_grammar::Decision], Anchor)>) -> Self {
        let mut index = ConditionIndex {
            by_range: FxHashMap::default(),
            by_end: FxHashMap::default(),
            chains: FxHashMap::default(),
            equalities: vec![],
            values: FxHashMap::default(),
            loop_starts: FxHashMap::default(),
            loop_iterables: FxHashMap::default(),
        };
        for (decisions, anchor) in functions {
            index.add(decisions, anchor);
        }
        index
    }

    fn add(&mut self, decisions: &[lacuna_grammar::Decision], anchor: Anchor) {
        let (by_range, chains) = (&mut self.by_range, &mut self.chains);
        for (d, decision) in decisions.iter().enumerate() {
            if decision.kind.is_loop() {
                // A loop's steps are `loop` events, never jumps testing its iterable.
                self.loop_starts
                    .insert(decision.keyword.absolute(anchor).start, d);
                let r = decision.range.absolute(anchor);
                self.loop_iterables.insert((r.start, r.end), d);
                continue;
            }
            if decision.kind == lacuna_grammar::DecisionKind::BoolValue {
                let r = decision.range.absolute(anchor);
                self.values.insert((r.start, r.end), d);
            }
            if let Some(expr) = &decision.expr {
                let mut e = expr;
                let mut negated = false;
                while let BoolExpr::Not(inner) = e {
                    negated = !negated;
                    e = inner;
                }
                if let (BoolExpr::Eq { .. }, Some(first), Some(last)) =
                    (e, decision.conditions.first(), decision.conditions.last())
                {
                    self.equalities.push((
                        decision.range.absolute(anchor),
                        TextRange::new(first.range.start, last.range.end).absolute(anchor),
                        d,
                        negated,
                    ));
                }
            }
            let ranges: Vec<TextRange> = decision
                .conditions
                .iter()
                .map(|c| c.range.absolute(anchor))
                .collect();
            for (c, r) in ranges.iter().enumerate() {
                by_range.insert((r.start, r.end), (d, c as u16));
                self.by_end
                    .entry(r.end)
                    .or_default()
                    .push((r.start, (d, c as u16)));
                for b in &decision.conditions[c].branches {
                    let b = b.absolute(anchor);
                    by_range.entry((b.start, b.end)).or_insert((d, c as u16));
                }
                // Python 3.12+ positions an f-string made of one replacement field at the
                // field (`f'{x}'` → `{x}`).
                let text = &decision.conditions[c].text;
                if (text.contains("f'") || text.contains("f\""))
                    && (text.starts_with('f') || text.starts_with('\'') || text.starts_with('"'))
                    && let (Some(open), Some(close)) = (text.find('{'), text.rfind('}'))
                    && text.matches('{').count() == 1
                    && !text.contains('\n')
                {
                    by_range
                        .entry((r.start + open as u32, r.start + close as u32 + 1))
                        .or_insert((d, c as u16));
                }
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
    }

    /// What an event at `pos` (chain link `link`) tested.
    pub fn lookup(&self, lines: &LineIndex, pos: Position, link: Option<u32>) -> Option<Tested> {
        let (start, end) = offsets(lines, pos)?;
        if let Some(links) = self.chains.get(&(start, end)) {
            return Some(match link {
                Some(link) => Tested::Condition(links[link as usize % links.len()]),
                None => {
                    let (d, first) = links[0];
                    Tested::Chain(d, first, links[links.len() - 1].1)
                }
            });
        }
        if let Some(c) = self.by_range.get(&(start, end)) {
            return Some(Tested::Condition(*c));
        }
        if let Some(c) = self.by_end.get(&end).and_then(|list| {
            list.iter()
                .filter(|(s, _)| *s < start)
                .max_by_key(|(s, _)| *s)
                .map(|(_, c)| *c)
        }) {
            return Some(Tested::Condition(c));
        }
        let jump = TextRange::new(start, end);
        self.equalities
            .iter()
            .find(|(whole, span, ..)| whole.contains_range(jump) && jump.contains_range(*span))
            .map(|&(_, _, d, negated)| Tested::Outcome(d, negated))
    }

    /// The `for` loop a loop step at `stmt` belongs to: the statement starts there (3.11,
    /// 3.12), or it is the loop's iterable (3.13+). The agent gives no `stmt` to the steps of
    /// a comprehension's own code object, whose position is the whole comprehension.
    pub fn for_loop(&self, lines: &LineIndex, stmt: Option<Position>) -> Option<usize> {
        let (start, end) = offsets(lines, stmt?)?;
        self.loop_starts
            .get(&start)
            .or_else(|| self.loop_iterables.get(&(start, end)))
            .copied()
    }

    /// The boolean value (a decision used as a value) whose whole range is `pos`.
    pub fn value(&self, lines: &LineIndex, pos: Position) -> Option<usize> {
        self.values.get(&offsets(lines, pos)?).copied()
    }
}

/// The absolute offsets of an agent position; None when it has no columns.
fn offsets(lines: &LineIndex, pos: Position) -> Option<(u32, u32)> {
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
    Some((start, end))
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
    /// A step of a `for` loop over a symbolic container or range: of the function's `for`
    /// decision, when it is one of the function's own loops; and the 1-based line where its
    /// iterable starts, when the agent said.
    Loop(Option<usize>, Option<u32>),
    /// A truth value taken outside a jump, or a jump outside the function's decisions.
    Other,
    /// A step taken while the agent built the inputs (a constructor's check, a factory's
    /// flag), before the function ran.
    Building,
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
    /// Boolean values (`x = a or b`) evaluated up to their last operand whose value the agent
    /// could not read (passed to a call, or an object whose truth runs user code): CPython
    /// does not test the last operand there, so the outcome cannot be observed.
    pub unobservable: FxHashSet<usize>,
    /// The values of symbols no input sets directly, by name: what external calls returned
    /// in this execution (`$ret:3`) and what object fields held (`self._spent`). The solver
    /// keeps them while it looks for inputs.
    pub fixed_values: FxHashMap<String, Expr>,
    /// The lines of the function's body the run executed (1-based): what an input shows
    /// where no decision tells runs apart — an `except` block entered, the lines after a call
    /// that raised in an earlier run.
    pub lines: FxHashSet<u32>,
}

struct Instance {
    decision: usize,
    values: Vec<Option<bool>>,
    evaluations: Vec<(u16, bool)>,
    /// A boolean value that only its last operand can settle, waiting for the value the
    /// agent reads where it is returned or stored.
    awaiting_value: bool,
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
                let tested = match (Some(*file) == own_file, pos) {
                    (true, Some(pos)) => index.lookup(&f.lines, *pos, *link),
                    _ => None,
                };
                if let Some(Tested::Outcome(d, negated)) = tested {
                    // A boolean equality: the jump gives the decision's outcome directly.
                    out.reached.insert(d);
                    out.sides.insert((d, *taken != negated));
                    if let Some(e) = expr {
                        out.path.push(PathStep {
                            expr: e.clone(),
                            value: *taken,
                            origin: Origin::Other,
                            occurrence: 0,
                        });
                    }
                    continue;
                }
                let found = match tested {
                    Some(Tested::Condition(dc)) => Some(dc),
                    Some(Tested::Chain(d, first, last)) => {
                        // The chain's value: when all links but the last are known true, it
                        // is the last link's value; otherwise it adds nothing.
                        let stack = open.entry(*frame).or_default();
                        let known_true =
                            stack
                                .iter()
                                .rev()
                                .find(|i| i.decision == d)
                                .is_some_and(|i| {
                                    (first..last).all(|c| i.values[c as usize] == Some(true))
                                        && i.values[last as usize].is_none()
                                });
                        known_true.then_some((d, last))
                    }
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
                f: file,
                pos,
                taken,
                expr,
                stmt,
                ..
            } => {
                // The body entered (`taken`), or the iterable run out of items: a side of the
                // loop's decision, as coverage.py counts the arcs of a `for`.
                let d = (Some(*file) == own_file)
                    .then(|| index.for_loop(&f.lines, *stmt))
                    .flatten();
                if let Some(d) = d {
                    out.reached.insert(d);
                    out.sides.insert((d, *taken));
                    out.conditions.insert((d, 0, *taken));
                    if expr.is_none() {
                        out.concrete_only.insert((d, 0));
                    }
                }
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
                        origin: Origin::Loop(d, pos.map(|p| p.0)),
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
            Event::Call { values, mocked, .. } => {
                if !*mocked {
                    for (name, literal) in values {
                        if let Ok(e) = Expr::from_json(literal) {
                            out.fixed_values.insert(name.clone(), e);
                        }
                    }
                }
            }
            Event::Value {
                f: file,
                pos,
                value,
                frame,
                expr,
            } => {
                let d = match (Some(*file) == own_file, pos) {
                    (true, Some(pos)) => index.value(&f.lines, *pos),
                    _ => None,
                };
                let Some(d) = d else { continue };
                let stack = open.entry(*frame).or_default();
                let Some(slot) = stack
                    .iter()
                    .rposition(|i| i.decision == d && i.awaiting_value)
                else {
                    continue;
                };
                let Some(expr_d) = &f.syntax.decisions[d].expr else {
                    continue;
                };
                // The value is the operation's outcome: the last operand's value is the one
                // that gives it (`a or not b`: `b` false gives true).
                let last = (f.syntax.decisions[d].conditions.len() - 1) as u16;
                let mut values = stack[slot].values.clone();
                let Some(operand) = [true, false].into_iter().find(|v| {
                    values[last as usize] = Some(*v);
                    partial(expr_d, &values) == Some(*value)
                }) else {
                    continue;
                };
                stack[slot].awaiting_value = false;
                let n = occurrences.entry((d, last)).or_default();
                *n += 1;
                if let Some(e) = expr {
                    out.path.push(PathStep {
                        expr: e.clone(),
                        value: *value,
                        origin: Origin::Condition((d, last)),
                        occurrence: *n - 1,
                    });
                } else {
                    out.concrete_only.insert((d, last));
                }
                settle(f, &mut out, stack, d, last, operand);
            }
            Event::Blocked { .. } => {}
            Event::Built => {
                for step in &mut out.path {
                    if !matches!(step.origin, Origin::Condition(_)) {
                        step.origin = Origin::Building;
                    }
                }
            }
        }
    }
    for (name, literal) in &run.fields {
        if let Ok(e) = Expr::from_json(literal) {
            out.fixed_values.insert(name.clone(), e);
        }
    }
    for instance in open.values().flatten() {
        if instance.awaiting_value {
            out.unobservable.insert(instance.decision);
        }
    }
    for (pos, n) in loop_steps {
        let e = out.loop_iterations.entry(pos).or_default();
        *e = (*e).max(n);
    }
    if let Some(executed) = own_file.and_then(|i| run.lines.get(&i.to_string())) {
        let body = f.syntax.body.absolute(f.anchor);
        let first = f.lines.line_col(body.start).line + 1;
        let last = f.lines.line_col(body.end).line + 1;
        out.lines = executed
            .iter()
            .copied()
            .filter(|l| (first..=last).contains(l))
            .collect();
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
            if open.iter().any(|i| i.decision == d && i.awaiting_value) {
                out.unobservable.insert(d);
            }
            open.retain(|i| i.decision != d);
            open.push(Instance {
                decision: d,
                values: vec![None; decision.conditions.len()],
                evaluations: vec![],
                awaiting_value: false,
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
                open[slot].awaiting_value = true;
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
