r"""``structured_output``: ``with_structured_output`` for every chat model.

A drop-in for ``model.with_structured_output(schema, **kwargs)`` that also
serves models without tool calling or JSON mode: the schema's format
instructions go into the system message and :class:`JsonRetryChain` asks
until the reply parses. With ``strategy="auto"``, a model with tool calling is
asked natively first; when that gives no value (a model that ignores tools
answers in text, and LangChain returns ``None``) or fails to parse, the reply
is parsed as text, and the JSON strategy takes over within the same budget.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, cast, overload

from langchain_core.exceptions import ModelRefusalError
from langchain_core.language_models import LanguageModelInput  # noqa: TC002 - fields
from langchain_core.runnables import Runnable  # noqa: TC002 - a field's type
from pydantic import ConfigDict, SkipValidation

from langchain_jsonrecover._core.prompts.retry import prepend_system_prompt
from langchain_jsonrecover._core.sync_or_async import Call, Steps
from langchain_jsonrecover.errors import Attempt
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.base import _JsonRecoveringParser, raise_if_refused
from langchain_jsonrecover.retry import (
    JsonRetryChain,
    RetryResult,
    check_model,
    check_parser,
    configure_attempt,
)
from langchain_jsonrecover.retry.parsing import doubled_call, parse_continued
from langchain_jsonrecover.retry.runnable import ChainRun, LoopRunnable
from langchain_jsonrecover.retry.steps import (
    Move,
    OnTruncation,
    Outcome,
    Rejected,
    State,
    first_ask,
    next_move,
)
from langchain_jsonrecover.retry.stream import AttemptStream, StreamedRaw, split_native
from langchain_jsonrecover.retry.turns import append_to_system, as_reply, to_messages
from langchain_jsonrecover.tools import answer_check, recover, tool_specs
from langchain_jsonrecover.tools.arguments import (
    call_in_prose,
    call_to_another_tool,
)

if TYPE_CHECKING:
    from collections.abc import Generator

    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.output_parsers import BaseOutputParser
    from langchain_core.runnables import RunnableConfig

__all__ = ["StructuredOutputChain", "structured_output"]

T = TypeVar("T")

Strategy = Literal["auto", "json", "native"]
_STRATEGIES = ("auto", "json", "native")


class StructuredOutputChain(LoopRunnable[Any]):
    """What :func:`structured_output` returns: native, JSON, or native then JSON.

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> model = GenericFakeChatModel(messages=iter(['{"answer": 42}']))
        >>> runnable = structured_output(model, {"type": "object"}, strategy="json")
        >>> type(runnable).__name__, runnable.invoke("The answer?")
        ('StructuredOutputChain', {'answer': 42})
    """

    chain: Annotated[JsonRetryChain[Any], SkipValidation()]
    """The JSON strategy: the retry loop over the plain model."""

    native: Annotated[Runnable[LanguageModelInput, Any] | None, SkipValidation()] = None
    """``model.with_structured_output(schema, include_raw=True, ...)``, when
    the model supports it and the strategy allows it."""

    native_spec: Annotated[tuple[Any, dict[str, Any]] | None, SkipValidation()] = None
    """``(schema, kwargs)`` the native runnable was built from: pickling
    drops the runnable (LangChain builds it from classes made at runtime)
    and unpickling builds it again."""

    fallback: bool = True
    """After a native call that gives no value, parse its text and go on with
    the JSON strategy (``"auto"``); else the native result stands."""

    instructions: str = ""
    """The JSON strategy's system text: the caller's system prompt, then the
    schema's format instructions."""

    system_prompt: str | None = None
    """The caller's system prompt, also given to the native call."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        """The schema's type, or a ``dict`` with ``include_raw``."""
        return self.chain.OutputType

    def start_steps(self, input_: LanguageModelInput, run: ChainRun) -> Steps[Any]:
        """Native first (when set), then the JSON strategy's loop.

        Raises:
            RetryExhaustedError: No reply parsed (JSON strategy).
            ModelRefusalError: The model refused.
        """
        chain = self.chain
        base = to_messages(input_)
        plan = chain.plan(append_to_system(base, self.instructions))
        plan = replace(plan, vet=answer_check(chain.parser))
        move: Move = first_ask(plan)
        if self.native is not None:
            child = configure_attempt(run.config, run.manager, 1)
            request = (self._build_native_input(base), child)
            native_call, parse = self._native_call(request, run)
            result = yield native_call
            if isinstance(result, StreamedRaw) and parse is not None:
                raw_input = ({"raw": result.message}, child)
                result = yield Call(parse.invoke, parse.ainvoke, raw_input)
            raw, parsed, error = _unpack(result)
            # The provider's parser takes the first of several calls of the
            # schema; two different ones are two answers: ours asks again.
            doubled = doubled_call(raw, chain.parser) is not None
            if not self.fallback or (
                error is None and parsed is not None and not doubled
            ):
                return self._build_native_result(raw, parsed, error)
            outcome = yield from _parse_native_reply(
                chain.parser, raw, continue_cuts=plan.on_truncation == "continue"
            )
            move = next_move(plan, State(), raw, outcome)
        return (yield from chain.drive_steps(plan, move, run))

    def _native_call(
        self, request: tuple[list[BaseMessage], RunnableConfig], run: ChainRun
    ) -> tuple[Call, Runnable[Any, Any] | None]:
        """The native call, and the parser steps to run after it when streamed.

        ``stream`` streams the model inside the native runnable (the parser
        steps LangChain puts after it would wait for the whole reply), and
        gets a :class:`StreamedRaw` back, which ``start_steps`` then gives to
        those steps. ``invoke`` calls the native runnable whole.
        """
        native = self.native
        if native is None:
            msg = "no native runnable"
            raise TypeError(msg)
        parts = split_native(native)
        if parts is None:
            return Call(native.invoke, native.ainvoke, request, run.kwargs), None
        model, parse = parts
        stream = AttemptStream(
            self.chain.parser, attempt=1, include_raw=self.chain.include_raw
        )

        def merge(chunks: list[Any]) -> StreamedRaw:
            return StreamedRaw(as_reply(stream.merge(chunks)))

        call = Call(
            native.invoke,
            native.ainvoke,
            request,
            run.kwargs,
            stream=model.stream,
            astream=model.astream,
            feed=stream.feed,
            merge=merge,
        )
        return call, parse

    def __getstate__(self) -> dict[Any, Any]:
        """Pickle without the native runnable; it is built again on load."""
        state = super().__getstate__()
        fields = dict(state["__dict__"])
        if self.native_spec is not None:
            fields["native"] = None
        return {**state, "__dict__": fields}

    def __setstate__(self, state: dict[Any, Any]) -> None:
        """Unpickle, building the native runnable again."""
        super().__setstate__(state)
        if self.native_spec is not None and self.native is None:
            schema, kwargs = self.native_spec
            native = _build_native(self.chain.model, schema, kwargs)
            object.__setattr__(self, "native", native)

    def _build_native_input(self, base: tuple[BaseMessage, ...]) -> list[BaseMessage]:
        if self.system_prompt:
            return list(append_to_system(base, self.system_prompt))
        return list(base)

    def _build_native_result(
        self, raw: AIMessage, parsed: Any, error: Exception | None
    ) -> Any:
        if not self.chain.include_raw:
            if error is not None:
                raise error
            return parsed
        result: RetryResult[Any] = {
            "raw": raw,
            "parsed": parsed,
            "parsing_error": error,
            "attempts": [Attempt(reply=raw, error=error, usage=raw.usage_metadata)],
            "usage": raw.usage_metadata,
            "attempt": 1,
        }
        return result


