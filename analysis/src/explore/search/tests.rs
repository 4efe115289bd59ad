use super::*;
use crate::agent::description::read;
use crate::agent::protocol::{Event, Position, Status, Value};
use crate::explore::exploration::Attempt;
use crate::explore::signature::Guidance;
use crate::explore::solver::Answer;
use crate::explore::value::ModelValue;
use crate::symbolic::{Expr, Op, Sort};
use lacuna_grammar::LineIndex;
use std::sync::{Arc, Mutex};

/// An executor that runs a script in place of the agent: given the integer arguments of a
/// request and how many runs came before, the script says which branch events the run
/// produced. It keeps every request it ran. For the search's own logic only: what the
/// agent reports is tested against the real agent elsewhere.
struct Scripted<F> {
    script: F,
    ran: Mutex<Vec<ExecuteRequest>>,
}

impl<F: Fn(&[i64], usize) -> Vec<Event> + Sync> Executor for Scripted<F> {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        let mut ran = self.ran.lock().expect("requests lock");
        let args: Vec<i64> = request
            .args
            .iter()
            .map(|a| match &a.value {
                Value::Int { value } => value.parse().unwrap_or(0),
                _ => 0,
            })
            .collect();
        let events = (self.script)(&args, ran.len());
        ran.push(request.clone());
        Ok(run(events))
    }
}

fn scripted<F: Fn(&[i64], usize) -> Vec<Event> + Sync>(script: F) -> Scripted<F> {
    Scripted {
        script,
        ran: Mutex::new(vec![]),
    }
}

struct Unavailable;

impl Executor for Unavailable {
    fn execute(&self, _: &ExecuteRequest) -> Result<Execution, WorkerError> {
        Err(WorkerError::Handshake("no Python".into()))
    }
}

fn run(events: Vec<Event>) -> Execution {
    Execution {
        status: Status::Returned,
        returned: None,
        exception: None,
        receiver: Default::default(),
        arguments: Default::default(),
        files: vec!["m.py".into()],
        events,
        lines: BTreeMap::new(),
        stdout: String::new(),
        stderr: String::new(),
        truncated: false,
        error: None,
        building: None,
        building_method: None,
        fields: BTreeMap::new(),
        callables: BTreeMap::new(),
        type_tests: vec![],
        draws_random: false,
        effects: vec![],
        module_state: vec![],
    }
}

fn function(text: &str, name: &str) -> FunctionUnderTest {
    let module = lacuna_grammar::parse(text);
    let function = module
        .functions
        .iter()
        .find(|f| f.syntax.name == name)
        .expect("the function is defined");
    FunctionUnderTest {
        id: function.id.clone(),
        module: "m".into(),
        qualname: function.syntax.qualname.to_string(),
        file: "m.py".into(),
        syntax: function.syntax.clone(),
        anchor: function.anchor,
        lines: Arc::new(LineIndex::new(text)),
        tables: vec![],
        text: Arc::from(text),
        file_syntax: Arc::new(lacuna_grammar::parse(text)),
        seeds: Arc::new(lacuna_grammar::seeds(text).function(&function.id)),
        flow: Arc::new(lacuna_grammar::flow(text)),
        call: Default::default(),
    }
}

/// The agent's position of the first occurrence of `needle` in `text`.
fn position(text: &str, needle: &str) -> Position {
    let at = |offset: usize| {
        let before = &text[..offset];
        let line = before.matches('\n').count() as u32 + 1;
        let col = (offset - before.rfind('\n').map_or(0, |n| n + 1)) as u32;
        (line, col)
    };
    let start = text.find(needle).expect("the needle is in the text");
    let (l1, c1) = at(start);
    let (l2, c2) = at(start + needle.len());
    Position(l1, Some(c1), l2, Some(c2))
}

fn branch(text: &str, condition: &str, taken: bool, expr: Option<Expr>) -> Event {
    Event::Branch {
        f: 0,
        pos: Some(position(text, condition)),
        taken,
        frame: 1,
        expr,
        link: None,
    }
}

fn int_params(names: &[&str]) -> Signature {
    Signature {
        params: names
            .iter()
            .map(|n| ((*n).to_owned(), Shape::Int))
            .collect(),
        keyword_only: vec![],
        varargs: None,
        defaults: BTreeMap::new(),
        default_choices: BTreeMap::new(),
        receiver: None,
        writers: Default::default(),
        guidance: Arc::new(Guidance::default()),
        unread: vec![],
        observed: vec![],
        ranges: BTreeMap::new(),
        mined: BTreeMap::new(),
    }
}

