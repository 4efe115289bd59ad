//! The solver: z3 behind a small interface. Assertions are translated to SMT-LIB
//! ([`super::smt`]) and parsed by z3, answers are cached by a digest of the query text, and a
//! path's negations are solved incrementally (the common prefix asserted once, each negation
//! pushed and popped; the prefix's digest grown with it, so that a path of n conditions costs
//! memory and hashing linear in n, not quadratic).
//!
//! `z3::Solver` is not `Send`: a `Solver` lives and dies on the thread that explores a function.

pub use super::answer::{Answer, Model};
use super::isolated;
use super::signature::Domains;
use super::smt::{Hazards, Smt, Translator, Untranslatable, smt_name, unescape_z3_string};
use super::value::ModelValue;
use super::z3_session::{QueryLimit, Z3Session};
use crate::symbolic::{Expr, Sort};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Counters for benchmarks and explanations.
#[derive(Clone, Debug, Default)]
pub struct SolverStats {
    pub queries: u64,
    pub cache_hits: u64,
    pub time: Duration,
}

/// z3's memory cap in megabytes, as last set (0: none).
static MEMORY_LIMIT_MB: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

pub struct Solver {
    timeout_ms: u64,
    /// z3's resource limit per check in a reproducible run (0: none; `timeout_ms` decides).
    rlimit: u64,
    /// The domains of the variables that stand for value types' constructor arguments: every
    /// query keeps them within.
    domains: Domains,
    cache: FxHashMap<QueryKey, Answer>,
    /// The process the queries z3 may not stop on are solved in.
    isolated: isolated::Worker,
    /// When the exploration's time is up: no query runs past it, in this process or the other.
    until: Option<Instant>,
    /// The z3 solvers every query of this exploration is parsed and checked in.
    session: Z3Session,
    pub stats: SolverStats,
}

impl Solver {
    pub fn new(timeout_ms: u64) -> Self {
        Solver {
            timeout_ms,
            rlimit: 0,
            domains: Domains::default(),
            cache: FxHashMap::default(),
            isolated: isolated::Worker::default(),
            until: None,
            session: Z3Session::default(),
            stats: SolverStats::default(),
        }
    }

    /// A solver none of whose queries runs past `at` (the end of the exploration's budget): a
    /// query cut there, or asked for after it, is answered as the solver's limit.
    pub fn until(mut self, at: Instant) -> Self {
        self.until = Some(at);
        self
    }

    /// A solver whose checks are bounded by z3's work (`rlimit` units each) rather than by the
    /// clock, so that a query has the same answer however loaded the machine is; `timeout_ms`
    /// is kept as a safety bound (a reproducible run).
    pub fn counting(mut self, rlimit: u64) -> Self {
        self.rlimit = rlimit;
        self
    }

    /// The limit of a query started now: z3's own, or less time when the budget ends sooner;
    /// none when it has ended.
    fn limit_now(&self) -> Option<QueryLimit> {
        let timeout_ms = match self.until {
            None => self.timeout_ms,
            Some(until) => {
                let left = until.saturating_duration_since(Instant::now()).as_millis() as u64;
                if left == 0 {
                    return None;
                }
                self.timeout_ms.min(left)
            }
        };
        Some(QueryLimit {
            timeout_ms,
            rlimit: self.rlimit,
        })
    }

    /// Caps the memory z3 holds, all threads together, at `mb` megabytes: a query that needs
    /// more is given up ("max. memory exceeded", an `Unknown` answer) instead of taking the
    /// machine's memory. z3's limit is process-wide; it is set again only when it changes.
    pub fn limit_memory(mb: u64) {
        if MEMORY_LIMIT_MB.swap(mb, std::sync::atomic::Ordering::SeqCst) != mb {
            z3::set_global_param("memory_max_size", &mb.to_string());
        }
    }

    /// A solver whose queries keep the inputs' variables within `domains`.
    pub fn with_domains(mut self, domains: Domains) -> Self {
        self.domains = domains;
        self
    }

