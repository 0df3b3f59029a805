"""The command line's start-up: --version, --help, extract and batch load no LangChain.

``batch`` loads it only for a record whose message needs LangChain's reading.

Each case runs in a fresh interpreter (a subprocess), so what the test run
itself imported does not count.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent
_PROBE = """
import sys
from langchain_jsonrecover.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write("loaded: " + " ".join(
    name for name in ("langchain_core", "langchain_jsonrecover.cli.batch",
                      "langchain_jsonrecover.demo", "langchain_jsonrecover.agents")
    if name in sys.modules))
"""
_BATCH_PROBE = """
import sys
from langchain_jsonrecover.cli import main
main(sys.argv[1:])
sys.stderr.write("loaded: " + " ".join(
    name for name in ("langchain_core", "langchain_jsonrecover.parsers")
    if name in sys.modules))
"""
_IMPORT = """
import sys
import langchain_jsonrecover
import langchain_jsonrecover._core.extract
sys.stderr.write("loaded: " + " ".join(
    name for name in ("langchain_core", "langchain_jsonrecover.parsers")
    if name in sys.modules))
"""


def _loaded(code: str, *args: str, reply: str = "") -> str:
    done = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code, *args],
        input=reply,
        capture_output=True,
        text=True,
        check=True,
        cwd=_ROOT,
        env={"PYTHONPATH": str(_ROOT)},
    )
    return done.stderr.rsplit("loaded:", 1)[-1].strip()


@pytest.mark.parametrize(
    "args", [("--version",), ("--help",), ("batch", "--help"), ("demo", "--help")]
)
def test_version_and_help_load_no_langchain(args: tuple[str, ...]) -> None:
    assert _loaded(_PROBE, *args) == ""


_MODELS = """
from pydantic import BaseModel


class Person(BaseModel):
    name: str
"""


@pytest.mark.parametrize(
    ("reply", "args"),
    [
        ('{"a":1}', ()),
        ('{"a":1}', ("extract", "--pretty", "--verbose")),
        ('{"a": 1,}', ()),
        ("Sure: {'a': 1,}", ("--repair",)),
        ('{"items": [1, 2', ("--truncated",)),
        ("<j>[1]</j>", ("--regex", "<j>(.*?)</j>")),
        ('{"name": "Ada"}', ("--schema", "startup_models:Person")),
        ('{"name": 1}', ("--schema", "startup_models:Person")),
        ("no json", ()),
    ],
)
def test_extract_loads_no_langchain(
    tmp_path: Path, reply: str, args: tuple[str, ...]
) -> None:
    (tmp_path / "startup_models.py").write_text(_MODELS, encoding="utf-8")
    probe = _PROBE.replace(
        "import sys\n", f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n", 1
    )
    assert _loaded(probe, *args, reply=reply) == ""


def test_importing_the_package_or_its_core_loads_no_langchain() -> None:
    assert _loaded(_IMPORT) == ""


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("JsonFenceOutputParser", "langchain_jsonrecover.parsers"),
        ("extract_json", "langchain_jsonrecover.extract"),
        ("recover_record", "langchain_jsonrecover.records"),
        ("Extraction", "langchain_jsonrecover._core.extract"),
    ],
)
def test_a_public_name_is_its_modules_own(name: str, module: str) -> None:
    import importlib  # noqa: PLC0415 - the package's names are what is tested

    import langchain_jsonrecover  # noqa: PLC0415

    assert getattr(langchain_jsonrecover, name) is getattr(
        importlib.import_module(module), name
    )
    assert name in dir(langchain_jsonrecover)


def test_an_unknown_name_is_an_attribute_error() -> None:
    import langchain_jsonrecover  # noqa: PLC0415

    with pytest.raises(AttributeError, match="no_such_name"):
        _ = langchain_jsonrecover.no_such_name


# Every kind of record the pure core reads: reply strings (a message written
# as text among them), OpenAI and LangChain message dicts (both serialised
# forms), text blocks, refusals, token-limit stops, broken records and lines.
_PLAIN_LOG = [
    '"Sure! {\\"name\\": \\"Ada\\", \\"age\\": 36}"',
    "\"<think>{x}</think>{'name': 'Ada', 'age': 36,}\"",
    "\"content='[1, 2' additional_kwargs={} response_metadata={}\"",
    '{"role": "assistant", "content": "```json\\n{\\"a\\": 1}\\n```"}',
    '{"role": "assistant", "content": null, "refusal": "No."}',
    '{"content": "{\\"a\\": [1", "response_metadata": {"finish_reason": "length"}}',
    '{"content": [{"type": "text", "text": "[1]"}], "additional_kwargs": {}}',
    '{"type": "ai", "data": {"content": "[2]"}}',
    '{"lc": 1, "type": "constructor", "id": [], "kwargs": {"content": "[3]"}}',
    '{"content": "[4]", "type": "ai", "tool_calls": [], "usage_metadata": null}',
    '{"reply": "x"}',
    "no json",
    "",
]


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("--repair",),
        ("--no-repair",),
        ("--truncated",),
        ("--schema", "startup_models:Person"),
    ],
)
def test_batch_loads_no_langchain_on_plain_records(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    (tmp_path / "startup_models.py").write_text(_MODELS, encoding="utf-8")
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(_PLAIN_LOG) + "\n", encoding="utf-8")
    probe = _BATCH_PROBE.replace(
        "import sys\n", f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n", 1
    )
    assert _loaded(probe, "batch", str(log), *args) == ""


def test_batch_loads_langchain_for_a_record_that_needs_it(tmp_path: Path) -> None:
    # A provider's translator may find a refusal in the metadata: LangChain reads it.
    record = '{"content": "[1]", "response_metadata": {"model_provider": "openai"}}'
    log = tmp_path / "log.jsonl"
    log.write_text(f"{_PLAIN_LOG[0]}\n{record}\n", encoding="utf-8")
    assert _loaded(_BATCH_PROBE, "batch", str(log)) == (
        "langchain_core langchain_jsonrecover.parsers"
    )
