r"""Recovery for LangChain v1 agents: :class:`JsonRecoveryMiddleware`.

A ``wrap_model_call`` middleware for ``langchain.agents.create_agent`` (the
``agents`` extra: ``pip install 'langchain-jsonrecover[agents]'``). On every
model call it:

- recovers tool calls (:func:`~langchain_jsonrecover.tools.recover`): invalid
  calls whose arguments our parser repairs, and calls written in the text;
- re-asks, inside the same model step, when a call cannot be used: the failed
  reply goes back unchanged, followed by one error ``ToolMessage`` per
  tool-call id (the failed call's holds the feedback and its arguments as
  sent); at most ``max_retries`` re-asks per model step, then
  :class:`~langchain_jsonrecover.retry.RetryExhaustedError`;
- with a structured output (its own ``response_format``, or the agent's),
  calls the model without LangChain's structured-output handling, parses the
  reply (the schema-named tool call, or the text) with our parser, and
  returns the value as the agent's ``structured_response``;
- serves models without tool calling (``bind_tools`` raises
  ``NotImplementedError``): the tools are described in the system message
  and calls written in the text become tool calls;
- reads a provider error that carries the raw text of a call it could not
  parse (Ollama's ``error parsing tool call: raw='…'``) as that call.

Events ``jsonrecover.recovery`` and ``jsonrecover.retry`` reach callbacks
(``astream_events``) and LangGraph's ``stream_mode="custom"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_jsonrecover._core.prompts.tools import (
    NOT_EXECUTED,
    describe_tools,
    read_raw_call,
    write_calls_as_text,
    write_provider_error_feedback,
    write_tool_result,
)
from langchain_jsonrecover._core.sync_or_async import Call, arun_steps, run_steps
from langchain_jsonrecover.errors import InvalidJsonError
from langchain_jsonrecover.outcomes import Continue
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.events import RECOVERY_EVENT, aemit_event, emit_event
from langchain_jsonrecover.retry import RETRY_EVENT
from langchain_jsonrecover.retry.parsing import parse_reply
from langchain_jsonrecover.retry.steps import (
    Ask,
    Done,
    GiveUp,
    Move,
    Outcome,
    Plan,
    Rejected,
    build_exhausted_error,
    first_ask,
    next_move,
)
from langchain_jsonrecover.retry.turns import append_to_system, read_call
from langchain_jsonrecover.structured import attach_schema
from langchain_jsonrecover.tools import Recovered, ToolSpec, recover, tool_specs
from langchain_jsonrecover.tools.arguments import answer_from_a_call

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        ModelRequest,
        ModelResponse,
    )
except ImportError as exc:  # pragma: no cover - exercised without langchain
    _INSTALL = (
        "langchain_jsonrecover.agents needs langchain>=1.5: "
        "pip install 'langchain-jsonrecover[agents]'"
    )
    raise ImportError(_INSTALL) from exc

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Generator, Sequence

    from langchain_core.tools import BaseTool

    from langchain_jsonrecover._core.levels import Repair
    from langchain_jsonrecover.parsers.base import _JsonRecoveringParser

__all__ = ["JsonRecoveryMiddleware"]

_STRATEGIES = ("ToolStrategy", "ProviderStrategy", "AutoStrategy")


def _read_schema(response_format: Any) -> Any:
    """The schema of a ``response_format``: a strategy's, or the format itself."""
    if type(response_format).__name__ in _STRATEGIES:
        return response_format.schema
    return response_format


def _binds_tools(model: Any, tools: Sequence[Any]) -> bool:
    """Whether the model has tool calling (its ``bind_tools`` is implemented)."""
    try:
        model.bind_tools(list(tools))
    except NotImplementedError:
        return False
    return True


def _collect_specs(tools: Sequence[BaseTool | dict[str, Any]]) -> dict[str, ToolSpec]:
    """The specs of the tools that describe themselves (not provider built-ins)."""
    specs: dict[str, ToolSpec] = {}
    for tool in tools:
        try:
            specs.update(tool_specs([tool]))
        except (TypeError, ValueError):
            continue  # a provider's built-in tool, or a dict without jsonschema
    return specs


