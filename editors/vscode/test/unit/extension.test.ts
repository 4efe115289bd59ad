/**
 * The extension wired together, with `vscode` and the language client mocked: what it starts,
 * with which options, and what the commands send.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('vscode-languageclient/node', async () => {
  const protocol = await vi.importActual<typeof import('vscode-languageserver-protocol')>(
    'vscode-languageserver-protocol',
  );
  type Handler = (params: unknown) => unknown;
  class LanguageClient {
    static instances: LanguageClient[] = [];
    /** What `workspace/executeCommand` answers, per command. */
    static commandResults = new Map<string, unknown>();
    readonly features: unknown[] = [];
    readonly notificationHandlers = new Map<string, Handler>();
    readonly stateHandlers: Handler[] = [];
    readonly requests: { method: string; params: unknown }[] = [];
    readonly notifications: { method: string; params: unknown }[] = [];
    running = false;
    constructor(
      readonly id: string,
      readonly name: string,
      readonly serverOptions: unknown,
      readonly clientOptions: { middleware: { workspace: { configuration: Function } } } & Record<string, unknown>,
    ) {
      LanguageClient.instances.push(this);
    }
    registerFeature(feature: unknown): void {
      this.features.push(feature);
    }
    onNotification(method: string, handler: Handler) {
      this.notificationHandlers.set(method, handler);
      return { dispose() {} };
    }
    onDidChangeState(handler: Handler) {
      this.stateHandlers.push(handler);
      return { dispose() {} };
    }
    isRunning() {
      return this.running;
    }
    async start() {
      this.running = true;
    }
    async dispose() {
      this.running = false;
      for (const h of this.stateHandlers) h({ oldState: 2, newState: 1 });
    }
    async sendRequest(type: { method: string }, params: { command: string }) {
      this.requests.push({ method: type.method, params });
      return LanguageClient.commandResults.get(params.command) ?? null;
    }
    async sendNotification(type: { method: string }, params: unknown) {
      this.notifications.push({ method: type.method, params });
    }
    /** As if the server sent a notification. */
    receive(method: string, params: unknown) {
      this.notificationHandlers.get(method)?.(params);
    }
  }
  return {
    ...protocol,
    LanguageClient,
    TransportKind: { stdio: 0, ipc: 1, pipe: 2, socket: 3 },
    State: { Stopped: 1, Running: 2, Starting: 3 },
  };
});

import * as lc from 'vscode-languageclient/node';
import { LacunaLanguageClient, keepFeature } from '../../src/client';
import { Commands, Lacuna, UNTRUSTED_NOTICE, activate, deactivate } from '../../src/extension';
import { DEFAULT_SETTINGS } from '../../src/settings';
import { NOT_FOUND_MESSAGE } from '../../src/launch';
import * as vscode from '../mocks/vscode';

interface FakeClient {
  id: string;
  serverOptions: { command: string; args: string[]; transport?: number; options: { cwd?: string } };
  clientOptions: {
    documentSelector: unknown;
    initializationOptions: unknown;
    middleware: { workspace: { configuration: Function } };
  };
  features: unknown[];
  requests: { method: string; params: { command: string; arguments: unknown[] } }[];
  notifications: { method: string; params: unknown }[];
  running: boolean;
  receive(method: string, params: unknown): void;
  isRunning(): boolean;
}

const Fake = lc.LanguageClient as unknown as { instances: FakeClient[]; commandResults: Map<string, unknown> };
const clients = () => Fake.instances;
const last = () => clients()[clients().length - 1];

let dir: string;
let server: string;
let instance: Lacuna | undefined;
let context: { extensionPath: string; subscriptions: { dispose(): unknown }[] };

beforeEach(() => {
  vscode.reset();
  Fake.instances.length = 0;
  Fake.commandResults.clear();
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-ext-')));
  server = path.join(dir, 'bin', 'lacuna');
  fs.mkdirSync(path.dirname(server));
  fs.writeFileSync(server, '#!/bin/sh\n', { mode: 0o755 });
  fs.mkdirSync(path.join(dir, 'project', 'shop'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'project', 'pyproject.toml'), '[project]\nname = "shop"\n');
  vscode.workspace.workspaceFolders = [{ uri: vscode.Uri.file(path.join(dir, 'project')), name: 'project', index: 0 }];
  // No `lacuna` on PATH unless a test puts one there.
  vi.stubEnv('PATH', path.join(dir, 'empty'));
  context = { extensionPath: path.join(dir, 'extension'), subscriptions: [] };
});

