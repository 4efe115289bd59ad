/**
 * A fake `vscode` module for running the BUNDLED extension (dist/extension.js) — with the real
 * vscode-languageclient inside — against the real server: concrete where the extension and the
 * client's diagnostics, status and command paths look at values (URIs, ranges, diagnostics,
 * documents, tabs, configuration, messages), permissive elsewhere (any other API is a no-op
 * returning a disposable).
 */
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A no-op API surface: callable, constructible, extendable, disposable, iterable (empty). */
function permissive(name: string): unknown {
  const target = function () {} as unknown as Record<PropertyKey, unknown>;
  return new Proxy(target, {
    get(t, p) {
      if (p === 'then') return undefined;
      if (p === Symbol.iterator) return function* () {};
      if (p === 'dispose') return () => {};
      if (p === Symbol.toPrimitive) return () => name;
      if (!(p in t)) t[p] = permissive(`${name}.${String(p)}`);
      return t[p];
    },
    apply: () => permissive(`${name}()`),
    construct: () => permissive(`new ${name}`) as object,
  });
}

function withFallback<T extends object>(name: string, concrete: T): T {
  return new Proxy(concrete, {
    get(t, p) {
      if (p in t) return (t as Record<PropertyKey, unknown>)[p];
      if (p === 'then' || p === '__esModule') return undefined;
      const value = permissive(`${name}.${String(p)}`);
      (t as Record<PropertyKey, unknown>)[p] = value;
      return value;
    },
  });
}

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i?.dispose?.()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: ((e: T) => unknown)[] = [];
  readonly event = (listener: (e: T) => unknown, thisArg?: unknown): Disposable => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.push(bound);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== bound);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.cancelled.event,
  };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }
  dispose(): void {
    this.cancelled.dispose();
  }
}

export class CancellationError extends Error {
  constructor() {
    super('Canceled');
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
    private readonly text: string,
  ) {}
  static file(fsPath: string): Uri {
    const href = pathToFileURL(fsPath).href;
    return new Uri('file', '', fsPath, '', '', href);
  }
  static parse(value: string): Uri {
    if (value.startsWith('file:')) return Uri.file(fileURLToPath(value));
    const url = new URL(value);
    return new Uri(url.protocol.replace(/:$/, ''), url.host, url.pathname, url.search, url.hash, value);
  }
  get fsPath(): string {
    return this.path;
  }
  with(): Uri {
    return this;
  }
  toString(): string {
    return this.text;
  }
  toJSON(): string {
    return this.text;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c as number, d as number) : (b as Position);
  }
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    super(anchor, active);
  }
}

export class Location {
  constructor(
    readonly uri: Uri,
    readonly range: Range,
  ) {}
}

export class Diagnostic {
  code?: string | number | { value: string | number; target: Uri };
  source?: string;
  tags?: number[];
  relatedInformation?: unknown[];
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: number = 0,
  ) {}
}

export class DiagnosticRelatedInformation {
  constructor(
    readonly location: Location,
    readonly message: string,
  ) {}
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}
export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}
export class TabInputCustom {
  constructor(readonly uri: Uri) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export interface FakeDocument {
  uri: Uri;
  fileName: string;
  languageId: string;
  version: number;
  isClosed: boolean;
  isDirty: boolean;
  isUntitled: boolean;
  lineCount: number;
  eol: number;
  getText(): string;
  save(): Promise<boolean>;
}

export interface FakeStatusBarItem {
  text: string;
  tooltip?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  name?: string;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface FakeOptions {
  folder: string;
  trusted: boolean;
  /** `lacuna.*` settings, flat keys without the prefix. */
  settings: Record<string, unknown>;
}

export function createFakeVscode(options: FakeOptions) {
  const events = {
    grantTrust: new EventEmitter<void>(),
    configuration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
    openDocument: new EventEmitter<FakeDocument>(),
    activeEditor: new EventEmitter<unknown>(),
    tabs: new EventEmitter<{ opened: unknown[]; closed: unknown[]; changed: unknown[] }>(),
  };
  const state = {
    settings: { ...options.settings },
    documents: [] as FakeDocument[],
    tabs: [] as { input: TabInputText }[],
    /** Diagnostics per URI string, as the client put them in its collection. */
    diagnostics: new Map<string, Diagnostic[]>(),
    diagnosticsChanged: new EventEmitter<void>(),
    statusItems: [] as FakeStatusBarItem[],
    commands: new Map<string, (...args: unknown[]) => unknown>(),
    messages: [] as { kind: string; text: string; items: string[] }[],
    /** The button each message answers, by text prefix. */
    answers: new Map<string, string>(),
    output: [] as string[],
    openDialog: undefined as Uri[] | undefined,
    shownDocuments: [] as Uri[],
    activeTextEditor: undefined as { document: FakeDocument; selection: Selection } | undefined,
  };

  const message = (kind: string) => async (text: string, ...items: unknown[]) => {
    state.messages.push({ kind, text, items: items.filter((i): i is string => typeof i === 'string') });
    for (const [prefix, answer] of state.answers) if (text.startsWith(prefix)) return answer;
    return undefined;
  };

  const outputChannel = (name: string) => ({
    name,
    append: (s: string) => state.output.push(s),
    appendLine: (s: string) => state.output.push(`${s}\n`),
    show() {},
    hide() {},
    clear() {},
    replace() {},
    dispose() {},
  });

  const workspace = withFallback('workspace', {
    get isTrusted() {
      return options.trusted;
    },
    workspaceFolders: [{ uri: Uri.file(options.folder), name: path.basename(options.folder), index: 0 }],
    get textDocuments() {
      return state.documents;
    },
    notebookDocuments: [],
    getWorkspaceFolder: (uri: Uri) =>
      uri.fsPath.startsWith(options.folder + path.sep) ? workspace.workspaceFolders[0] : undefined,
    getConfiguration: (section?: string) => {
      const prefix = section === 'lacuna' ? '' : section?.startsWith('lacuna.') ? `${section.slice(7)}.` : null;
      return {
        get: (key: string, fallback?: unknown) => {
          if (prefix === null) return fallback;
          const value = state.settings[prefix + key];
          return value === undefined ? fallback : value;
        },
        has: (key: string) => prefix !== null && prefix + key in state.settings,
        inspect: () => undefined,
        update: async () => {},
      };
    },
    onDidGrantWorkspaceTrust: events.grantTrust.event,
    onDidChangeConfiguration: events.configuration.event,
    onDidOpenTextDocument: events.openDocument.event,
    createFileSystemWatcher: () => ({
      onDidCreate: () => new Disposable(),
      onDidChange: () => new Disposable(),
      onDidDelete: () => new Disposable(),
      dispose() {},
    }),
  });

  const window = withFallback('window', {
    get activeTextEditor() {
      return state.activeTextEditor;
    },
    get visibleTextEditors() {
      return state.activeTextEditor ? [state.activeTextEditor] : [];
    },
    tabGroups: {
      get all() {
        return [{ tabs: state.tabs, isActive: true, viewColumn: 1 }];
      },
      onDidChangeTabs: events.tabs.event,
      onDidChangeTabGroups: () => new Disposable(),
    },
    onDidChangeActiveTextEditor: events.activeEditor.event,
    createOutputChannel: outputChannel,
    createStatusBarItem: () => {
      const item: FakeStatusBarItem = { text: '', show() {}, hide() {}, dispose() {} };
      state.statusItems.push(item);
      return item;
    },
    showInformationMessage: message('information'),
    showWarningMessage: message('warning'),
    showErrorMessage: message('error'),
    showOpenDialog: async () => state.openDialog,
    showTextDocument: async (uri: Uri) => {
      state.shownDocuments.push(uri);
      return {};
    },
    withProgress: async (_: unknown, task: (progress: unknown, token: unknown) => Promise<unknown>) =>
      task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => new Disposable() }),
  });

