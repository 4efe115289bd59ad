/**
 * The extension's contract with the real `lacuna lsp` (LACUNA_BIN, default
 * ../../target/debug/lacuna), over stdio, configured exactly as the extension configures it:
 * launch arguments and `initializationOptions` from `src/launch.ts`, settings converted from
 * VS Code's flat keys by `src/settings.ts` and answered through `workspace/configuration`,
 * server commands built by `src/commands.ts`.
 *
 * Generation runs real Python: LACUNA_TEST_PYTHON picks the interpreter (it needs pytest for
 * the export), else the server's own default (`$VIRTUAL_ENV`, `.venv/`, `venv/`, `python3`).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportArgs, rerunArgs } from '../../src/commands';
import { isExecutableFile, serverArgs } from '../../src/launch';
import { DIAGNOSTIC_SOURCE, type ExportResult, ServerCommands } from '../../src/protocol';
import { toSettings } from '../../src/settings';
import { LACUNA_BIN, Session, flatConfig } from './session';

/** The module the sessions open: the same one the server's own end-to-end tests use. */
const CONFIG_PY = fs.readFileSync(path.resolve(__dirname, '../../../../tests/fixtures/lsp/config.py'), 'utf8');

/** VS Code settings as a user would set them (flat `lacuna.*` keys, without the prefix). */
function userSettings(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...(process.env.LACUNA_TEST_PYTHON ? { python: process.env.LACUNA_TEST_PYTHON } : {}),
    // A patient budget: CI machines are slow, and the function is tiny.
    'budget.functionTimeMs': 30_000,
    'budget.functionExecutions': 300,
    'diagnostics.uncovered': 'error',
    ...extra,
  };
}

const SEVERITY = { error: 1, warning: 2, information: 3, hint: 4 } as const;
const UNNECESSARY = 1;

const temps: string[] = [];
const sessions: Session[] = [];

/** Dead code (LCN106's own example): if the server reports it infeasible, it must be faded. */
const DEAD_PY = `

def clamp(x: int) -> int:
    if x > 5 and x < 3:
        return 0
    return x
`;

