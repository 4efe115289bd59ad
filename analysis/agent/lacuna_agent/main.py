"""The agent process: takes over the file descriptors the Rust side gave it for the protocol,
points the standard streams elsewhere so user code cannot write into the protocol, says hello,
and answers requests (JSON lines) until told to stop or its input closes."""

import hashlib
import io
import json
import os
import platform
import sys
import traceback

from . import PROTOCOL


def environment():
    """What identifies the packages importable here: the interpreter and every `sys.path` entry
    but the agent's with its modification time (installing, upgrading or removing a distribution adds or
    removes entries of its directory, which changes that time). A digest, in hex."""
    parts = [sys.executable, sys.version]
    # The agent's own directory (unpacked afresh by each run) is not the environment.
    own = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for entry in sys.path:
        if os.path.abspath(entry or ".") == own:
            continue
        try:
            stamp = os.stat(entry or ".").st_mtime_ns
        except OSError:
            stamp = None
        parts.append("%s\0%s" % (entry, stamp))
    return hashlib.sha256("\n".join(parts).encode("utf-8", "replace")).hexdigest()[:16]


def encode(message):
    """One protocol line: JSON in UTF-8. A string holding a lone surrogate (`"\\udca9"`, which
    Python's strings may hold and no UTF-8 text can) has it replaced by `?`: escaped, as
    `json.dumps` would, it is JSON no strict reader accepts, and the message would be lost."""
    text = json.dumps(message, default=str, ensure_ascii=False)
    return text.encode("utf-8", "replace") + b"\n"


def main():
    from .sandbox import dup_high

    proto_in = os.fdopen(dup_high(0), "rb")
    proto_out = os.fdopen(dup_high(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdin = io.StringIO()
    sys.stdout = io.StringIO()

    from .execute import Runtime
    from .sandbox import Guard, Sandbox

    sandbox = Sandbox()
    runtime = Runtime(sandbox, Guard(sandbox))

    def send(message):
        proto_out.write(encode(message))
        proto_out.flush()

    send({"type": "hello", "protocol": PROTOCOL, "python": platform.python_version(),
          "implementation": platform.python_implementation().lower(), "pid": os.getpid(),
          "environment": environment()})
    while True:
        line = proto_in.readline()
        if not line:
            return
        try:
            request = json.loads(line)
        except ValueError as e:
            send({"id": None, "status": "error", "error": "malformed request: %s" % e})
            continue
        op = request.get("op")
        try:
            if op == "configure":
                response = runtime.configure(request)
            elif op == "execute":
                response = runtime.execute(request)
            elif op == "describe":
                response = runtime.describe(request)
            elif op == "guidance":
                response = runtime.guidance(request)
            elif op == "suite":
                from .suite import run_suite
                response = run_suite(runtime, request,
                                     lambda m, request=request: send(dict(m, partial=request.get("id"))))
            elif op == "shutdown":
                send({"id": request.get("id"), "ok": True})
                return
            else:
                response = {"status": "error", "error": "unknown op %r" % (op,)}
        except BaseException as e:  # the loop survives whatever a request does
            response = {"status": "error", "error": "%s: %s" % (type(e).__name__, e),
                        "traceback": traceback.format_exc()[-2000:]}
        response["id"] = request.get("id")
        send(response)
