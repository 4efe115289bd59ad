"""Starts Lacuna's agent (this file is written next to the `lacuna_agent` package). The
interpreter runs isolated (`-I`), so the package's directory is added to the path here."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from lacuna_agent.main import main  # noqa: E402

main()
