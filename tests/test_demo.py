"""``jsonrecover demo``: the scripted weak model and the command, offline."""

from __future__ import annotations

import subprocess
import sys
import types
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import BaseOutputParser

from langchain_jsonrecover._core.prompts.demo import (
    FINAL_REPLY,
    FIRST_REPLY,
    QUESTION,
    SECOND_REPLY,
    WeatherReport,
)
from langchain_jsonrecover.cli import main
from langchain_jsonrecover.demo import DemoChatModel
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.retry import JsonRetryChain, RetryExhaustedError

REPORT = WeatherReport(city="Lisbon", temperature_c=18.5, sky="clear", wind_kph=12)
RESULT = """--- validated WeatherReport after 3 model calls; tokens: 750 in, 119 out ---
{
  "city": "Lisbon",
  "temperature_c": 18.5,
  "sky": "clear",
  "wind_kph": 12
}
"""


def weather_chain(**kwargs: Any) -> JsonRetryChain[Any]:
    parser = JsonFenceOutputParser(pydantic_object=WeatherReport)
    return JsonRetryChain(model=DemoChatModel(), parser=parser, **kwargs)


# --- the scripted model ---------------------------------------------------------


def test_first_reply_is_prose_with_broken_json() -> None:
    reply = DemoChatModel().invoke(QUESTION)
    assert reply.content == FIRST_REPLY
    assert "<think>" in FIRST_REPLY
    assert '"wind_kph": "12 km/h",\n}' in FIRST_REPLY
    assert reply.usage_metadata is not None


def test_it_fixes_only_what_the_feedback_names() -> None:
    model = DemoChatModel()
    ask = [HumanMessage(QUESTION), AIMessage("…")]
    comma = "Your reply is not valid JSON: trailing comma at line 11, column 24."
    wind = '- wind_kph: Input should be a valid integer (got "12 km/h")'
    assert model.invoke([*ask, HumanMessage(comma)]).content == SECOND_REPLY
    assert model.invoke([*ask, HumanMessage(wind)]).content == FINAL_REPLY
    assert model.invoke([*ask, HumanMessage("Try again.")]).content == FIRST_REPLY


def test_it_reads_feedback_in_the_system_message() -> None:
    wind = "wind_kph: Input should be a valid integer"
    reply = DemoChatModel().invoke([SystemMessage(wind), HumanMessage(QUESTION)])
    assert reply.content == FINAL_REPLY


def test_format_instructions_alone_do_not_fix_it() -> None:
    instructions = JsonFenceOutputParser(
        pydantic_object=WeatherReport
    ).get_format_instructions()
    reply = DemoChatModel().invoke(
        [SystemMessage(instructions), HumanMessage(QUESTION)]
    )
    assert reply.content == FIRST_REPLY


@pytest.mark.parametrize("strategy", ["user", "system"])
async def test_the_retry_chain_gets_the_report(strategy: Any) -> None:
    chain = weather_chain(feedback_strategy=strategy, include_raw=True)
    result = await chain.ainvoke(QUESTION)
    assert result["parsed"] == REPORT
    assert [a["reply"].content for a in result["attempts"]] == [
        FIRST_REPLY,
        SECOND_REPLY,
        FINAL_REPLY,
    ]


class VagueParser(BaseOutputParser[Any]):
    """Feedback that names nothing."""

    def parse(self, text: str) -> Any:
        raise OutputParserException("bad", observation="Try again.", llm_output=text)


def test_vague_feedback_gets_the_same_reply_and_the_loop_guard_stops() -> None:
    chain = JsonRetryChain(model=DemoChatModel(), parser=VagueParser(), max_retries=5)
    with pytest.raises(RetryExhaustedError, match="stuck") as info:
        chain.invoke(QUESTION)
    assert len(info.value.attempts) == 2


# --- the command ----------------------------------------------------------------


