//! Negating an observed path: which steps to flip first (open decisions, unseen condition
//! values, unmet obligations), the solver's answers with external calls and object fields
//! pinned at their values, models turned into the next candidates, and what a flip that
//! cannot succeed says about the side it aimed at (the attempts explanations read).

use super::Search;
use super::request::controllable_names;
use crate::explore::coverage::{Observed, Origin, PathStep};
use crate::explore::exploration::{Attempt, Dependency};
use crate::explore::inputs::Candidate;
use crate::explore::mutate::{MAX_PADDED, padded};
use crate::explore::solver::{Answer, Model};
use crate::explore::value::ModelValue;
use crate::symbolic::{Expr, Op, Sort};
use rustc_hash::{FxHashMap, FxHashSet};

/// The most runs whose flips wait ([`Search::solve_deferred`]); past it, a run's flips are
/// solved at once, as before there was waiting.
const MAX_DEFERRED: usize = 256;

/// A run's flips that wait for the inputs with a purpose: its path, and what was controllable.
pub(super) struct Deferred {
    candidate: Candidate,
    observed: Observed,
    controllable: FxHashSet<String>,
    flips: Vec<(u32, usize)>,
}

impl Search<'_> {
    /// Negates the steps of an observed path, targets first, and queues the models.
    pub(super) fn expand(&mut self, candidate: &Candidate, observed: &Observed) {
        self.other_kind_of_field(candidate, observed);
        let controllable = controllable_names(&self.request(candidate));
        let path = &observed.path;
        let mut flips: Vec<(u32, usize)> = vec![];
        let hashes = prefix_hashes(path);
        // The types the candidate gave its inputs, each shape hashed once for all its steps.
        let types: Vec<(&str, u64)> = candidate
            .types
            .iter()
            .map(|(name, shape)| {
                use std::hash::{Hash, Hasher};
                let mut hasher = rustc_hash::FxHasher::default();
                format!("{shape:?}").hash(&mut hasher);
                (name.as_str(), hasher.finish())
            })
            .collect();
        for (i, step) in path.iter().enumerate() {
            // Unrolling a loop further than the bound is not explored.
            if step.occurrence >= self.budget.loop_bound {
                let loop_decision = match step.origin {
                    Origin::Condition((d, _)) | Origin::Loop(Some(d), _) => Some(d),
                    _ => None,
                };
                self.note_bound(path, i, loop_decision);
                continue;
            }
            let priority = match step.origin {
                Origin::Condition((d, c)) => {
                    let decision_open = !self.out.covered.contains_key(&(d, true))
                        || !self.out.covered.contains_key(&(d, false));
                    let value_unseen = !self.all_conditions.contains(&(d, c, !step.value));
                    let obligation_open = self.out.independence.get(&d).is_none_or(|ind| {
                        !ind.contains(crate::model::mcdc::Obligation {
                            condition: c,
                            value: !step.value,
                        })
                    });
                    if decision_open {
                        3
                    } else if value_unseen {
                        2
                    } else if obligation_open && self.budget.target_obligations {
                        1
                    } else {
                        // Still worth a try: other decisions may depend on this path (a
                        // counter incremented by a loop, a flag set on one side).
                        0
                    }
                }
                // A `for` loop's side never taken (never entered, never run out of items).
                Origin::Loop(Some(d), _) if !self.out.covered.contains_key(&(d, !step.value)) => 3,
                // A loop that is no decision of its own (a comprehension's, a library's over
                // the function's container) never entered while a decision was never reached:
                // the decision may be in its body (`sum(1 for v in self.items if v < limit)`).
                // Entered once already, one more item is no likelier to get there.
                Origin::Loop(None, _)
                    if !step.value && step.occurrence == 0 && self.unreached_decision() =>
                {
                    3
                }
                Origin::Loop(..) | Origin::Other => 1,
                // The inputs' construction: once the function's own steps are tried.
                Origin::Building => 0,
            };
            // A flip tried with objects built through a factory is tried again when they are
            // built through their constructors instead.
            let mut negated = text_hash(&step.negation());
            for (choice, _) in candidate
                .choices
                .iter()
                .filter(|(c, _)| c.ends_with("#constructor"))
            {
                use std::hash::{Hash, Hasher};
                let mut hasher = rustc_hash::FxHasher::default();
                (negated, choice).hash(&mut hasher);
                negated = hasher.finish();
            }
            // A flip tried while an input it reads had one type is tried again once that
            // input is given another (`align == "right"` is unsatisfiable while `align` is an
            // int, not as a str).
            if !types.is_empty() {
                use std::hash::{Hash, Hasher};
                let mut hasher = rustc_hash::FxHasher::default();
                negated.hash(&mut hasher);
                step.expr.for_each_var(&mut |v, _| {
                    for &(name, shape) in &types {
                        let reads = v
                            .strip_prefix(name)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
                        if reads {
                            (name, shape).hash(&mut hasher);
                        }
                    }
                });
                negated = hasher.finish();
            }
            let key = (hashes[i], negated);
            if !self.tried_flips.insert(key) {
                continue;
            }
            // A condition on nothing an input can steer cannot be flipped by any input: say
            // what it depends on instead of asking the solver.
            let mut vars = vec![];
            step.expr.for_each_var(&mut |v, _| {
                if !vars.iter().any(|x: &String| x == v) {
                    vars.push(v.to_owned());
                }
            });
            let steerable = vars
                .iter()
                .any(|v| controllable.contains(v) || self.constructible(v));
            if !steerable {
                let target = match step.origin {
                    Origin::Condition((d, c)) => Some((d, c, !step.value)),
                    Origin::Loop(Some(d), _) => Some((d, 0, !step.value)),
                    _ => None,
                };
                let deps: Vec<Dependency> =
                    vars.iter().filter_map(|v| self.dependency(v)).collect();
                if !deps.is_empty() {
                    self.note(target, Attempt::Uncontrollable(deps));
                }
                continue;
            }
            flips.push((priority, i));
        }
        flips.sort_by_key(|&(p, i)| (std::cmp::Reverse(p), i));
        flips.truncate(24);
        // Flips aimed at nothing the function is judged by yet (both sides of their decision
        // covered, both values of their condition seen) wait until every input with a
        // purpose has run: a search that covers everything first never needs them (they
        // were 40 % of the solver's queries on toml's decoder, and 33 % on xmltodict).
        let later = flips
            .iter()
            .position(|&(p, _)| p == 0)
            .unwrap_or(flips.len());
        if later < flips.len() && self.deferred.len() < MAX_DEFERRED {
            self.deferred.push_back(Deferred {
                candidate: candidate.clone(),
                observed: observed.clone(),
                controllable: controllable.clone(),
                flips: flips.split_off(later),
            });
        }
        self.solve_flips(candidate, observed, &controllable, &flips);
    }

    /// Solves the deferred flips of the oldest run that has some, if any are left.
    pub(super) fn solve_deferred(&mut self) -> bool {
        let Some(d) = self.deferred.pop_front() else {
            return false;
        };
        self.solve_flips(&d.candidate, &d.observed, &d.controllable, &d.flips);
        true
    }

    /// Solves the negations `flips` (priority, step) of `observed`'s path and queues their
    /// models as inputs, noting what a flip that fails says about the side it aimed at.
    fn solve_flips(
        &mut self,
        candidate: &Candidate,
        observed: &Observed,
        controllable: &FxHashSet<String>,
        flips: &[(u32, usize)],
    ) {
        if flips.is_empty() {
            return;
        }
        let path = &observed.path;
        // External calls keep the values they returned, and object fields the values they
        // held: a model may only change inputs. When a flip is impossible so, and possible with
        // other values of those, the side depends on them.
        let pins = pins(path, &observed.fixed_values, controllable);
        let offset = pins.len();
        let prefix: Vec<Expr> = pins
            .iter()
            .map(|(_, pin)| pin.clone())
            .chain(path.iter().map(|s| s.assertion()))
            .collect();
        let indices: Vec<usize> = flips.iter().map(|&(_, i)| i + offset).collect();
        let answers = self.solver.negations(&prefix, &indices);
        for (j, mut answer) in answers {
            let i = j - offset;
            tracing::debug!(negation = %path[i].negation(), answer = ?answer, "flip");
            let mut fixed: Vec<String> = vec![];
            // What the answer satisfies: the pins, the path before the step, its negation.
            let mut query: Vec<Expr> = prefix[..j].to_vec();
            query.push(path[i].negation());
            if answer == Answer::Unsat && offset > 0 {
                let mut free: Vec<Expr> = path[..i].iter().map(|s| s.assertion()).collect();
                free.push(path[i].negation());
                let unpinned = self.solver.check(&free);
                if matches!(unpinned, Answer::Sat(_)) {
                    query.clone_from(&free);
                    let mut in_step = vec![];
                    path[i]
                        .expr
                        .for_each_var(&mut |v, _| in_step.push(v.to_owned()));
                    fixed = pins
                        .iter()
                        .map(|(v, _)| v.clone())
                        .filter(|v| in_step.contains(v))
                        .collect();
                    if fixed.is_empty() {
                        fixed = pins.iter().map(|(v, _)| v.clone()).collect();
                    }
                    answer = unpinned;
                }
            } else if matches!(answer, Answer::Sat(_)) && reads_pinned_field(&path[i], &pins) {
                // Inputs alone seem to do, but the object may not be buildable with them (a
                // constructor's check the path does not show): building its state through
                // its writers is tried too.
                let mut free: Vec<Expr> = path[..i].iter().map(|s| s.assertion()).collect();
                free.push(path[i].negation());
                if let Answer::Sat(model) = self.solver.check(&free)
                    && let Applied::Candidate(next) =
                        self.apply(candidate, &model, controllable, &FxHashMap::default())
                {
                    let priority = flips.iter().find(|(_, j)| *j == i).map_or(0, |(p, _)| *p);
                    self.push(priority.saturating_sub(1), next);
                }
            }
            // A path's own loop exits can make a flip unsatisfiable (`len(xs) == 0` on this
            // path, `len(xs) >= 20` wanted): try again with only the decisions' conditions.
            if answer == Answer::Unsat
                && path[..i]
                    .iter()
                    .any(|s| !matches!(s.origin, Origin::Condition(_)))
            {
                let mut relaxed: Vec<Expr> = path[..i]
                    .iter()
                    .filter(|s| matches!(s.origin, Origin::Condition(_)))
                    .map(|s| s.assertion())
                    .collect();
                relaxed.push(path[i].negation());
                answer = self.solver.check(&relaxed);
                query = relaxed;
            }
            let priority = flips.iter().find(|(_, j)| *j == i).map_or(0, |(p, _)| *p);
            let target = match path[i].origin {
                Origin::Condition((d, c)) => Some((d, c, !path[i].value)),
                Origin::Loop(Some(d), _) => Some((d, 0, !path[i].value)),
                _ => None,
            };
            if !fixed.is_empty() {
                // Object fields are built through their writers below, and explained there.
                let deps: Vec<Dependency> = fixed
                    .iter()
                    .filter_map(|v| self.dependency(v))
                    .filter(|d| matches!(d, Dependency::ExternalCall(_)))
                    .collect();
                if !deps.is_empty() {
                    self.note(target, Attempt::Uncontrollable(deps));
                }
            }
            // A clock's value changes from one run to the next: a model right at the boundary
            // the pinned value sets is likely to miss it, so values away from it are tried too.
            let drifting = fixed.is_empty() && {
                let mut found = false;
                path[i].expr.for_each_var(&mut |v, sort| {
                    found |= sort == Sort::Real && pins.iter().any(|(p, _)| p == v);
                });
                found
            };
            match answer {
                Answer::Sat(mut model) => {
                    // The prefix is asserted once for all flips, so the model also values the
                    // variables of later steps, arbitrarily: only those this flip constrains
                    // are taken (an arbitrary `qty = 0` would make the input unbuildable).
                    let mut constrained: FxHashSet<String> = FxHashSet::default();
                    for step in &path[..=i] {
                        step.expr.for_each_var(&mut |v, _| {
                            constrained.insert(v.to_owned());
                        });
                    }
                    model.values.retain(|name, _| constrained.contains(&**name));
                    let model = self.ordinary(&query, model);
                    // A model that also changes how an object input was built (its
                    // constructor's or its methods' arguments: `code != self.__init__.code`
                    // solved by changing both) may not build it any more: the same flip with
                    // the object built as it was comes first.
                    let kept = self.as_built(candidate, &model, path, i);
                    if let Some(kept) = kept
                        && let Applied::Candidate(next) =
                            self.apply(candidate, &kept, controllable, &observed.fixed_values)
                    {
                        self.push(priority, next);
                    }
                    match self.apply(candidate, &model, controllable, &observed.fixed_values) {
                        Applied::Candidate(next) => {
                            if drifting {
                                for variant in away_from_boundary(candidate, &next) {
                                    self.push(priority.saturating_sub(1), variant);
                                }
                            }
                            self.push(priority, next)
                        }
                        Applied::Uncontrollable(vars) => {
                            let mut in_step = vec![];
                            path[i]
                                .expr
                                .for_each_var(&mut |v, _| in_step.push(v.to_owned()));
                            let deps: Vec<Dependency> = vars
                                .iter()
                                .filter(|v| in_step.contains(v))
                                .filter_map(|v| self.dependency(v))
                                .collect();
                            if !deps.is_empty() {
                                self.note(target, Attempt::Uncontrollable(deps));
                            }
                        }
                        Applied::Object(var, needed) => {
                            if let Some(dep) = self.dependency(&var) {
                                self.note(target, Attempt::ObjectState(dep, needed));
                            }
                        }
                        Applied::Bound(needed) => self.note(
                            target,
                            Attempt::BoundHit {
                                needed,
                                bound: self.budget.loop_bound,
                            },
                        ),
                    }
                }
                Answer::Unsat => self.note(target, Attempt::Unsat),
                Answer::Unknown(why) => {
                    self.around_undecided(candidate, &path[i].expr);
                    self.note(target, Attempt::Unknown(why))
                }
                Answer::Unsupported(ops) => {
                    self.around_undecided(candidate, &path[i].expr);
                    self.note(
                        target,
                        Attempt::Unsupported(ops.iter().map(|o| o.to_string()).collect()),
                    )
                }
            }
        }
    }

    /// The model of the negation of step `i` of `path` with every construction argument
    /// `model` changes (a variable under an object input's path: `self.__init__.code`,
    /// `self.unlock.0.code`) kept at the value `candidate` gives it; None when the model
    /// changes none, or when the flip needs them changed.
    fn as_built(
        &mut self,
        candidate: &Candidate,
        model: &Model,
        path: &[PathStep],
        i: usize,
    ) -> Option<Model> {
        let mut pins: Vec<Expr> = vec![];
        path[..=i].iter().for_each(|step| {
            step.expr.for_each_var(&mut |v, sort| {
                let Some(current) = current_value(candidate, v) else {
                    return;
                };
                let changed = model.values.get(v).is_some_and(|m| *m != current);
                if !changed || !construction_argument(v) {
                    return;
                }
                let value = match &current {
                    ModelValue::Int(d) => Expr::Int(d.as_str().into()),
                    ModelValue::Bool(b) => Expr::Bool(*b),
                    ModelValue::Str(t) => Expr::Str(t.as_str().into()),
                    ModelValue::Real(x) => Expr::Real(*x),
                };
                if let Some(pin) = pin(v, sort, &value)
                    && !pins.contains(&pin)
                {
                    pins.push(pin);
                }
            });
        });
        if pins.is_empty() {
            return None;
        }
        let mut query: Vec<Expr> = path[..i].iter().map(|s| s.assertion()).collect();
        query.push(path[i].negation());
        query.extend(pins);
        match self.solver.check(&query) {
            Answer::Sat(mut kept) => {
                kept.values
                    .retain(|name, _| model.values.contains_key(name));
                Some(kept)
            }
            _ => None,
        }
    }

    /// A condition the solver could not decide (`len(frame) > 4096` with long texts) or does
    /// not model (`flag.lower() in ("1", "true")`): its numbers join those mutations draw
    /// from, and its variables are tried at its literals — a text of a number's length and one
    /// longer, an integer one either side, a text equal to each of its texts.
    pub(super) fn around_undecided(&mut self, candidate: &Candidate, expr: &Expr) {
        let mut numbers = vec![];
        expr.for_each_int(&mut |n| numbers.push(n));
        let mut vars: Vec<(String, Sort)> = vec![];
        expr.for_each_var(&mut |v, sort| vars.push((v.to_owned(), sort)));
        let mut texts = vec![];
        expr.for_each_str(&mut |t| texts.push(t.to_owned()));
        for text in texts.iter().take(8) {
            for (var, _) in vars.iter().filter(|(_, sort)| *sort == Sort::Str) {
                let mut next = candidate.clone();
                next.vars.insert(var.clone(), ModelValue::Str(text.clone()));
                self.push(1, next);
            }
        }
        for &n in &numbers {
            if !self.numbers.contains(&n) {
                self.numbers.push(n);
            }
            for (var, sort) in &vars {
                let values: Vec<ModelValue> = match sort {
                    Sort::Str => usize::try_from(n)
                        .ok()
                        .filter(|&n| n <= MAX_PADDED)
                        .map(|n| {
                            vec![
                                ModelValue::Str(padded("", n + 1)),
                                ModelValue::Str(padded("", n)),
                            ]
                        })
                        .unwrap_or_default(),
                    Sort::Int => vec![
                        ModelValue::Int(n.saturating_add(1).to_string()),
                        ModelValue::Int(n.saturating_sub(1).to_string()),
                    ],
                    _ => vec![],
                };
                for value in values {
                    let mut next = candidate.clone();
                    next.vars.insert(var.clone(), value);
                    self.push(1, next);
                }
            }
        }
    }

    /// Turns a model into the next candidate: controllable variables are set directly; object
    /// fields the model wants are reached through the methods that write them.
    fn apply(
        &self,
        candidate: &Candidate,
        model: &Model,
        controllable: &FxHashSet<String>,
        fixed: &FxHashMap<String, Expr>,
    ) -> Applied {
        let mut next = candidate.clone();
        let mut changed = false;
        let mut uncontrollable = vec![];
        for (name, value) in &model.values {
            // A field or a call's return the model leaves as it was asks for nothing.
            if !controllable.contains(&**name)
                && fixed.get(&**name).is_some_and(|e| same_value(value, e))
            {
                continue;
            }
            if controllable.contains(&**name) || element_of_container(controllable, name) {
                if next.vars.get(&**name) != Some(value) {
                    next.vars.insert(name.to_string(), value.clone());
                    changed = true;
                }
                // Lengths beyond the bound cannot be built.
                if name.ends_with(".__len__")
                    && let ModelValue::Int(d) = value
                    && d.parse::<u64>()
                        .is_ok_and(|n| n > u64::from(self.budget.loop_bound))
                {
                    return Applied::Bound(d.parse().unwrap_or(0));
                }
                continue;
            }
            match self.object_calls(candidate, name, value) {
                Some(Ok((path, calls))) => {
                    if next.calls.get(&path) != Some(&calls) {
                        next.calls.insert(path, calls);
                        changed = true;
                    }
                }
                Some(Err(needed)) => return Applied::Object(name.to_string(), needed),
                None => match self.factory_slots(candidate, name, value) {
                    Some(Ok(slots)) => {
                        for (slot, v) in slots {
                            if next.vars.get(&slot) != Some(&v) {
                                next.vars.insert(slot, v);
                                changed = true;
                            }
                        }
                    }
                    Some(Err(needed)) => return Applied::Object(name.to_string(), needed),
                    None => {
                        if current_value(candidate, name).as_ref() != Some(value) {
                            uncontrollable.push(name.to_string());
                        }
                    }
                },
            }
        }
        if changed {
            Applied::Candidate(next)
        } else {
            uncontrollable.sort();
            Applied::Uncontrollable(uncontrollable)
        }
    }

    /// A loop on `path` reached the bound at step `at`: the decisions after it that depend on
    /// no symbolic input (a counter the loop increments) are blocked by the bound; the
    /// per-item conditions of a comprehension that reached it are not.
    pub(super) fn note_bound(
        &mut self,
        path: &[PathStep],
        at: usize,
        loop_decision: Option<usize>,
    ) {
        let needed = u64::from(self.budget.loop_bound) + 1;
        // The iteration of a comprehension or generator expression (not one of the function's
        // `for` decisions) that reached the bound: a decision inside a comprehension spanning
        // the line its iterable starts is one of its per-item conditions (`"?" if ord(c) >
        // 0xFFFF else c for c in text`), which one item decides — concrete because an
        // operation is not modelled, not because the loop needs more iterations.
        let per_item_line = match path[at].origin {
            Origin::Loop(None, line) => line,
            _ => None,
        };
        let syntax = &self.f.syntax;
        let line_of = |offset: u32| self.f.lines.line_col(offset).line + 1;
        let per_item = |d: usize| {
            per_item_line.is_some_and(|line| {
                syntax
                    .comprehensions_around(syntax.decisions[d].range)
                    .any(|c| {
                        let c = c.absolute(self.f.anchor);
                        (line_of(c.start)..=line_of(c.end)).contains(&line)
                    })
            })
        };
        let later: FxHashSet<usize> = path[at..]
            .iter()
            .filter_map(|s| match s.origin {
                Origin::Condition((d, _)) if Some(d) != loop_decision => Some(d),
                _ => None,
            })
            .collect();
        for (d, _) in self.f.syntax.decisions.iter().enumerate() {
            let after = later.contains(&d) || self.out.conditions_concrete(d) && !per_item(d);
            if after && Some(d) != loop_decision {
                self.note(
                    Some((d, 0, true)),
                    Attempt::BoundHit {
                        needed,
                        bound: self.budget.loop_bound,
                    },
                );
            }
        }
    }

    pub(super) fn note(&mut self, target: Option<(usize, u16, bool)>, attempt: Attempt) {
        let Some((d, c, v)) = target else { return };
        let list = self.out.condition_attempts.entry((d, c, v)).or_default();
        if !list.contains(&attempt) {
            list.push(attempt.clone());
        }
        for outcome in [true, false] {
            if self.out.covered.contains_key(&(d, outcome)) {
                continue;
            }
            let list = self.out.attempts.entry((d, outcome)).or_default();
            if !list.contains(&attempt) {
                list.push(attempt.clone());
            }
        }
    }
}

