//! Stable identities of functions, decisions, conditions and branch sides.
//!
//! An ID is built from the qualified name of the enclosing function and the decision's own
//! kind and text (plus an occurrence number when the same text repeats in one function), never
//! from line numbers, so it survives edits anywhere else. The hash is FNV-1a: stable across
//! runs, platforms and crate versions, because IDs are persisted.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

/// `Inventory.add`, `parse.<locals>.helper`, `<module>`; a repeated definition of the same
/// name gets `#2`, `#3`… in source order. Shared, not copied: the syntax, the database's
/// function nodes and every report of a function hold the same text.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub Arc<str>);

impl FunctionId {
    pub fn new(id: impl Into<Arc<str>>) -> Self {
        FunctionId(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Looked up by its text in maps keyed by ID (it hashes and compares as its text).
impl std::borrow::Borrow<str> for FunctionId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FunctionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for FunctionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for FunctionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for FunctionId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(FunctionId::new)
    }
}
string_id!(
    /// `Inventory.add/if@1a2b3c4d`, with `.2`, `.3`… for repeats of the same kind and text.
    DecisionId
);
string_id!(
    /// `<decision>.c0`, `<decision>.c1`… in evaluation order.
    ConditionId
);
string_id!(
    /// `<decision>:T` or `<decision>:F`.
    BranchSideId
);

impl DecisionId {
    pub fn new(function: &FunctionId, kind: &str, text: &str, occurrence: u32) -> Self {
        let hash = fnv1a(text.as_bytes()) as u32;
        if occurrence <= 1 {
            DecisionId(format!("{function}/{kind}@{hash:08x}"))
        } else {
            DecisionId(format!("{function}/{kind}@{hash:08x}.{occurrence}"))
        }
    }

    pub fn condition(&self, index: u16) -> ConditionId {
        ConditionId(format!("{self}.c{index}"))
    }

    pub fn side(&self, outcome: bool) -> BranchSideId {
        BranchSideId(format!("{self}:{}", if outcome { 'T' } else { 'F' }))
    }
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_readable_and_stable() {
        let f = FunctionId::new("Inventory.add");
        let d = DecisionId::new(&f, "if", "qty > 10", 1);
        assert_eq!(d.as_str(), "Inventory.add/if@18b2d11e");
        assert_eq!(d.condition(1).as_str(), "Inventory.add/if@18b2d11e.c1");
        assert_eq!(d.side(false).as_str(), "Inventory.add/if@18b2d11e:F");
        let d2 = DecisionId::new(&f, "if", "qty > 10", 2);
        assert_eq!(d2.as_str(), "Inventory.add/if@18b2d11e.2");
    }
}
