use super::*;

fn int(n: i64) -> Variable {
    Variable::Int(n.to_string())
}

fn point(samples: &[&[(&str, Variable)]]) -> ProgramPoint {
    ProgramPoint {
        calls: samples.len() as u64,
        samples: samples
            .iter()
            .map(|s| {
                s.iter()
                    .map(|(k, v)| ((*k).to_owned(), v.clone()))
                    .collect()
            })
            .collect(),
        tests: (0..samples.len())
            .map(|i| Some(format!("tests/test_a.py::test_{}", i % 3)))
            .collect(),
        sides: vec![],
        counts: vec![],
        complete: true,
        read: None,
    }
}

fn rendered(invariants: &[Invariant]) -> Vec<String> {
    invariants.iter().map(|i| i.key()).collect()
}

/// `pages(items, per_page)` called by six tests: the page count is positive, never more
/// than the items, and an int.
fn pages() -> ProgramPoint {
    let rows: Vec<Vec<(&str, Variable)>> = [
        (10, 3, 4),
        (7, 2, 4),
        (1, 5, 1),
        (11, 4, 3),
        (25, 10, 3),
        (9, 4, 3),
    ]
    .iter()
    .map(|&(items, per, ret)| {
        vec![
            ("items", int(items)),
            ("per_page", int(per)),
            ("return", int(ret)),
            ("type(return)", Variable::Str("int".into())),
            ("return is None", Variable::Bool(false)),
        ]
    })
    .collect();
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    point(&refs)
}

#[test]
fn the_exit_of_a_function_gives_sign_type_and_orderings_with_the_return_value() {
    let invariants = infer(Point::Exit, &pages(), &Support::default());
    assert_eq!(
        rendered(&invariants),
        [
            "exit: return is not None",
            "exit: type(return) is int",
            "exit: return > 0",
            "exit: items >= return",
        ]
    );
    let ordering = &invariants[3];
    assert_eq!(ordering.samples, 6);
    assert_eq!(
        ordering.tests,
        [
            "tests/test_a.py::test_0",
            "tests/test_a.py::test_1",
            "tests/test_a.py::test_2"
        ]
    );
    assert_eq!(ordering.seen[0], "items = 10, return = 4");
    assert!(ordering.confidence > 0.95);
}

/// The comparisons between variables learned at the exit from `rows`, one row a call.
fn exit_comparisons(rows: &[Vec<(&str, Variable)>]) -> Vec<String> {
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    infer(Point::Exit, &point(&refs), &Support::default())
        .iter()
        .filter(|i| matches!(i.property, Property::Compare { .. }))
        .map(Invariant::key)
        .collect()
}

#[test]
fn only_comparable_numbers_are_ordered() {
    // A duration's years and its microseconds are both numbers, and in six calls one was
    // always the larger: it means nothing. A date's day and the day it was given do.
    let rows: Vec<Vec<(&str, Variable)>> = (1..=6)
        .map(|k| {
            vec![
                ("day.day", int(k)),
                ("return.day", int(k + 1)),
                ("return.years", int(k)),
                ("return.tdelta.microseconds", int(1000 * k)),
            ]
        })
        .collect();
    let orderings = exit_comparisons(&rows);
    assert_eq!(orderings, ["exit: day.day < return.day"]);
}

#[test]
fn a_length_and_a_number_are_only_equal_or_not() {
    // humanize's `intcomma(value)`: in every call the text was shorter than the number
    // formatted (`len(return) <= value`), by the magnitudes the suite used. A repeated text's
    // length equal to the count is kept.
    let rows: Vec<Vec<(&str, Variable)>> = (1..=6)
        .map(|k| {
            vec![
                ("value", int(1000 * k)),
                ("times", int(k)),
                ("len(return)", int(k)),
            ]
        })
        .collect();
    let orderings = exit_comparisons(&rows);
    assert_eq!(orderings, ["exit: len(return) == times"]);
}

