"""The ``jsonrecover.recovery`` event: when a recovery changed the data.

Emitted by the final parse of a reply (never by partial ones) when the value
is not what the reply said as it stands: truncation closed, runaway newlines
trimmed, an envelope unwrapped, keys renamed, syntax repaired. It reaches
LangChain callbacks as a custom event (``on_custom_event`` in
``astream_events(version="v2")``) and the ``langchain_jsonrecover`` logger at
INFO. Inside a LangGraph run, every event of this package is also written to
the graph's stream writer (``stream_mode="custom"``) as ``{"event", "data"}``.
Nothing is built when nobody listens: outside a run, with no callback
handlers and INFO logging off, the check costs a context lookup.
"""

from __future__ import annotations

import functools
import importlib
import logging
from typing import TYPE_CHECKING, Any, Final

import pydantic_core
from langchain_core.callbacks.base import BaseCallbackManager
from langchain_core.callbacks.manager import (
    adispatch_custom_event,
    dispatch_custom_event,
)
from langchain_core.runnables.config import (
    ensure_config,
    get_callback_manager_for_config,
    var_child_runnable_config,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_core.runnables import RunnableConfig

    from langchain_jsonrecover._core.extract import Extraction

__all__ = [
    "RECOVERY_EVENT",
    "aemit_event",
    "emit_event",
    "recovery_payload",
    "write_to_stream",
]

RECOVERY_EVENT: Final = "jsonrecover.recovery"

logger = logging.getLogger("langchain_jsonrecover")

# Repairs that only find the value (where it is, what surrounds it): the
# data is what the reply said. Every other repair changes the data.
_FINDING: Final = frozenset(
    {
        "reasoning_skipped",
        "markup_matched",
        "fence_stripped",
        "json_label_dropped",
        "prose_trimmed",
        "control_characters_escaped",
    }
)


def recovery_payload(found: Extraction, reply: str) -> dict[str, Any] | None:
    """The event's data for an extraction, or ``None`` if nothing was recovered.

    Args:
        found: The final extraction.
        reply: The reply it came from.

    Returns:
        ``{"repairs", "bytes_before", "bytes_after", "cut_off"}``: the repairs
        made, the reply's size and the value's size as compact JSON (UTF-8).

    Example:
        >>> from langchain_jsonrecover._core.extract import Extraction
        >>> found = Extraction([1], (0, 2), "raw", ("truncation_closed",))
        >>> payload = recovery_payload(found, "[1")
        >>> payload["repairs"], payload["bytes_before"], payload["bytes_after"]
        (['truncation_closed'], 2, 3)
    """
    if not _recovered(found):
        return None
    return {
        "repairs": list(found.repairs),
        "bytes_before": len(reply.encode("utf-8", "surrogatepass")),
        "bytes_after": len(pydantic_core.to_json(found.value, fallback=str)),
        "cut_off": found.cut_off,
    }


def _recovered(found: Extraction) -> bool:
    """Whether a repair changed the data (one that only found it does not)."""
    return not _FINDING.issuperset(found.repairs)


def _find_listening_config() -> RunnableConfig | None:
    """The run's config when its callback handlers listen, else ``None``.

    Outside a run there are none: with no callback manager of a parent run in
    the config and no LangSmith parent run, the manager LangChain would build
    has no parent run, so it is not built (it costs seven decodes of 300 B).
    The config's callbacks are the run's (``ensure_config`` copies them), so
    they are read there, without building the config either.
    """
    run = var_child_runnable_config.get()
    if (
        not isinstance((run or {}).get("callbacks"), BaseCallbackManager)
        and _run_tree_getter()() is None
    ):
        return None
    config = ensure_config()
    manager = get_callback_manager_for_config(config)
    listening = manager.parent_run_id is not None and bool(manager.handlers)
    return config if listening else None


@functools.cache
def _run_tree_getter() -> Callable[[], Any]:
    """LangSmith's ``get_current_run_tree``, imported once when first needed.

    Deferred as LangChain defers it (importing langsmith is slow). It is the
    ``parent`` of ``get_tracing_context()``, read without the eight other
    context variables that function puts in a dict (1.8 µs a call, about as
    long as ``orjson.loads`` takes on a 300 B reply).
    """
    from langsmith.run_helpers import get_current_run_tree  # noqa: PLC0415

    return get_current_run_tree


def _prepare(
    found: Extraction, reply: str
) -> tuple[RunnableConfig | None, Any, dict[str, Any]] | None:
    """Who listens and what to tell them, logged at INFO; ``None`` for nobody.

    The run's callback handlers, a LangGraph run's stream writer and the
    logger at INFO listen, each looked up once; the payload is built only
    when one of them does. An extraction that recovered nothing has no
    payload: nobody is asked.
    """
    if not _recovered(found):
        return None
    config, writer = _find_listening_config(), _find_stream_writer()
    logging_on = logger.isEnabledFor(logging.INFO)
    if config is None and writer is None and not logging_on:
        return None
    payload = recovery_payload(found, reply)
    if payload is None:
        return None
    if logging_on:
        logger.info("%s %s", RECOVERY_EVENT, payload)
    return config, writer, payload


@functools.cache
def _import_langgraph_config() -> Any:
    """``langgraph.config``, or ``None`` without LangGraph (looked up once)."""
    try:
        return importlib.import_module("langgraph.config")
    except ImportError:
        return None


def _find_stream_writer() -> Any:
    """LangGraph's stream writer of the current graph run, or ``None``.

    Outside a runnable context there is none (LangGraph reads the writer
    from the runnable config, and raises without one): answered without
    LangGraph, or the exception it raises.
    """
    if not var_child_runnable_config.get():
        return None
    config = _import_langgraph_config()
    if config is None:
        return None
    try:
        return config.get_stream_writer()
    except (RuntimeError, KeyError):
        # Outside a graph run (RuntimeError) or outside a Pregel task (KeyError).
        return None


def write_to_stream(name: str, data: dict[str, Any]) -> None:
    """Write an event to LangGraph's ``stream_mode="custom"``, inside a graph.

    Outside a LangGraph run, or without LangGraph installed, nothing happens.

    Args:
        name: The event's name (``jsonrecover.recovery`` …).
        data: Its payload.

    Example:
        >>> write_to_stream(RECOVERY_EVENT, {"repairs": []})  # outside a graph
    """
    _write(_find_stream_writer(), name, data)


def _write(writer: Any, name: str, data: dict[str, Any]) -> None:
    if writer is not None:
        writer({"event": name, "data": data})


def emit_event(name: str, data: dict[str, Any]) -> None:
    """Send an event to the run's callbacks and to LangGraph's custom stream.

    Outside a run, the callbacks are skipped; outside a graph, the stream.

    Args:
        name: The event's name.
        data: Its payload.

    Example:
        >>> emit_event(RECOVERY_EVENT, {"repairs": []})  # nobody listens
    """
    config = _find_listening_config()
    if config is not None:
        dispatch_custom_event(name, data, config=config)
    write_to_stream(name, data)


async def aemit_event(name: str, data: dict[str, Any]) -> None:
    """Async twin of :func:`emit_event`.

    Args:
        name: The event's name.
        data: Its payload.
    """
    config = _find_listening_config()
    if config is not None:
        await adispatch_custom_event(name, data, config=config)
    write_to_stream(name, data)


def report_recovery(found: Extraction, reply: str) -> None:
    """Emit the event and the log line, if anyone listens.

    Args:
        found: The final extraction.
        reply: The reply it came from.
    """
    prepared = _prepare(found, reply)
    if prepared is None:
        return
    config, writer, payload = prepared
    if config is not None:
        dispatch_custom_event(RECOVERY_EVENT, payload, config=config)
    _write(writer, RECOVERY_EVENT, payload)


async def areport_recovery(found: Extraction, reply: str) -> None:
    """Async twin of :func:`report_recovery`.

    Args:
        found: The final extraction.
        reply: The reply it came from.
    """
    prepared = _prepare(found, reply)
    if prepared is None:
        return
    config, writer, payload = prepared
    if config is not None:
        await adispatch_custom_event(RECOVERY_EVENT, payload, config=config)
    _write(writer, RECOVERY_EVENT, payload)
