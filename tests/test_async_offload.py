"""Async parsing of a reply over 1 MB runs in a worker thread: the loop keeps going.

Shown by counting, not timing: while the parse runs, a concurrent task gets
scheduled again and again (the parse waits for it), and the parse's thread is
not the loop's. Ordinary replies stay on the loop (no thread hop).
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

import pytest
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.messages import AIMessage
from langchain_core.outputs import Generation
from pydantic import BaseModel

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover.parsers.base import OFF_LOOP_CHARS
from langchain_jsonrecover.parsers.events import RECOVERY_EVENT

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

TICKS = 3
"""Times the concurrent task must run while a big reply is being parsed."""


class Doc(BaseModel):
    text: str


def big_reply(size: int) -> str:
    return '<json>{"text": "' + "x" * size + '"}</json>'


PARSERS: dict[str, Callable[[], Any]] = {
    "fence": JsonFenceOutputParser,
    "fence_with_schema": lambda: JsonFenceOutputParser(pydantic_object=Doc),
    "truncation": TruncationRecoveringOutputParser,
    "regex": lambda: RegexJsonOutputParser(pattern=r"<json>(.*?)</json>"),
}

CALLS: dict[str, Callable[[Any, str], Awaitable[Any]]] = {
    "ainvoke_text": lambda parser, reply: parser.ainvoke(reply),
    "ainvoke_message": lambda parser, reply: parser.ainvoke(AIMessage(reply)),
    "aparse": lambda parser, reply: parser.aparse(reply),
    "aprocess": lambda parser, reply: parser.aprocess(reply),
    "partial": lambda parser, reply: parser.aparse_result(
        [Generation(text=reply)], partial=True
    ),
}


class Watch:
    """Spies on the parse: which thread ran it, how often the loop ticked meanwhile."""

    def __init__(self, parser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loop_thread = threading.get_ident()
        self.threads: list[int] = []
        self.ticks_during_parse: list[int] = []
        self.ticks = 0
        self.ticked = threading.Event()
        self.done = False
        for name in ("_run", "_partial"):
            monkeypatch.setattr(
                type(parser), name, self.spy(getattr(type(parser), name))
            )

    def spy(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def run(parser: Any, *args: Any) -> Any:
            self.threads.append(threading.get_ident())
            if threading.get_ident() != self.loop_thread:
                # Off the loop: the loop must keep serving the ticker meanwhile.
                self.ticked.wait(timeout=30)
            self.ticks_during_parse.append(self.ticks)
            return real(parser, *args)

        return run

    async def ticker(self) -> None:
        while not self.done:
            self.ticks += 1
            if self.ticks >= TICKS:
                self.ticked.set()
            await asyncio.sleep(0)

    async def run(self, work: Awaitable[Any]) -> Any:
        ticker = asyncio.create_task(self.ticker())
        try:
            return await work
        finally:
            self.done = True
            await ticker


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("parser", sorted(PARSERS))
async def test_a_reply_over_1_mb_is_parsed_off_the_loop(
    parser: str, call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    instance = PARSERS[parser]()
    watch = Watch(instance, monkeypatch)
    result = await watch.run(CALLS[call](instance, big_reply(OFF_LOOP_CHARS)))
    assert result is not None
    assert watch.threads
    assert all(t != watch.loop_thread for t in watch.threads)
    assert all(n >= TICKS for n in watch.ticks_during_parse)


@pytest.mark.parametrize("call", sorted(CALLS))
async def test_an_ordinary_reply_is_parsed_on_the_loop(
    call: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = JsonFenceOutputParser()
    watch = Watch(parser, monkeypatch)
    await watch.run(CALLS[call](parser, big_reply(1000)))
    assert watch.threads == [watch.loop_thread]


async def test_an_error_in_the_worker_thread_reaches_the_caller() -> None:
    reply = '{"text": "' + "x" * OFF_LOOP_CHARS + '", }'
    with pytest.raises(InvalidJsonError) as caught:
        await JsonFenceOutputParser(repair=False).ainvoke(reply)
    assert caught.value.llm_output == reply


async def test_the_recovery_event_still_reaches_callbacks() -> None:
    class Events(AsyncCallbackHandler):
        def __init__(self) -> None:
            self.names: list[str] = []

        async def on_custom_event(self, name: str, *args: Any, **kwargs: Any) -> None:
            self.names.append(name)

    events = Events()
    cut = '{"text": "' + "x" * OFF_LOOP_CHARS
    value = await TruncationRecoveringOutputParser().ainvoke(
        cut, config={"callbacks": [events]}
    )
    assert value == {"text": "x" * OFF_LOOP_CHARS}
    assert events.names == [RECOVERY_EVENT]
