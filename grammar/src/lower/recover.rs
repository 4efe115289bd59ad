//! Recovery after syntax errors: definitions after an error are found again by re-parsing
//! from the next top-level `def` or `class`, and the module's errors are capped.

use super::{Asked, Lowered, Lowerer, parse_tree};
use crate::syntax::FunctionKind;
use crate::text::TextRange;
use std::sync::Arc;

pub(super) fn finish_and_recover(mut lowerer: Lowerer<'_>) -> Lowered {
    let text = lowerer.source.text;
    let regions = std::mem::take(&mut lowerer.error_regions);
    let mut lowered = lowerer.finish();
    recover_definitions(text, &mut lowered, &regions);
    lowered
}

/// tree-sitter's error recovery often swallows every definition that follows a syntax error
/// into one ERROR node. For each error, re-parse from the first top-level `def`/`class` that
/// starts on a later line — with everything else blanked, so offsets stay the same — and keep
/// the definitions found there.
pub(super) fn recover_definitions(text: &str, lowered: &mut Lowered, regions: &[TextRange]) {
    let asked = if lowered.seeds.is_some() {
        Asked::Seeds
    } else if lowered.flow.is_some() {
        Asked::Flow
    } else {
        Asked::Model
    };
    let Lowered {
        module,
        seeds,
        flow,
    } = lowered;
    for &error in regions {
        let Some(restart) = restart_offset(text, error) else {
            continue;
        };
        let window = restart as usize..error.end as usize;
        let masked: Vec<u8> = text
            .bytes()
            .enumerate()
            .map(|(i, b)| {
                if window.contains(&i) || b == b'\n' {
                    b
                } else {
                    b' '
                }
            })
            .collect();
        // The window starts at a line start and ends at a node boundary: it holds whole
        // characters, and everything else is ASCII.
        let Ok(masked) = String::from_utf8(masked) else {
            continue;
        };
        let (recovered, _) = parse_tree(&masked, None, asked);
        let mut recovered_seeds = recovered.seeds.unwrap_or_default();
        let mut recovered_flow = recovered.flow.unwrap_or_default();
        let mut taken: Vec<TextRange> = vec![];
        for f in recovered.module.functions {
            if f.syntax.kind != FunctionKind::Module && module.function(&f.id).is_none() {
                taken.push(f.syntax.range.absolute(f.anchor));
                if let (Some(seeds), Some(found)) =
                    (seeds.as_mut(), recovered_seeds.functions.remove(&f.id))
                {
                    seeds.functions.insert(f.id.clone(), found);
                }
                if let (Some(flow), Some(found)) =
                    (flow.as_mut(), recovered_flow.functions.remove(&f.id))
                {
                    flow.functions.insert(f.id.clone(), found);
                }
                module.functions.push(f);
            }
        }
        // What the broken parse attributed to the enclosing scope now belongs to the
        // recovered definitions.
        for f in &mut module.functions {
            let anchor = f.anchor;
            let stale = |r: TextRange| {
                let r = r.absolute(anchor);
                taken.iter().any(|t| t.contains_range(r))
            };
            if taken
                .iter()
                .any(|t| t.contains_range(f.syntax.range.absolute(anchor)))
            {
                continue;
            }
            let s = Arc::make_mut(&mut f.syntax);
            s.decisions.retain(|d| !stale(d.range));
            s.calls.retain(|c| !stale(c.range));
            s.loops.retain(|l| !stale(l.range));
            s.asserts.retain(|a| !stale(a.range));
        }
        for c in recovered.module.classes {
            if module.class(&c.syntax.qualname).is_none() {
                module.classes.push(c);
            }
        }
        for e in recovered.module.syntax_errors {
            if !module.syntax_errors.iter().any(|m| m.range == e.range) {
                module.syntax_errors.push(e);
            }
        }
    }
    module
        .syntax_errors
        .sort_by_key(|e| (e.range.start, e.range.end));
}

/// The start of the first line after the error's first line, inside the error, that opens a
/// top-level definition.
pub(super) fn restart_offset(text: &str, error: TextRange) -> Option<u32> {
    let region = text.get(error.start as usize..error.end as usize)?;
    let mut offset = error.start as usize;
    for (i, line) in region.split_inclusive('\n').enumerate() {
        let at_line_start = offset == 0 || text.as_bytes()[offset - 1] == b'\n';
        if i > 0
            && at_line_start
            && ["def ", "async def ", "class ", "@"]
                .iter()
                .any(|k| line.starts_with(k))
        {
            return Some(offset as u32);
        }
        offset += line.len();
    }
    None
}
