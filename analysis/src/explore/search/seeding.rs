//! Inputs the solver does not propose: the first ones (defaults, every alternative of every
//! choice, the function's literals, values no path condition asks for), choices crossed with
//! the inputs found, inputs of another type where a type test went one way, repairs of inputs
//! that could not be built, and mutations once the solver's targets are spent.

use super::flip::prefix_hashes;
use super::request::varargs_choice;
use super::{Phase, Search};
use crate::agent::protocol::{ExecuteRequest, Execution, Value};
use crate::explore::coverage::Observed;
use crate::explore::exploration::Attempt;
use crate::explore::inputs::{Candidate, call_return, constructor_choice};
use crate::explore::mutate::{Sources, mutate};
use crate::explore::shape::{ObjectShape, Shape, kind_shape};
use crate::explore::signature::{MinedArgument, MinedSequence};
use crate::explore::value::ModelValue;

impl Search<'_> {
    /// A candidate with the signature's default values (a declared `None` default included).
    pub(super) fn base(&self) -> Candidate {
        Candidate {
            vars: self.signature.defaults.clone(),
            choices: self.signature.default_choices.clone(),
            ..Candidate::default()
        }
    }

    /// The first inputs: defaults, then every alternative of every choice.
    pub(super) fn seeds(&self) -> Vec<Candidate> {
        let mut seeds = vec![self.base()];
        // Literals of the function for scalar parameters; the receiver's constructor's own
        // for its text arguments, of a kind they may be (`JsonPointer('/')`).
        for (name, shape) in &self.signature.params {
            match shape {
                Shape::Int => {
                    for n in self.numbers.iter().take(6) {
                        for v in [*n, n + 1, n - 1] {
                            let mut c = self.base();
                            c.vars.insert(name.clone(), ModelValue::Int(v.to_string()));
                            seeds.push(c);
                        }
                    }
                }
                Shape::Str => {
                    for s in self.strings.iter().take(6) {
                        let mut c = self.base();
                        c.vars.insert(name.clone(), ModelValue::Str(s.clone()));
                        seeds.push(c);
                    }
                }
                _ => {}
            }
        }
        let (texts, _) = crate::explore::seeds::literal_values(&self.f.seeds.receiver_literals);
        let init = self.signature.receiver.iter().flat_map(|o| &o.init);
        for (name, shape) in init {
            let Some(pick) = variant_of(shape, &Shape::Str) else {
                continue;
            };
            let var = format!("self.__init__.{name}");
            for s in texts.iter().take(RECEIVER_TEXTS) {
                let mut c = self.base();
                if let Some(k) = pick {
                    c.choices.insert(var.clone(), k);
                }
                c.vars.insert(var.clone(), ModelValue::Str(s.clone()));
                seeds.push(c);
            }
        }
        for (name, shape) in &self.signature.params {
            for want in [Shape::Float, Shape::Str] {
                let Some(pick) = variant_of(shape, &want) else {
                    continue;
                };
                for value in self.special_values(&want) {
                    let mut c = self.base();
                    if let Some(k) = pick {
                        c.choices.insert(name.clone(), k);
                    }
                    c.vars.insert(name.clone(), value);
                    seeds.push(c);
                }
            }
        }
        seeds
    }

    /// When the frontier first runs dry: the arguments the project's own tests call the
    /// function with, each value of a kind its parameter takes. Not among the first seeds: the
    /// generator's own inputs come first, so that its tests are not the suite's again (what
    /// makes a generated assertion worth checking against the suite's invariants), and the
    /// suite's reach what no flip could (a checksum, a date a regular expression accepts).
    pub(super) fn observed_seeds(&mut self) -> bool {
        if self.observed_tried {
            return false;
        }
        self.observed_tried = true;
        let mut added = false;
        for c in self.observed_candidates() {
            if self.seen_candidates.insert(c.key()) {
                self.frontier.push((0, c));
                added = true;
            }
        }
        added
    }

    /// The arguments the project's own tests call the function with, as candidates: each
    /// value of a kind its parameter takes (those setting none left out).
    pub(super) fn observed_candidates(&self) -> Vec<Candidate> {
        let mut out = vec![];
        for input in &self.signature.observed {
            let mut c = self.base();
            for (name, shape) in &self.signature.params {
                let Some(value) = input.get(name) else {
                    continue;
                };
                let Some(pick) = variant_of(shape, &value_shape(value)) else {
                    continue;
                };
                if let Some(k) = pick {
                    c.choices.insert(name.clone(), k);
                }
                c.vars.insert(name.clone(), value.clone());
            }
            if !c.vars.is_empty() {
                out.push(c);
            }
        }
        out
    }

    /// The object inputs built as the suite's passing tests built objects of their classes
    /// (Palus's dynamic model): the constructor's arguments they passed, then the methods they
    /// called, with their arguments. For the receiver, the state before each call the tests
    /// made of the method under test (the calls before it, earlier calls of it included); for
    /// another object, the state after the whole sequence; for both, the object as its
    /// constructor left it. Every object input of a seed is built so (the receiver and
    /// `other` both, each taking its builds in turn; one that may be objects of several
    /// classes, each class in turn), so that no seed fails on an object left to defaults its
    /// constructor refuses. At most `MINED_SEEDS`, the most frequent sequences first.
    pub(super) fn mined_seeds(&self) -> Vec<Candidate> {
        const MINED_SEEDS: usize = 16;
        let method = self.f.qualname.rsplit('.').next().unwrap_or_default();
        // The receiver, and each parameter that is an object or may be one (`other` of
        // `__eq__` testing `isinstance(other, self.__class__)`: that alternative chosen).
        let objects = self
            .signature
            .receiver
            .iter()
            .map(|o| ("self", None, o))
            .chain(self.signature.params.iter().flat_map(|(n, s)| {
                s.objects()
                    .into_iter()
                    .map(move |(k, o)| (n.as_str(), k, o))
            }))
            .filter(|(path, _, o)| {
                self.factory(&Candidate::default(), &o.class, path)
                    .is_none()
            });
        // Per object input: each way of building it (an object it may be, a sequence, how
        // many of its calls), the ways of several classes it may be taking turns.
        let mut builds: Vec<(&str, Vec<MinedWay<'_>>)> = vec![];
        for (path, choice, object) in objects {
            let mut ways = vec![];
            for sequence in self
                .signature
                .mined
                .get(&object.class)
                .into_iter()
                .flatten()
            {
                let mut ends: Vec<usize> = vec![0];
                if path == "self" {
                    ends.extend(
                        (0..sequence.calls.len()).filter(|&i| sequence.calls[i].0 == method),
                    );
                }
                if path != "self" || ends.len() == 1 {
                    ends.push(sequence.calls.len());
                }
                ways.extend(ends.into_iter().map(|end| (choice, object, sequence, end)));
            }
            if ways.is_empty() {
                continue;
            }
            match builds.iter_mut().find(|(p, _)| *p == path) {
                Some((_, held)) => *held = interleaved(std::mem::take(held), ways),
                None => builds.push((path, ways)),
            }
        }
        let rounds = builds.iter().map(|(_, ways)| ways.len()).max().unwrap_or(0);
        let mut seeds: Vec<Candidate> = vec![];
        // The objects passed to them as the tests had made them, then as their constructors
        // left them (a locker given to a shelf, locked).
        for nested in [Nested::AsPassed, Nested::Constructed] {
            for i in 0..rounds {
                let mut c = self.base();
                for (path, ways) in &builds {
                    let (choice, object, sequence, end) = ways[i % ways.len()];
                    self.build_mined(&mut c, path, object, sequence, end, nested);
                    if let Some(k) = choice {
                        c.choices.insert((*path).to_owned(), k);
                    }
                }
                if !seeds.iter().any(|s| s.key() == c.key()) {
                    seeds.push(c);
                }
            }
        }
        seeds.truncate(MINED_SEEDS);
        seeds
    }

    /// Builds the object at `path` of `c` by the first `calls` steps of `sequence` (up to the
    /// first the object's shape cannot make): each argument the tests passed that is a value
    /// (or `None`) of a kind its parameter takes.
    fn build_mined(
        &self,
        c: &mut Candidate,
        path: &str,
        object: &ObjectShape,
        sequence: &MinedSequence,
        calls: usize,
        nested: Nested,
    ) {
        for ((name, shape), argument) in object.init.iter().zip(&sequence.constructor) {
            self.set_mined(
                c,
                format!("{path}.__init__.{name}"),
                shape,
                argument,
                nested,
            );
        }
        let mut made = vec![];
        for (method, args) in sequence.calls.iter().take(calls) {
            // A call the object's shape cannot make (`cache[k] = v`, a private method) ends
            // the sequence: the calls after it may need the state it made.
            let Some(m) = object.methods.iter().position(|(name, _)| name == method) else {
                break;
            };
            let k = made.len();
            for ((param, shape), argument) in object.methods[m].1.iter().zip(args) {
                self.set_mined(
                    c,
                    format!("{path}.{method}.{k}.{param}"),
                    shape,
                    argument,
                    nested,
                );
            }
            made.push(m);
        }
        if !made.is_empty() {
            c.calls.insert(path.to_owned(), made);
        }
    }

    /// Sets the input at `var` (of `shape`) to an argument the tests passed, where its shape
    /// takes it: a value or `None` of a kind it may be, or an object of a class it may be,
    /// built again as the tests built it (its constructor and the calls made on it before it
    /// was passed; Palus's seeds, rebuilt without pickling).
    fn set_mined(
        &self,
        c: &mut Candidate,
        var: String,
        shape: &Shape,
        argument: &MinedArgument,
        nested: Nested,
    ) {
        let want = match argument {
            MinedArgument::Value(value) => value_shape(value),
            MinedArgument::None => Shape::None,
            MinedArgument::Object { class, built } => {
                let Some((pick, object)) = shape
                    .objects()
                    .into_iter()
                    .find(|(_, o)| o.observed_name() == *class)
                else {
                    return;
                };
                if let Some(k) = pick {
                    c.choices.insert(var.clone(), k);
                }
                let calls = match nested {
                    Nested::AsPassed => built.calls.len(),
                    Nested::Constructed => 0,
                };
                self.build_mined(c, &var, object, built, calls, nested);
                return;
            }
            MinedArgument::Other => return,
        };
        let Some(pick) = variant_of(shape, &want) else {
            return;
        };
        if let Some(k) = pick {
            c.choices.insert(var.clone(), k);
        }
        match argument {
            MinedArgument::Value(value) => {
                c.vars.insert(var, value.clone());
            }
            _ => {
                c.vars.remove(&var);
            }
        }
    }

    /// Values no path condition asks for, worth a try for an input of `shape`: non-finite
    /// floats where the function tests for them (`math.isfinite`, `float("inf")`), numbers as
    /// text where it converts text to numbers.
    pub(super) fn special_values(&self, shape: &Shape) -> Vec<ModelValue> {
        let syntax = &self.f.syntax;
        let special = self.f.seeds.non_finite;
        let converts = syntax
            .calls
            .iter()
            .any(|c| c.callee == "float" || c.callee == "int");
        match shape {
            Shape::Float if special => [f64::INFINITY, f64::NEG_INFINITY, f64::NAN]
                .into_iter()
                .map(ModelValue::Real)
                .collect(),
            Shape::Str if converts => {
                let mut texts = vec!["1000", "1.5", "-2"];
                if special {
                    texts.extend(["inf", "-inf", "nan"]);
                }
                texts
                    .into_iter()
                    .map(|t| ModelValue::Str(t.to_owned()))
                    .collect()
            }
            _ => vec![],
        }
    }

    /// The inputs of the last eight tests kept: the bases new combinations start from.
    fn recent_bases(&self) -> Vec<Candidate> {
        // Before any input was kept (every run so far raised before the function decided
        // anything: `attrs[0::2]` of an int), the choices are crossed with the first input.
        if self.out.tests.is_empty() {
            return vec![self.base()];
        }
        let kept = self.out.tests.iter().rev().take(8);
        kept.map(|t| t.candidate.clone()).collect()
    }

    /// When the frontier is empty: cross choices with the inputs that covered most, so that
    /// choices the solver cannot see get combined with values it found. A container
    /// alternative is also tried holding one item: what the code makes of it may be concrete
    /// to the solver (`self._items = sorted(items)`), so that no flip would ever ask for one.
    pub(super) fn widen(&mut self) -> bool {
        let Choices {
            counts: choices,
            containers,
        } = self.choice_points();
        let bases = self.recent_bases();
        let mut added = false;
        for base in bases {
            for (path, count) in &choices {
                for k in 0..*count {
                    let container = containers.contains(&(path.clone(), k));
                    for c in choosing(&base, path, k, container) {
                        if self.seen_candidates.insert(c.key()) {
                            self.frontier.push((0, c));
                            added = true;
                        }
                    }
                }
            }
        }
        added
    }

    /// The object inputs whose methods can be called before the function (the receiver as
    /// `self`, parameters built through their constructor), each with its number of methods.
    pub(super) fn call_targets(&self) -> Vec<(String, usize)> {
        let receiver = self.signature.receiver.iter().map(|o| ("self", o));
        let params = self.signature.params.iter().filter_map(|(n, s)| match s {
            Shape::Object(o) => Some((n.as_str(), o)),
            _ => None,
        });
        receiver
            .chain(params)
            .filter(|(path, o)| {
                !o.methods.is_empty()
                    && self
                        .factory(&Candidate::default(), &o.class, path)
                        .is_none()
            })
            .map(|(path, o)| (path.to_owned(), o.methods.len()))
            .collect()
    }

    /// Once the solver and the choices are spent with sides uncovered: the kept inputs (and the
    /// defaults) with calls of a method that writes a field of an object input made after
    /// its construction (one, then several in a row) — state no constructor argument sets, such as a field holding `None`
    /// until `start()` sets it, which no model can ask for. The function itself is one of them
    /// when it writes such a field (a pool's `acquire()` before the `acquire()` that finds no
    /// slot free).
    pub(super) fn call_sequences(&mut self) -> bool {
        if self.sequences_tried {
            return false;
        }
        self.sequences_tried = true;
        let mut writers: Vec<(String, usize)> = vec![];
        let objects = self
            .signature
            .receiver
            .iter()
            .map(|o| ("self".to_owned(), o))
            .chain(self.signature.params.iter().filter_map(|(n, s)| match s {
                Shape::Object(o) => Some((n.clone(), o)),
                _ => None,
            }));
        for (path, object) in objects {
            if !self.call_targets().iter().any(|(p, _)| *p == path) {
                continue;
            }
            for (m, (method, _)) in object.methods.iter().enumerate() {
                let writes = self
                    .signature
                    .writers
                    .methods
                    .iter()
                    .any(|((class, _), ws)| *class == object.class && ws.contains(method));
                if writes {
                    writers.push((path.clone(), m));
                }
            }
        }
        let mut bases = self.recent_bases();
        if !self.out.tests.is_empty() {
            bases.push(self.base());
        }
        let mut added = false;
        // A state may need the same call several times (a pool of four slots empties after
        // four `acquire()`s): each writer once on every base, then twice, four and eight
        // times in a row.
        for repeat in [1, 2, 4, 8] {
            for base in &bases {
                for (path, m) in &writers {
                    let mut c = base.clone();
                    c.calls
                        .entry(path.clone())
                        .or_default()
                        .extend(std::iter::repeat_n(*m, repeat));
                    if self.seen_candidates.insert(c.key()) {
                        self.frontier.push((0, c));
                        added = true;
                    }
                }
            }
        }
        added
    }

    /// When the solver has no target left: mutations of the inputs kept so far, for as long as
    /// a side still uncovered could be reached by some input (not one that only depends on
    /// external calls or object state, nor one the solver proved unsatisfiable) and mutations
    /// keep finding something new (see `stale`).
    pub(super) fn mutate(&mut self) -> bool {
        const BATCH: usize = 16;
        if self.phase != Phase::Mutations {
            self.phase = Phase::Mutations;
            self.progress.grew = self.out.executions;
        }
        if self.stale() || !self.worth_mutating() {
            return false;
        }
        let choices = self.choices();
        let objects = self.call_targets();
        let mut bases: Vec<Candidate> = self
            .out
            .tests
            .iter()
            .map(|t| t.candidate.clone())
            .chain(self.corpus.iter().cloned())
            .collect();
        bases.push(self.base());
        let mut added = false;
        for _ in 0..BATCH * 4 {
            let base = &bases[self.rng.below(bases.len())];
            let mut request = self.request(base);
            // What mocks the function never called return is no input of it.
            for (m, mock) in request.mocks.iter_mut().enumerate() {
                if !self.mock_calls.contains_key(&m) {
                    mock.returns.clear();
                }
            }
            let sources = Sources {
                strings: &self.strings,
                numbers: &self.numbers,
                choices: &choices,
                objects: &objects,
                bound: self.budget.loop_bound as usize,
            };
            let Some(next) = mutate(base, &request, &sources, &mut self.rng) else {
                continue;
            };
            if self.seen_candidates.insert(next.key()) {
                self.frontier.push((0, next));
                added = true;
                if self.frontier.len() >= BATCH {
                    break;
                }
            }
        }
        added
    }

    /// Whether some uncovered side might be reached by an input the solver did not propose, or
    /// an `except` clause no kept test enters might be (a date string that matches the pattern
    /// but names no real day: only a mutated input shows the handler).
    pub(super) fn worth_mutating(&self) -> bool {
        if self.handlers_entered() < self.handler_lines.len() {
            return true;
        }
        self.f
            .syntax
            .decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| d.expr.is_some())
            .flat_map(|(d, _)| [(d, true), (d, false)])
            .filter(|side| !self.out.covered.contains_key(side))
            .any(|side| {
                self.out.attempts.get(&side).is_none_or(|attempts| {
                    attempts.is_empty()
                        || attempts.iter().any(|a| {
                            !matches!(
                                a,
                                Attempt::Unsat
                                    | Attempt::Uncontrollable(_)
                                    | Attempt::ObjectState(..)
                                    | Attempt::BoundHit { .. }
                            )
                        })
                })
            })
    }

    /// Keeps an input that took a path not seen before as a base for mutations (the latest
    /// `CORPUS` of them).
    pub(super) fn remember(&mut self, candidate: &Candidate, observed: &Observed) {
        const CORPUS: usize = 64;
        let path = prefix_hashes(&observed.path).last().copied().unwrap_or(0);
        if self.paths.insert(path) {
            if self.corpus.len() >= CORPUS {
                self.corpus.remove(0);
            }
            self.corpus.push(candidate.clone());
        }
    }

    /// Every choice of the inputs (parameters, receiver, the values of mocked calls) with its
    /// number of alternatives.
    pub(super) fn choices(&self) -> Vec<(String, usize)> {
        self.choice_points().counts
    }

    /// [`Self::choices`], and each (choice, alternative) whose alternative is a container (a
    /// list, set or dict).
    fn choice_points(&self) -> Choices {
        let mut choices = Choices::default();
        let calls = |path: &str| self.callable_calls.get(path).copied().unwrap_or(1);
        for (name, shape) in &self.signature.params {
            collect_choices(shape, name, &calls, &mut choices);
        }
        if let Some((name, _)) = &self.signature.varargs {
            choices.counts.push((varargs_choice(name), 4));
        }
        if let Some(receiver) = &self.signature.receiver {
            collect_choices(
                &Shape::Object(receiver.clone()),
                "self",
                &calls,
                &mut choices,
            );
        }
        // Only the mocks this function was seen calling: the guidance module declares mocks
        // for the whole project, and the alternatives of one never called are no inputs.
        for (m, decl) in self.signature.guidance.mocks.iter().enumerate() {
            if !self.mock_calls.contains_key(&m) {
                continue;
            }
            for k in 0..self.mock_call_count(m) {
                collect_choices(
                    &decl.returns,
                    &format!("$mock:{m}[{k}]"),
                    &calls,
                    &mut choices,
                );
            }
        }
        choices
    }

    /// A type test on an input (`isinstance(value, str)`) turns the other way for a value of
    /// another kind: each kind that would is tried once, on the input that saw the test.
    /// The receiver keeps its class: the method is called on it.
    pub(super) fn retype(&mut self, candidate: &Candidate, run: &Execution) {
        for test in &run.type_tests {
            if test.name == "self" && self.signature.receiver.is_some() {
                continue;
            }
            // An equality across kinds retypes only a parameter of any type, or a value inside
            // one (`keys[0]` of an unannotated `keys`): an annotated one compared with a value
            // of another kind is the code's business (and its dead side a finding), not a hint
            // to give it ill-typed inputs.
            let root = test.name.split(['[', '.']).next().unwrap_or_default();
            if test.equality
                && !self
                    .signature
                    .params
                    .iter()
                    .any(|(name, shape)| *name == root && any_type(shape))
            {
                continue;
            }
            for kind in &test.flip {
                let Some(shape) = kind_shape(kind) else {
                    continue;
                };
                if !self.retyped.insert((test.name.clone(), kind.clone())) {
                    continue;
                }
                let mut next = candidate.clone();
                next.types.insert(test.name.clone(), shape.clone());
                for value in self.special_values(&shape) {
                    let mut special = next.clone();
                    special.vars.insert(test.name.clone(), value);
                    self.push(1, special);
                }
                self.push(2, next);
            }
        }
    }

    /// An input could not be built (a constructor rejected its arguments): try the usual
    /// suspects — positive numbers, non-empty strings — for every scalar of the request.
    /// Every choice of the inputs whose alternative is an object, with that alternative.
    fn object_alternatives(&self) -> Vec<(String, usize)> {
        let mut out = vec![];
        for (name, shape) in &self.signature.params {
            object_choices(shape, name, &mut out);
        }
        if let Some(receiver) = &self.signature.receiver {
            object_choices(&Shape::Object(receiver.clone()), "self", &mut out);
        }
        out
    }

    pub(super) fn repair(&mut self, candidate: &Candidate, request: &ExecuteRequest) {
        // Until some input is valid, repairs come first; after, they wait with the flips of
        // the inputs' construction (a factory's flags), oldest first, instead of starving them.
        let priority = if self.out.tests.is_empty() { 2 } else { 0 };
        // Scalars anywhere in the inputs, and the factories that build them.
        let (mut scalars, mut built) = (vec![], vec![]);
        for t in request.args.iter().chain(request.receiver.iter()) {
            t.walk(&mut |node| match (&node.sym, &node.value) {
                (Some(s), Value::Int { .. } | Value::Str { .. } | Value::Float { .. }) => {
                    scalars.push((s.clone(), node.value.clone()))
                }
                // A factory that rejects its arguments: the constructor may do better.
                (Some(s), Value::Factory { .. }) => built.push(s.clone()),
                _ => {}
            });
        }
        for path in built {
            let mut next = candidate.clone();
            next.choices.insert(constructor_choice(&path), 1);
            self.push(priority, next);
        }
        // An object where the declared type allows one (`currency: str | Currency`), added to
        // the choices already made: repairs compose until every object builds (`self` and
        // `other` of `Money.__eq__`, each with a `Currency`).
        for (path, k) in self.object_alternatives() {
            if candidate.choices.get(&path) != Some(&k) {
                let mut next = candidate.clone();
                next.choices.insert(path, k);
                self.push(priority, next);
            }
        }
        // Each other alternative of each choice of a constructor's arguments, those its uses
        // ask for first (`_ComplementSet(included=None, excluded=None)` asserts that one of
        // them is a set): until some input is valid, for every input that cannot be built;
        // after, once per choice of an object that is one alternative of its parameter (an
        // object tried only where another kind of value already gave a test: `other` of
        // `_norm_args(other)`, a set first, then a `_ComplementSet`). The receiver and an
        // object parameter are in every input: theirs were tried before the first test.
        let first = self.out.tests.is_empty();
        for (path, count) in self.choices() {
            if !path.contains(".__init__.") {
                continue;
            }
            if first || (self.object_alternative(&path) && self.repaired.insert(path.clone())) {
                for k in 0..count {
                    if candidate.choices.get(&path) != Some(&k) {
                        let mut next = candidate.clone();
                        next.choices.insert(path.clone(), k);
                        self.push(priority, next);
                    }
                }
            }
        }
        for (path, value) in scalars {
            let replacements: Vec<ModelValue> = match value {
                Value::Int { .. } => ["1", "10", "100"]
                    .iter()
                    .map(|v| ModelValue::Int((*v).into()))
                    .collect(),
                Value::Float { .. } => vec![ModelValue::Real(1.0), ModelValue::Real(10.0)],
                Value::Str { .. } => vec![ModelValue::Str("a".into())],
                _ => vec![],
            };
            for r in replacements {
                let mut next = candidate.clone();
                next.vars.insert(path.clone(), r);
                self.push(priority, next);
            }
        }
    }
}

