"""Every module path users import keeps its names, pickles and serialization ids.

The layout may move private modules into folders; these paths (the public
names' homes, the modules the guides import from, the command's entry point)
and the ``__module__`` of each class they hold stay as they are.
"""

from __future__ import annotations

import importlib
import inspect
import pickle
import tomllib
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.load import dumpd
from langchain_core.messages import AIMessage

import langchain_jsonrecover
from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRetryChain,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    structured_output,
)

ROOT = Path(__file__).resolve().parents[1]

PUBLIC_PATHS = {
    "langchain_jsonrecover._extract": ["Extraction"],
    "langchain_jsonrecover.agents": ["JsonRecoveryMiddleware"],
    "langchain_jsonrecover.cli": ["main"],
    "langchain_jsonrecover.demo": [
        "DemoAgentModel",
        "DemoChatModel",
        "run_agent_demo",
        "run_demo",
    ],
    "langchain_jsonrecover.errors": [
        "InvalidJsonError",
        "JsonRecoveryError",
        "NoJsonFoundError",
        "ReplyTooLargeError",
        "RetryExhaustedError",
        "SchemaValidationError",
        "UnknownToolError",
    ],
    "langchain_jsonrecover.extract": ["extract_json"],
    "langchain_jsonrecover.outcomes": ["Continue", "Halt"],
    "langchain_jsonrecover.parsers": [
        "JsonFenceOutputParser",
        "RegexJsonOutputParser",
        "TruncationRecoveringOutputParser",
    ],
    "langchain_jsonrecover.partial_models": ["partial_model"],
    "langchain_jsonrecover.records": ["dump_json", "recover_frame", "recover_record"],
    "langchain_jsonrecover.retry": ["JsonRetryChain"],
    "langchain_jsonrecover.structured": ["structured_output"],
    "langchain_jsonrecover.tools": ["ToolSpec", "recover_tool_calls"],
}

PAIRS = [(path, name) for path, names in PUBLIC_PATHS.items() for name in names]


@pytest.mark.parametrize(("path", "name"), PAIRS)
def test_a_public_path_still_exposes_its_name(path: str, name: str) -> None:
    value = getattr(importlib.import_module(path), name)
    if inspect.isclass(value):
        assert value.__module__ == path
    else:
        assert callable(value)


def test_every_public_name_is_at_one_of_these_paths() -> None:
    exposed = {name for names in PUBLIC_PATHS.values() for name in names}
    assert set(langchain_jsonrecover.__all__) <= exposed


def test_the_command_is_still_cli_main() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = pyproject["project"]["scripts"]["jsonrecover"]
    assert target == "langchain_jsonrecover.cli:main"
    module, _, name = target.partition(":")
    assert callable(getattr(importlib.import_module(module), name))


PARSERS = [
    JsonFenceOutputParser(),
    TruncationRecoveringOutputParser(),
    RegexJsonOutputParser(pattern=r"ANSWER: (.*)"),
]


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: type(p).__name__)
def test_a_parser_pickle_names_the_public_module(parser: Any) -> None:
    data = pickle.dumps(parser)
    assert b"langchain_jsonrecover.parsers" in data
    again = pickle.loads(data)  # noqa: S301 (our own bytes)
    assert type(again) is type(parser)
    assert again.parse('ANSWER: {"a": 1}') == {"a": 1}


@pytest.mark.parametrize("parser", PARSERS, ids=lambda p: type(p).__name__)
def test_a_parser_serialization_id_is_pinned(parser: Any) -> None:
    name = type(parser).__name__
    assert dumpd(parser)["id"] == ["langchain_jsonrecover", "parsers", name]
    assert type(parser).lc_id() == ["langchain_jsonrecover", "parsers", name]


def _model() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage('{"a": 1}')]))


def test_the_chains_serialization_ids_are_pinned() -> None:
    chain = JsonRetryChain(model=_model(), parser=JsonFenceOutputParser())
    assert dumpd(chain)["id"] == ["langchain_jsonrecover", "retry", "JsonRetryChain"]
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    structured = structured_output(_model(), schema, strategy="json")
    assert dumpd(structured)["id"] == [
        "langchain_jsonrecover",
        "structured",
        "StructuredOutputChain",
    ]