def _parse_native_reply(
    parser: BaseOutputParser[Any], raw: AIMessage, *, continue_cuts: bool
) -> Generator[Call, Any, Outcome]:
    """Parse the native call's reply, its tool calls read as ``recover`` reads them.

    The schema is the one tool: a call it makes in markup or as the whole
    content counts, arguments must be one JSON object, an envelope with a
    member beyond a call's keys is not unwrapped; a call left invalid is
    the feedback. A refusal raises. With ``continue_cuts``, a reply cut at
    the token limit is continued, never closed (``parse_continued``).
    """
    raise_if_refused(raw)
    if isinstance(parser, _JsonRecoveringParser):
        try:
            specs = tool_specs([parser.pydantic_object])
        except (TypeError, ValueError):
            specs = {}  # a schema that is no tool: the parser reads the reply
        if specs:
            recovered = recover(raw, specs, repair=parser.repair)
            if recovered.failures:
                call_id, error = recovered.failures[0]
                known = {c.get("id") for c in raw.invalid_tool_calls}
                feedback = str(error.observation or error)
                return Rejected(error, feedback, call_id if call_id in known else None)
            raw = recovered.message
            unbound = call_to_another_tool(raw, specs) or call_in_prose(raw)
            if unbound is not None:
                return Rejected(unbound[1], str(unbound[1]), unbound[0])
    return (
        yield from parse_continued(parser, State(), raw, continue_cuts=continue_cuts)
    )


