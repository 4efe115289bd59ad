use super::*;
use lacuna_grammar::LineIndex;
use std::sync::Arc;

pub(crate) fn function(text: &str, name: &str) -> FunctionUnderTest {
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
        call: Default::default(),
        file: "m.py".into(),
        syntax: function.syntax.clone(),
        anchor: function.anchor,
        lines: Arc::new(LineIndex::new(text)),
        tables: vec![],
        text: Arc::from(text),
        file_syntax: Arc::new(lacuna_grammar::parse(text)),
        seeds: Arc::new(lacuna_grammar::seeds(text).function(&function.id)),
        flow: Arc::new(lacuna_grammar::flow(text)),
    }
}

fn decision_at(f: &FunctionUnderTest, needle: &str) -> usize {
    f.syntax
        .decisions
        .iter()
        .position(|d| {
            let r = d.range.absolute(f.anchor);
            f.text[r.start as usize..r.end as usize].contains(needle)
        })
        .expect("a decision with that text")
}

const CACHE: &str = r#"
import time

class Cache:
    def purge(self, grace: float) -> int:
        now = time.monotonic() - grace  # "now" in a comment = self.x
        expired = [k for k, (at, _) in self._entries.items() if at <= now]
        for key in expired:
            del self._entries[key]
        total = self._hits + self._misses
        if total == 0:
            return 0
        if expired:
            return len(expired)
        label = "expired = self.nope"
        if label:
            return 1
        return 0
"#;

#[test]
fn follows_assignments_back_to_fields_parameters_and_calls() {
    let f = function(CACHE, "purge");
    let s = sources(&f, decision_at(&f, "total == 0"));
    assert_eq!(
        s.fields,
        vec![
            ("self".to_owned(), "_hits".to_owned()),
            ("self".to_owned(), "_misses".to_owned())
        ]
    );
    assert!(s.params.is_empty());
    assert_eq!(s.spans, vec![(10, 10), (9, 9)]);

    let s = sources(&f, decision_at(&f, "expired"));
    assert_eq!(s.fields, vec![("self".to_owned(), "_entries".to_owned())]);
    assert_eq!(s.params, vec!["grace".to_owned()]);
    // The comprehension, then `now = time.monotonic() - grace`.
    assert!(
        s.spans.contains(&(6, 6)) && s.spans.contains(&(5, 5)),
        "{s:?}"
    );

    // Names in strings and comments are not reads.
    let s = sources(&f, decision_at(&f, "label"));
    assert!(s.fields.is_empty(), "{s:?}");
    assert_eq!(s.spans, vec![(15, 15), (14, 14)]);
}

#[test]
fn comprehension_conditions_read_their_iteration() {
    let f = function(CACHE, "purge");
    let s = sources(&f, decision_at(&f, "at <= now"));
    assert_eq!(s.fields, vec![("self".to_owned(), "_entries".to_owned())]);
    assert!(s.spans.contains(&(5, 5)), "{s:?}");
}

#[test]
fn changes_through_methods_and_augmented_assignments_count() {
    let text = r#"
import os

def current(extra: dict) -> bool:
    settings = {"debug": False}
    settings.update(extra)
    count = 0
    count += len(os.environ)
    if settings["debug"] or count > 3:
        return True
    return False
"#;
    let f = function(text, "current");
    let s = sources(&f, 0);
    assert_eq!(s.params, vec!["extra".to_owned()]);
    assert!(s.spans.contains(&(7, 7)), "count += … is followed: {s:?}");
    assert!(
        s.spans.contains(&(5, 5)),
        "settings.update is followed: {s:?}"
    );
}

#[test]
fn rebinding_in_a_nested_block_does_not_hide_the_first_binding() {
    let text = r#"
def retry_budget(attempts: int) -> int:
    budget = attempts * 2
    if attempts > 10:
        budget = 20
    if budget > 20:
        budget = 20
    return budget
"#;
    let f = function(text, "retry_budget");
    let s = sources(&f, 1);
    assert_eq!(s.params, vec!["attempts".to_owned()]);
    assert_eq!(s.spans, vec![(5, 5), (4, 4), (2, 2)]);
}

#[test]
fn a_ternary_chooses_values_its_condition_does_not_flow_into() {
    let text = r#"
def priority(express: bool, boost: int) -> str:
    level = "high" if express else "normal"
    if express and boost > 3:
        level = "high"
    assert level in ("high", "normal")
    weight = boost * 2 if express else LIMIT
    if weight > 10:
        return level
    return "low"
"#;
    let f = function(text, "priority");
    let s = sources(&f, 2);
    assert!(s.params.is_empty(), "{s:?}");
    assert!(s.globals.is_empty(), "{s:?}");
    let s = sources(&f, 4);
    assert_eq!(s.params, vec!["boost".to_owned()]);
    assert_eq!(s.globals, vec!["LIMIT".to_owned()]);
}

#[test]
fn a_module_global_the_function_only_mutates_stays_module_state() {
    let text = r#"
_PATTERNS = {}


def pattern(name: str) -> str:
    if not _PATTERNS:
        _PATTERNS["word"] = "w"
    _PATTERNS.setdefault(name, "")
    return _PATTERNS[name]


def local(name: str) -> str:
    table = {}
    if not table:
        table[name] = 1
    return name
"#;
    let s = sources(&function(text, "pattern"), 0);
    assert_eq!(s.globals, vec!["_PATTERNS".to_owned()], "{s:?}");
    let s = sources(&function(text, "local"), 0);
    assert!(s.globals.is_empty(), "{s:?}");
}

#[test]
fn fields_read_through_an_alias_of_the_receiver_are_its_fields() {
    let text = r#"
class Version:
    def next_version(self, part: str) -> str:
        version = self
        if version.prerelease and part == "patch":
            return "same"
        return "bumped"
"#;
    let s = sources(&function(text, "next_version"), 0);
    assert_eq!(
        s.fields,
        vec![("self".to_owned(), "prerelease".to_owned())],
        "{s:?}"
    );
    assert_eq!(s.params, vec!["part".to_owned()]);
}

#[test]
fn methods_of_the_receiver_read_their_fields() {
    let text = r#"
class Warehouse:
    def available(self, sku: str) -> int:
        return self._stock.get(sku, 0) - self.held(sku)

    def held(self, sku: str) -> int:
        return self._reserved.get(sku, 0)

    def reserve(self, sku: str, qty: int) -> None:
        if self.available(sku) < qty or self.name == "":
            raise ValueError(sku)
"#;
    let f = function(text, "reserve");
    let s = sources(&f, 0);
    let fields: Vec<&str> = s.fields.iter().map(|(_, a)| a.as_str()).collect();
    assert_eq!(fields, vec!["name", "_stock", "_reserved"]);
    assert_eq!(s.params, vec!["sku".to_owned(), "qty".to_owned()]);
}
