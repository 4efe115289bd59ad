//! The tracked queries: parse → functions and classes → per-function models, call edges and
//! fingerprints → the static report of a file.

use super::{Db, Project, SourceFile};
use crate::diagnostic::{Code, Diagnostic};
use crate::model::calls::{CallTarget, absolute_module, call_targets};
use crate::model::class::{Assignable, ClassModel, FieldWriters};
use crate::model::function::FunctionModel;
use crate::workspace::{FileContents, module_name};
use lacuna_grammar::{
    Anchor, ClassSyntax, FunctionId, FunctionKind, FunctionSyntax, ImportBinding, LineIndex,
    Module, ModuleFlow, ModuleSeeds, TextRange,
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// The typed syntax of a file (empty when the file has no text), less what the project's
/// coverage exclusions leave out (`# pragma: no cover`: see [`crate::exclusions`]).
#[salsa::tracked(returns(ref))]
pub fn parsed(db: &dyn Db, file: SourceFile) -> Arc<Module> {
    match file.contents(db) {
        FileContents::Text(text) if too_large(db, text).is_none() => {
            let mut module = db.parses().parse(file, text);
            crate::exclusions::Exclusions::new(&db.project().config(db).exclude_lines).apply(
                &mut module,
                text,
                line_index(db, file),
            );
            Arc::new(module)
        }
        _ => Arc::new(Module::default()),
    }
}

/// The generator's seeds for the functions of a file ([`lacuna_grammar::seeds`]): asked for
/// only when its functions are explored, so that the static model never holds them.
#[salsa::tracked(returns(ref))]
pub fn file_seeds(db: &dyn Db, file: SourceFile) -> Arc<ModuleSeeds> {
    match file.contents(db) {
        FileContents::Text(text) if too_large(db, text).is_none() => {
            Arc::new(lacuna_grammar::seeds(text))
        }
        _ => Arc::new(ModuleSeeds::default()),
    }
}

/// What each function of a file reads and stores, statement by statement
/// ([`lacuna_grammar::flow`]): asked for only when its functions' gaps are explained.
#[salsa::tracked(returns(ref))]
pub fn file_flow(db: &dyn Db, file: SourceFile) -> Arc<ModuleFlow> {
    match file.contents(db) {
        FileContents::Text(text) if too_large(db, text).is_none() => {
            Arc::new(lacuna_grammar::flow(text))
        }
        _ => Arc::new(ModuleFlow::default()),
    }
}

/// `Some(limit)` when `text` is larger than the configured `max-file-size`: such a file is not
/// parsed nor modelled.
fn too_large(db: &dyn Db, text: &str) -> Option<u64> {
    let limit = db.project().config(db).max_file_size;
    (text.len() as u64 > limit).then_some(limit)
}

#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn Db, file: SourceFile) -> Arc<LineIndex> {
    match file.contents(db) {
        FileContents::Text(text) => Arc::new(LineIndex::new(text)),
        _ => Arc::new(LineIndex::default()),
    }
}

/// A function (or class body, or module body) of a file. Identified by its file and ID; its
/// syntax and its anchor are tracked apart, so moving it does not invalidate what depends on
/// its syntax.
#[salsa::tracked(debug)]
pub struct FunctionNode<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub id: FunctionId,
    #[tracked]
    #[returns(ref)]
    pub syntax: Arc<FunctionSyntax>,
    #[tracked]
    #[returns(copy)]
    pub anchor: Anchor,
}

#[salsa::tracked(debug)]
pub struct ClassNode<'db> {
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub qualname: String,
    #[tracked]
    #[returns(ref)]
    pub syntax: Arc<ClassSyntax>,
    #[tracked]
    #[returns(copy)]
    pub anchor: Anchor,
}

#[salsa::tracked(returns(ref))]
pub fn file_functions(db: &dyn Db, file: SourceFile) -> Vec<FunctionNode<'_>> {
    parsed(db, file)
        .functions
        .iter()
        .map(|f| FunctionNode::new(db, file, f.id.clone(), f.syntax.clone(), f.anchor))
        .collect()
}

/// Where each function of a file stands in [`file_functions`], by ID: the call graph looks
/// callees up here, so that a file of n functions costs n look-ups, not n².
#[salsa::tracked(returns(ref))]
pub fn function_positions(db: &dyn Db, file: SourceFile) -> Arc<FxHashMap<FunctionId, usize>> {
    Arc::new(
        parsed(db, file)
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.id.clone(), i))
            .collect(),
    )
}