    /// Is the conjunction of `assertions` satisfiable, and by what values?
    pub fn check(&mut self, assertions: &[Expr]) -> Answer {
        let smt = match translate(assertions, &self.domains) {
            Ok(smt) => smt,
            Err(Untranslatable::Unsupported(ops)) => return Answer::Unsupported(ops),
            Err(Untranslatable::Malformed(why)) => return Answer::Unknown(why),
        };
        let mut key = QueryDigest::new(&smt.declarations);
        for a in &smt.assertions {
            key.assertion(a);
        }
        let key = key.key();
        if let Some(answer) = self.cache.get(&key) {
            self.stats.cache_hits += 1;
            return answer.clone();
        }
        let Some(timeout) = self.limit_now() else {
            return Answer::Unknown(super::answer::BUDGET_OVER.to_owned());
        };
        let texts: Vec<&str> = smt.assertions.iter().map(String::as_str).collect();
        let answer = if isolated::needed(smt.hazards) {
            let request = self.request(&smt.declarations, &texts, &smt.vars, timeout);
            let until = self.until;
            self.timed(|s| s.isolated.solve(&request, until))
        } else {
            self.timed(|s| {
                solve_in_process(
                    &mut s.session,
                    &smt.declarations,
                    &texts,
                    &smt.vars,
                    timeout,
                )
            })
        };
        self.cache.insert(key, answer.clone());
        answer
    }