enum Applied {
    Candidate(Candidate),
    Uncontrollable(Vec<String>),
    /// An object field needs this many writer calls, more than the bound.
    Object(String, u64),
    Bound(u64),
}

/// Variants of `next` whose real-valued inputs the model changed from `before` are moved away
/// from the value it chose: doubled, halved, one more and one less.
fn away_from_boundary(before: &Candidate, next: &Candidate) -> Vec<Candidate> {
    let mut out = vec![];
    for (name, value) in &next.vars {
        let ModelValue::Real(x) = value else { continue };
        if before.vars.get(name) == Some(value) {
            continue;
        }
        for moved in [x * 2.0, x / 2.0, x + 1.0, x - 1.0] {
            let mut variant = next.clone();
            variant.vars.insert(name.clone(), ModelValue::Real(moved));
            out.push(variant);
        }
    }
    out
}

/// Equalities keeping each value no input sets directly (an external call's return, an
/// object field), as the path uses it, at what it was in the execution: (symbol,
/// `symbol == value`).
fn pins(
    path: &[PathStep],
    values: &FxHashMap<String, Expr>,
    controllable: &FxHashSet<String>,
) -> Vec<(String, Expr)> {
    let mut out: Vec<(String, Expr)> = vec![];
    for step in path {
        step.expr.for_each_var(&mut |name, sort| {
            if out.iter().any(|(n, _)| n == name) || controllable.contains(name) {
                return;
            }
            if let Some(pin) = values.get(name).and_then(|value| pin(name, sort, value)) {
                out.push((name.to_owned(), pin));
            }
        });
    }
    out
}