def test_demo_prints_replies_feedback_and_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("Model: jsonrecover-demo-weak-model\nSystem:\n")
    assert f"User:\n{QUESTION}\n" in out
    assert f"--- reply 1 ---\n{FIRST_REPLY}\n" in out
    assert (
        "--- reply 1 failed (invalid_json); feedback sent ---\n"
        "Your reply is not valid JSON: trailing comma at line 11, column 24."
    ) in out
    assert f"--- reply 2 ---\n{SECOND_REPLY}\n" in out
    assert (
        "--- reply 2 failed (schema); feedback sent ---\n"
        "Your JSON does not match the schema:\n"
        "- wind_kph: Input should be a valid integer, unable to parse string as an "
        'integer (got "12 km/h")'
    ) in out
    assert f"--- reply 3 ---\n{FINAL_REPLY}\n" in out
    assert out.endswith(RESULT)
    order = [out.index(f"--- reply {n}") for n in (1, 2, 3)]
    assert order == sorted(order)


def test_demo_with_the_system_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--feedback-strategy", "system"]) == 0
    assert "--- validated WeatherReport after 3 model calls" in capsys.readouterr().out


def test_demo_without_enough_retries_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--max-retries", "1"]) == 1
    out, err = capsys.readouterr()
    assert "--- no valid reply after 2 model calls" in out
    assert err == (
        "jsonrecover: SchemaValidationError: "
        "The JSON does not match the schema WeatherReport (1 error):\n"
    )


def test_demo_negative_retries_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--max-retries", "-1"]) == 2
    assert "max_retries" in capsys.readouterr().err


def test_model_without_langchain_says_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "langchain.chat_models", None)
    assert main(["demo", "--model", "openai:gpt-4o-mini"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "jsonrecover: --model needs langchain and the provider's package: "
        "pip install 'langchain-jsonrecover[agents]' langchain-openai\n"
    )


def fake_langchain(monkeypatch: pytest.MonkeyPatch, init: Any) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []

    def init_chat_model(model: str, *, model_provider: str) -> Any:
        seen.append((model_provider, model))
        return init(model, model_provider)

    module = types.ModuleType("langchain.chat_models")
    module.init_chat_model = init_chat_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain.chat_models", module)
    return seen


def test_model_without_the_provider_package_says_what_to_install(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(model: str, provider: str) -> Any:
        raise ImportError(f"Unable to import langchain_{provider}")

    fake_langchain(monkeypatch, missing)
    assert main(["demo", "--model", "bedrock_converse:claude"]) == 2
    assert capsys.readouterr().err == (
        "jsonrecover: --model needs langchain and the provider's package: "
        "pip install 'langchain-jsonrecover[agents]' langchain-aws\n"
    )
    assert main(["demo", "--model", "google_genai:gemini-2.5-flash"]) == 2
    assert "langchain-google-genai\n" in capsys.readouterr().err


def test_model_from_init_chat_model_runs_the_demo(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = fake_langchain(monkeypatch, lambda model, provider: DemoChatModel())
    assert main(["demo", "--model", "ollama:qwen3:4b"]) == 0
    assert seen == [("ollama", "qwen3:4b")]
    out = capsys.readouterr().out
    assert out.startswith("Model: ollama:qwen3:4b\n")
    assert out.endswith(RESULT)


def test_unknown_provider_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def unknown(model: str, provider: str) -> Any:
        msg = f"Unsupported model_provider={provider!r}.\nSupported: openai, ..."
        raise ValueError(msg)

    fake_langchain(monkeypatch, unknown)
    assert main(["demo", "--model", "nowhere:x"]) == 2
    assert capsys.readouterr().err == (
        "jsonrecover: cannot use --model nowhere:x: "
        "Unsupported model_provider='nowhere'.\n"
    )


@pytest.mark.parametrize("spec", ["gpt-4o", ":x", "openai:"])
def test_model_needs_provider_and_name(
    spec: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--model", spec]) == 2
    assert "--model takes PROVIDER:NAME" in capsys.readouterr().err


def test_a_failing_model_call_exits_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Offline(DemoChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            msg = "connection refused"
            raise ConnectionError(msg)

    fake_langchain(monkeypatch, lambda model, provider: Offline())
    assert main(["demo", "--model", "openai:gpt-4o-mini"]) == 1
    assert capsys.readouterr().err == (
        "jsonrecover: the model call failed: ConnectionError: connection refused\n"
    )


def test_the_installed_command_runs_the_demo() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "langchain_jsonrecover", "demo"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(RESULT)