impl Search<'_> {
    /// Whether the choice at `path` belongs to an object its parameter takes as one
    /// alternative among others (`other` of `_norm_args(other)`: a set or a `_ComplementSet`).
    fn object_alternative(&self, path: &str) -> bool {
        let root = path.split('.').next().unwrap_or_default();
        self.signature
            .params
            .iter()
            .find(|(name, _)| name == root)
            .is_some_and(|(_, shape)| {
                matches!(shape, Shape::Union(_) | Shape::Optional(_))
                    && shape
                        .variants()
                        .iter()
                        .any(|v| matches!(v, Shape::Object(_)))
            })
    }
}

/// Literal texts tried as each text argument of the receiver's constructor.
const RECEIVER_TEXTS: usize = 8;

/// How a seed builds the objects the tests passed to the ones it builds from their sequences:
/// as the tests had made them when they passed them, or by their constructor alone.
#[derive(Clone, Copy)]
enum Nested {
    AsPassed,
    Constructed,
}

/// A way the suite's sequences build an object input of a seed: the alternative of its choice
/// that is the object (`None`: the input is one), its shape, a sequence, how many of its calls.
type MinedWay<'a> = (Option<usize>, &'a ObjectShape, &'a MinedSequence, usize);

/// `a` and `b` taking turns, the rest of the longer one after.
fn interleaved<T>(a: Vec<T>, b: Vec<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return out,
            (x, y) => out.extend(x.into_iter().chain(y)),
        }
    }
}

