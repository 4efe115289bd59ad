//! What a decision reads: the names in its condition, followed back through the statements
//! before it that bind or change them (`now = time.monotonic()` … `expired = [k for k, (at, _)
//! in self._entries.items() if at <= now]` … `if expired:`), down to the parameters, object
//! fields and call sites it depends on. Textual and within one function: it explains conditions
//! the agent saw only concretely, where no symbolic expression says what they depend on.

use crate::explore::coverage::FunctionUnderTest;
use lacuna_grammar::{DecisionKind, FunctionKind, TextRange};

/// What a decision depends on, as far as its function's text says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    /// Line spans (0-based, inclusive) of the code the decision depends on: the decision's
    /// own first, then the statements that bind what it reads, nearest first.
    pub spans: Vec<(u32, u32)>,
    /// Parameters read (the receiver excluded).
    pub params: Vec<String>,
    /// `(root, field)` pairs read, the root being the receiver or a parameter.
    pub fields: Vec<(String, String)>,
    /// Names read that the function does not bind and that are not builtins: module globals
    /// and imported modules, which other code may change.
    pub globals: Vec<String>,
}

const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "enumerate",
    "float",
    "frozenset",
    "int",
    "isinstance",
    "issubclass",
    "len",
    "list",
    "max",
    "min",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "sorted",
    "str",
    "sum",
    "tuple",
    "type",
    "zip",
];

/// One logical line of the body: its line span and its text with string contents and
/// comments blanked out.
#[derive(Debug)]
struct Statement {
    start: u32,
    end: u32,
    offset: u32,
    /// The column it starts at: deeper than another's, it is in a block nested in it.
    indent: u32,
    code: String,
}

const KEYWORDS: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "True",
    "False", "None",
];

/// What decision `d` of `f` depends on.
pub fn sources(f: &FunctionUnderTest, d: usize) -> Sources {
    let decision = &f.syntax.decisions[d];
    let range = decision.range.absolute(f.anchor);
    let statements = statements(f);
    // A comprehension's `if`, a ternary or a boolean value reads names its statement binds
    // (`for k, v in …` of the comprehension): the whole statement is its condition.
    let own = match decision.kind {
        DecisionKind::ComprehensionIf | DecisionKind::Ternary | DecisionKind::BoolValue => {
            statements
                .iter()
                .find(|s| s.offset <= range.start && range.end <= s.offset + s.code.len() as u32)
                .map(|s| (s.start, s.end, s.code.clone()))
        }
        _ => None,
    };
    let (start, end, text) = own.unwrap_or_else(|| {
        let line = |o: u32| f.lines.line_col(o).line;
        (
            line(range.start),
            line(range.end),
            blank(
                f.text
                    .get(range.start as usize..range.end as usize)
                    .unwrap_or(""),
            ),
        )
    });
    let before: Vec<&Statement> = statements.iter().filter(|s| s.end < start).collect();
    read_back(
        f,
        &statements,
        &before,
        (start, end),
        indent(f, start),
        &text,
    )
}

/// The column of the first character of line `line`.
fn indent(f: &FunctionUnderTest, line: u32) -> u32 {
    let Some(range) = f.lines.line_range(line) else {
        return 0;
    };
    let text = f
        .text
        .get(range.start as usize..range.end as usize)
        .unwrap_or("");
    (text.len() - text.trim_start().len()) as u32
}

/// What a header (a loop's `for x in …`) reads, from the statements before `at`.
pub fn sources_of_text(f: &FunctionUnderTest, at: TextRange, text: &str) -> Sources {
    let statements = statements(f);
    let start = f.lines.line_col(at.start).line;
    let end = f.lines.line_col(at.end).line;
    let before: Vec<&Statement> = statements.iter().filter(|s| s.end < start).collect();
    read_back(
        f,
        &statements,
        &before,
        (start, end),
        indent(f, start),
        &blank(text),
    )
}