fn budget() -> Budget {
    Budget {
        time: Duration::from_secs(60),
        run_share: None,
        stall_share: None,
        executions: 5_000,
        execution_timeout_ms: 1_000,
        loop_bound: 8,
        solver_timeout_ms: 5_000,
        solver_memory_mb: 2_048,
        target_obligations: false,
        reproducible: false,
        solver_rlimit: 0,
    }
}

/// A candidate giving these integer inputs.
fn ints(values: &[(&str, i64)]) -> Candidate {
    let mut c = Candidate::default();
    for (name, n) in values {
        c.vars
            .insert((*name).into(), ModelValue::Int(n.to_string()));
    }
    c
}

fn compare(op: Op, var: &str, n: i64) -> Expr {
    Expr::app(op, vec![Expr::var(var, Sort::Int), Expr::int(n)])
}

const GRADE: &str = "def grade(score: int, bonus: int):\n    if score > 90:\n        return \"A\"\n    if bonus == 7:\n        return \"B\"\n    return \"C\"\n";

/// `grade` as CPython runs it: `score > 90`, then `bonus == 7` when the first is false.
fn grade(args: &[i64], _: usize) -> Vec<Event> {
    let (score, bonus) = (args[0], args[1]);
    let mut events = vec![branch(
        GRADE,
        "score > 90",
        score > 90,
        Some(compare(Op::Gt, "score", 90)),
    )];
    if score <= 90 {
        events.push(branch(
            GRADE,
            "bonus == 7",
            bonus == 7,
            Some(compare(Op::Eq, "bonus", 7)),
        ));
    }
    events
}

/// The solver's flip of an open decision runs before the seeds left in the frontier;
/// every input that shows a side first is run a second time right away and kept; no
/// other input runs twice; the search stops once every side is covered.
#[test]
fn flips_of_open_decisions_run_first_and_new_sides_are_confirmed() {
    let f = function(GRADE, "grade");
    let executor = scripted(grade);
    let e = explore(&f, &int_params(&["score", "bonus"]), &executor, &budget());
    let sides: Vec<(usize, bool)> = e.covered.keys().copied().collect();
    assert_eq!(sides, [(0, false), (0, true), (1, false), (1, true)]);
    assert_eq!(
        e.tests.len(),
        3,
        "the first input and one per side it missed"
    );
    assert!(e.tests.iter().all(|t| !t.new_sides.is_empty()));
    assert!(e.attempts.is_empty(), "nothing is left to explain");
    let ran = executor.ran.into_inner().expect("requests lock");
    assert_eq!(e.executions as usize, ran.len());
    // The first input (the defaults), then the flip of `bonus == 7` on its path, before
    // the dozen seeds the literals 90 and 7 give.
    assert_eq!(ran[0], ran[1]);
    assert_eq!(ran[2].args[1].value, Value::Int { value: "7".into() });
    for test in &e.tests {
        let at = ran.iter().position(|r| *r == test.request).expect("it ran");
        assert_eq!(ran[at + 1], test.request, "confirmed by a second run");
    }
    let distinct: FxHashSet<String> = ran.iter().map(|r| format!("{r:?}")).collect();
    assert_eq!(distinct.len(), ran.len() - e.tests.len());
}

/// Where the project's own tests passed a parameter numbers of a range, the solver's model for
/// a flip is kept within it: `score > 90` flipped by a score the tests' range holds, not by
/// z3's first (91); a flip the range cannot satisfy keeps z3's model (`bonus == 7` with
/// bonus's range 10–20, on a path where the score is below the range).
#[test]
fn models_are_kept_within_the_numbers_the_tests_passed() {
    use crate::explore::ranges::Range;
    let f = function(GRADE, "grade");
    let executor = scripted(grade);
    let mut signature = int_params(&["score", "bonus"]);
    signature
        .ranges
        .insert("score".into(), Range::Int(100, 120));
    signature.ranges.insert("bonus".into(), Range::Int(10, 20));
    let e = explore(&f, &signature, &executor, &budget());
    assert_eq!(e.covered.len(), 4, "every side: {:?}", e.covered);
    let int = |v: &Value| match v {
        Value::Int { value } => value.parse::<i64>().expect("an int"),
        other => panic!("not an int: {other:?}"),
    };
    let scores: Vec<i64> = e
        .tests
        .iter()
        .map(|t| int(&t.request.args[0].value))
        .collect();
    assert!(
        scores.iter().any(|s| (100..=120).contains(s)),
        "the side `score > 90` by a score the tests' range holds: {scores:?}"
    );
    assert!(!scores.iter().any(|s| (91..100).contains(s)), "{scores:?}");
    let bonuses: Vec<i64> = e
        .tests
        .iter()
        .map(|t| int(&t.request.args[1].value))
        .collect();
    assert!(
        bonuses.contains(&7),
        "outside the range where only 7 will do: {bonuses:?}"
    );
}

