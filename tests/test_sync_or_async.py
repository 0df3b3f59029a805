"""One generator of steps, run sync or async: the same calls, results and errors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from langchain_jsonrecover._core.sync_or_async import Call, arun_steps, run_steps

if TYPE_CHECKING:
    from langchain_jsonrecover._core.sync_or_async import Steps


class Recorder:
    """A call with a sync and an async form, each recording that it ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, Any]] = []

    def double(self, n: int) -> int:
        self.ran.append(("sync", n))
        return self.check(n) * 2

    async def adouble(self, n: int) -> int:
        self.ran.append(("async", n))
        return self.check(n) * 2

    @staticmethod
    def check(n: int) -> int:
        if n < 0:
            msg = f"negative: {n}"
            raise ValueError(msg)
        return n


def doubled_sum(recorder: Recorder, numbers: list[int]) -> Steps[int]:
    """Doubles each number by a call; a refused number counts as zero."""
    total = 0
    for n in numbers:
        try:
            total += yield Call(recorder.double, recorder.adouble, (n,))
        except ValueError:
            continue
    return total


async def run(steps: Steps[Any], mode: str) -> Any:
    if mode == "sync":
        return run_steps(steps)
    return await arun_steps(steps)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


CASES: list[object] = [
    pytest.param([], 0, id="no_call"),
    pytest.param([1, 2, 3], 12, id="three_calls"),
    pytest.param([1, -5, 3], 8, id="an_error_caught_where_the_yield_is"),
]


@pytest.mark.parametrize(("numbers", "total"), CASES)
async def test_each_call_is_made_in_the_mode_once_in_order(
    numbers: list[int], total: int, mode: str
) -> None:
    recorder = Recorder()
    assert await run(doubled_sum(recorder, numbers), mode) == total
    assert recorder.ran == [(mode, n) for n in numbers]


def failing(recorder: Recorder) -> Steps[int]:
    result: int = yield Call(recorder.double, recorder.adouble, (-1,))
    return result


async def test_an_uncaught_error_propagates_unchanged(mode: str) -> None:
    with pytest.raises(ValueError, match="negative: -1") as caught:
        await run(failing(Recorder()), mode)
    assert type(caught.value) is ValueError


def nested(recorder: Recorder) -> Steps[int]:
    first = yield from doubled_sum(recorder, [1])
    second = yield from doubled_sum(recorder, [2, 3])
    return first * 100 + second


async def test_yield_from_composes_procedures(mode: str) -> None:
    recorder = Recorder()
    assert await run(nested(recorder), mode) == 2 * 100 + 10
    assert [n for _, n in recorder.ran] == [1, 2, 3]
