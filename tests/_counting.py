"""Counting the work of a scan instead of timing it.

A linear scan does at most about twice the work on a text twice as long; a
quadratic one does four times as much. Tests wrap what does the work (every
compiled pattern of the package, with :class:`CountingPattern`; the text
itself, with :class:`CountingStr`, for scans that search it with ``str``
methods), run the scan at two sizes in one process (:func:`measure`,
:func:`assert_linear_work`) and compare the counts: no clock is read.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self, SupportsIndex, TypeVar

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

    from langchain_jsonrecover._core.repair.state import Pass

Charge = Callable[[int], None]
"""Told how many characters one call may have examined."""

T = TypeVar("T")

GROWTH = 2.2
"""Allowed work ratio when the input doubles (linear: 2, quadratic: 4)."""


@dataclass
class Tally:
    """Calls counted, and the characters they may have examined."""

    calls: int = 0
    chars: int = 0

    def charge(self, chars: int) -> None:
        """Count one call that may have examined ``chars`` characters."""
        self.calls += 1
        self.chars += max(chars, 1)

    def grew_linearly_from(self, small: Tally, slack: int = 1024) -> bool:
        """Whether this tally, taken at twice the size, is linear beside ``small``."""
        return (
            self.calls <= GROWTH * small.calls + slack
            and self.chars <= GROWTH * small.chars + slack
        )


class CountingPattern:
    """A compiled pattern that charges how much text each call may examine.

    A search or a failed match is charged up to where it stopped (or the end
    of its window); a successful match up to its end; ``finditer`` its window.
    These are upper bounds: they can only make a scan look costlier. Anything
    else is handed to the real pattern uncounted.
    """

    def __init__(self, pattern: re.Pattern[str], charge: Charge) -> None:
        self._pattern = pattern
        self._charge = charge

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pattern, name)

    def search(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self._charged(
            self._pattern.search(string, pos, endpos), string, pos, endpos
        )

    def match(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self._charged(
            self._pattern.match(string, pos, endpos), string, pos, endpos
        )

    def _charged(
        self, found: re.Match[str] | None, string: str, pos: int, endpos: int
    ) -> re.Match[str] | None:
        """Charge a search or match up to where it stopped, and pass it on."""
        self._charge((found.end() if found else min(endpos, len(string))) - pos)
        return found

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        self._charge(min(endpos, len(string)) - pos)
        return self._pattern.finditer(string, pos, endpos)


class CountingStr(str):  # noqa: SLOT000 - str subtypes cannot have non-empty __slots__
    """A ``str`` that charges how much of itself searching and slicing touch.

    ``find`` is charged up to the end of what it found (or its window),
    ``rfind`` from what it found (or its window's start) to the window's end,
    indexing and slicing by the length of what they give. Other methods run
    uncounted.
    """

    charge: Charge

    def __new__(cls, text: str, charge: Charge) -> Self:
        """Wrap ``text``; each counted call is reported to ``charge``."""
        counted = super().__new__(cls, text)
        counted.charge = charge
        return counted

    def _window(
        self, start: SupportsIndex | None, end: SupportsIndex | None
    ) -> tuple[int, int]:
        lo, hi, _ = slice(start, end).indices(len(self))
        return lo, hi

    def find(
        self,
        sub: str,
        start: SupportsIndex | None = None,
        end: SupportsIndex | None = None,
        /,
    ) -> int:
        lo, hi = self._window(start, end)
        found = str.find(self, sub, lo, hi)
        self.charge((found + len(sub) if found >= 0 else hi) - lo)
        return found

    def rfind(
        self,
        sub: str,
        start: SupportsIndex | None = None,
        end: SupportsIndex | None = None,
        /,
    ) -> int:
        lo, hi = self._window(start, end)
        found = str.rfind(self, sub, lo, hi)
        self.charge(hi - (found if found >= 0 else lo))
        return found

    def __getitem__(self, key: SupportsIndex | slice, /) -> str:
        item = str.__getitem__(self, key)
        self.charge(len(item))
        return item


def package_modules() -> list[ModuleType]:
    """The package's modules loaded now (every one a scan may call into)."""
    return [
        module
        for name, module in sorted(sys.modules.items())
        if name.startswith("langchain_jsonrecover.") and module is not None
    ]


def count_patterns(
    patch: pytest.MonkeyPatch, module: ModuleType, charge_for: Callable[[str], Charge]
) -> None:
    """Wrap every module-level compiled ``str`` pattern of ``module``.

    Args:
        patch: Undoes the wrapping when its context ends.
        module: The module whose patterns are counted.
        charge_for: Given a pattern's name in the module, what to charge.
    """
    for name in getattr(module, "LAZY_PATTERNS", ()):
        getattr(module, name)  # compiled on first read: counted too
    for name, item in list(vars(module).items()):
        if isinstance(item, re.Pattern) and isinstance(item.pattern, str):
            patch.setattr(module, name, CountingPattern(item, charge_for(name)))


def assert_linear_work(
    count: Callable[[str], tuple[Tally, T]], build: Callable[[int], str], n: int
) -> tuple[T, T]:
    """Count the work on ``build(n)`` and on ``build(2 * n)``; it must grow linearly.

    Args:
        count: Runs the scan on a text, returning its tally and its result.
        build: Makes a text of about ``n`` repetitions.
        n: The smaller size.

    Returns:
        The scan's results at both sizes, for the caller's own checks.
    """
    small_work, small = count(build(n))
    large_work, large = count(build(2 * n))
    assert large_work.grew_linearly_from(small_work), (small_work, large_work)
    return small, large


def as_params(
    builders: list[tuple[str, Callable[[int], str]]],
) -> list[Any]:
    """``(name, builder)`` rows as ``pytest.param``s with the name as their id."""
    return [pytest.param(build, id=name) for name, build in builders]


def measure(
    monkeypatch: pytest.MonkeyPatch, scan: Callable[[Tally], T]
) -> tuple[Tally, T]:
    """Run ``scan`` once with every pattern of the package counted.

    ``scan`` is handed the tally, to charge more to it (a :class:`CountingStr`
    made with ``tally.charge``); it returns what the scan gave.
    """
    tally = Tally()
    with monkeypatch.context() as patch:
        for module in package_modules():
            count_patterns(patch, module, lambda _name: tally.charge)
        result = scan(tally)
    return tally, result


@contextmanager
def pass_steps_counted() -> Iterator[Tally]:
    """Count the repair pass's careful steps (one per token it reads alone).

    Example: ``with pass_steps_counted() as steps: repair(text)``, then
    ``steps.calls``.
    """
    import langchain_jsonrecover._core.repair.walk as pass_module  # noqa: PLC0415

    tally = Tally()

    def counted(step: Callable[[Pass, str], bool]) -> Callable[[Pass, str], bool]:
        def run(p: Pass, char: str) -> bool:
            tally.charge(1)
            return step(p, char)

        return run

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pass_module, "_STEPS", tuple(map(counted, pass_module._STEPS)))
        yield tally
