//! The flow facts of one body ([`crate::flow`]): a walk over its statements, in source order,
//! recording what each reads and stores. Iterative, as the rest of the lowering, so that no
//! nesting overflows the stack; a nested `def`'s or `class`'s body is not entered.

use super::definitions::groups_targets;
use super::readable::arithmetic;
use super::source::{Source, named_children, range};
use crate::flow::{FunctionFlow, NameRead, ScopedName, Statement, Store, StoreKind};
use crate::text::TextRange;
use compact_str::CompactString;
use tree_sitter::Node;

/// The flow facts of the body of the `def` or `class` `node`, relative to `anchor`.
pub(super) fn definition_flow(source: &Source<'_>, node: Node<'_>, anchor: u32) -> FunctionFlow {
    FunctionFlow {
        statements: node
            .child_by_field_name("body")
            .map(|body| statements(source, named_children(body), anchor))
            .unwrap_or_default(),
        tests: vec![],
    }
}

/// The flow facts of `nodes`, statements of one body (the module's are at `anchor` 0).
pub(super) fn statements(source: &Source<'_>, nodes: Vec<Node<'_>>, anchor: u32) -> Vec<Statement> {
    let mut walk = Walk {
        source,
        anchor,
        statements: vec![],
        pending: nodes.into_iter().rev().map(|n| (n, 0)).collect(),
    };
    while let Some((node, depth)) = walk.pending.pop() {
        walk.statement(node, depth);
    }
    walk.statements
}

struct Walk<'s, 'a, 't> {
    source: &'s Source<'a>,
    anchor: u32,
    statements: Vec<Statement>,
    /// Statements and clauses still to visit, the next on top, with their depth.
    pending: Vec<(Node<'t>, u32)>,
}

impl<'t> Walk<'_, '_, 't> {
    /// Queues the statements of `block` (or of the clauses of a compound statement) to be
    /// visited next, in order.
    fn push_block(&mut self, block: Node<'t>, depth: u32) {
        let children = named_children(block);
        self.pending
            .extend(children.into_iter().rev().map(|child| (child, depth)));
    }

    fn push_clauses(&mut self, clauses: Vec<Node<'t>>, depth: u32) {
        self.pending
            .extend(clauses.into_iter().rev().map(|clause| (clause, depth)));
    }

    fn relative(&self, r: TextRange) -> TextRange {
        TextRange::new(
            r.start.saturating_sub(self.anchor),
            r.end.saturating_sub(self.anchor),
        )
    }

