// Packages the extension for the platform it runs on, with the server inside (as Ruff's
// extension ships ruff): the `lacuna` binary and its z3 library are taken from the wheel
// (`scripts/build-wheel` at the repository root; LACUNA_WHEEL names another one) into
// `server/lacuna` and `lacuna.libs/` (the binary finds the library through its RPATH,
// `$ORIGIN/../lacuna.libs`), checked to report the extension's version, and packaged with
// `vsce package --target <platform>`. Writes lacuna-<target>-<version>.vsix and checks that it
// holds the server. `--universal`: a package without a server (any platform; it runs
// `lacuna.server.path` or `lacuna` on PATH), as lacuna-<version>.vsix.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const fail = (message) => {
  console.error(`package: ${message}`);
  process.exit(1);
};

if (process.argv.includes('--universal')) {
  for (const dir of ['server', 'lacuna.libs']) fs.rmSync(path.join(here, dir), { recursive: true, force: true });
  execFileSync('npx', ['vsce', 'package', '--no-dependencies'], { cwd: here, stdio: 'inherit' });
  process.exit(0);
}

const targets = { 'linux-x64': 'x86_64', 'linux-arm64': 'aarch64' };
const target = `${process.platform}-${process.arch}`;
if (!(target in targets)) {
  fail(`no wheel is built for ${target} yet: build the server from source and package by hand (README)`);
}

function findWheel() {
  if (process.env.LACUNA_WHEEL) return path.resolve(process.env.LACUNA_WHEEL);
  const dist = path.join(process.env.CARGO_TARGET_DIR ?? path.join(root, 'target'), 'wheel', 'dist');
  const wheels = fs.existsSync(dist)
    ? fs.readdirSync(dist).filter((f) => f.startsWith(`lacuna-${manifest.version}-`) && f.endsWith('.whl'))
    : [];
  if (wheels.length !== 1) {
    fail(`expected one lacuna ${manifest.version} wheel in ${dist}, found ${wheels.length}: run scripts/build-wheel`);
  }
  return path.join(dist, wheels[0]);
}

const wheel = findWheel();
if (!wheel.includes(targets[target])) fail(`${path.basename(wheel)} is not for ${target}`);
for (const dir of ['server', 'lacuna.libs']) fs.rmSync(path.join(here, dir), { recursive: true, force: true });
// Python reads wheels (zip files) on every machine that builds one; Node has no unzip.
execFileSync(
  'python3',
  [
    '-c',
    `import os, sys, zipfile
wheel, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name == "lacuna.scripts/lacuna":
            out = os.path.join(dest, "server", "lacuna")
        elif name.startswith("lacuna.libs/"):
            out = os.path.join(dest, name)
        else:
            continue
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(name) as src, open(out, "wb") as dst:
            dst.write(src.read())
        os.chmod(out, 0o755)`,
    wheel,
    here,
  ],
  { stdio: 'inherit' },
);
const server = path.join(here, 'server', 'lacuna');
if (!fs.existsSync(server)) fail(`${path.basename(wheel)} holds no lacuna.scripts/lacuna`);
const version = execFileSync(server, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } }).trim();
if (version !== `lacuna ${manifest.version}`) fail(`the bundled server says "${version}", the extension is ${manifest.version}`);

const vsix = `lacuna-${target}-${manifest.version}.vsix`;
execFileSync('npx', ['vsce', 'package', '--no-dependencies', '--target', target, '--out', vsix], {
  cwd: here,
  stdio: 'inherit',
});
const listing = execFileSync(
  'python3',
  ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', path.join(here, vsix)],
  { encoding: 'utf8' },
).split('\n');
for (const wanted of ['extension/server/lacuna', 'extension/lacuna.libs/']) {
  if (!listing.some((name) => name.startsWith(wanted))) fail(`${vsix} does not hold ${wanted}`);
}
console.log(`package: ${vsix} bundles the server from ${path.basename(wheel)} (${version})`);
