"""Soak test of `lacuna lsp` (documented in docs/benchmarks.md, not run in CI): the server is
driven for a long time with random edits, saves, hovers and code actions — resolved, and
sometimes applied to the guidance module — on copies of `examples/` and of a larger project
(packages of the standard library copied as a project), in a trusted workspace so that every
save runs generation. Every ten seconds it samples the resident memory of the server and its
workers; at the end it reports the peak, the peak of every ten minutes and the growth after the
first ten (MB per hour, least squares), the first and last samples, panics on stderr, requests that
failed, and publications of a version older than the one sent at least `--settle` seconds
earlier (a result that no longer belongs to the current text).

    python3 scripts/soak_lsp.py [--lacuna target/release/lacuna] [--minutes 60] [--seed 1]

Everything runs in a temporary directory with `HOME` inside it.
"""

import argparse, json, os, queue, random, shutil, subprocess, sys, sysconfig, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lsp import Client  # noqa: E402

LARGER = ["json", "email", "textwrap.py", "shlex.py", "fractions.py", "ipaddress.py", "csv.py"]
SNIPPETS = ["\n", "    # edited\n", "x = 1\n", "if x:\n    pass\n", "(", "'", "def _soak(a):\n    return a or 1\n"]


def tree_rss(pid):
    """Resident memory in MB of `pid` and every process below it, and the processes' names
    with theirs."""
    total, todo, each = 0, [pid], []
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("Name:"):
                        name = line.split()[1]
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        each.append((name, int(line.split()[1]) // 1024))
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return total / 1024, each


def copy_projects(tmp):
    examples = os.path.join(tmp, "examples")
    shutil.copytree("examples", examples, ignore=shutil.ignore_patterns(".lacuna", "__pycache__", ".pytest_cache"))
    larger = os.path.join(tmp, "stdlib")
    os.makedirs(larger)
    lib = sysconfig.get_paths()["stdlib"]
    for name in LARGER:
        src = os.path.join(lib, name)
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(larger, name), ignore=shutil.ignore_patterns("__pycache__", "tests"))
        else:
            shutil.copy(src, larger)
    with open(os.path.join(larger, "pyproject.toml"), "w") as f:
        f.write('[project]\nname = "soak"\nversion = "0"\n')
    return [examples, larger]


class Session:
    def __init__(self, lacuna, root, env, rng, settle):
        self.c = Client([lacuna, "lsp"], env)
        self.root, self.rng, self.settle = root, rng, settle
        self.versions = {}  # uri -> [(version, time sent)]
        self.texts = {}
        self.failed = []
        self.stale = []
        self.published = 0
        uri = "file://" + root
        self.c.request("initialize", {"processId": None, "rootUri": uri,
                                      "workspaceFolders": [{"uri": uri, "name": "p"}],
                                      "initializationOptions": {"trusted": True},
                                      "capabilities": {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}})
        self.c.notify("initialized", {})
        self.files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                      if f.endswith(".py") and ".lacuna" not in d]
        self.diagnostics = {}

    def handle(self, t, m):
        """One message from the server: a publication's version is checked against the
        versions sent."""
        if m.get("method") == "textDocument/publishDiagnostics":
            self.published += 1
            p = m["params"]
            self.diagnostics[p["uri"]] = p["diagnostics"]
            v = p.get("version")
            sent = self.versions.get(p["uri"], [])
            newer = [s for s in sent if v is not None and s[0] > v and t - s[1] > self.settle]
            if newer:
                self.stale.append((p["uri"], v, newer[-1][0]))
        elif "error" in m:
            self.failed.append(m)

    def drain(self):
        """Handles what the server sent so far."""
        while not self.c.q.empty():
            self.handle(*self.c.q.get_nowait())

    def request(self, method, params):
        self.c.id += 1
        i = self.c.id
        self.c.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        end = time.time() + 120
        while time.time() < end:
            try:
                t, m = self.c.q.get(timeout=1)
            except queue.Empty:
                continue
            if m.get("id") == i and "method" not in m:
                if "error" in m:
                    self.failed.append(m)
                return m.get("result")
            self.handle(t, m)
        self.failed.append({"timeout": method})
        return None

    def open(self, path):
        uri = "file://" + path
        if uri in self.texts:
            return uri
        text = open(path, encoding="utf-8", errors="replace").read()
        self.texts[uri] = text
        self.versions[uri] = [(1, time.perf_counter())]
        self.c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        return uri

    def step(self):
        rng = self.rng
        path = rng.choice(self.files)
        uri = self.open(path)
        text = self.texts[uri]
        lines = text.split("\n")
        action = rng.random()
        kind = ["edit", "save", "hover", "code action"][(action >= 0.55) + (action >= 0.7) + (action >= 0.85)]
        self.act(rng, path, uri, text, lines, action)
        return kind, os.path.relpath(path, self.root)

    def act(self, rng, path, uri, text, lines, action):
        if action < 0.55:
            line = rng.randrange(len(lines) + 1)
            snippet = rng.choice(SNIPPETS)
            version = self.versions[uri][-1][0] + 1
            lines.insert(line, snippet.rstrip("\n"))
            self.texts[uri] = "\n".join(lines)
            self.versions[uri].append((version, time.perf_counter()))
            self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                                                                         "text": snippet if snippet.endswith("\n") else snippet + "\n"}]})
        elif action < 0.7:
            # Save: the disk gets the text, or the original back (so the projects stay bounded).
            if rng.random() < 0.5:
                original = open(path + ".orig").read() if os.path.exists(path + ".orig") else None
                if original is None:
                    shutil.copy(path, path + ".orig")
                    original = open(path).read()
                version = self.versions[uri][-1][0] + 1
                self.texts[uri] = original
                self.versions[uri].append((version, time.perf_counter()))
                self.c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": original}]})
            with open(path, "w") as f:
                f.write(self.texts[uri])
            self.c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        elif action < 0.85:
            self.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                "position": {"line": rng.randrange(len(lines)), "character": rng.randrange(40)}})
        else:
            ds = self.diagnostics.get(uri) or []
            if not ds:
                return
            d = rng.choice(ds)
            actions = self.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                               "context": {"diagnostics": [d]}}) or []
            if actions:
                resolved = self.request("codeAction/resolve", rng.choice(actions))
                if resolved and rng.random() < 0.3:
                    self.apply(resolved.get("edit") or {})

    def apply(self, edit):
        """Applies a workspace edit's text edits to files on disk (the guidance module), then
        tells the server, as an editor's file watcher does."""
        changed = []
        for change in edit.get("documentChanges", []):
            if change.get("kind") == "create":
                path = change["uri"][len("file://"):]
                os.makedirs(os.path.dirname(path), exist_ok=True)
                if not os.path.exists(path):
                    open(path, "w").close()
                continue
            if "textDocument" not in change:
                continue
            path = change["textDocument"]["uri"][len("file://"):]
            text = open(path).read() if os.path.exists(path) else ""
            lines = text.split("\n")
            offsets = [0]
            for line in lines:
                offsets.append(offsets[-1] + len(line) + 1)

            def at(p):
                return min(offsets[min(p["line"], len(lines))] + p["character"], len(text))
            for e in sorted(change["edits"], key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]), reverse=True):
                text = text[:at(e["range"]["start"])] + e["newText"] + text[at(e["range"]["end"]):]
            with open(path, "w") as f:
                f.write(text)
            changed.append(path)
        if changed:
            self.c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": "file://" + p, "type": 2} for p in changed]})


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--lacuna", default="target/release/lacuna")
    a.add_argument("--minutes", type=float, default=60)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("--settle", type=float, default=1.0)
    args = a.parse_args()
    tmp = tempfile.mkdtemp(prefix="lacuna-soak-")
    env = dict(os.environ, HOME=tmp, XDG_CACHE_HOME=os.path.join(tmp, ".cache"))
    lacuna = os.path.abspath(args.lacuna)
    rng = random.Random(args.seed)
    sessions = [Session(lacuna, root, env, rng, args.settle) for root in copy_projects(tmp)]
    start = time.time()
    samples, steps = [], 0
    next_sample = start
    while time.time() - start < args.minutes * 60:
        s = rng.choice(sessions)
        before = tree_rss(s.c.p.pid)[0]
        what = s.step()
        s.drain()
        if os.environ.get("SOAK_VERBOSE"):
            print("step", what, round(before), "->", round(tree_rss(s.c.p.pid)[0]), file=sys.stderr)
        steps += 1
        time.sleep(rng.uniform(0.05, 0.5))
        if time.time() >= next_sample:
            trees = [tree_rss(x.c.p.pid) for x in sessions]
            samples.append((round(time.time() - start), [round(t[0]) for t in trees]))
            if os.environ.get("SOAK_VERBOSE"):
                print(samples[-1], [t[1] for t in trees], file=sys.stderr)
            next_sample += 10
            for x in sessions:
                if x.c.p.poll() is not None:
                    print(json.dumps({"died": x.root, "code": x.c.p.returncode}))
                    return 1
    for s in sessions:
        s.drain()
        s.request("shutdown", None)
        s.c.notify("exit", None)
        try:
            s.c.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            s.c.p.kill()
    report = {
        "minutes": args.minutes,
        "steps": steps,
        "projects": [s.root for s in sessions],
        "published": [s.published for s in sessions],
        "peak_mb": [max(x[1][i] for x in samples) for i in range(len(sessions))],
        "first_samples": samples[:3],
        "last_samples": samples[-3:],
        "window_peaks_mb": window_peaks(samples, len(sessions)),
        "growth_mb_per_hour": [growth(samples, i) for i in range(len(sessions))],
        "failed_requests": sum(len(s.failed) for s in sessions),
        "failures": [f for s in sessions for f in s.failed][:5],
        "stale_publications": [x for s in sessions for x in s.stale][:10],
        "exit_codes": [s.c.p.returncode for s in sessions],
    }
    print(json.dumps(report, indent=1))
    return 0


def window_peaks(samples, sessions, minutes=10):
    """Per window of `minutes` (from the start): the peak resident memory of each session, so
    that memory that keeps growing shows as peaks that keep rising."""
    peaks = {}
    for at, mbs in samples:
        w = at // (minutes * 60)
        peaks[w] = [max(a, b) for a, b in zip(peaks.get(w, [0] * sessions), mbs)]
    return [[w * minutes, peaks[w]] for w in sorted(peaks)]


def growth(samples, i, warmup_s=600):
    """The least-squares slope of session `i`'s resident memory in MB per hour, after the first
    `warmup_s` seconds (start-up, first explorations); None with fewer than 3 samples."""
    points = [(at, mbs[i]) for at, mbs in samples if at >= warmup_s]
    if len(points) < 3:
        return None
    n = len(points)
    mx = sum(t for t, _ in points) / n
    my = sum(m for _, m in points) / n
    var = sum((t - mx) ** 2 for t, _ in points)
    if var == 0:
        return None
    slope = sum((t - mx) * (m - my) for t, m in points) / var
    return round(slope * 3600, 1)


if __name__ == "__main__":
    sys.exit(main())