/// The function of `file` whose ID is `id`.
pub fn function_by_id<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    id: &str,
) -> Option<FunctionNode<'db>> {
    let position = *function_positions(db, file).get(id)?;
    file_functions(db, file).get(position).copied()
}

#[salsa::tracked(returns(ref))]
pub fn file_classes(db: &dyn Db, file: SourceFile) -> Vec<ClassNode<'_>> {
    parsed(db, file)
        .classes
        .iter()
        .map(|c| {
            ClassNode::new(
                db,
                file,
                c.syntax.qualname.clone(),
                c.syntax.clone(),
                c.anchor,
            )
        })
        .collect()
}

/// The imports of a file without positions (which shift with every edit above them): local
/// name, target, and the ID of the scope holding the import.
#[salsa::tracked(returns(ref))]
pub fn file_imports(db: &dyn Db, file: SourceFile) -> Arc<Vec<(String, String, FunctionId)>> {
    Arc::new(
        parsed(db, file)
            .imports
            .iter()
            .map(|i| (i.local.clone(), i.target.clone(), i.scope.clone()))
            .collect(),
    )
}

/// Module names of the project's files, both ways.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ModuleIndex {
    by_name: FxHashMap<String, SourceFile>,
    by_file: FxHashMap<SourceFile, String>,
}

impl ModuleIndex {
    pub fn file(&self, module: &str) -> Option<SourceFile> {
        self.by_name.get(module).copied()
    }

    pub fn name(&self, file: SourceFile) -> Option<&str> {
        self.by_file.get(&file).map(String::as_str)
    }
}

#[salsa::tracked(returns(ref))]
pub fn module_index(db: &dyn Db, project: Project) -> Arc<ModuleIndex> {
    let src = &project.config(db).src;
    let mut index = ModuleIndex::default();
    for &file in project.files(db).iter() {
        if let Some(name) = module_name(src, file.path(db)) {
            index.by_name.insert(name.clone(), file);
            index.by_file.insert(file, name);
        }
    }
    Arc::new(index)
}

/// The static model of one function.
#[salsa::tracked(returns(ref))]
pub fn function_model(db: &dyn Db, function: FunctionNode<'_>) -> Arc<FunctionModel> {
    let mcdc = &db.project().config(db).mcdc;
    Arc::new(FunctionModel::new(function.syntax(db), mcdc))
}

/// The model of a class: fields, their writers and readers, assignability.
#[salsa::tracked(returns(ref))]
pub fn class_model(db: &dyn Db, class: ClassNode<'_>) -> Arc<ClassModel> {
    let syntax = class.syntax(db);
    let functions = file_functions(db, class.file(db));
    let methods: Vec<(&str, &FunctionSyntax)> = functions
        .iter()
        .map(|f| f.syntax(db))
        .filter(|s| s.class.as_deref() == Some(syntax.qualname.as_str()))
        .map(|s| (s.name.as_str(), &**s))
        .collect();
    Arc::new(ClassModel::new(syntax, &methods))
}

/// Which methods write each field, for every class of the project's modules: computed once
/// per revision of the project, shared by every exploration of it.
#[salsa::tracked(returns(ref))]
pub fn field_writers(db: &dyn Db, project: Project) -> Arc<FieldWriters> {
    let index = module_index(db, project);
    let mut out = FieldWriters::default();
    for &file in project.files(db).iter() {
        let Some(module) = index.name(file) else {
            continue;
        };
        for &class in file_classes(db, file) {
            let model = class_model(db, class);
            for field in &model.fields {
                let methods: Vec<String> = field.writers.iter().map(|(m, _)| m.clone()).collect();
                let param = match &field.assignable {
                    Some(Assignable::Constructor { param }) => Some(param.clone()),
                    _ => None,
                };
                let class = format!("{module}:{}", model.qualname);
                // A private field as the running code names it too (`self.__order` is
                // `_TLRUCache__order` at run time).
                let name = model.qualname.rsplit('.').next().unwrap_or_default();
                let mangled = lacuna_grammar::mangling::mangled(name, &field.name);
                for key in mangled.into_iter().chain([field.name.clone()]) {
                    let key = (class.clone(), key);
                    if let Some(param) = &param {
                        out.constructor.insert(key.clone(), param.clone());
                    }
                    if field.constructed {
                        out.constructed.insert(key.clone());
                    }
                    if !methods.is_empty() {
                        out.methods.insert(key, methods.clone());
                    }
                }
            }
        }
    }
    Arc::new(out)
}