/// A side an input takes only some of the time (a branch on `random.random()`) is never
/// claimed: its test could not reproduce it. The search gives up after `STALE` executions
/// in a row without anything new, long before its budget.
#[test]
fn a_side_the_second_run_does_not_confirm_is_not_claimed() {
    const COIN: &str = "def toss(n: int):\n    if coin():\n        return n\n    return 0\n";
    let f = function(COIN, "toss");
    let executor =
        scripted(|_: &[i64], before: usize| vec![branch(COIN, "coin()", before % 2 == 1, None)]);
    let e = explore(&f, &int_params(&["n"]), &executor, &budget());
    assert!(e.covered.is_empty(), "{:?}", e.covered);
    assert!(e.tests.iter().all(|t| t.new_sides.is_empty()));
    assert!(
        e.executions > STALE && e.executions < 2 * STALE,
        "{STALE} executions without anything new, not the budget: {}",
        e.executions
    );
    for side in [(0, true), (0, false)] {
        assert_eq!(e.attempts[&side], [Attempt::ConcreteOnly]);
    }
}

/// With no target left for the solver (the condition is only seen concretely), the
/// search mutates the inputs it has until `STALE` executions show nothing new.
#[test]
fn mutations_end_after_stale_executions() {
    const FLAG: &str = "def check(n: int):\n    if enabled():\n        return n\n    return 0\n";
    let f = function(FLAG, "check");
    let executor = scripted(|_: &[i64], _: usize| vec![branch(FLAG, "enabled()", true, None)]);
    let signature = int_params(&["n"]);
    let budget = budget();
    let mut search = Search::new(&f, &signature, &executor, &budget);
    search.run();
    assert_eq!(search.phase, Phase::Mutations);
    let ran = executor.ran.lock().expect("requests lock");
    assert_eq!(
        ran[0], ran[1],
        "the side the first input shows is confirmed"
    );
    assert_eq!(search.out.executions as usize, ran.len());
    assert!(
        (STALE..STALE + 20).contains(&search.out.executions),
        "{}",
        search.out.executions
    );
    assert_eq!(search.out.covered.len(), 1);
    assert_eq!(search.out.attempts[&(0, false)], [Attempt::ConcreteOnly]);
}

const PICKED: &str = "def picked(n: int):\n    return sum(1 for v in range(n) if v > -5)\n";

/// `picked` as CPython runs it: the generator expression's loop (no decision of the
/// function's), then its decision on the first item when the loop is entered.
fn picked(args: &[i64], _: usize) -> Vec<Event> {
    let n = args[0];
    let mut events = vec![Event::Loop {
        f: 0,
        pos: Some(position(PICKED, "range(n)")),
        taken: n > 0,
        frame: 2,
        expr: Some(compare(Op::Gt, "n", 0)),
        stmt: None,
    }];
    if n > 0 {
        events.push(branch(PICKED, "v > -5", true, None));
    }
    events
}

/// The priorities of the queued inputs whose `n` is above `least`.
fn priorities_with_n_above(search: &Search<'_>, least: i64) -> Vec<u32> {
    search
        .frontier
        .iter()
        .filter(|(_, c)| {
            matches!(c.vars.get("n"), Some(ModelValue::Int(n)) if n.parse::<i64>().unwrap() > least)
        })
        .map(|(p, _)| *p)
        .collect()
}

/// A loop that is no decision of its own, never entered while a decision was never
/// reached, is entered at the priority of a side not covered yet: the decision may be in its
/// body. (At 1, the choices of the inputs' kinds and the repairs, at 2, ran first.)
#[test]
fn a_loop_never_entered_before_an_unreached_decision_is_entered_first() {
    let f = function(PICKED, "picked");
    let executor = scripted(picked);
    let signature = int_params(&["n"]);
    let budget = budget();
    let mut search = Search::new(&f, &signature, &executor, &budget);
    let first = Candidate::default();
    let observed = search.execute(&first).expect("it ran");
    search.expand(&first, &observed);
    assert_eq!(priorities_with_n_above(&search, 0), [3]);
    let e = explore(&f, &signature, &executor, &budget);
    assert!(e.covered.contains_key(&(0, true)), "{:?}", e.covered);
}

