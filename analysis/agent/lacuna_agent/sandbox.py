"""The sandbox: while user code runs, an audit hook refuses side effects that could hurt the
machine, the project, or later executions — writing, deleting, renaming or chmod-ing files outside
the scratch directory, sockets, new processes, signals to other processes, interpreter-wide
settings — unless the project's configuration allows them. (`sys.settrace` is not refused:
CPython itself calls it to stop tracing when an exception escapes a trace function, and the
tracer re-arms itself for every execution anyway.) A refused operation raises
`PermissionError` in user code (a realistic failure it may handle) and is recorded.

Every attempt at a side effect a test must not repeat outside the generator is also recorded in
`effects`, whether it was refused or allowed, and whether it then succeeded or failed: deleting
or renaming any file (even in the scratch directory, even one that does not exist), writing
outside the scratch directory, sockets, new processes, signals. A run with such an attempt is
never written as a plain test.

Audit hooks cannot be removed, so the hook stays installed and is switched on and off.
"""

import os
import signal
import socket
import sys

from . import recorder

_AF_UNIX = getattr(socket, "AF_UNIX", None)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC

# Attempts recorded per execution: a run that loops over deletions reports the first few.
MAX_EFFECTS = 20
MAX_DETAIL = 200

# Audit events that destroy or move data wherever they point.
_DESTRUCTIVE = frozenset(("os.remove", "os.rmdir", "shutil.rmtree", "os.rename", "shutil.move",
                          "os.truncate"))


# Every audit event `_check` looks at (and those beginning with "socket."): any other is let
# through at once, since the hook runs on every event of the process (each import, `compile`,
# `exec`, attribute lookup on code objects…).
_CHECKED = _DESTRUCTIVE | frozenset((
    "open", "os.mkdir", "os.chmod", "os.chown", "os.utime", "os.chflags", "os.lchflags",
    "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod",
    "os.link", "os.symlink", "shutil.copyfile", "shutil.copytree",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "pty.spawn", "os.startfile",
    "os.kill", "os.killpg", "signal.pthread_kill",
    "os.putenv", "os.unsetenv", "os.chroot", "os.setuid", "os.setgid", "resource.setrlimit",
    "os.sched_setaffinity",
    "ctypes.dlopen", "ctypes.call_function", "ctypes.addressof", "ctypes.string_at",
    "ctypes.wstring_at", "ctypes.cdata"))


def _at(path, dir_fd):
    """The path an `*at` call reaches: a relative `path` under the directory `dir_fd` is open
    on (`shutil.rmtree` removes entries by descriptor), else `path` itself."""
    if dir_fd is None or dir_fd < 0 or isinstance(path, int):
        return path
    try:
        name = os.fsdecode(path)
        if os.path.isabs(name):
            return path
        return os.path.join(os.readlink("/proc/self/fd/%d" % dir_fd), name)
    except (OSError, TypeError, ValueError):
        return path


class Blocked(PermissionError):
    pass


