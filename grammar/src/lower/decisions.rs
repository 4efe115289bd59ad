//! Decisions: recognises the places where control flow splits on a boolean and lowers their
//! tested expression to a [`BoolExpr`] over leaf conditions, with Python's evaluation order.
//!
//! `and`/`or`/`not` and parentheses are structure; a chained comparison `a < b < c` is the
//! conjunction of its links `a < b` and `b < c` (CPython short-circuits it the same way); `==`/`!=`
//! between two boolean operands is modelled at the root of a decision only. Everything else is a
//! leaf condition.

use super::literal;
use super::source::{Source, named_children, range, token_child};
use crate::decision::{BoolExpr, DecisionKind, FieldTest, MAX_CONDITIONS, Unmodelled};
use crate::text::TextRange;
use tree_sitter::Node;

/// Deepest `and`/`or`/`not` nesting lowered; deeper decisions are reported as unmodelled.
const MAX_DEPTH: usize = 200;

/// A decision found in the tree, before it is given IDs and attached to its function.
pub(super) struct FoundDecision {
    pub kind: DecisionKind,
    pub range: TextRange,
    pub keyword: TextRange,
    pub text: String,
    pub lowered: Result<Lowered, Unmodelled>,
    pub targets: [Option<TextRange>; 2],
}

pub(super) struct Lowered {
    pub expr: BoolExpr,
    /// The leaves, in evaluation order.
    pub conditions: Vec<Leaf>,
}

/// A leaf condition as found: its range, collapsed text, the branches CPython tests directly
/// (of a conditional expression), and the truth it has whatever the input (a literal).
pub(super) struct Leaf {
    pub range: TextRange,
    pub text: String,
    pub branches: Vec<TextRange>,
    pub literal: Option<bool>,
    pub field_test: Option<FieldTest>,
}

/// The decision `node` introduces, if any, given its tested expression. `structural` receives
/// the IDs of the `and`/`or`/`not`/parenthesis nodes that became structure, so that the walk does
/// not take them for boolean values in their own right.
pub(super) fn decision_of(
    source: &Source<'_>,
    node: Node<'_>,
    structural: &mut dyn FnMut(usize),
) -> Option<FoundDecision> {
    let (kind, test, keyword, targets) = match node.kind() {
        "if_statement" | "elif_clause" => {
            let kind = if node.kind() == "if_statement" {
                DecisionKind::If
            } else {
                DecisionKind::Elif
            };
            let test = node.child_by_field_name("condition")?;
            let keyword = node.child(0)?;
            let alternative = if kind == DecisionKind::If {
                let mut cursor = node.walk();
                node.children_by_field_name("alternative", &mut cursor)
                    .next()
            } else {
                node.next_named_sibling()
                    .filter(|n| matches!(n.kind(), "elif_clause" | "else_clause"))
            };
            let alternative = alternative.map(clause_target);
            let consequence = node.child_by_field_name("consequence").map(range);
            (kind, test, keyword, [consequence, alternative])
        }
        "while_statement" => {
            let test = node.child_by_field_name("condition")?;
            let body = node.child_by_field_name("body").map(range);
            let orelse = node.child_by_field_name("alternative").map(clause_target);
            (DecisionKind::While, test, node.child(0)?, [body, orelse])
        }
        "for_statement" => return for_loop(source, node),
        "conditional_expression" => {
            let parts = named_children(node);
            let [body, test, orelse] = parts.as_slice() else {
                return None;
            };
            let keyword = token_child(node, "if")?;
            (
                DecisionKind::Ternary,
                *test,
                keyword,
                [Some(range(*body)), Some(range(*orelse))],
            )
        }
        "assert_statement" => {
            let parts = named_children(node);
            let test = *parts.first()?;
            let message = parts.get(1).map(|m| range(*m));
            (DecisionKind::Assert, test, node.child(0)?, [None, message])
        }
        "if_clause" => {
            let test = *named_children(node).first()?;
            let parent = node.parent()?;
            if parent.kind() == "case_clause" {
                let consequence = parent.child_by_field_name("consequence").map(range);
                (
                    DecisionKind::MatchGuard,
                    test,
                    node.child(0)?,
                    [consequence, None],
                )
            } else {
                let body = parent.child_by_field_name("body").map(range);
                (
                    DecisionKind::ComprehensionIf,
                    test,
                    node.child(0)?,
                    [body, None],
                )
            }
        }
        "boolean_operator" => {
            let keyword = node.child_by_field_name("operator")?;
            (DecisionKind::BoolValue, node, keyword, [None, None])
        }
        "comparison_operator" if comparison_links(node).len() > 1 => {
            let first_op = node.child_by_field_name("operators")?;
            (DecisionKind::BoolValue, node, first_op, [None, None])
        }
        _ => return None,
    };
    if matches!(
        kind,
        DecisionKind::If | DecisionKind::Elif | DecisionKind::While
    ) && is_constant_test(source, test)
    {
        // `while True:`, `if 0:`: CPython compiles no test, the code goes one way only, and
        // coverage.py counts no branch there either.
        return None;
    }
    let lowered = lower(source, test, structural);
    if lowered.is_err() {
        // Keep the walk from taking each inner `and`/`or` of an unmodelled decision for a
        // decision of its own.
        super::source::walk(test, &mut MarkStructure(structural));
    }
    Some(FoundDecision {
        kind,
        range: range(test),
        keyword: range(keyword),
        text: source.collapsed(test),
        lowered,
        targets,
    })
}

