//! Trimming the lowered syntax to what it holds: the walk grows its vectors and strings by
//! doubling, and what is left over would stay allocated for as long as the database keeps the
//! model (the whole project's, in the language server). Owns no meaning: values are unchanged.

use crate::decision::{Condition, Decision};
use crate::ids::{DecisionId, FunctionId};
use crate::syntax::*;
use crate::text::TextRange;
use std::sync::Arc;

/// Gives back the spare capacity of a value's vectors and strings, recursively.
pub(super) trait Compact {
    fn compact(&mut self);
}

impl Compact for String {
    fn compact(&mut self) {
        self.shrink_to_fit();
    }
}

impl Compact for compact_str::CompactString {
    fn compact(&mut self) {
        self.shrink_to_fit();
    }
}

impl<T: Compact> Compact for Option<T> {
    fn compact(&mut self) {
        if let Some(value) = self {
            value.compact();
        }
    }
}

impl<T: Compact> Compact for Vec<T> {
    fn compact(&mut self) {
        self.shrink_to_fit();
        for item in self {
            item.compact();
        }
    }
}

impl<T: Compact> Compact for thin_vec::ThinVec<T> {
    fn compact(&mut self) {
        self.shrink_to_fit();
        for item in self {
            item.compact();
        }
    }
}

macro_rules! compact_fields {
    ($($ty:ty { $($field:tt),* })*) => {
        $(impl Compact for $ty {
            fn compact(&mut self) {
                $(self.$field.compact();)*
            }
        })*
    };
}

compact_fields! {
    DecisionId { 0 }
    Param { name, annotation, default }
    CallSite { callee }
    Loop { iter }
    FieldWrite { field, from_param }
    ParamFieldRead { param, field }
    Binding { name }
    Condition { text, branches }
    Import { local, target, scope }
    SyntaxError { message }
    ClassField { name, annotation, default }
    Property { name }
    MethodWrite { method, write }
    FunctionSyntax { name, qualname, class, params, returns, decorators, decisions, calls, asserts, loops, comprehensions, field_writes, field_reads, param_field_reads, bindings, returned }
    ClassSyntax { name, qualname, bases, decorators, methods, fields, properties, writes }
}

/// Values of a fixed size, and shared texts (`Arc<str>`: allocated once, at their size).
macro_rules! compact_already {
    ($($ty:ty),*) => {
        $(impl Compact for $ty {
            fn compact(&mut self) {}
        })*
    };
}

compact_already!(TextRange, Assert, FunctionId, Arc<str>);

impl Compact for Decision {
    fn compact(&mut self) {
        self.id.compact();
        self.conditions.compact();
    }
}
