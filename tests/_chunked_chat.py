"""A fake chat model that streams its reply in random chunks of 1 to 7 characters."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from langchain_core.callbacks import (
        AsyncCallbackManagerForLLMRun,
        CallbackManagerForLLMRun,
    )
    from langchain_core.messages import BaseMessage


def split(text: str, rng: random.Random, most: int = 7) -> list[str]:
    """``text`` in pieces of 1 to ``most`` characters, sizes drawn from ``rng``."""
    pieces, start = [], 0
    while start < len(text):
        size = rng.randint(1, most)
        pieces.append(text[start : start + size])
        start += size
    return pieces


def random_chunks(text: str, seed: int, most: int = 7) -> list[str]:
    """``text`` cut into pieces of 1 to ``most`` characters (seeded)."""
    return split(text, random.Random(seed), most)  # noqa: S311 - test data


class ChunkedChat(BaseChatModel):
    """Replies ``reply``, streamed in seeded random chunks of 1 to 7 characters."""

    reply: str
    seed: int = 0

    @property
    def _llm_type(self) -> str:
        return "chunked-fake"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        del messages, stop, run_manager, kwargs
        return ChatResult(generations=[ChatGeneration(message=AIMessage(self.reply))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        del messages, stop, run_manager, kwargs
        for piece in random_chunks(self.reply, self.seed):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        del messages, stop, run_manager, kwargs
        for piece in random_chunks(self.reply, self.seed):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
