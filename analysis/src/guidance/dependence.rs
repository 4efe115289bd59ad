//! Which explorations a change of the guidance module makes stale. An exploration depends on
//! the declarations of the calls it made and of the classes it built inputs of — its
//! *subjects*, by their last dotted name (`exists` for `os.path.exists`, `Order` for
//! `shop.orders:Order`): a mock of a call it never reached, or a factory of a class none of
//! its inputs holds, cannot change what it finds. A new mock of a call that blocked it, or a
//! new factory of the class it could not build, does: both are subjects already.
//!
//! Declarations are read from the module's text, so that the language server can decide
//! without importing it: each `@mock("…")` and `@factory` function by its subject, with the
//! hash of its tokens, and the module's other functions and classes (helpers a factory may
//! call) as one more hash. Imports and comments are left out: adding a declaration adds an
//! import, and that must not make every exploration stale.

use super::declared::{Declaration, Declared, declaration, last_segment};
use crate::explore::exploration::Exploration;
use crate::explore::shape::Shape;
use crate::explore::signature::{Guidance, Signature};
use lacuna_grammar::ids::fnv1a;
use std::collections::{BTreeMap, BTreeSet};

/// The last dotted (or `module:qualname`) segment of a call's or class's name.
fn subject(name: &str) -> &str {
    last_segment(name.trim())
}

/// The guidance module's declarations, by subject, as far as a change to them matters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declarations {
    by_subject: BTreeMap<String, Vec<u64>>,
    /// Every other function and class of the module.
    rest: u64,
}

impl Declarations {
    /// Reads the declarations of a guidance module's text (empty text: none).
    pub fn parse(text: &str) -> Declarations {
        Declarations::of(&Declared::read(text))
    }

    /// The declarations of the project's guidance module as its file on disk has them (none
    /// when there is no such file).
    pub fn read(guidance: &std::path::Path) -> Declarations {
        Declarations::parse(&std::fs::read_to_string(guidance).unwrap_or_default())
    }

    /// The declarations of a guidance module already read.
    pub fn of(declared: &Declared) -> Declarations {
        let mut by_subject: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        let mut rest = vec![];
        for f in &declared.outline.functions {
            let subject_name = match declaration(f) {
                Some(Declaration::Mock(target)) => Some(target),
                Some(Declaration::Factory) => f.returns.as_deref(),
                None => None,
            };
            match subject_name {
                Some(name) => by_subject
                    .entry(subject(name).to_owned())
                    .or_default()
                    .push(f.hash),
                None => rest.push(f.hash),
            }
        }
        rest.extend(declared.outline.classes.iter().map(|c| c.hash));
        for hashes in by_subject.values_mut() {
            hashes.sort_unstable();
        }
        rest.sort_unstable();
        let rest = fnv1a(format!("{rest:?}").as_bytes());
        Declarations { by_subject, rest }
    }

    /// What the declarations of `subjects` are now, as one number: it changes when a
    /// declaration of one of them is added, removed or edited, or a helper is (when any of
    /// them is declared). Zero when none is declared.
    pub fn key<'a>(&self, subjects: impl IntoIterator<Item = &'a String>) -> u64 {
        let declared: Vec<(&String, &Vec<u64>)> = subjects
            .into_iter()
            .filter_map(|s| self.by_subject.get_key_value(s.as_str()))
            .collect();
        if declared.is_empty() {
            return 0;
        }
        fnv1a(format!("{declared:?}|{}", self.rest).as_bytes())
    }

    /// The key of an exploration with these subjects; with none (one that failed before it
    /// could say what it depends on), the key of every declaration.
    pub fn key_of(&self, subjects: Option<&[String]>) -> u64 {
        match subjects {
            Some(subjects) => self.key(subjects),
            None => self.key(self.by_subject.keys()),
        }
    }
}

