//! Masking MC/DC for Python's short-circuit decisions, without instrumentation: the static
//! tables of Whalen et al. ("Efficient test coverage measurement for MC/DC", §III: partialEval,
//! setMask, terminates) and the runtime marking function that consumes one decision
//! evaluation's (condition, value) sequence.
//!
//! For every condition `c` and value `v`, the table says which earlier conditions evaluating `c`
//! to `v` masks — when the right operand of an `and` is false (or of an `or` true), nothing to its
//! left can affect the outcome any more — and whether it settles the decision. At run time a
//! buffer collects (condition, value) pairs, drops those masked by later conditions, and at the
//! settling condition adds what is left to the decision's independence set: those are the
//! obligations (decision, condition, value) the execution shows.
//!
//! `not` flips the value it propagates. Boolean `==`/`!=` (both operands always evaluated) never
//! masks and is settled only by its right operand; the syntax layer builds it only at the root of
//! a decision (under `not`s at most), because above it the value that propagates would depend on
//! run-time values, which a static table cannot hold.

use lacuna_grammar::BoolExpr;

/// What partial evaluation knows of a node's value after one of its leaves is evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Partial {
    True,
    False,
    /// Settled, but to a value the table cannot know (below an `==`).
    Settled,
    Unknown,
}

impl Partial {
    fn of(v: bool) -> Partial {
        if v { Partial::True } else { Partial::False }
    }

    fn not(self) -> Partial {
        match self {
            Partial::True => Partial::False,
            Partial::False => Partial::True,
            other => other,
        }
    }
}

/// One condition's row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ConditionMarks {
    /// Conditions masked when this one evaluates to false / true (bit `i` = condition `i`).
    pub masks: [u64; 2],
    /// Whether evaluating this condition to false / true settles the decision.
    pub terminates: [bool; 2],
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct McdcTable {
    pub conditions: Vec<ConditionMarks>,
}

/// The (condition, value) pairs shown independent: bit `i` of `by_value[v]` is condition `i`
/// shown with value `v`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Default, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Independence {
    pub by_value: [u64; 2],
}

/// An MC/DC obligation of a decision: condition `condition` must be shown to independently
/// affect the outcome while it evaluates to `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Obligation {
    pub condition: u16,
    pub value: bool,
}

impl Independence {
    pub fn insert(&mut self, o: Obligation) {
        self.by_value[usize::from(o.value)] |= 1 << o.condition;
    }

    pub fn contains(&self, o: Obligation) -> bool {
        self.by_value[usize::from(o.value)] & (1 << o.condition) != 0
    }

    pub fn union(&mut self, other: Independence) {
        self.by_value[0] |= other.by_value[0];
        self.by_value[1] |= other.by_value[1];
    }

    pub fn len(&self) -> usize {
        (self.by_value[0].count_ones() + self.by_value[1].count_ones()) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The obligations shown, by condition then value (false first).
    pub fn iter(&self) -> impl Iterator<Item = Obligation> + '_ {
        (0..64u16).flat_map(move |c| {
            [false, true]
                .into_iter()
                .map(move |value| Obligation {
                    condition: c,
                    value,
                })
                .filter(|o| self.contains(*o))
        })
    }
}

/// All obligations of a decision with `conditions` conditions.
pub fn obligations(conditions: usize) -> impl Iterator<Item = Obligation> {
    (0..conditions as u16).flat_map(|c| {
        [false, true].into_iter().map(move |value| Obligation {
            condition: c,
            value,
        })
    })
}

/// A node of the decision tree, flattened, with its parent and its place under it.
struct Node {
    parent: Option<usize>,
    /// Whether this node is the right operand of its (binary) parent.
    right: bool,
    kind: Kind,
    /// Bit set of the leaves under this node.
    leaves: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Leaf,
    Not,
    And,
    Or,
    Eq,
}

