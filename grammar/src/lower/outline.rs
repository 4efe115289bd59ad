//! A module's outline: its top-level statements as declarations — functions with their
//! decorators (string arguments decoded), parameter lists and closing `return`, classes, calls
//! made as statements, imports and the docstring. What code that reads or edits a module of
//! declarations (the guidance module) needs, without the decisions and call graph of a full
//! lowering, and without scanning its text.

use super::PARSER;
use super::edits::lone_cr_as_newline;
use super::imports::imports;
use super::source::dotted_name;
use super::source::{Source, Visit, collapse_whitespace, named_children, range, walk};
use crate::ids::FunctionId;
use crate::syntax::Import;
use crate::text::TextRange;
use tree_sitter::Node;

/// The top-level statements of a module, as declarations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outline {
    /// Where a leading docstring ends, its line break included; 0 without one.
    pub docstring_end: u32,
    pub functions: Vec<OutlineFunction>,
    pub classes: Vec<OutlineClass>,
    /// Calls made as statements (`accepted("m:f", "x > 0")`).
    pub calls: Vec<OutlineCall>,
    /// The names top-level imports bind.
    pub imports: Vec<Import>,
    /// `from m import a, b` statements, with where a further name goes.
    pub from_imports: Vec<FromImport>,
}

/// A top-level `def`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineFunction {
    pub name: String,
    pub name_range: TextRange,
    /// The whole definition, decorators included.
    pub range: TextRange,
    /// FNV-1a hash of its tokens (comments and layout ignored), as the lowering's `text_hash`.
    pub hash: u64,
    pub decorators: Vec<OutlineDecorator>,
    /// The return annotation: a string annotation's value (`"shop.Stack"` → `shop.Stack`),
    /// otherwise its text with whitespace collapsed.
    pub returns: Option<String>,
    /// Between the parameter list's parentheses.
    pub params: TextRange,
    /// Whether a parameter is `*args`, `**kwargs` or the bare `*`.
    pub star_params: bool,
    /// Just after the last parameter, or its trailing comma; none without parameters.
    pub last_param_end: Option<u32>,
    /// Whether the parameter list ends with a comma.
    pub params_comma: bool,
    /// Every callee its body calls by a dotted name (`stack.push`, `len`).
    pub calls: Vec<String>,
    /// Its body's last statement when that is `return <name>`.
    pub final_return: Option<FinalReturn>,
}

/// A decorator: its dotted name, and the decoded values of its positional arguments when it is
/// a call whose positional arguments are all plain string literals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineDecorator {
    /// `mock` for `@mock("x")`, `lacuna.mock` for `@lacuna.mock("x")`; the collapsed text when
    /// the decorator is not a (called) dotted name.
    pub name: String,
    pub strings: Vec<String>,
}

impl OutlineDecorator {
    /// The last segment of its name (`mock` for `lacuna.mock`).
    pub fn last_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
}

/// `return <name>` closing a function body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalReturn {
    pub variable: String,
    /// The start of its line.
    pub line_start: u32,
    /// The whitespace before it.
    pub indent: String,
}

/// A top-level `class`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineClass {
    pub name: String,
    pub range: TextRange,
    pub hash: u64,
}

/// A call made as a top-level statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineCall {
    /// The callee's dotted name.
    pub callee: String,
    /// Its positional arguments' values when every argument is a plain string literal.
    pub strings: Option<Vec<String>>,
    pub range: TextRange,
}

/// `from module import a, b`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FromImport {
    /// As written, without whitespace (`..pkg`, `shop.orders`).
    pub module: String,
    /// The imported names (not their aliases).
    pub names: Vec<String>,
    /// Just after the last imported name: where `, c` adds one more.
    pub names_end: u32,
}

impl Outline {
    /// The top-level function `name`.
    pub fn function(&self, name: &str) -> Option<&OutlineFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// Whether the module binds `name` at the top level by a `def`, a `class` or an import.
    pub fn binds(&self, name: &str) -> bool {
        self.functions.iter().any(|f| f.name == name)
            || self.classes.iter().any(|c| c.name == name)
            || self.imports.iter().any(|i| i.local == name)
    }
}

