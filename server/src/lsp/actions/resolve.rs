//! Resolving an offered action: refused when its document changed since it was offered; the
//! declaration (mock, factory, or a factory's missing writer calls) inserted into the guidance
//! module without disturbing it, and refused if the module would no longer parse; the loop
//! bound set in `pyproject.toml`. Reads the owner's open documents and the class model, through
//! `Resolving`; writes nothing itself: the edit goes back to the client.

use super::failing::{FailingTest, with_failing_test};
use super::{guidance_text, guidance_uri, strings};
use crate::lsp::budget;
use crate::lsp::document::{Document, Encoding, Text};
use crate::lsp::guidance::{self, GuidanceText, Insertion};
use lacuna_analysis::config::Config;
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::path::PathBuf;
use tower_lsp_server::ls_types::{
    CodeAction, CreateFile, CreateFileOptions, DocumentChangeOperation, DocumentChanges, OneOf,
    OptionalVersionedTextDocumentIdentifier, ResourceOp, TextDocumentEdit, TextEdit, Uri,
    WorkspaceEdit,
};

/// What resolving reads of the owner's state.
pub struct Resolving<'a> {
    pub docs: &'a FxHashMap<Uri, Document>,
    pub config: &'a Config,
    pub encoding: Encoding,
    /// A class's constructor parameters and public methods, by `module:Qual` name.
    pub class_api: &'a dyn Fn(&str) -> Option<ClassApi>,
}

