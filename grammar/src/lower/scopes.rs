//! Entering a definition: a `def` or a `class` becomes a function of the module (its ID, anchor,
//! qualified name and header) and a scope for what it contains; a method registers itself, and
//! what its decorators say (a property, its setter), on its class.

use super::source::{self, range};
use super::{
    ClassBuilder, FunctionBuilder, Lowerer, Scope, definitions, flow, is_definition, seeds,
};
use crate::syntax::*;
use crate::text::{Anchor, TextRange};
use compact_str::CompactString;
use std::sync::Arc;
use tree_sitter::Node;

/// What a `def` and a `class` begin with: the node with its decorators, the name, and the
/// anchor their ranges are relative to.
struct Header<'t> {
    outer: Node<'t>,
    name_node: Node<'t>,
    name: String,
    anchor: Anchor,
}

impl Lowerer<'_> {
    fn header<'t>(&self, node: Node<'t>) -> Option<Header<'t>> {
        let outer = node
            .parent()
            .filter(|p| p.kind() == "decorated_definition")
            .unwrap_or(node);
        let name_node = node.child_by_field_name("name")?;
        Some(Header {
            outer,
            name_node,
            name: self.source.text(name_node).to_owned(),
            anchor: Anchor {
                offset: outer.start_byte() as u32,
                line: outer.start_position().row as u32,
            },
        })
    }

    pub(super) fn enter_function(&mut self, node: Node<'_>) {
        let Some(Header {
            outer,
            name_node,
            name,
            anchor,
        }) = self.header(node)
        else {
            return;
        };
        let qualname: Arc<str> = format!("{}{name}", self.scope().prefix).into();
        let id = self.unique_id(&qualname);
        let rel = |r: TextRange| TextRange::new(r.start - anchor.offset, r.end - anchor.offset);
        let class_index = self.scope().class;
        let class = class_index.map(|c| self.classes[c].class.syntax.qualname.clone());
        let decorators = definitions::decorators(&self.source, node);
        let params = definitions::params(&self.source, node.child_by_field_name("parameters"));
        let is_async = source::token_child(node, "async").is_some();
        let syntax = FunctionSyntax {
            kind: FunctionKind::Def,
            name: name.as_str().into(),
            qualname: qualname.clone(),
            class,
            returns: node
                .child_by_field_name("return_type")
                .map(|t| self.source.collapsed(t)),
            decorators: decorators.into(),
            is_async,
            range: rel(range(outer)),
            name_range: rel(range(name_node)),
            body: node
                .child_by_field_name("body")
                .map(|b| rel(range(b)))
                .unwrap_or_default(),
            text_hash: self.source.token_hash(outer, &|_| false),
            params: params.into(),
            ..FunctionSyntax::default()
        };
        let receiver = match class_index {
            Some(c) if !syntax.is_staticmethod() => syntax
                .params
                .first()
                .filter(|p| matches!(p.kind, ParamKind::Positional | ParamKind::PositionalOnly))
                .map(|p| (p.name.to_string(), c)),
            Some(_) => None,
            None => self.current().receiver.clone(),
        };
        if let Some(c) = class_index {
            self.register_method(c, &syntax);
        }
        let recording = if self.seeds.is_some() {
            let own_receiver = class_index
                .and(receiver.as_ref())
                .map(|(name, _)| CompactString::from(name.as_str()));
            let params = syntax.params.iter().map(|p| p.name.clone()).collect();
            seeds::Recording::new(params, own_receiver)
        } else {
            seeds::Recording::default()
        };
        if let Some(flows) = &mut self.flow {
            let facts = flow::definition_flow(&self.source, node, anchor.offset);
            flows.functions.insert(id.clone(), facts);
        }
        let function = Function {
            id,
            anchor,
            syntax: Arc::new(syntax),
        };
        self.functions
            .push(FunctionBuilder::new(function, receiver, recording));
        self.scopes.push(Scope {
            node: node.id(),
            function: self.functions.len() - 1,
            prefix: format!("{qualname}.<locals>."),
            class: None,
        });
    }

    fn register_method(&mut self, class: usize, method: &FunctionSyntax) {
        let class = Arc::make_mut(&mut self.classes[class].class.syntax);
        if !class.methods.contains(&method.name) {
            class.methods.push(method.name.clone());
        }
        for d in &method.decorators {
            if d == "property"
                || d.ends_with(".cached_property")
                || d == "cached_property"
                || d == "functools.cached_property"
            {
                if class.property(&method.name).is_none() {
                    class.properties.push(Property {
                        name: method.name.clone(),
                        has_setter: false,
                        has_deleter: false,
                    });
                }
            } else if let Some((prop, accessor)) = d.rsplit_once('.') {
                let Some(p) = class.properties.iter_mut().find(|p| p.name == prop) else {
                    continue;
                };
                match accessor {
                    "setter" => p.has_setter = true,
                    "deleter" => p.has_deleter = true,
                    _ => {}
                }
            }
        }
    }

    pub(super) fn enter_class(&mut self, node: Node<'_>) {
        let Some(Header {
            outer,
            name_node,
            name,
            anchor,
        }) = self.header(node)
        else {
            return;
        };
        let qualname = format!("{}{name}", self.scope().prefix);
        let rel = |r: TextRange| TextRange::new(r.start - anchor.offset, r.end - anchor.offset);
        let decorators = definitions::decorators(&self.source, node);
        let bases: Vec<String> = node
            .child_by_field_name("superclasses")
            .map(source::named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|b| !matches!(b.kind(), "keyword_argument" | "dictionary_splat"))
            .map(|b| self.source.collapsed(b))
            .collect();
        let body = node.child_by_field_name("body");
        let (fields, properties) = body
            .map(|b| definitions::class_body_fields(&self.source, b, anchor.offset))
            .unwrap_or_default();
        let kind = definitions::class_kind(&decorators, &bases);
        let class = Class {
            anchor,
            syntax: Arc::new(ClassSyntax {
                name: name.clone(),
                qualname: qualname.clone(),
                kind,
                bases,
                decorators: decorators.clone(),
                range: rel(range(outer)),
                name_range: rel(range(name_node)),
                methods: vec![],
                fields,
                properties,
                writes: vec![],
            }),
        };
        self.classes.push(ClassBuilder { class });
        let qualname: Arc<str> = qualname.into();
        let id = self.unique_id(&qualname);
        if let Some(flows) = &mut self.flow {
            let facts = flow::definition_flow(&self.source, node, anchor.offset);
            flows.functions.insert(id.clone(), facts);
        }
        let body_function = Function {
            id,
            anchor,
            syntax: Arc::new(FunctionSyntax {
                kind: FunctionKind::ClassBody,
                name: name.into(),
                qualname: qualname.clone(),
                decorators: decorators.into(),
                range: rel(range(outer)),
                name_range: rel(range(name_node)),
                body: body.map(|b| rel(range(b))).unwrap_or_default(),
                text_hash: body
                    .map(|b| self.source.token_hash(b, &|n| is_definition(n)))
                    .unwrap_or_default(),
                ..FunctionSyntax::default()
            }),
        };
        self.functions.push(FunctionBuilder::new(
            body_function,
            None,
            Default::default(),
        ));
        self.scopes.push(Scope {
            node: node.id(),
            function: self.functions.len() - 1,
            prefix: format!("{qualname}."),
            class: Some(self.classes.len() - 1),
        });
    }
}