/// Reads the outline of a module's text. Never fails: statements that do not parse are left
/// out.
pub fn outline(text: &str) -> Outline {
    let normalised = lone_cr_as_newline(text);
    let text: &str = &normalised;
    let Some(tree) = PARSER.with(|p| p.borrow_mut().parse(text, None)) else {
        return Outline::default();
    };
    let source = Source { text };
    let module_scope = FunctionId::new("<module>");
    let mut out = Outline::default();
    for (index, statement) in named_children(tree.root_node()).into_iter().enumerate() {
        match statement.kind() {
            "expression_statement" => {
                let Some(expression) = named_children(statement).into_iter().next() else {
                    continue;
                };
                if index == 0 && string_value(&source, expression).is_some() {
                    let end = statement.end_byte();
                    let newline = text[end..].starts_with('\n');
                    out.docstring_end = (end + usize::from(newline)) as u32;
                } else if expression.kind() == "call"
                    && let Some(callee) = expression
                        .child_by_field_name("function")
                        .and_then(|f| dotted_name(&source, f))
                {
                    out.calls.push(OutlineCall {
                        callee,
                        strings: expression
                            .child_by_field_name("arguments")
                            .and_then(|a| string_arguments(&source, a)),
                        range: range(statement),
                    });
                }
            }
            "import_statement" | "import_from_statement" => {
                out.imports
                    .extend(imports(&source, statement, &module_scope));
                if let Some(from) = from_import(&source, statement) {
                    out.from_imports.push(from);
                }
            }
            "function_definition" | "class_definition" | "decorated_definition" => {
                definition(&source, statement, &mut out);
            }
            _ => {}
        }
    }
    out
}

fn definition(source: &Source<'_>, outer: Node<'_>, out: &mut Outline) {
    let node = match outer.kind() {
        "decorated_definition" => match outer.child_by_field_name("definition") {
            Some(d) => d,
            None => return,
        },
        _ => outer,
    };
    let Some(name_node) = node.child_by_field_name("name") else {
        return;
    };
    let name = source.text(name_node).to_owned();
    let hash = source.token_hash(outer, &|_| false);
    if node.kind() == "class_definition" {
        out.classes.push(OutlineClass {
            name,
            range: range(outer),
            hash,
        });
        return;
    }
    if node.kind() != "function_definition" {
        return;
    }
    let decorators = if outer.kind() == "decorated_definition" {
        named_children(outer)
            .into_iter()
            .filter(|c| c.kind() == "decorator")
            .filter_map(|d| named_children(d).into_iter().next())
            .map(|e| decorator(source, e))
            .collect()
    } else {
        vec![]
    };
    let returns = node.child_by_field_name("return_type").map(|t| {
        named_children(t)
            .into_iter()
            .next()
            .and_then(|e| string_value(source, e))
            .unwrap_or_else(|| source.collapsed(t))
    });
    let parameters = node.child_by_field_name("parameters");
    let params = parameters.map_or(TextRange::default(), |p| {
        // Inside the parentheses.
        TextRange::new(
            p.start_byte() as u32 + 1,
            (p.end_byte() as u32 - 1).max(p.start_byte() as u32 + 1),
        )
    });
    let star_params = parameters.is_some_and(|p| named_children(p).iter().any(|c| is_star(*c)));
    // The tokens between the parentheses, comments left out.
    let inside: Vec<Node<'_>> = parameters.map_or(vec![], |p| {
        let mut cursor = p.walk();
        let tokens: Vec<Node<'_>> = p.children(&mut cursor).filter(|c| !c.is_extra()).collect();
        tokens[1.min(tokens.len())..tokens.len().saturating_sub(1)].to_vec()
    });
    let last_param_end = inside.last().map(|t| t.end_byte() as u32);
    let params_comma = inside.last().is_some_and(|t| t.kind() == ",");
    let body = node.child_by_field_name("body");
    out.functions.push(OutlineFunction {
        name,
        name_range: range(name_node),
        range: range(outer),
        hash,
        decorators,
        returns,
        params,
        star_params,
        last_param_end,
        params_comma,
        calls: body.map(|b| calls(source, b)).unwrap_or_default(),
        final_return: body.and_then(|b| final_return(source, b)),
    });
}