/// The workspace functions `function` calls, as far as syntax can resolve them.
#[salsa::tracked(returns(ref))]
pub fn callees<'db>(db: &'db dyn Db, function: FunctionNode<'db>) -> Vec<FunctionNode<'db>> {
    let syntax = function.syntax(db);
    let file = function.file(db);
    let index = module_index(db, db.project());
    let imports = file_imports(db, file);
    let own = function.id(db);
    let mut out: Vec<FunctionNode<'db>> = vec![];
    let lookup = |file: SourceFile, id: &str| function_by_id(db, file, id);
    let bindings = imports.iter().map(|(local, target, scope)| ImportBinding {
        local,
        target,
        scope,
    });
    for call in &syntax.calls {
        let resolved = call.resolved(own, bindings.clone());
        let found = call_targets(syntax, call, resolved.as_deref())
            .into_iter()
            .find_map(|target| match target {
                CallTarget::Local(id) => lookup(file, &id),
                CallTarget::Module { module, qualname } => {
                    let importer = index.name(file)?;
                    let is_package = file.path(db).ends_with("__init__.py");
                    let module = absolute_module(importer, is_package, &module)?;
                    lookup(index.file(&module)?, &qualname)
                }
            });
        if let Some(callee) = found
            && callee != function
            && !out.contains(&callee)
        {
            out.push(callee);
        }
    }
    // Kept for as long as the database: no spare capacity.
    out.shrink_to_fit();
    out
}

/// A function's fingerprint: its own text and the text of every workspace function it calls,
/// directly or not. Exploration results are keyed by it: a function is *impacted* by an edit when
/// its fingerprint changes. A function's text is its syntax's hash (`text_hash`: signature,
/// decorators and body, comments and layout ignored), which changes whenever its syntax does.
#[salsa::tracked(returns(copy))]
pub fn fingerprint(db: &dyn Db, function: FunctionNode<'_>) -> u64 {
    let mut seen = FxHashSet::default();
    let mut stack = vec![function];
    let mut hashes = vec![];
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        if f != function {
            hashes.push(f.syntax(db).text_hash);
        }
        stack.extend(callees(db, f).iter().copied());
    }
    hashes.sort_unstable();
    let mut bytes = function.syntax(db).text_hash.to_le_bytes().to_vec();
    for h in hashes {
        bytes.extend_from_slice(&h.to_le_bytes());
    }
    lacuna_grammar::ids::fnv1a(&bytes)
}

