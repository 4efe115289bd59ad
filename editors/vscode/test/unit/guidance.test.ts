import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GUIDANCE_HEADER, ensureGuidance, guidanceFromPyproject, guidancePath, projectRoot } from '../../src/guidance';

describe('guidance in pyproject.toml', () => {
  it('reads [tool.lacuna] guidance', () => {
    const text = [
      '[project]',
      'name = "shop"',
      'guidance = "not/this.py"',
      '',
      '[tool.lacuna]',
      'src = ["."]',
      "guidance = 'tests/guide.py'  # a comment",
      '',
      '[tool.lacuna.budget]',
      'guidance = "nor/this.py"',
    ].join('\n');
    expect(guidanceFromPyproject(text)).toBe('tests/guide.py');
  });

  it('reads dotted keys and escapes', () => {
    expect(guidanceFromPyproject('[tool]\nlacuna.guidance = "a\\\\b.py"\n')).toBe('a\\b.py');
    expect(guidanceFromPyproject('tool.lacuna.guidance = "g.py"\n')).toBe('g.py');
    expect(guidanceFromPyproject('[ tool . lacuna ]\nguidance="x.py"\n')).toBe('x.py');
  });

  it('is undefined when the project does not set it', () => {
    expect(guidanceFromPyproject('[tool.lacuna]\nsrc = ["."]\n')).toBeUndefined();
    expect(guidanceFromPyproject('[tool.other]\nguidance = "x.py"\n')).toBeUndefined();
    expect(guidanceFromPyproject('')).toBeUndefined();
  });
});

describe('the guidance module on disk', () => {
  const dirs: string[] = [];
  const temp = () => {
    const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lacuna-guidance-')));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('is found from the nearest pyproject.toml, which wins over the setting', () => {
    const root = temp();
    const folder = path.join(root, 'project', 'src');
    fs.mkdirSync(folder, { recursive: true });
    expect(guidancePath(folder, 'custom/g.py')).toBe(path.join(folder, 'custom/g.py'));
    expect(guidancePath(folder, '')).toBe(path.join(folder, 'tests/lacuna_guidance.py'));
    fs.writeFileSync(path.join(root, 'project', 'pyproject.toml'), '[project]\nname = "p"\n');
    expect(projectRoot(folder)).toBe(path.join(root, 'project'));
    expect(guidancePath(folder, 'custom/g.py')).toBe(path.join(root, 'project', 'custom/g.py'));
    fs.writeFileSync(path.join(root, 'project', 'pyproject.toml'), '[tool.lacuna]\nguidance = "tests/g.py"\n');
    expect(guidancePath(folder, 'custom/g.py')).toBe(path.join(root, 'project', 'tests/g.py'));
  });

  it('is created with the header once, never overwritten', () => {
    const file = path.join(temp(), 'tests', 'lacuna_guidance.py');
    expect(ensureGuidance(file)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(GUIDANCE_HEADER);
    fs.writeFileSync(file, 'mine = 1\n');
    expect(ensureGuidance(file)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('mine = 1\n');
  });

  it('starts like the one the server writes', () => {
    expect(GUIDANCE_HEADER.startsWith('"""Guidance for Lacuna')).toBe(true);
    expect(GUIDANCE_HEADER).toContain('def mock(target):');
    expect(GUIDANCE_HEADER).toContain('def factory(function):');
    // In the Lacuna repository, compare with the server's own header text.
    const server = path.resolve(__dirname, '../../../../server/src/lsp/guidance.rs');
    if (fs.existsSync(server)) {
      const match = /pub const HEADER: &str = r#"([\s\S]*?)"#;/.exec(fs.readFileSync(server, 'utf8'));
      expect(match?.[1]).toBe(GUIDANCE_HEADER);
    }
  });
});