#[test]
fn a_violation_is_a_sample_that_breaks_it() {
    let invariants = infer(Point::Exit, &pages(), &Support::default());
    let generated: Sample = [
        ("items".to_owned(), int(0)),
        ("per_page".to_owned(), int(1)),
        ("return".to_owned(), int(1)),
    ]
    .into_iter()
    .collect();
    let broken: Vec<String> = invariants
        .iter()
        .filter(|i| i.property.holds(&generated) == Some(false))
        .map(|i| format!("{} ({})", i.property, i.property.values_in(&generated)))
        .collect();
    assert_eq!(broken, ["items >= return (items = 0, return = 1)"]);
    // Absent variables are not checked.
    assert_eq!(invariants[1].property.holds(&generated), None);
}

#[test]
fn a_thin_suite_gives_nothing() {
    let mut thin = pages();
    thin.samples.truncate(3);
    assert!(infer(Point::Exit, &thin, &Support::default()).is_empty());
    // Two distinct values are a set of values, not enough for an ordering.
    let repeated: Vec<Vec<(&str, Variable)>> = (0..10)
        .map(|i| vec![("a", int(i % 2)), ("b", int(5 + i % 2))])
        .collect();
    let refs: Vec<&[(&str, Variable)]> = repeated.iter().map(|r| r.as_slice()).collect();
    assert_eq!(
        rendered(&infer(Point::Entry, &point(&refs), &Support::default())),
        ["entry: a in {0, 1}", "entry: b in {5, 6}"]
    );
}

#[test]
fn invariants_split_on_the_functions_own_branch_sides() {
    // `is_rectilinear`: True exactly when the invocation took the `b == 0` side.
    const B_ZERO: ProfileSide = (4, Some(7), 4, Some(13), true);
    const B_NOT_ZERO: ProfileSide = (4, Some(7), 4, Some(13), false);
    let mut exit = ProgramPoint {
        complete: true,
        ..ProgramPoint::default()
    };
    for i in 0..12 {
        let zero = i % 2 == 0;
        let sample: Sample = [
            ("b".to_owned(), int(if zero { 0 } else { i })),
            ("return".to_owned(), Variable::Bool(zero)),
        ]
        .into_iter()
        .collect();
        exit.samples.push(sample);
        exit.tests.push(Some(format!("tests/t.py::test_{i}")));
        exit.sides
            .push(vec![if zero { B_ZERO } else { B_NOT_ZERO }]);
    }
    exit.calls = 12;
    let invariants = infer_function(&ProgramPoint::default(), &exit, &Support::default());
    let conditional: Vec<String> = invariants
        .iter()
        .filter(|i| i.condition.is_some())
        .map(Invariant::key)
        .collect();
    assert_eq!(
        conditional,
        [
            "exit: return == False when 4:7-4:13 is false",
            "exit: return == True when 4:7-4:13 is true"
        ]
    );
    let when_zero = invariants
        .iter()
        .find(|i| i.condition == Some(B_ZERO))
        .unwrap();
    assert_eq!(when_zero.samples, 6);
    // Checked only where the side was taken.
    assert!(when_zero.applies(&[B_ZERO]));
    assert!(!when_zero.applies(&[B_NOT_ZERO]));
}

#[test]
fn strings_give_their_case_digits_and_prefix_and_floats_their_finiteness() {
    let rows: Vec<Vec<(&str, Variable)>> = [
        "sku-001", "sku-017", "sku-230", "sku-999", "sku-5", "sku-12",
    ]
    .iter()
    .enumerate()
    .map(|(i, code)| {
        vec![
            ("return", Variable::Str((*code).to_owned())),
            ("return.price", Variable::Float(format!("{}.5", i + 1))),
        ]
    })
    .collect();
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    let invariants = infer(Point::Exit, &point(&refs), &Support::default());
    assert_eq!(
        rendered(&invariants),
        [
            "exit: return == return.lower()",
            "exit: return.startswith('sku-')",
            "exit: math.isfinite(return.price)",
            "exit: return.price > 0",
        ]
    );
    let generated: Sample = [
        ("return".to_owned(), Variable::Str("SKU-1".into())),
        ("return.price".to_owned(), Variable::Float("nan".into())),
    ]
    .into_iter()
    .collect();
    let broken: Vec<String> = invariants
        .iter()
        .filter(|i| i.property.holds(&generated) == Some(false))
        .map(|i| i.property.to_string())
        .collect();
    assert_eq!(
        broken,
        [
            "return == return.lower()",
            "return.startswith('sku-')",
            "math.isfinite(return.price)",
            "return.price > 0",
        ]
    );
}

