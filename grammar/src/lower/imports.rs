//! Imports: which module or name each local name of an `import` statement refers to.

use super::source::{Source, named_children, range};
use crate::ids::FunctionId;
use crate::syntax::Import;
use tree_sitter::Node;

pub(super) fn imports(source: &Source<'_>, node: Node<'_>, scope: &FunctionId) -> Vec<Import> {
    let mut out = vec![];
    let mut push = |local: String, target: String, wildcard: bool| {
        out.push(Import {
            local,
            target,
            wildcard,
            range: range(node),
            scope: scope.clone(),
        });
    };
    match node.kind() {
        "import_statement" => {
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind() {
                    "dotted_name" => {
                        // `import os.path` binds `os`.
                        let dotted = source.text(name);
                        let head = dotted.split('.').next().unwrap_or(dotted).trim();
                        push(head.to_owned(), head.to_owned(), false);
                    }
                    "aliased_import" => {
                        if let (Some(n), Some(a)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) {
                            push(source.text(a).to_owned(), dotted(source, n), false);
                        }
                    }
                    _ => {}
                }
            }
        }
        "import_from_statement" => {
            let Some(module) = node.child_by_field_name("module_name") else {
                return out;
            };
            let module = dotted(source, module);
            let join = |name: &str| {
                if module.ends_with('.') {
                    format!("{module}{name}")
                } else {
                    format!("{module}.{name}")
                }
            };
            if named_children(node)
                .iter()
                .any(|c| c.kind() == "wildcard_import")
            {
                push("*".to_owned(), module.clone(), true);
            }
            let mut cursor = node.walk();
            for name in node.children_by_field_name("name", &mut cursor) {
                match name.kind() {
                    "dotted_name" => {
                        let n = dotted(source, name);
                        push(n.clone(), join(&n), false);
                    }
                    "aliased_import" => {
                        if let (Some(n), Some(a)) = (
                            name.child_by_field_name("name"),
                            name.child_by_field_name("alias"),
                        ) {
                            push(source.text(a).to_owned(), join(&dotted(source, n)), false);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// A dotted name or relative import without inner whitespace: `a . b` → `a.b`, `..pkg`.
fn dotted(source: &Source<'_>, node: Node<'_>) -> String {
    source
        .text(node)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\\')
        .collect()
}
