//! Call resolution: which workspace function a call site refers to, as far as syntax can tell
//! (same-module functions and classes, `self.method`, imported project modules and names).
//! Used for fingerprints, so a miss only means a caller is not re-explored when a callee changes.

use lacuna_grammar::{CallSite, FunctionSyntax};

/// Where a call may land: a function of the same module, or a qualified name in another module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CallTarget {
    /// A function ID in the caller's own module.
    Local(String),
    /// A module name (absolute, or relative with leading dots) and a qualified name in it.
    Module { module: String, qualname: String },
}

/// The candidate targets of one call made by `caller`, most specific first.
/// `resolved` is the callee with its first name resolved through the caller's imports
/// ([`CallSite::resolved`]).
pub fn call_targets(
    caller: &FunctionSyntax,
    call: &CallSite,
    resolved: Option<&str>,
) -> Vec<CallTarget> {
    let mut out = vec![];
    let callee = call.callee.as_str();
    if let Some(resolved) = resolved {
        // `mod.func`, `pkg.mod.Class.method`: any split point may be the module boundary.
        let parts: Vec<&str> = resolved.split('.').collect();
        let leading_dots = resolved.chars().take_while(|c| *c == '.').count();
        for split in (1..parts.len()).rev() {
            let module = parts[..split].join(".");
            let qualname = parts[split..].join(".");
            if module.trim_matches('.').is_empty() && leading_dots == 0 {
                continue;
            }
            out.push(CallTarget::Module {
                module,
                qualname: qualname.clone(),
            });
            out.push(CallTarget::Module {
                module: parts[..split].join("."),
                qualname: format!("{qualname}.__init__"),
            });
        }
        return out;
    }
    if let Some((receiver, method)) = callee.split_once('.') {
        let is_receiver = caller
            .params
            .first()
            .is_some_and(|p| p.name == receiver && caller.is_method());
        if is_receiver
            && !method.contains('.')
            && let Some(class) = &caller.class
        {
            out.push(CallTarget::Local(format!("{class}.{method}")));
        }
        // `Class.method(...)` on a class of the same module.
        out.push(CallTarget::Local(callee.to_owned()));
        return out;
    }
    // A plain name: a function nested in an enclosing scope, then a module-level function or
    // class.
    let mut scope: &str = &caller.qualname;
    loop {
        out.push(CallTarget::Local(format!("{scope}.<locals>.{callee}")));
        match scope.rfind(".<locals>.") {
            Some(i) => scope = &scope[..i],
            None => break,
        }
    }
    out.push(CallTarget::Local(callee.to_owned()));
    out.push(CallTarget::Local(format!("{callee}.__init__")));
    out
}

/// The absolute module a relative import refers to, from the importing module.
pub fn absolute_module(importer: &str, is_package: bool, relative: &str) -> Option<String> {
    let dots = relative.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return Some(relative.to_owned());
    }
    let mut base: Vec<&str> = importer.split('.').collect();
    // In `pkg/mod.py`, one dot is `pkg`; in `pkg/__init__.py`, one dot is `pkg` itself.
    let drop = if is_package { dots - 1 } else { dots };
    if drop > base.len() {
        return None;
    }
    base.truncate(base.len() - drop);
    let rest = &relative[dots..];
    if !rest.is_empty() {
        base.push(rest);
    }
    (!base.is_empty()).then(|| base.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_modules() {
        assert_eq!(
            absolute_module("shop.stock", false, ".models").as_deref(),
            Some("shop.models")
        );
        assert_eq!(
            absolute_module("shop.stock", false, "..x").as_deref(),
            Some("x")
        );
        assert_eq!(
            absolute_module("shop", true, ".models").as_deref(),
            Some("shop.models")
        );
        assert_eq!(
            absolute_module("shop.sub.m", false, "..util").as_deref(),
            Some("shop.util")
        );
        assert_eq!(absolute_module("m", false, "...x"), None);
    }
}