/// `name == value`, keeping a variable of `sort` at a value an execution gave it (the one way
/// a flip keeps what it may not change); none when the value does not fit the sort or is not
/// finite.
fn pin(name: &str, sort: Sort, value: &Expr) -> Option<Expr> {
    let fits = matches!(
        (sort, value),
        (Sort::Int, Expr::Int(_)) | (Sort::Bool, Expr::Bool(_)) | (Sort::Str, Expr::Str(_))
    ) || matches!((sort, value), (Sort::Real, Expr::Real(x)) if x.is_finite());
    fits.then(|| Expr::app(Op::Eq, vec![Expr::var(name, sort), value.clone()]))
}

/// Whether `name` is an argument an object input was built with: of its constructor
/// (`self.__init__.code`) or of a method called on it before the function
/// (`self.unlock.0.code`, the first call's).
fn construction_argument(name: &str) -> bool {
    use crate::symbolic::{PathStep as Access, VarPath, VarRoot};
    let Some(path) = VarPath::parse(name) else {
        return false;
    };
    if !matches!(path.root, VarRoot::Param(_)) {
        return false;
    }
    let attrs: Vec<Option<&str>> = path
        .steps
        .iter()
        .map(|s| match s {
            Access::Attr(a) => Some(a.as_str()),
            _ => None,
        })
        .collect();
    let call = |a: &str| a.bytes().all(|b| b.is_ascii_digit());
    attrs
        .windows(2)
        .any(|w| w[0] == Some("__init__") && w[1].is_some())
        || attrs.windows(3).any(|w| match w {
            [Some(method), Some(n), Some(arg)] => !call(method) && call(n) && !call(arg),
            _ => false,
        })
}