const DRAINED: &str =
    "def drained(n: int):\n    consume(range(n))\n    if n > 99:\n        return 1\n    return 0\n";

/// `drained` as CPython runs it when `consume` loops over every item and then raises: the
/// callee's loop, and never the function's decision.
fn drained(args: &[i64], _: usize) -> Vec<Event> {
    let n = args[0].clamp(0, 40);
    (0..=n)
        .map(|i| Event::Loop {
            f: 0,
            pos: Some(position(DRAINED, "range(n)")),
            taken: i < n,
            frame: 2,
            expr: Some(compare(Op::Gt, "n", i)),
            stmt: None,
        })
        .collect()
}

/// Once such a loop was entered, one more item is no likelier to reach the decision: the next
/// iteration is not put ahead of the other inputs (a chain of them, each failing the same way,
/// took a retry wrapper's whole budget).
#[test]
fn a_loop_entered_once_is_not_entered_further_first() {
    let f = function(DRAINED, "drained");
    let executor = scripted(drained);
    let signature = int_params(&["n"]);
    let budget = budget();
    let mut search = Search::new(&f, &signature, &executor, &budget);
    let mut once = Candidate::default();
    once.vars.insert("n".into(), ModelValue::Int("1".into()));
    let observed = search.execute(&once).expect("it ran");
    search.expand(&once, &observed);
    assert_eq!(priorities_with_n_above(&search, 1), [1]);
}

/// The frontier: highest priority first, the oldest among equals, and no input queued
/// twice, even after it ran.
#[test]
fn the_frontier_pops_by_priority_and_never_queues_an_input_twice() {
    let f = function(GRADE, "grade");
    let executor = scripted(grade);
    let signature = int_params(&["score", "bonus"]);
    let budget = budget();
    let mut search = Search::new(&f, &signature, &executor, &budget);
    let input = |score: i64| ints(&[("score", score)]);
    search.push(0, input(1));
    search.push(3, input(2));
    search.push(0, input(3));
    search.push(3, input(4));
    search.push(1, input(2));
    let order: Vec<(u32, Candidate)> = std::iter::from_fn(|| search.pop()).collect();
    assert_eq!(
        order,
        [(3, input(2)), (3, input(4)), (0, input(1)), (0, input(3))]
    );
    search.push(5, input(4));
    assert!(
        search.pop().is_none(),
        "an input that ran is not queued again"
    );
}

/// Runs that all raise the same exception at the same line before any decision stop the
/// search after `FAILING_ALIKE` of them, and the stop says which exception and where.
#[test]
fn runs_failing_alike_before_any_decision_stop_the_search() {
    struct Failing;
    impl Executor for Failing {
        fn execute(&self, _: &ExecuteRequest) -> Result<Execution, WorkerError> {
            let mut r = run(vec![]);
            r.status = Status::Raised;
            r.exception = Some(crate::agent::protocol::RaisedException {
                type_name: "KeyError".into(),
                message: "'region'".into(),
                line: Some(2),
                file: Some("/p/grade.py".into()),
            });
            Ok(r)
        }
    }
    let f = function(GRADE, "grade");
    let e = explore(&f, &int_params(&["score", "bonus"]), &Failing, &budget());
    assert_eq!(e.executions, FAILING_ALIKE);
    assert_eq!(
        e.stop,
        Stop::FailingAlike(FailingAlike {
            exception: "KeyError: 'region'".into(),
            line: Some(2),
            file: Some("/p/grade.py".into()),
            runs: FAILING_ALIKE,
        })
    );
    // What the decisions never reached hit instead, for their explanation.
    let Stop::FailingAlike(failing) = &e.stop else {
        unreachable!()
    };
    assert_eq!(e.undecided, std::slice::from_ref(failing));
    assert_eq!(
        e.stop.describe().as_deref(),
        Some(
            "stopped after 20 runs in a row raised `KeyError: 'region'` at line 2 before reaching a decision, on every input tried"
        )
    );
    // An object's address in the message differs from run to run: it is left out.
    let by_address = Stop::FailingAlike(FailingAlike {
        exception:
            "HierarchyRequestErr: 0 cannot be child of <NamedNodeMap object at 0x7f2c137ad50>"
                .into(),
        line: Some(9),
        file: None,
        runs: 20,
    });
    assert_eq!(
        by_address.describe().as_deref(),
        Some(
            "stopped after 20 runs in a row raised `HierarchyRequestErr: 0 cannot be child of <NamedNodeMap object>` at line 9 before reaching a decision, on every input tried"
        )
    );
}