class Sandbox:
    def __init__(self):
        self.active = False
        self.scratch = None
        self.allow_write = []
        self.allow_network = False
        self.allow_subprocess = False
        # While project modules are imported, loading C libraries is allowed (many modules do it
        # at import time); calling into them is refused during executions only.
        self.importing = False
        # While the project's suite runs under pytest: pytest and the tests may change the
        # environment and the working directory (the worker is discarded after the run).
        self.suite = False
        self._inside = False
        # Side effects attempted during the execution under way: {event, detail, refused}.
        self.effects = []
        sys.addaudithook(self._audit_hook())

    def configure(self, scratch, allow_write=(), allow_network=False, allow_subprocess=False):
        self.scratch = os.path.realpath(scratch)
        self.allow_write = [os.path.realpath(p) for p in allow_write]
        self.allow_network = bool(allow_network)
        self.allow_subprocess = bool(allow_subprocess)

    def _writable(self, path, scratch_only=False):
        if isinstance(path, int):
            return True  # an already open descriptor
        try:
            path = os.fsdecode(path)
        except TypeError:
            return False
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = self.scratch or "."
        real = os.path.realpath(os.path.join(cwd, path))
        for root in [self.scratch] + ([] if scratch_only else self.allow_write):
            if root and (real == root or real.startswith(root.rstrip(os.sep) + os.sep)):
                return True
        return real == os.devnull

    def _effect(self, event, detail, refused):
        if len(self.effects) < MAX_EFFECTS:
            try:
                detail = os.fsdecode(detail) if isinstance(detail, (str, bytes)) else str(detail)
            except Exception:
                detail = "?"
            self.effects.append({"event": event, "detail": detail[:MAX_DETAIL],
                                 "refused": refused})

    def _refuse(self, event, detail):
        self._effect(event, detail, True)
        rec = recorder.current()
        if rec is not None:
            rec.blocked(event, detail, depth=3)
        raise Blocked("blocked by Lacuna's sandbox: %s %s" % (event, detail))

    def _audit_hook(self):
        # Runs at every audit event of the process, and the tracer's own `sys._getframe`,
        # `id()` and `frame.f_code` raise some at every traced event: the events this sandbox
        # ignores leave after one set lookup and one comparison.
        checked = _CHECKED
        hook = self._hook

        def audit(event, args):
            if event in checked or event[:7] == "socket.":
                hook(event, args)

        return audit

    def _hook(self, event, args):
        if not self.active or self._inside:
            return
        self._inside = True
        try:
            self._check(event, args)
        finally:
            self._inside = False

    def _check(self, event, args):
        if event == "open":
            path, mode, flags = args
            writing = (mode is not None and any(c in mode for c in "wax+")) or \
                (mode is None and flags is not None and flags & _WRITE_FLAGS)
            if writing and not self._writable(path):
                self._refuse(event, "%s (write)" % (path,))
            elif writing and not self._writable(path, scratch_only=True):
                self._effect(event, "%s (write)" % (path,), False)
        elif event in _DESTRUCTIVE:
            if event == "os.rename":
                paths = [_at(args[0], args[2]), _at(args[1], args[3])]
            elif event in ("os.remove", "os.rmdir"):
                paths = [_at(args[0], args[1])]
            elif event == "shutil.move":
                paths = args[:2]
            else:
                paths = args[:1]
            for path in paths:
                if not self._writable(path):
                    self._refuse(event, str(path))
            self._effect(event, str(args[0]) if args else "", False)
        elif event in ("os.mkdir", "os.chmod", "os.chown", "os.utime", "os.chflags",
                       "os.lchflags", "os.setxattr", "os.removexattr", "os.mkfifo", "os.mknod"):
            path = args[0] if args else None
            if not self._writable(path):
                self._refuse(event, str(path))
            elif not self._writable(path, scratch_only=True):
                self._effect(event, str(path), False)
        elif event in ("os.link", "os.symlink", "shutil.copyfile", "shutil.copytree"):
            # A link's target can be written through it; a copy's source is only read (a test
            # copying the project's files into its `tmp_path`).
            paths = args[1:2] if event.startswith("shutil.") else args[:2]
            for path in paths:
                if not self._writable(path):
                    self._refuse(event, str(path))
            if not all(self._writable(p, scratch_only=True) for p in paths):
                self._effect(event, str(args[1]) if len(args) > 1 else "", False)
        elif event == "socket.__new__" and len(args) > 1 and args[1] == _AF_UNIX:
            # A unix socket object: the ends of a `socket.socketpair()` (asyncio's and trio's
            # event loops wake themselves through one). It reaches nothing outside the process
            # on its own: `connect`, `bind` and `sendto` are refused below, and the kernel's
            # filter refuses the `socket` system call itself.
            return
        elif event.startswith("socket.") and event not in ("socket.gethostname",):
            detail = " ".join(str(a) for a in args[:2])
            if not self.allow_network:
                self._refuse(event, detail)
            self._effect(event, detail, False)
        elif event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
                       "os.fork", "os.forkpty", "pty.spawn", "os.startfile"):
            detail = str(args[0]) if args else ""
            if not self.allow_subprocess:
                self._refuse(event, detail)
            self._effect(event, detail, False)
        elif event in ("os.kill", "os.killpg", "signal.pthread_kill"):
            self._refuse(event, " ".join(str(a) for a in args))
        elif event in ("os.putenv", "os.unsetenv") and self.suite:
            return
        elif event in ("os.putenv", "os.unsetenv", "os.chroot", "os.setuid", "os.setgid",
                       "resource.setrlimit", "os.sched_setaffinity"):
            self._refuse(event, "")
        elif event in ("ctypes.dlopen", "ctypes.call_function", "ctypes.addressof",
                       "ctypes.string_at", "ctypes.wstring_at", "ctypes.cdata"):
            if not self.importing:
                self._refuse(event, "")