    fn statement(&mut self, node: Node<'t>, depth: u32) {
        let field = |name: &str| node.child_by_field_name(name);
        match node.kind() {
            "if_statement" | "elif_clause" | "while_statement" => {
                self.header(node, depth, field("condition"), None);
                let body = field("consequence").or_else(|| field("body"));
                let alternatives: Vec<Node<'t>> = {
                    let mut cursor = node.walk();
                    node.children_by_field_name("alternative", &mut cursor)
                        .collect()
                };
                self.push_clauses(alternatives, depth);
                if let Some(body) = body {
                    self.push_block(body, depth + 1);
                }
            }
            "for_statement" => {
                self.header(node, depth, field("right"), field("left"));
                self.push_clauses(field("alternative").into_iter().collect(), depth);
                if let Some(body) = field("body") {
                    self.push_block(body, depth + 1);
                }
            }
            "with_statement" => {
                let mut statement = self.new_statement(header_range(node), depth);
                let items = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "with_clause")
                    .flat_map(named_children);
                for item in items {
                    // `with open(p) as f`: what `f` is bound to is what `open(p)` returns.
                    self.bound_as(item.child_by_field_name("value"), true, &mut statement);
                }
                self.statements.push(statement);
                if let Some(body) = field("body") {
                    self.push_block(body, depth + 1);
                }
            }
            "try_statement" => {
                let clauses: Vec<Node<'t>> = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() != "block")
                    .collect();
                self.push_clauses(clauses, depth);
                if let Some(body) = field("body") {
                    self.push_block(body, depth + 1);
                }
            }
            "except_clause" | "except_group_clause" => {
                let mut statement = self.new_statement(header_range(node), depth);
                // `except E as e`: `e` is the exception raised, not a value `E` flows into.
                self.bound_as(field("value"), false, &mut statement);
                if let Some(alias) = field("alias") {
                    self.store_targets(alias, &[], StoreKind::Rebind, &mut statement);
                }
                self.statements.push(statement);
                self.push_blocks_of(node, depth + 1);
            }
            "else_clause" | "finally_clause" => self.push_blocks_of(node, depth + 1),
            "match_statement" => {
                let mut statement = self.new_statement(header_range(node), depth);
                let mut cursor = node.walk();
                for subject in node.children_by_field_name("subject", &mut cursor) {
                    self.absorb(Some(subject), &mut statement);
                }
                self.statements.push(statement);
                if let Some(body) = field("body") {
                    self.push_block(body, depth + 1);
                }
            }
            "case_clause" => {
                let mut statement = self.new_statement(header_range(node), depth);
                for pattern in named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "case_pattern")
                {
                    for capture in captures(pattern) {
                        statement
                            .stores
                            .push(self.store(capture, vec![], StoreKind::Rebind));
                    }
                }
                self.absorb(field("guard"), &mut statement);
                self.statements.push(statement);
                if let Some(body) = field("consequence") {
                    self.push_block(body, depth + 1);
                }
            }
            "decorated_definition" => {
                let Some(definition) = field("definition") else {
                    return;
                };
                let r = TextRange::new(range(node).start, header_range(definition).end);
                self.definition(definition, r, depth);
            }
            "function_definition" | "class_definition" => {
                self.definition(node, header_range(node), depth)
            }
            "block" => self.push_block(node, depth),
            "global_statement" | "nonlocal_statement" => {
                let mut statement = self.new_statement(range(node), depth);
                statement.outside = named_children(node)
                    .into_iter()
                    .filter(|c| c.kind() == "identifier")
                    .map(|c| CompactString::from(self.source.text(c)))
                    .collect();
                self.statements.push(statement);
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                let mut statement = self.new_statement(range(node), depth);
                let mut cursor = node.walk();
                let names: Vec<Node<'t>> =
                    node.children_by_field_name("name", &mut cursor).collect();
                for name in names {
                    let bound = match name.kind() {
                        "aliased_import" => name.child_by_field_name("alias"),
                        // `import a.b` binds `a`; `from m import b` binds `b`.
                        _ => named_children(name).into_iter().next(),
                    };
                    if let Some(bound) = bound {
                        statement
                            .stores
                            .push(self.store(bound, vec![], StoreKind::Rebind));
                    }
                }
                self.statements.push(statement);
            }
            "expression_statement" => self.expression_statement(node, depth),
            "delete_statement" => {
                let mut statement = self.new_statement(range(node), depth);
                self.absorb(Some(node), &mut statement);
                // `del name` unbinds it; `del name[k]` changes the object.
                for target in named_children(node) {
                    let targets = match target.kind() {
                        "expression_list" => named_children(target),
                        _ => vec![target],
                    };
                    for target in targets.into_iter().filter(|t| t.kind() == "identifier") {
                        statement
                            .stores
                            .push(self.store(target, vec![], StoreKind::Rebind));
                    }
                }
                self.statements.push(statement);
            }
            _ => {
                let mut statement = self.new_statement(range(node), depth);
                statement.leaves = matches!(node.kind(), "return_statement" | "raise_statement");
                self.absorb(Some(node), &mut statement);
                self.statements.push(statement);
            }
        }
    }

    /// `expr` or `expr as target`: the reads of `expr`, and a store to the target, of what
    /// `expr` reads when `flows`.
    fn bound_as(&self, value: Option<Node<'t>>, flows: bool, statement: &mut Statement) {
        let Some(value) = value else {
            return;
        };
        if value.kind() != "as_pattern" {
            return self.absorb(Some(value), statement);
        }
        let expr = named_children(value)
            .into_iter()
            .find(|c| c.kind() != "as_pattern_target");
        let from = match expr {
            Some(e) if flows => self.reads(e),
            _ => vec![],
        };
        if let Some(alias) = value.child_by_field_name("alias") {
            self.store_targets(alias, &from, StoreKind::Rebind, statement);
        }
        self.absorb(expr, statement);
    }

    fn push_blocks_of(&mut self, node: Node<'t>, depth: u32) {
        let blocks: Vec<Node<'t>> = named_children(node)
            .into_iter()
            .filter(|c| c.kind() == "block")
            .collect();
        for block in blocks.into_iter().rev() {
            self.push_block(block, depth);
        }
    }

    fn new_statement(&self, r: TextRange, depth: u32) -> Statement {
        Statement {
            range: self.relative(r),
            depth,
            ..Statement::default()
        }
    }

    /// The header of an `if`, `elif`, `while` or `for`: it reads `reads`; a `for` stores its
    /// iterable's values to `targets`.
    fn header(
        &mut self,
        node: Node<'t>,
        depth: u32,
        reads: Option<Node<'t>>,
        targets: Option<Node<'t>>,
    ) {
        let mut statement = self.new_statement(header_range(node), depth);
        if let Some(targets) = targets {
            let from = reads.map(|r| self.reads(r)).unwrap_or_default();
            self.store_targets(targets, &from, StoreKind::Rebind, &mut statement);
        }
        self.absorb(reads, &mut statement);
        self.statements.push(statement);
    }

    /// A nested `def` or `class`: it stores its name; its body is its own.
    fn definition(&mut self, node: Node<'t>, r: TextRange, depth: u32) {
        let mut statement = self.new_statement(r, depth);
        if let Some(name) = node.child_by_field_name("name") {
            statement
                .stores
                .push(self.store(name, vec![], StoreKind::Rebind));
        }
        self.statements.push(statement);
    }

    fn expression_statement(&mut self, node: Node<'t>, depth: u32) {
        let mut statement = self.new_statement(range(node), depth);
        for child in named_children(node) {
            match child.kind() {
                "assignment" | "augmented_assignment" => self.assignment(child, &mut statement),
                _ => {
                    self.absorb(Some(child), &mut statement);
                    // `name.update(…)`, `name.items.append(…)`: the object `name` holds changes.
                    if let Some(root) = changed_object(child) {
                        let from: Vec<NameRead> = self
                            .reads(child)
                            .into_iter()
                            .filter(|r| r.at != range(root).start - self.anchor)
                            .collect();
                        statement
                            .stores
                            .push(self.store(root, from, StoreKind::Change));
                    }
                }
            }
        }
        self.statements.push(statement);
    }

    /// `a = b = value`, `a: T = value`, `a += value`: the targets' stores, and the reads of
    /// the value and of the targets' objects and keys.
    fn assignment(&mut self, node: Node<'t>, statement: &mut Statement) {
        let kind = if node.kind() == "augmented_assignment" {
            StoreKind::Augment
        } else {
            StoreKind::Rebind
        };
        let mut targets = vec![];
        let mut value = Some(node);
        while let Some(v) = value.filter(|v| v.kind() == node.kind()) {
            targets.extend(v.child_by_field_name("left"));
            value = v.child_by_field_name("right");
        }
        let from = value.map(|v| self.values(v)).unwrap_or_default();
        let operator = node
            .child_by_field_name("operator")
            .map(|o| self.source.text(o));
        let arithmetic = match (value, operator) {
            (Some(value), None) => arithmetic(self.source, value),
            (Some(value), Some("+=" | "-=" | "*=" | "//=" | "%=" | "/=")) => {
                arithmetic(self.source, value).map(|mut a| {
                    a.float |= operator == Some("/=");
                    a.literal = None;
                    a
                })
            }
            _ => None,
        };
        let alias = match (targets.as_slice(), value) {
            ([target], Some(value))
                if kind == StoreKind::Rebind
                    && target.kind() == "identifier"
                    && value.kind() == "identifier" =>
            {
                Some(CompactString::from(self.source.text(value)))
            }
            _ => None,
        };
        for &target in &targets {
            let before = statement.stores.len();
            self.store_targets(target, &from, kind, statement);
            if target.kind() == "identifier"
                && let Some(store) = statement.stores.get_mut(before)
            {
                store.alias.clone_from(&alias);
                store.arithmetic.clone_from(&arithmetic);
            }
            let mut collector = Collector::new(self, Role::Target);
            // An augmented assignment reads its target too.
            if kind == StoreKind::Augment {
                collector.role_of_names = Role::Read;
            }
            collector.collect(target);
            collector.into(statement);
        }
        self.absorb(value, statement);
    }

    /// Stores to the names `target` binds (`a`, `a, (b, *c)`) or changes (`a[k]`, `a.x`).
    fn store_targets(
        &self,
        target: Node<'t>,
        from: &[NameRead],
        kind: StoreKind,
        statement: &mut Statement,
    ) {
        let mut work = vec![target];
        while let Some(node) = work.pop() {
            match node.kind() {
                "identifier" => statement.stores.push(self.store(node, from.to_vec(), kind)),
                "subscript" | "attribute" => {
                    let Some(root) = root_name(node) else {
                        continue;
                    };
                    let root_at = range(root).start - self.anchor;
                    let mut from = from.to_vec();
                    from.extend(self.reads(node).into_iter().filter(|r| r.at != root_at));
                    statement
                        .stores
                        .push(self.store(root, from, StoreKind::Change));
                }
                kind if groups_targets(kind) => {
                    work.extend(named_children(node).into_iter().rev());
                }
                _ => {}
            }
        }
    }

    fn store(&self, name: Node<'_>, from: Vec<NameRead>, kind: StoreKind) -> Store {
        Store {
            name: self.source.text(name).into(),
            kind,
            from,
            alias: None,
            arithmetic: None,
        }
    }

    /// The reads of `node`.
    fn reads(&self, node: Node<'t>) -> Vec<NameRead> {
        let mut collector = Collector::new(self, Role::Read);
        collector.collect(node);
        collector.reads
    }

    /// The reads of the values an assigned expression can take: of `a if c else b`, those of
    /// `a` and `b` — the condition decides which, but flows into neither.
    fn values(&self, node: Node<'t>) -> Vec<NameRead> {
        let mut out = vec![];
        let mut next = Some(node);
        while let Some(node) = next.take() {
            match node.kind() {
                "conditional_expression" => {
                    let parts = named_children(node);
                    if let Some(&then) = parts.first() {
                        out.extend(self.reads(then));
                    }
                    next = parts.get(2).copied();
                }
                "parenthesized_expression" => next = named_children(node).into_iter().next(),
                _ => out.extend(self.reads(node)),
            }
        }
        out
    }

    /// Adds what `node` reads, binds inside itself and stores through `:=` to `statement`.
    fn absorb(&self, node: Option<Node<'t>>, statement: &mut Statement) {
        if let Some(node) = node {
            let mut collector = Collector::new(self, Role::Read);
            collector.collect(node);
            collector.into(statement);
        }
    }
}

