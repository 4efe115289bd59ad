//! How a function is called and what the project declares for it: the parameters' shapes,
//! defaults, the receiver, the writers of each field, the guidance module's mocks and
//! factories, and where the solver finds the domain of each input variable. The vocabulary
//! the search, the solver and the guidance reader share: plain data, no agent, no solver.

use super::shape::{Domain, ObjectShape, Shape};
use super::value::ModelValue;
use crate::symbolic::{PathStep, VarPath, VarRoot};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How the function is called.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub params: Vec<(String, Shape)>,
    /// Parameters that can only be passed by keyword (after `*` or `*args`).
    pub keyword_only: Vec<String>,
    /// `*args`: its name and the shape of each argument it collects. How many are passed is
    /// the choice `*args` (0 to 3); the `k`-th is the input `args[k]`.
    pub varargs: Option<(String, Shape)>,
    /// Default values of parameters and constructor arguments, by access path.
    pub defaults: BTreeMap<String, ModelValue>,
    /// The choices that give a parameter whose declared default is `None` that default (the
    /// `None` variant of its union, of "any"), by parameter: the first input is the call
    /// without those arguments, as `f(x)` makes it.
    pub default_choices: BTreeMap<String, usize>,
    /// The receiver for a method (an instance of its class), named `self`.
    pub receiver: Option<ObjectShape>,
    /// Methods that write each field, per class (`module:Qual`): from the class model.
    pub writers: std::sync::Arc<crate::model::class::FieldWriters>,
    /// The mocks and factories of the project's guidance module.
    pub guidance: Arc<Guidance>,
    /// Annotations the agent could not read, each with its parameter and why
    /// (`since: Moment (NameError: name 'Moment' is not defined)`): those parameters are
    /// tried as any value, and the function's outcome says so.
    pub unread: Vec<String>,
    /// The scalar arguments the project's own passing tests called it with (parameter →
    /// value), distinct, at most `OBSERVED`: the first inputs tried, as Pynguin seeds from
    /// existing tests.
    pub observed: Vec<BTreeMap<String, ModelValue>>,
    /// The range of the numbers the project's own passing tests passed each parameter (all
    /// their calls, not only the distinct ones in `observed`), where they passed at least
    /// three: the solver's models are kept within it where they can be.
    pub ranges: BTreeMap<String, super::ranges::Range>,
    /// The call sequences the project's own passing tests made on objects of the classes of
    /// the receiver and the object parameters, by class (`module:Qual`), most frequent first:
    /// objects built as the tests build them (Palus's dynamic model).
    pub mined: BTreeMap<String, Vec<MinedSequence>>,
}

/// A call sequence the project's own passing tests made on an object: the constructor's
/// arguments, then the methods called on the object from outside it, in order, each with its
/// arguments.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MinedSequence {
    pub constructor: Vec<MinedArgument>,
    pub calls: Vec<(String, Vec<MinedArgument>)>,
}

/// An argument of a mined call: a number, a boolean or a short text; `None`; an object of a
/// project class (`module.Qual`, as the observer names it) with how the tests built it; or
/// anything else, which the input builder chooses as for any argument.
#[derive(Clone, Debug, PartialEq)]
pub enum MinedArgument {
    Value(ModelValue),
    None,
    Object {
        class: String,
        built: Box<MinedSequence>,
    },
    Other,
}

impl Signature {
    /// Where the solver finds the domains of the inputs' variables.
    pub fn domains(&self) -> Domains {
        Domains {
            params: self
                .params
                .iter()
                .cloned()
                .chain(
                    self.receiver
                        .iter()
                        .map(|r| ("self".to_owned(), Shape::Object(r.clone()))),
                )
                .collect(),
            varargs: self.varargs.clone(),
            mocks: self
                .guidance
                .mocks
                .iter()
                .map(|m| m.returns.clone())
                .collect(),
            factories: self.guidance.factories.clone(),
        }
    }
}

/// What the guidance module declares.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Guidance {
    pub mocks: Vec<MockDecl>,
    pub factories: Vec<FactoryDecl>,
}

/// A mocked call: the dotted name project code calls it by, and what it returns.
#[derive(Clone, Debug, PartialEq)]
pub struct MockDecl {
    pub target: String,
    pub returns: Shape,
    /// Default values inside a returned object, relative to it (`__init__.month` → 1).
    pub defaults: BTreeMap<String, ModelValue>,
}