/// Whether `test` is a constant as Python's own syntax tree has it (`True`, `0`, `"x"`,
/// `(1)`, `not None`): a statement testing one has no branch — CPython emits no jump, and
/// coverage.py's analysis treats it so. `-1` and `()` are not constants there.
fn is_constant_test(source: &Source<'_>, test: Node<'_>) -> bool {
    let mut test = test;
    // Parentheses and `not`s unwrapped in a loop: thousands of them must not exhaust the stack.
    loop {
        test = match test.kind() {
            "parenthesized_expression" => match named_children(test).as_slice() {
                [inner] => *inner,
                _ => return false,
            },
            "not_operator" => match test.child_by_field_name("argument") {
                Some(argument) => argument,
                None => return false,
            },
            _ => break,
        };
    }
    match test.kind() {
        "true" | "false" | "none" | "integer" | "float" | "ellipsis" => true,
        // An f-string is no constant there, even beside plain strings (`' ' f'{x}'`).
        "string" => literal::is_plain_string(source, test),
        "concatenated_string" => named_children(test)
            .iter()
            .all(|part| literal::is_plain_string(source, *part)),
        _ => false,
    }
}

/// A `for` loop as a branch point: its one condition stands for "the iterable yields another
/// item", at the iterable's range; the enter side is the body, the exit side the `else:` clause
/// (or what follows the loop). Its ID's text is the header (`x in xs`), so two loops over the
/// same iterable differ. An `async for` is one too; its keyword is `async for`, whose start is
/// where CPython puts the statement's step (`GET_ANEXT`) on every version.
fn for_loop(source: &Source<'_>, node: Node<'_>) -> Option<FoundDecision> {
    let left = node.child_by_field_name("left")?;
    let right = node.child_by_field_name("right")?;
    let mut keyword = range(token_child(node, "for")?);
    if let Some(async_token) = token_child(node, "async") {
        keyword = TextRange::new(range(async_token).start, keyword.end);
    }
    let body = node.child_by_field_name("body").map(range);
    let orelse = node.child_by_field_name("alternative").map(clause_target);
    let iterable = source.collapsed(right);
    Some(FoundDecision {
        kind: DecisionKind::For,
        range: range(right),
        keyword,
        text: format!("{} in {iterable}", source.collapsed(left)),
        lowered: Ok(Lowered {
            expr: BoolExpr::Condition(0),
            conditions: vec![Leaf {
                range: range(right),
                text: iterable,
                branches: vec![],
                literal: None,
                field_test: None,
            }],
        }),
        targets: [body, orelse],
    })
}

/// The code an `else:` clause runs is its body; an `elif` clause is a decision of its own,
/// reached as a whole.
fn clause_target(clause: Node<'_>) -> TextRange {
    match clause.kind() {
        "else_clause" => clause
            .child_by_field_name("body")
            .map_or_else(|| range(clause), range),
        _ => range(clause),
    }
}

