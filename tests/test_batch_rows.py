"""``jsonrecover batch``'s rows, pinned over every kind of logged record.

``fixtures/batch/expected.json`` holds what the command wrote (rows, exit
code, standard error without its timing line) when it read every record
through a LangChain parser, before it read them with the pure core: reply
strings, messages written as text, OpenAI and LangChain message dicts (both
serialised forms), content blocks, refusals, tool calls, token-limit stops,
broken records and lines, with each repair level, truncation, a schema and
dotted paths. The same logs must give the same bytes, with one job and two.
One line was changed on purpose since: an unusable ``--schema`` is said in
one line, the first of its message, as ``extract`` says it (it was pydantic's
seven-line wrapper of that message, naming the parser class).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from _cli_schemas import CLI_SCHEMAS

from langchain_jsonrecover.cli import main
from langchain_jsonrecover.cli.batch import ParserSpec
from langchain_jsonrecover.cli.extract import Reader
from langchain_jsonrecover.cli.rows import RowReader
from langchain_jsonrecover.records import Parser, recover_line

FIXTURES = Path(__file__).parent / "fixtures" / "batch"
EXPECTED: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "expected.json").read_text(encoding="utf-8")
)


@pytest.fixture
def models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "rows_fixture_models.py").write_text(CLI_SCHEMAS, encoding="utf-8")
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


SPECS = [
    pytest.param(ParserSpec(), id="default"),
    pytest.param(ParserSpec(repair=True), id="repair"),
    pytest.param(ParserSpec(repair=False), id="no_repair"),
    pytest.param(ParserSpec(truncated=True), id="truncated"),
    pytest.param(ParserSpec(regex=r"(\{.*\})", prefer="last"), id="regex"),
    pytest.param(ParserSpec(max_chars=40), id="max_chars"),
]


@pytest.mark.parametrize("spec", SPECS)
def test_each_line_gives_the_row_of_recover_line(spec: ParserSpec) -> None:
    built: list[Parser] = []

    def build() -> Parser:
        built.append(spec.build())
        return built[-1]

    rows = RowReader(spec.reader(), build)
    parser = spec.build()
    lines = (FIXTURES / "records.jsonl").read_bytes().splitlines()
    for number, line in enumerate(lines, 1):
        expected = recover_line(line, parser, line=number)
        assert rows.read(line, None, line=number) == expected, line
    assert len(built) == 1  # once, for the first record LangChain reads


def _no_parser() -> Parser:
    msg = "a plain record needs no parser"
    raise AssertionError(msg)


@pytest.mark.parametrize(
    "record",
    [
        "Sure! [1]",
        "content='[1, 2' additional_kwargs={} response_metadata={}",
        {"role": "assistant", "content": None, "refusal": "No."},
        {"content": "[1", "response_metadata": {"finish_reason": "length"}},
        {"content": ["[", {"type": "text", "text": "1]"}], "additional_kwargs": {}},
        {"type": "ai", "data": {"content": "[2]", "response_metadata": {}}},
        {"lc": 1, "type": "constructor", "id": [], "kwargs": {"content": "[3]"}},
        {"content": "[4]", "additional_kwargs": {"reasoning_content": "hm"}},
        {"content": "[5]", "additional_kwargs": {"tool_calls": []}},
    ],
)
def test_a_plain_record_is_read_without_langchain(record: Any) -> None:
    line = orjson.dumps(record)
    rows = RowReader(Reader.build(), _no_parser)
    assert rows.read(line, None, line=1) == recover_line(line, line=1)