@dataclass(frozen=True, slots=True)
class _Job:
    """One model step: the request to send and how to judge each reply."""

    request: ModelRequest[Any]
    plan: Plan
    specs: dict[str, ToolSpec]
    parser: _JsonRecoveringParser[Any] | None
    schema_name: str | None
    tools_bound: bool


@dataclass(frozen=True, slots=True)
class _Read:
    """A reply whose tool calls are usable: parse it for the structured value."""

    message: AIMessage
    call_id: str | None


class JsonRecoveryMiddleware(AgentMiddleware[Any, Any, Any]):
    r"""Recover tool calls and structured output in ``create_agent``.

    Example:
        >>> from langchain.agents import create_agent
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> from pydantic import BaseModel
        >>> from langchain_jsonrecover import JsonFenceOutputParser
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> model = GenericFakeChatModel(
        ...     messages=iter(['```json\n{"name": "Ada", "age": 36,}\n```'])
        ... )
        >>> agent = create_agent(
        ...     model,
        ...     middleware=[
        ...         JsonRecoveryMiddleware(
        ...             response_format=Person,
        ...             parser=JsonFenceOutputParser(repair=True),
        ...         )
        ...     ],
        ... )
        >>> agent.invoke({"messages": [("user", "Who?")]})["structured_response"]
        Person(name='Ada', age=36)
    """

    def __init__(
        self,
        *,
        response_format: Any = None,
        parser: _JsonRecoveringParser[Any] | None = None,
        max_retries: int = 2,
        repair: Repair = "safe",
    ) -> None:
        """Create the middleware.

        Args:
            response_format: The structured output's schema (a pydantic
                model, TypedDict, dataclass or JSON-schema dict, or a
                ``ToolStrategy``/``ProviderStrategy``/``AutoStrategy``); else
                the agent's own ``response_format`` is used, if any.
            parser: One of our parsers (an instance) for the structured
                output; default ``JsonFenceOutputParser()``.
            max_retries: Re-asks allowed per model step.
            repair: The repairs of tool-call arguments: ``"safe"`` (the
                default, as for every parser, the answer's included): only
                those with one reading; ``True``: the single-edit search and
                ``#`` comments too (a ``*_guessed`` repair never makes a
                call); ``False``: none.

        Raises:
            TypeError: ``parser`` is not an instance of our parsers, or
                ``max_retries`` is not an int.
            ValueError: ``max_retries`` is negative, or the schema unusable.
        """
        super().__init__()
        if isinstance(max_retries, bool) or not isinstance(max_retries, int):
            msg = f"max_retries must be an int, got a {type(max_retries).__name__}"
            raise TypeError(msg)
        if max_retries < 0:
            msg = f"max_retries counts re-asks, cannot be negative: {max_retries}"
            raise ValueError(msg)
        self.response_format = response_format
        self.max_retries = max_retries
        self.repair = repair
        self.parser = parser
        self._own = (
            attach_schema(parser, _read_schema(response_format))
            if response_format is not None
            else None
        )
        if response_format is None and parser is not None:
            attach_schema(parser, None)  # checks the parser's type
        # Keyed by id, holding the key's object so that the id stays its own.
        self._parsers: dict[int, tuple[Any, _JsonRecoveringParser[Any]]] = {}
        self._specs: dict[int, tuple[Any, ToolSpec]] = {}

    # --- preparing a model step ---------------------------------------------------

    def _prepare_job(self, request: ModelRequest[Any]) -> _Job:
        if self.response_format is not None and request.response_format is not None:
            msg = (
                "JsonRecoveryMiddleware(response_format=...) and the agent's "
                "response_format were both given: give one"
            )
            raise ValueError(msg)
        parser = self._own
        if parser is None and request.response_format is not None:
            parser = self._get_parser(_read_schema(request.response_format))
        specs = _collect_specs(request.tools)
        schema_tool: dict[str, Any] | None = None
        schema_name: str | None = None
        if parser is not None:
            try:
                schema_tool = convert_to_openai_tool(parser.pydantic_object)
            except (TypeError, ValueError):
                schema_tool = None  # a union: answered in text only
            else:
                schema_name = str(schema_tool["function"]["name"])
                specs = {
                    **specs,
                    schema_name: self._build_schema_spec(schema_tool, parser),
                }
        tools: list[BaseTool | dict[str, Any]] = list(request.tools)
        if schema_tool is not None:
            tools.append(schema_tool)
        added: list[str] = []
        tools_bound = bool(tools) and _binds_tools(request.model, tools)
        answer = parser.get_format_instructions() if parser is not None else ""
        if tools and not tools_bound:
            # The schema is the answer's format, not a tool to call: one
            # instruction lists the real tools, then the answer's form.
            described = [
                (s.name, s.description, s.parameters)
                for s in specs.values()
                if s.name != schema_name
            ]
            added.append(describe_tools(described, answer) if described else answer)
            tools = []
        elif answer:
            added.append(answer)
        prepared = request.override(
            response_format=None,
            tools=tools,
            tool_choice=request.tool_choice if tools_bound else None,
        )
        if added:
            current = [request.system_message] if request.system_message else []
            system = append_to_system(current, "\n\n".join(added))[0]
            if isinstance(system, SystemMessage):
                prepared = prepared.override(system_message=system)
        base: tuple[BaseMessage, ...] = (
            tuple(request.messages)
            if tools_bound or not added
            else tuple(_write_history_as_text(request.messages))
        )
        plan = Plan(base, self.max_retries, tools_bound=tools_bound)
        return _Job(prepared, plan, specs, parser, schema_name, tools_bound)

    def _get_parser(self, schema: Any) -> _JsonRecoveringParser[Any]:
        """Our parser for the agent's schema, built once per schema."""
        key = id(schema)
        if key not in self._parsers:
            self._parsers[key] = (schema, attach_schema(self.parser, schema))
        return self._parsers[key][1]

    def _build_schema_spec(
        self, schema_tool: dict[str, Any], parser: _JsonRecoveringParser[Any]
    ) -> ToolSpec:
        """The schema as a tool: validated by our parser's schema, built once."""
        key = id(parser)
        if key not in self._specs:
            function = schema_tool["function"]
            validator: JsonFenceOutputParser[Any] = JsonFenceOutputParser(
                pydantic_object=parser.pydantic_object
            )
            spec = ToolSpec(
                str(function["name"]),
                str(function.get("description") or ""),
                dict(function.get("parameters") or {}),
                validator,
            )
            self._specs[key] = (parser, spec)
        return self._specs[key][1]

    # --- judging a reply -----------------------------------------------------------

    def _recover(self, job: _Job, reply: AIMessage) -> Recovered:
        return recover(reply, job.specs, repair=self.repair)

    def _judge_calls(
        self, job: _Job, reply: AIMessage, recovered: Recovered, provider_error: str
    ) -> Rejected | _Read | list[BaseMessage]:
        """After tool-call recovery: a failure, a reply to parse, or the result."""
        message = recovered.message
        if recovered.failures:
            failed_id, failure = recovered.failures[0]
            return Rejected(failure, str(failure.observation or failure), failed_id)
        if provider_error and not message.tool_calls:
            feedback = write_provider_error_feedback(provider_error)
            error = InvalidJsonError(
                feedback, llm_output=str(reply.text), observation=feedback
            )
            return Rejected(error, feedback)
        if job.parser is None:
            return [message]
        name = (job.schema_name or "").casefold()
        if not any(c["name"].casefold() == name for c in message.tool_calls) and (
            message.tool_calls
        ):
            return [message]  # other tools first; the answer comes later
        other = answer_from_a_call(message, job.specs, job.schema_name or "")
        if other is not None:
            return Rejected(other, str(other))
        found = read_call(message, job.schema_name)
        return _Read(message, found[1] if found is not None else None)

    def _build_response(
        self, read: _Read, outcome: Outcome
    ) -> ModelResponse[Any] | Rejected:
        if not isinstance(outcome, Continue):
            return outcome
        message = read.message
        result: list[BaseMessage] = [message]
        for call in message.tool_calls:
            if call.get("id") is None:
                continue
            if call["id"] == read.call_id:
                text = f"Returning structured response: {outcome.value!r}"
                result.append(
                    ToolMessage(text, tool_call_id=call["id"], name=call["name"])
                )
            else:
                result.append(
                    ToolMessage(
                        NOT_EXECUTED,
                        tool_call_id=call["id"],
                        name=call["name"],
                        status="error",
                    )
                )
        return ModelResponse(result=result, structured_response=outcome.value)

    # --- the hooks ------------------------------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model, recover its tool calls and structured output, re-ask.

        Args:
            request: The agent's model request.
            handler: Calls the model.

        Returns:
            The response: the reply (with recovered tool calls), and, with a
            structured output, the schema call's ``ToolMessage`` and the value.

        Raises:
            RetryExhaustedError: No usable reply within ``max_retries``.
            ValueError: Two response formats were given.
        """
        return run_steps(self._drive_steps(request, handler))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async twin of :meth:`wrap_model_call`.

        Args:
            request: The agent's model request.
            handler: Calls the model.

        Returns:
            The response, as :meth:`wrap_model_call`.

        Raises:
            RetryExhaustedError: No usable reply within ``max_retries``.
            ValueError: Two response formats were given.
        """
        return await arun_steps(self._drive_steps(request, handler))

    def _drive_steps(
        self, request: ModelRequest[Any], handler: Callable[..., Any]
    ) -> Generator[Call, Any, ModelResponse[Any]]:
        """One model step: call, recover, judge, re-ask; yields each call and event.

        ``handler`` (sync or async) fills both slots of its ``Call``.
        """
        job = self._prepare_job(request)
        move: Move = first_ask(job.plan)
        while isinstance(move, Ask):
            if move.event is not None:
                yield Call(emit_event, aemit_event, (RETRY_EVENT, move.event))
            messages = cast("list[AnyMessage]", list(move.messages))
            asked = job.request.override(messages=messages)
            try:
                response = yield Call(handler, handler, (asked,))
                reply, provider_error = _find_reply(response), ""
            except Exception as error:  # noqa: BLE001 - only a raw-call error is read
                reply, provider_error = _read_error_call(error)
            recovered = self._recover(job, reply)
            for payload in recovered.events:
                yield Call(emit_event, aemit_event, (RECOVERY_EVENT, payload))
            verdict = self._judge_calls(job, reply, recovered, provider_error)
            if isinstance(verdict, list):
                return ModelResponse(result=verdict)
            if isinstance(verdict, _Read):
                assert job.parser is not None  # noqa: S101 - _Read needs a parser
                outcome = yield from parse_reply(job.parser, verdict.message)
                done = self._build_response(verdict, outcome)
                if isinstance(done, ModelResponse):
                    return done
                verdict = done
            move = next_move(job.plan, move.state, reply, verdict)
        return _finish(move)