    /// For a path `prefix` (the conditions of an execution, in order) and the indices `flip` of
    /// conditions to negate, the answer for each `prefix[..i] ∧ ¬prefix[i]`, sharing work
    /// between them. An index whose condition cannot be translated answers `Unsupported`.
    pub fn negations(&mut self, prefix: &[Expr], flip: &[usize]) -> Vec<(usize, Answer)> {
        let Some(timeout) = self.limit_now() else {
            let over = Answer::Unknown(super::answer::BUDGET_OVER.to_owned());
            return flip.iter().map(|&i| (i, over.clone())).collect();
        };
        let mut translator = Translator::default();
        // Whether each assertion needs the process that can be stopped.
        let mut unbounded = Vec::with_capacity(prefix.len());
        let mut translated: Vec<Result<String, Untranslatable>> = prefix
            .iter()
            .map(|e| {
                let t = translator.assertion(e);
                unbounded.push(isolated::needed(translator.take_hazards()) && t.is_ok());
                t
            })
            .collect();
        let (declarations, vars) = translator.finish(&self.domains);
        let smt = Smt {
            declarations,
            assertions: vec![],
            vars,
            hazards: Hazards::default(),
        };
        let mut flips: Vec<usize> = flip.iter().copied().filter(|&i| i < prefix.len()).collect();
        flips.sort_unstable();
        let Some(&last) = flips.last() else {
            return vec![];
        };
        // Every condition up to the last flip is parsed once (the declarations with them), and
        // each negation is built from its parsed term: a path of n conditions is parsed once,
        // not n times.
        let (domains, terms) = parse_each(
            &mut self.session,
            &smt.declarations,
            &mut translated[..=last],
        );
        let mut out = vec![];
        // The negations left to solve, with their cache keys: here, or, when z3 may not stop on
        // their query, together in the process that can be stopped.
        let mut local_flips: Vec<(usize, QueryKey)> = vec![];
        let mut unbounded_flips: Vec<(usize, QueryKey)> = vec![];
        // The digest of the declarations and the prefix's assertions before `hashed`.
        let mut prefix_digest = QueryDigest::new(&smt.declarations);
        let mut hashed = 0;
        for i in flips {
            let negated = match &translated[i] {
                Ok(a) => format!("(not {a})"),
                Err(Untranslatable::Unsupported(ops)) => {
                    out.push((i, Answer::Unsupported(ops.clone())));
                    continue;
                }
                Err(Untranslatable::Malformed(why)) => {
                    out.push((i, Answer::Unknown(why.clone())));
                    continue;
                }
            };
            while hashed < i {
                if let Ok(a) = &translated[hashed] {
                    prefix_digest.assertion(a);
                }
                hashed += 1;
            }
            let mut key = prefix_digest.clone();
            key.assertion(&negated);
            let key = key.key();
            if let Some(answer) = self.cache.get(&key) {
                self.stats.cache_hits += 1;
                out.push((i, answer.clone()));
                continue;
            }
            if terms[i].is_none() {
                out.push((i, Answer::Unknown("z3 rejected the query".to_owned())));
                continue;
            }
            if unbounded[..=i].contains(&true) {
                unbounded_flips.push((i, key));
            } else {
                local_flips.push((i, key));
            }
        }
        if !local_flips.is_empty() {
            let negate: Vec<usize> = local_flips.iter().map(|(i, _)| *i).collect();
            let mut answers = Vec::with_capacity(negate.len());
            let start = Instant::now();
            self.session.solving(timeout, |z3| {
                for term in &domains {
                    z3.assert(term);
                }
                solve_incrementally(z3, &terms, &negate, &smt.vars, |a| answers.push(a));
            });
            self.stats.queries += answers.len() as u64;
            self.stats.time += start.elapsed();
            for ((i, key), answer) in local_flips.into_iter().zip(answers) {
                self.cache.insert(key, answer.clone());
                out.push((i, answer));
            }
        }
        if let Some(&(last, _)) = unbounded_flips.last() {
            // The path, once, and its negations by their places among the conditions sent
            // (those that translate and z3 accepts): solved incrementally there as here.
            let mut place = vec![None; last + 1];
            let mut texts: Vec<&str> = vec![];
            for (k, t) in translated[..=last].iter().enumerate() {
                if let Ok(text) = t {
                    place[k] = Some(texts.len());
                    texts.push(text);
                }
            }
            let mut request = self.request(&smt.declarations, &texts, &smt.vars, timeout);
            request.negate = unbounded_flips
                .iter()
                .map(|(i, _)| place[*i].expect("a negation sent has its condition translated"))
                .collect();
            let start = Instant::now();
            let answers = self.isolated.solve_path(&request, self.until);
            self.stats.queries += answers.len() as u64;
            self.stats.time += start.elapsed();
            for ((i, key), answer) in unbounded_flips.into_iter().zip(answers) {
                self.cache.insert(key, answer.clone());
                out.push((i, answer));
            }
        }
        out.sort_by_key(|(i, _)| *i);
        out
    }

    /// Runs one query, counted with its time in the solver's statistics.
    fn timed(&mut self, query: impl FnOnce(&mut Self) -> Answer) -> Answer {
        let start = Instant::now();
        let answer = query(self);
        self.stats.queries += 1;
        self.stats.time += start.elapsed();
        answer
    }

    fn request(
        &self,
        declarations: &str,
        assertions: &[&str],
        vars: &[(Arc<str>, Sort)],
        limit: QueryLimit,
    ) -> isolated::Request {
        isolated::Request {
            declarations: declarations.to_owned(),
            assertions: assertions.iter().map(|a| (*a).to_owned()).collect(),
            negate: vec![],
            vars: vars
                .iter()
                .map(|(name, sort)| (name.to_string(), (*sort).into()))
                .collect(),
            limit,
            memory_mb: MEMORY_LIMIT_MB.load(std::sync::atomic::Ordering::SeqCst),
        }
    }
}

/// Checks what `z3` holds and reads the model's values of `vars`.
fn outcome(z3: &z3::Solver, vars: &[(Arc<str>, Sort)]) -> Answer {
    match z3.check() {
        z3::SatResult::Unsat => Answer::Unsat,
        z3::SatResult::Unknown => Answer::Unknown(
            z3.get_reason_unknown()
                .unwrap_or_else(|| "unknown".to_owned()),
        ),
        z3::SatResult::Sat => match z3.get_model() {
            Some(model) => Answer::Sat(extract(&model, vars)),
            None => Answer::Unknown("no model".to_owned()),
        },
    }
}