/// Whether a step reads an object field the solver was asked to keep.
fn reads_pinned_field(step: &PathStep, pins: &[(String, Expr)]) -> bool {
    let mut found = false;
    step.expr.for_each_var(&mut |v, _| {
        found |= !v.starts_with('$') && pins.iter().any(|(p, _)| p == v);
    });
    found
}

/// Whether a model's value is the literal `e`.
fn same_value(value: &ModelValue, e: &Expr) -> bool {
    match (value, e) {
        (ModelValue::Int(a), Expr::Int(b)) => a.as_str() == &**b,
        (ModelValue::Bool(a), Expr::Bool(b)) => a == b,
        (ModelValue::Str(a), Expr::Str(b)) => a.as_str() == &**b,
        (ModelValue::Real(a), Expr::Real(b)) => a == b,
        (ModelValue::Real(a), Expr::Int(b)) => b.parse::<f64>().is_ok_and(|b| b == *a),
        _ => false,
    }
}

fn current_value(candidate: &Candidate, name: &str) -> Option<ModelValue> {
    candidate.vars.get(name).cloned()
}

/// Whether `name` is an element (`xs[2]`) of a container input whose length the solver
/// controls: the element exists once the model's length is built, though this candidate's
/// shorter container has no such variable yet.
fn element_of_container(controllable: &FxHashSet<String>, name: &str) -> bool {
    name.match_indices('[').any(|(i, _)| {
        let rest = &name[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0
            && rest[digits..].starts_with(']')
            && controllable.contains(&format!("{}.__len__", &name[..i]))
    })
}

/// Hashes of a path's prefixes: `out[i]` identifies the steps before step `i`. Long paths
/// (loops run thousands of times) make keys of their text too large to keep.
pub(super) fn prefix_hashes(path: &[PathStep]) -> Vec<u64> {
    use std::hash::{Hash, Hasher};
    let mut out = Vec::with_capacity(path.len() + 1);
    let mut hasher = rustc_hash::FxHasher::default();
    out.push(hasher.finish());
    for step in path {
        step.assertion().to_string().hash(&mut hasher);
        out.push(hasher.finish());
    }
    out
}

fn text_hash(e: &Expr) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = rustc_hash::FxHasher::default();
    e.to_string().hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::coverage::PathStep;

    fn step(expr: Expr, value: bool) -> PathStep {
        PathStep {
            expr,
            value,
            origin: Origin::Other,
            occurrence: 0,
        }
    }

    #[test]
    fn pins_keep_external_returns_at_their_values() {
        // requested > $ret:0, and a float the call returned that the path does not use.
        let path = vec![step(
            Expr::app(
                Op::Gt,
                vec![
                    Expr::var("requested", Sort::Int),
                    Expr::var("$ret:0", Sort::Int),
                ],
            ),
            false,
        )];
        let mut values = FxHashMap::default();
        values.insert("$ret:0".to_owned(), Expr::int(4));
        values.insert("$ret:1".to_owned(), Expr::Real(0.5));
        let pinned = pins(&path, &values, &FxHashSet::default());
        assert_eq!(pinned.len(), 1);
        assert_eq!(pinned[0].0, "$ret:0");
        assert_eq!(pinned[0].1.to_string(), "$ret:0 == 4");
        // A value of another sort than the symbol's, or not finite, is not a pin.
        values.insert("$ret:0".to_owned(), Expr::Real(f64::NAN));
        assert!(pins(&path, &values, &FxHashSet::default()).is_empty());
        // An input is never pinned.
        values.insert("$ret:0".to_owned(), Expr::int(4));
        let controllable: FxHashSet<String> = ["$ret:0".to_owned()].into_iter().collect();
        assert!(pins(&path, &values, &controllable).is_empty());
    }

    #[test]
    fn values_are_moved_away_from_a_drifting_boundary() {
        let before = Candidate::default();
        let mut next = Candidate::default();
        next.vars.insert("timeout".into(), ModelValue::Real(0.5));
        next.vars.insert("n".into(), ModelValue::Int("3".into()));
        let moved: Vec<ModelValue> = away_from_boundary(&before, &next)
            .into_iter()
            .map(|c| c.vars["timeout"].clone())
            .collect();
        assert_eq!(moved, [1.0, 0.25, 1.5, -0.5].map(ModelValue::Real).to_vec());
        assert!(away_from_boundary(&next, &next).is_empty());
    }

    #[test]
    fn construction_arguments_are_told_from_other_inputs() {
        for name in [
            "self.__init__.code",
            "box.__init__.size",
            "self.unlock.0.code",
        ] {
            assert!(construction_argument(name), "{name}");
        }
        for name in ["code", "self._code", "xs[2]", "xs.__len__", "f.__call__[0]"] {
            assert!(!construction_argument(name), "{name}");
        }
    }

    #[test]
    fn prefix_hashes_tell_paths_apart() {
        let a = step(Expr::var("x", Sort::Bool), true);
        let b = step(Expr::var("y", Sort::Bool), true);
        let one = prefix_hashes(&[a.clone(), b.clone()]);
        let two = prefix_hashes(&[a.clone(), step(Expr::var("y", Sort::Bool), false)]);
        assert_eq!(one.len(), 3);
        assert_eq!(one[..2], two[..2], "same steps, same prefixes");
        assert_ne!(one[2], two[2]);
        assert_ne!(prefix_hashes(&[b, a])[1], one[1]);
    }
}
