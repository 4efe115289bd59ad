/**
 * A headless stand-in for VS Code's side of the connection: starts the real `lacuna lsp` with
 * the extension's own launch arguments and `initializationOptions`, advertises the capabilities
 * vscode-languageclient 9 advertises where the server looks at them (pull diagnostics with
 * refresh, configuration, work-done progress, UTF-16), answers `workspace/configuration`
 * through the extension's own middleware function, pulls diagnostics when the server asks for a
 * refresh (as VS Code does), and records everything the server sends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type ClientCapabilities,
  ConfigurationRequest,
  type Diagnostic,
  DiagnosticRefreshRequest,
  DidChangeConfigurationNotification,
  DidOpenTextDocumentNotification,
  DidSaveTextDocumentNotification,
  DocumentDiagnosticReportKind,
  DocumentDiagnosticRequest,
  ExecuteCommandRequest,
  ExitNotification,
  type InitializeResult,
  InitializeRequest,
  InitializedNotification,
  LogMessageNotification,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgressCreateRequest,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { initializationOptions, serverArgs } from '../../src/launch';
import { type CoverageParams, Notifications, type StatusParams } from '../../src/protocol';
import { type ConfigReader, answerConfiguration, didChangeConfigurationParams, toSettings } from '../../src/settings';

/** The server under test: `LACUNA_BIN`, else the workspace's debug build. */
export const LACUNA_BIN = process.env.LACUNA_BIN
  ? path.resolve(process.env.LACUNA_BIN)
  : path.resolve(__dirname, '../../../../target/debug/lacuna');

/** How long to wait for something the server is expected to send (generation runs real Python). */
export const PATIENCE_MS = 120_000;

/** What vscode-languageclient 9 advertises, for the capabilities the server reads. */
export function vscodeClientCapabilities(): ClientCapabilities {
  return {
    general: {
      positionEncodings: ['utf-16'],
      staleRequestSupport: { cancel: true, retryOnContentModified: [] },
      markdown: { parser: 'marked', version: '1.1.0' },
    },
    window: { workDoneProgress: true, showDocument: { support: true } },
    workspace: {
      applyEdit: true,
      workspaceEdit: { documentChanges: true, resourceOperations: ['create', 'rename', 'delete'] },
      configuration: true,
      didChangeConfiguration: { dynamicRegistration: true },
      didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true },
      diagnostics: { refreshSupport: true },
      workspaceFolders: true,
    },
    textDocument: {
      synchronization: { dynamicRegistration: true, willSave: true, willSaveWaitUntil: true, didSave: true },
      publishDiagnostics: {
        relatedInformation: true,
        versionSupport: false,
        tagSupport: { valueSet: [1, 2] },
        codeDescriptionSupport: true,
        dataSupport: true,
      },
      diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
      hover: { dynamicRegistration: true, contentFormat: ['markdown', 'plaintext'] },
      codeAction: {
        dynamicRegistration: true,
        isPreferredSupport: true,
        disabledSupport: true,
        dataSupport: true,
        resolveSupport: { properties: ['edit'] },
        codeActionLiteralSupport: {
          codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source'] },
        },
        honorsChangeAnnotations: false,
      },
    },
  };
}

export function fileUri(file: string): string {
  return pathToFileURL(file).href;
}

/** A `lacuna.*` configuration as VS Code holds it: flat keys (`budget.functionTimeMs`). */
export function flatConfig(values: Record<string, unknown>): ConfigReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

export interface Received {
  method: string;
  params: unknown;
}

export class Session {
  readonly child: ChildProcess;
  readonly connection: ProtocolConnection;
  /** Every notification and server request, in order of arrival. */
  readonly received: Received[] = [];
  /** The latest diagnostics per document URI (pushed or pulled). */
  readonly diagnostics = new Map<string, Diagnostic[]>();
  /** What the server asked `workspace/configuration` for, and what it was answered. */
  readonly configurationAnswers: { items: unknown[]; answer: unknown[] }[] = [];
  readonly stderr: string[] = [];
  private readonly open = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private version = 0;
  private exited = false;

