"""One procedure for a sync method and its async twin.

The procedure is a generator: it yields a :class:`Call` wherever the two
differ (a model call, a parser's step, an event), receives the call's result,
and returns the procedure's. :func:`run_steps` makes each call as it is;
:func:`arun_steps` awaits its async form. An error the call raises is thrown
into the generator at the ``yield``, so a ``try`` around it works as around a
plain call. No LangChain imports.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

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