/// Per function, what `lacuna check --static` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSummary {
    pub id: FunctionId,
    pub qualname: Arc<str>,
    pub kind: FunctionKind,
    /// 1-based line of the `def` (its first decorator when it has any).
    pub line: u32,
    pub model: Arc<FunctionModel>,
    pub fingerprint: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StaticReport {
    /// Functions (`def`s always; module and class bodies when they hold decisions).
    pub functions: Vec<FunctionSummary>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The static facts of a file: functions with their counts, syntax errors, unreadable files and
/// decisions too large to model.
#[salsa::tracked(returns(ref))]
pub fn static_report(db: &dyn Db, file: SourceFile) -> Arc<StaticReport> {
    let mut report = StaticReport::default();
    match file.contents(db) {
        FileContents::Text(text) => {
            if let Some(limit) = too_large(db, text) {
                report.diagnostics.push(Diagnostic::new(
                    Code::FileTooLarge,
                    TextRange::new(0, 0),
                    format!(
                        "file of {} bytes is larger than `max-file-size` ({limit} bytes): not \
                         modelled, no decisions nor tests for it",
                        text.len()
                    ),
                ));
                return Arc::new(report);
            }
        }
        FileContents::BadEncoding { offset, encoding } => {
            report.diagnostics.push(Diagnostic::new(
                Code::UnreadableFile,
                TextRange::new(0, 0),
                format!("file is not valid {encoding}: invalid byte at offset {offset}"),
            ));
            return Arc::new(report);
        }
        FileContents::Unreadable(why) => {
            report.diagnostics.push(Diagnostic::new(
                Code::UnreadableFile,
                TextRange::new(0, 0),
                format!("cannot read file: {why}"),
            ));
            return Arc::new(report);
        }
        FileContents::Deleted => return Arc::new(report),
    }
    for e in &parsed(db, file).syntax_errors {
        report.diagnostics.push(Diagnostic::new(
            Code::SyntaxError,
            e.range,
            e.message.clone(),
        ));
    }
    for &function in file_functions(db, file) {
        let syntax = function.syntax(db);
        let model = function_model(db, function).clone();
        if syntax.kind != FunctionKind::Def
            && syntax.decisions.is_empty()
            && syntax.excluded_sides == 0
        {
            continue;
        }
        let anchor = function.anchor(db);
        for (id, why) in &model.unmodelled {
            let Some(decision) = syntax.decisions.iter().find(|d| &d.id == id) else {
                continue;
            };
            let message = match why {
                lacuna_grammar::Unmodelled::TooManyConditions(n) => format!(
                    "decision has {n} conditions (more than {}): branches are tracked, MC/DC is not",
                    lacuna_grammar::MAX_CONDITIONS
                ),
                lacuna_grammar::Unmodelled::TooDeep => {
                    "decision is nested too deeply to model: branches are tracked, MC/DC is not"
                        .to_owned()
                }
            };
            let mut d = Diagnostic::new(
                Code::UnmodelledDecision,
                decision.range.absolute(anchor),
                message,
            );
            d.function = Some(function.id(db).to_string());
            report.diagnostics.push(d);
        }
        report.functions.push(FunctionSummary {
            id: function.id(db).clone(),
            qualname: syntax.qualname.clone(),
            kind: syntax.kind,
            line: anchor.line + 1,
            model,
            fingerprint: fingerprint(db, function),
        });
    }
    report.diagnostics.sort_by_key(|d| (d.range.start, d.code));
    report.functions.shrink_to_fit();
    Arc::new(report)
}

/// A digest of a file's contents as the database has them.
#[salsa::tracked(returns(copy))]
pub fn contents_digest(db: &dyn Db, file: SourceFile) -> u64 {
    match file.contents(db) {
        FileContents::Text(text) => lacuna_grammar::ids::fnv1a(text.as_bytes()),
        other => lacuna_grammar::ids::fnv1a(format!("{other:?}").as_bytes()),
    }
}

/// The project files importing `file`'s module runs or may run, as far as syntax resolves its
/// imports (at any scope): the `__init__.py` of its packages and of every project module it
/// imports, and those modules.
#[salsa::tracked(returns(ref))]
pub fn imported_files(db: &dyn Db, file: SourceFile) -> Arc<Vec<SourceFile>> {
    let index = module_index(db, db.project());
    let Some(importer) = index.name(file) else {
        return Arc::new(vec![]);
    };
    let is_package = file.path(db).ends_with("__init__.py");
    // A module and its packages: `a.b.c` → `a`, `a.b`, `a.b.c`, those that are the project's.
    let with_packages = |module: &str, out: &mut Vec<SourceFile>| {
        let parts: Vec<&str> = module.split('.').collect();
        for n in 1..=parts.len() {
            if let Some(f) = index.file(&parts[..n].join("."))
                && f != file
                && !out.contains(&f)
            {
                out.push(f);
            }
        }
    };
    let mut out = vec![];
    with_packages(importer, &mut out);
    for (_, target, _) in file_imports(db, file).iter() {
        // `from a.b import c` is `a.b.c`: module `a.b.c` when there is one, else `a.b`.
        if let Some(module) = absolute_module(importer, is_package, target) {
            with_packages(&module, &mut out);
        }
    }
    Arc::new(out)
}

/// A digest of the texts of `file` and of every project file importing its module may run,
/// transitively ([`imported_files`]): what a failure to import the module, or to find a
/// function in it, depends on in the project.
#[salsa::tracked(returns(copy))]
pub fn import_digest(db: &dyn Db, file: SourceFile) -> u64 {
    let index = module_index(db, db.project());
    let mut seen = FxHashSet::default();
    let mut stack = vec![file];
    let mut digests = vec![];
    while let Some(f) = stack.pop() {
        if !seen.insert(f) {
            continue;
        }
        // By module name, not path: the same project checked out elsewhere (another CI
        // runner) has the same digest.
        digests.push((index.name(f).unwrap_or_default(), contents_digest(db, f)));
        stack.extend(imported_files(db, f).iter().copied());
    }
    digests.sort_unstable();
    let mut bytes = vec![];
    for (path, digest) in digests {
        bytes.extend_from_slice(path.as_bytes());
        bytes.extend_from_slice(&digest.to_le_bytes());
    }
    lacuna_grammar::ids::fnv1a(&bytes)
}
