"""``jsonrecover batch``'s rows, pinned over every kind of logged record.

``fixtures/batch/expected.json`` holds what the command wrote (rows, exit
code, standard error without its timing line) when it read every record
through a LangChain parser, before it read them with the pure core: reply
strings, messages written as text, OpenAI and LangChain message dicts (both
serialised forms), content blocks, refusals, tool calls, token-limit stops,
broken records and lines, with each repair level, truncation, a schema and
dotted paths. The same logs must give the same bytes, with one job and two.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from langchain_jsonrecover.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "batch"
EXPECTED: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "expected.json").read_text(encoding="utf-8")
)
_MODELS = """
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int


People = list[Person]
NotASchema = 5
"""


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rows_fixture_models.py").write_text(_MODELS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.usefixtures("models")
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rows_are_those_written_before(
    capsys: pytest.CaptureFixture[str], name: str, jobs: str
) -> None:
    run = EXPECTED[name]
    argv = ["batch", str(FIXTURES / run["log"]), *run["options"], "--jobs", jobs]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == run["code"]
    assert out.splitlines() == run["rows"]
    assert [line for line in err.splitlines() if not line.endswith("lines/s")] == (
        run["err"]
    )