#[test]
fn entries_give_constants_equalities_and_non_zero() {
    let rows: Vec<Vec<(&str, Variable)>> =
        [(-3, -3), (5, 5), (-8, -8), (2, 2), (9, 9), (-1, -1), (7, 7)]
            .iter()
            .map(|&(x, y)| {
                vec![
                    ("x", int(x)),
                    ("y", int(y)),
                    ("mode", Variable::Str("fast".into())),
                ]
            })
            .collect();
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    let invariants = infer(Point::Entry, &point(&refs), &Support::default());
    assert_eq!(
        rendered(&invariants),
        ["entry: mode == 'fast'", "entry: x == y"]
    );
    // Integers on both sides of zero over a narrow range, never zero: not by chance.
    let rows: Vec<Vec<(&str, Variable)>> = (0..40)
        .map(|i| vec![("d", int(if i % 2 == 0 { 1 + i % 3 } else { -1 - i % 3 }))])
        .collect();
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    assert_eq!(
        rendered(&infer(Point::Entry, &point(&refs), &Support::default())),
        ["entry: d != 0"]
    );
}

/// `clip(value)` as a suite calls it: 300 calls with values in range and one that clips a
/// negative value to 0. The call that clips is one distinct sample among repeated ones, and
/// it must break `return <= value`.
fn clip(with_negative: bool) -> ProgramPoint {
    let mut rows: Vec<Vec<(&str, Variable)>> = (0..6)
        .map(|v| vec![("value", int(v * 40)), ("return", int(v * 40))])
        .collect();
    if with_negative {
        rows.push(vec![("value", int(-20)), ("return", int(0))]);
    }
    let refs: Vec<&[(&str, Variable)]> = rows.iter().map(|r| r.as_slice()).collect();
    let mut p = point(&refs);
    p.counts = (0..rows.len())
        .map(|i| if i < 6 { 50 } else { 1 })
        .collect();
    p.calls = p.counts.iter().sum();
    p
}

#[test]
fn every_call_counts_and_one_distinct_sample_breaks_an_invariant() {
    let held = rendered(&infer(Point::Exit, &clip(false), &Support::default()));
    assert!(
        held.contains(&"exit: return == value".to_owned()),
        "{held:?}"
    );
    let invariants = infer(Point::Exit, &clip(true), &Support::default());
    let keys = rendered(&invariants);
    assert!(
        !keys
            .iter()
            .any(|k| k.contains("<= value") || k.contains("== value")),
        "{keys:?}"
    );
    // The support is counted in calls, not in distinct samples.
    let sign = invariants
        .iter()
        .find(|i| i.key() == "exit: return >= 0")
        .expect("return >= 0");
    assert_eq!(sign.samples, 301);
}

#[test]
fn a_point_with_samples_left_out_gives_no_invariant() {
    let mut p = clip(false);
    p.complete = false;
    assert_eq!(infer(Point::Exit, &p, &Support::default()), vec![]);
}

#[test]
fn an_invariant_of_a_sampled_point_counts_the_calls_read() {
    // The suite called `pages` 80,000 times; the agent read 2,000 of those calls.
    let mut exit = pages();
    exit.calls = 80_000;
    exit.read = Some(2_000);
    let invariants = infer(Point::Exit, &exit, &Support::default());
    assert!(!invariants.is_empty());
    assert!(invariants.iter().all(|i| i.calls == 2_000));
    exit.read = None;
    let unsampled = infer(Point::Exit, &exit, &Support::default());
    assert!(unsampled.iter().all(|i| i.calls == 80_000));
}