/// The union members that are objects, anywhere in an input of `shape` at `path` (a
/// constructor's arguments included), as (choice path, alternative).
fn object_choices(shape: &Shape, path: &str, out: &mut Vec<(String, usize)>) {
    match shape {
        Shape::Union(members) => {
            for (k, m) in members.iter().enumerate() {
                if let Shape::Object(_) = m {
                    out.push((path.to_owned(), k));
                    object_choices(m, path, out);
                }
            }
        }
        Shape::Optional(inner) => object_choices(inner, path, out),
        Shape::Object(o) => {
            for (name, s) in &o.init {
                object_choices(s, &format!("{path}.__init__.{name}"), out);
            }
        }
        _ => {}
    }
}

/// The shape of a scalar value.
fn value_shape(value: &ModelValue) -> Shape {
    match value {
        ModelValue::Int(_) => Shape::Int,
        ModelValue::Bool(_) => Shape::Bool,
        ModelValue::Str(_) => Shape::Str,
        ModelValue::Real(_) => Shape::Float,
    }
}

/// How an input of `shape` takes values of shape `want`: `Some(None)` when it is one,
/// `Some(Some(k))` when its choice's alternative `k` is one.
fn variant_of(shape: &Shape, want: &Shape) -> Option<Option<usize>> {
    if shape == want {
        return Some(None);
    }
    shape.variants().iter().position(|v| v == want).map(Some)
}

