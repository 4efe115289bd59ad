"""Starts Lacuna's agent (this file is written next to the `lacuna_agent` package). The
interpreter runs without the user's site directory and PYTHON* variables (`-s`, and a cleaned
environment with PYTHONHASHSEED=0); the package's directory is put first on the path here."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lacuna_agent.main import main  # noqa: E402

main()