/// With a stall share, the search stops once that share of its time has passed without a
/// new side, long before its time or `STALE` executions; without one, it goes on.
#[test]
fn a_stall_of_a_share_of_the_time_stops_the_search() {
    const FLAG: &str = "def check(n: int):\n    if enabled():\n        return n\n    return 0\n";
    let f = function(FLAG, "check");
    let slow = |_: &[i64], _: usize| {
        std::thread::sleep(Duration::from_millis(5));
        vec![branch(FLAG, "enabled()", true, None)]
    };
    let mut stalling = budget();
    stalling.time = Duration::from_secs(2);
    stalling.stall_share = Some(0.1);
    let executor = scripted(slow);
    let e = explore(&f, &int_params(&["n"]), &executor, &stalling);
    let Stop::Stalled(after) = e.stop else {
        panic!("stopped by {:?}", e.stop);
    };
    assert!(after >= Duration::from_millis(200), "{after:?}");
    assert!(e.executions < STALE, "{}", e.executions);
    assert_eq!(e.covered.len(), 1);
    assert_eq!(
        e.stop
            .describe()
            .map(|d| d.contains("without a new branch side")),
        Some(true)
    );
    stalling.stall_share = None;
    stalling.time = Duration::from_secs(20);
    let executor = scripted(slow);
    let e = explore(&f, &int_params(&["n"]), &executor, &stalling);
    assert_eq!(
        e.stop,
        Stop::Exhausted,
        "{STALE} executions without anything new"
    );
}

/// In a reproducible run the stall is counted in runs, not time: a slow executor stops it after
/// the same share of its executions as a fast one, and the clock (a safety bound there) never
/// decides.
#[test]
fn a_reproducible_search_stalls_after_a_share_of_its_runs_however_slow_they_are() {
    const FLAG: &str = "def check(n: int):\n    if enabled():\n        return n\n    return 0\n";
    let f = function(FLAG, "check");
    let mut counted = budget();
    counted.reproducible = true;
    counted.time = Duration::from_secs(60);
    counted.executions = 40;
    counted.stall_share = Some(0.25);
    let mut outcomes = vec![];
    for pause in [0, 20] {
        let executor = scripted(move |_: &[i64], _: usize| {
            std::thread::sleep(Duration::from_millis(pause));
            vec![branch(FLAG, "enabled()", true, None)]
        });
        let e = explore(&f, &int_params(&["n"]), &executor, &counted);
        outcomes.push((e.stop.clone(), e.executions, e.covered.len()));
    }
    assert_eq!(outcomes[0], outcomes[1]);
    let (stop, executions, covered) = &outcomes[0];
    assert_eq!(*stop, Stop::StalledRuns(10));
    assert_eq!((*executions, *covered), (15, 1));
    assert_eq!(
        stop.describe().as_deref(),
        Some("stopped after 10 runs without a new branch side: not every side is covered")
    );
}

/// An executor whose every run reaches its limit, after `pause` (an input that waits).
struct TimingOut {
    text: &'static str,
    pause: Duration,
}

impl Executor for TimingOut {
    fn execute(&self, _: &ExecuteRequest) -> Result<Execution, WorkerError> {
        std::thread::sleep(self.pause);
        let mut run = run(vec![branch(self.text, "enabled()", true, None)]);
        run.status = Status::Timeout;
        Ok(run)
    }
}

/// In a reproducible run the function's time bound counts the limits of the runs that reached
/// theirs, not the clock: runs that wait stop it after the same number of runs however long
/// each one waits.
#[test]
fn a_reproducible_search_counts_the_runs_that_reached_their_limit_not_the_clock() {
    const FLAG: &str = "def check(n: int):\n    if enabled():\n        return n\n    return 0\n";
    let f = function(FLAG, "check");
    let mut counted = budget();
    counted.reproducible = true;
    // A timed run's three seconds with runs of one: three runs that reach their limit.
    counted.execution_timeout_ms = 1_000;
    counted.time = Duration::from_secs(3) * crate::config::REPRODUCIBLE_SAFETY;
    counted.executions = 40;
    let outcomes: Vec<_> = [0, 40]
        .into_iter()
        .map(|pause| {
            let executor = TimingOut {
                text: FLAG,
                pause: Duration::from_millis(pause),
            };
            let e = explore(&f, &int_params(&["n"]), &executor, &counted);
            (e.stop.clone(), e.executions)
        })
        .collect();
    assert_eq!(outcomes[0], outcomes[1]);
    assert_eq!(outcomes[0], (Stop::Time, 4));
}

