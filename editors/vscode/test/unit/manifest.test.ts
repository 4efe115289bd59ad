/** package.json's contributions agree with the code: settings and defaults, commands, trust. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Commands } from '../../src/extension';
import { DEFAULT_SETTINGS, LEVELS } from '../../src/settings';

// The extension module imports the language client; this test only needs the command ids.
vi.mock('vscode-languageclient/node', () => ({ LanguageClient: class {} }));

interface Property {
  type: string;
  default: unknown;
  enum?: string[];
  scope?: string;
  markdownDescription?: string;
  description?: string;
}

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
const properties: Record<string, Property> = manifest.contributes.configuration.properties;

function flatten(value: unknown, prefix: string, out: Record<string, unknown>): Record<string, unknown> {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = value;
  }
  return out;
}

describe('package.json', () => {
  it('contributes one setting per server setting, with the same default', () => {
    const flat = flatten(DEFAULT_SETTINGS, '', {});
    for (const [key, value] of Object.entries(flat)) {
      const property = properties[`lacuna.${key}`];
      expect(property, `lacuna.${key}`).toBeDefined();
      // `python: null` is an empty string in the settings UI.
      expect(property.default, `lacuna.${key}`).toEqual(value ?? '');
    }
    const ours = Object.keys(properties).filter((k) => !['lacuna.server.path', 'lacuna.trace.server'].includes(k));
    expect(ours.sort()).toEqual(Object.keys(flat).map((k) => `lacuna.${k}`).sort());
    for (const key of ['lacuna.diagnostics.uncovered', 'lacuna.diagnostics.mcdc', 'lacuna.diagnostics.assertions']) {
      expect(properties[key].enum).toEqual(LEVELS);
    }
    for (const [key, property] of Object.entries(properties)) {
      expect(property.markdownDescription ?? property.description, key).toBeTruthy();
    }
  });

  it('contributes the server path and the trace setting the language client reads', () => {
    expect(properties['lacuna.server.path']).toMatchObject({ type: 'string', default: '' });
    expect(properties['lacuna.trace.server']).toMatchObject({ enum: ['off', 'messages', 'verbose'], default: 'off' });
  });

  it('contributes exactly the commands the extension registers', () => {
    const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    expect(contributed).toEqual(Object.values(Commands).sort());
  });

  it('supports untrusted workspaces in limited mode, ignoring their server and interpreter settings', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    expect(untrusted.supported).toBe('limited');
    expect(untrusted.description).toBeTruthy();
    expect(untrusted.restrictedConfigurations).toEqual(expect.arrayContaining(['lacuna.server.path', 'lacuna.python']));
  });

  it('activates on Python files and on projects with a pyproject.toml', () => {
    expect(manifest.activationEvents).toEqual(
      expect.arrayContaining(['onLanguage:python', 'workspaceContains:**/pyproject.toml']),
    );
    expect(manifest.main).toBe('./dist/extension.js');
  });

  it('can be packaged without questions', () => {
    expect(manifest.publisher).toBeTruthy();
    expect(manifest.repository.url).toMatch(/^https:\/\//);
    expect(manifest.engines.vscode).toBe('^1.82.0');
    expect(manifest.dependencies['vscode-languageclient']).toMatch(/^\^9\./);
    // @types/vscode must not be newer than the engine (vsce refuses that).
    expect(manifest.devDependencies['@types/vscode']).toBe('~1.82.0');
    for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md', '.vscodeignore']) {
      expect(fs.existsSync(path.join(__dirname, '../..', file)), file).toBe(true);
    }
  });
});

describe('one version', () => {
  const root = path.join(__dirname, '../../../..');
  // `[workspace.package] version` of the Rust workspace: the `lacuna` binary's `--version`, and
  // the wheel's version (pyproject.toml takes it from there).
  const cargo = fs.readFileSync(path.join(root, 'Cargo.toml'), 'utf8');
  const workspaceVersion = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(cargo)?.[1];

  it('is the workspace version, which the binary reports', () => {
    expect(workspaceVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(manifest.version).toBe(workspaceVersion);
    expect(fs.readFileSync(path.join(root, 'pyproject.toml'), 'utf8')).toMatch(/dynamic = \["version"\]/);
  });

  it('is the newest release of both changelogs (only an Unreleased section above it)', () => {
    for (const changelog of [path.join(root, 'CHANGELOG.md'), path.join(__dirname, '../../CHANGELOG.md')]) {
      const first = /^## (?!Unreleased)(\S+)/m.exec(fs.readFileSync(changelog, 'utf8'))?.[1];
      expect(first, changelog).toBe(workspaceVersion);
    }
  });
});
