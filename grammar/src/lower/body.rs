//! What the walk records of the body of the function it is in: decisions (with their IDs and
//! conditions), calls, bindings, field reads and writes, loops, `except` clauses, asserts,
//! returned names and whether it is a generator.

use super::source::{self, dotted_name, range};
use super::{Lowerer, decisions, definitions, readable};
use crate::decision::{BranchSide, Condition, Decision};
use crate::ids::DecisionId;
use crate::syntax::*;
use crate::text::TextRange;
use compact_str::CompactString;
use std::sync::Arc;
use tree_sitter::Node;

impl Lowerer<'_> {
    pub(super) fn add_decision(&mut self, node: Node<'_>) {
        let structural = &mut self.structural;
        let Some(found) = decisions::decision_of(&self.source, node, &mut |id| {
            structural.insert(id);
        }) else {
            return;
        };
        let range = self.relative(found.range);
        let keyword = self.relative(found.keyword);
        let targets = found.targets.map(|t| t.map(|t| self.relative(t)));
        if self.flow.is_some()
            && let Ok(lowered) = &found.lowered
        {
            self.record_tests(node, &lowered.conditions);
        }
        let builder = self.current();
        let occurrence = {
            let n = builder
                .decision_keys
                .entry((found.kind, found.text.clone()))
                .or_insert(0);
            *n += 1;
            *n
        };
        let id = DecisionId::new(
            &builder.function.id,
            found.kind.as_str(),
            &found.text,
            occurrence,
        );
        let anchor = builder.function.anchor.offset;
        let (expr, unmodelled, conditions) = match found.lowered {
            Ok(lowered) => {
                let conditions = lowered
                    .conditions
                    .into_iter()
                    .enumerate()
                    .map(|(i, leaf)| Condition {
                        index: i as u16,
                        range: TextRange::new(leaf.range.start - anchor, leaf.range.end - anchor),
                        text: leaf.text.into(),
                        branches: leaf
                            .branches
                            .into_iter()
                            .map(|b| TextRange::new(b.start - anchor, b.end - anchor))
                            .collect(),
                        literal: leaf.literal,
                        field_test: leaf.field_test,
                    })
                    .collect();
                (Some(lowered.expr), None, conditions)
            }
            Err(why) => (None, Some(why), vec![]),
        };
        let sides = [
            BranchSide {
                outcome: true,
                target: targets[0],
            },
            BranchSide {
                outcome: false,
                target: targets[1],
            },
        ];
        Arc::make_mut(&mut builder.function.syntax)
            .decisions
            .push(Decision {
                id,
                kind: found.kind,
                range,
                keyword,
                expr,
                unmodelled,
                conditions: conditions.into(),
                sides,
            });
    }

    /// The readable tests of a decision's leaf conditions, for the flow facts.
    fn record_tests(&mut self, decision: Node<'_>, leaves: &[decisions::Leaf]) {
        let function = &self.functions[self.scope().function].function;
        let (id, anchor) = (function.id.clone(), function.anchor.offset);
        let tests: Vec<_> = leaves
            .iter()
            .filter_map(|leaf| {
                let (start, end) = (leaf.range.start as usize, leaf.range.end as usize);
                let node = decision.descendant_for_byte_range(start, end)?;
                let test = readable::test(&self.source, node, leaf.range)?;
                let range = TextRange::new(leaf.range.start - anchor, leaf.range.end - anchor);
                Some((range, test))
            })
            .collect();
        if let Some(flows) = &mut self.flow {
            flows.functions.entry(id).or_default().tests.extend(tests);
        }
    }

    pub(super) fn add_call(&mut self, node: Node<'_>) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let callee =
            dotted_name(&self.source, function).unwrap_or_else(|| self.source.collapsed(function));
        let arg_count = node
            .child_by_field_name("arguments")
            .map(|a| source::named_children(a).len() as u32)
            .unwrap_or(0);
        let r = self.relative(range(node));
        Arc::make_mut(&mut self.current().function.syntax)
            .calls
            .push(CallSite {
                callee: callee.into(),
                range: r,
                arg_count,
            });
    }

    /// The names `node` binds in the function it is in ([`FunctionSyntax::bindings`]).
    pub(super) fn record_bindings(&mut self, node: Node<'_>) {
        if self.current().function.syntax.kind != FunctionKind::Def {
            return;
        }
        let mut names: Vec<Node<'_>> = vec![];
        match node.kind() {
            "assignment" | "augmented_assignment" | "for_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    definitions::bound_names(left, &mut names);
                }
            }
            "as_pattern" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    definitions::bound_names(alias, &mut names);
                }
            }
            "named_expression" => names.extend(node.child_by_field_name("name")),
            "delete_statement" | "global_statement" | "nonlocal_statement" => {
                for child in source::named_children(node) {
                    definitions::bound_names(child, &mut names);
                }
            }
            _ => {}
        }
        for name in names {
            let binding = Binding {
                name: self.source.text(name).into(),
                range: self.relative(range(name)),
            };
            Arc::make_mut(&mut self.current().function.syntax)
                .bindings
                .push(binding);
        }
    }

    pub(super) fn record_field_access(&mut self, node: Node<'_>) {
        let index = self.scope().function;
        let anchor = self.functions[index].function.anchor.offset;
        let builder = &mut self.functions[index];
        if node.kind() == "attribute" {
            if definitions::is_store_target(node) {
                return;
            }
            let Some((object, field)) = definitions::name_attribute(&self.source, node) else {
                return;
            };
            let receiver = builder.receiver.as_ref().map(|(r, _)| r.as_str());
            let syntax = Arc::make_mut(&mut builder.function.syntax);
            if receiver == Some(object) {
                if !syntax.field_reads.iter().any(|r| r == field) {
                    syntax.field_reads.push(field.into());
                }
            } else if !definitions::called(node)
                && syntax.params.iter().any(|p| p.name == object)
                && !syntax
                    .param_field_reads
                    .iter()
                    .any(|r| r.param == object && r.field == field)
            {
                syntax.param_field_reads.push(ParamFieldRead {
                    param: object.into(),
                    field: field.into(),
                });
            }
            return;
        }
        let Some((receiver, _)) = &builder.receiver else {
            return;
        };
        let syntax = Arc::make_mut(&mut builder.function.syntax);
        let writes = definitions::field_writes(
            &self.source,
            node,
            receiver,
            &syntax.params,
            &builder.aliases,
        );
        definitions::track_aliases(&self.source, node, receiver, &mut builder.aliases);
        for mut w in writes {
            w.range = TextRange::new(w.range.start - anchor, w.range.end - anchor);
            syntax.field_writes.push(w);
        }
    }

    pub(super) fn add_loop(&mut self, node: Node<'_>) {
        let (kind, header_end, iter) = match node.kind() {
            "for_statement" => {
                let right = node.child_by_field_name("right");
                (
                    LoopKind::For,
                    right.map(|r| r.end_byte()),
                    right.map(|r| self.source.collapsed(r)),
                )
            }
            _ => (
                LoopKind::While,
                node.child_by_field_name("condition").map(|c| c.end_byte()),
                None,
            ),
        };
        let whole = range(node);
        let header = TextRange::new(
            whole.start,
            header_end.map(|e| e as u32).unwrap_or(whole.end),
        );
        let range = self.relative(whole);
        let header = self.relative(header);
        Arc::make_mut(&mut self.current().function.syntax)
            .loops
            .push(Loop {
                kind,
                range,
                header,
                iter,
            });
    }

    pub(super) fn add_handler(&mut self, node: Node<'_>) {
        let Some(first) = source::named_children(node)
            .into_iter()
            .find(|c| c.kind() == "block")
            .and_then(|block| source::named_children(block).into_iter().next())
        else {
            return;
        };
        let clause = self.relative(range(node));
        let first = self.relative(range(first));
        Arc::make_mut(&mut self.current().function.syntax)
            .handlers
            .push(Handler { clause, first });
    }

    pub(super) fn add_assert(&mut self, node: Node<'_>) {
        let parts = source::named_children(node);
        let Some(test) = parts.first() else {
            return;
        };
        let assert = Assert {
            range: self.relative(range(node)),
            test: self.relative(range(*test)),
            message: parts.get(1).map(|m| self.relative(range(*m))),
        };
        Arc::make_mut(&mut self.current().function.syntax)
            .asserts
            .push(assert);
    }

    /// The names a `return` of the function being walked returns: `return check`, either
    /// side of `return check if strict else loose` ([`FunctionSyntax::returned`]).
    pub(super) fn record_returned(&mut self, node: Node<'_>) {
        let mut pending: Vec<Node<'_>> = source::named_children(node).into_iter().take(1).collect();
        let mut names = vec![];
        while let Some(value) = pending.pop() {
            match value.kind() {
                "identifier" => names.push(CompactString::from(self.source.text(value))),
                "parenthesized_expression" => pending.extend(value.named_child(0)),
                // `a if test else b`: the test is not returned.
                "conditional_expression" => {
                    pending.extend(value.named_child(2));
                    pending.extend(value.named_child(0));
                }
                _ => {}
            }
        }
        let syntax = Arc::make_mut(&mut self.current().function.syntax);
        for name in names {
            if !syntax.returned.contains(&name) {
                syntax.returned.push(name);
            }
        }
    }

    pub(super) fn mark_generator(&mut self) {
        let index = self
            .scopes
            .iter()
            .rev()
            .find(|s| self.functions[s.function].function.syntax.kind == FunctionKind::Def)
            .map(|s| s.function);
        if let Some(i) = index {
            Arc::make_mut(&mut self.functions[i].function.syntax).is_generator = true;
        }
    }
}