/// When nothing can run, the search stops at once and says why.
#[test]
fn an_executor_that_cannot_run_ends_the_search_with_its_reason() {
    let f = function(GRADE, "grade");
    let e = explore(
        &f,
        &int_params(&["score", "bonus"]),
        &Unavailable,
        &budget(),
    );
    assert_eq!(
        e.failure.as_deref(),
        Some("the agent did not start: no Python")
    );
    assert_eq!(e.executions, 0);
    assert!(e.tests.is_empty());
}

/// A parameter's domain comes from the type the agent described, not from its name: a
/// project's `hour` is any int, a mocked `datetime.now()`'s `hour` (or a `datetime`
/// parameter's) is an hour, a mocked `uuid4()`'s hex digits are 32 hex digits.
#[test]
fn only_value_type_arguments_are_kept_within_their_domains() {
    use serde_json::json;
    let datetime = json!({"kind": "class", "class": "datetime:datetime", "methods": [],
            "init": [{"name": "hour", "kind": "positional_or_keyword", "type": {"kind": "int"},
                      "default": "12", "domain": {"min": 0, "max": 23}}]});
    let uuid = json!({"kind": "class", "class": "uuid:UUID", "methods": [],
            "init": [{"name": "hex", "kind": "positional_or_keyword", "type": {"kind": "str"},
                      "default": "'0'", "domain": {"length": 32, "alphabet": "0123456789abcdef"}}]});
    let slot = json!({"kind": "class", "class": "shop.slots:Slot", "methods": [],
            "init": [{"name": "hour", "kind": "positional_or_keyword", "type": {"kind": "int"}}]});
    let guidance = Guidance::from_describe(&read(json!({"mocks": [
        {"target": "datetime.datetime.now", "returns": datetime},
        {"target": "uuid.uuid4", "returns": uuid},
    ]})));
    let signature = Signature {
        params: vec![
            ("hour".into(), Shape::Int),
            ("slot".into(), Shape::from_describe(&read(slot))),
            (
                "when".into(),
                Shape::from_describe(&read(json!({"kind": "optional", "of": datetime}))),
            ),
        ],
        keyword_only: vec![],
        varargs: None,
        defaults: BTreeMap::new(),
        default_choices: BTreeMap::new(),
        receiver: None,
        writers: Default::default(),
        guidance: std::sync::Arc::new(guidance),
        unread: vec![],
        observed: vec![],
        ranges: BTreeMap::new(),
        mined: BTreeMap::new(),
    };
    let mut solver = Solver::new(5_000).with_domains(signature.domains());
    let mut past_midnight = |name: &str| {
        let above = Expr::app(Op::Gt, vec![Expr::var(name, Sort::Int), Expr::int(23)]);
        solver.check(&[above])
    };
    assert!(matches!(past_midnight("hour"), Answer::Sat(_)));
    assert!(matches!(
        past_midnight("slot.__init__.hour"),
        Answer::Sat(_)
    ));
    assert_eq!(past_midnight("$mock:0[2].__init__.hour"), Answer::Unsat);
    assert_eq!(past_midnight("when.__init__.hour"), Answer::Unsat);
    let late = Expr::app(
        Op::Ge,
        vec![
            Expr::var("$mock:0[0].__init__.hour", Sort::Int),
            Expr::int(22),
        ],
    );
    let Answer::Sat(model) = solver.check(&[late]) else {
        panic!("an hour of 22 or 23 exists");
    };
    assert!(matches!(
        &model.values["$mock:0[0].__init__.hour"],
        ModelValue::Int(h) if h == "22" || h == "23"
    ));
    let hex = Expr::var("$mock:1[0].__init__.hex", Sort::Str);
    let starts = |prefix: &str| {
        Expr::app(
            Op::StrStartsWith,
            vec![hex.clone(), Expr::Str(prefix.into())],
        )
    };
    assert_eq!(solver.check(&[starts("g")]), Answer::Unsat);
    let Answer::Sat(model) = solver.check(&[starts("00000000")]) else {
        panic!("a hex string starting with zeros exists");
    };
    assert!(matches!(
        &model.values["$mock:1[0].__init__.hex"],
        ModelValue::Str(s) if s.len() == 32 && s.chars().all(|c| c.is_ascii_hexdigit())
    ));
}

const PARSE: &str = "def parse(text: int, double: int):\n    try:\n        value = check(text, 13)\n    except ValueError:\n        return None\n    if double == 1:\n        return value * 2\n    return value\n";

/// `parse` as CPython runs it: `check` raises `ValueError` for 13, which the `except` block
/// catches (lines 4–5) before the function's one decision; any other text reaches it.
struct Parse {
    ran: Mutex<Vec<ExecuteRequest>>,
}