/// What an identifier met in an expression is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Read,
    /// An assignment's plain target: stored to, not read.
    Target,
    /// Bound inside the expression (a comprehension's target, a lambda's parameter).
    Scoped,
}

/// The names an expression reads and binds inside itself, and its `:=` stores.
struct Collector<'w, 's, 'a, 't> {
    walk: &'w Walk<'s, 'a, 't>,
    role_of_names: Role,
    reads: Vec<NameRead>,
    scoped: Vec<ScopedName>,
    stores: Vec<Store>,
}

impl<'w, 's, 'a, 't> Collector<'w, 's, 'a, 't> {
    fn new(walk: &'w Walk<'s, 'a, 't>, role: Role) -> Self {
        Collector {
            walk,
            role_of_names: role,
            reads: vec![],
            scoped: vec![],
            stores: vec![],
        }
    }

    fn into(self, statement: &mut Statement) {
        statement.reads.extend(self.reads);
        statement.scoped.extend(self.scoped);
        statement.stores.extend(self.stores);
    }

    fn at(&self, node: Node<'_>) -> u32 {
        range(node).start.saturating_sub(self.walk.anchor)
    }

    fn collect(&mut self, root: Node<'t>) {
        let mut work = vec![(root, self.role_of_names)];
        while let Some((node, role)) = work.pop() {
            let field = |name: &str| node.child_by_field_name(name);
            let mut push = |children: Vec<(Option<Node<'t>>, Role)>| {
                work.extend(
                    children
                        .into_iter()
                        .rev()
                        .filter_map(|(child, role)| child.map(|c| (c, role))),
                );
            };
            match node.kind() {
                "identifier" => match role {
                    Role::Read => self.reads.push(NameRead {
                        name: self.walk.source.text(node).into(),
                        attribute: None,
                        at: self.at(node),
                    }),
                    Role::Scoped => self.scoped.push(ScopedName {
                        name: self.walk.source.text(node).into(),
                        at: self.at(node),
                    }),
                    Role::Target => {}
                },
                "attribute" => {
                    let object = field("object");
                    match object.filter(|o| o.kind() == "identifier" && role != Role::Scoped) {
                        Some(object) => self.reads.push(NameRead {
                            name: self.walk.source.text(object).into(),
                            attribute: field("attribute")
                                .map(|a| CompactString::from(self.walk.source.text(a))),
                            at: self.at(object),
                        }),
                        None => push(vec![(object, Role::Read)]),
                    }
                }
                "keyword_argument" => push(vec![(field("value"), Role::Read)]),
                "subscript" => {
                    let mut children = vec![(field("value"), Role::Read)];
                    let mut cursor = node.walk();
                    children.extend(
                        node.children_by_field_name("subscript", &mut cursor)
                            .map(|s| (Some(s), Role::Read)),
                    );
                    push(children);
                }
                "for_in_clause" => {
                    let mut children = vec![(field("left"), Role::Scoped)];
                    let mut cursor = node.walk();
                    children.extend(
                        node.children_by_field_name("right", &mut cursor)
                            .map(|r| (Some(r), Role::Read)),
                    );
                    push(children);
                }
                "lambda" => push(vec![
                    (field("parameters"), Role::Scoped),
                    (field("body"), Role::Read),
                ]),
                "default_parameter" | "typed_default_parameter" => {
                    push(vec![(field("name"), role), (field("value"), Role::Read)])
                }
                "typed_parameter" | "type" => {}
                "named_expression" => {
                    if let Some(name) = field("name") {
                        let from = field("value")
                            .map(|v| self.walk.values(v))
                            .unwrap_or_default();
                        self.stores
                            .push(self.walk.store(name, from, StoreKind::Rebind));
                    }
                    push(vec![(field("value"), Role::Read)]);
                }
                "assignment" | "augmented_assignment" => {
                    // Only inside an expression statement's own handling; elsewhere (a
                    // malformed tree) its parts are reads.
                    push(
                        named_children(node)
                            .into_iter()
                            .map(|c| (Some(c), role))
                            .collect(),
                    );
                }
                kind => {
                    let groups = groups_targets(kind)
                        || matches!(kind, "lambda_parameters" | "dictionary_splat_pattern");
                    let inner = match role {
                        Role::Target | Role::Scoped if groups => role,
                        _ => Role::Read,
                    };
                    push(
                        named_children(node)
                            .into_iter()
                            .map(|c| (Some(c), inner))
                            .collect(),
                    );
                }
            }
        }
    }
}

