//! The flow facts of a function: what each statement reads and stores, read from the tree.

use lacuna_grammar::{FunctionFlow, NameRead, Statement, StoreKind, flow, parse};

/// A store's arithmetic value: `[int a b]`, `[float]`, `[int =10]`.
fn arithmetic(a: &lacuna_grammar::Arithmetic) -> String {
    let mut out = String::from(if a.float { "[float" } else { "[int" });
    for name in &a.names {
        out.push(' ');
        out.push_str(name);
    }
    if let Some(x) = a.literal {
        out.push_str(&format!(" ={x}"));
    }
    out.push(']');
    out
}

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
    shown_flow(text, function.anchor.offset, &facts)
}

fn shown_flow(text: &str, anchor: u32, facts: &FunctionFlow) -> String {
    let line = |at: u32| text[..(anchor + at) as usize].matches('\n').count();
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
            &text[(anchor + s.range.start) as usize..(anchor + s.range.end) as usize]
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
            if let Some(a) = &store.arithmetic {
                out.push_str(&format!(" {}", arithmetic(a)));
            }
        }
        if s.leaves {
            out.push_str("\n     leaves the function");
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

#[test]
fn the_module_and_class_bodies_have_flow_facts_and_arithmetic_values_are_read() {
    let text = r#"
LIMIT: int = -10
RATE = 2.5e0
FLAG = True
WIDE, TALL = 1, 2
IMAG = 1j
SHIFTED = 1 << 3
del WIDE


class Box:
    SIDE = LIMIT * 2 // 3
    def area(self, side: int) -> float:
        total = side ** 2 + (SIDE % 4)
        total /= 2
        total |= 1
        count = n = 0
        match side:
            case 0 | Box.SIDE:
                pass
            case [first, *rest] if first:
                pass
            case Point(x=along) as whole:
                pass
        return total
"#;
    let module = parse(text);
    let facts = flow(text);
    let body = |name: &str| {
        let f = module
            .functions
            .iter()
            .find(|f| f.syntax.name == name)
            .expect("the body is defined");
        shown_flow(text, f.anchor.offset, &facts.function(&f.id))
    };
    insta::assert_snapshot!(format!(
        "<module>\n{}\nBox\n{}\narea\n{}",
        body("<module>"),
        body("Box"),
        body("area")
    ));
}

#[test]
fn a_block_leaves_when_its_last_statement_returns_or_raises() {
    let text = r#"
def f(x, y):
    if x:
        if y:
            return 1
    elif y:
        y += 1
        raise ValueError(y)
    else:
        return 2  # done
        # nothing after
    return 0
"#;
    let module = parse(text);
    let f = module
        .functions
        .iter()
        .find(|f| f.syntax.name == "f")
        .unwrap();
    let facts = flow(text).function(&f.id);
    let sides: Vec<String> = f
        .syntax
        .decisions
        .iter()
        .flat_map(|d| d.sides.iter().map(move |s| (d, s)))
        .filter_map(|(d, s)| {
            let target = s.target?;
            let at = |r: lacuna_grammar::TextRange| (f.anchor.offset + r.start) as usize;
            let first = text[at(target)..].lines().next().unwrap_or("").trim();
            Some(format!(
                "{} {}: {} {}",
                &text[at(d.range)..(f.anchor.offset + d.range.end) as usize],
                s.outcome,
                first,
                facts.block_leaves(target)
            ))
        })
        .collect();
    // `if x` true: its last statement is `if y`; its false side's is the `elif` (each of whose
    // branches leaves, which is not looked into); `elif y` true: `raise`; false: `return 2`.
    assert_eq!(
        sides,
        vec![
            "x true: if y: false",
            "x false: elif y: false",
            "y true: return 1 true",
            "y true: y += 1 true",
            "y false: return 2  # done true",
        ]
    );
}