/// A factory: the function (`module:qualname`), the class it builds, its parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct FactoryDecl {
    pub function: String,
    pub class: String,
    pub params: Vec<(String, Shape)>,
    pub defaults: BTreeMap<String, ModelValue>,
}

impl Guidance {
    pub fn factory_for(&self, class: &str) -> Option<&FactoryDecl> {
        self.factories.iter().find(|f| f.class == class)
    }
}

/// Where the domain of an input variable is found: the shapes of the inputs its path starts
/// from (parameters, the receiver as `self`, `*args`, the values of mocked calls) and the
/// factories objects are built through.
#[derive(Clone, Debug, Default)]
pub struct Domains {
    pub params: Vec<(String, Shape)>,
    pub varargs: Option<(String, Shape)>,
    /// What each mock of the guidance module returns, by index (`$mock:0[k]`).
    pub mocks: Vec<Shape>,
    pub factories: Vec<FactoryDecl>,
}

impl Domains {
    /// The domain of the variable `name` (`$mock:0[0].__init__.hour`), when it stands for a
    /// constructor argument that has one.
    pub fn of(&self, name: &str) -> Option<&Domain> {
        let path = VarPath::parse(name)?;
        let call = |steps: &[PathStep]| match steps.split_first() {
            Some((PathStep::Index(_), rest)) => Some(rest.to_vec()),
            _ => None,
        };
        let (shape, steps) = match &path.root {
            VarRoot::Param(p) => match self.params.iter().find(|(n, _)| n == p) {
                Some((_, shape)) => (shape, path.steps),
                None => {
                    let (_, shape) = self.varargs.as_ref().filter(|(n, _)| n == p)?;
                    (shape, call(&path.steps)?)
                }
            },
            VarRoot::Mock(m) => (self.mocks.get(*m as usize)?, call(&path.steps)?),
            VarRoot::ExternalReturn(_) => return None,
        };
        shape.domain_at(&steps, &self.factories)
    }
}

impl Shape {
    /// The domain of the value at `steps` inside a value of this shape (`__init__.hour` of a
    /// `datetime`), following constructor and factory arguments, elements, dict values, the
    /// values callables return and the members of an `Optional` or a union.
    fn domain_at<'s>(
        &'s self,
        steps: &[PathStep],
        factories: &'s [FactoryDecl],
    ) -> Option<&'s Domain> {
        let (first, rest) = steps.split_first()?;
        let argument = |params: &'s [(String, Shape)]| match rest.split_first() {
            Some((PathStep::Attr(p), rest)) => params
                .iter()
                .find(|(n, _)| n == p)?
                .1
                .domain_at(rest, factories),
            _ => None,
        };
        match (self, first) {
            (Shape::Optional(inner), _) => inner.domain_at(steps, factories),
            (Shape::Union(members), _) => {
                members.iter().find_map(|m| m.domain_at(steps, factories))
            }
            (
                Shape::List(item)
                | Shape::Set(item)
                | Shape::Iterator(item)
                | Shape::AsyncIterator(item)
                | Shape::TupleOf(item),
                PathStep::Index(_),
            ) => item.domain_at(rest, factories),
            (Shape::Tuple(items), PathStep::Index(i)) => items
                .get(usize::try_from(*i).ok()?)?
                .domain_at(rest, factories),
            (Shape::Dict(_, value), PathStep::Index(_) | PathStep::Key(_)) => {
                value.domain_at(rest, factories)
            }
            (Shape::Callable { returns, .. }, PathStep::Attr(a)) if a == "__call__" => {
                match rest.split_first() {
                    Some((PathStep::Index(_), rest)) => returns.domain_at(rest, factories),
                    _ => None,
                }
            }
            (Shape::Object(o), PathStep::Attr(a)) if a == "__init__" => match rest {
                [PathStep::Attr(p)] => o.domains.get(p),
                _ => argument(&o.init),
            },
            (Shape::Object(o), PathStep::Attr(a)) if a == "__factory__" => {
                argument(&factories.iter().find(|f| f.class == o.class)?.params)
            }
            _ => None,
        }
    }
}
