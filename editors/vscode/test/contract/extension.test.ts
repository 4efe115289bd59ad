/**
 * The BUNDLED extension (dist/extension.js, built by `npm run test:contract`), with the real
 * vscode-languageclient inside it, against the real `lacuna lsp`: only `vscode` itself is
 * faked (test/contract/fakeVscode.ts). What a user would see: diagnostics in the collection,
 * the status bar, the commands' requests and results, and the switch to full mode on trust.
 */
import * as fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isExecutableFile } from '../../src/launch';
import { type Diagnostic, Uri, createFakeVscode } from './fakeVscode';
import { LACUNA_BIN, PATIENCE_MS } from './session';

const BUNDLE = path.resolve(__dirname, '../../dist/extension.js');

/** The module the sessions open: the same one the server's own end-to-end tests use. */
const CONFIG_PY = fs.readFileSync(path.resolve(__dirname, '../../../../tests/fixtures/lsp/config.py'), 'utf8');

interface ExtensionModule {
  activate(context: unknown): Promise<LacunaLike>;
  deactivate(): Promise<void>;
}

interface LacunaLike {
  languageClient:
    | {
        isRunning(): boolean;
        getFeature(method: string): unknown;
        initializeResult?: { capabilities: { executeCommandProvider?: { commands: string[] } } };
        sendRequest(type: { method: string }, params: unknown): Promise<unknown>;
      }
    | undefined;
  settled(): Promise<void>;
}

const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const originalLoad = loader._load;
const temps: string[] = [];
let loaded: ExtensionModule | undefined;

/** Loads a fresh copy of the bundle, with `vscode` resolved to the fake. */
function loadExtension(vscode: unknown): ExtensionModule {
  const require = createRequire(__filename);
  delete require.cache[BUNDLE];
  loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
    return request === 'vscode' ? vscode : originalLoad.call(this, request, ...rest);
  };
  loaded = require(BUNDLE) as ExtensionModule;
  return loaded;
}

