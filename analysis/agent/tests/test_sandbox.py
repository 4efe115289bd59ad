"""The sandbox's record of attempted side effects: refused ones, and destructive ones it
allowed (a deletion in the scratch directory, even one that failed)."""

import contextlib
import os
import shutil
import subprocess

import pytest

from lacuna_agent.sandbox import Sandbox

# Audit hooks cannot be removed: one sandbox for the whole module, switched on per test.
SANDBOX = Sandbox()


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.chdir(scratch)
    SANDBOX.configure(str(scratch))
    SANDBOX.effects = []
    return SANDBOX


@contextlib.contextmanager
def active(sandbox):
    """Active only around user-code-like statements (pytest itself sets variables between
    phases, which the sandbox refuses)."""
    sandbox.active = True
    try:
        yield
    finally:
        sandbox.active = False


def test_a_failed_deletion_in_scratch_is_recorded(sandbox):
    with pytest.raises(FileNotFoundError), active(sandbox):
        shutil.rmtree("data")
    assert sandbox.effects == [{"event": "shutil.rmtree", "detail": "data", "refused": False}]


def test_a_deletion_in_scratch_is_allowed_and_recorded(sandbox):
    with active(sandbox):
        with open("cache.txt", "w") as f:
            f.write("x")
        os.remove("cache.txt")
    assert not os.path.exists("cache.txt")
    # Writing in the scratch directory is not a side effect worth reporting; deleting is.
    assert sandbox.effects == [{"event": "os.remove", "detail": "cache.txt", "refused": False}]


def test_side_effects_outside_scratch_are_refused_and_recorded(sandbox, tmp_path):
    canary = tmp_path / "canary.txt"
    canary.write_text("alive")
    with pytest.raises(PermissionError), active(sandbox):
        os.remove(canary)
    with pytest.raises(PermissionError), active(sandbox):
        open(canary, "w")
    with pytest.raises(PermissionError), active(sandbox):
        subprocess.run(["true"])
    assert canary.read_text() == "alive"
    assert [(e["event"], e["refused"]) for e in sandbox.effects] == [
        ("os.remove", True), ("open", True), ("subprocess.Popen", True)]
    assert sandbox.effects[0]["detail"] == str(canary)


def test_allowed_writes_outside_scratch_are_recorded(sandbox, tmp_path):
    allowed = tmp_path / "out"
    allowed.mkdir()
    sandbox.configure(os.getcwd(), allow_write=[str(allowed)])
    with active(sandbox), open(allowed / "report.txt", "w") as f:
        f.write("x")
    assert [(e["event"], e["refused"]) for e in sandbox.effects] == [("open", False)]


def test_an_event_loop_wakes_itself_but_no_socket_reaches_out(sandbox, tmp_path):
    """asyncio's (and trio's) event loop wakes itself through `socket.socketpair()`: the pair's
    ends are allowed; an internet socket, and a unix socket's `connect`, are refused."""
    import asyncio
    import socket

    async def answer():
        await asyncio.sleep(0)
        return 42

    with active(sandbox):
        assert asyncio.run(answer()) == 42
        a, b = socket.socketpair()
        a.sendall(b"ping")
        assert b.recv(4) == b"ping"
        a.close()
        b.close()
    with pytest.raises(PermissionError), active(sandbox):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with active(sandbox):
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with pytest.raises(PermissionError), active(sandbox):
        unix.connect(str(tmp_path / "daemon.sock"))
    unix.close()


def test_a_tree_removed_by_descriptor_in_scratch_is_allowed(sandbox, tmp_path):
    """`shutil.rmtree` removes entries relative to a directory descriptor (pytest's `tmp_path`
    cleanup does): allowed in the scratch directory, refused outside it."""
    os.makedirs("tree/sub")
    with open("tree/sub/dump.txt", "w") as f:
        f.write("x")
    tree = os.path.abspath("tree")
    # The suite runs from the project's root, not from the scratch directory.
    os.chdir(tmp_path)
    with active(sandbox):
        shutil.rmtree(tree)
    assert not os.path.exists(tree)
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "canary.txt").write_text("alive")
    with pytest.raises(PermissionError), active(sandbox):
        shutil.rmtree(outside)
    assert (outside / "sub" / "canary.txt").read_text() == "alive"


def test_copying_a_file_into_scratch_is_allowed_and_out_of_it_refused(sandbox, tmp_path):
    """humanize's suite copies its sources into `tmp_path`: a copy's source is only read, so
    copying from anywhere into the scratch directory is allowed; a copy onto a file outside it
    is refused; a hard link to a file outside it is refused (it could be written through)."""
    source = tmp_path / "module.py"
    source.write_text("VALUE = 1\n")
    with active(sandbox):
        shutil.copy2(source, "copy.py")
    assert open("copy.py").read() == "VALUE = 1\n"
    with pytest.raises(PermissionError), active(sandbox):
        shutil.copyfile("copy.py", tmp_path / "overwritten.py")
    assert not (tmp_path / "overwritten.py").exists()
    with pytest.raises(PermissionError), active(sandbox):
        os.link(source, "linked.py")
    assert source.read_text() == "VALUE = 1\n"
    refused = [(e["event"], e["refused"]) for e in sandbox.effects if e["refused"]]
    assert refused == [("shutil.copyfile", True), ("os.link", True)]
