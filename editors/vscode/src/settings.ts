/**
 * VS Code's flat `lacuna.*` settings → the nested `Settings` object the server reads, for
 * `initializationOptions`, `workspace/configuration` answers and `didChangeConfiguration`.
 * Values of the wrong type or out of range fall back to the default, so the server never rejects
 * the section (it refuses the whole section on a type error).
 */
import { type Level, type Settings, SECTION } from './protocol';

/** What the conversion reads: `vscode.WorkspaceConfiguration` for the `lacuna` section. */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export const LEVELS: readonly Level[] = ['error', 'warning', 'information', 'hint', 'off'];

export const DEFAULT_SETTINGS: Settings = {
  python: null,
  guidance: 'tests/lacuna_guidance.py',
  generateOnSave: true,
  budget: {
    functionTimeMs: 3000,
    functionExecutions: 2000,
    executionTimeoutMs: 1000,
    workers: 0,
  },
  mcdc: { enabled: true, singleCondition: false },
  diagnostics: { uncovered: 'warning', mcdc: 'information', assertions: 'warning' },
};

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

function integer(value: unknown, fallback: number, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  const n = Math.floor(value);
  return n < min ? fallback : n;
}

function level(value: unknown, fallback: Level): Level {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value)
    ? (value as Level)
    : fallback;
}

/** Reads the flat `lacuna.*` keys (`budget.functionTimeMs`, …) into the nested object. */
export function toSettings(config: ConfigReader): Settings {
  const d = DEFAULT_SETTINGS;
  return {
    python: text(config.get('python')) ?? null,
    guidance: text(config.get('guidance')) ?? d.guidance,
    generateOnSave: flag(config.get('generateOnSave'), d.generateOnSave),
    budget: {
      functionTimeMs: integer(config.get('budget.functionTimeMs'), d.budget.functionTimeMs, 1),
      functionExecutions: integer(
        config.get('budget.functionExecutions'),
        d.budget.functionExecutions,
        1,
      ),
      executionTimeoutMs: integer(
        config.get('budget.executionTimeoutMs'),
        d.budget.executionTimeoutMs,
        1,
      ),
      workers: integer(config.get('budget.workers'), d.budget.workers, 0),
    },
    mcdc: {
      enabled: flag(config.get('mcdc.enabled'), d.mcdc.enabled),
      singleCondition: flag(config.get('mcdc.singleCondition'), d.mcdc.singleCondition),
    },
    diagnostics: {
      uncovered: level(config.get('diagnostics.uncovered'), d.diagnostics.uncovered),
      mcdc: level(config.get('diagnostics.mcdc'), d.diagnostics.mcdc),
      assertions: level(config.get('diagnostics.assertions'), d.diagnostics.assertions),
    },
  };
}

/** A `workspace/configuration` item (`ConfigurationItem` in LSP). */
export interface ConfigurationItem {
  scopeUri?: string | null;
  section?: string | null;
}

/**
 * Answers `workspace/configuration`: items for the `lacuna` section get the nested `Settings`
 * (read for the item's scope); anything else gets what `fallback` (VS Code's default answer)
 * says. The result has one entry per item, in order.
 */
export async function answerConfiguration(
  items: readonly ConfigurationItem[],
  readerFor: (scopeUri: string | undefined) => ConfigReader,
  fallback: () => unknown[] | Promise<unknown[]>,
): Promise<unknown[]> {
  const ours = (item: ConfigurationItem) => item.section === SECTION;
  const others = items.some((item) => !ours(item)) ? await fallback() : [];
  return items.map((item, i) =>
    ours(item) ? toSettings(readerFor(item.scopeUri ?? undefined)) : (others[i] ?? null),
  );
}

/** `workspace/didChangeConfiguration` params the server reads. */
export function didChangeConfigurationParams(config: ConfigReader): {
  settings: { lacuna: Settings };
} {
  return { settings: { [SECTION]: toSettings(config) } as { lacuna: Settings } };
}
