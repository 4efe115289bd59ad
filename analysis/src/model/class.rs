//! The model of a class: its fields, which methods write and read each one, and whether a
//! field is *assignable* — settable by whoever builds an instance — in the sense of Covana's
//! field declaration hierarchy, adapted to Python: a constructor parameter or a property setter
//! stores into it, or it is a public field of a dataclass, attrs class or NamedTuple. A field
//! only changed by other methods (`Stack._items`, changed by `push`) is not assignable.

use lacuna_grammar::{ClassKind, ClassSyntax, FieldWriteKind, FunctionSyntax, ParamKind};
use rustc_hash::FxHashMap;

/// How each field is written, for every class of a project, keyed by `("module:Qual", field)`
/// (a private field also by its mangled name, as the running code names it): the methods
/// that write it, which an exploration calls to put an object input into a state, and the
/// constructor parameter stored into it as is, which an exploration passes of another kind
/// to turn a test of the field (`self.namespaces is None`) the other way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldWriters {
    /// The methods (other than `__init__`) that write the field, in source order.
    pub methods: FxHashMap<(String, String), Vec<String>>,
    /// The `__init__` parameter the field holds (`self.namespaces = namespaces`).
    pub constructor: FxHashMap<(String, String), String>,
    /// The fields `__init__` writes, whatever it stores (`self.parts = [unescape(p) for p in
    /// pointer.split('/')]`): set by the constructor from what it is given.
    pub constructed: rustc_hash::FxHashSet<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Assignable {
    /// `__init__` stores a parameter into the field (`self.capacity = capacity`).
    Constructor { param: String },
    /// A property setter stores into it (`@label.setter` → `self._label = value`).
    Setter { property: String },
    /// A public field of a dataclass / attrs class / NamedTuple: a generated constructor
    /// parameter.
    GeneratedInit,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldModel {
    pub name: String,
    /// How whoever builds an instance can set it, if they can.
    pub assignable: Option<Assignable>,
    /// Methods (other than `__init__`) that write it, in source order, and how.
    pub writers: Vec<(String, FieldWriteKind)>,
    /// `__init__` writes it, whatever it stores.
    pub constructed: bool,
    /// Methods that read it.
    pub readers: Vec<String>,
    /// Declared in the class body (`count = 0`, `x: int`), not only assigned in methods.
    pub declared: bool,
    /// A class-level attribute (`ClassVar`, or unannotated in the body).
    pub class_level: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClassModel {
    pub qualname: String,
    pub kind: ClassKind,
    pub fields: Vec<FieldModel>,
    /// Public methods (no leading underscore), with their positional parameter names
    /// (receiver excluded): the calls an object can be driven through.
    pub public_methods: Vec<(String, Vec<String>)>,
    /// `__init__`'s parameters (receiver excluded), when the class defines one.
    pub init_params: Option<Vec<String>>,
}

impl ClassModel {
    /// `methods`: the class's methods by name, as defined in its body.
    pub fn new(class: &ClassSyntax, methods: &[(&str, &FunctionSyntax)]) -> ClassModel {
        let mut fields: Vec<FieldModel> = vec![];
        let entry = |fields: &mut Vec<FieldModel>, name: &str| -> usize {
            match fields.iter().position(|f| f.name == name) {
                Some(i) => i,
                None => {
                    fields.push(FieldModel {
                        name: name.to_owned(),
                        assignable: None,
                        writers: vec![],
                        constructed: false,
                        readers: vec![],
                        declared: false,
                        class_level: false,
                    });
                    fields.len() - 1
                }
            }
        };
        let generated_init = matches!(
            class.kind,
            ClassKind::Dataclass | ClassKind::Attrs | ClassKind::NamedTuple
        );
        for f in &class.fields {
            let i = entry(&mut fields, &f.name);
            fields[i].declared = true;
            fields[i].class_level = f.class_level;
            if generated_init && !f.class_level && f.init && !f.name.starts_with('_') {
                fields[i].assignable = Some(Assignable::GeneratedInit);
            }
        }
        let setter_of = |method: &str| -> Option<String> {
            let (_, syntax) = methods.iter().rev().find(|(name, _)| *name == method)?;
            syntax.decorators.iter().find_map(|d| {
                d.strip_suffix(".setter")
                    .filter(|p| *p == method)
                    .map(str::to_owned)
            })
        };
        for w in &class.writes {
            let i = entry(&mut fields, &w.write.field);
            let field = &mut fields[i];
            if w.method == "__init__" {
                field.constructed = true;
                if let (Some(param), FieldWriteKind::Assign) = (&w.write.from_param, &w.write.kind)
                    && field.assignable.is_none()
                {
                    field.assignable = Some(Assignable::Constructor {
                        param: param.to_string(),
                    });
                }
                continue;
            }
            if let Some(property) = setter_of(&w.method)
                && field.assignable.is_none()
            {
                field.assignable = Some(Assignable::Setter { property });
            }
            if !field.writers.iter().any(|(m, _)| *m == w.method) {
                field
                    .writers
                    .push((w.method.to_string(), w.write.kind.clone()));
            }
        }
        for (name, syntax) in methods {
            for read in &syntax.field_reads {
                let i = entry(&mut fields, read);
                if !fields[i].readers.iter().any(|m| m == name) {
                    fields[i].readers.push((*name).to_owned());
                }
            }
        }
        let positional = |syntax: &FunctionSyntax| -> Vec<String> {
            syntax
                .params
                .iter()
                .skip(usize::from(!syntax.is_staticmethod()))
                .filter(|p| {
                    matches!(
                        p.kind,
                        ParamKind::Positional | ParamKind::PositionalOnly | ParamKind::KeywordOnly
                    )
                })
                .map(|p| p.name.to_string())
                .collect()
        };
        let mut public_methods = vec![];
        for (name, syntax) in methods {
            let accessor = syntax.is_property()
                || syntax.decorators.iter().any(|d| {
                    d.ends_with(".setter") || d.ends_with(".getter") || d.ends_with(".deleter")
                });
            if !name.starts_with('_') && !accessor && !public_methods.iter().any(|(m, _)| m == name)
            {
                public_methods.push(((*name).to_owned(), positional(syntax)));
            }
        }
        ClassModel {
            qualname: class.qualname.clone(),
            kind: class.kind,
            fields,
            public_methods,
            init_params: methods
                .iter()
                .find(|(name, _)| *name == "__init__")
                .map(|(_, s)| positional(s)),
        }
    }

    pub fn field(&self, name: &str) -> Option<&FieldModel> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The public methods that write the fields `method` reads which no constructor sets
    /// (`submit` reads `_lines`, which only `add_line` writes), in source order.
    pub fn prerequisites(&self, method: &str) -> Vec<String> {
        let mut out: Vec<String> = vec![];
        for field in &self.fields {
            if field.assignable.is_some() || !field.readers.iter().any(|r| r == method) {
                continue;
            }
            for (writer, _) in &field.writers {
                let public = self.public_methods.iter().any(|(m, _)| m == writer);
                if writer != method && public && !out.contains(writer) {
                    out.push(writer.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(source: &str, class: &str) -> ClassModel {
        let module = lacuna_grammar::parse(source);
        let c = module.class(class).unwrap();
        let methods: Vec<(&str, &FunctionSyntax)> = module
            .functions
            .iter()
            .filter(|f| f.syntax.class.as_deref() == Some(class))
            .map(|f| (f.syntax.name.as_str(), &*f.syntax))
            .collect();
        ClassModel::new(&c.syntax, &methods)
    }

    #[test]
    fn a_method_needs_the_writers_of_the_state_it_reads() {
        let m = model(
            "class Order:\n    def __init__(self, customer):\n        self.customer = customer\n        self.status = 'draft'\n        self._lines = []\n    def add_line(self, item):\n        self._lines.append(item)\n    def submit(self, stock):\n        if not self._lines:\n            raise ValueError\n        self.status = 'submitted'\n",
            "Order",
        );
        assert_eq!(m.prerequisites("submit"), vec!["add_line".to_owned()]);
        assert!(m.prerequisites("add_line").is_empty());
    }

    #[test]
    fn assignability() {
        let m = model(
            r#"
class Stack:
    limit = 10
    def __init__(self, capacity, name="s"):
        self.capacity = capacity
        self._items = []
        self.label = name.upper()
    def push(self, item):
        if len(self._items) >= self.capacity:
            raise OverflowError
        self._items.append(item)
    @property
    def tag(self):
        return self._tag
    @tag.setter
    def tag(self, value):
        self._tag = value
"#,
            "Stack",
        );
        let f = |n: &str| m.field(n).unwrap().clone();
        assert_eq!(
            f("capacity").assignable,
            Some(Assignable::Constructor {
                param: "capacity".into()
            })
        );
        assert_eq!(f("_items").assignable, None);
        assert_eq!(
            f("_items").writers,
            vec![("push".to_owned(), FieldWriteKind::Mutate("append".into()))]
        );
        assert_eq!(f("_items").readers, vec!["push".to_owned()]);
        assert_eq!(
            f("label").assignable,
            None,
            "computed from a parameter, not stored as is"
        );
        assert_eq!(
            f("_tag").assignable,
            Some(Assignable::Setter {
                property: "tag".into()
            })
        );
        assert!(f("limit").class_level && f("limit").declared);
        assert_eq!(
            m.init_params,
            Some(vec!["capacity".to_owned(), "name".to_owned()])
        );
        assert_eq!(
            m.public_methods,
            vec![("push".to_owned(), vec!["item".to_owned()])]
        );
    }

    #[test]
    fn dataclass_fields_are_assignable() {
        let m = model(
            r#"
from dataclasses import dataclass, field
@dataclass
class Item:
    sku: str
    _secret: int = 0
    tags: list = field(default_factory=list, init=False)
"#,
            "Item",
        );
        assert_eq!(
            m.field("sku").unwrap().assignable,
            Some(Assignable::GeneratedInit)
        );
        assert_eq!(m.field("_secret").unwrap().assignable, None);
        assert_eq!(m.field("tags").unwrap().assignable, None);
    }
}