/// One query, parsed and solved on this thread, in `session`, within `limit`.
pub fn solve_in_process(
    session: &mut Z3Session,
    declarations: &str,
    assertions: &[&str],
    vars: &[(Arc<str>, Sort)],
    limit: QueryLimit,
) -> Answer {
    match parse(session, declarations, assertions) {
        Ok(parsed) => session.solving(limit, |z3| {
            for term in parsed.domains.iter().chain(&parsed.assertions) {
                z3.assert(term);
            }
            outcome(z3, vars)
        }),
        Err(why) => Answer::Unknown(why.to_string()),
    }
}

/// For each index `i` of `negate` (ascending), the answer for `assertions[..i] ∧
/// ¬assertions[i]`, solved incrementally on this thread (the prefix asserted once, each negation
/// pushed and popped), each given to `answered` as soon as it is found. An assertion z3 rejects
/// is left out of the prefixes, and its own negation answers so.
pub fn solve_negations_in_process(
    session: &mut Z3Session,
    declarations: &str,
    assertions: &[&str],
    negate: &[usize],
    vars: &[(Arc<str>, Sort)],
    limit: QueryLimit,
    answered: impl FnMut(Answer),
) {
    let mut translated: Vec<Result<String, Untranslatable>> =
        assertions.iter().map(|a| Ok((*a).to_owned())).collect();
    let (domains, terms) = parse_each(session, declarations, &mut translated);
    session.solving(limit, |z3| {
        for term in &domains {
            z3.assert(term);
        }
        solve_incrementally(z3, &terms, negate, vars, answered);
    });
}

/// For each index `i` of `negate` (ascending), the answer for `terms[..i] ∧ ¬terms[i]` in `z3`:
/// the conditions before it asserted once (a missing one — untranslated or rejected — left
/// out: the query is then an over-approximation, and a model is re-checked by running it),
/// its negation pushed and popped.
fn solve_incrementally(
    z3: &z3::Solver,
    terms: &[Option<z3::ast::Bool>],
    negate: &[usize],
    vars: &[(Arc<str>, Sort)],
    mut answered: impl FnMut(Answer),
) {
    let mut asserted = 0;
    for &i in negate {
        let Some(Some(term)) = terms.get(i) else {
            answered(Answer::Unknown("z3 rejected the query".to_owned()));
            continue;
        };
        while asserted < i {
            if let Some(term) = &terms[asserted] {
                z3.assert(term);
            }
            asserted += 1;
        }
        z3.push();
        z3.assert(term.not());
        answered(outcome(z3, vars));
        z3.pop(1);
    }
}

/// A query's cache key: the BLAKE3 digest of its declarations and assertions, each
/// length-prefixed (two different queries never share an encoding; a collision of the digest
/// is out of reach).
type QueryKey = [u8; 32];

#[derive(Clone)]
struct QueryDigest(blake3::Hasher);

impl QueryDigest {
    fn new(declarations: &str) -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&(declarations.len() as u64).to_le_bytes());
        hasher.update(declarations.as_bytes());
        QueryDigest(hasher)
    }

    fn assertion(&mut self, assertion: &str) {
        self.0.update(&(assertion.len() as u64).to_le_bytes());
        self.0.update(assertion.as_bytes());
    }

    fn key(&self) -> QueryKey {
        *self.0.finalize().as_bytes()
    }
}

/// Assertions parsed by z3: those the declarations carry (a variable's domain) and one term
/// per assertion text, in order.
struct Parsed {
    domains: Vec<z3::ast::Bool>,
    assertions: Vec<z3::ast::Bool>,
}

