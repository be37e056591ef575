"""benchmarks/conditions.py: a benchmark states the load it ran under, measured, and every table-printing one does."""

import doctest
from pathlib import Path

import pytest

from benchmarks import conditions
from benchmarks.conditions import Load, describe

ROOT = Path(__file__).resolve().parents[1]


def test_the_conditions_docstring_examples_hold():
    assert doctest.testmod(conditions).failed == 0


def test_describe_gives_each_load_it_has_with_the_cores():
    assert describe((0.5, 0.25, 1), (12.345, 0, 0), 8) == (
        "load average (1/5/15 min) 0.50/0.25/1.00 before, 12.35/0.00/0.00 after; 8 cores"
    )
    assert describe(None, (1, 2, 3), 2) == "load average (1/5/15 min) 1.00/2.00/3.00 after; 2 cores"


@pytest.mark.parametrize(("before", "after", "says"), [(None, None, "got neither"), ((1.0, 2.0), None, "got 2")])
def test_describe_refuses_no_load_or_a_load_that_is_not_three_numbers(before, after, says):
    with pytest.raises(ValueError, match=says):
        describe(before, after, 2)


def test_a_load_is_measured_at_the_start_and_again_when_its_line_is_asked(monkeypatch):
    readings = iter([(1.0, 1.0, 1.0), (3.0, 2.0, 1.5)])
    monkeypatch.setattr(conditions.os, "getloadavg", lambda: next(readings))
    monkeypatch.setattr(conditions.os, "cpu_count", lambda: 4)
    load = Load.start()
    assert load.before_line() == "load average (1/5/15 min) 1.00/1.00/1.00 before; 4 cores"
    assert load.line() == "load average (1/5/15 min) 1.00/1.00/1.00 before, 3.00/2.00/1.50 after; 4 cores"


def test_every_benchmark_script_prints_its_measured_load():
    """Each script run from the command line prints a table (load_test and load_protocol through load_common)."""
    scripts = [p for p in sorted((ROOT / "benchmarks").glob("*.py")) if '__name__ == "__main__"' in p.read_text()]
    assert len(scripts) == 16, [p.name for p in scripts]
    for path in scripts:
        text = path.read_text()
        assert "from benchmarks.conditions import Load" in text and "load.line()" in text, path.name
        assert "shared with other jobs" not in text, path.name  # a remembered sentence, not a measure