/// A statement's header: from its start to the `:` before its block (the whole node when it
/// has no block).
fn header_range(node: Node<'_>) -> TextRange {
    let mut cursor = node.walk();
    let mut end = node.end_byte() as u32;
    let mut previous: Option<Node<'_>> = None;
    for child in node.children(&mut cursor) {
        if child.kind() == "block" {
            if let Some(p) = previous {
                end = p.end_byte() as u32;
            }
            break;
        }
        if !child.is_extra() {
            previous = Some(child);
        }
    }
    TextRange::new(node.start_byte() as u32, end)
}

/// The name at the root of `a.b[k].c`: the identifier its object chain starts with.
fn root_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    loop {
        node = match node.kind() {
            "identifier" => return Some(node),
            "subscript" => node.child_by_field_name("value")?,
            "attribute" => node.child_by_field_name("object")?,
            "parenthesized_expression" => named_children(node).into_iter().next()?,
            _ => return None,
        };
    }
}

/// The name whose object an expression statement changes through a method or attribute of
/// it: `name.update(…)`, `name.items.append(…)` — the name directly followed by `.`.
fn changed_object(expression: Node<'_>) -> Option<Node<'_>> {
    let mut node = expression;
    let mut above: Option<Node<'_>> = None;
    loop {
        let next = match node.kind() {
            "identifier" => {
                return above.filter(|a| a.kind() == "attribute").map(|_| node);
            }
            "call" => node.child_by_field_name("function")?,
            "attribute" => node.child_by_field_name("object")?,
            "subscript" => node.child_by_field_name("value")?,
            _ => return None,
        };
        above = Some(node);
        node = next;
    }
}

/// The names a `case` pattern captures (`case [x, *rest]`, `case {"k": v}`, `case P(x=a)`,
/// `case _ as whole`): a lone name, not a dotted one (a value pattern) nor a class pattern's
/// class.
fn captures(pattern: Node<'_>) -> Vec<Node<'_>> {
    let mut out = vec![];
    let mut work = vec![pattern];
    while let Some(node) = work.pop() {
        match node.kind() {
            "dotted_name" => {
                let parts = named_children(node);
                if let [name] = parts.as_slice()
                    && node.parent().is_none_or(|p| {
                        p.kind() != "class_pattern"
                            || p.named_child(0).is_none_or(|c| c.id() != node.id())
                    })
                {
                    out.push(*name);
                }
            }
            "identifier" => out.push(node),
            "keyword_pattern" => work.extend(named_children(node).into_iter().skip(1).rev()),
            _ => work.extend(named_children(node).into_iter().rev()),
        }
    }
    out
}