/// Parses `assertions` under `declarations`. Declarations are scoped to one parse, so they come
/// with every call. The text is parsed by a solver of its own and its terms are asserted where
/// they are needed: z3 since 4.13 lets a solver's parser see the constants of the assertions it
/// already holds and refuses to declare them again, so a second load into the solver that
/// holds a path's prefix would be refused there while 4.8 accepts it. z3 ignores text it cannot
/// parse, so the number of assertions is checked: a rejected query must never pass for a
/// satisfiable one.
fn parse(
    session: &mut Z3Session,
    declarations: &str,
    assertions: &[&str],
) -> Result<Parsed, Rejected> {
    let mut text = String::with_capacity(declarations.len() + 64 * assertions.len());
    text.push_str(declarations);
    for a in assertions {
        text.push_str("(assert ");
        text.push_str(a);
        text.push_str(")\n");
    }
    let mut parsed = session.parse(&text);
    // The declarations' assertions are each on a line of their own.
    let domains = declarations
        .lines()
        .filter(|l| l.starts_with("(assert "))
        .count();
    let expected = domains + assertions.len();
    if parsed.len() == expected {
        let assertions = parsed.split_off(domains);
        Ok(Parsed {
            domains: parsed,
            assertions,
        })
    } else {
        Err(Rejected {
            loaded: parsed.len(),
            expected,
        })
    }
}

/// A query z3's parser did not take whole: it loaded fewer assertions than the text has.
#[derive(Debug, thiserror::Error)]
#[error("z3 rejected the query ({loaded} of {expected} assertions loaded)")]
struct Rejected {
    loaded: usize,
    expected: usize,
}

/// Parses the conditions of a path that translated, all in one parse when z3 accepts them
/// together, else one by one; a condition z3 rejects becomes `Malformed` with its reason.
/// Returns the declarations' own assertions and, per condition, its term.
fn parse_each(
    session: &mut Z3Session,
    declarations: &str,
    translated: &mut [Result<String, Untranslatable>],
) -> (Vec<z3::ast::Bool>, Vec<Option<z3::ast::Bool>>) {
    let texts: Vec<&str> = translated
        .iter()
        .filter_map(|t| t.as_ref().ok().map(String::as_str))
        .collect();
    if let Ok(parsed) = parse(session, declarations, &texts) {
        let mut terms = parsed.assertions.into_iter();
        let per_condition = translated
            .iter()
            .map(|t| t.is_ok().then(|| terms.next()).flatten())
            .collect();
        return (parsed.domains, per_condition);
    }
    let domains = parse(session, declarations, &[])
        .map(|p| p.domains)
        .unwrap_or_default();
    let per_condition = translated
        .iter_mut()
        .map(|t| {
            let Ok(text) = t else {
                return None;
            };
            match parse(session, declarations, &[text.as_str()]) {
                Ok(mut parsed) => parsed.assertions.pop(),
                Err(why) => {
                    *t = Err(Untranslatable::Malformed(why.to_string()));
                    None
                }
            }
        })
        .collect();
    (domains, per_condition)
}

/// Translates a conjunction; every variable is declared, within its domain if it has one.
pub fn translate(assertions: &[Expr], domains: &Domains) -> Result<Smt, Untranslatable> {
    let mut translator = Translator::default();
    let mut texts = Vec::with_capacity(assertions.len());
    let mut unsupported: Vec<Arc<str>> = vec![];
    for a in assertions {
        match translator.assertion(a) {
            Ok(t) => texts.push(t),
            Err(Untranslatable::Unsupported(ops)) => {
                for op in ops {
                    if !unsupported.contains(&op) {
                        unsupported.push(op);
                    }
                }
            }
            Err(e) => return Err(e),
        }
    }
    if !unsupported.is_empty() {
        return Err(Untranslatable::Unsupported(unsupported));
    }
    let hazards = translator.take_hazards();
    let (declarations, vars) = translator.finish(domains);
    Ok(Smt {
        declarations,
        assertions: texts,
        vars,
        hazards,
    })
}