fn decorator(source: &Source<'_>, expression: Node<'_>) -> OutlineDecorator {
    let (callee, arguments) = match expression.kind() {
        "call" => (
            expression.child_by_field_name("function"),
            expression.child_by_field_name("arguments"),
        ),
        _ => (Some(expression), None),
    };
    let name = callee
        .and_then(|c| dotted_name(source, c))
        .unwrap_or_else(|| source.collapsed(expression));
    let strings = arguments
        .and_then(|a| string_arguments(source, a))
        .unwrap_or_default();
    OutlineDecorator { name, strings }
}

/// `*args`, `**kwargs`, `*args: T` or the bare `*` of a parameter list.
fn is_star(parameter: Node<'_>) -> bool {
    match parameter.kind() {
        "list_splat_pattern" | "dictionary_splat_pattern" | "keyword_separator" => true,
        "typed_parameter" | "typed_default_parameter" => named_children(parameter)
            .first()
            .is_some_and(|c| matches!(c.kind(), "list_splat_pattern" | "dictionary_splat_pattern")),
        _ => false,
    }
}

/// The values of a call's arguments when all of them are positional plain string literals.
fn string_arguments(source: &Source<'_>, arguments: Node<'_>) -> Option<Vec<String>> {
    named_children(arguments)
        .into_iter()
        .map(|a| string_value(source, a))
        .collect()
}

/// Every callee called by a dotted name under `node`.
fn calls(source: &Source<'_>, node: Node<'_>) -> Vec<String> {
    struct Calls<'s, 'a> {
        source: &'s Source<'a>,
        out: Vec<String>,
    }
    impl Visit for Calls<'_, '_> {
        fn enter(&mut self, n: Node<'_>) -> bool {
            if n.kind() == "call"
                && let Some(callee) = n
                    .child_by_field_name("function")
                    .and_then(|f| dotted_name(self.source, f))
            {
                self.out.push(callee);
            }
            true
        }
    }
    let mut visitor = Calls {
        source,
        out: vec![],
    };
    walk(node, &mut visitor);
    visitor.out
}

fn final_return(source: &Source<'_>, body: Node<'_>) -> Option<FinalReturn> {
    let last = named_children(body).into_iter().last()?;
    if last.kind() != "return_statement" {
        return None;
    }
    let value = named_children(last).into_iter().next()?;
    if value.kind() != "identifier" {
        return None;
    }
    let start = last.start_byte();
    let line_start = start - last.start_position().column;
    Some(FinalReturn {
        variable: source.text(value).to_owned(),
        line_start: line_start as u32,
        indent: source.text[line_start..start].to_owned(),
    })
}

fn from_import(source: &Source<'_>, statement: Node<'_>) -> Option<FromImport> {
    if statement.kind() != "import_from_statement" {
        return None;
    }
    let module = statement.child_by_field_name("module_name")?;
    let mut cursor = statement.walk();
    let names: Vec<Node<'_>> = statement
        .children_by_field_name("name", &mut cursor)
        .collect();
    let last = names.last()?;
    Some(FromImport {
        module: collapse_whitespace(source.text(module)).replace(' ', ""),
        names: names
            .iter()
            .map(|n| {
                let n = n.child_by_field_name("name").unwrap_or(*n);
                collapse_whitespace(source.text(n)).replace(' ', "")
            })
            .collect(),
        names_end: last.end_byte() as u32,
    })
}