def _write_history_as_text(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The conversation for a model without tool calling: calls and results as text.

    An ``AIMessage``'s tool calls become the JSON it was told to write; a
    ``ToolMessage`` becomes a user turn with the result. The caller's messages
    are not mutated.
    """
    history: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            shown = write_calls_as_text(
                [(c["name"], c["args"]) for c in message.tool_calls]
            )
            text = str(message.text).strip()
            history.append(
                AIMessage(f"{text}\n\n{shown}" if text else shown, name=message.name)
            )
        elif isinstance(message, ToolMessage):
            name = message.name or "tool"
            history.append(HumanMessage(write_tool_result(name, str(message.text))))
        else:
            history.append(message)
    return history


def _finish(move: Done | GiveUp) -> ModelResponse[Any]:
    if isinstance(move, GiveUp):
        raise build_exhausted_error(move) from move.error
    return ModelResponse(result=[move.reply], structured_response=move.value)


def _find_reply(response: Any) -> AIMessage:
    """The AI message of a handler's response."""
    messages = getattr(response, "result", None)
    if messages is None:
        messages = [response]
    for message in messages:
        if isinstance(message, AIMessage):
            return message
    msg = f"the model step returned no AIMessage: {response!r}"
    raise TypeError(msg)


def _read_error_call(error: Exception) -> tuple[AIMessage, str]:
    """A provider error that carries a raw call, as a reply; else re-raise."""
    found = read_raw_call(str(error))
    if found is None:
        raise error
    raw, reason = found
    return AIMessage(raw), reason or type(error).__name__