/** As VS Code deactivates an extension: `deactivate()`, then its subscriptions are disposed. */
async function stopExtension(): Promise<void> {
  await deactivate();
  for (const s of context.subscriptions.splice(0)) s.dispose();
  instance = undefined;
}

afterEach(async () => {
  await stopExtension();
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<Lacuna> {
  instance = await activate(context as never);
  return instance;
}

describe('starting the server', () => {
  it('launches `lacuna lsp` from lacuna.server.path in a trusted workspace', async () => {
    vscode.settings.set('server.path', server);
    vscode.settings.set('budget.functionTimeMs', 9000);
    await start();
    expect(clients()).toHaveLength(1);
    const client = last();
    expect(client).toBeInstanceOf(LacunaLanguageClient);
    expect(client.id).toBe('lacuna');
    // No `transport`: with TransportKind.stdio the client would append `--stdio`, which
    // `lacuna lsp` rejects; without one it runs the command as given, over stdio.
    expect(client.serverOptions).toEqual({
      command: server,
      args: ['lsp'],
      options: { cwd: path.join(dir, 'project') },
    });
    expect(client.serverOptions).not.toHaveProperty('transport');
    expect(client.clientOptions.documentSelector).toEqual([{ scheme: 'file', language: 'python' }]);
    expect(client.clientOptions.initializationOptions).toEqual({
      trusted: true,
      settings: { ...DEFAULT_SETTINGS, budget: { ...DEFAULT_SETTINGS.budget, functionTimeMs: 9000 } },
    });
    expect(client.running).toBe(true);
    expect(vscode.window.showInformationMessage).not.toHaveBeenCalled();
  });

  it('finds `lacuna` on PATH, then the bundled server', async () => {
    vi.stubEnv('PATH', path.dirname(server));
    await start();
    expect(last().serverOptions.command).toBe(server);
    await stopExtension();
    vi.stubEnv('PATH', path.join(dir, 'empty'));
    const bundled = path.join(context.extensionPath, 'server', 'lacuna');
    fs.mkdirSync(path.dirname(bundled), { recursive: true });
    fs.copyFileSync(server, bundled);
    fs.chmodSync(bundled, 0o755);
    await start();
    expect(last().serverOptions.command).toBe(bundled);
  });

  it('says what to do when no server is found, with a button to the setting', async () => {
    vscode.answers.set('Lacuna cannot find', 'Open Settings');
    await start();
    expect(clients()).toHaveLength(0);
    expect(vscode.window.showErrorMessage).toHaveBeenCalledWith(NOT_FOUND_MESSAGE, 'Open Settings', 'Show Log');
    await vi.waitFor(() =>
      expect(vscode.commands.executeCommand).toHaveBeenCalledWith('workbench.action.openSettings', 'lacuna.server.path'),
    );
    expect(vscode.statusBarItems[0].text).toBe('$(error) Lacuna');
    expect(vscode.statusBarItems[0].tooltip).toContain('cannot find its language server');
  });

  it('runs static-only in an untrusted workspace, then in full mode once trusted', async () => {
    vscode.workspace.isTrusted = false;
    vscode.settings.set('server.path', server);
    vscode.answers.set(UNTRUSTED_NOTICE, 'Manage Workspace Trust');
    const lacuna = await start();
    expect(last().serverOptions.args).toEqual(['lsp', '--static-only']);
    expect((last().clientOptions.initializationOptions as { trusted: boolean }).trusted).toBe(false);
    expect(vscode.window.showInformationMessage).toHaveBeenCalledWith(UNTRUSTED_NOTICE, 'Manage Workspace Trust');
    await vi.waitFor(() => expect(vscode.commands.executeCommand).toHaveBeenCalledWith('workbench.trust.manage'));
    const untrusted = last();
    untrusted.receive('lacuna/status', { state: 'static', message: 'static analysis only' });
    expect(vscode.statusBarItems[0].text).toBe('$(shield) Lacuna (static)');

    vscode.events.grantTrust();
    await lacuna.settled();
    expect(clients()).toHaveLength(2);
    expect(untrusted.running).toBe(false);
    expect(last().serverOptions.args).toEqual(['lsp']);
    expect((last().clientOptions.initializationOptions as { trusted: boolean }).trusted).toBe(true);
    expect(lacuna.isTrusted).toBe(true);
    expect(vscode.statusBarItems[0].text).not.toContain('static');
  });

  it('shows status and coverage notifications in the status bar', async () => {
    vscode.settings.set('server.path', server);
    await start();
    const editor = vscode.editorFor(path.join(dir, 'project/shop/orders.py'), '');
    vscode.events.setActiveEditor(editor);
    last().receive('lacuna/status', { state: 'generating', function: 'Order.total' });
    expect(vscode.statusBarItems[0].text).toBe('$(sync~spin) Lacuna · Order.total');
    last().receive('lacuna/coverage', { uri: editor.document.uri.toString(), covered: 92, total: 120 });
    last().receive('lacuna/status', { state: 'idle' });
    expect(vscode.statusBarItems[0].text).toBe('$(beaker) Lacuna 92/120');
    await vscode.commands.executeCommand(Commands.showLog);
    expect(vscode.outputChannels[0].shown).toBe(1);
  });

  it('answers workspace/configuration with the nested settings and pushes changes', async () => {
    vscode.settings.set('server.path', server);
    vscode.settings.set('diagnostics.mcdc', 'off');
    await start();
    const client = last();
    const next = vi.fn(() => [{ raw: 'section' }, { other: true }]);
    const answer = await client.clientOptions.middleware.workspace.configuration(
      { items: [{ section: 'lacuna' }, { section: 'python' }] },
      undefined,
      next,
    );
    const expected = { ...DEFAULT_SETTINGS, diagnostics: { ...DEFAULT_SETTINGS.diagnostics, mcdc: 'off' } };
    expect(answer).toEqual([expected, { other: true }]);

    vscode.settings.set('mcdc.singleCondition', true);
    vscode.events.changeConfiguration('lacuna.mcdc.singleCondition');
    expect(client.notifications).toEqual([
      {
        method: 'workspace/didChangeConfiguration',
        params: { settings: { lacuna: { ...expected, mcdc: { enabled: true, singleCondition: true } } } },
      },
    ]);
    vscode.events.changeConfiguration('python.defaultInterpreterPath');
    expect(client.notifications).toHaveLength(1);
  });

  it('restarts when lacuna.server.path changes, and on the restart command', async () => {
    vscode.settings.set('server.path', server);
    const lacuna = await start();
    vscode.events.changeConfiguration('lacuna.server.path');
    await lacuna.settled();
    expect(clients()).toHaveLength(2);
    await vscode.commands.executeCommand(Commands.restartServer);
    expect(clients()).toHaveLength(3);
    expect(clients().map((c) => c.running)).toEqual([false, false, true]);
  });
});

describe('commands', () => {
  beforeEach(() => vscode.settings.set('server.path', server));

  const executeCommands = () => last().requests.filter((r) => r.method === 'workspace/executeCommand');

  it('re-runs the active file', async () => {
    await start();
    const editor = vscode.editorFor(path.join(dir, 'project/shop/orders.py'), 'x = 1\n');
    vscode.events.setActiveEditor(editor);
    await vscode.commands.executeCommand(Commands.rerunFile);
    expect(executeCommands()).toEqual([
      {
        method: 'workspace/executeCommand',
        params: { command: 'lacuna.rerun', arguments: [{ uri: editor.document.uri.toString() }] },
      },
    ]);
  });

  it('re-runs the function at the cursor, which the server finds, and says when there is none', async () => {
    await start();
    const text = 'class Order:\n    def total(self):\n        return 1\n\nX = 2\n';
    const file = path.join(dir, 'project/shop/orders.py');
    const uri = vscode.Uri.file(file).toString();
    const answers = Fake.commandResults;
    answers.set('lacuna.rerun', { function: 'Order.total' });
    vscode.events.setActiveEditor(vscode.editorFor(file, text, 2, 8));
    await vscode.commands.executeCommand(Commands.rerunFunction);
    expect(vscode.window.showInformationMessage).not.toHaveBeenCalled();
    // Outside any function: the server re-runs the whole file and says so; so does the extension.
    answers.set('lacuna.rerun', { function: null });
    vscode.events.setActiveEditor(vscode.editorFor(file, text, 4, 0));
    await vscode.commands.executeCommand(Commands.rerunFunction);
    expect(vscode.window.showInformationMessage).toHaveBeenCalledWith(
      'Lacuna: the cursor is not inside a function; re-running generation for the whole file.',
    );
    answers.delete('lacuna.rerun');
    expect(executeCommands().map((r) => r.params.arguments)).toEqual([
      [{ uri, position: { line: 2, character: 8 } }],
      [{ uri, position: { line: 4, character: 0 } }],
    ]);
    expect(vscode.commands.executeCommand).not.toHaveBeenCalledWith('vscode.executeDocumentSymbolProvider', expect.anything());
  });

  it('needs a Python editor to re-run', async () => {
    await start();
    await vscode.commands.executeCommand(Commands.rerunFile);
    vscode.events.setActiveEditor(vscode.editorFor(path.join(dir, 'notes.md'), '', 0, 0, 'markdown'));
    await vscode.commands.executeCommand(Commands.rerunFunction);
    expect(executeCommands()).toEqual([]);
    expect(vscode.window.showInformationMessage).toHaveBeenCalledWith('Lacuna: open a Python file of the project first.');
  });

  it('exports the tests to the folder the user picks', async () => {
    await start();
    const out = path.join(dir, 'project', 'tests', 'generated');
    vscode.window.showOpenDialog.mockResolvedValueOnce([vscode.Uri.file(out)]);
    Fake.commandResults.set('lacuna.exportTests', { written: [path.join(out, 'test_orders.py')] });
    vscode.answers.set('Lacuna wrote 1 test file', 'Open');
    await vscode.commands.executeCommand(Commands.exportTests);
    expect(vscode.window.showOpenDialog).toHaveBeenCalledWith(
      expect.objectContaining({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false }),
    );
    expect(executeCommands()).toEqual([
      { method: 'workspace/executeCommand', params: { command: 'lacuna.exportTests', arguments: [{ directory: out }] } },
    ]);
    expect(vscode.window.showTextDocument).toHaveBeenCalledWith(vscode.Uri.file(path.join(out, 'test_orders.py')));
  });

  it('sends nothing when the folder picker is cancelled', async () => {
    await start();
    await vscode.commands.executeCommand(Commands.exportTests);
    expect(vscode.window.showOpenDialog).toHaveBeenCalled();
    expect(executeCommands()).toEqual([]);
  });

  it('explains instead of running generation commands in an untrusted workspace', async () => {
    vscode.workspace.isTrusted = false;
    await start();
    vscode.events.setActiveEditor(vscode.editorFor(path.join(dir, 'project/shop/orders.py'), 'def f():\n  pass\n', 1));
    await vscode.commands.executeCommand(Commands.rerunFunction);
    await vscode.commands.executeCommand(Commands.exportTests);
    expect(vscode.window.showOpenDialog).not.toHaveBeenCalled();
    expect(executeCommands()).toEqual([]);
  });

  it('opens the guidance module the server names', async () => {
    const file = path.join(dir, 'project', 'tests', 'guide.py');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'def mock(target): ...\n');
    Fake.commandResults.set('lacuna.guidanceModule', { path: file, created: false });
    await start();
    await vscode.commands.executeCommand(Commands.openGuidance);
    expect(executeCommands()).toEqual([
      { method: 'workspace/executeCommand', params: { command: 'lacuna.guidanceModule', arguments: [] } },
    ]);
    expect(vscode.window.showTextDocument).toHaveBeenCalledWith(vscode.Uri.file(file));
  });

  it('tells when the server is not running', async () => {
    vi.stubEnv('PATH', path.join(dir, 'empty'));
    vscode.settings.delete('server.path');
    await start();
    vscode.events.setActiveEditor(vscode.editorFor(path.join(dir, 'project/a.py'), 'def f(): pass\n'));
    await vscode.commands.executeCommand(Commands.rerunFile);
    expect(vscode.window.showWarningMessage).toHaveBeenCalledWith(
      'The Lacuna language server is not running.',
      'Show Log',
      'Restart Server',
    );
  });
});

describe('client features', () => {
  it("drops the feature that would register the server's commands as VS Code commands", () => {
    const executeCommand = { registrationType: lc.ExecuteCommandRequest.type };
    const hover = { registrationType: lc.HoverRequest.type };
    const staticFeature = { fillClientCapabilities() {}, initialize() {} };
    expect(keepFeature(executeCommand as never)).toBe(false);
    expect(keepFeature(hover as never)).toBe(true);
    expect(keepFeature(staticFeature as never)).toBe(true);
    const client = new LacunaLanguageClient('lacuna', 'Lacuna', {} as never, {} as never) as unknown as FakeClient;
    for (const f of [executeCommand, hover, staticFeature]) (client as unknown as lc.LanguageClient).registerFeature(f as never);
    expect(client.features).toEqual([hover, staticFeature]);
  });
});
