"""The two ways a test that calls a model runs: ``invoke`` and ``ainvoke``.

The ``mode`` fixture (in ``conftest.py``) runs such a test once in each mode;
:func:`run` calls a runnable the way the mode says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable, RunnableConfig

R = TypeVar("R")

MODES: Final = ("sync", "async")


async def run(
    chain: Runnable[Any, R],
    value: Any,
    mode: str,
    config: RunnableConfig | None = None,
) -> R:
    """``chain.invoke`` in ``"sync"`` mode, else ``await chain.ainvoke``."""
    if mode == "sync":
        return chain.invoke(value, config)
    return await chain.ainvoke(value, config)