fn read_back(
    f: &FunctionUnderTest,
    all: &[Statement],
    before: &[&Statement],
    own: (u32, u32),
    own_indent: u32,
    text: &str,
) -> Sources {
    let params: Vec<&str> = f
        .syntax
        .params
        .iter()
        .map(|p| p.name.as_str())
        .filter(|n| !receiver(f, n))
        .collect();
    let mut out = Sources {
        spans: vec![own],
        ..Sources::default()
    };
    let mut work: Vec<String> = vec![];
    let mut seen: Vec<String> = vec![];
    // Attributes read on names that are neither the receiver nor a parameter (`version.x`):
    // fields when the name turns out to be an alias of one (`version = self`).
    let mut attributes: Vec<(String, String)> = vec![];
    absorb(f, text, &params, &mut out, &mut work, &mut attributes);
    while let Some(name) = work.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        if let Some(root) = all
            .iter()
            .find_map(|s| alias_of(&s.code, &name))
            .filter(|root| receiver(f, root) || params.contains(root))
        {
            for (_, attr) in attributes.iter().filter(|(n, _)| *n == name) {
                if !out.fields.iter().any(|(r, a)| *r == root && a == attr) {
                    out.fields.push((root.to_owned(), attr.clone()));
                }
            }
        }
        // A name the function declares `global` (or `nonlocal`) is module state even where
        // the function assigns it: other calls may have changed it.
        let outside = all.iter().any(|s| declares_outside(&s.code, &name));
        let bound = !outside
            && (all.iter().any(|s| makes_local(&s.code, &name))
                || text.contains(&format!("for {name} "))
                || text.contains(&format!("for {name},"))
                || text.contains(&format!(", {name} in "))
                || text.contains(&format!("lambda {name}")));
        if !bound && !BUILTINS.contains(&name.as_str()) && !out.globals.contains(&name) {
            out.globals.push(name.clone());
        }
        for s in before.iter().rev() {
            let Some(reads) = binds(&s.code, &name) else {
                continue;
            };
            if !out.spans.contains(&(s.start, s.end)) {
                out.spans.push((s.start, s.end));
            }
            absorb(f, &reads, &params, &mut out, &mut work, &mut attributes);
            // A plain rebinding hides what came before it, unless it is in a nested block
            // (`if attempts > 10: budget = 20`), which may not run.
            if s.indent <= own_indent && is_rebinding(&s.code, &name) {
                break;
            }
        }
    }
    out.fields = through_methods(f, std::mem::take(&mut out.fields));
    out
}

/// The receiver's fields a method reads, directly or through the receiver's other methods.
pub fn receiver_fields(f: &FunctionUnderTest) -> Vec<String> {
    let Some(me) = f.syntax.params.first().filter(|_| receiver_of(f)) else {
        return vec![];
    };
    let direct = f
        .syntax
        .field_reads
        .iter()
        .map(|field| (me.name.to_string(), field.to_string()))
        .collect();
    through_methods(f, direct)
        .into_iter()
        .map(|(_, field)| field)
        .collect()
}

fn receiver_of(f: &FunctionUnderTest) -> bool {
    f.syntax.is_method() && !f.syntax.is_staticmethod()
}

/// Fields read through the receiver's own methods: `self.available(sku)` reads what
/// `available` reads (`self._stock`, `self._reserved`), and so on down its calls.
fn through_methods(f: &FunctionUnderTest, fields: Vec<(String, String)>) -> Vec<(String, String)> {
    let Some(class) = f.syntax.class.as_deref() else {
        return fields;
    };
    if !fields.iter().any(|(root, _)| receiver(f, root)) {
        return fields;
    }
    let reads = |method: &str| -> Option<Vec<String>> {
        let qualname = format!("{class}.{method}");
        f.file_syntax
            .functions
            .iter()
            .find(|m| *m.syntax.qualname == *qualname && m.syntax.kind == FunctionKind::Def)
            .map(|m| m.syntax.field_reads.iter().map(|r| r.to_string()).collect())
    };
    let mut out: Vec<(String, String)> = vec![];
    let mut expanded: Vec<String> = vec![];
    let mut work: std::collections::VecDeque<(String, String)> = fields.into();
    while let Some((root, attr)) = work.pop_front() {
        if receiver(f, &root)
            && let Some(inner) = reads(&attr)
        {
            if !expanded.contains(&attr) {
                expanded.push(attr);
                work.extend(inner.into_iter().map(|field| (root.clone(), field)));
            }
            continue;
        }
        if !out.contains(&(root.clone(), attr.clone())) {
            out.push((root, attr));
        }
    }
    out
}

pub(super) fn receiver(f: &FunctionUnderTest, name: &str) -> bool {
    f.syntax.is_method()
        && !f.syntax.is_staticmethod()
        && f.syntax.params.first().is_some_and(|p| p.name == name)
}

/// Records what `text` reads: parameters, fields of the receiver or of parameters, and the
/// other names to follow back.
fn absorb(
    f: &FunctionUnderTest,
    text: &str,
    params: &[&str],
    out: &mut Sources,
    work: &mut Vec<String>,
    attributes: &mut Vec<(String, String)>,
) {
    for (name, attr) in names(text) {
        let is_param = params.contains(&name.as_str());
        if let Some(attr) = attr {
            if is_param || receiver(f, &name) {
                if !out.fields.iter().any(|(r, a)| *r == name && *a == attr) {
                    out.fields.push((name.clone(), attr));
                }
            } else if !attributes.iter().any(|(n, a)| *n == name && *a == attr) {
                attributes.push((name.clone(), attr));
            }
        }
        if is_param && !out.params.contains(&name) {
            out.params.push(name.clone());
        }
        if !is_param && !receiver(f, &name) {
            work.push(name);
        }
    }
}