def _unpack(result: Any) -> tuple[AIMessage, Any, Exception | None]:
    """The native ``include_raw`` result; a refusal raises.

    A refusal is the parser's ``ModelRefusalError``, or one in the raw reply
    that the native parser did not see (langchain-openai's
    ``additional_kwargs["refusal"]``, a refusal block): never re-asked.
    """
    if not isinstance(result, Mapping) or "raw" not in result:
        msg = "with_structured_output(include_raw=True) returned no 'raw' reply"
        raise TypeError(msg)
    error = result.get("parsing_error")
    if isinstance(error, ModelRefusalError):
        raise error
    raw = as_reply(result["raw"])
    raise_if_refused(raw)
    return raw, result.get("parsed"), error if isinstance(error, Exception) else None


@overload
def structured_output(
    model: Runnable[LanguageModelInput, Any],
    schema: dict[str, Any],
    *,
    strategy: Strategy = "auto",
    include_raw: Literal[False] = False,
    max_retries: int = 2,
    system_prompt: str | None = None,
    parser: _JsonRecoveringParser[Any] | None = None,
    on_truncation: OnTruncation = "reask",
    **kwargs: Any,
) -> Runnable[LanguageModelInput, dict[str, Any]]: ...
@overload
def structured_output(
    model: Runnable[LanguageModelInput, Any],
    schema: type[T],
    *,
    strategy: Strategy = "auto",
    include_raw: Literal[False] = False,
    max_retries: int = 2,
    system_prompt: str | None = None,
    parser: _JsonRecoveringParser[Any] | None = None,
    on_truncation: OnTruncation = "reask",
    **kwargs: Any,
) -> Runnable[LanguageModelInput, T]: ...
@overload
def structured_output(
    model: Runnable[LanguageModelInput, Any],
    schema: dict[str, Any],
    *,
    strategy: Strategy = "auto",
    include_raw: Literal[True],
    max_retries: int = 2,
    system_prompt: str | None = None,
    parser: _JsonRecoveringParser[Any] | None = None,
    on_truncation: OnTruncation = "reask",
    **kwargs: Any,
) -> Runnable[LanguageModelInput, RetryResult[dict[str, Any]]]: ...
@overload
def structured_output(
    model: Runnable[LanguageModelInput, Any],
    schema: type[T],
    *,
    strategy: Strategy = "auto",
    include_raw: Literal[True],
    max_retries: int = 2,
    system_prompt: str | None = None,
    parser: _JsonRecoveringParser[Any] | None = None,
    on_truncation: OnTruncation = "reask",
    **kwargs: Any,
) -> Runnable[LanguageModelInput, RetryResult[T]]: ...
def structured_output(
    model: Runnable[LanguageModelInput, Any],
    schema: Any,
    *,
    strategy: Strategy = "auto",
    include_raw: bool = False,
    max_retries: int = 2,
    system_prompt: str | None = None,
    parser: _JsonRecoveringParser[Any] | None = None,
    on_truncation: OnTruncation = "reask",
    **kwargs: Any,
) -> Runnable[LanguageModelInput, Any]:
    r"""``model.with_structured_output(schema)``, also for models without tools.

    Strategies:

    - ``"json"``: a system message with ``system_prompt`` and then the
      schema's format instructions (appended to the caller's system message
      when there is one), then :class:`JsonRetryChain` with
      ``JsonFenceOutputParser(pydantic_object=schema)``.
    - ``"native"``: ``model.with_structured_output(schema, include_raw=...,
      **kwargs)`` (``system_prompt``, if given, as the system message). As
      there, a model that ignores the tool gives ``None``.
    - ``"auto"`` (default): native when the model supports it (its
      ``with_structured_output`` does not raise ``NotImplementedError``), else
      ``"json"``. When the native call gives no value or fails to parse, the
      reply's calls are read by :func:`recover_tool_calls`' rules with the
      schema as the one tool (a call it cannot use is the feedback), then its
      tool call named after the schema (valid or invalid: its arguments as
      sent), else its text, is parsed by our parser, and
      then the JSON strategy goes on: the native call is the first of the
      ``1 + max_retries`` calls, its reply and the feedback start the
      conversation of the re-ask (sent to the plain model, not the tools).

    A re-ask shows the model what it sent, never an empty turn: a tool
    call's arguments (as sent, for an invalid call) follow the reply's text.
    ``parser`` chooses our parser and its options (``repair=True``,
    ``prefer="last"``, ``TruncationRecoveringOutputParser`` …); the schema is
    given to it. Its ``repair`` serves the text and the tool-call arguments
    alike: the default parser's ``"safe"`` reads a trailing comma in either
    with no re-ask. The runnable pickles.

    ``stream``, ``astream`` and ``astream_events`` stream each attempt's
    partial values as the model streams (the native call's from its tool
    call's ``tool_call_chunks``), then the value ``invoke`` returns; with
    ``include_raw`` each item is a plain dict with ``parsed``, ``raw`` (the
    message so far) and ``attempt`` (see :class:`JsonRetryChain`).

    ``**kwargs`` go to ``with_structured_output`` (``method=``, ``strict=``
    …); the JSON strategy does not use them. A refusal raises
    ``ModelRefusalError`` on every path.

    Args:
        model: The chat model.
        schema: A pydantic model, a ``TypedDict``, a dataclass, or a
            JSON-schema ``dict`` (``dict`` results; needs ``jsonschema`` for
            the JSON strategy).
        strategy: ``"auto"``, ``"json"`` or ``"native"``.
        include_raw: Return ``{"raw", "parsed", "parsing_error", "attempts",
            "usage", "attempt"}`` (the same keys on every path); never raise
            for a parse failure.
        max_retries: Re-asks allowed after the first call.
        system_prompt: Put before the format instructions.
        parser: One of our parsers (an instance), whose options are kept;
            default ``JsonFenceOutputParser()``.
        on_truncation: The JSON strategy's answer to a cut-off reply:
            ``"reask"`` for a shorter answer, or ``"continue"`` (see
            :class:`JsonRetryChain`).
        **kwargs: For ``with_structured_output``.

    Returns:
        A runnable taking what the model takes.

    Raises:
        TypeError: ``model`` is not a chat model or Runnable, or ``parser``
            is not an instance of one of our parsers.
        ValueError: Unknown strategy, a negative ``max_retries``, an
            unusable schema, or a ``parser`` with another schema.
        NotImplementedError: ``strategy="native"`` on a model without it.

    Example:
        >>> from pydantic import BaseModel
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> model = GenericFakeChatModel(
        ...     messages=iter(['{"name": "Ada", "age": "unknown"}',
        ...                    'Sorry! {"name": "Ada", "age": 36}'])
        ... )
        >>> structured_output(model, Person).invoke("Who wrote the first program?")
        Person(name='Ada', age=36)
    """
    check_model(model)
    if strategy not in _STRATEGIES:
        msg = f"strategy must be one of {', '.join(_STRATEGIES)}, got {strategy!r}"
        raise ValueError(msg)
    # The native strategy never parses: a JSON-schema dict must not need jsonschema.
    chosen = attach_schema(parser, None if strategy == "native" else schema)
    chain = JsonRetryChain(
        model=model,
        parser=chosen,
        max_retries=max_retries,
        include_raw=include_raw,
        on_truncation=on_truncation,
    )
    native: Runnable[LanguageModelInput, Any] | None = None
    if strategy != "json":
        try:
            native = _build_native(model, schema, kwargs)
        except NotImplementedError:
            if strategy == "native":
                raise
    runnable = StructuredOutputChain(
        chain=chain,
        native=native,
        native_spec=(schema, dict(kwargs)) if native is not None else None,
        fallback=strategy == "auto",
        instructions=prepend_system_prompt(
            chosen.get_format_instructions(), system_prompt
        ),
        system_prompt=system_prompt,
    )
    return cast("Runnable[LanguageModelInput, Any]", runnable)


