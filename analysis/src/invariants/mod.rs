//! Likely invariants (Daikon's) of a function's program points, learned from the samples the
//! project's passing tests produced there (`suite::ProgramPoint`), each with its support (calls,
//! distinct values, a confidence, the tests behind it), and checked against other samples.
//! Plain data and pure functions: nothing here runs code, ranks or reports.

use crate::suite::{ProfileSide, ProgramPoint, Sample, Variable};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// A program point of a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    Entry,
    Exit,
}

impl Point {
    pub fn as_str(self) -> &'static str {
        match self {
            Point::Entry => "entry",
            Point::Exit => "exit",
        }
    }
}

/// How much evidence an invariant needs before it is kept, so that a thin suite does not
/// produce noise.
#[derive(Clone, Debug, PartialEq)]
pub struct Support {
    /// Samples of the point (calls from passing tests) in which its variables were all seen.
    pub min_calls: usize,
    /// Distinct values (or pairs of values) needed for a bound or an ordering.
    pub min_distinct: usize,
    /// One minus the probability that the invariant held by chance (Daikon's confidence).
    pub confidence: f64,
}

impl Default for Support {
    fn default() -> Self {
        Support {
            min_calls: 5,
            min_distinct: 3,
            confidence: 0.95,
        }
    }
}

/// A comparison between two numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Relation {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Relation {
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Ne => "!=",
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Gt => ">",
            Relation::Ge => ">=",
        }
    }

    fn holds(self, order: Ordering) -> bool {
        match self {
            Relation::Eq => order == Ordering::Equal,
            Relation::Ne => order != Ordering::Equal,
            Relation::Lt => order == Ordering::Less,
            Relation::Le => order != Ordering::Greater,
            Relation::Gt => order == Ordering::Greater,
            Relation::Ge => order != Ordering::Less,
        }
    }
}

/// A number as the agent reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    fn of(v: &Variable) -> Option<Number> {
        match v {
            Variable::Int(s) => s.parse().ok().map(Number::Int),
            Variable::Float(s) => s.parse().ok().map(Number::Float),
            _ => None,
        }
    }

    fn cmp(self, other: Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => Some(a.cmp(&b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(x) => x,
        }
    }

    fn render(self) -> String {
        match self {
            Number::Int(n) => n.to_string(),
            Number::Float(x) => format!("{x:?}"),
        }
    }
}

/// What an invariant states.
#[derive(Clone, Debug, PartialEq)]
pub enum Property {
    /// The variable takes one of a few values (a constant, `x is None`, `type(x)`).
    OneOf { var: String, values: Vec<Variable> },
    /// A bound on a number: its sign (`x >= 0`, `x > 0`, `x != 0`) or a range's end.
    Bound {
        var: String,
        relation: Relation,
        bound: Number,
    },
    /// An equality or ordering between two numbers of the point (`return <= items`,
    /// `len(return) == len(xs)`).
    Compare {
        left: String,
        relation: Relation,
        right: String,
    },
    /// A property of every string seen: lower or upper case, digits only, a common prefix.
    Text { var: String, form: TextForm },
    /// A float that was never NaN nor infinite.
    Finite { var: String },
}

/// What every string of a variable looked like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextForm {
    Lower,
    Upper,
    Digits,
    Prefix(String),
}

impl TextForm {
    fn holds(&self, s: &str) -> bool {
        match self {
            TextForm::Lower => s == s.to_lowercase(),
            TextForm::Upper => s == s.to_uppercase(),
            TextForm::Digits => !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()),
            TextForm::Prefix(p) => s.starts_with(p.as_str()),
        }
    }
}

impl Property {
    /// `type(x) is …`: which types a variable had.
    pub fn is_type(&self) -> bool {
        matches!(self, Property::OneOf { var, .. } if var.starts_with("type("))
    }

    pub fn variables(&self) -> Vec<&str> {
        match self {
            Property::OneOf { var, .. }
            | Property::Bound { var, .. }
            | Property::Text { var, .. }
            | Property::Finite { var } => vec![var],
            Property::Compare { left, right, .. } => vec![left, right],
        }
    }