  /**
   * Starts the server as the extension does: `serverArgs(trusted)`, stdio, working directory
   * the workspace folder; then `initialize` sends the extension's `initializationOptions`.
   */
  constructor(
    readonly root: string,
    readonly trusted: boolean,
    private config: ConfigReader,
    /** The command line after the binary; the extension's own by default. */
    args: string[] = serverArgs(trusted),
  ) {
    if (!fs.existsSync(LACUNA_BIN)) {
      throw new Error(
        `No Lacuna server at ${LACUNA_BIN}: build it (cargo build, at the repository root) or set LACUNA_BIN.`,
      );
    }
    this.child = spawn(LACUNA_BIN, args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.child.on('exit', () => {
      this.exited = true;
      this.changed();
    });
    this.connection = createProtocolConnection(
      new StreamMessageReader(this.child.stdout!),
      new StreamMessageWriter(this.child.stdin!),
    );
    const c = this.connection;
    const record = (method: string) => (params: unknown) => {
      this.received.push({ method, params });
      this.changed();
    };
    c.onNotification(Notifications.status, record(Notifications.status));
    c.onNotification(Notifications.coverage, record(Notifications.coverage));
    c.onNotification(LogMessageNotification.type, record(LogMessageNotification.method));
    c.onNotification(ShowMessageNotification.type, record(ShowMessageNotification.method));
    c.onNotification('$/progress', record('$/progress'));
    c.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.received.push({ method: PublishDiagnosticsNotification.method, params });
      this.diagnostics.set(params.uri, params.diagnostics);
      this.changed();
    });
    c.onRequest(ConfigurationRequest.type, async (params) => {
      record(ConfigurationRequest.method)(params);
      // The extension's middleware: `lacuna` → nested Settings; nothing else is configured here.
      const answer = await answerConfiguration(
        params.items,
        () => this.config,
        () => params.items.map(() => null),
      );
      this.configurationAnswers.push({ items: params.items, answer });
      return answer;
    });
    c.onRequest(DiagnosticRefreshRequest.type, () => {
      record(DiagnosticRefreshRequest.method)(null);
      for (const uri of this.open) void this.pull(uri);
      return null;
    });
    c.onRequest(RegistrationRequest.type, (params) => {
      record(RegistrationRequest.method)(params);
      return null;
    });
    c.onRequest(WorkDoneProgressCreateRequest.type, (params) => {
      record(WorkDoneProgressCreateRequest.method)(params);
      return null;
    });
    c.listen();
  }

  private changed(): void {
    for (const w of [...this.waiters]) w();
  }

  async initialize(): Promise<InitializeResult> {
    const result = await this.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: 'Visual Studio Code (contract test)', version: '1.82.0' },
      locale: 'en',
      rootPath: this.root,
      rootUri: fileUri(this.root),
      workspaceFolders: [{ uri: fileUri(this.root), name: path.basename(this.root) }],
      capabilities: vscodeClientCapabilities(),
      initializationOptions: initializationOptions(this.trusted, toSettings(this.config)),
      trace: 'off',
    });
    await this.connection.sendNotification(InitializedNotification.type, {});
    return result;
  }

  /** Opens a file as VS Code does (didOpen with its text), then pulls its diagnostics once. */
  async openFile(file: string): Promise<string> {
    const uri = fileUri(file);
    this.version += 1;
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'python', version: this.version, text: fs.readFileSync(file, 'utf8') },
    });
    this.open.add(uri);
    void this.pull(uri);
    return uri;
  }

  async save(uri: string): Promise<void> {
    await this.connection.sendNotification(DidSaveTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** `textDocument/diagnostic` for one document (what VS Code does on open, change and refresh). */
  async pull(uri: string): Promise<void> {
    try {
      const report = await this.connection.sendRequest(DocumentDiagnosticRequest.type, {
        textDocument: { uri },
      });
      if (report.kind === DocumentDiagnosticReportKind.Full) {
        this.diagnostics.set(uri, report.items);
        this.changed();
      }
    } catch {
      // The server may be shutting down.
    }
  }

  /** Changes the flat configuration and pushes it as the extension does. */
  async changeConfiguration(values: Record<string, unknown>): Promise<void> {
    this.config = flatConfig(values);
    await this.connection.sendNotification(
      DidChangeConfigurationNotification.type,
      didChangeConfigurationParams(this.config),
    );
  }

  async executeCommand<T>(command: string, args: unknown[]): Promise<T> {
    return (await this.connection.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  /** Resolves with `probe()`'s first defined answer; rejects after `timeoutMs`. */
  waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = PATIENCE_MS): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = () => {
        let value: T | undefined;
        try {
          value = probe();
        } catch (error) {
          finish();
          reject(error);
          return;
        }
        if (value !== undefined) {
          finish();
          resolve(value);
        } else if (this.exited) {
          finish();
          reject(new Error(`the server exited while waiting for ${what}\n${this.stderr.join('')}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out waiting for ${what}; received:\n${this.describe()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** The document's diagnostics once `predicate` holds for them. */
  diagnosticsWhere(uri: string, what: string, predicate: (ds: Diagnostic[]) => boolean): Promise<Diagnostic[]> {
    return this.waitFor(`diagnostics of ${uri} where ${what}`, () => {
      const ds = this.diagnostics.get(uri);
      return ds !== undefined && predicate(ds) ? ds : undefined;
    });
  }

  statuses(): StatusParams[] {
    return this.received.filter((m) => m.method === Notifications.status).map((m) => m.params as StatusParams);
  }

  coverage(uri: string): CoverageParams | undefined {
    const all = this.received
      .filter((m) => m.method === Notifications.coverage)
      .map((m) => m.params as CoverageParams)
      .filter((c) => c.uri === uri);
    return all[all.length - 1];
  }

  describe(): string {
    const lines = this.received.map((m) => `${m.method} ${JSON.stringify(m.params).slice(0, 300)}`);
    for (const [uri, ds] of this.diagnostics) lines.push(`diagnostics ${uri}: ${ds.map((d) => d.code).join(', ')}`);
    return lines.join('\n');
  }

  /** Whether the server exited by itself after `shutdown` and `exit` (else it was killed). */
  exitedByItself: boolean | undefined;

  /**
   * Stops the server as vscode-languageclient does: `shutdown`, `exit`, then it terminates a
   * process still alive 2 s later.
   */
  async shutdown(): Promise<void> {
    if (!this.exited) {
      try {
        await Promise.race([
          this.connection.sendRequest(ShutdownRequest.type),
          new Promise((resolve) => setTimeout(resolve, 10_000)),
        ]);
        await this.connection.sendNotification(ExitNotification.type);
      } catch {
        // Already gone.
      }
      this.child.stdin?.end();
      this.exitedByItself = await new Promise<boolean>((resolve) => {
        if (this.exited) return resolve(true);
        const timer = setTimeout(() => {
          this.child.kill('SIGKILL');
          resolve(false);
        }, 2_000);
        this.child.once('exit', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    }
    this.connection.dispose();
  }
}