/// Reads each declared variable's value out of a model (completing unconstrained ones).
fn extract(model: &z3::Model, vars: &[(Arc<str>, Sort)]) -> Model {
    use z3::ast::{Bool, Int, Real, String as ZString};
    let mut values = FxHashMap::default();
    for (name, sort) in vars {
        let symbol = smt_name(name);
        let symbol = &symbol[1..symbol.len() - 1];
        let value = match sort {
            Sort::Int => model
                .eval(&Int::new_const(symbol), true)
                .map(|v| ModelValue::Int(int_text(&v.to_string()))),
            Sort::Bool => model
                .eval(&Bool::new_const(symbol), true)
                .and_then(|v| v.as_bool())
                .map(ModelValue::Bool),
            Sort::Str => model
                .eval(&ZString::new_const(symbol), true)
                .and_then(|v| v.as_string())
                .map(|s| ModelValue::Str(unescape_z3_string(&s))),
            Sort::Real => model
                .eval(&Real::new_const(symbol), true)
                .map(|v| ModelValue::Real(real_value(&v.to_string()))),
        };
        if let Some(value) = value {
            values.insert(name.clone(), value);
        }
    }
    Model { values }
}

/// `(- 12)` → `-12`.
fn int_text(s: &str) -> String {
    let s = s.trim();
    match s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        Some(abs) => format!("-{}", abs.trim()),
        None => s.to_owned(),
    }
}

/// `(/ 1.0 3.0)`, `(- 2.5)`, `7.0`, `(- (/ 1.0 3.0))` → the nearest float.
fn real_value(s: &str) -> f64 {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        return -real_value(inner);
    }
    if let Some(inner) = s.strip_prefix("(/").and_then(|r| r.strip_suffix(')')) {
        let parts: Vec<&str> = inner.split_whitespace().collect();
        if let [n, d] = parts.as_slice() {
            return real_value(n) / real_value(d);
        }
    }
    s.trim_end_matches('?').parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_condition_z3_rejects_is_malformed_and_the_others_keep_their_terms() {
        let declarations = "(declare-const x Int)\n(assert (>= x (- 5)))\n";
        // `y` is not declared: z3 rejects that assertion, so the one parse of all three fails
        // and each is parsed on its own.
        let mut translated: Vec<Result<String, Untranslatable>> = vec![
            Ok("(> x 0)".to_owned()),
            Ok("(> y 0)".to_owned()),
            Err(Untranslatable::Unsupported(vec!["str.lower".into()])),
            Ok("(< x 5)".to_owned()),
        ];
        let (domains, terms) = parse_each(&mut Z3Session::default(), declarations, &mut translated);
        assert_eq!(domains.len(), 1);
        let present: Vec<bool> = terms.iter().map(Option::is_some).collect();
        assert_eq!(present, [true, false, false, true]);
        assert!(
            matches!(&translated[1], Err(Untranslatable::Malformed(why)) if why.contains("z3 rejected")),
            "{:?}",
            translated[1]
        );
        assert!(matches!(translated[2], Err(Untranslatable::Unsupported(_))));
        assert_eq!(terms[3].as_ref().unwrap().to_string(), "(< x 5)");
    }

    #[test]
    fn conditions_z3_accepts_are_parsed_together_in_order() {
        let mut translated: Vec<Result<String, Untranslatable>> = vec![
            Ok("(> x 0)".to_owned()),
            Err(Untranslatable::Unsupported(vec!["str.lower".into()])),
            Ok("(< x 5)".to_owned()),
        ];
        let (domains, terms) = parse_each(
            &mut Z3Session::default(),
            "(declare-const x Int)\n",
            &mut translated,
        );
        assert!(domains.is_empty());
        let texts: Vec<Option<String>> = terms
            .iter()
            .map(|t| t.as_ref().map(|t| t.to_string()))
            .collect();
        assert_eq!(
            texts,
            [Some("(> x 0)".to_owned()), None, Some("(< x 5)".to_owned())]
        );
    }
}
