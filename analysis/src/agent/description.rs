//! What the agent answers to `describe` and `guidance`, typed (parameters with their type trees,
//! defaults and domains; mocks and factories; an import's failure), read as leniently as the wire
//! allows: a field of another type reads as absent. Plain data: what it means is the readers'.

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// `value` read as `T`, or `T`'s default when it is no `T` at all.
pub fn read<T: DeserializeOwned + Default>(value: Json) -> T {
    T::deserialize(value).unwrap_or_default()
}

/// The answer to `describe`: the target's signature as the agent reads it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Description {
    /// Why the target could not be described (its module does not import, it is no function).
    #[serde(deserialize_with = "lenient")]
    pub error: Option<String>,
    /// Why its module does not import, when that is the error.
    #[serde(deserialize_with = "lenient")]
    pub import_error: Option<ImportError>,
    /// `function` or `method`.
    #[serde(deserialize_with = "lenient")]
    pub kind: Option<String>,
    #[serde(deserialize_with = "each")]
    pub params: Vec<Param>,
    /// A method's class.
    #[serde(deserialize_with = "lenient")]
    pub owner: TypeTree,
    /// The annotations it could not read, with why (`start: Moment (NameError: …)`).
    #[serde(deserialize_with = "strings")]
    pub unread: Vec<String>,
}

/// A parameter (or a constructor argument, a factory's parameter) as the agent lists it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Param {
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    /// `positional_or_keyword`, `keyword_only`, `var_positional`, `var_keyword`…
    #[serde(deserialize_with = "lenient")]
    pub kind: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub tree: TypeTree,
    /// The `repr` of its default.
    #[serde(deserialize_with = "lenient")]
    pub default: Option<String>,
    /// The function or class its default is (`factory=dict`), by name.
    #[serde(deserialize_with = "lenient")]
    pub default_ref: Option<String>,
    /// The values outside which its class's constructor raises.
    #[serde(deserialize_with = "lenient")]
    pub domain: Bounds,
}

impl Param {
    /// `*args` or `**kwargs`.
    pub fn is_variadic(&self) -> bool {
        matches!(
            self.kind.as_deref(),
            Some("var_positional") | Some("var_keyword")
        )
    }
}

/// A type tree: `{"kind": "list", "of": {"kind": "int"}}`; which fields mean something depends
/// on its `kind` (see `docs/agent-protocol.md`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TypeTree {
    /// None reads as `any`.
    #[serde(deserialize_with = "lenient")]
    pub kind: Option<String>,
    /// What a `callable` returns.
    #[serde(deserialize_with = "lenient")]
    pub returns: Option<Box<TypeTree>>,
    /// The function or class a `callable` default names.
    #[serde(deserialize_with = "lenient")]
    pub named: Option<String>,
    /// An `optional`'s, `list`'s or `set`'s tree, or a `union`'s members.
    pub of: Of,
    /// A `tuple`'s items.
    #[serde(deserialize_with = "each")]
    pub items: Vec<TypeTree>,
    /// A `dict`'s key and value.
    #[serde(deserialize_with = "lenient")]
    pub key: Option<Box<TypeTree>>,
    #[serde(deserialize_with = "lenient")]
    pub value: Option<Box<TypeTree>>,
    /// A `literal`'s values, in the agent's wire form.
    #[serde(deserialize_with = "lenient")]
    pub values: Vec<Json>,
    /// An `enum`'s or a `class`'s class (`module:Qual`).
    #[serde(deserialize_with = "lenient")]
    pub class: Option<String>,
    /// An `enum`'s members.
    #[serde(deserialize_with = "strings")]
    pub members: Vec<String>,
    /// A class of another package: not built through its constructor.
    #[serde(deserialize_with = "lenient")]
    pub external: bool,
    /// A `class`'s constructor arguments.
    #[serde(deserialize_with = "each")]
    pub init: Vec<Param>,
    #[serde(deserialize_with = "each")]
    pub methods: Vec<Method>,
    /// A `type`'s classes: the class `Type[C]` names and the project's subclasses of it.
    #[serde(deserialize_with = "strings")]
    pub classes: Vec<String>,
    /// An unannotated parameter's `any`: the kinds of values its uses ask for, when the agent
    /// read them (an empty list is a reading too).
    #[serde(deserialize_with = "each_of_list")]
    pub instances: Option<Vec<TypeTree>>,
}

/// The tree `any` stands for, where a tree has none.
pub static ANY: TypeTree = TypeTree {
    kind: None,
    returns: None,
    named: None,
    of: Of::Absent,
    items: Vec::new(),
    key: None,
    value: None,
    values: Vec::new(),
    class: None,
    members: Vec::new(),
    external: false,
    init: Vec::new(),
    methods: Vec::new(),
    classes: Vec::new(),
    instances: None,
};

impl TypeTree {
    /// The `kind`, `any` when it has none.
    pub fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("any")
    }

    pub fn returns(&self) -> &TypeTree {
        self.returns.as_deref().unwrap_or(&ANY)
    }

    pub fn key(&self) -> &TypeTree {
        self.key.as_deref().unwrap_or(&ANY)
    }

    pub fn value(&self) -> &TypeTree {
        self.value.as_deref().unwrap_or(&ANY)
    }
}

/// A tree's `of`: one tree (`optional`, `list`, `set`) or a list of them (`union`). Read as the
/// other, each is empty: a list as one tree is `any`, one tree as a list no member.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Of {
    #[default]
    Absent,
    One(Box<TypeTree>),
    Many(Vec<TypeTree>),
}

