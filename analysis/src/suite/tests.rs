use super::*;

fn point(samples: &[(i64, &str)]) -> ProgramPoint {
    ProgramPoint {
        calls: samples.len() as u64,
        samples: samples
            .iter()
            .map(|(v, _)| Sample::from([("x".to_owned(), Variable::Int(v.to_string()))]))
            .collect(),
        tests: samples.iter().map(|(_, t)| Some((*t).to_owned())).collect(),
        sides: vec![],
        counts: vec![],
        complete: true,
        read: None,
    }
}

fn function(name: &str, samples: &[(i64, &str)], profile: u64) -> FunctionObservations {
    FunctionObservations {
        function: name.into(),
        file: "m.py".into(),
        entry: point(samples),
        exit: point(samples),
        profiles: vec![Profile {
            sides: vec![(1, None, 1, None, true)],
            count: profile,
        }],
    }
}

fn values(p: &ProgramPoint) -> Vec<(String, Option<String>)> {
    p.samples
        .iter()
        .zip(&p.tests)
        .map(|(s, t)| (format!("{:?}", s["x"]), t.clone()))
        .collect()
}

#[test]
fn a_partial_run_replaces_what_the_tests_it_ran_again_showed() {
    let mut old = Observations {
        functions: vec![
            function("m:f", &[(1, "t::a"), (2, "t::b")], 2),
            function("m:g", &[(3, "t::a")], 1),
        ],
        sequences: vec![],
    };
    let newer = Observations {
        functions: vec![
            function("m:f", &[(9, "t::a")], 1),
            function("m:g", &[(8, "t::a")], 1),
        ],
        sequences: vec![],
    };
    old.merge_rerun(newer, |t| t == "t::a");
    // `f` was reached by a test not run again: its samples stay, the rerun's replace `t::a`'s.
    let f = &old.functions[0];
    assert_eq!(
        values(&f.entry),
        [
            ("Int(\"9\")".to_owned(), Some("t::a".to_owned())),
            ("Int(\"2\")".to_owned(), Some("t::b".to_owned()))
        ]
    );
    assert_eq!(f.entry.calls, 2);
    assert_eq!(
        f.entry.read_calls(),
        2,
        "calls read are merged as calls are"
    );
    assert_eq!(f.profiles[0].count, 3, "counts are upper bounds");
    // Every test of `g` ran again: it is replaced whole.
    assert_eq!(old.functions[1], function("m:g", &[(8, "t::a")], 1));
}
