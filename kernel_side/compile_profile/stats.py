"""The one statistics module: every median, spread and interval a figure is made of, for the engine and the
digest alike (pytest-benchmark keeps its statistics in one place for the same reason: four median
implementations once picked a "best" variant whose median was not the best).

Contract: plain functions of lists of floats; ``median`` is the mean of the middle two for an even count,
everywhere; ``ratio_interval`` is median(a) / median(b) with a bootstrap (BCa) confidence interval, the one
rule for a speedup and for one variant against another.  numpy and scipy only; nothing here knows a run.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where a figure needs it: a CLI that lists runs starts without it (80 ms)
    import numpy as np

# The median absolute deviation of normal samples times this is their standard deviation.
MAD_TO_SIGMA = 1.4826


def median(values: Iterable[float]) -> float:
    """The median (the mean of the middle two of an even count); 0.0 for no values."""
    values = list(values)
    return statistics.median(values) if values else 0.0


def robust_sigma(values: list[float]) -> float:
    """A spread that one outlier (a preempted sample) does not move: the median absolute deviation,
    scaled to a standard deviation; 0.0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    mid = median(values)
    return MAD_TO_SIGMA * median(abs(v - mid) for v in values)


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0-100), linearly interpolated as numpy does."""
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q))


def ratio_interval(
    a: list[float], b: list[float], *, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """median(a) / median(b), with a bootstrap (BCa) confidence interval; NaN bounds for fewer than 3
    samples on either side.  The speedup is ``ratio_interval(eager, compiled)``."""
    import numpy as np

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    value = float(np.median(x) / np.median(y))
    if x.size < 3 or y.size < 3:
        return value, float("nan"), float("nan")

    def ratio(p: np.ndarray, q: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.median(p, axis=axis) / np.median(q, axis=axis)

    low, high = _bootstrap_interval([x, y], ratio, confidence, seed)
    return value, low, high


def _bootstrap_interval(data: list[np.ndarray], statistic: Any, confidence: float, seed: int) -> tuple[float, float]:
    """scipy's bootstrap interval of ``statistic`` over the independent samples ``data``: BCa, or the percentile
    interval where BCa degenerates (constant samples) or a scipy's BCa takes fewer samples than given."""
    import numpy as np
    from scipy import stats

    def bootstrap(method: str) -> tuple[float, float]:
        result = stats.bootstrap(
            tuple(data),
            statistic,
            vectorized=True,
            paired=False,
            confidence_level=confidence,
            n_resamples=2000,
            method=method,
            rng=np.random.default_rng(seed),
        )
        return float(result.confidence_interval.low), float(result.confidence_interval.high)

    try:
        low, high = bootstrap("BCa")
    except ValueError:
        low, high = float("nan"), float("nan")
    if not (math.isfinite(low) and math.isfinite(high)):
        low, high = bootstrap("percentile")
    return low, high


def weighted_ratio_interval(
    groups: list[tuple[float, list[float], list[float]]], *, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """sum(w * median(a)) / sum(w * median(b)) over ``groups`` of (weight, a, b), with a bootstrap (BCa)
    confidence interval, each group's samples resampled apart: the speedup of a sequence of inputs, where
    ``a`` and ``b`` are one signature's eager and compiled samples and ``w`` how many calls it served (the
    sequence's eager time over its compiled time).  One group is ``ratio_interval``; NaN bounds for fewer
    than 3 samples in any list."""
    if len(groups) == 1:
        return ratio_interval(groups[0][1], groups[0][2], confidence=confidence, seed=seed)
    import numpy as np

    weights = np.asarray([w for w, _, _ in groups], dtype=float)
    data = [np.asarray(s, dtype=float) for _, a, b in groups for s in (a, b)]
    value = float(
        sum(w * np.median(a) for w, a in zip(weights, data[::2]))
        / sum(w * np.median(b) for w, b in zip(weights, data[1::2]))
    )
    if any(d.size < 3 for d in data):
        return value, float("nan"), float("nan")

    def ratio(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        eager = sum(w * np.median(a, axis=axis) for w, a in zip(weights, samples[::2]))
        compiled = sum(w * np.median(b, axis=axis) for w, b in zip(weights, samples[1::2]))
        return np.asarray(eager / compiled)

    low, high = _bootstrap_interval(data, ratio, confidence, seed)
    return value, low, high


def geomean(values: Iterable[float]) -> float:
    """The geometric mean of positive values; NaN for none."""
    logs = [math.log(v) for v in values]
    return math.exp(sum(logs) / len(logs)) if logs else float("nan")


def geomean_ratio_interval(
    pairs: list[tuple[list[float], list[float]]], *, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """The geometric mean over ``pairs`` of median(a) / median(b), with a bootstrap (BCa) interval, each list
    resampled apart: a suite's geomean speedup over its passing models from each model's eager and compiled
    samples.  The interval is the timing noise's, for these models; which models a suite holds is not resampled.
    One pair is ``ratio_interval``; NaN bounds for fewer than 3 samples in any list."""
    if len(pairs) == 1:
        return ratio_interval(pairs[0][0], pairs[0][1], confidence=confidence, seed=seed)
    import numpy as np

    data = [np.asarray(s, dtype=float) for a, b in pairs for s in (a, b)]
    value = geomean(float(np.median(a) / np.median(b)) for a, b in zip(data[::2], data[1::2]))
    if any(d.size < 3 for d in data):
        return value, float("nan"), float("nan")

    def statistic(*samples: np.ndarray, axis: int = -1) -> np.ndarray:
        logs = sum(
            np.log(np.median(a, axis=axis)) - np.log(np.median(b, axis=axis))
            for a, b in zip(samples[::2], samples[1::2])
        )
        return np.asarray(np.exp(logs / (len(samples) // 2)))

    low, high = _bootstrap_interval(data, statistic, confidence, seed)
    return value, low, high


def ratio_of_intervals(
    new: float, new_low: float | None, new_high: float | None, old: float, old_low: float | None, old_high: float | None
) -> tuple[float, float | None, float | None]:
    """new / old of two ratios known by their values and intervals (two suites' speedups, where their samples are
    not at hand: a baseline file), with an interval: each side's distance to its bounds in log space, added in
    quadrature (the interval of a difference of two independent estimates).  None bounds where either side has
    none."""
    value = new / old
    if new_low is None or new_high is None or old_low is None or old_high is None or min(new_low, old_low) <= 0:
        return value, None, None
    below = math.hypot(math.log(new) - math.log(new_low), math.log(old_high) - math.log(old))
    above = math.hypot(math.log(new_high) - math.log(new), math.log(old) - math.log(old_low))
    return value, value * math.exp(-below), value * math.exp(above)
