"""``jsonrecover demo``: a retry chain end to end, on a scripted weak model.

:class:`DemoChatModel` is offline and stateless (the script is in
``_demo.py``); :func:`run_demo` runs a
:class:`~langchain_jsonrecover.retry.JsonRetryChain` on it (or on a real
model through ``langchain.chat_models.init_chat_model``) and prints each
reply, the feedback sent and the validated result.
"""

from __future__ import annotations

import importlib
import sys
from abc import abstractmethod
from typing import TYPE_CHECKING, Any, Final

import orjson
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult, LLMResult

from langchain_jsonrecover._core.prompts.demo import (
    AGENT_QUESTION,
    MODEL_NAME,
    QUESTION,
    WeatherReport,
    agent_reply,
    demo_reply,
    estimate_tokens,
    weather_text,
)
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.events import RECOVERY_EVENT
from langchain_jsonrecover.retry import RETRY_EVENT, JsonRetryChain

if TYPE_CHECKING:
    from collections.abc import Sequence
    from uuid import UUID

    from langchain_core.callbacks import CallbackManagerForLLMRun
    from langchain_core.messages import BaseMessage

__all__ = ["DemoAgentModel", "DemoChatModel", "run_agent_demo", "run_demo"]

_PACKAGES: Final = {
    "azure_openai": "langchain-openai",
    "azure_ai": "langchain-azure-ai",
    "bedrock": "langchain-aws",
    "bedrock_converse": "langchain-aws",
    "google_anthropic_vertex": "langchain-google-vertexai",
}


