/**
 * A small stand-in for the `vscode` module (vitest aliases `vscode` to this file in the unit
 * project): the parts of the API the extension uses, with state the tests set and inspect.
 * `reset()` puts everything back between tests.
 */
import * as path from 'node:path';
import { vi } from 'vitest';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
  ) {}
  static file(fsPath: string): Uri {
    return new Uri('file', path.resolve(fsPath));
  }
  static parse(value: string, _strict?: boolean): Uri {
    const match = /^([a-z][a-z0-9+.-]*):(?:\/\/)?(.*)$/i.exec(value);
    if (!match) throw new Error(`not a URI: ${value}`);
    return new Uri(match[1].toLowerCase(), decodeURIComponent(match[2]));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${encodeURI(this.path)}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}

export class Selection extends Range {
  constructor(
    readonly anchor: Position,
    readonly active: Position,
  ) {
    super(anchor, active);
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum SymbolKind {
  File = 0,
  Module = 1,
  Namespace = 2,
  Package = 3,
  Class = 4,
  Method = 5,
  Property = 6,
  Field = 7,
  Constructor = 8,
  Enum = 9,
  Interface = 10,
  Function = 11,
  Variable = 12,
}

export interface MockStatusBarItem {
  id: string;
  alignment: StatusBarAlignment;
  priority: number;
  name?: string;
  text: string;
  tooltip?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface MockOutputChannel {
  name: string;
  lines: string[];
  shown: number;
  append(text: string): void;
  appendLine(text: string): void;
  show(preserveFocus?: boolean): void;
  hide(): void;
  clear(): void;
  replace(text: string): void;
  dispose(): void;
}

export interface MockDocument {
  uri: Uri;
  languageId: string;
  getText(): string;
}

export interface MockEditor {
  document: MockDocument;
  selection: Selection;
}

export function editorFor(file: string, text: string, line = 0, character = 0, languageId = 'python'): MockEditor {
  const position = new Position(line, character);
  return {
    document: { uri: Uri.file(file), languageId, getText: () => text },
    selection: new Selection(position, position),
  };
}

/** What the message functions answer (the button a user would click), per message text prefix. */
export const answers = new Map<string, string | undefined>();

function answer(message: string): string | undefined {
  for (const [prefix, choice] of answers) if (message.startsWith(prefix)) return choice;
  return undefined;
}

const activeEditorChanged = new EventEmitter<MockEditor | undefined>();
const trustGranted = new EventEmitter<void>();
const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();

export const statusBarItems: MockStatusBarItem[] = [];
export const outputChannels: MockOutputChannel[] = [];

export const window = {
  activeTextEditor: undefined as MockEditor | undefined,
  onDidChangeActiveTextEditor: activeEditorChanged.event,
  createStatusBarItem: vi.fn((id: string, alignment: StatusBarAlignment, priority: number): MockStatusBarItem => {
    const item: MockStatusBarItem = {
      id,
      alignment,
      priority,
      text: '',
      visible: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {
        item.visible = false;
      },
    };
    statusBarItems.push(item);
    return item;
  }),
  createOutputChannel: vi.fn((name: string): MockOutputChannel => {
    const channel: MockOutputChannel = {
      name,
      lines: [],
      shown: 0,
      append: (text) => channel.lines.push(text),
      appendLine: (text) => channel.lines.push(text),
      show: () => {
        channel.shown += 1;
      },
      hide: () => {},
      clear: () => {
        channel.lines = [];
      },
      replace: (text) => {
        channel.lines = [text];
      },
      dispose: () => {},
    };
    outputChannels.push(channel);
    return channel;
  }),
  showInformationMessage: vi.fn(async (message: string, ..._items: string[]) => answer(message)),
  showWarningMessage: vi.fn(async (message: string, ..._items: string[]) => answer(message)),
  showErrorMessage: vi.fn(async (message: string, ..._items: string[]) => answer(message)),
  showOpenDialog: vi.fn(async (_options?: unknown): Promise<Uri[] | undefined> => undefined),
  showTextDocument: vi.fn(async (uri: Uri) => ({ document: { uri } })),
  withProgress: vi.fn(async <T>(_options: unknown, task: () => Promise<T>) => task()),
};

/** `lacuna.*` values as a user would have set them (flat keys: `budget.workers`). */
export const settings = new Map<string, unknown>();

export const workspace = {
  isTrusted: true,
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  onDidGrantWorkspaceTrust: trustGranted.event,
  onDidChangeConfiguration: configurationChanged.event,
  getWorkspaceFolder: vi.fn((uri: Uri) =>
    workspace.workspaceFolders?.find((f) => uri.fsPath.startsWith(f.uri.fsPath + path.sep)),
  ),
  getConfiguration: vi.fn((section?: string, _scope?: unknown) => ({
    get<T>(key: string, fallback?: T): T | undefined {
      const full = section ? `${section}.${key}` : key;
      const prefix = section ? `${section}.` : '';
      const value = settings.get(full.startsWith(prefix) ? full.slice(prefix.length) : full);
      return (value === undefined ? fallback : value) as T | undefined;
    },
    has: (key: string) => settings.has(key),
  })),
};

const registered = new Map<string, (...args: unknown[]) => unknown>();
/** Answers of `executeCommand` for commands no test registered (`vscode.executeDocumentSymbolProvider`). */
export const commandResults = new Map<string, unknown>();

export const commands = {
  registerCommand: vi.fn((id: string, run: (...args: unknown[]) => unknown) => {
    if (registered.has(id)) throw new Error(`command '${id}' already exists`);
    registered.set(id, run);
    return new Disposable(() => registered.delete(id));
  }),
  executeCommand: vi.fn(async (id: string, ...args: unknown[]) => {
    const run = registered.get(id);
    if (run) return run(...args);
    return commandResults.get(id);
  }),
};

/** Test helpers (not part of the VS Code API). */
export const events = {
  setActiveEditor(editor: MockEditor | undefined): void {
    window.activeTextEditor = editor;
    activeEditorChanged.fire(editor);
  },
  grantTrust(): void {
    workspace.isTrusted = true;
    trustGranted.fire();
  },
  changeConfiguration(...keys: string[]): void {
    configurationChanged.fire({
      affectsConfiguration: (section) => keys.some((k) => k === section || k.startsWith(`${section}.`)),
    });
  },
};

export function reset(): void {
  window.activeTextEditor = undefined;
  workspace.isTrusted = true;
  workspace.workspaceFolders = undefined;
  settings.clear();
  answers.clear();
  commandResults.clear();
  registered.clear();
  activeEditorChanged.dispose();
  trustGranted.dispose();
  configurationChanged.dispose();
  statusBarItems.length = 0;
  outputChannels.length = 0;
  vi.clearAllMocks();
}
