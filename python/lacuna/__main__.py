"""`python -m lacuna ARGS`: runs the installed `lacuna` binary with ARGS.

The binary replaces this process (on POSIX), so signals, standard streams, the exit code and the
language server's stdio behave exactly as when `lacuna` is run directly. The interpreter running
this module is not passed on: Lacuna finds the project's interpreter itself (`python` in
`[tool.lacuna]`, `$VIRTUAL_ENV`, `.venv/`, `venv/`, then `python3`; see docs/configuration.md).
"""

from __future__ import annotations

import os
import subprocess
import sys

from lacuna import find_lacuna_bin


def main() -> None:
    binary = find_lacuna_bin()
    if sys.platform == "win32":
        sys.exit(subprocess.call([binary, *sys.argv[1:]]))
    os.execv(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