def attach_schema(
    parser: _JsonRecoveringParser[Any] | None, schema: Any
) -> _JsonRecoveringParser[Any]:
    """``parser`` (default ``JsonFenceOutputParser()``) with ``schema``, options kept.

    Example:
        >>> repairing = JsonFenceOutputParser(repair=True)
        >>> parser = attach_schema(repairing, {"type": "object"})
        >>> parser.repair, parser.pydantic_object
        (True, {'type': 'object'})

    Raises:
        TypeError: ``parser`` is not an instance of one of our parsers.
        ValueError: ``parser`` already has another schema.
    """
    if parser is None:
        return JsonFenceOutputParser(pydantic_object=schema)
    check_parser(parser)
    if not isinstance(parser, _JsonRecoveringParser):
        msg = (
            "parser must be one of this package's parsers (JsonFenceOutputParser, "
            f"TruncationRecoveringOutputParser, RegexJsonOutputParser), got a "
            f"{type(parser).__name__}"
        )
        raise TypeError(msg)
    if schema is None or parser.pydantic_object is schema:
        return parser
    if parser.pydantic_object is not None:
        msg = (
            "parser already has a schema (pydantic_object) other than the one "
            "given: leave it out of the parser"
        )
        raise ValueError(msg)
    fields = {name: getattr(parser, name) for name in type(parser).model_fields}
    fields["pydantic_object"] = schema
    return type(parser)(**fields)


def _build_native(
    model: Runnable[LanguageModelInput, Any], schema: Any, kwargs: dict[str, Any]
) -> Runnable[LanguageModelInput, Any]:
    method = getattr(model, "with_structured_output", None)
    if method is None:
        msg = f"{type(model).__name__} has no with_structured_output"
        raise NotImplementedError(msg)
    native: Runnable[LanguageModelInput, Any] = method(
        schema, include_raw=True, **kwargs
    )
    return native
