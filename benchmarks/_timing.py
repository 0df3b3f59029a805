"""Timing helpers: median CPU seconds per call, round robin, collector paused.

Every benchmark here reports a ratio: a tool's median seconds per call over
those of ``orjson.loads`` on the clean payload, timed in the same process and
the same run, interleaved with the tools, so drift on a noisy machine hits
every tool alike. Samples are CPU time of this process (``time.process_time``:
time lost to other processes on a busy machine is not counted) unless a
:class:`Budget` says otherwise, each taken with the garbage collector paused
(as ``timeit`` does).
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import math
import statistics
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


@dataclass(frozen=True, slots=True)
class Budget:
    """How to time: clock, sample length, repeats and a cap per tool and case."""

    sample_seconds: float
    """Each sample loops a call until it lasts about this long."""
    repeats: int
    """Samples per tool and case (the median is kept)."""
    min_repeats: int
    """Fewest samples even for a slow tool."""
    tool_seconds: float
    """Slow tools get fewer samples, so one tool and case takes about this long."""
    slow_seconds: float
    """A single run of a tool that may be quadratic (langchain-core's streaming
    parser) is stopped after this much wall time: its time is then a lower
    bound, and the whole run's time is extrapolated from its progress."""
    clock: Callable[[], float] = time.process_time
    """CPU time of this process by default: time spent preempted by other
    processes on a shared machine is not counted (``--wall`` for wall time)."""


FULL: Final = Budget(
    sample_seconds=0.01, repeats=51, min_repeats=5, tool_seconds=2.0, slow_seconds=45.0
)
QUICK: Final = Budget(
    sample_seconds=0.003, repeats=9, min_repeats=3, tool_seconds=0.3, slow_seconds=3.0
)
MEDIAN_OF_5: Final = Budget(
    sample_seconds=0.05, repeats=5, min_repeats=5, tool_seconds=60.0, slow_seconds=45.0
)
"""Five samples of about 50 ms of every tool, whatever it costs: the 200 KB tables."""


def choose_budget(*, quick: bool, wall: bool, base: Budget = FULL) -> Budget:
    """``base`` (or :data:`QUICK`), on the wall clock when ``wall`` is set."""
    budget = QUICK if quick else base
    if wall:
        budget = dataclasses.replace(budget, clock=time.perf_counter)
    return budget


FRESH_BYTES: Final = 64_000_000
"""At most this much text is copied ahead of one sample; past it the copies
are used again (only calls far below a microsecond on small texts get there)."""


def fresh_copy(text: str) -> str:
    """A new ``str`` equal to ``text``, with no UTF-8 form cached in it.

    CPython keeps the UTF-8 form of a non-ASCII ``str`` once something asks
    for it (``orjson.loads`` does): a text timed again and again would be
    encoded once, while a reply is read once.
    """
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")


