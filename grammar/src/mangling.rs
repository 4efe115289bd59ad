//! Python's private-name mangling, one rule for every layer: a name `__x` (not ending in `__`)
//! written in the body of class `_Timer` is the attribute `_Timer__x` (the class's leading
//! underscores dropped); a class of underscores only mangles nothing.

/// The attribute `name`, written in the body of the class `class` (its own name, not its
/// qualified one), is: `Some("_Timer__nesting")` for `("_Timer", "__nesting")`; none when
/// Python leaves the name as it is.
pub fn mangled(class: &str, name: &str) -> Option<String> {
    let stripped = class.trim_start_matches('_');
    (name.starts_with("__") && !name.ends_with("__") && !stripped.is_empty())
        .then(|| format!("_{stripped}{name}"))
}

/// The name as the source of `class` writes the attribute `attribute`: `Some("__nesting")`
/// for `("_Timer", "_Timer__nesting")`; none when it is no mangled name of that class.
pub fn demangled<'a>(class: &str, attribute: &'a str) -> Option<&'a str> {
    let stripped = class.trim_start_matches('_');
    if stripped.is_empty() {
        return None;
    }
    let rest = attribute.strip_prefix('_')?.strip_prefix(stripped)?;
    (rest.starts_with("__") && !rest.ends_with("__")).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_names_are_mangled_as_python_does() {
        assert_eq!(
            mangled("TLRUCache", "__order").as_deref(),
            Some("_TLRUCache__order")
        );
        assert_eq!(
            mangled("_Timer", "__nesting").as_deref(),
            Some("_Timer__nesting")
        );
        assert_eq!(mangled("Cache", "__len__"), None);
        assert_eq!(mangled("Cache", "_data"), None);
        assert_eq!(mangled("__", "__x"), None);
    }

    #[test]
    fn a_mangled_name_is_read_back_as_the_source_writes_it() {
        assert_eq!(demangled("_Timer", "_Timer__nesting"), Some("__nesting"));
        assert_eq!(demangled("TLRUCache", "_TLRUCache__order"), Some("__order"));
        assert_eq!(demangled("Timer", "_Other__nesting"), None);
        assert_eq!(demangled("Timer", "_Timer__len__"), None);
        assert_eq!(demangled("Timer", "nesting"), None);
        assert_eq!(demangled("__", "___x"), None);
        for (class, name) in [("_Timer", "__a"), ("Stack", "__grow"), ("A_B", "__c_d")] {
            let attribute = mangled(class, name).unwrap();
            assert_eq!(demangled(class, &attribute), Some(name));
        }
    }
}