/// The tree flattened (pre-order), and the node of each leaf.
fn flatten(expr: &BoolExpr) -> (Vec<Node>, Vec<usize>) {
    let mut nodes: Vec<Node> = vec![];
    let mut leaf_nodes: Vec<usize> = vec![];
    // (expression, parent, is right operand)
    let mut stack: Vec<(&BoolExpr, Option<usize>, bool)> = vec![(expr, None, false)];
    let mut order: Vec<usize> = vec![];
    while let Some((e, parent, right)) = stack.pop() {
        let index = nodes.len();
        let kind = match e {
            BoolExpr::Condition(i) => {
                let i = *i as usize;
                if leaf_nodes.len() <= i {
                    leaf_nodes.resize(i + 1, usize::MAX);
                }
                leaf_nodes[i] = index;
                Kind::Leaf
            }
            BoolExpr::Not(_) => Kind::Not,
            BoolExpr::And(..) => Kind::And,
            BoolExpr::Or(..) => Kind::Or,
            BoolExpr::Eq { .. } => Kind::Eq,
        };
        let leaves = match e {
            BoolExpr::Condition(i) => 1u64 << (*i as u32 % 64),
            _ => 0,
        };
        nodes.push(Node {
            parent,
            right,
            kind,
            leaves,
        });
        order.push(index);
        match e {
            BoolExpr::Condition(_) => {}
            BoolExpr::Not(inner) => stack.push((inner, Some(index), false)),
            BoolExpr::And(l, r) | BoolExpr::Or(l, r) => {
                stack.push((r, Some(index), true));
                stack.push((l, Some(index), false));
            }
            BoolExpr::Eq { left, right, .. } => {
                stack.push((right, Some(index), true));
                stack.push((left, Some(index), false));
            }
        }
    }
    // Leaves sets bottom-up (children come after their parent in pre-order).
    for &i in order.iter().rev() {
        if let Some(p) = nodes[i].parent {
            nodes[p].leaves |= nodes[i].leaves;
        }
    }
    (nodes, leaf_nodes)
}

/// The value of `node`'s parent, given that `node` just completed with value `v` (the paper's
/// `partialEval`).
fn partial_eval(nodes: &[Node], node: usize, v: Partial) -> Partial {
    let Some(parent) = nodes[node].parent else {
        return v;
    };
    match (nodes[parent].kind, nodes[node].right, v) {
        (_, _, Partial::Unknown) => Partial::Unknown,
        (Kind::Not, _, v) => v.not(),
        // The right operand of `and`/`or` is evaluated only when the left did not settle it,
        // so the parent's value is the right operand's.
        (Kind::And | Kind::Or, true, v) => v,
        (Kind::And, false, Partial::False) => Partial::False,
        (Kind::Or, false, Partial::True) => Partial::True,
        (Kind::Eq, true, _) => Partial::Settled,
        _ => Partial::Unknown,
    }
}

impl McdcTable {
    pub fn new(expr: &BoolExpr) -> McdcTable {
        let (nodes, leaf_nodes) = flatten(expr);
        let conditions = leaf_nodes
            .iter()
            .map(|&leaf| {
                let mut marks = ConditionMarks::default();
                for value in [false, true] {
                    let (masks, terminates) = set_mask_and_terminates(&nodes, leaf, value);
                    marks.masks[usize::from(value)] = masks;
                    marks.terminates[usize::from(value)] = terminates;
                }
                marks
            })
            .collect();
        McdcTable { conditions }
    }

    /// The marking function for one complete evaluation of the decision: the (condition, value)
    /// pairs it shows independent.
    pub fn mark(&self, evaluations: &[(u16, bool)]) -> Independence {
        let mut marking = Marking::default();
        for &(c, v) in evaluations {
            marking.observe(self, c, v);
        }
        marking.shown
    }
}

/// The paper's `setMask` and `terminates`, walking up from a leaf evaluated to `value`.
fn set_mask_and_terminates(nodes: &[Node], leaf: usize, value: bool) -> (u64, bool) {
    let mut mask = 0u64;
    let mut node = leaf;
    let mut v = Partial::of(value);
    loop {
        let Some(parent) = nodes[node].parent else {
            return (mask, v != Partial::Unknown);
        };
        if nodes[node].right {
            let masking = matches!(
                (nodes[parent].kind, v),
                (Kind::And, Partial::False) | (Kind::Or, Partial::True)
            );
            if masking {
                mask |= nodes[parent].leaves & !nodes[node].leaves;
            }
        }
        v = partial_eval(nodes, node, v);
        if v == Partial::Unknown {
            return (mask, false);
        }
        node = parent;
    }
}

/// The run-time state of the marking function for one decision evaluation in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marking {
    /// Pairs evaluated and not (yet) masked.
    buffer: [u64; 2],
    /// Pairs shown independent by settled evaluations.
    pub shown: Independence,
}

