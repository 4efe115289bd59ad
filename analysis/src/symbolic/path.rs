//! Variable names are access paths: they say where a symbolic value comes from.
//!
//! `x` is the parameter `x`; `self._items.__len__` is the length of the `_items` field of the
//! receiver; `order.lines[0].qty` goes through a list element; `cfg["mode"]` through a dict
//! key; `$ret:3` is the return value of the external call recorded as event 3 of the execution.
//! Explanation reads these paths: a condition over `$ret:*` depends on an external call, one over
//! a field path of a non-primitive input depends on object state.

use std::fmt;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum VarRoot {
    /// A parameter of the function under test (`self` included).
    Param(String),
    /// The return value of external-call event `n` of the execution.
    ExternalReturn(u32),
    /// The values mocked call `n` of the guidance module returns (`$mock:0[1]`: its second
    /// call's): inputs the generator chooses.
    Mock(u32),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum PathStep {
    /// `.name`; `__len__` stands for the length of a container.
    Attr(String),
    /// `[3]`
    Index(i64),
    /// `["key"]` (the key's Python repr, quotes included).
    Key(String),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct VarPath {
    pub root: VarRoot,
    pub steps: Vec<PathStep>,
}

impl VarPath {
    /// Parses a variable name; `None` when it is not a well-formed path.
    pub fn parse(name: &str) -> Option<VarPath> {
        let bytes = name.as_bytes();
        let ident_end = |from: usize| {
            let mut i = from;
            while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                i += 1;
            }
            i
        };
        let (root, end) = if let Some(rest) = name.strip_prefix("$ret:") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let n = rest[..digits].parse().ok()?;
            (VarRoot::ExternalReturn(n), 5 + digits)
        } else if let Some(rest) = name.strip_prefix("$mock:") {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let n = rest[..digits].parse().ok()?;
            (VarRoot::Mock(n), 6 + digits)
        } else {
            let end = ident_end(0);
            if end == 0 || bytes[0].is_ascii_digit() {
                return None;
            }
            (VarRoot::Param(name[..end].to_owned()), end)
        };
        let mut steps = vec![];
        let mut i = end;
        while i < bytes.len() {
            match bytes[i] {
                b'.' => {
                    let e = ident_end(i + 1);
                    if e == i + 1 {
                        return None;
                    }
                    steps.push(PathStep::Attr(name[i + 1..e].to_owned()));
                    i = e;
                }
                b'[' => {
                    let close = find_close(name, i)?;
                    let inner = &name[i + 1..close];
                    steps.push(match inner.parse::<i64>() {
                        Ok(n) => PathStep::Index(n),
                        Err(_) if inner.len() >= 2 => PathStep::Key(inner.to_owned()),
                        Err(_) => return None,
                    });
                    i = close + 1;
                }
                _ => return None,
            }
        }
        Some(VarPath { root, steps })
    }

    /// The parameter this path starts from, if it starts from one.
    pub fn param(&self) -> Option<&str> {
        match &self.root {
            VarRoot::Param(p) => Some(p),
            VarRoot::ExternalReturn(_) | VarRoot::Mock(_) => None,
        }
    }

    /// The attribute names along the path (`["_items", "__len__"]`).
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|s| match s {
            PathStep::Attr(a) => Some(a.as_str()),
            _ => None,
        })
    }
}

/// The `]` closing the `[` at `open`, skipping over a quoted key.
fn find_close(name: &str, open: usize) -> Option<usize> {
    let bytes = name.as_bytes();
    let mut i = open + 1;
    let quote = match bytes.get(i) {
        Some(q @ (b'"' | b'\'')) => Some(*q),
        _ => None,
    };
    if let Some(q) = quote {
        i += 1;
        while i < bytes.len() && bytes[i] != q {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i += 1;
    }
    while i < bytes.len() && bytes[i] != b']' {
        i += 1;
    }
    (i < bytes.len()).then_some(i)
}

impl fmt::Display for VarPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.root {
            VarRoot::Param(p) => f.write_str(p)?,
            VarRoot::ExternalReturn(n) => write!(f, "$ret:{n}")?,
            VarRoot::Mock(n) => write!(f, "$mock:{n}")?,
        }
        for s in &self.steps {
            match s {
                PathStep::Attr(a) => write!(f, ".{a}")?,
                PathStep::Index(n) => write!(f, "[{n}]")?,
                PathStep::Key(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_access_paths() {
        for name in [
            "x",
            "self._items.__len__",
            "order.lines[0].qty",
            "cfg[\"mo]de\"].__len__",
            "$ret:3",
            "$ret:12[\"mode\"].__len__",
            "$ret:4.hour",
        ] {
            let p = VarPath::parse(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(p.to_string(), name);
        }
        let p = VarPath::parse("self._items.__len__").unwrap();
        assert_eq!(p.param(), Some("self"));
        assert_eq!(p.fields().collect::<Vec<_>>(), ["_items", "__len__"]);
        assert_eq!(
            VarPath::parse("$ret:7").unwrap().root,
            VarRoot::ExternalReturn(7)
        );
        for bad in ["", "1x", "x.", "x[", "x[]", "x..y", "$ret:a"] {
            assert_eq!(VarPath::parse(bad), None, "{bad}");
        }
    }
}
