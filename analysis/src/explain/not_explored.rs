//! `LCN107`: a function with branch sides that generation did not explore — skipped before
//! exploring (a kind it cannot call, a module it cannot import) or whose exploration failed
//! (its target could not be called, its signature not described). One diagnostic on the
//! function's name, whoever reports it (the CLI, the editor), with a reason that reads the same
//! on every run: the memory addresses of Python's reprs are left out.

use crate::diagnostic::{Code, Diagnostic, Evidence, evidence};
use crate::explore::coverage::FunctionUnderTest;
use lacuna_grammar::{Anchor, FunctionId, FunctionKind, FunctionSyntax};

/// The `LCN107` of the definition `id`, or none when it has no branch sides (a function
/// without branch sides is not a gap).
pub fn not_explored(
    id: &FunctionId,
    syntax: &FunctionSyntax,
    anchor: Anchor,
    reason: &str,
) -> Option<Diagnostic> {
    let sides = branch_sides(syntax);
    if sides == 0 {
        return None;
    }
    // A module or class body has no name: its first decision stands for it.
    let range = match syntax.kind {
        FunctionKind::Def => syntax.name_range,
        _ => syntax.decisions[0].range,
    };
    let reason = without_addresses(reason);
    let mut d = Diagnostic::new(
        Code::NotExplored,
        range.absolute(anchor),
        format!("not explored: {reason}"),
    );
    d.function = Some(id.to_string());
    d.evidence = Some(Evidence::NotExplored(evidence::NotExplored {
        reason,
        branch_sides: sides,
    }));
    Some(d)
}

/// The branch sides a function leaves untested when it is not explored: both sides of each
/// decision the model tracks.
pub fn branch_sides(syntax: &FunctionSyntax) -> usize {
    2 * syntax.decisions.iter().filter(|d| d.expr.is_some()).count()
}

/// The `LCN107` of a function whose exploration failed with `failure`.
pub fn failed_exploration(target: &FunctionUnderTest, failure: &str) -> Option<Diagnostic> {
    not_explored(&target.id, &target.syntax, target.anchor, failure)
}

pub use crate::explore::exploration::without_addresses;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_left_out_and_other_text_kept() {
        assert_eq!(
            without_addresses("<tz.tzutc object at 0x7f94a698bd90> is not callable; at 0xZ"),
            "<tz.tzutc object> is not callable; at 0xZ"
        );
    }

    #[test]
    fn a_second_definition_is_named_by_its_identity_and_a_body_by_its_first_decision() {
        let text =
            "def f(x):\n    return x\n\ndef f(x):\n    if x:\n        return 1\n    return 0\n";
        let module = lacuna_grammar::parse(text);
        let second = &module
            .functions
            .iter()
            .filter(|f| f.syntax.name == "f")
            .nth(1)
            .unwrap();
        let d = not_explored(&second.id, &second.syntax, second.anchor, "why").unwrap();
        assert_eq!(d.function.as_deref(), Some("f#2"));
        assert_eq!(d.message, "not explored: why");
        let first = module
            .functions
            .iter()
            .find(|f| f.syntax.name == "f")
            .unwrap();
        assert!(not_explored(&first.id, &first.syntax, first.anchor, "why").is_none());
    }
}
