/**
 * How the server is found and started: `lacuna.server.path`, else the binary shipped in the
 * extension (`server/lacuna`, in the package built for this platform, the same version as the
 * extension), else `lacuna` on PATH; the command line;
 * and `initializationOptions`. No `vscode` import: the contract tests launch the real server
 * with these same functions.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { InitializationOptions, Settings } from './protocol';

export type ServerSource = 'setting' | 'path' | 'bundled';

export type ServerResolution =
  | { ok: true; path: string; source: ServerSource }
  | { ok: false; reason: 'invalid-setting' | 'not-found'; message: string };

export interface ServerLookup {
  /** `lacuna.server.path` (empty or unset: look further). */
  configured: string | undefined;
  /** Where a relative `lacuna.server.path` is resolved from (the first workspace folder). */
  workspaceFolder: string | undefined;
  /** The extension's install directory (`server/lacuna` is looked for in it). */
  extensionPath: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  isExecutable: (file: string) => boolean;
}

export const SERVER_NAME = 'lacuna';

/** Where a platform-specific package ships the server, relative to the extension. */
export function bundledServer(extensionPath: string, platform: NodeJS.Platform): string {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const exe = platform === 'win32' ? `${SERVER_NAME}.exe` : SERVER_NAME;
  return p.join(extensionPath, 'server', exe);
}

/**
 * Gives the bundled server its execute bit back if the package lost it on the way (a zip
 * extracted without permissions); `true` when it had to.
 */
export function repairBundledServer(extensionPath: string, platform: NodeJS.Platform = process.platform): boolean {
  if (platform === 'win32') return false;
  const file = bundledServer(extensionPath, platform);
  try {
    if (!fs.statSync(file).isFile() || isExecutableFile(file, platform)) return false;
    fs.chmodSync(file, 0o755);
    return true;
  } catch {
    return false;
  }
}

/** A regular file we may execute (any existing file on Windows, where there is no x bit). */
export function isExecutableFile(file: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function envVar(env: NodeJS.ProcessEnv, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  // Windows variables are case-insensitive (`Path`).
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

/** `name` on PATH, as the shell would find it (with PATHEXT on Windows). */
export function findOnPath(
  name: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
): string | undefined {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const dirs = (envVar(env, 'PATH', platform) ?? '').split(p.delimiter).filter((d) => d !== '');
  const extensions =
    platform === 'win32'
      ? (envVar(env, 'PATHEXT', platform) ?? '.EXE;.CMD;.BAT;.COM')
          .split(';')
          .filter((e) => e !== '')
          .map((e) => e.toLowerCase())
      : [''];
  for (const dir of dirs) {
    for (const ext of extensions) {
      const candidate = p.join(dir.replace(/^"(.*)"$/, '$1'), name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function expand(configured: string, lookup: ServerLookup): string {
  const p = lookup.platform === 'win32' ? path.win32 : path.posix;
  let value = configured;
  if (value === '~' || value.startsWith('~/') || value.startsWith('~\\')) {
    value = p.join(lookup.home, value.slice(1));
  }
  if (!p.isAbsolute(value) && lookup.workspaceFolder !== undefined) {
    value = p.join(lookup.workspaceFolder, value);
  }
  return value;
}

export const NOT_FOUND_MESSAGE =
  'Lacuna cannot find its language server: `lacuna.server.path` is not set, this build of the ' +
  'extension bundles no server, and there is no `lacuna` executable on PATH. Install Lacuna ' +
  '(`pip install lacuna`, or `cargo install --path server` in the Lacuna repository, puts ' +
  '`lacuna` on PATH) or set `lacuna.server.path` to the `lacuna` binary, then run ' +
  '"Lacuna: Restart Server".';

/**
 * Setting → bundled → PATH; a setting that names no executable is an error, not skipped. The
 * bundled server comes before PATH because it is the version the extension was released with.
 */
export function resolveServer(lookup: ServerLookup): ServerResolution {
  const configured = lookup.configured?.trim();
  if (configured) {
    const file = expand(configured, lookup);
    if (lookup.isExecutable(file)) return { ok: true, path: file, source: 'setting' };
    return {
      ok: false,
      reason: 'invalid-setting',
      message:
        `Lacuna: \`lacuna.server.path\` is "${configured}"` +
        (file !== configured ? ` (${file})` : '') +
        ', which is not an executable file. Point it at the `lacuna` binary, or clear it to ' +
        'use `lacuna` from PATH.',
    };
  }
  const bundled = bundledServer(lookup.extensionPath, lookup.platform);
  if (lookup.isExecutable(bundled)) return { ok: true, path: bundled, source: 'bundled' };
  const onPath = findOnPath(SERVER_NAME, lookup.env, lookup.platform, lookup.isExecutable);
  if (onPath !== undefined) return { ok: true, path: onPath, source: 'path' };
  return { ok: false, reason: 'not-found', message: NOT_FOUND_MESSAGE };
}

/** The lookup for this process. */
export function systemLookup(
  configured: string | undefined,
  workspaceFolder: string | undefined,
  extensionPath: string,
): ServerLookup {
  return {
    configured,
    workspaceFolder,
    extensionPath,
    env: process.env,
    platform: process.platform,
    home: os.homedir(),
    isExecutable: (file) => isExecutableFile(file),
  };
}

/**
 * The server's arguments. An untrusted workspace also gets `--static-only`, so that no project
 * code runs even if the options were lost on the way.
 */
export function serverArgs(trusted: boolean): string[] {
  return trusted ? ['lsp'] : ['lsp', '--static-only'];
}

export function initializationOptions(trusted: boolean, settings: Settings): InitializationOptions {
  return { trusted, settings };
}