  const languages = withFallback('languages', {
    match: (selector: { language?: string; scheme?: string }[], document: FakeDocument) =>
      selector.some(
        (s) => (!s.language || s.language === document.languageId) && (!s.scheme || s.scheme === document.uri.scheme),
      )
        ? 10
        : 0,
    createDiagnosticCollection: () => ({
      set(uri: Uri, diagnostics: Diagnostic[] | undefined) {
        state.diagnostics.set(uri.toString(), diagnostics ?? []);
        state.diagnosticsChanged.fire();
      },
      delete(uri: Uri) {
        state.diagnostics.delete(uri.toString());
      },
      get: (uri: Uri) => state.diagnostics.get(uri.toString()),
      has: (uri: Uri) => state.diagnostics.has(uri.toString()),
      forEach() {},
      clear() {
        state.diagnostics.clear();
      },
      dispose() {},
    }),
  });

  const commands = withFallback('commands', {
    registerCommand: (id: string, run: (...args: unknown[]) => unknown) => {
      if (state.commands.has(id)) throw new Error(`command '${id}' already exists`);
      state.commands.set(id, run);
      return new Disposable(() => state.commands.delete(id));
    },
    executeCommand: async (id: string, ...args: unknown[]) => state.commands.get(id)?.(...args),
  });

  const vscode = withFallback('vscode', {
    version: '1.82.0',
    env: withFallback('env', { appName: 'Visual Studio Code', language: 'en', machineId: 'test', sessionId: 'test', uiKind: 1 }),
    Uri,
    Position,
    Range,
    Selection,
    Location,
    Diagnostic,
    DiagnosticRelatedInformation,
    DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
    DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
    Disposable,
    EventEmitter,
    CancellationTokenSource,
    CancellationError,
    TabInputText,
    TabInputTextDiff,
    TabInputCustom,
    ThemeColor,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    SymbolKind: { Class: 4, Method: 5, Constructor: 8, Function: 11 },
    workspace,
    window,
    languages,
    commands,
  });

  /** Opens a file in an editor tab, as VS Code does (tab first, then the open event). */
  function openDocument(file: string, text: string, cursor?: { line: number; character: number }): FakeDocument {
    const document: FakeDocument = {
      uri: Uri.file(file),
      fileName: file,
      languageId: 'python',
      version: 1,
      isClosed: false,
      isDirty: false,
      isUntitled: false,
      lineCount: text.split('\n').length,
      eol: 1,
      getText: () => text,
      save: async () => true,
    };
    state.documents.push(document);
    const tab = { input: new TabInputText(document.uri) };
    state.tabs.push(tab);
    events.tabs.fire({ opened: [tab], closed: [], changed: [] });
    const position = new Position(cursor?.line ?? 0, cursor?.character ?? 0);
    state.activeTextEditor = { document, selection: new Selection(position, position) };
    events.openDocument.fire(document);
    events.activeEditor.fire(state.activeTextEditor);
    return document;
  }

  function grantTrust(): void {
    options.trusted = true;
    events.grantTrust.fire();
  }

  function changeSettings(values: Record<string, unknown>): void {
    Object.assign(state.settings, values);
    const keys = Object.keys(values).map((k) => `lacuna.${k}`);
    events.configuration.fire({
      affectsConfiguration: (section) => keys.some((k) => k === section || k.startsWith(`${section}.`)),
    });
  }

  return { vscode, state, openDocument, grantTrust, changeSettings };
}