class Guard:
    """Interpreter state restored after every execution, so that one input cannot break the
    next: working directory, environment, `sys.path`, recursion limit, standard streams and
    the descriptors 0, 1 and 2 under them, signal handlers. Guards what has no audit event
    (`os.chdir` is patched to refuse)."""

    def __init__(self, sandbox):
        self._signal = signal
        self._sandbox = sandbox
        self._real_chdir = os.chdir
        self._real_exit = os._exit
        os.chdir = self._chdir
        os._exit = self._exit
        # What descriptors 0, 1 and 2 are open on now (`/dev/null`, `/dev/null`, the worker's
        # standard error), each kept in a copy of its own. User code may close them — a path
        # argument of `0` is a descriptor to `open` and `os.path.exists`, and `with open(0)`
        # closes it — or reopen another file as the lowest free one: an execution would then
        # see what the worker's earlier ones did (`os.path.exists(0)` false after one of them,
        # true on a worker that did not run it). Put back around every execution.
        self._descriptors = {}
        for fd in (0, 1, 2):
            try:
                copy = dup_high(fd)
                self._descriptors[fd] = (copy, _identity(copy))
            except OSError:
                pass

    def _chdir(self, path):
        if self._sandbox.active and not self._sandbox.suite:
            self._sandbox._refuse("os.chdir", str(path))
        return self._real_chdir(path)

    def _exit(self, code):
        if self._sandbox.active:
            # Not refused: the worker dies as the user asked, and is replaced.
            self._real_exit(code)
        self._real_exit(code)

    def _standard_descriptors(self):
        for fd, (copy, identity) in self._descriptors.items():
            try:
                same = _identity(fd) == identity
            except OSError:  # closed
                same = False
            if not same:
                os.dup2(copy, fd)

    def save(self):
        self._standard_descriptors()
        return (os.getcwd(), _environment(), list(sys.path), sys.getrecursionlimit(),
                sys.stdin, sys.stdout, sys.stderr,
                {s: self._signal.getsignal(s) for s in (self._signal.SIGINT, self._signal.SIGTERM)})

    def restore(self, saved):
        cwd, environ, path, limit, stdin, stdout, stderr, handlers = saved
        self._standard_descriptors()
        if os.getcwd() != cwd:
            self._real_chdir(cwd)
        if _environment() != environ:
            os.environ.clear()
            os.environ.update(_decoded(environ))
        sys.path[:] = path
        sys.setrecursionlimit(limit)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        for s, h in handlers.items():
            if self._signal.getsignal(s) is not h and h is not None:
                self._signal.signal(s, h)


def dup_high(fd):
    """A copy of descriptor `fd` numbered far above the ones user code names (`open(3)`, an
    int path argument): the worker's own descriptors — its protocol pipes, the copies of its
    standard ones — are not reachable by such a number, so an input cannot read, close or
    write them, and what a small number refers to is the same in every worker."""
    import fcntl
    import resource

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    floor = 900 if soft == resource.RLIM_INFINITY or soft > 1000 else max(10, soft - 60)
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)


def _identity(fd):
    """What an open descriptor is open on (raises `OSError` for a closed one)."""
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino)


def _environment():
    """The process environment as `os.environ` holds it: its encoded mapping copied in C (a
    copy through `os.environ` decodes every key and value, a third of a small function's run),
    or a decoded copy where the interpreter has no such mapping."""
    data = getattr(os.environ, "_data", None)
    return data.copy() if isinstance(data, dict) else dict(os.environ)


def _decoded(environment):
    """`environment` as `os.environ.update` takes it."""
    data = getattr(os.environ, "_data", None)
    if not isinstance(data, dict):
        return environment
    decode = os.environ.decodevalue
    return {os.environ.decodekey(k): decode(v) for k, v in environment.items()}