/// Why resolving an offered action is refused; the client shows its text.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("the action carries no data")]
    NoData,
    /// What the action's data lacks: a `document`, a `bound`, a `function`…
    #[error("the action names no {0}")]
    Unnamed(&'static str),
    #[error("the action has no test")]
    NoTest,
    #[error("not a Lacuna action")]
    NotAnAction,
    #[error("{0} changed since this action was offered; ask for it again")]
    Changed(String),
    #[error("{} is not a file path", .0.display())]
    NotAFilePath(PathBuf),
    #[error("the declaration would not parse in the guidance module; nothing was changed")]
    WouldNotParse,
    #[error(transparent)]
    LoopBound(#[from] budget::LoopBoundError),
    #[error("`{name}` is already in {}", path.display())]
    TestExists { name: String, path: PathBuf },
    #[error("this behaviour cannot be written as a plain string")]
    NotAPlainString,
    #[error("`{invariant}` is already accepted for `{function}` in the guidance module")]
    AlreadyAccepted { function: String, invariant: String },
    #[error("`{0}` is already mocked in the guidance module")]
    AlreadyMocked(String),
    #[error("the class has no module")]
    NoModule,
    #[error("the guidance module already has a factory for `{0}`")]
    FactoryExists(String),
    #[error("the guidance module has no function `{0}`")]
    NoFactory(String),
    #[error("`{factory}` already calls {}", writers.join(" and "))]
    AlreadyCalls {
        factory: String,
        writers: Vec<String>,
    },
    /// The factory is not written in a way calls can be added to.
    #[error(transparent)]
    NotExtendable(#[from] crate::lsp::guidance::NotExtendable),
}

/// The edit of an action offered earlier, or why it is refused.
pub fn resolve(mut action: CodeAction, at: &Resolving<'_>) -> Result<CodeAction, Refusal> {
    let payload = action.data.clone().ok_or(Refusal::NoData)?;
    let uri: Uri = payload["uri"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .ok_or(Refusal::Unnamed("document"))?;
    let offered_for = payload["version"].as_i64();
    let current = at.docs.get(&uri).map(|d| i64::from(d.version));
    if current != offered_for {
        return Err(Refusal::Changed(uri.as_str().to_owned()));
    }
    if payload["kind"] == "loop-bound" {
        action.edit = Some(loop_bound_edit(&payload, at)?);
        return Ok(action);
    }
    if payload["kind"] == "xfail" {
        action.edit = Some(failing_test_edit(&payload, at)?);
        return Ok(action);
    }
    let guidance_uri =
        guidance_uri(at.config).ok_or_else(|| Refusal::NotAFilePath(at.config.guidance.clone()))?;
    let (text, version) = guidance_text(at.docs, at.config);
    let class_api = payload["class"].as_str().and_then(|q| (at.class_api)(q));
    let insertions = insertions(&payload, text.as_deref(), class_api.as_ref())?;
    // Never corrupt the module: the result must parse if the module did.
    let before = text.as_deref().unwrap_or("");
    let after = guidance::apply(before, &insertions);
    let errors = |t: &str| lacuna_grammar::parse(t).syntax_errors.len();
    if errors(&after) > errors(before) {
        return Err(Refusal::WouldNotParse);
    }
    let file = GuidanceFile {
        uri: guidance_uri,
        text,
        version,
    };
    action.edit = Some(edit(&file, &insertions, at.encoding));
    Ok(action)
}

/// The edit that sets `[tool.lacuna.budget] loop-bound` in the project's `pyproject.toml`
/// (created when missing), as the editor or the disk has it.
fn loop_bound_edit(payload: &Value, at: &Resolving<'_>) -> Result<WorkspaceEdit, Refusal> {
    let bound = payload["bound"]
        .as_u64()
        .and_then(|b| u32::try_from(b).ok())
        .ok_or(Refusal::Unnamed("bound"))?;
    let path = at
        .config
        .source
        .clone()
        .unwrap_or_else(|| at.config.root.join("pyproject.toml"));
    let Some(uri) = Uri::from_file_path(&path) else {
        return Err(Refusal::NotAFilePath(path));
    };
    let (text, version) = match at.docs.get(&uri) {
        Some(doc) => (Some(doc.text.text.clone()), Some(doc.version)),
        None => (std::fs::read_to_string(&path).ok(), None),
    };
    let new_text = budget::with_loop_bound(text.as_deref().unwrap_or(""), bound)?;
    Ok(replace_all(
        &GuidanceFile { uri, text, version },
        new_text,
        at.encoding,
    ))
}

/// The guidance module (or `pyproject.toml`) as the edit must see it.
struct GuidanceFile {
    pub uri: Uri,
    /// `None`: it does not exist yet.
    pub text: Option<String>,
    /// Its version when open in the editor.
    pub version: Option<i32>,
}

/// The workspace edit that applies `insertions` to the guidance module, creating it if needed.
fn edit(file: &GuidanceFile, insertions: &[Insertion], encoding: Encoding) -> WorkspaceEdit {
    let text = Text::new(file.text.clone().unwrap_or_default());
    let edits = insertions
        .iter()
        .map(|i| {
            OneOf::Left(TextEdit {
                range: text.range(guidance::range(i), encoding),
                new_text: i.text.clone(),
            })
        })
        .collect();
    document_edit(file, edits)
}

/// `edits` of `file`, at its version, after creating it when it does not exist.
fn document_edit(
    file: &GuidanceFile,
    edits: Vec<OneOf<TextEdit, tower_lsp_server::ls_types::AnnotatedTextEdit>>,
) -> WorkspaceEdit {
    let document_edit = TextDocumentEdit {
        text_document: OptionalVersionedTextDocumentIdentifier {
            uri: file.uri.clone(),
            version: file.version,
        },
        edits,
    };
    let mut operations = vec![];
    if file.text.is_none() {
        operations.push(DocumentChangeOperation::Op(ResourceOp::Create(
            CreateFile {
                uri: file.uri.clone(),
                // Created by this edit only: when it exists by the time the edit is applied
                // (another action created it), the edit fails rather than writing its header
                // twice; offered again, the action is resolved against what is there.
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(false),
                }),
                annotation_id: None,
            },
        )));
    }
    operations.push(DocumentChangeOperation::Edit(document_edit));
    WorkspaceEdit {
        changes: None,
        document_changes: Some(DocumentChanges::Operations(operations)),
        change_annotations: None,
    }
}

/// The edit that replaces the whole of `file` (created when missing) by `new_text`.
fn replace_all(file: &GuidanceFile, new_text: String, encoding: Encoding) -> WorkspaceEdit {
    let old = Text::new(file.text.clone().unwrap_or_default());
    let whole = lacuna_grammar::TextRange::new(0, old.text.len() as u32);
    document_edit(
        file,
        vec![OneOf::Left(TextEdit {
            range: old.range(whole, encoding),
            new_text,
        })],
    )
}

/// Declares `accepted` in a guidance module that does not have it yet.
const ACCEPTED_HELPER: &str = r#"def accepted(function, invariant):
    """Marks a behaviour as intended although it breaks `invariant`, a likely invariant of the
    project's tests at `function` (`module:qualname`): Lacuna no longer reports it (LCN300)."""
    return (function, invariant)
"#;

/// The name of the file of the suite where failing tests from suspicious assertions go.
pub const FAILING_TESTS: &str = "test_lacuna_suspicious.py";

/// The edit that adds a suspicious generated test to the project's suite, marked
/// `xfail(strict=True)`, its expected value left for the user.
fn failing_test_edit(payload: &Value, at: &Resolving<'_>) -> Result<WorkspaceEdit, Refusal> {
    let dir = at
        .config
        .tests
        .first()
        .cloned()
        .unwrap_or_else(|| at.config.root.join("tests"));
    let path = dir.join(FAILING_TESTS);
    let Some(uri) = Uri::from_file_path(&path) else {
        return Err(Refusal::NotAFilePath(path));
    };
    let (text, version) = match at.docs.get(&uri) {
        Some(doc) => (Some(doc.text.text.clone()), Some(doc.version)),
        None => (std::fs::read_to_string(&path).ok(), None),
    };
    let source = payload["source"].as_str().ok_or(Refusal::NoTest)?;
    let name = payload["name"].as_str().ok_or(Refusal::NoTest)?;
    let test = FailingTest {
        name,
        source,
        invariant: payload["invariant"].as_str().unwrap_or_default(),
        imports: &strings(&payload["imports"]),
    };
    let new_text =
        with_failing_test(text.as_deref().unwrap_or_default(), &test).ok_or_else(|| {
            Refusal::TestExists {
                name: name.to_owned(),
                path: path.clone(),
            }
        })?;
    Ok(replace_all(
        &GuidanceFile { uri, text, version },
        new_text,
        at.encoding,
    ))
}

/// What a factory is built from: the constructor's parameters and the public methods with
/// theirs (receiver excluded).
#[derive(Clone, Debug, Default)]
pub struct ClassApi {
    pub init: Vec<String>,
    pub methods: Vec<(String, Vec<String>)>,
    /// Per method, the methods that write the state it reads and no constructor sets
    /// (`submit` reads `_lines`, written by `add_line`): they are called before it.
    pub prerequisites: Vec<(String, Vec<String>)>,
}

impl ClassApi {
    /// `wanted` with the prerequisites of each before it (EvoObj's point: a method's
    /// precondition is met by the calls that build the state it reads), each once.
    pub fn call_order<'a>(&'a self, wanted: &[&'a str]) -> Vec<&'a str> {
        let mut out: Vec<&str> = vec![];
        for &w in wanted {
            let before = self
                .prerequisites
                .iter()
                .find(|(m, _)| m == w)
                .map(|(_, p)| p.as_slice())
                .unwrap_or_default();
            for p in before {
                if !out.contains(&p.as_str()) && !wanted.contains(&p.as_str()) {
                    out.push(p);
                }
            }
            if !out.contains(&w) {
                out.push(w);
            }
        }
        out
    }

    /// The methods `names` with their parameters (none for a method the class lacks).
    pub fn writers<'a>(&'a self, names: &[&'a str]) -> Vec<guidance::Writer<'a>> {
        names
            .iter()
            .map(|name| guidance::Writer {
                name,
                params: self
                    .methods
                    .iter()
                    .find(|(m, _)| m == name)
                    .map(|(_, p)| p.as_slice())
                    .unwrap_or(&[]),
            })
            .collect()
    }
}

/// The insertions for an offered action, given the guidance text and, for factories, the class's
/// constructor and writer methods.
fn insertions(
    payload: &Value,
    existing: Option<&str>,
    class_api: Option<&ClassApi>,
) -> Result<Vec<Insertion>, Refusal> {
    let guidance = GuidanceText::read(existing.unwrap_or(""));
    let guidance = &guidance;
    let existing = existing.is_some().then_some(guidance);
    match payload["kind"].as_str() {
        Some("accept") => {
            let function = payload["function"]
                .as_str()
                .ok_or(Refusal::Unnamed("function"))?;
            let invariant = payload["invariant"]
                .as_str()
                .ok_or(Refusal::Unnamed("invariant"))?;
            if [function, invariant]
                .iter()
                .any(|s| s.contains(['"', '\\', '\n']))
            {
                return Err(Refusal::NotAPlainString);
            }
            let pair = (function.to_owned(), invariant.to_owned());
            if guidance.declared.accepted().contains(&pair) {
                return Err(Refusal::AlreadyAccepted {
                    function: function.to_owned(),
                    invariant: invariant.to_owned(),
                });
            }
            let mut declaration = String::new();
            if !guidance.declared.defines("accepted") {
                declaration.push_str(ACCEPTED_HELPER);
                declaration.push_str("\n\n");
            }
            let claim = payload["claim"]
                .as_str()
                .unwrap_or_default()
                .replace('\n', " ");
            declaration.push_str(&format!(
                "accepted(\"{function}\", \"{invariant}\")  # intended: {claim}\n"
            ));
            Ok(guidance::insert(existing, &declaration, None))
        }
        Some("mock") => {
            let callee = payload["callee"].as_str().ok_or(Refusal::Unnamed("call"))?;
            if guidance.declared.mocks_call(callee) {
                return Err(Refusal::AlreadyMocked(callee.to_owned()));
            }
            let declaration = guidance::mock_declaration(callee, payload["returns"].as_str());
            Ok(guidance::insert(existing, &declaration, None))
        }
        Some("factory") => {
            let qualified = payload["class"].as_str().ok_or(Refusal::Unnamed("class"))?;
            let (module, class) = qualified.split_once(':').ok_or(Refusal::NoModule)?;
            if guidance::existing_factory(guidance, class).is_some() {
                return Err(Refusal::FactoryExists(class.to_owned()));
            }
            let none = ClassApi::default();
            let api = class_api.unwrap_or(&none);
            let wanted = strings(&payload["writers"]);
            let writers = api.writers(&api.call_order(&wanted));
            let init = &api.init;
            let field = payload["field"].as_str().unwrap_or("its state");
            let declaration = guidance::factory_declaration(class, init, field, &writers);
            Ok(guidance::insert(
                existing,
                &declaration,
                Some((module, class)),
            ))
        }
        Some("extend") => {
            let factory = payload["factory"]
                .as_str()
                .ok_or(Refusal::Unnamed("factory"))?;
            let wanted = strings(&payload["writers"]);
            let found = guidance::Factory::find(guidance, factory)
                .ok_or_else(|| Refusal::NoFactory(factory.to_owned()))?;
            let missing = found.missing(&wanted);
            if missing.is_empty() {
                return Err(Refusal::AlreadyCalls {
                    factory: factory.to_owned(),
                    writers: wanted.iter().map(|w| (*w).to_owned()).collect(),
                });
            }
            let none = ClassApi::default();
            let api = class_api.unwrap_or(&none);
            // With the prerequisites of each that it does not call either.
            let order = api.call_order(&missing);
            found
                .extend(&api.writers(&found.missing(&order)))
                .map_err(Refusal::NotExtendable)
        }
        _ => Err(Refusal::NotAnAction),
    }
}