impl Executor for Parse {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        self.ran
            .lock()
            .expect("requests lock")
            .push(request.clone());
        let arg = |i: usize| match &request.args[i].value {
            Value::Int { value } => value.parse().unwrap_or(0),
            _ => 0,
        };
        let (text, double): (i64, i64) = (arg(0), arg(1));
        let (events, lines) = if text == 13 {
            (vec![], vec![2, 3, 4, 5])
        } else {
            let taken = double == 1;
            (
                vec![branch(
                    PARSE,
                    "double == 1",
                    taken,
                    Some(compare(Op::Eq, "double", 1)),
                )],
                vec![2, 3, 6, if taken { 7 } else { 8 }],
            )
        };
        let mut out = run(events);
        out.lines.insert("0".into(), lines);
        Ok(out)
    }
}

/// An input that enters an `except` block no decision leads to is kept: its lines are new
/// though it covers no side (coverage.py counts them), and it is confirmed like a new side.
#[test]
fn a_run_that_enters_an_except_block_is_kept_for_its_lines() {
    let f = function(PARSE, "parse");
    let executor = Parse {
        ran: Mutex::new(vec![]),
    };
    let e = explore(&f, &int_params(&["text", "double"]), &executor, &budget());
    assert_eq!(e.covered.len(), 2, "{:?}", e.covered);
    let handler: Vec<&crate::explore::exploration::GeneratedTest> = e
        .tests
        .iter()
        .filter(|t| t.request.args[0].value == Value::Int { value: "13".into() })
        .collect();
    assert_eq!(handler.len(), 1, "one test enters the except block");
    assert!(handler[0].new_sides.is_empty());
    let ran = executor.ran.into_inner().expect("requests lock");
    let at = ran
        .iter()
        .position(|r| *r == handler[0].request)
        .expect("it ran");
    assert_eq!(ran[at + 1], handler[0].request, "confirmed by a second run");
}

const PORT: &str = "def port(text: int):\n    try:\n        value = check(text, 13)\n    except ValueError as e:\n        raise ParseError(text) from e\n    return value\n";

/// `port` as CPython runs it: `check` raises `ValueError` for 13, which the handler turns
/// into a `ParseError` (lines 4–5); any other text returns.
struct Port;

impl Executor for Port {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        let text = match &request.args[0].value {
            Value::Int { value } => value.parse().unwrap_or(0),
            _ => 0,
        };
        let mut out = run(vec![]);
        if text == 13 {
            out.status = Status::Raised;
            out.exception = Some(crate::agent::protocol::RaisedException {
                type_name: "ParseError".into(),
                message: "13".into(),
                line: Some(5),
                file: Some("m.py".into()),
            });
            out.lines.insert("0".into(), vec![2, 3, 4, 5]);
        } else {
            out.lines.insert("0".into(), vec![2, 3, 6]);
        }
        Ok(out)
    }
}

/// A function whose only branching is a `try` is explored for its `except` clause: the run
/// that enters it is kept though it raised before any decision (the handler's `raise` is what
/// it does), and the search ends once every clause is entered.
#[test]
fn a_function_without_decisions_is_explored_until_its_except_clauses_are_entered() {
    let f = function(PORT, "port");
    assert!(f.syntax.decisions.is_empty());
    assert!(crate::generation::explorable(&f.syntax).is_ok());
    let e = explore(&f, &int_params(&["text"]), &Port, &budget());
    assert_eq!(e.handlers, [true]);
    assert_eq!(e.stop, Stop::Exhausted);
    let outcomes: Vec<&str> = e
        .tests
        .iter()
        .map(|t| match &t.outcome {
            crate::explore::exploration::Outcome::Returned { .. } => "returned",
            crate::explore::exploration::Outcome::Raised { type_name, .. } => type_name.as_str(),
            crate::explore::exploration::Outcome::Failed(_) => "failed",
        })
        .collect();
    assert_eq!(outcomes, ["returned", "ParseError"]);
    // Runs that raise alike before any decision do not end it while another returned.
    assert!(e.executions < 20, "{} executions", e.executions);
}

const LOOKUP: &str = "def lookup(key: int, double: int):\n    if double == 1:\n        key = key * 2\n    try:\n        return table(key)\n    except KeyError:\n        return None\n";

/// `lookup` as CPython runs it: `table` (code the tracer does not see into) raises `KeyError`
/// for a key whose remainder by 7 is 5, caught by the `except` clause (lines 6–7).
struct Lookup;

