"""The conditions a benchmark ran under, measured: the load average before and after the run, and the cores.

A benchmark on a shared machine states how busy the machine was while it ran, never a remembered sentence.
Every script here that prints a table takes `Load.start()` before it measures and prints `load.line()` (the
load before and now) in its header; a script that prints its rows as it measures them prints
`load.before_line()` in its header and `load.line()` as its last line.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass


def machine() -> str:
    """One line naming the machine: its architecture, cores, Python and the BLAS threads a run was allowed.

    >>> machine().startswith("machine: ")
    True
    """
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    return (
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"OPENBLAS_NUM_THREADS {threads}"
    )


def describe(before: Sequence[float] | None, after: Sequence[float] | None, cores: int | None) -> str:
    """One line: the 1, 5 and 15 min load averages before and/or after a run, and the machine's cores.

    >>> describe((1.5, 1.0, 0.5), (3.0, 2.25, 1.0), 2)
    'load average (1/5/15 min) 1.50/1.00/0.50 before, 3.00/2.25/1.00 after; 2 cores'
    >>> describe((0.1, 0.2, 0.3), None, None)
    'load average (1/5/15 min) 0.10/0.20/0.30 before; cores unknown'
    """
    parts = [
        f"{'/'.join(f'{x:.2f}' for x in _three(load))} {when}"
        for load, when in ((before, "before"), (after, "after"))
        if load is not None
    ]
    if not parts:
        raise ValueError("describe needs the load before or after the run (or both), got neither")
    return f"load average (1/5/15 min) {', '.join(parts)}; " + (f"{cores} cores" if cores else "cores unknown")


def _three(load: Sequence[float]) -> Sequence[float]:
    if len(load) != 3:
        raise ValueError(f"a load average is three numbers (1, 5 and 15 min), got {len(load)}: {tuple(load)}")
    return load


@dataclass(frozen=True)
class Load:
    """The load average when a benchmark started, and the cores; `line()` adds the load at the time it is called."""

    before: tuple[float, float, float]
    cores: int | None

    @classmethod
    def start(cls) -> Load:
        return cls(os.getloadavg(), os.cpu_count())

    @classmethod
    def announce(cls) -> Load:
        """Start measuring and print the header a run's output opens with: the machine and the load before."""
        load = cls.start()
        print(machine())
        print(load.before_line())
        print()
        return load

    def before_line(self) -> str:
        return describe(self.before, None, self.cores)

    def line(self) -> str:
        return describe(self.before, os.getloadavg(), self.cores)
