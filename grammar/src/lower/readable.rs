//! What a proof can read of values and conditions, from the tree: an arithmetic value over
//! numbers and names ([`Arithmetic`]), a number literal's value, a condition's [`Test`] (a
//! name's truth, or names and numbers compared).

use super::source::{Source, named_children, range};
use crate::flow::{Arithmetic, CompareOp, Operand, Test};
use crate::text::TextRange;
use tree_sitter::Node;

/// The arithmetic value `node` is, when it is one ([`Arithmetic`]).
pub(super) fn arithmetic(source: &Source<'_>, node: Node<'_>) -> Option<Arithmetic> {
    let mut out = Arithmetic {
        literal: number_literal(source, node),
        ..Arithmetic::default()
    };
    let mut work = vec![node];
    while let Some(node) = work.pop() {
        let text = source.text(node);
        match node.kind() {
            "integer" if !text.ends_with(['j', 'J']) => {}
            "float" if !text.ends_with(['j', 'J']) => {
                number(text)?;
                out.float = true;
            }
            "true" | "false" => {}
            "identifier" => out.names.push(text.into()),
            "parenthesized_expression" => work.extend(named_children(node)),
            "unary_operator" => {
                let operator = node.child_by_field_name("operator")?;
                if !matches!(source.text(operator), "-" | "+") {
                    return None;
                }
                work.push(node.child_by_field_name("argument")?);
            }
            "binary_operator" => {
                match source.text(node.child_by_field_name("operator")?) {
                    "+" | "-" | "*" | "%" | "//" => {}
                    "/" | "**" => out.float = true,
                    _ => return None,
                }
                work.push(node.child_by_field_name("right")?);
                work.push(node.child_by_field_name("left")?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The value of a number literal (`10`, `2.5`, `1_000`), optionally negated, or of `True` and
/// `False`.
fn number_literal(source: &Source<'_>, node: Node<'_>) -> Option<f64> {
    match node.kind() {
        "true" => Some(1.0),
        "false" => Some(0.0),
        "integer" | "float" => number(source.text(node)),
        "unary_operator" => {
            let argument = node.child_by_field_name("argument")?;
            if !matches!(argument.kind(), "integer" | "float") {
                return None;
            }
            let x = number(source.text(argument))?;
            match source.text(node.child_by_field_name("operator")?) {
                "-" => Some(-x),
                "+" => Some(x),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A decimal literal's finite value.
fn number(text: &str) -> Option<f64> {
    text.replace('_', "")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// The test a proof can read of the condition at `leaf` ([`Test`]), when it is one: `node` is
/// the smallest node spanning it (of a link of a chained comparison, `b <= c` of `a < b <= c`,
/// the whole chain).
pub(super) fn test(source: &Source<'_>, node: Node<'_>, leaf: TextRange) -> Option<Test> {
    let node = unparenthesized(node);
    let within = |n: &Node<'_>| leaf.contains_range(range(*n));
    match node.kind() {
        "identifier" => Some(Test::Truth(source.text(node).into())),
        "comparison_operator" => {
            let operands: Vec<Node<'_>> = named_children(node).into_iter().filter(within).collect();
            let [left, right] = operands.as_slice() else {
                return None;
            };
            let mut cursor = node.walk();
            let operators: Vec<Node<'_>> = node
                .children_by_field_name("operators", &mut cursor)
                .filter(within)
                .collect();
            let [operator] = operators.as_slice() else {
                return None;
            };
            let op = match source.text(*operator) {
                "<" => CompareOp::Lt,
                "<=" => CompareOp::Le,
                "==" => CompareOp::Eq,
                "!=" => CompareOp::Ne,
                ">" => CompareOp::Gt,
                ">=" => CompareOp::Ge,
                _ => return None,
            };
            let operand = |n: Node<'_>| {
                let n = unparenthesized(n);
                match n.kind() {
                    "identifier" => Some(Operand::Name(source.text(n).into())),
                    "integer" | "float" | "unary_operator" => {
                        number_literal(source, n).map(Operand::Number)
                    }
                    _ => None,
                }
            };
            Some(Test::Compare {
                left: operand(*left)?,
                op,
                right: operand(*right)?,
            })
        }
        _ => None,
    }
}

/// `node` without the parentheses around it.
pub(super) fn unparenthesized(mut node: Node<'_>) -> Node<'_> {
    while node.kind() == "parenthesized_expression" {
        match named_children(node).as_slice() {
            [inner] => node = *inner,
            _ => break,
        }
    }
    node
}
