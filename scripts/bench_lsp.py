"""Latency of `lacuna lsp` as an editor sees it: static diagnostics after `didChange`, and the
first generated-test diagnostics of the edited function after `didSave`, over repeated edits of
one function in a copy of a project; plus the server's peak resident memory.

    python3 scripts/bench_lsp.py [--lacuna target/release/lacuna] [--project examples]
        [--file shop/pricing.py] [--function discount_rate] [--edits 20]
"""

import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time, queue


class Client:
    def __init__(self, cmd, env):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.q = queue.Queue()
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        self.id = 0

    def _read(self):
        out = self.p.stdout
        while True:
            line = out.readline()
            if not line:
                return
            n = int(line.split(b":")[1])
            out.readline()
            m = json.loads(out.read(n))
            if "method" in m and "id" in m:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            self.q.put((time.perf_counter(), m))

    def send(self, m):
        b = json.dumps(m).encode()
        with self.lock:
            self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
            self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == self.id)

    def wait(self, want, timeout=120):
        end = time.time() + timeout
        while True:
            t, m = self.q.get(timeout=max(0.01, end - time.time()))
            if want(m):
                return t, m


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--lacuna", default="target/release/lacuna")
    a.add_argument("--project", default="examples")
    a.add_argument("--file", default="shop/pricing.py")
    a.add_argument("--function", default="discount_rate")
    a.add_argument("--edits", type=int, default=20)
    args = a.parse_args()
    tmp = tempfile.mkdtemp()
    root = os.path.join(tmp, "project")
    shutil.copytree(args.project, root, ignore=shutil.ignore_patterns(".lacuna", "__pycache__", ".pytest_cache"))
    env = dict(os.environ, HOME=tmp)
    c = Client([os.path.abspath(args.lacuna), "lsp"], env)
    uri = "file://" + os.path.join(root, args.file)
    c.request("initialize", {"processId": None, "rootUri": "file://" + root,
                             "workspaceFolders": [{"uri": "file://" + root, "name": "p"}],
                             "initializationOptions": {"trusted": True}, "capabilities": {}})
    c.notify("initialized", {})
    path = os.path.join(root, args.file)
    text = open(path).read()
    lines = text.split("\n")
    defline = next(i for i, l in enumerate(lines) if l.lstrip().startswith(f"def {args.function}("))
    # The function's first body line: where edits go.
    body = defline + 1
    while lines[body].strip().startswith(('"""', "'''")) or lines[body].strip() == "" or lines[body].rstrip().endswith(":") and lines[body].lstrip().startswith("def"):
        if lines[body].strip().startswith(('"""', "'''")) and not (lines[body].strip().count('"""') == 2 or lines[body].strip().count("'''") == 2):
            body += 1
            while '"""' not in lines[body] and "'''" not in lines[body]:
                body += 1
        body += 1
    indent = lines[body][: len(lines[body]) - len(lines[body].lstrip())]
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    # The first generation of the file (cold).
    t0 = time.perf_counter()
    c.wait(lambda m: m.get("method") == "lacuna/status" and m["params"]["state"] == "generating", timeout=600)
    c.wait(lambda m: m.get("method") == "lacuna/status" and m["params"]["state"] == "idle", timeout=600)
    cold = time.perf_counter() - t0
    static_ms, save_ms = [], []
    version = 1
    for i in range(args.edits):
        version += 1
        new = f"{indent}_lacuna_bench_{i} = {i}\n"
        lines.insert(body, new.rstrip("\n"))
        t = time.perf_counter()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                  "contentChanges": [{"range": {"start": {"line": body, "character": 0}, "end": {"line": body, "character": 0}}, "text": new}]})
        t1, _ = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version)
        static_ms.append((t1 - t) * 1000)
        with open(path, "w") as f:
            f.write("\n".join(lines))
        t = time.perf_counter()
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        # The edited function's results: the first publication after its exploration starts.
        c.wait(lambda m: m.get("method") == "lacuna/status" and m["params"].get("function") == args.function)
        t2, _ = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        save_ms.append((t2 - t) * 1000)
        c.wait(lambda m: m.get("method") == "lacuna/status" and m["params"]["state"] == "idle", timeout=600)
    rss = peak_rss_mb(c.p.pid)
    c.p.kill()
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
    print(json.dumps({
        "project": args.project, "file": args.file, "function": args.function, "edits": args.edits,
        "cold_generation_s": round(cold, 2),
        "static_ms": {"p50": round(statistics.median(static_ms), 1), "p95": round(q(static_ms, 0.95), 1)},
        "save_to_generated_ms": {"p50": round(statistics.median(save_ms)), "p95": round(q(save_ms, 0.95))},
        "peak_rss_mb": round(rss),
    }, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
