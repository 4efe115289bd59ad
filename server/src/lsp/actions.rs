//! Code actions that close a gap (Covana's loop, cooperative testing): on an uncovered side that
//! depends on an external call, "Mock `os.path.exists` in generated tests"; on one that depends on
//! object state, "Create a factory for `Stack`"; on one that needs more iterations than the
//! bound, "Raise the loop bound to 64 in pyproject.toml". Offering is cheap: the owner answers
//! from the published snapshot, leaving out a mock or factory the guidance module already
//! declares as it has the module then; the edit is computed on resolve, also by the owner,
//! against the document version the action was offered for, and refused if that document
//! changed since.

use super::document::{Encoding, Text};
use super::guidance::{self, Insertion};
use super::main_loop::Published;
use lacuna_analysis::diagnostic::{Cause, Code, Diagnostic};
use serde_json::{Value, json};
use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CreateFile,
    CreateFileOptions, DocumentChangeOperation, DocumentChanges, OneOf,
    OptionalVersionedTextDocumentIdentifier, ResourceOp, TextDocumentEdit, TextEdit, Uri,
    WorkspaceEdit,
};

/// A string field of a diagnostic's `data`.
pub fn data<'a>(d: &'a Diagnostic, key: &str) -> Option<&'a str> {
    d.data.as_ref()?.get(key)?.as_str()
}

/// The strings of a JSON array (none for anything else).
fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// `Order` of `shop.orders:Order`.
pub fn short_class(qualified: &str) -> &str {
    qualified.rsplit([':', '.']).next().unwrap_or(qualified)
}

/// The actions for the diagnostics under the requested range. `guidance` is the guidance
/// module's current text: a mock or factory it already declares is not offered again (resolving
/// it would be refused).
pub fn offer(
    params: &CodeActionParams,
    doc: &Published,
    guidance: Option<&str>,
) -> Vec<CodeActionOrCommand> {
    let guidance = guidance.unwrap_or("");
    let range = doc.text.text_range(params.range, Encoding::Utf16);
    let mut out: Vec<CodeActionOrCommand> = vec![];
    let mut seen = std::collections::BTreeSet::new();
    for d in &doc.diagnostics {
        if d.range.end < range.start || d.range.start > range.end {
            continue;
        }
        // An MC/DC obligation blocked like a branch gets the branch's action.
        let cause = match d.code {
            Code::McdcObligation => match data(d, "cause") {
                Some("external-call") => Some(Cause::ExternalCall),
                Some("object-creation") => Some(Cause::ObjectCreation),
                _ => None,
            },
            code => code.cause(),
        };
        let mut offers: Vec<(String, Value)> = vec![];
        match cause {
            Some(Cause::ExternalCall | Cause::ExternalException) => {
                let Some(callee) = data(d, "callee") else {
                    continue;
                };
                // A call whose value follows from its arguments (`pathlib.Path(root)`) is not
                // mocked: that would replace the code's own logic, not the world's.
                let pure = d.data.as_ref().is_some_and(|v| v["pure"] == true);
                if pure || guidance::has_mock(guidance, callee) {
                    continue;
                }
                offers.push((
                    format!("Mock `{callee}` in generated tests"),
                    json!({"kind": "mock", "callee": callee, "returns": data(d, "returns")}),
                ));
            }
            Some(Cause::ObjectCreation) => {
                let Some(class) = data(d, "class") else {
                    continue;
                };
                // A factory that exists but does not yet build the state this side needs is
                // extended, not declared again (the hover points at it); a bigger bound may
                // still be offered below.
                let qualname = class.split_once(':').map_or(class, |(_, q)| q);
                let wanted = d
                    .data
                    .as_ref()
                    .map(|v| strings(&v["writers"]))
                    .unwrap_or_default();
                if let Some((factory, _)) = guidance::existing_factory(guidance, qualname) {
                    // The factory does not call the writers this side needs: it gets them.
                    let found = guidance::Factory::find(guidance, &factory);
                    let missing = found
                        .as_ref()
                        .map(|f| f.missing(&wanted))
                        .unwrap_or_default();
                    if !missing.is_empty() && found.is_some_and(|f| f.extendable()) {
                        let names: Vec<String> = missing.iter().map(|w| format!("`{w}`")).collect();
                        offers.push((
                            format!(
                                "Extend the `{}` factory `{factory}` with {}",
                                short_class(class),
                                names.join(" and ")
                            ),
                            json!({
                                "kind": "extend",
                                "class": class,
                                "factory": factory,
                                "writers": missing,
                            }),
                        ));
                    }
                } else {
                    offers.push((
                        format!("Create a factory for `{}`", short_class(class)),
                        json!({
                            "kind": "factory",
                            "class": class,
                            "field": data(d, "field"),
                            "writers": d.data.as_ref().and_then(|v| v.get("writers")).cloned().unwrap_or(Value::Null),
                        }),
                    ));
                }
            }
            Some(Cause::Boundary) => {}
            _ => continue,
        }
        // A side that needs more iterations, or more calls of a writer, than the generator
        // makes: the fix is the loop bound.
        let needed = d
            .data
            .as_ref()
            .and_then(|v| v.get("calls_needed").or_else(|| v.get("needed")))
            .and_then(Value::as_u64);
        if let Some(needed) = needed
            && matches!(cause, Some(Cause::ObjectCreation | Cause::Boundary))
        {
            let bound = super::budget::proposed(needed);
            offers.push((
                format!("Raise the loop bound to {bound} in pyproject.toml"),
                json!({"kind": "loop-bound", "bound": bound}),
            ));
        }
        for (title, payload) in offers {
            if !seen.insert(title.clone()) {
                continue;
            }
            push(&mut out, title, payload, params, doc);
        }
    }
    out
}

