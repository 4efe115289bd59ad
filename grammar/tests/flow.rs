//! The flow facts of a function: what each statement reads and stores, read from the tree.

use lacuna_grammar::{FunctionFlow, NameRead, Statement, StoreKind, flow, parse};

/// The flow facts of `name`, one line per statement: its first line and depth, what it reads
/// (`name.attribute`), binds inside itself (`[k]`), stores (`name = from…`, `+=` augmented,
/// `.=` changed, `~alias`) and declares global.
fn shown(text: &str, name: &str) -> String {
    let module = parse(text);
    let function = module
        .functions
        .iter()
        .find(|f| f.syntax.name == name)
        .expect("the function is defined");
    let facts: FunctionFlow = flow(text).function(&function.id);
    let line = |at: u32| {
        text[..(function.anchor.offset + at) as usize]
            .matches('\n')
            .count()
    };
    let read = |r: &NameRead| match &r.attribute {
        Some(a) => format!("{}.{a}", r.name),
        None => r.name.to_string(),
    };
    let reads = |rs: &[NameRead]| rs.iter().map(read).collect::<Vec<_>>().join(" ");
    let statement = |s: &Statement| {
        let mut out = format!(
            "{:>2} {}{}",
            line(s.range.start),
            "  ".repeat(s.depth as usize),
            &text[(function.anchor.offset + s.range.start) as usize
                ..(function.anchor.offset + s.range.end) as usize]
                .split('\n')
                .next()
                .unwrap_or(""),
        );
        out.push_str(&format!("\n     reads: {}", reads(&s.reads)));
        if !s.scoped.is_empty() {
            let scoped: Vec<&str> = s.scoped.iter().map(|n| n.name.as_str()).collect();
            out.push_str(&format!("\n     scoped: {}", scoped.join(" ")));
        }
        for store in &s.stores {
            let op = match store.kind {
                StoreKind::Rebind => "=",
                StoreKind::Augment => "+=",
                StoreKind::Change => ".=",
            };
            out.push_str(&format!(
                "\n     {} {op} {}",
                store.name,
                reads(&store.from)
            ));
            if let Some(alias) = &store.alias {
                out.push_str(&format!(" ~{alias}"));
            }
        }
        if !s.outside.is_empty() {
            let outside: Vec<&str> = s.outside.iter().map(|n| n.as_str()).collect();
            out.push_str(&format!("\n     outside: {}", outside.join(" ")));
        }
        out
    };
    facts
        .statements
        .iter()
        .map(statement)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn statements_read_and_store_as_python_scopes_them() {
    let text = r#"
import time

class Cache:
    def purge(self, grace: float, *, extra=None) -> int:
        global HITS
        import os.path, json as j
        now = time.monotonic() - grace  # "now" in a comment = self.x
        expired = [k for k, (at, _) in self._entries.items() if at <= now]
        for key, value in expired:
            del self._entries[key]
        total: int = self._hits + self._misses
        total += len(os.environ)
        level = "high" if grace > 1 else fallback(extra)
        table = me = self
        table[key].x = value
        self.seen.update(found, key=extra)
        with open(name) as handle, lock:
            pass
        try:
            if (n := len(expired)) > 3 or label == f"{total}":
                return sorted(expired, key=lambda e: e.at)
            elif not expired:
                HITS += 1
        except (KeyError, ValueError) as error:
            raise
        finally:
            total = 0
        match total:
            case 0 if level:
                pass

        def helper(x):
            return x + grace

        return helper(total)
"#;
    insta::assert_snapshot!(shown(text, "purge"));
}