impl Of {
    pub fn one(&self) -> &TypeTree {
        match self {
            Of::One(tree) => tree,
            _ => &ANY,
        }
    }

    pub fn many(&self) -> &[TypeTree] {
        match self {
            Of::Many(trees) => trees,
            _ => &[],
        }
    }
}

impl<'de> Deserialize<'de> for Of {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Json::deserialize(d)? {
            Json::Array(items) => Of::Many(items.into_iter().map(read).collect()),
            other => Of::One(Box::new(read(other))),
        })
    }
}

/// A method of a `class` tree, with its parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Method {
    #[serde(deserialize_with = "lenient")]
    pub name: Option<String>,
    #[serde(deserialize_with = "each")]
    pub params: Vec<Param>,
}

/// A constructor argument's `domain`, as the agent gives it: an integer's `min`/`max`, a
/// string's `length`, `min_length`/`max_length` and `alphabet`, or the sibling arguments a day
/// of the month depends on (`day_of`: year, month).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Bounds {
    #[serde(deserialize_with = "lenient")]
    pub min: Option<i64>,
    #[serde(deserialize_with = "lenient")]
    pub max: Option<i64>,
    #[serde(deserialize_with = "lenient")]
    pub length: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub min_length: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub max_length: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub alphabet: Option<String>,
    /// Each entry a name, or none where it is no string.
    #[serde(deserialize_with = "each_of_list")]
    pub day_of: Option<Vec<Option<String>>>,
}

/// The answer to `guidance`: the declarations of the guidance module.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GuidanceDescription {
    /// Why the module could not be imported.
    #[serde(deserialize_with = "lenient")]
    pub error: Option<String>,
    #[serde(deserialize_with = "each")]
    pub mocks: Vec<MockDescription>,
    #[serde(deserialize_with = "each")]
    pub factories: Vec<FactoryDescription>,
}

/// A mocked call and the tree of what it returns.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MockDescription {
    #[serde(deserialize_with = "lenient")]
    pub target: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub returns: TypeTree,
}

/// A factory: the function (`module:name`), the class it builds and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FactoryDescription {
    #[serde(deserialize_with = "lenient")]
    pub function: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub class: Option<String>,
    #[serde(deserialize_with = "each")]
    pub params: Vec<Param>,
}

/// Why a module did not import, as the agent reports it (`import_error`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportError {
    /// The exception's type.
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub error: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub message: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub missing: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub missing_in_project: Option<bool>,
    /// The project modules being imported, outermost first; none when it is no list.
    #[serde(deserialize_with = "each_of_list")]
    pub chain: Option<Vec<ImportStep>>,
}

/// One statement of an import's chain.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImportStep {
    #[serde(deserialize_with = "lenient")]
    pub module: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub file: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub line: Option<u64>,
}

/// A field read as its type, or its default when it is of another.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(d: D) -> Result<T, D::Error> {
    Ok(read(Json::deserialize(d)?))
}

/// A list read entry by entry (an entry of another type as its default); no list, none.
fn each<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    d: D,
) -> Result<Vec<T>, D::Error> {
    Ok(each_of_list(d)?.unwrap_or_default())
}

/// Like [`each`], telling an absent list from an empty one.
fn each_of_list<'de, D: Deserializer<'de>, T: DeserializeOwned + Default>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    Ok(match Json::deserialize(d)? {
        Json::Array(items) => Some(items.into_iter().map(read).collect()),
        _ => None,
    })
}

/// The strings of a list, other entries left out.
fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Json::deserialize(d)? {
        Json::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                Json::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_of_another_type_reads_as_absent_and_a_list_entry_as_empty() {
        let d: Description = read(json!({
            "kind": 3,
            "params": [
                {"name": "x", "kind": "positional_or_keyword", "type": {"kind": "int"}, "default": "1"},
                "not a parameter",
                {"name": "n", "type": {"kind": "any", "instances": []}, "default": None::<String>},
            ],
            "owner": [],
            "unread": ["x: T (NameError)", 7],
        }));
        assert_eq!(d.kind, None);
        assert_eq!(d.params.len(), 3);
        assert_eq!(d.params[0].tree.kind(), "int");
        assert_eq!(d.params[0].default.as_deref(), Some("1"));
        assert_eq!(d.params[1], Param::default());
        assert_eq!(d.params[2].tree.instances, Some(vec![]));
        assert_eq!(d.params[0].tree.instances, None);
        assert_eq!(d.owner, TypeTree::default());
        assert_eq!(d.unread, ["x: T (NameError)"]);
        assert_eq!(
            read::<Description>(json!("no object")),
            Description::default()
        );
    }

    #[test]
    fn of_is_one_tree_or_a_list_and_each_reads_as_empty_as_the_other() {
        let list: TypeTree = read(json!({"kind": "list", "of": {"kind": "str"}}));
        assert_eq!(list.of.one().kind(), "str");
        assert!(list.of.many().is_empty());
        let union: TypeTree = read(json!({"kind": "union", "of": [{"kind": "int"}, 1]}));
        assert_eq!(union.of.one(), &ANY);
        assert_eq!(
            union
                .of
                .many()
                .iter()
                .map(TypeTree::kind)
                .collect::<Vec<_>>(),
            ["int", "any"]
        );
        let day: Bounds = read(json!({"min": 1, "max": 31, "day_of": ["year", 2]}));
        assert_eq!(day.day_of, Some(vec![Some("year".to_owned()), None]));
    }
}
