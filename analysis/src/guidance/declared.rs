//! The guidance module as its text declares it, read once through the syntax layer's outline
//! and without importing it: the calls it mocks (`@mock("os.path.exists")`, any decorator
//! named `mock` with one string), the factories it declares (`@factory`), the behaviours it
//! accepts (`accepted("m:f", "invariant")` statements) and the names it binds. The editor's
//! offers, hovers and edits, the staleness rule and the suspicious-assertion filter all read
//! this one value; the generator reads the same declarations through the agent, which imports
//! the module and sees what these decorators set.

use lacuna_grammar::{Outline, OutlineFunction, outline};
use std::collections::BTreeSet;

/// A guidance module's declarations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declared {
    pub outline: Outline,
}

impl Declared {
    /// Reads a guidance module's text (empty text: no declarations).
    pub fn read(text: &str) -> Declared {
        Declared {
            outline: outline(text),
        }
    }

    /// Every mock declaration: the call it mocks, and the function declaring it.
    pub fn mocks(&self) -> impl Iterator<Item = (&str, &OutlineFunction)> {
        self.outline
            .functions
            .iter()
            .filter_map(|f| match declaration(f)? {
                Declaration::Mock(target) => Some((target, f)),
                Declaration::Factory => None,
            })
    }

    /// Whether `callee` (`os.path.exists`) is mocked.
    pub fn mocks_call(&self, callee: &str) -> bool {
        self.mocks().any(|(target, _)| target.trim() == callee)
    }

    /// The functions marked `@factory`.
    pub fn factories(&self) -> impl Iterator<Item = &OutlineFunction> {
        self.outline
            .functions
            .iter()
            .filter(|f| declaration(f) == Some(Declaration::Factory))
    }

    /// The factory of `class` (its qualname, `Stack` or `shop.Stack`): the function named
    /// `conventional` (what the code action writes), or a `@factory` whose return annotation
    /// names the class (`-> Stack`, `-> "shop.Stack"`).
    pub fn factory_of(&self, class: &str, conventional: &str) -> Option<&OutlineFunction> {
        let short = last_segment(class);
        self.outline
            .functions
            .iter()
            .find(|f| f.name == conventional)
            .or_else(|| {
                self.factories().find(|f| {
                    f.returns
                        .as_deref()
                        .is_some_and(|r| last_segment(r.trim()) == short)
                })
            })
    }

    /// The behaviours accepted: each `accepted("module:qualname", "invariant")` statement.
    pub fn accepted(&self) -> BTreeSet<(String, String)> {
        self.outline
            .calls
            .iter()
            .filter(|c| last_segment(&c.callee) == "accepted")
            .filter_map(|c| match c.strings.as_deref() {
                Some([function, invariant]) => Some((function.clone(), invariant.clone())),
                _ => None,
            })
            .collect()
    }

    /// Whether the module binds `name` at its top level (a `def`, a `class`, an import).
    pub fn defines(&self, name: &str) -> bool {
        self.outline.binds(name)
    }
}

/// What a top-level function of the guidance module declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declaration<'a> {
    /// `@mock("os.path.exists")`: the call whose return value generated tests choose.
    Mock(&'a str),
    /// `@factory`: builds the class its return annotation names.
    Factory,
}

/// What `f` declares, if anything: its first decorator named `mock` (with one string) or
/// `factory`, whatever module the decorator comes from.
pub fn declaration(f: &OutlineFunction) -> Option<Declaration<'_>> {
    f.decorators
        .iter()
        .find_map(|d| match (d.last_name(), d.strings.as_slice()) {
            ("mock", [target]) => Some(Declaration::Mock(target)),
            ("factory", []) => Some(Declaration::Factory),
            _ => None,
        })
}

/// `Stack` of `shop.Stack`, `exists` of `os.path.exists`, `Order` of `shop.orders:Order`.
pub fn last_segment(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mocks_are_read_however_they_are_written() {
        let d = Declared::read(
            "import lacuna\n\n@lacuna.mock( 'os.path.exists' )\ndef e(*a, **k) -> bool: ...\n\n@mock(\"time.\" \"time\")\ndef t(): ...\n\n@mock(f\"{x}\")\ndef dynamic(): ...\n\n# @mock(\"os.remove\")\n\ndef plain(): ...\n",
        );
        assert!(d.mocks_call("os.path.exists"));
        assert!(d.mocks_call("time.time"));
        // A comment, a dynamic target or a function without the decorator declares nothing.
        assert!(!d.mocks_call("os.remove"));
        assert_eq!(d.mocks().count(), 2);
    }

    #[test]
    fn factories_are_found_by_name_or_by_what_they_build() {
        let d = Declared::read(
            "@factory\ndef full(n: int) -> \"shop.Stack\":\n    return Stack()\n\n\ndef make_queue():\n    pass\n\n\ndef other() -> Stack:\n    pass\n",
        );
        assert_eq!(
            d.factory_of("Stack", "make_stack").map(|f| f.name.as_str()),
            Some("full")
        );
        assert_eq!(
            d.factory_of("Queue", "make_queue").map(|f| f.name.as_str()),
            Some("make_queue")
        );
        assert!(d.factory_of("Heap", "make_heap").is_none());
    }

    #[test]
    fn accepted_behaviours_are_statements_with_two_strings() {
        let d = Declared::read(
            "def accepted(function, invariant):\n    pass\n\naccepted(\"shop:pages\", \"items >= return\")  # intended\naccepted('shop:total',\n         'return != \\'\\'')\naccepted(name, \"x\")\n",
        );
        let expected: BTreeSet<(String, String)> = [
            ("shop:pages", "items >= return"),
            ("shop:total", "return != ''"),
        ]
        .iter()
        .map(|(f, i)| ((*f).to_owned(), (*i).to_owned()))
        .collect();
        assert_eq!(d.accepted(), expected);
        assert!(d.defines("accepted") && !d.defines("mock"));
    }
}
