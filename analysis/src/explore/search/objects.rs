//! Object inputs: what a variable no input sets stands for (an external call's return, a field
//! of an object input, reached through constructor and factory arguments), the writer calls
//! or factory arguments that give a field the value a model wants, the constructor argument
//! of another kind that turns a test of a field no symbol stands for (`self.namespaces is
//! None`) the other way, and the calls that set up the state a writer call needs when it
//! raised.

use super::Search;
use super::seeding::choosing;
use crate::agent::protocol::Execution;
use crate::explore::coverage::Observed;
use crate::explore::exploration::Dependency;
use crate::explore::inputs::{Candidate, constructor_choice, factory_param};
use crate::explore::shape::{ObjectShape, Shape};
use crate::explore::signature::FactoryDecl;
use crate::explore::value::ModelValue;
use crate::symbolic::{VarPath, VarRoot};

impl Search<'_> {
    /// The object input a root of the inputs is: the receiver (`self`) or a parameter whose
    /// shape is an object.
    fn object_input(&self, root: &str) -> Option<&ObjectShape> {
        if root == "self" {
            return self.signature.receiver.as_ref();
        }
        match &self.signature.params.iter().find(|(n, _)| n == root)?.1 {
            Shape::Object(o) => Some(o),
            _ => None,
        }
    }

    /// What a variable no input controls stands for.
    pub(super) fn dependency(&self, name: &str) -> Option<Dependency> {
        let path = VarPath::parse(name)?;
        match &path.root {
            VarRoot::ExternalReturn(n) => self
                .out
                .return_symbols
                .get(&format!("$ret:{n}"))
                .map(|&i| Dependency::ExternalCall(i)),
            // A mocked call's value is an input: the solver chooses it.
            VarRoot::Mock(_) => None,
            VarRoot::Param(_) => {
                let (object, field, _) = self.field_of(&path)?;
                let writers = self
                    .signature
                    .writers
                    .methods
                    .get(&(object.class.clone(), field.clone()))
                    .cloned()
                    .unwrap_or_default();
                let constructed = self
                    .signature
                    .writers
                    .constructed
                    .contains(&(object.class.clone(), field.clone()));
                Some(Dependency::Field {
                    path: name.to_owned(),
                    class: Some(object.class.clone()),
                    field,
                    writers,
                    constructed,
                })
            }
        }
    }

    /// The object input a field path goes through, the field of it the path reads, and the
    /// object's path in the input: `order.__init__.customer._orders.__len__` is the `_orders`
    /// field of the `Customer` passed as `order`'s `customer` constructor argument (or factory
    /// argument, when a factory builds `Order`), at `order.__init__.customer`.
    pub(super) fn field_of(&self, path: &VarPath) -> Option<(&ObjectShape, String, String)> {
        let VarRoot::Param(root) = &path.root else {
            return None;
        };
        let mut object = self.object_input(root)?;
        let mut prefix = root.clone();
        let steps: Vec<&str> = path.fields().collect();
        let mut i = 0;
        while i < steps.len() {
            let step = steps[i];
            // `x.__init__.p` (or `x.__factory__.p`) and a field named like a constructor
            // argument holding an object both lead into that argument's object.
            let through = step == "__init__" || step == "__factory__";
            let param = if through {
                i += 1;
                steps.get(i).copied()
            } else {
                Some(step)
            };
            let factory = self.signature.guidance.factory_for(&object.class);
            let params = factory.map_or(&object.init, |f| &f.params);
            let inner = param.and_then(|p| {
                params.iter().find_map(|(n, s)| match s {
                    Shape::Object(o) if n == p => Some((p, o)),
                    _ => None,
                })
            });
            match inner {
                Some((p, o)) if i + 1 < steps.len() => {
                    prefix = match factory {
                        Some(_) => factory_param(&prefix, p),
                        None => format!("{prefix}.__init__.{p}"),
                    };
                    object = o;
                    i += 1;
                }
                _ if through => return None,
                _ => return Some((object, step.to_owned(), prefix)),
            }
        }
        None
    }

    /// The factory arguments that would give a factory-built object's field the value a model
    /// wants: every list the factory takes gets that many elements (one call of a writer each,
    /// in the skeleton the code action writes), every flag is set.
    pub(super) fn factory_slots(
        &self,
        candidate: &Candidate,
        name: &str,
        value: &ModelValue,
    ) -> Option<Result<Vec<(String, ModelValue)>, u64>> {
        let path = VarPath::parse(name)?;
        let (object, _, prefix) = self.field_of(&path)?;
        let factory = self.factory(candidate, &object.class, &prefix)?;
        let wanted = match value {
            ModelValue::Int(d) if name.ends_with(".__len__") => {
                d.parse::<i64>().ok()?.max(0) as u64
            }
            _ => 1,
        };
        if wanted > u64::from(self.budget.loop_bound) {
            return Some(Err(wanted));
        }
        let slots: Vec<(String, ModelValue)> = factory
            .params
            .iter()
            .filter_map(|(p, s)| match s {
                Shape::List(_)
                | Shape::Set(_)
                | Shape::Iterator(_)
                | Shape::AsyncIterator(_)
                | Shape::TupleOf(_) => Some((
                    format!("{}.__len__", factory_param(&prefix, p)),
                    ModelValue::Int(wanted.to_string()),
                )),
                Shape::Bool => Some((factory_param(&prefix, p), ModelValue::Bool(wanted > 0))),
                _ => None,
            })
            .collect();
        (!slots.is_empty()).then_some(Ok(slots))
    }

    /// The factory that builds the object of `class` at `path` in `candidate`, if one does.
    pub(super) fn factory(
        &self,
        candidate: &Candidate,
        class: &str,
        path: &str,
    ) -> Option<&FactoryDecl> {
        self.signature
            .guidance
            .factory_for(class)
            .filter(|_| candidate.choices.get(&constructor_choice(path)) != Some(&1))
    }

    /// Whether a field variable can be reached through the methods that write the field.
    pub(super) fn constructible(&self, name: &str) -> bool {
        let Some(path) = VarPath::parse(name) else {
            return false;
        };
        // Only the object's own top-level construction calls are built (the receiver or a
        // parameter), not those of objects nested in constructor arguments.
        let Some((object, field, _)) = self.field_of(&path) else {
            return false;
        };
        if self.signature.guidance.factory_for(&object.class).is_some() {
            return true;
        }
        let top = match &path.root {
            VarRoot::Param(r) => self.object_input(r),
            VarRoot::ExternalReturn(_) | VarRoot::Mock(_) => None,
        };
        top.is_some_and(|t| std::ptr::eq(t, object))
            && self
                .signature
                .writers
                .methods
                .get(&(object.class.clone(), field))
                .is_some_and(|w| !w.is_empty())
    }

    /// A condition evaluated without a symbol that tests a field of an object input for
    /// `None` or for its truth (`self.namespaces is None`, `not self.force_list`), with a side
    /// or a value of it not seen yet: the field holds a constructor argument of a kind no
    /// model can ask for (`None` has no symbol), so the object is built again with that
    /// argument of the other kind — each other alternative of its choice when it was `None`
    /// (a dict, a list…, a container also holding one item: once it has a symbol, the solver
    /// takes over), `None` when it was not.
    pub(super) fn other_kind_of_field(&mut self, candidate: &Candidate, observed: &Observed) {
        let mut tests: Vec<(usize, u16)> = observed.concrete_only.iter().copied().collect();
        tests.sort_unstable();
        for (d, c) in tests {
            let open = !self.out.covered.contains_key(&(d, true))
                || !self.out.covered.contains_key(&(d, false))
                || !self.all_conditions.contains(&(d, c, true))
                || !self.all_conditions.contains(&(d, c, false));
            if !open {
                continue;
            }
            let decision = &self.f.syntax.decisions[d];
            let Some(condition) = decision.conditions.iter().find(|k| k.index == c) else {
                continue;
            };
            let Some(test) = &condition.field_test else {
                continue;
            };
            let (root, field) = (test.root.as_str(), test.field.as_str());
            let Some(object) = self.object_input(root) else {
                continue;
            };
            if self.factory(candidate, &object.class, root).is_some() {
                continue; // built through its factory, whose parameters are not the fields
            }
            let key = (object.class.clone(), field.to_owned());
            let Some(param) = self.signature.writers.constructor.get(&key) else {
                continue;
            };
            let Some((_, shape)) = object.init.iter().find(|(n, _)| n == param) else {
                continue;
            };
            let variants = shape.variants();
            if !variants.contains(&Shape::None) {
                continue;
            }
            let path = format!("{root}.__init__.{param}");
            let current = candidate.choices.get(&path).copied().unwrap_or(0);
            let was_none = variants.get(current) == Some(&Shape::None);
            let others: Vec<usize> = (0..variants.len().min(8))
                .filter(|&k| (variants[k] == Shape::None) != was_none)
                .collect();
            for k in others {
                for next in choosing(candidate, &path, k, variants[k].is_container()) {
                    self.push(3, next);
                }
            }
        }
    }

    /// The method calls that would give an object input's field the value a model wants:
    /// `self._items.__len__ = 5` → five calls of a method that writes `_items`.
    pub(super) fn object_calls(
        &self,
        candidate: &Candidate,
        name: &str,
        value: &ModelValue,
    ) -> Option<Result<(String, Vec<usize>), u64>> {
        let path = VarPath::parse(name)?;
        let VarRoot::Param(root) = &path.root else {
            return None;
        };
        let fields: Vec<&str> = path.fields().collect();
        let field = *fields.first()?;
        let shape = self.object_input(root)?;
        if self.factory(candidate, &shape.class, root).is_some() {
            return None; // built through its factory: see `factory_slots`
        }
        let writers = self
            .signature
            .writers
            .methods
            .get(&(shape.class.clone(), field.to_owned()))?;
        let method = shape
            .methods
            .iter()
            .position(|(m, _)| writers.contains(m))?;
        let count = if fields.last() == Some(&"__len__") {
            match value {
                ModelValue::Int(d) => d.parse::<i64>().ok()?.max(0) as u64,
                _ => return None,
            }
        } else {
            1
        };
        if count > u64::from(self.budget.loop_bound) {
            return Some(Err(count));
        }
        Some(Ok((root.clone(), vec![method; count as usize])))
    }

    /// A method called on an input object after its constructor raised (`stop()` on a `Timer`
    /// never started): the state it checks is usually what it changes, which the other methods
    /// that change it set up (`start()`, writing `_start` as `stop()` does). One candidate per
    /// such method, called just before the one that raised (a step back along the object's
    /// construction graph, as EvoObj builds it from a field to its writers).
    pub(super) fn set_up_first(&mut self, candidate: &Candidate, run: &Execution) {
        let (Some(class), Some(method)) = (&run.building, &run.building_method) else {
            return;
        };
        let mut next_candidates = vec![];
        for (path, calls) in &candidate.calls {
            if calls.len() >= self.budget.loop_bound as usize {
                continue;
            }
            let Some(shape) = self.object_input(path).filter(|o| o.class == *class) else {
                continue;
            };
            let Some(failing) = shape.methods.iter().position(|(m, _)| m == method) else {
                continue;
            };
            let Some(at) = calls.iter().position(|&c| c == failing) else {
                continue;
            };
            // The fields the failing method changes, and the other methods changing them.
            let writers = &self.signature.writers.methods;
            let changed = |m: &str| -> Vec<&String> {
                writers
                    .iter()
                    .filter(|((c, _), ws)| c == class && ws.iter().any(|w| w == m))
                    .map(|((_, f), _)| f)
                    .collect()
            };
            let fields = changed(method);
            let mut first: Vec<usize> = shape
                .methods
                .iter()
                .enumerate()
                .filter(|(_, (m, _))| m != method && changed(m).iter().any(|f| fields.contains(f)))
                .map(|(i, _)| i)
                .filter(|i| !calls[..at].contains(i))
                .collect();
            first.truncate(SET_UP_CALLS);
            for m in first {
                let mut next = candidate.clone();
                let mut sequence = calls.clone();
                sequence.insert(at, m);
                next.calls.insert(path.clone(), sequence);
                next_candidates.push(next);
            }
        }
        for next in next_candidates {
            self.push(2, next);
        }
    }

    /// A method called on an input object raised while the object was built (`comments(data)`
    /// on `data.strip()`, with the default kind of an unannotated argument, an int): the same
    /// call with each other kind of each of its arguments that has a choice of kinds. Method
    /// calls' arguments are no choices of their own otherwise, so without this a sequence of
    /// calls whose arguments are of any type almost never builds.
    pub(super) fn vary_failing_call(&mut self, candidate: &Candidate, run: &Execution) {
        let (Some(class), Some(method)) = (&run.building, &run.building_method) else {
            return;
        };
        let mut next_candidates = vec![];
        for (path, calls) in &candidate.calls {
            let Some(shape) = self.object_input(path).filter(|o| o.class == *class) else {
                continue;
            };
            let Some(failing) = shape.methods.iter().position(|(m, _)| m == method) else {
                continue;
            };
            let Some(at) = calls.iter().position(|&c| c == failing) else {
                continue;
            };
            for (param, param_shape) in &shape.methods[failing].1 {
                let var = format!("{path}.{method}.{at}.{param}");
                for k in 0..param_shape.choice_count().min(8) {
                    if param_shape.choice_count() > 1 && candidate.choices.get(&var) != Some(&k) {
                        let mut next = candidate.clone();
                        next.choices.insert(var.clone(), k);
                        next_candidates.push(next);
                    }
                }
            }
        }
        for next in next_candidates {
            self.push(2, next);
        }
    }
}

/// The methods tried before one that raised, at most.
const SET_UP_CALLS: usize = 4;
