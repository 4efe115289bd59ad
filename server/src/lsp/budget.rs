//! The code action that raises the loop bound in `pyproject.toml` when a branch side needs more
//! iterations (or more calls of a writer) than the generator makes: the one gap whose fix is the
//! generator's budget, not a mock or a factory. The file is edited with `toml_edit`, so its
//! comments, order and formatting stay as the project wrote them.

use toml_edit::{DocumentMut, Item, Table, value};

/// Why the loop bound cannot be set: `pyproject.toml` does not read, or holds a key the bound
/// goes under as something other than a table.
#[derive(Debug, thiserror::Error)]
pub enum LoopBoundError {
    #[error("pyproject.toml is not valid TOML, nothing was changed: {0}")]
    NotToml(toml_edit::TomlError),
    #[error("`{0}` in pyproject.toml is not a table")]
    KeyNotATable(String),
    #[error("`{0}` is not a table")]
    NotATable(&'static str),
}

/// The bound to propose for a side that needs `needed` iterations: the next power of two above
/// it, so that one raise covers the side with room for the loop's exit.
pub fn proposed(needed: u64) -> u32 {
    let wanted = needed.saturating_add(1).clamp(2, 1 << 16);
    u32::try_from(wanted.next_power_of_two()).unwrap_or(1 << 16)
}

/// `pyproject.toml`'s text with `[tool.lacuna.budget] loop-bound = bound`; the table is created
/// when missing. An error when the file is not valid TOML (nothing is changed then).
pub fn with_loop_bound(text: &str, bound: u32) -> Result<String, LoopBoundError> {
    let mut doc: DocumentMut = text.parse().map_err(LoopBoundError::NotToml)?;
    let table = |parent: &mut Table, key: &str| -> Result<(), LoopBoundError> {
        if !parent.contains_key(key) {
            let mut t = Table::new();
            t.set_implicit(true);
            parent.insert(key, Item::Table(t));
        }
        if parent[key].is_table() || parent[key].is_inline_table() {
            Ok(())
        } else {
            Err(LoopBoundError::KeyNotATable(key.to_owned()))
        }
    };
    let root = doc.as_table_mut();
    table(root, "tool")?;
    let tool = root["tool"]
        .as_table_like_mut()
        .ok_or(LoopBoundError::NotATable("tool"))?;
    if tool.get("lacuna").is_none() {
        let mut t = Table::new();
        t.set_implicit(true);
        tool.insert("lacuna", Item::Table(t));
    }
    let lacuna = tool
        .get_mut("lacuna")
        .and_then(Item::as_table_like_mut)
        .ok_or(LoopBoundError::NotATable("tool.lacuna"))?;
    if lacuna.get("budget").is_none() {
        lacuna.insert("budget", Item::Table(Table::new()));
    }
    let budget = lacuna
        .get_mut("budget")
        .and_then(Item::as_table_like_mut)
        .ok_or(LoopBoundError::NotATable("tool.lacuna.budget"))?;
    budget.insert("loop-bound", value(i64::from(bound)));
    Ok(doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proposes_the_next_power_of_two() {
        assert_eq!(proposed(50), 64);
        assert_eq!(proposed(33), 64);
        assert_eq!(proposed(64), 128);
        assert_eq!(proposed(0), 2);
    }

    #[test]
    fn changes_only_the_bound() {
        let text = "[project]\nname = \"shop\"  # the shop\n\n[tool.lacuna.budget]\nfunction-time-ms = 3000\nloop-bound = 32\n\n[tool.lacuna.mcdc]\nenabled = true\n";
        let out = with_loop_bound(text, 64).unwrap();
        assert_eq!(out, text.replace("loop-bound = 32", "loop-bound = 64"));
    }

    #[test]
    fn creates_the_table_when_missing() {
        let text = "[project]\nname = \"p\"\n\n[tool.lacuna]\nsrc = [\".\"]\n";
        let out = with_loop_bound(text, 64).unwrap();
        assert!(out.starts_with(text), "{out}");
        assert!(
            out.ends_with("\n[tool.lacuna.budget]\nloop-bound = 64\n"),
            "{out}"
        );
        let empty = with_loop_bound("", 64).unwrap();
        assert_eq!(empty, "[tool.lacuna.budget]\nloop-bound = 64\n");
    }

    #[test]
    fn refuses_a_file_that_is_not_toml() {
        assert!(with_loop_bound("[tool.lacuna\n", 64).is_err());
    }
}