/// Identifiers of `code` that are not attributes, each with the attribute that follows it
/// (`self._entries.get(k)` → `("self", Some("_entries"))`, `("k", None)`).
fn names(code: &str) -> Vec<(String, Option<String>)> {
    let bytes = code.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut out = vec![];
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            // A number, `1e5` and `0x1f` included.
            while i < bytes.len() && (ident(bytes[i]) || bytes[i] == b'.') {
                i += 1;
            }
            continue;
        }
        if !ident(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && ident(bytes[i]) {
            i += 1;
        }
        let name = &code[start..i];
        let attribute = code[..start].trim_end().ends_with('.');
        // A keyword argument's name (`key=`) is not a read.
        let rest = code[i..].trim_start();
        let keyword_arg = rest.starts_with('=') && !rest.starts_with("==");
        if attribute || keyword_arg || KEYWORDS.contains(&name) {
            continue;
        }
        let attr = rest.strip_prefix('.').map(|r| {
            r.trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        });
        out.push((name.to_owned(), attr.filter(|a| !a.is_empty())));
    }
    out
}

/// When statement `code` binds or changes `name`, the text whose values flow into it.
/// `global name` or `nonlocal name`.
fn declares_outside(code: &str, name: &str) -> bool {
    let code = code.trim();
    ["global ", "nonlocal "].iter().any(|kw| {
        code.strip_prefix(kw)
            .is_some_and(|rest| rest.split(',').any(|n| n.trim() == name))
    })
}

/// `name = other` with `other` a plain name: what `name` aliases.
fn alias_of<'a>(code: &'a str, name: &str) -> Option<&'a str> {
    let (targets, value, augmented) = assignment(code.trim())?;
    let value = value.trim();
    (!augmented
        && targets.trim() == name
        && !value.is_empty()
        && value.chars().all(|c| c.is_alphanumeric() || c == '_'))
    .then_some(value)
}

/// Whether `code` makes `name` a local of the function, as Python's scoping does: a `for` or
/// `with … as` target, or a plain, annotated or augmented assignment to the name itself.
/// `name[k] = …`, `name.x = …` and `name.append(…)` change the object a module global names,
/// which leaves the name global: other calls (and earlier ones) see the change.
fn makes_local(code: &str, name: &str) -> bool {
    let code = code.trim();
    if let Some(rest) = code.strip_prefix("for ") {
        return split_top(rest, " in ")
            .is_some_and(|(targets, _)| target_names(targets).contains(&name));
    }
    if code.starts_with("with ") {
        return code
            .rsplit_once(" as ")
            .is_some_and(|(_, target)| target.trim_end_matches(':').trim() == name);
    }
    assignment(code).is_some_and(|(targets, _, _)| {
        split_commas(targets)
            .iter()
            .any(|t| t.trim().trim_matches(|c| c == '(' || c == ')').trim() == name)
    })
}

fn binds(code: &str, name: &str) -> Option<String> {
    let code = code.trim();
    if let Some(rest) = code.strip_prefix("for ") {
        let (targets, iter) = split_top(rest, " in ")?;
        return target_names(targets)
            .contains(&name)
            .then(|| iter.trim_end_matches(':').to_owned());
    }
    if code.starts_with("with ") {
        let (expr, target) = code.rsplit_once(" as ")?;
        return (target.trim_end_matches(':').trim() == name)
            .then(|| expr.trim_start_matches("with ").to_owned());
    }
    if let Some((targets, value, _)) = assignment(code) {
        for target in split_commas(targets) {
            let target = target.trim().trim_matches(|c| c == '(' || c == ')');
            let head = leading_name(target);
            if head == Some(name) {
                // `name = …`, `name[k] = …`, `name.x = …`: the value, and a subscript's key.
                return Some(format!("{} {}", values_of(value), &target[name.len()..]));
            }
        }
        return None;
    }
    // `name.update(…)`, `name.append(…)`: a change through a method.
    let rest = code.strip_prefix(name)?;
    rest.starts_with('.').then(|| rest.to_owned())
}

/// The values an expression can take: `a if c else b` → `a b`. The condition decides which,
/// but flows into neither: a value chosen between literals does not depend on it.
fn values_of(value: &str) -> String {
    match split_top(value, " if ") {
        Some((then, rest)) => match split_top(rest, " else ") {
            Some((_, otherwise)) => format!("{then} {}", values_of(otherwise)),
            None => value.to_owned(),
        },
        None => value.to_owned(),
    }
}

