"""The suite's program points: every call counts, each test's distinct samples are kept once
with their counts, and a point that had to leave a sample out says so."""

from lacuna_agent import observe


def sample(value, result):
    return {"value": {"kind": "int", "value": str(value)},
            "return": {"kind": "int", "value": str(result)}}


def test_repeated_calls_are_counted_and_a_rare_call_is_kept():
    point, kept = observe._point(), [0]
    for _ in range(300):
        observe._keep_sample(point, sample(5, 5), [], "t.py::test_in_range", kept)
    observe._keep_sample(point, sample(-20, 0), [], "t.py::test_negative", kept)
    wire = observe._wire_point(point)
    assert wire["calls"] == 301
    assert wire["counts"] == [300, 1]
    assert wire["tests"] == ["t.py::test_in_range", "t.py::test_negative"]
    assert wire["complete"] is True
    assert "index" not in wire


def test_the_same_sample_from_two_tests_is_kept_for_each():
    point, kept = observe._point(), [0]
    observe._keep_sample(point, sample(1, 1), [], "t.py::a", kept)
    observe._keep_sample(point, sample(1, 1), [], "t.py::b", kept)
    assert point["counts"] == [1, 1]


def test_a_full_point_is_incomplete(monkeypatch):
    monkeypatch.setattr(observe, "SAMPLES", 3)
    point, kept = observe._point(), [0]
    for v in range(3):
        observe._keep_sample(point, sample(v, v), [], "t.py::a", kept)
    assert point["complete"] is True
    observe._keep_sample(point, sample(1, 1), [], "t.py::a", kept)
    assert point["complete"] is True
    observe._keep_sample(point, sample(9, 9), [], "t.py::a", kept)
    assert point["complete"] is False
    assert point["calls"] == 5


def test_the_bound_over_all_points_makes_the_next_point_incomplete(monkeypatch):
    monkeypatch.setattr(observe, "TOTAL_SAMPLES", 2)
    kept = [0]
    first, second = observe._point(), observe._point()
    observe._keep_sample(first, sample(1, 1), [], "t.py::a", kept)
    observe._keep_sample(first, sample(2, 2), [], "t.py::a", kept)
    observe._keep_sample(second, sample(3, 3), [], "t.py::a", kept)
    assert first["complete"] is True
    assert second["complete"] is False