/// The subjects of an exploration: every call it saw leave the project, and every class of
/// the inputs it could build — through the parameters' and the receiver's shapes, the
/// factories of those classes and what the mocks it called return.
pub fn subjects(signature: &Signature, e: &Exploration) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut classes = Walk {
        guidance: &signature.guidance,
        seen: BTreeSet::new(),
    };
    for call in &e.external_calls {
        out.insert(subject(&call.callee).to_owned());
    }
    for mock in &signature.guidance.mocks {
        if out.contains(subject(&mock.target)) {
            classes.shape(&mock.returns);
        }
    }
    for (_, shape) in signature.params.iter().chain(signature.varargs.iter()) {
        classes.shape(shape);
    }
    if let Some(receiver) = &signature.receiver {
        classes.shape(&Shape::Object(receiver.clone()));
    }
    out.extend(classes.seen.iter().map(|c| subject(c).to_owned()));
    out
}

/// The classes a shape can build, with those of their factories' parameters.
struct Walk<'a> {
    guidance: &'a Guidance,
    seen: BTreeSet<String>,
}

impl Walk<'_> {
    fn class(&mut self, class: &str) -> bool {
        if !self.seen.insert(class.to_owned()) {
            return false;
        }
        if let Some(factory) = self.guidance.factory_for(class) {
            for (_, shape) in &factory.params {
                self.shape(shape);
            }
        }
        true
    }

    fn shape(&mut self, shape: &Shape) {
        match shape {
            Shape::Object(o) => {
                if self.class(&o.class) {
                    for (_, s) in &o.init {
                        self.shape(s);
                    }
                    for (_, params) in &o.methods {
                        for (_, s) in params {
                            self.shape(s);
                        }
                    }
                }
            }
            Shape::Enum { class, .. } => {
                self.class(class);
            }
            Shape::Class(classes) => {
                for class in classes {
                    self.class(class);
                }
            }
            Shape::Callable { returns, .. } | Shape::Optional(returns) => self.shape(returns),
            Shape::List(s)
            | Shape::Set(s)
            | Shape::Iterator(s)
            | Shape::AsyncIterator(s)
            | Shape::TupleOf(s) => self.shape(s),
            Shape::Dict(k, v) => {
                self.shape(k);
                self.shape(v);
            }
            Shape::Union(shapes) | Shape::Tuple(shapes) => {
                for s in shapes {
                    self.shape(s);
                }
            }
            Shape::Int
            | Shape::Bool
            | Shape::Str
            | Shape::Float
            | Shape::None
            | Shape::Bytes
            | Shape::Any
            | Shape::Literal(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "def mock(target):\n    def mark(f):\n        return f\n    return mark\n\n\ndef factory(f):\n    return f\n";

    fn key(text: &str, subjects: &[&str]) -> u64 {
        let subjects: Vec<String> = subjects.iter().map(|s| (*s).to_owned()).collect();
        Declarations::parse(text).key(&subjects)
    }

    #[test]
    fn a_new_mock_touches_only_the_callers_of_its_call() {
        let before = format!("{HEADER}\nimport os\n");
        let after = format!(
            "{HEADER}\nimport os\nimport json\n\n@mock(\"os.path.exists\")\ndef os_path_exists(*args, **kwargs) -> bool:\n    \"\"\"…\"\"\"\n"
        );
        assert_eq!(key(&before, &["load", "Order"]), 0);
        assert_eq!(key(&after, &["load", "Order"]), 0);
        assert_ne!(key(&after, &["exists"]), key(&before, &["exists"]));
    }

    #[test]
    fn a_factory_is_its_class_and_its_helpers_matter_to_it() {
        let factory = "\n@factory\ndef make_order(customer, lines=()) -> \"shop.orders.Order\":\n    return build(customer, lines)\n";
        let helper = "\ndef build(customer, lines):\n    return None\n";
        let one = format!("{HEADER}{factory}{helper}");
        let edited_helper = format!("{HEADER}{factory}{}", helper.replace("None", "0"));
        let laid_out = format!("{HEADER}\n# the order factory\n{factory}\n\n{helper}");
        assert_ne!(key(&one, &["Order"]), 0);
        assert_ne!(key(&one, &["Order"]), key(&edited_helper, &["Order"]));
        assert_eq!(key(&one, &["Order"]), key(&laid_out, &["Order"]));
        assert_eq!(key(&one, &["Stock"]), 0);
    }
}
