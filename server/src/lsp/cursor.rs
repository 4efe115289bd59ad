//! Which function a position in a document is in, as `lacuna.rerun` re-runs it: the innermost
//! explored function whose definition holds the position, so that a position inside a
//! function nested in another re-runs the nested one when it is explored (through the call
//! of the function around it), and the function around it when it is not. Read from the
//! syntax layer's functions, never from the text.

use lacuna_analysis::explore::coverage::FunctionUnderTest;

/// The innermost of `functions` whose definition (decorators to last line) holds `offset`.
pub fn function_at<'a>(
    functions: &[&'a FunctionUnderTest],
    offset: u32,
) -> Option<&'a FunctionUnderTest> {
    functions
        .iter()
        .copied()
        .filter(|f| {
            let range = f.syntax.range.absolute(f.anchor);
            range.start <= offset && offset <= range.end
        })
        .min_by_key(|f| f.syntax.range.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use lacuna_analysis::config::Config;
    use lacuna_analysis::db::{Database, Workspace};
    use lacuna_analysis::generation;
    use lacuna_analysis::workspace::FileContents;

    const SOURCE: &str = "\
import functools


class Order:
    def __init__(self, items):
        self.items = items

    @functools.lru_cache
    def total(self, rate):
        if rate > 1:
            return 0
        return sum(self.items) * rate


def outer(x):
    def inner(y):
        if y:
            return 1
        return 2

    return inner(x) if x else 0


def factory(n):
    def add(y):
        if y > n:
            return y
        return n

    return add if n else None


def register(handlers, k):
    def handle(v):
        if v > k:
            return v
        return k

    if k:
        handlers.append(handle)


X = 1
";

    /// The qualified name `lacuna.rerun` picks at the first occurrence of `marker`, shifted by
    /// `by` bytes.
    fn at(marker: &str, by: u32) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shop.py");
        std::fs::write(&path, SOURCE).unwrap();
        let config = Config::discover(dir.path()).unwrap();
        let mut workspace = Workspace::new(Database::default(), config);
        let file = workspace.file(&path, FileContents::Text(SOURCE.into()));
        let (targets, _) = generation::targets(&workspace.db, &[file]);
        let functions: Vec<&FunctionUnderTest> = targets.iter().map(|t| &t.under_test).collect();
        let offset = SOURCE.find(marker).unwrap() as u32 + by;
        function_at(&functions, offset).map(|f| f.qualname.clone())
    }

    #[test]
    fn a_position_names_the_innermost_explored_function_around_it() {
        assert_eq!(
            at("return 0\n        return sum", 3).as_deref(),
            Some("Order.total")
        );
        assert_eq!(
            at("@functools.lru_cache", 1).as_deref(),
            Some("Order.total")
        );
        // Nested and called by the function around it: explored on its own, through it.
        assert_eq!(at("return 1", 0).as_deref(), Some("outer.<locals>.inner"));
        assert_eq!(at("return inner", 0).as_deref(), Some("outer"));
        // Nested and returned: explored as what a call of the function around it returns.
        assert_eq!(at("return y", 0).as_deref(), Some("factory.<locals>.add"));
        // Nested and passed on: not explored, so the function around it.
        assert_eq!(at("return v", 0).as_deref(), Some("register"));
        assert_eq!(at("X = 1", 0), None);
        assert_eq!(at("import functools", 0), None);
    }
}