/// The choices of the inputs: each with its number of alternatives, and the alternatives that
/// are containers.
#[derive(Default)]
struct Choices {
    counts: Vec<(String, usize)>,
    containers: Vec<(String, usize)>,
}

/// The choices of an input of `shape` at `path`, with their number of alternatives;
/// `calls(path)` is how many values the callable input at `path` returns.
fn collect_choices(shape: &Shape, path: &str, calls: &dyn Fn(&str) -> usize, out: &mut Choices) {
    let count = shape.choice_count();
    if count > 1 && !out.counts.iter().any(|(p, _)| p == path) {
        out.counts.push((path.to_owned(), count.min(8)));
        for (k, variant) in shape.variants().iter().enumerate().take(8) {
            if variant.is_container() {
                out.containers.push((path.to_owned(), k));
            }
        }
    }
    match shape {
        Shape::Optional(inner) => collect_choices(inner, path, calls, out),
        // A member built at the same path: a callable's returns, an object's constructor
        // arguments (`other` of `Money.__eq__` is a `Money` first, whose `currency` is a
        // choice too).
        Shape::Union(members) => {
            for m in members {
                if let Shape::Callable { .. } | Shape::Object(_) = m {
                    collect_choices(m, path, calls, out);
                }
            }
        }
        Shape::Callable { returns, .. } => {
            for k in 0..calls(path) {
                collect_choices(returns, &call_return(path, k), calls, out);
                out.counts
                    .push((crate::explore::inputs::call_raises(path, k), 2));
            }
        }
        Shape::Object(o) => {
            for (name, s) in &o.init {
                collect_choices(s, &format!("{path}.__init__.{name}"), calls, out);
            }
        }
        _ => {}
    }
}

/// Whether a parameter's shape is "any value": unannotated, or guessed only as any of the kinds
/// the generator builds.
fn any_type(shape: &Shape) -> bool {
    match shape {
        Shape::Any => true,
        // The guess for an unannotated container: the likeliest first, then every other kind.
        Shape::Union(variants) => [Shape::Int, Shape::Str, Shape::None]
            .iter()
            .all(|kind| variants.contains(kind)),
        _ => false,
    }
}

/// `base` with alternative `k` of the choice at `path`, and, for a container alternative,
/// the same holding one item: what the code reads of an empty one (`names.get(key)`) may stay
/// concrete to the solver until it holds something.
pub(super) fn choosing(base: &Candidate, path: &str, k: usize, container: bool) -> Vec<Candidate> {
    let mut c = base.clone();
    c.choices.insert(path.to_owned(), k);
    let holding_one = container.then(|| {
        let mut one = c.clone();
        one.vars
            .insert(format!("{path}.__len__"), ModelValue::Int("1".into()));
        one
    });
    std::iter::once(c).chain(holding_one).collect()
}
