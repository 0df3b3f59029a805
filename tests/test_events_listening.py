"""Who listens to the recovery event: the quick answers outside a run are exact."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.runnables.config import (
    ensure_config,
    get_callback_manager_for_config,
)
from langsmith import Client
from langsmith.run_helpers import tracing_context
from langsmith.run_trees import RunTree

from langchain_jsonrecover.parsers import events
from langchain_jsonrecover.parsers.events import (
    _find_listening_config,
    _find_stream_writer,
)

if TYPE_CHECKING:
    import pytest


def _listening_the_long_way() -> bool:
    """The full answer: the run's callback manager, built."""
    manager = get_callback_manager_for_config(ensure_config())
    return manager.parent_run_id is not None and bool(manager.handlers)


def test_outside_a_run_nobody_listens() -> None:
    assert not _listening_the_long_way()
    assert _find_listening_config() is None


def test_a_langsmith_parent_run_is_asked_the_long_way() -> None:
    # A ``@traceable`` parent gives the manager its parent run with no
    # runnable config: the quick answer must not skip it.
    # An offline client: nothing is sent, no run is ever posted.
    client = Client(
        api_key="offline",
        api_url="http://127.0.0.1:9",
        auto_batch_tracing=False,
        info={},
    )
    parent = RunTree(name="outer", run_type="chain", ls_client=client)
    with tracing_context(parent=parent, enabled=True, client=client):
        assert _listening_the_long_way()
        assert _find_listening_config() is not None


def test_outside_a_run_langgraph_is_not_asked_for_a_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # LangGraph finds its writer in the runnable config; without one it would
    # raise. (Inside a graph run the writer is found: test_structured_tools.)
    asked = 0

    def counting() -> object:
        nonlocal asked
        asked += 1
        return None

    monkeypatch.setattr(events, "_import_langgraph_config", counting)
    assert _find_stream_writer() is None
    assert asked == 0