/// An offered action: resolved later, against the document version it was offered for.
fn push(
    out: &mut Vec<CodeActionOrCommand>,
    title: String,
    mut payload: Value,
    params: &CodeActionParams,
    doc: &Published,
) {
    payload["uri"] = json!(params.text_document.uri.as_str());
    payload["version"] = json!(doc.version);
    // The mock or factory is the fix; a bigger budget only when nothing else is offered.
    let preferred = payload["kind"] != "loop-bound"
        || !out
            .iter()
            .any(|a| matches!(a, CodeActionOrCommand::CodeAction(_)));
    out.push(CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: None,
        edit: None,
        command: None,
        is_preferred: Some(preferred),
        disabled: None,
        data: Some(payload),
    }));
}

/// The guidance module (or `pyproject.toml`) as the edit must see it.
pub struct GuidanceFile {
    pub uri: Uri,
    /// `None`: it does not exist yet.
    pub text: Option<String>,
    /// Its version when open in the editor.
    pub version: Option<i32>,
}

/// The workspace edit that applies `insertions` to the guidance module, creating it if needed.
pub fn edit(file: &GuidanceFile, insertions: &[Insertion], encoding: Encoding) -> WorkspaceEdit {
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
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(true),
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
pub fn replace_all(file: &GuidanceFile, new_text: String, encoding: Encoding) -> WorkspaceEdit {
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
pub fn insertions(
    payload: &Value,
    existing: Option<&str>,
    class_api: Option<&ClassApi>,
) -> Result<Vec<Insertion>, String> {
    let text = existing.unwrap_or("");
    match payload["kind"].as_str() {
        Some("mock") => {
            let callee = payload["callee"]
                .as_str()
                .ok_or("the action names no call")?;
            if guidance::has_mock(text, callee) {
                return Err(format!(
                    "`{callee}` is already mocked in the guidance module"
                ));
            }
            let declaration = guidance::mock_declaration(callee, payload["returns"].as_str());
            Ok(guidance::insert(existing, &declaration, None))
        }
        Some("factory") => {
            let qualified = payload["class"]
                .as_str()
                .ok_or("the action names no class")?;
            let (module, class) = qualified.split_once(':').ok_or("the class has no module")?;
            if guidance::existing_factory(text, class).is_some() {
                return Err(format!(
                    "the guidance module already has a factory for `{class}`"
                ));
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
                .ok_or("the action names no factory")?;
            let wanted = strings(&payload["writers"]);
            let found = guidance::Factory::find(text, factory)
                .ok_or_else(|| format!("the guidance module has no function `{factory}`"))?;
            let missing = found.missing(&wanted);
            if missing.is_empty() {
                return Err(format!(
                    "`{factory}` already calls {}",
                    wanted.join(" and ")
                ));
            }
            let none = ClassApi::default();
            let api = class_api.unwrap_or(&none);
            // With the prerequisites of each that it does not call either.
            let order = api.call_order(&missing);
            found.extend(&api.writers(&found.missing(&order)))
        }
        _ => Err("not a Lacuna action".into()),
    }
}
