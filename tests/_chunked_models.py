"""Chat models that stream their scripted replies in seeded small chunks.

:class:`ChunkedChatModel` streams text in pieces of 1 to 7 characters (the
sizes drawn from a seeded ``random.Random``); :class:`ChunkedToolModel` binds
tools and streams a reply's tool calls as ``tool_call_chunks`` the same way.
Both also answer ``invoke`` with the whole reply, so a stream can be compared
with ``invoke`` on the same script.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

from _chunked_chat import split
from _models import ScriptedChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable
    from langchain_core.tools import BaseTool


class ChunkedChatModel(ScriptedChatModel):
    """Streams each scripted reply in seeded chunks of 1 to 7 characters."""

    seed: int = 0

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        whole = self._generate(messages, stop, run_manager, **kwargs)
        message = whole.generations[0].message
        assert isinstance(message, AIMessage)
        rng = random.Random(self.seed * 1000 + len(self.calls))  # noqa: S311 - a test
        for piece in split(str(message.content), rng):
            chunk = AIMessageChunk(content=piece)
            if run_manager is not None:
                run_manager.on_llm_new_token(
                    piece, chunk=ChatGenerationChunk(message=chunk)
                )
            yield ChatGenerationChunk(message=chunk)
        for index, call in enumerate(message.tool_calls):
            arguments = json.dumps(call["args"])
            first = True
            for piece in split(arguments, rng):
                name = call["name"] if first else None
                call_id = call["id"] if first else None
                first = False
                chunk = AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {"name": name, "args": piece, "id": call_id, "index": index}
                    ],
                )
                yield ChatGenerationChunk(message=chunk)
        if message.response_metadata:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="", response_metadata=dict(message.response_metadata)
                )
            )


class ChunkedToolModel(ChunkedChatModel):
    """A chunked model with tool calling: ``bind_tools`` binds the tools."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=list(tools), tool_choice=tool_choice, **kwargs)