fn lower(
    source: &Source<'_>,
    test: Node<'_>,
    structural: &mut dyn FnMut(usize),
) -> Result<Lowered, Unmodelled> {
    let mut lowering = Lowering {
        source,
        conditions: vec![],
        structural,
    };
    let expr = lowering.expr(test, 0, true)?;
    if lowering.conditions.len() > MAX_CONDITIONS {
        return Err(Unmodelled::TooManyConditions(lowering.conditions.len()));
    }
    Ok(Lowered {
        expr,
        conditions: lowering.conditions,
    })
}

struct Lowering<'s, 'a> {
    source: &'s Source<'a>,
    conditions: Vec<Leaf>,
    structural: &'s mut dyn FnMut(usize),
}

impl Lowering<'_, '_> {
    /// `at_root`: no `and`/`or` lies between this node and the decision's root (only `not`s and
    /// parentheses), so a boolean `==`/`!=` here is modelled.
    fn expr(
        &mut self,
        node: Node<'_>,
        depth: usize,
        at_root: bool,
    ) -> Result<BoolExpr, Unmodelled> {
        if depth > MAX_DEPTH {
            return Err(Unmodelled::TooDeep);
        }
        match node.kind() {
            "parenthesized_expression" => {
                let inner = named_children(node);
                if let [inner] = inner.as_slice()
                    && !matches!(inner.kind(), "yield" | "list_splat")
                {
                    (self.structural)(node.id());
                    return self.expr(*inner, depth + 1, at_root);
                }
            }
            "not_operator" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    (self.structural)(node.id());
                    return Ok(BoolExpr::Not(Box::new(self.expr(
                        arg,
                        depth + 1,
                        at_root,
                    )?)));
                }
            }
            "boolean_operator" => {
                if let (Some(l), Some(r), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) {
                    (self.structural)(node.id());
                    let l = Box::new(self.expr(l, depth + 1, false)?);
                    let r = Box::new(self.expr(r, depth + 1, false)?);
                    return Ok(if op.kind() == "and" {
                        BoolExpr::And(l, r)
                    } else {
                        BoolExpr::Or(l, r)
                    });
                }
            }
            "comparison_operator" => {
                let links = comparison_links(node);
                if links.len() > 1 {
                    (self.structural)(node.id());
                    let mut expr: Option<BoolExpr> = None;
                    for link in links {
                        let leaf = self.leaf(link, None);
                        expr = Some(match expr {
                            None => leaf,
                            Some(prev) => BoolExpr::And(Box::new(prev), Box::new(leaf)),
                        });
                    }
                    return Ok(expr.expect("a chain has links"));
                }
                if at_root && let Some((l, r, negated)) = boolean_equality(node) {
                    (self.structural)(node.id());
                    let left = Box::new(self.expr(l, depth + 1, false)?);
                    let right = Box::new(self.expr(r, depth + 1, false)?);
                    return Ok(BoolExpr::Eq {
                        left,
                        right,
                        negated,
                    });
                }
            }
            _ => {}
        }
        Ok(self.leaf_node(node))
    }

    fn leaf_node(&mut self, node: Node<'_>) -> BoolExpr {
        // `(x := f())` tests the value assigned: the condition is that value.
        if node.kind() == "named_expression"
            && let Some(value) = node.child_by_field_name("value")
        {
            return self.leaf(range(value), literal::truth(self.source, value));
        }
        let leaf = self.leaf(range(node), literal::truth(self.source, node));
        if let Some(last) = self.conditions.last_mut() {
            last.field_test = field_test(self.source, node);
        }
        // `a if c else b` as a condition: CPython tests `a` and `b` directly.
        if node.kind() == "conditional_expression"
            && let [body, _, orelse] = named_children(node).as_slice()
        {
            let direct = |n: &Node<'_>| {
                let mut n = *n;
                while n.kind() == "parenthesized_expression" {
                    match named_children(n).as_slice() {
                        [inner] => n = *inner,
                        _ => break,
                    }
                }
                (!matches!(
                    n.kind(),
                    "boolean_operator" | "conditional_expression" | "not_operator"
                ))
                .then(|| range(n))
            };
            let branches = [direct(body), direct(orelse)]
                .into_iter()
                .flatten()
                .collect();
            if let Some(last) = self.conditions.last_mut() {
                last.branches = branches;
            }
        }
        leaf
    }

    fn leaf(&mut self, range: TextRange, literal: Option<bool>) -> BoolExpr {
        let index = self.conditions.len() as u16;
        let text = super::source::collapse_whitespace(
            &self.source.text[range.start as usize..range.end as usize],
        );
        self.conditions.push(Leaf {
            range,
            text,
            branches: vec![],
            literal,
            field_test: None,
        });
        BoolExpr::Condition(index)
    }
}

