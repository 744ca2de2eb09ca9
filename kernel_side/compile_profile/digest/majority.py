"""What a job's figure is, rank by rank: the one rule every divergence of a job is held to (``job``,
``job_compiles``).

Contract: ``expected(values, size)`` is what most ranks have; without a majority the smallest by ``size`` (a count that
should not grow), or the lowest rank's where neither side is better (rank 0's, whose decisions the others follow);
``who(values, rank, expected)`` names the ranks a diverging rank is held against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable
from typing import TypeVar

Figure = TypeVar("Figure", bound=Hashable)


def expected(values: dict[int, Figure], size: Callable[[Figure], float] | None = None) -> Figure:
    """The job's figure: what most ranks have; without a majority, the smallest by ``size`` (a count that
    should not grow), or rank 0's (the lowest rank present) when neither side is better."""
    counts = Counter(values.values())
    value, n = counts.most_common(1)[0]
    if 2 * n > len(values):
        return value
    if size is not None:
        return min(values.values(), key=size)  # a tie keeps the first, the lowest rank's
    return values[min(values)]


def who(values: dict[int, Figure], rank: int, job: Figure) -> str:
    """``the others`` when every other rank has the job's figure, else ``most ranks``."""
    return "the others" if all(v == job for r, v in values.items() if r != rank) else "most ranks"
