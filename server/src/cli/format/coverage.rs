//! The coverage of a run as lcov and Cobertura need it, from the generated tests or from the
//! project's own suite: per file its functions, branch sides (one branch per side, named as
//! the decision names them), MC/DC condition outcomes, and the lines whose execution the run
//! shows — a decision's line (evaluated when either side is taken) and the first line of each
//! side's body. Lacuna measures branch sides and conditions, not every line: no other line is
//! claimed, covered or not.

use super::super::report::CheckedFile;
use std::collections::BTreeMap;

/// Whose coverage: the tests Lacuna generated, or the project's own suite under pytest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CoverageOf {
    Generated,
    Suite,
}

impl CoverageOf {
    pub fn test_name(self) -> &'static str {
        match self {
            CoverageOf::Generated => "lacuna_generated",
            CoverageOf::Suite => "project_suite",
        }
    }
}

pub struct FileCoverage {
    /// Relative to the current directory, `/`-separated.
    pub path: String,
    pub functions: Vec<FunctionCoverage>,
    pub branches: Vec<Branch>,
    pub mcdc: Vec<ConditionOutcome>,
    /// Line → whether the run executed it.
    pub lines: BTreeMap<u32, bool>,
}

pub struct FunctionCoverage {
    pub name: String,
    pub line: u32,
    /// Executions (generated tests), or 1 when the suite took any of its sides.
    pub hits: u64,
}

pub struct Branch {
    pub line: u32,
    /// The decision's rank in the file.
    pub block: usize,
    /// 0 for the first side (`true`, `enter`, `pass`), 1 for the other.
    pub index: u8,
    pub name: &'static str,
    /// `None` when neither side of the decision was taken (the decision never ran).
    pub taken: Option<bool>,
}

pub struct ConditionOutcome {
    pub line: u32,
    /// Conditions of the decision.
    pub group: usize,
    pub index: u16,
    /// The value whose independent effect is to be shown.
    pub value: bool,
    pub shown: bool,
    pub expression: String,
}

impl FileCoverage {
    pub fn functions_hit(&self) -> usize {
        self.functions.iter().filter(|f| f.hits > 0).count()
    }
    pub fn branches_hit(&self) -> usize {
        self.branches
            .iter()
            .filter(|b| b.taken == Some(true))
            .count()
    }
    pub fn mcdc_hit(&self) -> usize {
        self.mcdc.iter().filter(|m| m.shown).count()
    }
    pub fn lines_hit(&self) -> usize {
        self.lines.values().filter(|h| **h).count()
    }
}

pub fn of(files: &[CheckedFile], of: CoverageOf) -> Vec<FileCoverage> {
    files
        .iter()
        .filter(|f| !f.generated.is_empty())
        .map(|file| {
            let mut out = FileCoverage {
                path: super::uri(&file.display),
                functions: vec![],
                branches: vec![],
                mcdc: vec![],
                lines: BTreeMap::new(),
            };
            // Decisions are numbered across the whole file, owned by this shard or not, so that
            // every shard numbers them as the unsharded run does.
            let mut block = 0;
            for f in &file.report.functions {
                let first = block;
                block += f.model.decisions - f.model.unmodelled.len();
                if !file.owns(Some(f.id.as_str())) {
                    continue;
                }
                let Some(g) = file.generated(&f.id) else {
                    continue;
                };
                let explored = g.failure.is_none();
                // The project's own tests run whatever the generator did not explore.
                let taken = |s: &super::super::report::SideRecord| match of {
                    CoverageOf::Generated => explored && s.covered,
                    CoverageOf::Suite => s.suite_covered,
                };
                out.functions.push(FunctionCoverage {
                    name: g.id.clone(),
                    line: f.line,
                    hits: match of {
                        CoverageOf::Generated if explored => u64::from(g.executions),
                        _ => u64::from(g.sides.iter().any(taken)),
                    },
                });
                for (block, decision) in
                    (first..).zip(g.sides.chunk_by(|a, b| a.decision == b.decision))
                {
                    let reached = decision.iter().any(taken);
                    for (i, s) in decision.iter().enumerate() {
                        out.branches.push(Branch {
                            line: s.line,
                            block,
                            index: i as u8,
                            name: s.name,
                            taken: reached.then(|| taken(s)),
                        });
                        if let Some(line) = s.target_line {
                            *out.lines.entry(line).or_default() |= taken(s);
                        }
                    }
                    *out.lines.entry(decision[0].line).or_default() |= reached;
                }
                for d in &g.mcdc {
                    let shown = match of {
                        CoverageOf::Generated => &d.shown,
                        CoverageOf::Suite => &d.suite_shown,
                    };
                    for (c, text) in d.conditions.iter().enumerate() {
                        for value in [true, false] {
                            out.mcdc.push(ConditionOutcome {
                                line: d.line,
                                group: d.conditions.len(),
                                index: c as u16,
                                value,
                                shown: (explored || of == CoverageOf::Suite)
                                    && shown.contains(&(c as u16, value)),
                                expression: text.split_whitespace().collect::<Vec<_>>().join(" "),
                            });
                        }
                    }
                }
            }
            out.sort();
            out
        })
        .collect()
}

impl FileCoverage {
    /// Records in an order that does not depend on which functions a run did: functions by
    /// line, branches by line and decision, condition outcomes by line and condition.
    pub fn sort(&mut self) {
        self.functions.sort_by_key(|f| f.line);
        self.branches.sort_by_key(|b| (b.line, b.block, b.index));
        self.mcdc.sort_by_key(|m| (m.line, m.index, !m.value));
    }
}
