"""``jsonrecover demo --agent``: the middleware on the scripted weak model."""

from __future__ import annotations

import sys

import pytest
from langchain_core.messages import HumanMessage

from langchain_jsonrecover._core.prompts.demo import (
    AGENT_ANSWER,
    AGENT_CALL,
    AGENT_QUESTION,
)
from langchain_jsonrecover.cli import main
from langchain_jsonrecover.demo import DemoAgentModel


def test_the_weak_agent_model_has_no_tool_calling() -> None:
    with pytest.raises(NotImplementedError):
        DemoAgentModel().bind_tools([])
    assert DemoAgentModel().invoke([HumanMessage(AGENT_QUESTION)]).content == AGENT_CALL


def test_demo_agent_recovers_the_call_and_reasks_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--agent"]) == 0
    out = capsys.readouterr().out
    assert out.count("--- reply ") == 4  # 3 replies, 1 failure
    assert (
        "tool call get_weather recovered from the text (trailing_comma_removed)" in out
    )
    assert "--- tool result ---\nLisbon, Tuesday morning" in out
    assert AGENT_ANSWER in out
    assert "feedback sent in the same model step" in out
    assert out.endswith('"wind_kph": 12\n}\n')


def test_demo_agent_without_retries_fails_with_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--agent", "--max-retries", "0"]) == 1
    assert "RetryExhaustedError" in capsys.readouterr().err


def test_demo_agent_without_langchain_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "langchain.agents", None)
    assert main(["demo", "--agent"]) == 2
    assert "pip install 'langchain-jsonrecover[agents]'" in capsys.readouterr().err
