r"""Ask again until the reply parses: :class:`JsonRetryChain`.

Invoke the model, parse the reply, and on failure tell the model what was
wrong and ask again, a bounded number of times.

One pure step function, :func:`next_move` (from ``retry.steps``), decides what
comes after each reply (done, ask again with these messages, or give up); one
loop, run sync or async, calls the model and the parser around it.
``stream``, ``astream`` and ``astream_events`` stream each attempt's partial
values as the model streams (``retry.stream``), then the final value; with
``include_raw``, each item is a plain dict with ``parsed``, ``raw`` (the
message so far) and ``attempt`` (1, 2, ...), and the last is the dict
``invoke`` returns.

Each re-ask emits the custom event ``jsonrecover.retry`` with ``{"attempt":
n, "error": kind, "feedback": text}``: ``n`` is the number of the model call
that failed (so also of the re-ask), ``kind`` one of ``no_json``,
``invalid_json``, ``schema``, ``truncated``, ``too_large`` or
``parse_error`` (a foreign parser's error). Model calls are child runs of the
chain in callbacks and tracing, tagged ``jsonrecover:attempt:<n>`` (the tag is
inherited: a chat model inside a sequence carries it too); the event carries
the tag of the call that failed, the same ``n`` as its payload.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    Generic,
    Literal,
    TypedDict,
    TypeVar,
    overload,
)

from langchain_core.callbacks import adispatch_custom_event, dispatch_custom_event
from langchain_core.language_models import LanguageModelInput  # noqa: TC002 - fields
from langchain_core.messages import AIMessage  # noqa: TC002 - RetryResult
from langchain_core.messages.ai import UsageMetadata  # noqa: TC002 - RetryResult
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import patch_config
from pydantic import ConfigDict, SkipValidation, field_validator

from langchain_jsonrecover._core.sync_or_async import Call, Steps
from langchain_jsonrecover.errors import Attempt, RetryExhaustedError
from langchain_jsonrecover.parsers.events import write_to_stream
from langchain_jsonrecover.retry.parsing import parse_continued
from langchain_jsonrecover.retry.runnable import ChainRun, LoopRunnable
from langchain_jsonrecover.retry.steps import (
    Ask,
    Done,
    FeedbackStrategy,
    GiveUp,
    Move,
    OnTruncation,
    Plan,
    build_exhausted_error,
    first_ask,
    next_move,
    sum_usage,
)
from langchain_jsonrecover.retry.stream import AttemptStream
from langchain_jsonrecover.retry.turns import as_reply, has_bound_tools, to_messages

if TYPE_CHECKING:
    from collections.abc import Sequence

    from langchain_core.callbacks import (
        AsyncCallbackManagerForChainRun,
        CallbackManagerForChainRun,
    )
    from langchain_core.messages import BaseMessage

__all__ = [
    "RETRY_EVENT",
    "Attempt",
    "JsonRetryChain",
    "RetryExhaustedError",
    "RetryResult",
    "next_move",
]

T = TypeVar("T")
P = TypeVar("P")

RETRY_EVENT: Final = "jsonrecover.retry"
"""The name of the custom event each re-ask emits."""


class RetryResult(TypedDict, Generic[T]):
    """What ``include_raw=True`` returns instead of the value.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> result: RetryResult[int] = {
        ...     "raw": AIMessage("1"),
        ...     "parsed": 1,
        ...     "parsing_error": None,
        ...     "attempts": [],
        ...     "usage": None,
        ...     "attempt": 1,
        ... }
        >>> result["parsed"]
        1
    """

    raw: AIMessage
    """The last reply."""
    parsed: T | None
    """The value, or ``None`` when no reply parsed."""
    parsing_error: Exception | None
    """The last reply's parse error, or ``None`` when it parsed."""
    attempts: list[Attempt]
    """Every model call, in order."""
    usage: UsageMetadata | None
    """Token usage summed over all calls (``None``: no call reported any)."""
    attempt: int
    """The number of the last model call (1-based), as each streamed item
    carries it."""


def check_model(model: Any, argument: str = "model") -> None:
    """Raise ``TypeError`` unless ``model`` is a chat model or a Runnable.

    Example:
        >>> check_model("openai:gpt-4o-mini")
        Traceback (most recent call last):
        ...
        TypeError: model must be a chat model or a Runnable, got a str ...
    """
    if isinstance(model, Runnable):
        return
    hint = (
        " (a model name: build the model first, e.g. with "
        "langchain.chat_models.init_chat_model)"
        if isinstance(model, str)
        else ""
    )
    msg = (
        f"{argument} must be a chat model or a Runnable, "
        f"got a {type(model).__name__}{hint}"
    )
    raise TypeError(msg)


def check_parser(parser: Any, argument: str = "parser") -> None:
    """Raise ``TypeError`` unless ``parser`` is an output parser instance.

    Example:
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> check_parser(JsonFenceOutputParser)
        Traceback (most recent call last):
        ...
        TypeError: parser must be a parser instance, got the class ...
    """
    if isinstance(parser, type):
        msg = (
            f"{argument} must be a parser instance, got the class "
            f"{parser.__name__}: write {parser.__name__}()"
        )
        raise TypeError(msg)
    if not isinstance(parser, BaseOutputParser):
        msg = f"{argument} must be an output parser, got a {type(parser).__name__}"
        raise TypeError(msg)