    /// What it says about one variable, whatever the variable is rooted at: `len(·) lower
    /// bound` for `len(return) > 0` and for `len(items) >= 1`, `· one of` for `return in {…}`
    /// and `n in {…}` (see [`measure`]); a set of texts says which lengths they have too
    /// (`return in {'b', 'bytes'}`: `len(·) one of`), as an input text or bytes is observed by
    /// its length. None for a relation between two variables, which is about what the code
    /// computes from its input rather than about one value.
    pub fn forms(&self) -> Vec<String> {
        let (kind, var) = match self {
            Property::OneOf { var, values } => {
                let mut forms = vec![format!("{} one of", measure(var))];
                if !var.starts_with("type(")
                    && !values.is_empty()
                    && values.iter().all(|v| matches!(v, Variable::Str(_)))
                {
                    forms.push(format!("len({}) one of", measure(var)));
                }
                return forms;
            }
            Property::Bound { var, relation, .. } => (
                match relation {
                    Relation::Gt | Relation::Ge => "lower bound",
                    Relation::Lt | Relation::Le => "upper bound",
                    Relation::Eq => "equal",
                    Relation::Ne => "not equal",
                }
                .to_owned(),
                var,
            ),
            Property::Text { var, form } => (format!("text {form:?}"), var),
            Property::Finite { var } => ("finite".to_owned(), var),
            Property::Compare { .. } => return vec![],
        };
        vec![format!("{} {kind}", measure(var))]
    }

    /// Whether `sample` satisfies it; `None` when a variable is absent or not a number.
    pub fn holds(&self, sample: &Sample) -> Option<bool> {
        match self {
            Property::OneOf { var, values } => Some(values.contains(sample.get(var)?)),
            Property::Bound {
                var,
                relation,
                bound,
            } => {
                let x = Number::of(sample.get(var)?)?;
                Some(x.cmp(*bound).is_some_and(|o| relation.holds(o)))
            }
            Property::Compare {
                left,
                relation,
                right,
            } => {
                let a = Number::of(sample.get(left)?)?;
                let b = Number::of(sample.get(right)?)?;
                Some(a.cmp(b).is_some_and(|o| relation.holds(o)))
            }
            Property::Text { var, form } => match sample.get(var)? {
                Variable::Str(s) => Some(form.holds(s)),
                _ => None,
            },
            Property::Finite { var } => match Number::of(sample.get(var)?)? {
                Number::Float(x) => Some(x.is_finite()),
                Number::Int(_) => None,
            },
        }
    }

    /// The same property of another variable (`self.years > 0` of `return.years > 0`); None
    /// for a relation between two variables.
    pub fn over(&self, other: &str) -> Option<Property> {
        let var = other.to_owned();
        Some(match self {
            Property::OneOf { values, .. } => Property::OneOf {
                var,
                values: values.clone(),
            },
            Property::Bound {
                relation, bound, ..
            } => Property::Bound {
                var,
                relation: *relation,
                bound: *bound,
            },
            Property::Text { form, .. } => Property::Text {
                var,
                form: form.clone(),
            },
            Property::Finite { .. } => Property::Finite { var },
            Property::Compare { .. } => return None,
        })
    }

