"""The agent's own tests import `lacuna_agent` from the source tree."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
