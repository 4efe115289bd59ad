"""The protocol's lines are JSON in UTF-8 that a strict reader (serde_json) accepts, whatever
strings a message carries."""

import json

from lacuna_agent.main import encode


def test_a_lone_surrogate_does_not_make_the_line_unreadable():
    line = encode({"id": 1, "value": "a\udca9b", "ok": "é"})
    text = line.decode("utf-8")  # strict: valid UTF-8
    assert line.endswith(b"\n")
    assert "\\ud" not in text, "no surrogate escape, which strict readers refuse"
    assert json.loads(text) == {"id": 1, "value": "a?b", "ok": "é"}
