//! Decisions: every place where control flow splits on a boolean, as a tree of `and`/`or`/`not`
//! (and boolean `==`/`!=` at the root) over leaf conditions, with the two branch sides.
//!
//! Pure data: no tree-sitter types leak out of here. Ranges are relative to the enclosing
//! function's anchor.

use crate::ids::DecisionId;
use crate::text::TextRange;
use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

/// Most conditions a decision may hold; bigger decisions are reported and not modelled.
pub const MAX_CONDITIONS: usize = 64;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecisionKind {
    If,
    Elif,
    While,
    /// `for x in xs:`: not a test of a boolean, but a branch point as coverage.py counts it —
    /// the body entered, or the iterable run out of items.
    For,
    /// `x if c else y`
    Ternary,
    Assert,
    /// `[x for x in xs if c]`
    ComprehensionIf,
    /// `case p if c:`
    MatchGuard,
    /// `and`/`or` used for its value: `x = a or default`
    BoolValue,
}

impl DecisionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::If => "if",
            DecisionKind::Elif => "elif",
            DecisionKind::While => "while",
            DecisionKind::For => "for",
            DecisionKind::Ternary => "ternary",
            DecisionKind::Assert => "assert",
            DecisionKind::ComprehensionIf => "comprehension-if",
            DecisionKind::MatchGuard => "match-guard",
            DecisionKind::BoolValue => "bool-value",
        }
    }

    /// A `for` loop: its one condition is "the iterable yields another item", which has no
    /// boolean structure and no MC/DC obligations.
    pub fn is_loop(self) -> bool {
        self == DecisionKind::For
    }

    /// How the two sides are called for this kind of decision, true side first.
    pub fn side_names(self) -> [&'static str; 2] {
        match self {
            DecisionKind::While | DecisionKind::For => ["enter", "exit"],
            DecisionKind::Assert => ["pass", "fail"],
            _ => ["true", "false"],
        }
    }
}

/// The boolean structure of a decision. Leaves index into [`Decision::conditions`], numbered in
/// evaluation order (left to right).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum BoolExpr {
    Condition(u16),
    Not(Box<BoolExpr>),
    /// Short-circuit `and`: the right side is evaluated only when the left is true.
    And(Box<BoolExpr>, Box<BoolExpr>),
    /// Short-circuit `or`: the right side is evaluated only when the left is false.
    Or(Box<BoolExpr>, Box<BoolExpr>),
    /// `l == r` (or `l != r` when `negated`) between two boolean operands; both sides are always
    /// evaluated. Only built at the root of a decision (under `not`s at most).
    Eq {
        left: Box<BoolExpr>,
        right: Box<BoolExpr>,
        negated: bool,
    },
}

impl BoolExpr {
    /// Evaluates the expression with Python's short-circuit rules, asking `value` for each leaf
    /// that is evaluated; returns the outcome. `value` sees leaves in evaluation order.
    pub fn evaluate(&self, value: &mut dyn FnMut(u16) -> bool) -> bool {
        match self {
            BoolExpr::Condition(i) => value(*i),
            BoolExpr::Not(e) => !e.evaluate(value),
            BoolExpr::And(l, r) => l.evaluate(value) && r.evaluate(value),
            BoolExpr::Or(l, r) => l.evaluate(value) || r.evaluate(value),
            BoolExpr::Eq {
                left,
                right,
                negated,
            } => {
                let l = left.evaluate(value);
                let r = right.evaluate(value);
                (l == r) != *negated
            }
        }
    }

    /// Number of leaves.
    pub fn condition_count(&self) -> usize {
        match self {
            BoolExpr::Condition(_) => 1,
            BoolExpr::Not(e) => e.condition_count(),
            BoolExpr::And(l, r) | BoolExpr::Or(l, r) => l.condition_count() + r.condition_count(),
            BoolExpr::Eq { left, right, .. } => left.condition_count() + right.condition_count(),
        }
    }

    /// Depth of the tree (a leaf has depth 1).
    pub fn depth(&self) -> usize {
        match self {
            BoolExpr::Condition(_) => 1,
            BoolExpr::Not(e) => 1 + e.depth(),
            BoolExpr::And(l, r) | BoolExpr::Or(l, r) => 1 + l.depth().max(r.depth()),
            BoolExpr::Eq { left, right, .. } => 1 + left.depth().max(right.depth()),
        }
    }
}

/// A leaf of a decision: an expression whose truth value the decision tests, such as `a > 10`,
/// `c`, `isinstance(x, int)` or a call.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Condition {
    /// Position in evaluation order, the index used by [`BoolExpr::Condition`].
    pub index: u16,
    pub range: TextRange,
    /// The source text, whitespace collapsed.
    pub text: CompactString,
    /// For a condition that is a conditional expression (`a if c else b`): its two branches,
    /// whose truth values CPython tests directly — each gives this condition's value.
    pub branches: ThinVec<TextRange>,
    /// The truth value of a literal condition (`"ORDER"` in `prefix or "ORDER"`, `0`, `()`),
    /// which no input changes; none for every other expression.
    #[serde(default)]
    pub literal: Option<bool>,
    /// A test of a field of a name for `None` or for its truth; none for every other
    /// expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_test: Option<FieldTest>,
}

/// A condition that tests a field of a name for `None` or for its truth: `self.names is None`,
/// `self.names is not None`, `self.force_list` (a `not` before it is the decision's). For a
/// deeper path (`self.a.b is None`) the field is the first one after the name (`a`, which
/// holds `b`'s object).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct FieldTest {
    pub root: CompactString,
    pub field: CompactString,
}

/// One of the two ways a decision can go.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct BranchSide {
    /// `true` for the side taken when the decision is true (enter, pass).
    pub outcome: bool,
    /// The code that runs on this side, when there is any (`None` for an implicit `else`).
    pub target: Option<TextRange>,
}

/// Why a decision is present in the source but has no boolean model.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unmodelled {
    /// More than [`MAX_CONDITIONS`] conditions.
    TooManyConditions(usize),
    /// Nested deeper than the lowering allows.
    TooDeep,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Decision {
    pub id: DecisionId,
    pub kind: DecisionKind,
    /// The tested expression.
    pub range: TextRange,
    /// The keyword that introduces the decision (`if`, `elif`, `while`, `assert`, the `if` of a
    /// ternary or comprehension); for a boolean value, the first operator.
    pub keyword: TextRange,
    /// `None` when the decision is too large or deep to model; see `unmodelled`.
    pub expr: Option<BoolExpr>,
    pub unmodelled: Option<Unmodelled>,
    /// Leaves in evaluation order; empty when unmodelled.
    pub conditions: ThinVec<Condition>,
    /// `[true side, false side]`.
    pub sides: [BranchSide; 2],
}

impl Decision {
    pub fn side(&self, outcome: bool) -> &BranchSide {
        &self.sides[usize::from(!outcome)]
    }

    /// The (condition, value) pairs of masking MC/DC: two per condition.
    pub fn obligation_count(&self) -> usize {
        2 * self.conditions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(i: u16) -> Box<BoolExpr> {
        Box::new(BoolExpr::Condition(i))
    }

    #[test]
    fn evaluation_short_circuits() {
        // a and (b or c)
        let e = BoolExpr::And(c(0), Box::new(BoolExpr::Or(c(1), c(2))));
        let mut seen = vec![];
        let out = e.evaluate(&mut |i| {
            seen.push(i);
            i == 1
        });
        assert!(!out);
        assert_eq!(seen, vec![0]);
        assert_eq!(e.condition_count(), 3);
        assert_eq!(e.depth(), 3);
    }
}
