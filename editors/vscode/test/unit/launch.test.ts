import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  NOT_FOUND_MESSAGE,
  type ServerLookup,
  bundledServer,
  findOnPath,
  initializationOptions,
  isExecutableFile,
  repairBundledServer,
  resolveServer,
  serverArgs,
} from '../../src/launch';
import { DEFAULT_SETTINGS } from '../../src/settings';

/** A lookup over a fake file system: `files` are the executables that exist. */
function lookup(files: string[], overrides: Partial<ServerLookup> = {}): ServerLookup {
  return {
    configured: undefined,
    workspaceFolder: '/work/project',
    extensionPath: '/ext',
    env: { PATH: '/usr/local/bin:/usr/bin' },
    platform: 'linux',
    home: '/home/me',
    isExecutable: (file) => files.includes(file),
    ...overrides,
  };
}

describe('server path resolution', () => {
  it('takes lacuna.server.path first', () => {
    const r = resolveServer(
      lookup(['/opt/lacuna/bin/lacuna', '/usr/bin/lacuna', '/ext/server/lacuna'], {
        configured: '/opt/lacuna/bin/lacuna',
      }),
    );
    expect(r).toEqual({ ok: true, path: '/opt/lacuna/bin/lacuna', source: 'setting' });
  });

  it('expands ~ and resolves a relative setting from the workspace folder', () => {
    expect(resolveServer(lookup(['/home/me/bin/lacuna'], { configured: '~/bin/lacuna' }))).toEqual({
      ok: true,
      path: '/home/me/bin/lacuna',
      source: 'setting',
    });
    expect(
      resolveServer(lookup(['/work/project/target/debug/lacuna'], { configured: 'target/debug/lacuna' })),
    ).toEqual({ ok: true, path: '/work/project/target/debug/lacuna', source: 'setting' });
  });

  it('is an error, not a fallback, when the setting names no executable', () => {
    const r = resolveServer(lookup(['/usr/bin/lacuna'], { configured: 'nowhere/lacuna' }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe('invalid-setting');
    expect(r.message).toContain('`lacuna.server.path` is "nowhere/lacuna" (/work/project/nowhere/lacuna)');
    expect(r.message).toContain('clear it');
  });

  it('then takes the server bundled in the extension, before PATH', () => {
    const r = resolveServer(lookup(['/usr/bin/lacuna', '/usr/local/bin/lacuna', '/ext/server/lacuna']));
    expect(r).toEqual({ ok: true, path: '/ext/server/lacuna', source: 'bundled' });
    expect(bundledServer('/ext', 'linux')).toBe('/ext/server/lacuna');
  });

  it('without a bundled server, looks on PATH, in PATH order', () => {
    const r = resolveServer(lookup(['/usr/bin/lacuna', '/usr/local/bin/lacuna']));
    expect(r).toEqual({ ok: true, path: '/usr/local/bin/lacuna', source: 'path' });
  });

  it('treats a blank setting as unset', () => {
    const r = resolveServer(lookup(['/usr/bin/lacuna'], { configured: '   ' }));
    expect(r).toEqual({ ok: true, path: '/usr/bin/lacuna', source: 'path' });
  });


  it('says what to do when there is none', () => {
    const r = resolveServer(lookup([], { env: {} }));
    expect(r).toEqual({ ok: false, reason: 'not-found', message: NOT_FOUND_MESSAGE });
    expect(NOT_FOUND_MESSAGE).toContain('lacuna.server.path');
    expect(NOT_FOUND_MESSAGE).toContain('PATH');
    expect(NOT_FOUND_MESSAGE).toContain('cargo install --path server');
    expect(NOT_FOUND_MESSAGE).toContain('pip install lacuna');
  });

  it('uses Path and PATHEXT on Windows', () => {
    const files = ['C:\\tools\\lacuna.exe', 'C:\\ext\\server\\lacuna.exe'];
    const win = lookup(files, {
      platform: 'win32',
      env: { Path: 'C:\\Windows;"C:\\tools"', PATHEXT: '.COM;.EXE' },
      extensionPath: 'C:\\ext',
      workspaceFolder: 'C:\\project',
    });
    expect(resolveServer(win)).toEqual({ ok: true, path: 'C:\\ext\\server\\lacuna.exe', source: 'bundled' });
    expect(resolveServer({ ...win, isExecutable: (f) => f === files[0] })).toEqual({
      ok: true,
      path: 'C:\\tools\\lacuna.exe',
      source: 'path',
    });
  });
});

describe('on the real file system', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('only counts executable regular files', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-path-'));
    dirs.push(dir);
    const exe = path.join(dir, 'lacuna');
    fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
    const plain = path.join(dir, 'plain');
    fs.writeFileSync(plain, '', { mode: 0o644 });
    expect(isExecutableFile(exe, 'linux')).toBe(true);
    expect(isExecutableFile(plain, 'linux')).toBe(false);
    expect(isExecutableFile(dir, 'linux')).toBe(false);
    expect(isExecutableFile(path.join(dir, 'missing'), 'linux')).toBe(false);
    expect(findOnPath('lacuna', { PATH: `/nonexistent${path.delimiter}${dir}` }, 'linux', (f) => isExecutableFile(f))).toBe(exe);
    expect(findOnPath('plain', { PATH: dir }, 'linux', (f) => isExecutableFile(f))).toBeUndefined();
  });
});

describe('the bundled server', () => {
  it('gets its execute bit back when the package lost it', () => {
    const ext = fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-ext-'));
    try {
      expect(repairBundledServer(ext, 'linux')).toBe(false); // none bundled
      const server = bundledServer(ext, 'linux');
      fs.mkdirSync(path.dirname(server));
      fs.writeFileSync(server, '#!/bin/sh\n', { mode: 0o644 });
      expect(isExecutableFile(server, 'linux')).toBe(false);
      expect(repairBundledServer(ext, 'linux')).toBe(true);
      expect(isExecutableFile(server, 'linux')).toBe(true);
      expect(repairBundledServer(ext, 'linux')).toBe(false);
    } finally {
      fs.rmSync(ext, { recursive: true, force: true });
    }
  });
});

describe('launch', () => {
  it('runs `lacuna lsp`, adding --static-only when the workspace is not trusted', () => {
    expect(serverArgs(true)).toEqual(['lsp']);
    expect(serverArgs(false)).toEqual(['lsp', '--static-only']);
  });

  it('puts trust and settings in initializationOptions', () => {
    expect(initializationOptions(true, DEFAULT_SETTINGS)).toEqual({ trusted: true, settings: DEFAULT_SETTINGS });
    expect(initializationOptions(false, DEFAULT_SETTINGS)).toEqual({ trusted: false, settings: DEFAULT_SETTINGS });
  });
});
