/**
 * Lacuna for VS Code: starts `lacuna lsp`, shows what it is doing in the status bar, and adds
 * commands to re-run generation, export the generated tests and open the guidance module.
 * Untrusted workspaces get the server in static mode, restarted in full mode once trusted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  State,
} from 'vscode-languageclient/node';
import { createClient, type LacunaLanguageClient } from './client';
import { exportArgs, rerunArgs } from './commands';
import { type ServerResolution, repairBundledServer, resolveServer, systemLookup } from './launch';
import {
  type CoverageParams,
  type ExportResult,
  Notifications,
  SECTION,
  type GuidanceResult,
  type RerunAnswer,
  ServerCommands,
  type StatusParams,
} from './protocol';
import { type ConfigReader, didChangeConfigurationParams, toSettings } from './settings';
import { StatusBar } from './status';

export const Commands = {
  rerunFile: 'lacuna.rerunFile',
  rerunFunction: 'lacuna.rerunFunction',
  exportTests: 'lacuna.exportTests',
  openGuidance: 'lacuna.openGuidance',
  restartServer: 'lacuna.restartServer',
  showLog: 'lacuna.showLog',
} as const;

export const OPEN_SETTINGS = 'Open Settings';
export const SHOW_LOG = 'Show Log';
export const MANAGE_TRUST = 'Manage Workspace Trust';

export const UNTRUSTED_NOTICE =
  "Lacuna runs static-only in this untrusted workspace: it shows syntax errors, decisions and " +
  "MC/DC counts, but runs none of the project's code and generates no tests. Trust the " +
  'workspace to generate tests.';

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Lacuna implements vscode.Disposable {
  readonly output: vscode.OutputChannel;
  readonly status: StatusBar;
  private client: LacunaLanguageClient | undefined;
  private trusted = vscode.workspace.isTrusted;
  private trustNoticeShown = false;
  /** Start, stop and restart run one after the other. */
  private queue: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Lacuna');
    this.status = new StatusBar(Commands.showLog);
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.output.appendLine('The workspace is now trusted: restarting Lacuna in full mode.');
        void this.restart();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
  }

  /** Whether the running (or last started) server was started for a trusted workspace. */
  get isTrusted(): boolean {
    return this.trusted;
  }

  get languageClient(): LacunaLanguageClient | undefined {
    return this.client;
  }

  private folder(): vscode.WorkspaceFolder | undefined {
    const active = vscode.window.activeTextEditor?.document.uri;
    return (active && vscode.workspace.getWorkspaceFolder(active)) ?? vscode.workspace.workspaceFolders?.[0];
  }

  private firstFolder(): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.workspaceFolders?.[0];
  }

  /** The `lacuna` section for a scope (default: the first workspace folder, the server's root). */
  readerFor(scopeUri?: string): ConfigReader {
    const scope = scopeUri ? vscode.Uri.parse(scopeUri) : this.firstFolder()?.uri;
    return vscode.workspace.getConfiguration(SECTION, scope);
  }

  private serialize(op: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(op, op);
    return this.queue;
  }

  /** Starts the server (restarts it when one is running). */
  start(): Promise<void> {
    return this.serialize(() => this.doStart());
  }

  /** Resolves once every start, stop and restart asked for so far is done. */
  settled(): Promise<void> {
    return this.queue;
  }

  stop(): Promise<void> {
    return this.serialize(() => this.doStop());
  }

  restart(): Promise<void> {
    return this.start();
  }

  resolveServer(): ServerResolution {
    if (repairBundledServer(this.context.extensionPath)) {
      this.output.appendLine('Made the bundled server executable again.');
    }
    const configured = this.readerFor().get<string>('server.path');
    return resolveServer(
      systemLookup(configured, this.firstFolder()?.uri.fsPath, this.context.extensionPath),
    );
  }

  private async doStart(): Promise<void> {
    await this.doStop();
    this.trusted = vscode.workspace.isTrusted;
    this.status.reset();
    const server = this.resolveServer();
    if (!server.ok) {
      this.status.setStatus({ state: 'error', message: server.message });
      this.output.appendLine(server.message);
      void this.reportMissingServer(server.message);
      return;
    }
    this.output.appendLine(
      `Starting ${server.path} (${server.source === 'setting' ? 'lacuna.server.path' : server.source === 'path' ? 'from PATH' : 'bundled'}), ` +
        (this.trusted ? 'trusted workspace: full mode.' : 'untrusted workspace: static-only.'),
    );
    if (!this.trusted) void this.showTrustNotice();
    const client = createClient({
      serverPath: server.path,
      trusted: this.trusted,
      settings: toSettings(this.readerFor()),
      cwd: this.firstFolder()?.uri.fsPath,
      output: this.output,
      readerFor: (scope) => this.readerFor(scope),
    });
    client.onNotification(Notifications.status, (params: StatusParams) => this.status.setStatus(params));
    client.onNotification(Notifications.coverage, (params: CoverageParams) => this.status.setCoverage(params));
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client) {
        this.status.setStatus({
          state: 'error',
          message: 'The language server stopped. See the log; "Lacuna: Restart Server" starts it again.',
        });
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      const why = `Lacuna: the language server ${server.path} did not start: ${message(error)}`;
      this.output.appendLine(why);
      this.status.setStatus({ state: 'error', message: why });
      void vscode.window.showErrorMessage(why, SHOW_LOG).then((choice) => {
        if (choice === SHOW_LOG) this.output.show(true);
      });
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    try {
      await client.dispose(5000);
    } catch (error) {
      this.output.appendLine(`Lacuna: stopping the server: ${message(error)}`);
    }
  }

  private async reportMissingServer(text: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(text, OPEN_SETTINGS, SHOW_LOG);
    if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'lacuna.server.path');
    } else if (choice === SHOW_LOG) {
      this.output.show(true);
    }
  }

  private async showTrustNotice(): Promise<void> {
    if (this.trustNoticeShown) return;
    this.trustNoticeShown = true;
    const choice = await vscode.window.showInformationMessage(UNTRUSTED_NOTICE, MANAGE_TRUST);
    if (choice === MANAGE_TRUST) await vscode.commands.executeCommand('workbench.trust.manage');
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration(SECTION)) return;
    if (e.affectsConfiguration(`${SECTION}.server.path`)) {
      this.output.appendLine('`lacuna.server.path` changed: restarting the server.');
      void this.restart();
      return;
    }
    const client = this.client;
    if (client?.isRunning()) {
      void client.sendNotification(
        DidChangeConfigurationNotification.type,
        didChangeConfigurationParams(this.readerFor()),
      );
    }
  }

  /** The running client, or a message saying why there is none. */
  private running(): LacunaLanguageClient | undefined {
    const client = this.client;
    if (client?.isRunning()) return client;
    void vscode.window
      .showWarningMessage('The Lacuna language server is not running.', SHOW_LOG, 'Restart Server')
      .then((choice) => {
        if (choice === SHOW_LOG) this.output.show(true);
        else if (choice === 'Restart Server') void this.restart();
      });
    return undefined;
  }

  private staticOnly(what: string): boolean {
    if (this.trusted) return false;
    void vscode.window.showInformationMessage(
      `Lacuna runs static-only in this untrusted workspace: ${what}`,
      MANAGE_TRUST,
    ).then((choice) => {
      if (choice === MANAGE_TRUST) void vscode.commands.executeCommand('workbench.trust.manage');
    });
    return true;
  }

  private pythonEditor(): vscode.TextEditor | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.languageId === 'python' && editor.document.uri.scheme === 'file') return editor;
    void vscode.window.showInformationMessage('Lacuna: open a Python file of the project first.');
    return undefined;
  }

  async executeServerCommand<T>(command: string, args: unknown[]): Promise<T | undefined> {
    const client = this.running();
    if (!client) return undefined;
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  async rerunFile(): Promise<void> {
    const editor = this.pythonEditor();
    if (!editor || this.staticOnly('it generates no tests to re-run.')) return;
    await this.rerun(rerunArgs(editor.document.uri.toString()));
  }

  async rerunFunction(): Promise<void> {
    const editor = this.pythonEditor();
    if (!editor || this.staticOnly('it generates no tests to re-run.')) return;
    const { line, character } = editor.selection.active;
    const answer = await this.rerun<RerunAnswer>(rerunArgs(editor.document.uri.toString(), { line, character }));
    if (answer && answer.function === null) {
      void vscode.window.showInformationMessage(
        'Lacuna: the cursor is not inside a function; re-running generation for the whole file.',
      );
    }
  }

  private async rerun<T = null>(args: unknown[]): Promise<T | undefined> {
    try {
      return (await this.executeServerCommand<T>(ServerCommands.rerun, args)) ?? undefined;
    } catch (error) {
      void vscode.window.showErrorMessage(`Lacuna could not re-run generation: ${message(error)}`);
      return undefined;
    }
  }

  async exportTests(): Promise<void> {
    if (this.staticOnly('there are no generated tests to export.')) return;
    if (!this.running()) return;
    const folder = this.folder();
    const root = folder?.uri.fsPath;
    const tests = root ? path.join(root, 'tests') : undefined;
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      openLabel: 'Export Tests Here',
      title: 'Lacuna: export the generated tests (pytest files) to a folder',
      defaultUri: tests && fs.existsSync(tests) ? vscode.Uri.file(tests) : root ? vscode.Uri.file(root) : undefined,
    });
    const directory = picked?.[0]?.fsPath;
    if (!directory) return;
    let result: ExportResult | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Lacuna: exporting the generated tests…' },
        () => this.executeServerCommand<ExportResult>(ServerCommands.exportTests, exportArgs(directory)),
      );
    } catch (error) {
      void vscode.window.showErrorMessage(`Lacuna could not export the tests: ${message(error)}`);
      return;
    }
    if (!result) return;
    const written = result.written ?? [];
    this.output.appendLine(`Exported ${written.length} test file(s) to ${directory}:`);
    for (const file of written) this.output.appendLine(`  ${file}`);
    if (written.length === 0) {
      void vscode.window.showInformationMessage(
        'Lacuna exported no test files: no function has generated tests yet (open or save a Python file first).',
      );
      return;
    }
    const choice = await vscode.window.showInformationMessage(
      `Lacuna wrote ${written.length} test file${written.length === 1 ? '' : 's'} to ${directory}.`,
      'Open',
    );
    if (choice === 'Open') await vscode.window.showTextDocument(vscode.Uri.file(written[0]));
  }

  async openGuidance(): Promise<void> {
    if (!this.running()) return;
    // The server knows where the module is (pyproject.toml over the setting) and what a new one
    // starts with; it creates it unless it runs static-only.
    let result: GuidanceResult | undefined;
    try {
      result = await this.executeServerCommand<GuidanceResult>(ServerCommands.guidanceModule, []);
    } catch (error) {
      void vscode.window.showErrorMessage(`Lacuna could not open the guidance module: ${message(error)}`);
      return;
    }
    if (!result) return;
    if (result.created) this.output.appendLine(`Created the guidance module ${result.path}.`);
    if (!fs.existsSync(result.path)) {
      void vscode.window.showInformationMessage(
        `Lacuna: the guidance module ${result.path} does not exist yet (it is created in a trusted workspace).`,
      );
      return;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(result.path));
  }

  showLog(): void {
    this.output.show(true);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.status.dispose();
    this.output.dispose();
  }
}

let lacuna: Lacuna | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<Lacuna> {
  const instance = new Lacuna(context);
  lacuna = instance;
  const register = (id: string, run: () => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  register(Commands.rerunFile, () => instance.rerunFile());
  register(Commands.rerunFunction, () => instance.rerunFunction());
  register(Commands.exportTests, () => instance.exportTests());
  register(Commands.openGuidance, () => instance.openGuidance());
  register(Commands.restartServer, () => instance.restart());
  register(Commands.showLog, () => instance.showLog());
  context.subscriptions.push(instance);
  await instance.start();
  return instance;
}

export async function deactivate(): Promise<void> {
  const instance = lacuna;
  lacuna = undefined;
  await instance?.stop();
}
