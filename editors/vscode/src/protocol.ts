/**
 * The contract between this extension and `lacuna lsp`: method names, command names and the
 * shapes of the messages that are not part of LSP itself. Nothing here imports `vscode`, so the
 * contract tests (plain Node, real server) use exactly these definitions.
 */

/** `"error" | "warning" | "information" | "hint" | "off"`: how a family of diagnostics shows. */
export type Level = 'error' | 'warning' | 'information' | 'hint' | 'off';

/** The `lacuna` settings section as the server reads it (mirrors `[tool.lacuna]`). */
export interface Settings {
  /** Interpreter for the project's code; `null`: `$VIRTUAL_ENV`, `.venv/`, `venv/`, `python3`. */
  python: string | null;
  /** Guidance module, relative to the project root. */
  guidance: string;
  generateOnSave: boolean;
  budget: {
    functionTimeMs: number;
    functionExecutions: number;
    executionTimeoutMs: number;
    /** 0: one worker per core, less one. */
    workers: number;
  };
  mcdc: {
    enabled: boolean;
    singleCondition: boolean;
  };
  diagnostics: {
    uncovered: Level;
    mcdc: Level;
    assertions: Level;
  };
}

/** `initialize` → `initializationOptions`. */
export interface InitializationOptions {
  /** `false`: static analysis only — no user code runs, nothing is generated or written. */
  trusted: boolean;
  settings: Settings;
}

/** The settings section the server asks for with `workspace/configuration`. */
export const SECTION = 'lacuna';

/** Commands the server executes (`workspace/executeCommand`). */
export const ServerCommands = {
  rerun: 'lacuna.rerun',
  exportTests: 'lacuna.exportTests',
  guidanceModule: 'lacuna.guidanceModule',
} as const;

/** What `lacuna.guidanceModule` answers: the module's path, and whether the server just created it. */
export interface GuidanceResult {
  path: string;
  created: boolean;
}

/** `lacuna.rerun` argument: one file, or one function of it by qualified name. */
export interface RerunArgs {
  uri: string;
  /** One function by its ID or qualified name (`Order.total`). */
  function?: string;
  /** The function at this position of the document (0-based, in the negotiated encoding). */
  position?: { line: number; character: number };
}

/**
 * `lacuna.rerun`'s answer when it was given a `position`: the qualified name of the function it
 * re-runs, `null` when the position is in no function (the whole file is re-run).
 */
export interface RerunAnswer {
  function: string | null;
}

/** `lacuna.exportTests` argument; without `directory` the server writes to `tests/generated`. */
export interface ExportArgs {
  directory?: string;
}

/** `lacuna.exportTests` result. */
export interface ExportResult {
  written: string[];
}

export type ServerState = 'idle' | 'generating' | 'static' | 'error';

/** `lacuna/status` notification. */
export interface StatusParams {
  state: ServerState;
  /** The function being explored (`generating`). */
  function?: string;
  message?: string;
  /** While project code runs: the kernel's containment layers in force. */
  sandbox?: string;
}

/**
 * `lacuna/coverage` notification: branch sides of a file covered by generated tests, and by the
 * project's own tests (`suite`, of the same total) once they have run.
 */
export interface CoverageParams {
  uri: string;
  covered: number;
  total: number;
  suite?: number;
}

export const Notifications = {
  status: 'lacuna/status',
  coverage: 'lacuna/coverage',
} as const;

/** `source` of every diagnostic the server publishes. */
export const DIAGNOSTIC_SOURCE = 'lacuna';
