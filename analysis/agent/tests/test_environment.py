"""The greeting's `environment`: the same while nothing is installed or removed, another when a
directory on `sys.path` gains an entry (a distribution installed), and blind to the agent's own
directory, which each run unpacks afresh."""

import os
import sys

from lacuna_agent.main import environment


def test_the_same_while_nothing_is_installed(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert environment() == environment()


def test_another_when_a_distribution_is_installed(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])
    before = environment()
    (site / "yaml").mkdir()
    # Some file systems keep modification times to the second or coarser.
    stat = os.stat(site)
    os.utime(site, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert environment() != before


def test_blind_to_the_agents_own_directory(monkeypatch):
    import lacuna_agent

    own = os.path.dirname(os.path.dirname(os.path.abspath(lacuna_agent.__file__)))
    others = [p for p in sys.path if os.path.abspath(p or ".") != own]
    monkeypatch.setattr(sys, "path", others)
    without = environment()
    monkeypatch.setattr(sys, "path", [own, *others])
    assert environment() == without