class _ScriptedChatModel(BaseChatModel):
    """A chat model whose reply is its script's answer to the conversation."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        """The scripted reply, with usage estimated from the lengths."""
        turns = [(message.type, str(message.text)) for message in messages]
        text = self._reply(turns)
        prompt = estimate_tokens("".join(turn for _, turn in turns))
        completion = estimate_tokens(text)
        reply = AIMessage(
            text,
            response_metadata={"finish_reason": "stop", "model_name": MODEL_NAME},
            usage_metadata={
                "input_tokens": prompt,
                "output_tokens": completion,
                "total_tokens": prompt + completion,
            },
        )
        return ChatResult(generations=[ChatGeneration(message=reply)])

    @abstractmethod
    def _reply(self, turns: Sequence[tuple[str, str]]) -> str:
        """The reply to the conversation, given as ``(type, text)`` turns."""


class DemoChatModel(_ScriptedChatModel):
    """The scripted weak model of ``jsonrecover demo``: offline and stateless.

    It reads the conversation it is given. Its first reply is prose after a
    ``<think>`` block, with a ```` ```json ```` fence holding a trailing comma
    and a string where ``wind_kph`` needs an integer; it fixes each problem
    only when the feedback names it, and otherwise repeats its first reply.
    Usage is estimated at 4 characters a token.

    Example:
        >>> from langchain_jsonrecover.parsers import JsonFenceOutputParser
        >>> from langchain_jsonrecover.retry import JsonRetryChain
        >>> from langchain_jsonrecover._core.prompts.demo import QUESTION, WeatherReport
        >>> chain = JsonRetryChain(
        ...     model=DemoChatModel(),
        ...     parser=JsonFenceOutputParser(pydantic_object=WeatherReport),
        ... )
        >>> chain.invoke(QUESTION)
        WeatherReport(city='Lisbon', temperature_c=18.5, sky='clear', wind_kph=12)
    """

    def _reply(self, turns: Sequence[tuple[str, str]]) -> str:
        return demo_reply(turns)

    @property
    def _llm_type(self) -> str:
        return "jsonrecover-demo"


class DemoAgentModel(_ScriptedChatModel):
    """The scripted weak model of ``jsonrecover demo --agent``: no tool calling.

    Its ``bind_tools`` is not implemented, so the middleware describes the
    tools in the system message. It writes its tool call as JSON text with a
    trailing comma, then answers with ``wind_kph`` as a string, and fixes it
    only when the feedback names it.

    Example:
        >>> DemoAgentModel().invoke("Weather?").content
        '{"name": "get_weather", "arguments": {"city": "Lisbon",}}'
    """

    def _reply(self, turns: Sequence[tuple[str, str]]) -> str:
        return agent_reply(turns)

    @property
    def _llm_type(self) -> str:
        return "jsonrecover-demo-agent"


class _DemoSetupError(Exception):
    """``--model`` cannot be used; the message says what to do."""


def _load_chat_model(spec: str) -> BaseChatModel:
    """A real chat model from ``PROVIDER:NAME``, through ``init_chat_model``."""
    provider, sep, name = spec.partition(":")
    if not sep or not provider or not name:
        msg = f"--model takes PROVIDER:NAME (e.g. openai:gpt-4o-mini), got {spec!r}"
        raise _DemoSetupError(msg)
    package = _PACKAGES.get(provider, "langchain-" + provider.replace("_", "-"))
    install = (
        f"--model needs langchain and the provider's package: "
        f"pip install 'langchain-jsonrecover[agents]' {package}"
    )
    try:
        chat_models = importlib.import_module("langchain.chat_models")
    except ImportError as exc:
        raise _DemoSetupError(install) from exc
    try:
        model: BaseChatModel = chat_models.init_chat_model(
            name, model_provider=provider
        )
    except ImportError as exc:
        raise _DemoSetupError(install) from exc
    except ValueError as exc:
        msg = f"cannot use --model {spec}: {_take_first_line(str(exc))}"
        raise _DemoSetupError(msg) from exc
    return model


class _DemoPrinter(BaseCallbackHandler):
    """Prints each reply and each feedback as the chain runs."""

    def __init__(self, *, agent: bool = False) -> None:
        self.replies = 0
        self.agent = agent

    def on_llm_end(
        self,
        response: LLMResult,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        self.replies += 1
        text = response.generations[0][0].text if response.generations else ""
        _show(f"--- reply {self.replies} ---\n{text}\n")

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if name == RETRY_EVENT and self.agent:
            _show(
                f"--- reply {self.replies} failed ({data['error']}); "
                f"feedback sent in the same model step ---\n{data['feedback']}\n"
            )
        elif name == RETRY_EVENT:
            _show(
                f"--- reply {data['attempt']} failed ({data['error']}); "
                f"feedback sent ---\n{data['feedback']}\n"
            )
        elif name == RECOVERY_EVENT and "tool_call" in data:
            source = str(data["source"]).replace("_", " ")
            repairs = ", ".join(data["repairs"])
            _show(
                f"--- tool call {data['tool_call']} recovered from the "
                f"{source} ({repairs}) ---\n"
            )

    def on_tool_end(
        self,
        output: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        _show(f"--- tool result ---\n{getattr(output, 'content', output)}\n")


def run_demo(model_spec: str | None, max_retries: int, strategy: str) -> int:
    """Run the demo; return the exit code.

    Args:
        model_spec: ``PROVIDER:NAME`` for a real model, ``None`` for the
            scripted one.
        max_retries: Re-asks allowed.
        strategy: ``"user"`` or ``"system"`` feedback.

    Returns:
        0 with a validated result, 1 without one, 2 when the model cannot be
        set up (a missing package).

    Example:
        >>> run_demo(None, 2, "user")  # doctest: +ELLIPSIS
        Model: jsonrecover-demo-weak-model
        ...
        0
    """
    try:
        model = DemoChatModel() if model_spec is None else _load_chat_model(model_spec)
        chain = JsonRetryChain(
            model=model,
            parser=JsonFenceOutputParser(pydantic_object=WeatherReport),
            max_retries=max_retries,
            feedback_strategy="system" if strategy == "system" else "user",
            include_raw=True,
        )
    except (_DemoSetupError, ValueError) as exc:
        _say(f"jsonrecover: {_take_first_line(str(exc))}")
        return 2
    instructions = chain.parser.get_format_instructions()
    name = MODEL_NAME if model_spec is None else model_spec
    _show(f"Model: {name}\nSystem:\n{instructions}\n\nUser:\n{QUESTION}\n")
    try:
        result = chain.invoke(
            [SystemMessage(instructions), HumanMessage(QUESTION)],
            {"callbacks": [_DemoPrinter()]},
        )
    except Exception as exc:  # noqa: BLE001 - any failure of a real model's call
        _say(f"jsonrecover: the model call failed: {type(exc).__name__}: {exc}")
        return 1
    calls = len(result["attempts"])
    plural = "call" if calls == 1 else "calls"
    usage = result["usage"]
    tokens = (
        f"; tokens: {usage['input_tokens']} in, {usage['output_tokens']} out"
        if usage
        else ""
    )
    parsed = result["parsed"]
    if parsed is None:
        error = result["parsing_error"]
        _show(f"--- no valid reply after {calls} model {plural}{tokens} ---")
        _say(f"jsonrecover: {type(error).__name__}: {_take_first_line(str(error))}")
        return 1
    dumped = orjson.dumps(parsed.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    _show(
        f"--- validated WeatherReport after {calls} model {plural}{tokens} ---\n"
        + dumped.decode()
    )
    return 0


def run_agent_demo(model_spec: str | None, max_retries: int) -> int:
    """Run ``JsonRecoveryMiddleware`` in ``create_agent``; return the exit code.

    Args:
        model_spec: ``PROVIDER:NAME`` for a real model, ``None`` for the
            scripted one (no tool calling: the tools go in the system message).
        max_retries: Re-asks allowed per model step.

    Returns:
        0 with a structured response, 1 without one, 2 when langchain (the
        ``agents`` extra) or the model is missing.

    Example:
        >>> run_agent_demo(None, 2)  # doctest: +ELLIPSIS
        Model: jsonrecover-demo-weak-model (agent, no tool calling)
        ...
        0
    """
    try:
        agents = importlib.import_module("langchain.agents")
        tools = importlib.import_module("langchain_core.tools")
        middleware = importlib.import_module("langchain_jsonrecover.agents")
        model = DemoAgentModel() if model_spec is None else _load_chat_model(model_spec)
    except ImportError:
        _say(
            "jsonrecover: demo --agent needs langchain: "
            "pip install 'langchain-jsonrecover[agents]'"
        )
        return 2
    except _DemoSetupError as exc:
        _say(f"jsonrecover: {_take_first_line(str(exc))}")
        return 2

    def get_weather(city: str) -> str:
        """Get this morning's weather report for a city."""
        return weather_text(city)

    agent = agents.create_agent(
        model,
        tools=[tools.tool(get_weather)],
        middleware=[
            middleware.JsonRecoveryMiddleware(
                response_format=WeatherReport, max_retries=max_retries
            )
        ],
    )
    name = (
        f"{MODEL_NAME} (agent, no tool calling)" if model_spec is None else model_spec
    )
    _show(f"Model: {name}\nUser:\n{AGENT_QUESTION}\n")
    try:
        state = agent.invoke(
            {"messages": [HumanMessage(AGENT_QUESTION)]},
            {"callbacks": [_DemoPrinter(agent=True)]},
        )
    except Exception as exc:  # noqa: BLE001 - any failure, reported in one line
        _say(f"jsonrecover: {type(exc).__name__}: {_take_first_line(str(exc))}")
        return 1
    report = state.get("structured_response")
    if report is None:
        _say("jsonrecover: the agent ended without a structured response")
        return 1
    dumped = orjson.dumps(report.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    _show("--- structured_response: WeatherReport ---\n" + dumped.decode())
    return 0


def _show(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _take_first_line(message: str) -> str:
    return next((line for line in message.splitlines() if line.strip()), message)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