function project(): { root: string; module: string } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-bundle-')));
  temps.push(dir);
  const root = path.join(dir, 'project');
  fs.mkdirSync(path.join(root, 'app'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pyproject.toml'), '[project]\nname = "app"\n\n[tool.lacuna]\nsrc = ["."]\n');
  fs.writeFileSync(path.join(root, 'app', '__init__.py'), '');
  const module = path.join(root, 'app', 'config.py');
  fs.writeFileSync(module, CONFIG_PY);
  return { root, module };
}

function settings(): Record<string, unknown> {
  return {
    'server.path': LACUNA_BIN,
    ...(process.env.LACUNA_TEST_PYTHON ? { python: process.env.LACUNA_TEST_PYTHON } : {}),
    'budget.functionTimeMs': 30_000,
    'budget.functionExecutions': 300,
    'diagnostics.uncovered': 'error',
    // The protocol traffic goes to the (fake) output channel: shown when a wait times out.
    'trace.server': 'messages',
  };
}

let output: string[] = [];

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = Number(process.env.LACUNA_PATIENCE_MS ?? PATIENCE_MS)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}; the log ends with:\n${output.join('').slice(-6000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const codeOf = (d: Diagnostic) => (typeof d.code === 'object' ? String(d.code.value) : String(d.code));

beforeAll(() => {
  expect(fs.existsSync(BUNDLE), `${BUNDLE} is missing: run \`npm run bundle\``).toBe(true);
  expect(isExecutableFile(LACUNA_BIN), `no executable Lacuna server at ${LACUNA_BIN}`).toBe(true);
});

afterEach(async () => {
  await loaded?.deactivate();
  loaded = undefined;
  loader._load = originalLoad;
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('the packaged extension with the real language client and server', () => {
  it('shows diagnostics and coverage, re-runs the function at the cursor, exports tests', async () => {
    const { root, module } = project();
    const fake = createFakeVscode({ folder: root, trusted: true, settings: settings() });
    output = fake.state.output;
    const extension = loadExtension(fake.vscode);
    const lacuna = await extension.activate({ extensionPath: path.join(root, '..', 'ext'), subscriptions: [] });

    const client = lacuna.languageClient!;
    expect(client.isRunning()).toBe(true);
    // The server's commands reach VS Code through the extension's own commands only.
    expect(client.getFeature('workspace/executeCommand')).toBeUndefined();
    expect(client.initializeResult?.capabilities.executeCommandProvider?.commands).toEqual(
      expect.arrayContaining(['lacuna.rerun', 'lacuna.exportTests', 'lacuna.guidanceModule']),
    );
    expect([...fake.state.commands.keys()]).toEqual(
      expect.arrayContaining([
        'lacuna.rerunFile',
        'lacuna.rerunFunction',
        'lacuna.exportTests',
        'lacuna.openGuidance',
        'lacuna.restartServer',
        'lacuna.showLog',
      ]),
    );

    const document = fake.openDocument(module, CONFIG_PY, { line: 8, character: 8 });
    const uri = document.uri.toString();
    const diagnostics = await until('LCN101 in the diagnostic collection', () => {
      const ds = fake.state.diagnostics.get(uri);
      return ds?.some((d) => codeOf(d) === 'LCN101') ? ds : undefined;
    });
    const gap = diagnostics.find((d) => codeOf(d) === 'LCN101')!;
    expect(gap.source).toBe('lacuna');
    expect(gap.severity).toBe(fake.vscode.DiagnosticSeverity.Error); // lacuna.diagnostics.uncovered
    expect(gap.range.start.line).toBe(5);
    expect(typeof gap.code === 'object' && gap.code.target.toString()).toMatch(/docs\/diagnostics\/LCN101\.md$/);

    const status = () => fake.state.statusItems[0];
    await until('idle with the file coverage', () => /^\$\(beaker\) Lacuna \d+\/\d+( · suite \d+\/\d+)?$/.test(status().text));
    expect(status().command).toBe('lacuna.showLog');
    expect(status().tooltip).toMatch(/Generated tests cover \d+ of \d+ branch sides in this file/);

    const sent: unknown[] = [];
    const sendRequest = client.sendRequest.bind(client);
    client.sendRequest = (type, params) => {
      if (type.method === 'workspace/executeCommand') sent.push(params);
      return sendRequest(type, params);
    };
    await fake.state.commands.get('lacuna.rerunFunction')!();
    expect(sent).toEqual([{ command: 'lacuna.rerun', arguments: [{ uri, position: { line: 8, character: 8 } }] }]);
    expect(fake.state.messages.some((m) => m.text.includes('not inside a function'))).toBe(false);

    const out = path.join(root, '..', 'exported');
    fake.state.openDialog = [Uri.file(out)];
    await fake.state.commands.get('lacuna.exportTests')!();
    expect(sent[1]).toEqual({ command: 'lacuna.exportTests', arguments: [{ directory: out }] });
    const wrote = fake.state.messages.find((m) => m.text.startsWith('Lacuna wrote'));
    expect(wrote, JSON.stringify(fake.state.messages)).toBeDefined();
    const files = fs.readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('.py'));
    expect(files.length).toBeGreaterThan(0);
  });

  it('runs static-only until the workspace is trusted, then generates', async () => {
    const { root, module } = project();
    const fake = createFakeVscode({ folder: root, trusted: false, settings: settings() });
    output = fake.state.output;
    const extension = loadExtension(fake.vscode);
    const lacuna = await extension.activate({ extensionPath: path.join(root, '..', 'ext'), subscriptions: [] });
    expect(fake.state.messages.map((m) => m.text)).toEqual(
      expect.arrayContaining([expect.stringContaining('Lacuna runs static-only in this untrusted workspace')]),
    );
    const status = () => fake.state.statusItems[0];
    await until('the static status', () => status().text.includes('(static)'));

    const document = fake.openDocument(module, CONFIG_PY, { line: 8, character: 8 });
    const uri = document.uri.toString();
    await until('diagnostics pulled', () => fake.state.diagnostics.has(uri));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((fake.state.diagnostics.get(uri) ?? []).map(codeOf).filter((c) => /^LCN1\d\d$/.test(c))).toEqual([]);
    expect(fs.existsSync(path.join(root, '.lacuna'))).toBe(false);

    fake.grantTrust();
    await lacuna.settled();
    expect(lacuna.languageClient?.isRunning()).toBe(true);
    await until('LCN101 once trusted', () => fake.state.diagnostics.get(uri)?.some((d) => codeOf(d) === 'LCN101'));
    expect(status().text).not.toContain('(static)');
  });
});