impl Executor for Lookup {
    fn execute(&self, request: &ExecuteRequest) -> Result<Execution, WorkerError> {
        let arg = |i: usize| match &request.args[i].value {
            Value::Int { value } => value.parse().unwrap_or(0),
            _ => 0,
        };
        let (key, double): (i64, i64) = (arg(0), arg(1));
        let taken = double == 1;
        let key = if taken { key * 2 } else { key };
        let mut out = run(vec![branch(
            LOOKUP,
            "double == 1",
            taken,
            Some(compare(Op::Eq, "double", 1)),
        )]);
        let mut lines = vec![2, 4, 5];
        if taken {
            lines.insert(1, 3);
        }
        if key.rem_euclid(7) == 5 {
            lines.extend([6, 7]);
        }
        out.lines.insert("0".into(), lines);
        Ok(out)
    }
}

/// Every side covered is no reason to stop while an `except` clause is not entered: mutated
/// inputs go on until one enters it (or nothing new comes of them).
#[test]
fn mutations_go_on_for_an_except_clause_no_test_entered() {
    let f = function(LOOKUP, "lookup");
    let e = explore(&f, &int_params(&["key", "double"]), &Lookup, &budget());
    assert_eq!(e.covered.len(), 2, "{:?}", e.covered);
    assert_eq!(e.handlers, [true], "{} executions", e.executions);
}

/// Flips that aim at nothing open (both sides of their decision covered, both values of their
/// condition seen) wait until the frontier is empty, and are solved then: a search that
/// covers everything first never pays for them.
#[test]
fn flips_at_nothing_open_wait_for_an_empty_frontier() {
    let f = function(GRADE, "grade");
    let executor = scripted(grade);
    let signature = int_params(&["score", "bonus"]);
    let budget = budget();
    let mut search = Search::new(&f, &signature, &executor, &budget);
    let input = |score: i64, bonus: i64| ints(&[("score", score), ("bonus", bonus)]);
    for (score, bonus) in [(95, 0), (0, 0), (0, 7)] {
        search.execute(&input(score, bonus)).expect("it ran");
    }
    assert_eq!(search.out.covered.len(), 4, "{:?}", search.out.covered);
    let last = input(1, 1);
    let observed = search.execute(&last).expect("it ran");
    search.expand(&last, &observed);
    assert!(search.frontier.is_empty(), "{:?}", search.frontier);
    assert_eq!(search.deferred.len(), 1);
    assert!(search.solve_deferred());
    assert!(search.deferred.is_empty());
    let queued: Vec<u32> = search.frontier.iter().map(|(p, _)| *p).collect();
    assert_eq!(queued, [0, 0], "{:?}", search.frontier);
    assert!(!search.solve_deferred());
}

/// A clock's reading comes from the worker, where project code runs: it is read through the
/// checks of an asserted value, so a forged one (`os.system`) is no reading at all, and a real
/// one becomes the tree its mock returns.
#[test]
fn a_clock_reading_is_read_through_the_checks_of_an_asserted_value() {
    let call = |clock: serde_json::Value| -> Event {
        serde_json::from_value(serde_json::json!({
            "k": "call", "n": 1, "callee": "datetime.datetime.now", "arg_vars": [],
            "clock": clock,
        }))
        .expect("a call event")
    };
    let reading = |event: Event| match event {
        Event::Call { clock, .. } => clock,
        _ => unreachable!(),
    };
    let int = |n: &str| serde_json::json!({"kind": "int", "value": n});
    let forged = serde_json::json!({"kind": "object", "class": "os:system",
        "args": [{"kind": "str", "value": "rm -rf ~"}]});
    assert_eq!(reading(call(forged)), None);
    let now = serde_json::json!({"kind": "std", "class": "datetime.datetime",
        "args": [int("2026"), int("12"), int("8"), int("1"), int("24"), int("34"), int("5")],
        "utcoffset": -18000});
    let tree = record::reading_tree(&reading(call(now)).expect("a reading")).expect("a tree");
    assert_eq!(
        serde_json::to_value(&tree).unwrap(),
        serde_json::json!({"kind": "object", "class": "datetime:datetime",
            "args": [int("2026"), int("12"), int("8"), int("1"), int("24"), int("34"), int("5")],
            "kwargs": {"tzinfo": {"kind": "object", "class": "datetime:timezone",
                "args": [{"kind": "object", "class": "datetime:timedelta", "args": [],
                    "kwargs": {"seconds": int("-18000")}, "calls": []}],
                "kwargs": {}, "calls": []}},
            "calls": []})
    );
}