    /// The values of its variables in `sample`: `return = 1, items = 0`.
    pub fn values_in(&self, sample: &Sample) -> String {
        self.variables()
            .iter()
            .map(|v| match sample.get(*v) {
                Some(value) => format!("{v} = {}", render(value)),
                None => format!("{v} absent"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl std::fmt::Display for Property {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Property::OneOf { var, values } => {
                if let [Variable::Bool(b)] = values.as_slice()
                    && let Some(x) = var.strip_suffix(" is None")
                {
                    return if *b {
                        write!(f, "{x} is None")
                    } else {
                        write!(f, "{x} is not None")
                    };
                }
                if let [Variable::Str(t)] = values.as_slice()
                    && var.starts_with("type(")
                {
                    return write!(f, "{var} is {t}");
                }
                match values.as_slice() {
                    [one] => write!(f, "{var} == {}", render(one)),
                    many => write!(
                        f,
                        "{var} in {{{}}}",
                        many.iter().map(render).collect::<Vec<_>>().join(", ")
                    ),
                }
            }
            Property::Bound {
                var,
                relation,
                bound,
            } => write!(f, "{var} {} {}", relation.as_str(), bound.render()),
            Property::Compare {
                left,
                relation,
                right,
            } => write!(f, "{left} {} {right}", relation.as_str()),
            Property::Text { var, form } => match form {
                TextForm::Lower => write!(f, "{var} == {var}.lower()"),
                TextForm::Upper => write!(f, "{var} == {var}.upper()"),
                TextForm::Digits => write!(f, "{var}.isdigit()"),
                TextForm::Prefix(p) => {
                    write!(f, "{var}.startswith({})", render(&Variable::Str(p.clone())))
                }
            },
            Property::Finite { var } => write!(f, "math.isfinite({var})"),
        }
    }
}

/// A value as Python writes it.
pub fn render(v: &Variable) -> String {
    match v {
        Variable::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        Variable::Int(s) | Variable::Float(s) => s.clone(),
        Variable::Str(s) => {
            let mut out = String::new();
            crate::symbolic::python_str_literal(&mut out, s);
            out
        }
    }
}

/// A likely invariant of one program point, with its support.
#[derive(Clone, Debug, PartialEq)]
pub struct Invariant {
    pub point: Point,
    pub property: Property,
    /// Calls in which it was checked (all its variables present).
    pub samples: usize,
    /// Calls of the point from passing tests that were read (sampled).
    pub calls: u64,
    pub confidence: f64,
    /// The tests whose samples support it (pytest node ids, sorted, at most 20).
    pub tests: Vec<String>,
    /// A few distinct values of its variables the tests produced (`return = 4, items = 10`).
    pub seen: Vec<String>,
    /// A conditional invariant (Daikon's splitting): it holds in the invocations that took
    /// this branch side of the function's own code.
    pub condition: Option<ProfileSide>,
}

impl Invariant {
    /// A stable key: the same invariant of the same point of the same function.
    pub fn key(&self) -> String {
        match self.condition {
            None => format!("{}: {}", self.point.as_str(), self.property),
            Some((line, col, end_line, end_col, taken)) => format!(
                "{}: {} when {line}:{}-{end_line}:{} is {taken}",
                self.point.as_str(),
                self.property,
                col.unwrap_or(0),
                end_col.unwrap_or(0)
            ),
        }
    }

    /// Whether it applies to an invocation that took `sides`.
    pub fn applies(&self, sides: &[ProfileSide]) -> bool {
        self.condition.is_none_or(|c| sides.contains(&c))
    }
}

/// Branch sides split on, per function.
const MAX_SPLITS: usize = 20;

const MAX_TESTS: usize = 20;
const MAX_SEEN: usize = 5;
/// Values a variable may take for a `OneOf` invariant.
const MAX_ONE_OF: usize = 3;

/// Whether an invariant over these variables of `point` is worth keeping: at the exit, only
/// those about what the function produced (its return value or the exception it raised) —
/// what a generated test asserts; at the entry, every variable.
fn about_result(point: Point, var: &str) -> bool {
    point == Point::Entry || var.contains("return") || var == "type(exception)"
}

/// Whether an ordering between two numbers of a point can mean something (Daikon compares only
/// comparable variables): two fields of different names measure different things
/// (`return.tdelta.microseconds` and `return.years`), so they are never compared; parameters,
/// the return value, lengths and fields of the same name are.
fn comparable(left: &str, right: &str) -> bool {
    let field = |var: &str| {
        let var = var
            .strip_prefix("len(")
            .map_or(var, |v| v.trim_end_matches(')'));
        var.rsplit_once('.').map(|(_, field)| field.to_owned())
    };
    match (field(left), field(right)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// The likely invariants of one program point.
pub fn infer(point: Point, observed: &ProgramPoint, support: &Support) -> Vec<Invariant> {
    let samples = &observed.samples;
    // A sample left out could break any invariant: only a point with all of them says what
    // held in every call.
    let calls = |indices: &[usize]| observed.weight_of(indices) as usize;
    if !observed.complete || calls(&(0..samples.len()).collect::<Vec<_>>()) < support.min_calls {
        return vec![];
    }
    let names: BTreeSet<&str> = samples
        .iter()
        .flat_map(|s| s.keys().map(String::as_str))
        .collect();
    let mut out = vec![];
    let make = |property: Property, used: &[usize], confidence: f64| {
        let mut tests: BTreeSet<String> = BTreeSet::new();
        let mut seen: Vec<String> = vec![];
        for &i in used {
            if let Some(Some(t)) = observed.tests.get(i)
                && tests.len() < MAX_TESTS
            {
                tests.insert(t.clone());
            }
            let v = property.values_in(&samples[i]);
            if seen.len() < MAX_SEEN && !seen.contains(&v) {
                seen.push(v);
            }
        }
        Invariant {
            point,
            property,
            samples: calls(used),
            calls: observed.read_calls(),
            confidence,
            tests: tests.into_iter().collect(),
            seen,
            condition: None,
        }
    };
    // Numbers that are not constant: candidates for bounds and orderings.
    let mut numeric: Vec<(&str, Vec<(usize, Number)>)> = vec![];
    for &name in &names {
        let present: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].contains_key(name))
            .collect();
        let present_calls = calls(&present);
        if present_calls < support.min_calls {
            continue;
        }
        let mut distinct: Vec<&Variable> = vec![];
        for &i in &present {
            let v = &samples[i][name];
            if !distinct.contains(&v) {
                distinct.push(v);
            }
        }
        let is_bool = distinct.iter().all(|v| matches!(v, Variable::Bool(_)));
        let few = if is_bool { 1 } else { MAX_ONE_OF };
        if distinct.len() <= few && about_result(point, name) {
            let k = distinct.len() as f64;
            let confidence = 1.0 - (k / (k + 1.0)).powi(present_calls as i32);
            if confidence >= support.confidence {
                let mut values: Vec<Variable> = distinct.into_iter().cloned().collect();
                values.sort_by_key(render);
                out.push(make(
                    Property::OneOf {
                        var: name.to_owned(),
                        values,
                    },
                    &present,
                    confidence,
                ));
                continue;
            }
        }
        if about_result(point, name) && !name.starts_with("type(") {
            let confidence = 1.0 - 0.5f64.powi(present_calls as i32);
            for property in text_forms(name, present.iter().map(|&i| &samples[i][name])) {
                if confidence >= support.confidence && distinct.len() >= support.min_distinct {
                    out.push(make(property, &present, confidence));
                }
            }
            let floats = present
                .iter()
                .all(|&i| matches!(samples[i][name], Variable::Float(_)));
            let finite = present.iter().all(|&i| {
                matches!(Number::of(&samples[i][name]), Some(Number::Float(x)) if x.is_finite())
            });
            if floats && finite && confidence >= support.confidence {
                out.push(make(
                    Property::Finite {
                        var: name.to_owned(),
                    },
                    &present,
                    confidence,
                ));
            }
        }
        let numbers: Vec<(usize, Number)> = present
            .iter()
            .filter_map(|&i| Some((i, Number::of(&samples[i][name])?)))
            .collect();
        if numbers.len() == present.len() && distinct.len() >= support.min_distinct {
            numeric.push((name, numbers));
        }
    }
    for (name, numbers) in &numeric {
        if about_result(point, name) {
            out.extend(
                bounds(
                    name,
                    numbers,
                    calls(&numbers.iter().map(|(i, _)| *i).collect::<Vec<_>>()),
                    support,
                )
                .into_iter()
                .map(|(property, confidence)| {
                    let used: Vec<usize> = numbers.iter().map(|(i, _)| *i).collect();
                    make(property, &used, confidence)
                }),
            );
        }
    }
    for (a, (left, xs)) in numeric.iter().enumerate() {
        for (right, ys) in &numeric[a + 1..] {
            if !(about_result(point, left) || about_result(point, right))
                || !comparable(left, right)
            {
                continue;
            }
            let ys: BTreeMap<usize, Number> = ys.iter().copied().collect();
            let pairs: Vec<(usize, Number, Number)> = xs
                .iter()
                .filter_map(|&(i, x)| Some((i, x, *ys.get(&i)?)))
                .collect();
            let pair_indices: Vec<usize> = pairs.iter().map(|(i, _, _)| *i).collect();
            if calls(&pair_indices) < support.min_calls {
                continue;
            }
            let orders: Vec<Ordering> = pairs.iter().filter_map(|(_, x, y)| x.cmp(*y)).collect();
            if orders.len() != pairs.len() {
                continue;
            }
            let distinct: BTreeSet<String> = pairs
                .iter()
                .map(|(_, x, y)| format!("{}|{}", x.render(), y.render()))
                .collect();
            // The strongest relation that held in every sample.
            let relation = [
                Relation::Eq,
                Relation::Lt,
                Relation::Gt,
                Relation::Le,
                Relation::Ge,
            ]
            .into_iter()
            .find(|r| orders.iter().all(|o| r.holds(*o)));
            let Some(relation) = relation else { continue };
            // A length ordered against a number that is no length (`len(return) <= value` of a
            // formatted number, `len(return) > tduration.months`) holds by the magnitudes a
            // suite happens to use, not by what the code does: only their equality is kept
            // (`len(return) == n` of `repeat(s, n)`).
            let is_length = |var: &str| var.starts_with("len(");
            if is_length(left) != is_length(right)
                && !matches!(relation, Relation::Eq | Relation::Ne)
            {
                continue;
            }
            // By chance, an equality holds of a pair rarely, an ordering half the time.
            let chance: f64 = if relation == Relation::Eq { 0.1 } else { 0.5 };
            let confidence = 1.0 - chance.powi(distinct.len() as i32);
            if distinct.len() < support.min_distinct || confidence < support.confidence {
                continue;
            }
            out.push(make(
                Property::Compare {
                    left: (*left).to_owned(),
                    relation,
                    right: (*right).to_owned(),
                },
                &pair_indices,
                confidence,
            ));
        }
    }
    out
}

/// What every one of a variable's strings shares: its case (when some letter has one), digits
/// only, a common prefix; nothing when one of its values is not a string.
fn text_forms<'a>(var: &str, values: impl Iterator<Item = &'a Variable>) -> Vec<Property> {
    let mut strings = vec![];
    for v in values {
        match v {
            Variable::Str(s) => strings.push(s.as_str()),
            _ => return vec![],
        }
    }
    let Some(first) = strings.first() else {
        return vec![];
    };
    let cased = |s: &str| s.chars().any(|c| c.is_lowercase() || c.is_uppercase());
    let mut forms = vec![];
    if strings.iter().all(|s| TextForm::Digits.holds(s)) {
        forms.push(TextForm::Digits);
    } else if strings.iter().any(|s| cased(s)) {
        if strings.iter().all(|s| TextForm::Lower.holds(s)) {
            forms.push(TextForm::Lower);
        } else if strings.iter().all(|s| TextForm::Upper.holds(s)) {
            forms.push(TextForm::Upper);
        }
    }
    let mut prefix: &str = first;
    for s in &strings {
        let common = prefix
            .char_indices()
            .zip(s.chars())
            .find(|((_, a), b)| a != b)
            .map_or(prefix.len().min(s.len()), |((i, _), _)| i);
        prefix = &prefix[..common.min(prefix.len())];
        while !s.starts_with(prefix) {
            let mut end = prefix.len() - 1;
            while !prefix.is_char_boundary(end) {
                end -= 1;
            }
            prefix = &prefix[..end];
        }
    }
    if !prefix.is_empty() {
        forms.push(TextForm::Prefix(prefix.to_owned()));
    }
    forms
        .into_iter()
        .map(|form| Property::Text {
            var: var.to_owned(),
            form,
        })
        .collect()
}

/// The sign of a number (`x >= 0`, `x > 0`, `x <= 0`, `x < 0`), or `x != 0` for integers on
/// both sides of zero that never were zero.
fn bounds(
    var: &str,
    numbers: &[(usize, Number)],
    calls: usize,
    support: &Support,
) -> Vec<(Property, f64)> {
    let mut out = vec![];
    let mut distinct: Vec<Number> = vec![];
    for (_, n) in numbers {
        if !distinct.iter().any(|d| d.cmp(*n) == Some(Ordering::Equal)) {
            distinct.push(*n);
        }
    }
    let zero = Number::Int(0);
    let sign = |n: &Number| n.cmp(zero);
    let all = |o: &[Ordering]| {
        distinct
            .iter()
            .all(|n| sign(n).is_some_and(|s| o.contains(&s)))
    };
    // Each sample could have fallen on either side of zero.
    let confidence = 1.0 - 0.5f64.powi(calls as i32);
    let bound = |relation| Property::Bound {
        var: var.to_owned(),
        relation,
        bound: zero,
    };
    if confidence >= support.confidence {
        if all(&[Ordering::Greater]) {
            out.push((bound(Relation::Gt), confidence));
        } else if all(&[Ordering::Greater, Ordering::Equal]) {
            out.push((bound(Relation::Ge), confidence));
        } else if all(&[Ordering::Less]) {
            out.push((bound(Relation::Lt), confidence));
        } else if all(&[Ordering::Less, Ordering::Equal]) {
            out.push((bound(Relation::Le), confidence));
        }
    }
    // Never zero although values lie on both sides: how likely, for integers drawn evenly
    // from the range seen, that zero was missed by chance.
    let ints: Vec<i128> = distinct
        .iter()
        .filter_map(|n| match n {
            Number::Int(i) => Some(*i),
            Number::Float(_) => None,
        })
        .collect();
    if ints.len() == distinct.len()
        && let (Some(&lo), Some(&hi)) = (ints.iter().min(), ints.iter().max())
        && lo < 0
        && hi > 0
    {
        let width = (hi - lo + 1) as f64;
        let confidence = 1.0 - (1.0 - 1.0 / width).powi(calls as i32);
        if confidence >= support.confidence {
            out.push((bound(Relation::Ne), confidence));
        }
    }
    out
}

/// The invariants of both points of a function: unconditional ones, then at the exit those
/// that hold only in the invocations that took one side of a branch of the function (and not
/// in all of them), each on the samples of that side alone.
pub fn infer_function(
    entry: &ProgramPoint,
    exit: &ProgramPoint,
    support: &Support,
) -> Vec<Invariant> {
    let mut out = infer(Point::Entry, entry, support);
    let unconditional = infer(Point::Exit, exit, support);
    let known: BTreeSet<String> = unconditional.iter().map(Invariant::key).collect();
    out.extend(unconditional);
    if exit.sides.len() != exit.samples.len() {
        return out;
    }
    let mut sides: BTreeSet<ProfileSide> = BTreeSet::new();
    for s in &exit.sides {
        sides.extend(s.iter().copied());
    }
    for side in sides.into_iter().take(MAX_SPLITS) {
        let chosen: Vec<usize> = (0..exit.samples.len())
            .filter(|&i| exit.sides[i].contains(&side))
            .collect();
        // A side every invocation took says nothing more.
        if chosen.len() == exit.samples.len()
            || (exit.weight_of(&chosen) as usize) < support.min_calls
        {
            continue;
        }
        let subset = ProgramPoint {
            calls: exit.weight_of(&chosen),
            samples: chosen.iter().map(|&i| exit.samples[i].clone()).collect(),
            tests: chosen
                .iter()
                .map(|&i| exit.tests.get(i).cloned().flatten())
                .collect(),
            sides: vec![],
            counts: chosen.iter().map(|&i| exit.weight(i)).collect(),
            complete: exit.complete,
            read: None,
        };
        for mut inv in infer(Point::Exit, &subset, support) {
            if known.contains(&inv.key()) {
                continue;
            }
            inv.condition = Some(side);
            out.push(inv);
        }
    }
    out
}

#[cfg(test)]
mod tests;

/// A variable with its root (a parameter, `self` or `return`) left out: what it measures of
/// the value — `len(·)` of `len(items)`, `type(·)` of `type(return)`, `·.real` of `x.real`,
/// `· is None` of `key is None`, `·` of `n`.
pub fn measure(var: &str) -> String {
    let mut prefix = String::new();
    let mut rest = var;
    for f in ["len(", "type("] {
        while let Some(inner) = rest.strip_prefix(f) {
            prefix.push_str(f);
            rest = inner;
        }
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    format!("{prefix}·{}", &rest[end..])
}