/// The value of a plain string literal (or of adjacent ones): prefixes `r`, `u` and none;
/// `None` for f-strings, bytes and anything else.
fn string_value(source: &Source<'_>, node: Node<'_>) -> Option<String> {
    match node.kind() {
        "concatenated_string" => named_children(node)
            .into_iter()
            .map(|part| string_value(source, part))
            .collect(),
        "string" => {
            let mut prefix = "";
            let mut content = String::new();
            for part in named_children(node) {
                match part.kind() {
                    "string_start" => {
                        let start = source.text(part);
                        prefix = &start[..start.find(['"', '\'']).unwrap_or(0)];
                        if prefix.contains(['f', 'F', 'b', 'B', 't', 'T']) {
                            return None;
                        }
                    }
                    "string_content" => content.push_str(source.text(part)),
                    "string_end" => {}
                    _ => return None,
                }
            }
            if prefix.contains(['r', 'R']) {
                Some(content)
            } else {
                super::literal::unescape(&content, false)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorators_give_their_dotted_name_and_decoded_string_arguments() {
        let text = "@lacuna.mock( 'os.path.exists' )\ndef a(*args): pass\n\n@mock(\"a\\x2eb\" \"\\\\c\")\ndef b(): pass\n\n@factory\ndef c(n, m,) -> \"shop.Stack\":\n    s = Stack(n)\n    s.push(m)\n    return s\n\n@mock(f\"{x}\")\ndef d(): pass\n";
        let o = outline(text);
        let decorators: Vec<(&str, Vec<String>)> = o
            .functions
            .iter()
            .flat_map(|f| {
                f.decorators
                    .iter()
                    .map(|d| (d.name.as_str(), d.strings.clone()))
            })
            .collect();
        assert_eq!(
            decorators,
            [
                ("lacuna.mock", vec!["os.path.exists".to_owned()]),
                ("mock", vec!["a.b\\c".to_owned()]),
                ("factory", vec![]),
                ("mock", vec![]),
            ]
        );
        let c = o.function("c").expect("c");
        assert_eq!(c.returns.as_deref(), Some("shop.Stack"));
        assert_eq!(
            &text[c.params.start as usize..c.params.end as usize],
            "n, m,"
        );
        assert!(c.params_comma && !c.star_params);
        assert_eq!(
            &text[..c.last_param_end.unwrap() as usize]
                .rsplit('(')
                .next(),
            &Some("n, m,")
        );
        assert_eq!(o.function("b").and_then(|b| b.last_param_end), None);
        assert!(o.function("a").is_some_and(|a| a.star_params));
        assert_eq!(c.calls, ["Stack", "s.push"]);
        let r = c.final_return.as_ref().expect("a final return");
        assert_eq!((r.variable.as_str(), r.indent.as_str()), ("s", "    "));
        assert_eq!(&text[r.line_start as usize..][..12], "    return s");
    }

    #[test]
    fn statements_calls_imports_and_the_docstring() {
        let text = "\"\"\"Doc.\"\"\"\nfrom shop import (Stack,\n    Queue as Q)\nimport os.path\n\naccepted(\"m:f\", 'x > 0')\naccepted(name, \"y\")\n\nclass K: pass\n";
        let o = outline(text);
        assert_eq!(o.docstring_end, 11);
        assert_eq!(
            o.calls
                .iter()
                .map(|c| (c.callee.as_str(), c.strings.clone()))
                .collect::<Vec<_>>(),
            [
                ("accepted", Some(vec!["m:f".to_owned(), "x > 0".to_owned()])),
                ("accepted", None),
            ]
        );
        let from = &o.from_imports[0];
        assert_eq!(
            (from.module.as_str(), from.names.clone()),
            ("shop", vec!["Stack".to_owned(), "Queue".to_owned()])
        );
        assert_eq!(
            &text[..from.names_end as usize].rsplit('\n').next(),
            &Some("    Queue as Q")
        );
        assert!(o.binds("Q") && o.binds("os") && o.binds("K") && !o.binds("Queue"));
    }

    #[test]
    fn a_function_hashes_as_the_lowering_does() {
        let text = "@mock(\"x\")\ndef f():\n    # a comment\n    return 1\n";
        let lowered = crate::parse(text);
        assert_eq!(
            outline(text).functions[0].hash,
            lowered.functions[1].syntax.text_hash
        );
    }
}