# --- the chain ------------------------------------------------------------------


def make_attempt_tag(call: int) -> str:
    """The tag of model call ``call`` (1-based) and of the event about it.

    Example:
        >>> make_attempt_tag(2)
        'jsonrecover:attempt:2'
    """
    return f"jsonrecover:attempt:{call}"


def configure_attempt(
    config: RunnableConfig,
    run_manager: CallbackManagerForChainRun | AsyncCallbackManagerForChainRun,
    call: int,
) -> RunnableConfig:
    """The config of model call ``call``: a child run, tagged for that call.

    The tag is inherited, so the chat model inside a sequence
    (``model.with_structured_output(...)``, ``prompt | model``) carries it
    too, not only the sequence.
    """
    child = patch_config(config, callbacks=run_manager.get_child())
    child["tags"] = [*child.get("tags", ()), make_attempt_tag(call)]
    return child


def _check_retries(value: int) -> int:
    if value < 0:
        msg = f"max_retries counts re-asks and cannot be negative, got {value}"
        raise ValueError(msg)
    return value


class JsonRetryChain(LoopRunnable[T]):
    r"""Invoke the model, parse; on failure say what was wrong and ask again.

    The input is whatever a chat model takes (text, messages, a prompt value),
    so ``prompt | JsonRetryChain(model=..., parser=...)`` works. Each call's
    reply goes to ``parser``: any LangChain ``BaseOutputParser``; this
    package's parsers give precise feedback (for a schema mismatch: the
    failing field and pydantic's message), another parser's
    ``OutputParserException`` gives its observation, else its message without
    LangChain's troubleshooting URL and without the copy of the reply.

    - ``feedback_strategy="user"``: a re-ask sends the original messages,
      the failed reply (its tool calls' arguments shown as text) and the
      feedback as a user message. When ``model`` has tools bound
      (``model.bind_tools(...)``) and the failed reply called tools, it goes
      back unchanged, followed by one error ``ToolMessage`` per tool-call id
      (the failed call's holds the feedback and its arguments). Only the
      latest failed reply and its feedback are kept, so the context stays
      bounded.
    - ``"system"``: the conversation is not extended; the feedback and the
      start of the failed reply (at most 500 characters) are added to the
      system message, or to a new one put first.
    - A reply identical to an earlier failed one stops the loop at once (the
      model is stuck): ``RetryExhaustedError`` with ``repeats`` set. A
      continuation is compared by the joined text: the same piece sent twice
      is progress, a piece that adds nothing is not.
    - A cut-off reply (the model stopped at its token limit, or the JSON is
      still open where the reply ends): ``on_truncation="reask"`` asks for a
      shorter answer; ``"continue"`` asks the model to continue exactly where
      it stopped (always as a new turn) and parses the joined text: every
      way the continuation can join (exact, without an overlap it repeats,
      after a lead-in, the answer started over), a value only where those
      that give one agree, else a request for the whole answer
      (``retry.parsing.parse_continued``). A reply at the token limit, or
      whose JSON is still open, is continued, never closed. Each
      continuation counts against ``max_retries``.
    - ``max_retries`` counts re-asks: at most ``1 + max_retries`` model calls.
    - A refusal (``ModelRefusalError``) and errors of the model call itself
      propagate at once, unretried: compose ``model.with_retry()`` for
      transport errors.
    - The caller's messages are never mutated.
    - ``stream``/``astream`` yield each attempt's partial values as the
      model streams them (from the text, or from a tool call's arguments),
      then the final value, the one ``invoke`` returns. A continuation's
      partials extend the value it continues. With ``include_raw``, every
      item is a new plain dict ``{"parsed", "raw", "attempt",
      "parsing_error"}`` (``raw``: the message so far), and the last one is
      the dict ``invoke`` returns; ``attempt`` tells one attempt's items from
      the next. A model that cannot stream gives one item per attempt.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> model = GenericFakeChatModel(
        ...     messages=iter(['Sure: {"city": "Paris",}', '{"city": "Paris"}'])
        ... )
        >>> chain = JsonRetryChain(model=model, parser=JsonFenceOutputParser())
        >>> chain.invoke("Where is the Louvre? Answer in JSON.")
        {'city': 'Paris'}
    """

    model: Annotated[Runnable[LanguageModelInput, Any], SkipValidation()]
    """The chat model (or any runnable that returns a message or text)."""

    parser: Annotated[BaseOutputParser[Any], SkipValidation()]
    """Parses each reply; its errors become the feedback."""

    max_retries: int = 2
    """Re-asks allowed after the first call."""

    feedback_strategy: FeedbackStrategy = "user"
    """``"user"``: the failed reply and the feedback as new turns;
    ``"system"``: the feedback in the system message."""

    include_raw: bool = False
    """Return ``{"raw", "parsed", "parsing_error", "attempts", "usage"}``
    instead of the value, and never raise for a parse failure."""

    on_truncation: OnTruncation = "reask"
    """A cut-off reply: ``"reask"`` for a shorter answer, or ``"continue"``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @overload
    def __init__(
        self: JsonRetryChain[P],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[P],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: Literal[False] = False,
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    @overload
    def __init__(
        self: JsonRetryChain[RetryResult[P]],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[P],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: Literal[True],
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    @overload
    def __init__(
        self: JsonRetryChain[Any],
        *,
        model: Runnable[LanguageModelInput, Any],
        parser: BaseOutputParser[Any],
        max_retries: int = 2,
        feedback_strategy: FeedbackStrategy = "user",
        include_raw: bool,
        on_truncation: OnTruncation = "reask",
    ) -> None: ...
    def __init__(self, **kwargs: Any) -> None:
        """Create the chain.

        Args:
            **kwargs: The fields: ``model``, ``parser``, ``max_retries``,
                ``feedback_strategy``, ``include_raw``, ``on_truncation``.

        Raises:
            TypeError: ``model`` is not a Runnable, or ``parser`` not a parser
                instance.
            ValueError: ``max_retries`` is negative, or a field is invalid.
        """
        if "model" in kwargs:
            check_model(kwargs["model"])
        if "parser" in kwargs:
            check_parser(kwargs["parser"])
        retries = kwargs.get("max_retries", 0)
        if isinstance(retries, int):
            _check_retries(retries)
        super().__init__(**kwargs)

    @field_validator("max_retries")
    @classmethod
    def _valid_retries(cls, value: int) -> int:
        return _check_retries(value)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """The parser's output type, or a ``dict`` with ``include_raw``."""
        return dict[str, Any] if self.include_raw else self.parser.OutputType

    def plan(self, base: Sequence[BaseMessage]) -> Plan:
        """This chain's fixed settings over a conversation.

        Example:
            >>> from langchain_core.language_models import GenericFakeChatModel
            >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
            >>> chain = JsonRetryChain(
            ...     model=GenericFakeChatModel(messages=iter([])),
            ...     parser=JsonFenceOutputParser(),
            ... )
            >>> chain.plan([]).max_retries
            2
        """
        return Plan(
            tuple(base),
            self.max_retries,
            self.feedback_strategy,
            self.on_truncation,
            tools_bound=has_bound_tools(self.model),
        )

    def start_steps(self, input_: LanguageModelInput, run: ChainRun) -> Steps[T]:
        """The loop over ``input_``: yields each event, model and parser call."""
        plan = self.plan(to_messages(input_))
        return (yield from self.drive_steps(plan, first_ask(plan), run))

    def drive_steps(self, plan: Plan, move: Move, run: ChainRun) -> Steps[T]:
        """The loop from ``move``, yielding each event and model and parser call.

        Each re-ask's event goes to callbacks (tagged for the call that
        failed) and to the stream writer; each model call is a child run
        tagged for its number.

        Returns:
            The value, or the ``RetryResult``.
        """
        model = self.model
        while isinstance(move, Ask):
            if move.event is not None:
                failed = configure_attempt(
                    run.config, run.manager, move.event["attempt"]
                )
                dispatch = (dispatch_custom_event, adispatch_custom_event)
                yield Call(*dispatch, (RETRY_EVENT, move.event), {"config": failed})
                write_to_stream(RETRY_EVENT, move.event)
            call = len(move.state.attempts) + 1
            child = configure_attempt(run.config, run.manager, call)
            request = (list(move.messages), child)
            stream = AttemptStream(
                self.parser,
                attempt=call,
                prefix=move.state.partial,
                include_raw=self.include_raw,
            )
            output = yield Call(
                model.invoke,
                model.ainvoke,
                request,
                run.kwargs,
                stream=model.stream,
                astream=model.astream,
                feed=stream.feed,
                merge=stream.merge,
            )
            reply = as_reply(output)
            outcome = yield from parse_continued(
                self.parser,
                move.state,
                reply,
                continue_cuts=plan.on_truncation == "continue",
            )
            move = next_move(plan, move.state, reply, outcome)
        return self.finish(move)

    def finish(self, move: Done | GiveUp) -> T:
        """The chain's output for the last move.

        Returns:
            The value, or the ``RetryResult`` with ``include_raw``.

        Raises:
            RetryExhaustedError: ``move`` is a ``GiveUp`` (not with ``include_raw``).
        """
        if self.include_raw:
            result: RetryResult[Any] = {
                "raw": move.reply,
                "parsed": move.value if isinstance(move, Done) else None,
                "parsing_error": move.error if isinstance(move, GiveUp) else None,
                "attempts": list(move.attempts),
                "usage": sum_usage(move.attempts),
                "attempt": len(move.attempts),
            }
            return result  # type: ignore[return-value]
        if isinstance(move, Done):
            value: T = move.value
            return value
        error: RetryExhaustedError = build_exhausted_error(move)
        raise error from move.error