impl Marking {
    /// Feeds one condition evaluation; answers whether it settled the decision (the buffer is
    /// then empty, ready for the next evaluation).
    pub fn observe(&mut self, table: &McdcTable, condition: u16, value: bool) -> bool {
        let Some(marks) = table.conditions.get(condition as usize) else {
            return false;
        };
        self.buffer[usize::from(value)] |= 1 << condition;
        let masked = marks.masks[usize::from(value)];
        self.buffer[0] &= !masked;
        self.buffer[1] &= !masked;
        if marks.terminates[usize::from(value)] {
            self.shown.by_value[0] |= self.buffer[0];
            self.shown.by_value[1] |= self.buffer[1];
            self.buffer = [0, 0];
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BoolExpr::*;

    fn c(i: u16) -> Box<BoolExpr> {
        Box::new(Condition(i))
    }

    fn row(table: &McdcTable, i: usize) -> (u64, u64, bool, bool) {
        let m = table.conditions[i];
        (m.masks[1], m.masks[0], m.terminates[1], m.terminates[0])
    }

    #[test]
    fn the_papers_example() {
        // (a && b) || c — Fig. 2 of the paper.
        let e = Or(Box::new(And(c(0), c(1))), c(2));
        let t = McdcTable::new(&e);
        // a: true masks nothing, does not terminate; false masks nothing, does not terminate.
        assert_eq!(row(&t, 0), (0, 0, false, false));
        // b: true terminates (decision true); false masks a, does not terminate.
        assert_eq!(row(&t, 1), (0, 0b001, true, false));
        // c: true masks a and b; both values terminate.
        assert_eq!(row(&t, 2), (0b011, 0, true, true));
    }

    #[test]
    fn not_flips_what_propagates() {
        // not (a or b) and c
        let e = And(Box::new(Not(Box::new(Or(c(0), c(1))))), c(2));
        let t = McdcTable::new(&e);
        // a true: `or` true, `not` false, `and` false: settles.
        assert_eq!(row(&t, 0), (0, 0, true, false));
        // b true: masks a; settles false. b false: `not` true, c still to come.
        assert_eq!(row(&t, 1), (0b001, 0, true, false));
        // c false masks a and b.
        assert_eq!(row(&t, 2), (0, 0b011, true, true));
    }

    #[test]
    fn a_and_b_or_c() {
        // a and (b or c)
        let e = And(c(0), Box::new(Or(c(1), c(2))));
        let t = McdcTable::new(&e);
        assert_eq!(row(&t, 0), (0, 0, false, true));
        assert_eq!(row(&t, 1), (0, 0, true, false));
        // c true masks b (the `or` is true whatever b was); c false makes the `and` false
        // whatever a was, so it masks a — but not b: with c false, b alone decides the `or`.
        assert_eq!(row(&t, 2), (0b010, 0b001, true, true));
    }

    #[test]
    fn boolean_equality_at_the_root() {
        // (a > 0) == (b > 0): neither masks; only the right operand settles.
        let e = Eq {
            left: c(0),
            right: c(1),
            negated: false,
        };
        let t = McdcTable::new(&e);
        assert_eq!(row(&t, 0), (0, 0, false, false));
        assert_eq!(row(&t, 1), (0, 0, true, true));
        // not ((a and b) != c)
        let e = Not(Box::new(Eq {
            left: Box::new(And(c(0), c(1))),
            right: c(2),
            negated: true,
        }));
        let t = McdcTable::new(&e);
        assert_eq!(
            row(&t, 1),
            (0, 0b001, false, false),
            "b false masks a inside the `and`"
        );
        assert_eq!(row(&t, 2), (0, 0, true, true));
        let shown = t.mark(&[(0, true), (1, false), (2, true)]);
        assert_eq!(shown.by_value, [0b010, 0b100]);
    }

    #[test]
    fn marking_collects_unmasked_pairs() {
        // (a && b) || c with a=T, b=F, c=T: b masks a, c masks a and b: only c=T shown.
        let t = McdcTable::new(&Or(Box::new(And(c(0), c(1))), c(2)));
        let shown = t.mark(&[(0, true), (1, false), (2, true)]);
        assert_eq!(
            shown.iter().collect::<Vec<_>>(),
            vec![Obligation {
                condition: 2,
                value: true
            }]
        );
        // a=T, b=T: both shown true.
        let shown = t.mark(&[(0, true), (1, true)]);
        assert_eq!(shown.by_value, [0, 0b011]);
    }
}