/** A project with one module, `app/config.py`; `extra` is appended to it. */
function project(extra = ''): { root: string; module: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-contract-')));
  temps.push(dir);
  const root = path.join(dir, 'project');
  fs.mkdirSync(path.join(root, 'app'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pyproject.toml'), '[project]\nname = "app"\n\n[tool.lacuna]\nsrc = ["."]\n');
  fs.writeFileSync(path.join(root, 'app', '__init__.py'), '');
  const module = path.join(root, 'app', 'config.py');
  fs.writeFileSync(module, CONFIG_PY + extra);
  return { root, module };
}

function session(
  root: string,
  trusted: boolean,
  settings: Record<string, unknown>,
  args: string[] = serverArgs(trusted),
): Session {
  const s = new Session(root, trusted, flatConfig(settings), args);
  sessions.push(s);
  return s;
}

const codes = (ds: Diagnostic[]) => ds.map((d) => String(d.code));
const has = (code: string) => (ds: Diagnostic[]) => codes(ds).includes(code);

beforeAll(() => {
  expect(
    isExecutableFile(LACUNA_BIN),
    `no executable Lacuna server at ${LACUNA_BIN}: run \`cargo build\` at the repository root or set LACUNA_BIN`,
  ).toBe(true);
});

describe('the server binary', () => {
  it("reports the extension's version", () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8'));
    expect(execFileSync(LACUNA_BIN, ['--version'], { encoding: 'utf8' }).trim()).toBe(`lacuna ${manifest.version}`);
  });
});

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.shutdown();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('lacuna lsp, driven as the VS Code extension drives it', () => {
  it('advertises hover, code actions and the commands the extension sends', async () => {
    const { root } = project();
    const server = session(root, true, userSettings());
    const init = await server.initialize();
    const caps = init.capabilities;
    expect(init.serverInfo?.name).toBe('lacuna');
    expect(caps.hoverProvider).toBeTruthy();
    expect(caps.codeActionProvider).toBeTruthy();
    expect([...(caps.executeCommandProvider?.commands ?? [])].sort()).toEqual(
      [ServerCommands.exportTests, ServerCommands.guidanceModule, ServerCommands.rerun].sort(),
    );
    expect(caps.textDocumentSync).toMatchObject({ openClose: true });
    // VS Code pulls diagnostics: the server offers pulling to a client that can be refreshed.
    expect(caps.diagnosticProvider).toBeTruthy();
    expect(caps.positionEncoding ?? 'utf-16').toBe('utf-16');
  });

  it('explains the os.path.exists branch, with the settings the extension sent', async () => {
    const { root, module } = project(DEAD_PY);
    const settings = userSettings();
    const server = session(root, true, settings);
    await server.initialize();
    const uri = await server.openFile(module);

    const diagnostics = await server.diagnosticsWhere(uri, 'LCN101 is reported', has('LCN101'));
    const gap = diagnostics.find((d) => d.code === 'LCN101')!;
    expect(gap.source).toBe(DIAGNOSTIC_SOURCE);
    expect(gap.range.start.line).toBe(5); // `if os.path.exists(path):`
    expect(gap.message).toContain('os.path.exists');
    expect(gap.codeDescription?.href).toMatch(/docs\/diagnostics\/LCN101\.md$/);
    // `diagnostics.uncovered: "error"` reached the server.
    expect(gap.severity).toBe(SEVERITY.error);
    for (const d of diagnostics) {
      expect(d.source).toBe(DIAGNOSTIC_SOURCE);
      expect(String(d.code)).toMatch(/^LCN\d{3}$/);
      if (d.code === 'LCN106') expect(d.tags).toContain(UNNECESSARY);
    }

    // The server asked for the `lacuna` section and got the nested object.
    const asked = server.configurationAnswers.find((a) =>
      (a.items as { section?: string }[]).some((i) => i.section === 'lacuna'),
    );
    expect(asked?.answer).toEqual([toSettings(flatConfig(settings))]);

    // Status bar inputs: generation of `load` was reported, then idle, and the file's coverage.
    const states = server.statuses();
    expect(states.some((s) => s.state === 'generating' && s.function?.includes('load'))).toBe(true);
    await server.waitFor('idle', () => (server.statuses().at(-1)?.state === 'idle' ? true : undefined));
    const coverage = await server.waitFor('coverage', () => server.coverage(uri));
    expect(coverage.total).toBeGreaterThan(0);
    expect(coverage.covered).toBeLessThan(coverage.total);

    // Hover on the gap explains it.
    const hover = await server.connection.sendRequest('textDocument/hover', {
      textDocument: { uri },
      position: { line: 5, character: 12 },
    });
    expect(JSON.stringify(hover)).toContain('LCN101');

    // A settings change pushed with didChangeConfiguration applies to what is shown.
    await server.changeConfiguration(userSettings({ 'diagnostics.uncovered': 'hint' }));
    const hinted = await server.diagnosticsWhere(uri, 'LCN101 is a hint', (ds) =>
      ds.some((d) => d.code === 'LCN101' && d.severity === SEVERITY.hint),
    );
    expect(has('LCN101')(hinted)).toBe(true);

    // lacuna.rerun for one function, as `Lacuna: Re-run … Function at Cursor` sends it.
    const before = server.statuses().length;
    // The server finds the function at the cursor: line 5 is inside `load`.
    expect(await server.executeCommand(ServerCommands.rerun, rerunArgs(uri, { line: 5, character: 12 }))).toEqual({
      function: 'load',
    });
    await server.waitFor('generation of `load` again', () =>
      server
        .statuses()
        .slice(before)
        .some((s) => s.state === 'generating' && s.function?.includes('load'))
        ? true
        : undefined,
    );
    await server.waitFor('idle again', () =>
      server.statuses().length > before && server.statuses().at(-1)?.state === 'idle' ? true : undefined,
    );
    // Outside every function: the whole file, and the answer says so.
    expect(await server.executeCommand(ServerCommands.rerun, rerunArgs(uri, { line: 0, character: 0 }))).toEqual({
      function: null,
    });
    // And for the whole file.
    expect(await server.executeCommand(ServerCommands.rerun, rerunArgs(uri))).toBeNull();
  });

  it.each([
    ['as the extension starts it (trusted: false, --static-only)', serverArgs(false)],
    ['on `trusted: false` alone', ['lsp']],
  ])('runs nothing in an untrusted workspace, %s: static diagnostics only', async (_, args) => {
    const { root, module } = project('\n\ndef broken(:\n');
    const server = session(root, false, userSettings(), args);
    await server.initialize();
    const status = await server.waitFor('a status', () => server.statuses()[0]);
    expect(status.state).toBe('static');
    const uri = await server.openFile(module);
    const diagnostics = await server.diagnosticsWhere(uri, 'the syntax error is reported', has('LCN001'));
    await server.save(uri);
    // Give a (wrongly) running generator time to report, then look at everything received.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await server.pull(uri);
    const after = server.diagnostics.get(uri) ?? diagnostics;
    for (const code of codes(after)) expect(code, 'only static diagnostics').not.toMatch(/^LCN1\d\d$/);
    expect(server.statuses().some((s) => s.state === 'generating')).toBe(false);
    expect(server.coverage(uri)).toBeUndefined();
    expect(fs.existsSync(path.join(root, '.lacuna')), 'nothing is written into the workspace').toBe(false);
    // Nothing to export either (the extension does not even ask).
    await expect(
      server.executeCommand<ExportResult>(ServerCommands.exportTests, exportArgs(path.join(root, 'out'))),
    ).rejects.toThrow();
    expect(fs.existsSync(path.join(root, 'out'))).toBe(false);
  });

  it('exports the generated tests to the chosen folder', async () => {
    const { root, module } = project();
    const server = session(root, true, userSettings());
    await server.initialize();
    const uri = await server.openFile(module);
    await server.diagnosticsWhere(uri, 'LCN101 is reported', has('LCN101'));
    await server.waitFor('idle', () => (server.statuses().at(-1)?.state === 'idle' ? true : undefined));
    const out = path.join(path.dirname(root), 'exported');
    const result = await server.executeCommand<ExportResult>(ServerCommands.exportTests, exportArgs(out));
    expect(Array.isArray(result.written)).toBe(true);
    expect(result.written.length).toBeGreaterThan(0);
    for (const file of result.written) {
      expect(path.resolve(file).startsWith(out + path.sep)).toBe(true);
      expect(fs.readFileSync(file, 'utf8')).toContain('def test_');
    }
  });
});