/// Whether `code` binds `name` afresh (`name = …`, not `name += …` or `name[k] = …`).
fn is_rebinding(code: &str, name: &str) -> bool {
    let code = code.trim();
    if code.starts_with("for ") || code.starts_with("with ") {
        return true;
    }
    match assignment(code) {
        Some((targets, _, augmented)) => {
            !augmented
                && split_commas(targets)
                    .iter()
                    .any(|t| t.trim().trim_matches(|c| c == '(' || c == ')').trim() == name)
        }
        None => false,
    }
}

/// `targets = value` or `targets op= value` at the top level of `code`: the targets (an
/// annotation left out), the value, and whether the assignment is augmented.
fn assignment(code: &str) -> Option<(&str, &str, bool)> {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = i.checked_sub(1).map(|j| bytes[j]);
                if bytes.get(i + 1) == Some(&b'=')
                    || matches!(prev, Some(b'=' | b'!' | b'<' | b'>' | b':'))
                {
                    continue;
                }
                let mut t = i;
                while t > 0 && b"+-*/%&|^@".contains(&bytes[t - 1]) {
                    t -= 1;
                }
                let targets = code[..t].trim();
                let targets = targets.split(':').next().unwrap_or(targets).trim();
                if targets.is_empty() || !targets.starts_with(is_name_start) {
                    return None;
                }
                return Some((targets, &code[i + 1..], t < i));
            }
            _ => {}
        }
    }
    None
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '('
}

fn leading_name(target: &str) -> Option<&str> {
    let end = target
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(target.len());
    (end > 0).then(|| &target[..end])
}

fn target_names(targets: &str) -> Vec<&str> {
    targets
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .collect()
}

fn split_commas(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut depth = 0i32;
    let mut last = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[last..i]);
                last = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[last..]);
    out
}

/// `a in b` split at the first top-level `sep`.
fn split_top<'a>(text: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(sep) => {
                return Some((&text[..i], &text[i + sep.len()..]));
            }
            _ => {}
        }
    }
    None
}

/// The logical lines of the function's body.
fn statements(f: &FunctionUnderTest) -> Vec<Statement> {
    let body = f.syntax.body.absolute(f.anchor);
    let Some(text) = f.text.get(body.start as usize..body.end as usize) else {
        return vec![];
    };
    let code = blank(text);
    let mut out = vec![];
    let mut depth = 0i32;
    let mut begin: Option<usize> = None;
    let mut continued = false;
    for (i, c) in code.char_indices() {
        if begin.is_none() && !c.is_whitespace() {
            begin = Some(i);
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '\\' => continued = true,
            '\n' => {
                if depth <= 0 && !continued {
                    if let Some(b) = begin.take() {
                        push_statement(f, body.start, &code, b, i, &mut out);
                    }
                    depth = 0;
                }
                continued = false;
            }
            c if !c.is_whitespace() => continued = false,
            _ => {}
        }
    }
    if let Some(b) = begin {
        push_statement(f, body.start, &code, b, code.len(), &mut out);
    }
    out
}

fn push_statement(
    f: &FunctionUnderTest,
    base: u32,
    code: &str,
    begin: usize,
    end: usize,
    out: &mut Vec<Statement>,
) {
    let text = code[begin..end].trim_end();
    if text.is_empty() {
        return;
    }
    let offset = base + begin as u32;
    out.push(Statement {
        start: f.lines.line_col(offset).line,
        indent: f.lines.line_col(offset).col,
        end: f.lines.line_col(offset + text.len() as u32).line,
        offset,
        code: text.to_owned(),
    });
}

/// `text` with the contents of string literals and comments replaced by spaces, offsets kept.
fn blank(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut quote: Option<(char, bool)> = None;
    while let Some((i, c)) = chars.next() {
        match quote {
            None if c == '#' => {
                out.push(' ');
                while let Some(&(_, n)) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    chars.next();
                    out.push_str(&" ".repeat(n.len_utf8()));
                }
            }
            None if c == '\'' || c == '"' => {
                let triple = text[i..].starts_with(&c.to_string().repeat(3));
                out.push(c);
                if triple {
                    for _ in 0..2 {
                        chars.next();
                        out.push(c);
                    }
                }
                quote = Some((c, triple));
            }
            None => out.push(c),
            Some((q, triple)) => {
                if c == '\\' {
                    out.push(' ');
                    if let Some((_, n)) = chars.next() {
                        out.push_str(&" ".repeat(n.len_utf8()));
                    }
                } else if c == q && (!triple || text[i..].starts_with(&q.to_string().repeat(3))) {
                    out.push(c);
                    if triple {
                        for _ in 0..2 {
                            chars.next();
                            out.push(c);
                        }
                    }
                    quote = None;
                } else if c == '\n' {
                    out.push('\n');
                } else {
                    out.push_str(&" ".repeat(c.len_utf8()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
