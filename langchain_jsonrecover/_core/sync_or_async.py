"""One procedure for a sync method and its async twin.

The procedure is a generator: it yields a :class:`Call` wherever the two
differ (a model call, a parser's step, an event), receives the call's result,
and returns the procedure's. :func:`run_steps` makes each call as it is;
:func:`arun_steps` awaits its async form. An error the call raises is thrown
into the generator at the ``yield``, so a ``try`` around it works as around a
plain call. :func:`stream_steps` and :func:`astream_steps` run the same
procedure for ``stream``: a call that can stream (``stream``/``astream`` set)
is iterated, each piece turned into items by its ``feed``, and the pieces,
joined by its ``merge``, are its result. No LangChain imports.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Call:
    """A call to make, in its sync and its async form, with its arguments."""

    sync: Callable[..., Any]
    """Called by :func:`run_steps`."""
    async_: Callable[..., Awaitable[Any]]
    """Called and awaited by :func:`arun_steps`."""
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    stream: Callable[..., Iterator[Any]] | None = None
    """Its streaming form (same arguments), for :func:`stream_steps`."""
    astream: Callable[..., AsyncIterator[Any]] | None = None
    """Its async streaming form, for :func:`astream_steps`."""
    feed: Callable[[Any], Iterable[Any]] | None = None
    """The items to yield for one streamed piece."""
    merge: Callable[[list[Any]], Any] | None = None
    """The call's result from all its streamed pieces."""


@dataclass(frozen=True, slots=True)
class Finished:
    """The last thing :func:`stream_steps` yields: the procedure's result."""

    value: Any


Steps: TypeAlias = Generator[Call, Any, T]
"""A procedure: yields each :class:`Call`, is sent its result, returns a ``T``."""


def run_steps(steps: Steps[T]) -> T:
    """Run ``steps``, making each call it yields; return what it returns.

    Example:
        >>> def doubled_length():
        ...     got = yield Call(len, None, ("abc",))
        ...     return got * 2
        >>> run_steps(doubled_length())
        6
    """
    # With sync calls the driver never suspends: one send runs it to the end.
    driver = _drive(steps, awaiting=False)
    try:
        driver.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    driver.close()
    msg = "a sync call suspended"
    raise RuntimeError(msg)


async def arun_steps(steps: Steps[T]) -> T:
    """Run ``steps``, awaiting the async form of each call it yields.

    Example:
        >>> import asyncio
        >>> async def double(n):
        ...     return n * 2
        >>> def retried():
        ...     try:
        ...         yield Call(None, double, (None,))
        ...     except TypeError:
        ...         got = yield Call(None, double, (21,))
        ...     return got
        >>> asyncio.run(arun_steps(retried()))
        42
    """
    return await _drive(steps, awaiting=True)


async def _drive(steps: Steps[T], *, awaiting: bool) -> T:
    value: Any = None
    resume: Callable[[Any], Call] = steps.send
    while True:
        try:
            call = resume(value)
        except StopIteration as stop:
            result: T = stop.value
            return result
        try:
            if awaiting:
                value = await call.async_(*call.args, **call.kwargs)
            else:
                value = call.sync(*call.args, **call.kwargs)
        except BaseException as error:  # noqa: BLE001 - raised where the yield is
            value, resume = error, steps.throw
        else:
            resume = steps.send


def stream_steps(steps: Steps[Any]) -> Iterator[Any]:
    """Run ``steps``, streaming each call that can stream.

    Yields:
        The items each streamed call's ``feed`` gives, as they come, then a
        :class:`Finished` holding the procedure's result.

    Example:
        >>> def spelled():
        ...     got = yield Call(None, None, ("ab",), stream=iter, feed=str.upper,
        ...                      merge="".join)
        ...     return got
        >>> list(stream_steps(spelled()))
        ['A', 'B', Finished(value='ab')]
    """
    value: Any = None
    resume: Callable[[Any], Call] = steps.send
    while True:
        try:
            call = resume(value)
        except StopIteration as stop:
            yield Finished(stop.value)
            return
        try:
            if call.stream is None or call.feed is None or call.merge is None:
                value = call.sync(*call.args, **call.kwargs)
            else:
                pieces: list[Any] = []
                for piece in call.stream(*call.args, **call.kwargs):
                    pieces.append(piece)
                    yield from call.feed(piece)
                value = call.merge(pieces)
        except GeneratorExit:
            steps.close()
            raise
        except BaseException as error:  # noqa: BLE001 - raised where the yield is
            value, resume = error, steps.throw
        else:
            resume = steps.send


async def astream_steps(steps: Steps[Any]) -> AsyncIterator[Any]:
    """Async twin of :func:`stream_steps`: each call's async form is awaited."""
    value: Any = None
    resume: Callable[[Any], Call] = steps.send
    while True:
        try:
            call = resume(value)
        except StopIteration as stop:
            yield Finished(stop.value)
            return
        try:
            if call.astream is None or call.feed is None or call.merge is None:
                value = await call.async_(*call.args, **call.kwargs)
            else:
                pieces: list[Any] = []
                async for piece in call.astream(*call.args, **call.kwargs):
                    pieces.append(piece)
                    for item in call.feed(piece):
                        yield item
                value = call.merge(pieces)
        except GeneratorExit:
            steps.close()
            raise
        except BaseException as error:  # noqa: BLE001 - raised where the yield is
            value, resume = error, steps.throw
        else:
            resume = steps.send