class FreshCall:
    """``func(text)`` on a fresh copy of ``text`` at every call.

    The copies for a sample are made before its clock starts
    (:meth:`prepare`, called by the samplers), so making them is not timed.

    Example:
        >>> import orjson
        >>> call = FreshCall(orjson.loads, '{"a": "é"}')
        >>> call.prepare(2)
        >>> call(), call()
        ({'a': 'é'}, {'a': 'é'})
    """

    def __init__(self, func: Callable[[str], object], text: str) -> None:
        """Time ``func`` on copies of ``text``."""
        self.func = func
        self.text = text
        self._copies: list[str] = []
        self._next = 0

    def prepare(self, number: int) -> None:
        """Make the copies for the next ``number`` calls."""
        count = max(1, min(number, FRESH_BYTES // max(1, len(self.text))))
        self._copies = [fresh_copy(self.text) for _ in range(count)]
        self._next = 0

    def __call__(self) -> object:
        """One call, on the next copy (made now if none was prepared)."""
        if not self._copies:
            return self.func(fresh_copy(self.text))
        text = self._copies[self._next % len(self._copies)]
        self._next += 1
        return self.func(text)


def _sample(
    func: Callable[[], object], number: int, clock: Callable[[], float]
) -> float:
    """Seconds for ``number`` calls of ``func``, with the collector paused.

    A :class:`FreshCall` makes its copies first, before the clock starts.
    """
    if isinstance(func, FreshCall):
        func.prepare(number)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in itertools.repeat(None, number):
            func()
        return clock() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def _calibrate(
    func: Callable[[], object], target: float, clock: Callable[[], float]
) -> tuple[int, float]:
    """Calls per sample so one sample lasts about ``target`` seconds.

    Returns:
        The number of calls per sample, and the seconds per call seen so far.
    """
    func()  # warm-up: imports, caches, first allocations
    number = 1
    while True:
        elapsed = _sample(func, number, clock)
        if elapsed >= target / 2 or number >= 10_000_000:
            return max(1, round(number * target / elapsed)), elapsed / number
        number = min(number * 100, math.ceil(number * target / max(elapsed, 1e-7)))


def sample_interleaved(
    funcs: Sequence[Callable[[], object]], budget: Budget
) -> list[list[float]]:
    """Seconds per call of each function, one sample per round, round robin.

    Each function is calibrated to a sample length, then samples are taken in
    rounds, one sample of each function per round (the order rotates between
    rounds, every other round backwards), so slow drift on the machine hits
    every function alike. A slow function gets fewer samples (at least
    ``budget.min_repeats``).

    Args:
        funcs: Zero-argument callables; their results are discarded.
        budget: Sample length and repeats.

    Returns:
        Per function, in the order of ``funcs``, its samples in round order.
    """
    plans: list[tuple[int, int]] = []
    for func in funcs:
        number, per_call = _calibrate(func, budget.sample_seconds, budget.clock)
        affordable = int(budget.tool_seconds / max(number * per_call, 1e-9))
        plans.append((number, max(budget.min_repeats, min(budget.repeats, affordable))))
    samples: list[list[float]] = [[] for _ in funcs]
    rounds = max((repeats for _, repeats in plans), default=0)
    for round_index in range(rounds):
        gc.collect()
        for offset in range(len(funcs)):
            # Rotate, and run every other round backwards: a function sampled
            # just before another in one round comes just after it in the next.
            step = offset if round_index % 2 == 0 else len(funcs) - 1 - offset
            i = (round_index + step) % len(funcs)
            number, repeats = plans[i]
            if round_index < repeats:
                samples[i].append(_sample(funcs[i], number, budget.clock) / number)
    return samples


def time_interleaved(
    funcs: Sequence[Callable[[], object]], budget: Budget
) -> list[float]:
    """Median seconds per call of each function, timed round robin.

    Returns:
        The median of :func:`sample_interleaved`'s samples, per function.
    """
    return [statistics.median(s) for s in sample_interleaved(funcs, budget)]


def sample_paired(
    baseline: Callable[[], object],
    funcs: Sequence[Callable[[], object]],
    budget: Budget,
) -> tuple[list[float], list[list[float]], list[list[float]]]:
    """Samples of each function, each beside a sample of the baseline.

    In each of ``budget.repeats`` rounds every function is sampled once (the
    order rotates, every other round backwards), right after a sample of the
    baseline (right before it, every other round): the ratio of the two is
    moved far less by load on the machine than a ratio of medians taken
    seconds apart. A function that cannot take ``budget.repeats`` samples
    within ``budget.tool_seconds`` takes as many as fit (one at least).

    Returns:
        Every baseline sample; per function, its samples; per function, the
        ratio of each of its samples to the baseline sample beside it.
    """
    clock = budget.clock
    base_number, _ = _calibrate(baseline, budget.sample_seconds, clock)
    plans = [_calibrate(f, budget.sample_seconds, clock) for f in funcs]
    numbers = [number for number, _ in plans]
    # A function whose samples would take longer than budget.tool_seconds in
    # all gets fewer rounds (one at least): a peer that takes seconds a call.
    repeats = [
        max(1, min(budget.repeats, int(budget.tool_seconds / max(n * per, 1e-9))))
        for n, per in plans
    ]
    bases: list[float] = []
    samples: list[list[float]] = [[] for _ in funcs]
    ratios: list[list[float]] = [[] for _ in funcs]
    for round_index in range(budget.repeats):
        gc.collect()
        forward = round_index % 2 == 0
        for offset in range(len(funcs)):
            step = offset if forward else len(funcs) - 1 - offset
            i = (round_index + step) % len(funcs)
            if round_index >= repeats[i]:
                continue
            pair = [(baseline, base_number), (funcs[i], numbers[i])]
            if not forward:
                pair.reverse()
            first, second = (_sample(f, n, clock) / n for f, n in pair)
            base, seconds = (first, second) if forward else (second, first)
            bases.append(base)
            samples[i].append(seconds)
            ratios[i].append(seconds / base)
    return bases, samples, ratios


def timed_call(
    func: Callable[[], Any], clock: Callable[[], float]
) -> tuple[float, Any]:
    """One call of ``func`` with the collector paused: its seconds and its value."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        value = func()
        return clock() - start, value
    finally:
        if gc_was_enabled:
            gc.enable()


def time_long_calls(
    baseline: Callable[[], object],
    funcs: Sequence[Callable[[], object]],
    first: Sequence[float],
    budget: Budget,
) -> tuple[float, list[float]]:
    """Median seconds per call of a fast baseline and of long calls, round robin.

    For calls that last tens of milliseconds or more (a whole streamed reply)
    each sample is one call, without calibration. ``first`` holds the time of
    one call of each function already made (a warm-up that checked the
    value): it sets how many samples fit in ``budget.tool_seconds`` (at least
    ``budget.min_repeats``, at most ``budget.repeats``); a function whose
    first call alone took longer keeps that call as its only sample. The
    baseline is calibrated as in :func:`time_interleaved` and sampled in every
    round, ``budget.repeats`` times in all (it is cheap, and a noisy baseline
    would skew every ratio).

    Args:
        baseline: The fast reference call (``orjson.loads``).
        funcs: Zero-argument callables; their results are discarded.
        first: Seconds of a first call of each of ``funcs``.
        budget: Sample length and repeats.

    Returns:
        The baseline's median seconds per call, and each function's, in the
        order of ``funcs``.
    """
    clock = budget.clock
    number, _ = _calibrate(baseline, budget.sample_seconds, clock)
    affordable = [int(budget.tool_seconds / max(seconds, 1e-9)) for seconds in first]
    plans = [
        max(budget.min_repeats, min(budget.repeats, n)) if n else 0 for n in affordable
    ]
    samples: list[list[float]] = [
        [] if plan else [seconds] for plan, seconds in zip(plans, first, strict=True)
    ]
    base: list[float] = []
    slots = len(funcs) + 1  # slot 0 is the baseline
    rounds = max([budget.min_repeats, *plans])
    per_round = math.ceil(budget.repeats / rounds)
    for round_index in range(rounds):
        gc.collect()
        for offset in range(slots):
            i = (round_index + offset) % slots
            if i == 0:
                base.extend(
                    _sample(baseline, number, clock) / number for _ in range(per_round)
                )
            elif round_index < plans[i - 1]:
                samples[i - 1].append(_sample(funcs[i - 1], 1, clock))
    return statistics.median(base), [statistics.median(s) for s in samples]
