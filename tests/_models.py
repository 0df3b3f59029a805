"""A scripted chat model for the tests (no network, replies in order), and a
callback handler recording which model call each run and event belongs to."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, SkipValidation

if TYPE_CHECKING:
    from uuid import UUID

    from langchain_core.callbacks import CallbackManagerForLLMRun

Script = str | AIMessage | BaseException | Callable[[list[BaseMessage]], str]


class ScriptedChatModel(BaseChatModel):
    """Replies from a script, in order (the last entry repeats).

    An exception in the script is raised; a callable gets the messages. Each
    call's messages and keyword arguments (bound tools …) are recorded.
    """

    script: Annotated[list[Script], SkipValidation()]
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[dict[str, Any]] = Field(default_factory=list)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append(list(messages))
        self.bound.append(kwargs)
        item = self.script[min(len(self.calls), len(self.script)) - 1]
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            item = item(messages)
        message = AIMessage(item) if isinstance(item, str) else item.model_copy()
        return ChatResult(generations=[ChatGeneration(message=message)])

    @property
    def _llm_type(self) -> str:
        return "scripted"


class TagRecorder(BaseCallbackHandler):
    """Custom events and chat-model starts, in order, with their tags."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any, list[str]]] = []

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.append((name, data["attempt"], attempt_tags(tags)))

    def on_chat_model_start(
        self,
        serialized: Any,
        messages: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.seen.append(("model", None, attempt_tags(tags)))


def attempt_tags(tags: list[str] | None) -> list[str]:
    return [t for t in tags or () if t.startswith("jsonrecover:attempt:")]