struct MarkStructure<'s>(&'s mut dyn FnMut(usize));

impl super::source::Visit for MarkStructure<'_> {
    fn enter(&mut self, node: Node<'_>) -> bool {
        let structure = matches!(
            node.kind(),
            "boolean_operator"
                | "not_operator"
                | "parenthesized_expression"
                | "comparison_operator"
        );
        if structure {
            (self.0)(node.id());
        }
        structure
    }
}

/// The links of a comparison, as ranges: `a < b <= c` gives `a < b` and `b <= c`. A simple
/// comparison gives one link.
pub(super) fn comparison_links(node: Node<'_>) -> Vec<TextRange> {
    let operands = named_children(node);
    if operands.len() <= 2 {
        return vec![range(node)];
    }
    operands
        .windows(2)
        .map(|w| TextRange::new(w[0].start_byte() as u32, w[1].end_byte() as u32))
        .collect()
}

/// `l == r` or `l != r` where both operands are themselves boolean (a comparison, `not`,
/// `and`/`or`, `True`/`False`): the operands and whether it is `!=`.
fn boolean_equality<'t>(node: Node<'t>) -> Option<(Node<'t>, Node<'t>, bool)> {
    let operands = named_children(node);
    let [l, r] = operands.as_slice() else {
        return None;
    };
    let op = node.child_by_field_name("operators")?;
    let negated = match op.kind() {
        "==" => false,
        "!=" => true,
        _ => return None,
    };
    (is_boolean(*l) && is_boolean(*r)).then_some((*l, *r, negated))
}

fn is_boolean(node: Node<'_>) -> bool {
    let mut node = node;
    while node.kind() == "parenthesized_expression" {
        match named_children(node).as_slice() {
            [inner] => node = *inner,
            _ => return false,
        }
    }
    matches!(
        node.kind(),
        "comparison_operator" | "not_operator" | "boolean_operator" | "true" | "false"
    )
}

/// The field of a name that `node` tests for `None` (`x.f is None`, `x.f is not None`, `None is
/// x.f`) or for its truth (`x.f`), through parentheses; for `x.f.g` the field `f`.
fn field_test(source: &Source<'_>, node: Node<'_>) -> Option<FieldTest> {
    let bare = super::readable::unparenthesized;
    let node = bare(node);
    let subject = match node.kind() {
        "attribute" => node,
        "comparison_operator" => {
            let mut cursor = node.walk();
            let operators: Vec<Node<'_>> = node
                .children_by_field_name("operators", &mut cursor)
                .collect();
            let is = match operators.as_slice() {
                [op] => matches!(op.kind(), "is" | "is not"),
                [first, second] => first.kind() == "is" && second.kind() == "not",
                _ => false,
            };
            let operands: Vec<Node<'_>> = named_children(node).into_iter().map(bare).collect();
            match operands.as_slice() {
                [left, right] if is && right.kind() == "none" => *left,
                [left, right] if is && left.kind() == "none" => *right,
                _ => return None,
            }
        }
        _ => return None,
    };
    let mut field = None;
    let mut n = subject;
    while n.kind() == "attribute" {
        field = Some(n.child_by_field_name("attribute")?);
        n = bare(n.child_by_field_name("object")?);
    }
    (n.kind() == "identifier").then_some(())?;
    Some(FieldTest {
        root: source.text(n).into(),
        field: source.text(field?).into(),
    })
}
