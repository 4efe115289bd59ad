/**
 * The guidance module (`tests/lacuna_guidance.py` by default): where it is — `[tool.lacuna]
 * guidance` in the project's `pyproject.toml` wins over the `lacuna.guidance` setting, as in the
 * server — and what a new one starts with (the same header the server's code actions write).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SETTINGS } from './settings';

/** Identical to the server's `guidance::HEADER`, so a module created here looks the same. */
export const GUIDANCE_HEADER = `"""Guidance for Lacuna's test generator: mocks and factories.

Plain Python that belongs to this project. A function marked \`@mock("module.function")\` declares
a call whose return value generated tests control: the generator chooses it, and the emitted
pytest tests patch the real function. A function marked \`@factory\` builds an object through its
public methods; the generator calls it with the values it solves for.
"""


def mock(target):
    """Marks the declaration of a mocked call."""

    def mark(function):
        function.__lacuna_mock__ = target
        return function

    return mark


def factory(function):
    """Marks a factory: the generator builds the return type through it."""
    function.__lacuna_factory__ = True
    return function
`;

/** The directory of the nearest `pyproject.toml` at or above `start` (else `start`), as the server finds it. */
export function projectRoot(start: string): string {
  let dir = path.resolve(start);
  for (;;) {
    if (isFile(path.join(dir, 'pyproject.toml'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start);
    dir = parent;
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function tomlString(value: string): string | undefined {
  const v = value.trim();
  if (v.startsWith("'")) {
    const end = v.indexOf("'", 1);
    return end > 0 ? v.slice(1, end) : undefined;
  }
  if (v.startsWith('"')) {
    const match = /^"((?:[^"\\]|\\.)*)"/.exec(v);
    if (!match) return undefined;
    try {
      return JSON.parse(`"${match[1]}"`) as string;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * `guidance` of `[tool.lacuna]` in a `pyproject.toml` text (the `[tool.lacuna]` table form and the
 * `lacuna.guidance` / `tool.lacuna.guidance` dotted forms); `undefined` when not set.
 */
export function guidanceFromPyproject(text: string): string | undefined {
  let table = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\]]+?)\s*\]\s*(#.*)?$/.exec(line);
    if (header && !line.startsWith('[[')) {
      table = header[1].replace(/\s*\.\s*/g, '.').replace(/"/g, '');
      continue;
    }
    if (line.startsWith('[[')) {
      table = '\u0000';
      continue;
    }
    const kv = /^([A-Za-z0-9_.\-"\s]+?)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const key = [table, kv[1].replace(/\s*\.\s*/g, '.').replace(/"/g, '')]
      .filter((s) => s !== '')
      .join('.');
    if (key === 'tool.lacuna.guidance') return tomlString(kv[2]);
  }
  return undefined;
}

/** The guidance module for a workspace folder: pyproject's key, else the setting, else the default. */
export function guidancePath(folder: string, setting: string | undefined): string {
  const root = projectRoot(folder);
  let fromProject: string | undefined;
  try {
    fromProject = guidanceFromPyproject(fs.readFileSync(path.join(root, 'pyproject.toml'), 'utf8'));
  } catch {
    fromProject = undefined;
  }
  const relative = fromProject ?? (setting?.trim() || DEFAULT_SETTINGS.guidance);
  return path.resolve(root, relative);
}

/** Creates the module with the header when it does not exist; `true` when it was created. */
export function ensureGuidance(file: string): boolean {
  if (fs.existsSync(file)) return false;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, GUIDANCE_HEADER, { flag: 'wx' });
  return true;
}
