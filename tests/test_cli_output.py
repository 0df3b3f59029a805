"""The command line's output, pinned: what ``jsonrecover [extract]`` prints.

Each row is (reply, options, exit code, standard output, standard error), as
the command printed them when it read replies through a LangChain parser
(before it read them with the pure core): the same replies, valid, failing,
cut, with every option, must give the same bytes and exit codes.
"""

from __future__ import annotations

import io
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest
from _cli_schemas import CLI_SCHEMAS

from langchain_jsonrecover.cli import _to_json, main

if TYPE_CHECKING:
    from pathlib import Path


# (reply, options, exit code, standard output, standard error)
_ROWS: list[tuple[str, list[str], int, str, str]] = [
    ('{"a":1}', [], 0, '{"a":1}\n', ""),
    (
        'Sure! ```json\n{"name": "Ada", "tags": ["x", 1]}\n```\nBye.',
        [],
        0,
        '{"name":"Ada","tags":["x",1]}\n',
        "",
    ),
    (
        'Sure! ```json\n{"name": "Ada", "tags": ["x", 1]}\n```\nBye.',
        ["--pretty", "--verbose"],
        0,
        '{\n  "name": "Ada",\n  "tags": [\n    "x",\n    1\n  ]\n}\n',
        "jsonrecover: found by fence at (14, 47); repairs: fence_stripped\n",
    ),
    (
        '<think>plan {x}</think>Here: {"name": "Ada"} Done.',
        ["--verbose"],
        0,
        '{"name":"Ada"}\n',
        "jsonrecover: found by prose at (29, 44); repairs: reasoning_skipped, prose_trimmed\n",
    ),
    (
        "no json here",
        [],
        1,
        "",
        "jsonrecover: NoJsonFoundError: No JSON found in the reply.\n",
    ),
    ("", [], 1, "", "jsonrecover: NoJsonFoundError: No JSON found in the reply.\n"),
    (
        "The set {1, 2, 3} has three elements.",
        [],
        1,
        "",
        "jsonrecover: NoJsonFoundError: No JSON found in the reply.\n",
    ),
    (
        '{"a": 1,}',
        ["--no-repair"],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 1, column 8 of the reply: trailing comma.\n",
    ),
    ('{"a": 1,}', [], 0, '{"a":1}\n', ""),
    (
        '{"a": 1, # note\n}',
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 1, column 10 of the reply: expected a string key.\n",
    ),
    (
        '{"a": 1,}',
        ["--repair", "--verbose"],
        0,
        '{"a":1}\n',
        "jsonrecover: found by raw at (0, 9); repairs: trailing_comma_removed\n",
    ),
    (
        "{'a': True, b: None}",
        ["--repair", "--verbose"],
        0,
        '{"a":true,"b":null}\n',
        "jsonrecover: found by raw at (0, 20); repairs: single_quotes_replaced, python_literal_replaced, key_quoted\n",
    ),
    (
        '{"a" 1}',
        ["--no-repair"],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 1, column 6 of the reply: expected ':' after a key.\n",
    ),
    (
        'line one\n{"a": [1, 2,\n  3 4]}',
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 3, column 5 of the reply: expected ',' or ']'.\n",
    ),
    (
        '{"items": [{"a": 1}, {"b"',
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: The reply looks cut off: the JSON that starts at line 1, column 1 is still open where the reply ends (line 1, column 26).\n",
    ),
    (
        '{"items": [{"a": 1}, {"b"',
        ["--truncated", "--verbose"],
        0,
        '{"items":[{"a":1},{}]}\n',
        "jsonrecover: found by raw at (0, 25); repairs: truncation_closed\n",
    ),
    ('```json\n{"page": "Hello', ["--truncated"], 0, '{"page":"Hello"}\n', ""),
    ("[101, 102, 10", ["--truncated"], 0, "[101,102]\n", ""),
    (
        '{"a": 1} then {"b": 2}',
        ["--prefer", "last", "--verbose"],
        0,
        '{"b":2}\n',
        "jsonrecover: found by prose at (14, 22); repairs: prose_trimmed\n",
    ),
    (
        '{"a": 1} then {"b": 2}',
        ["--verbose"],
        0,
        '{"a":1}\n',
        "jsonrecover: found by raw at (0, 8); repairs: prose_trimmed\n",
    ),
    (
        '<json>{"a": [1, 2]}</json>',
        ["--regex", "<json>(.*?)</json>", "--verbose"],
        0,
        '{"a":[1,2]}\n',
        "jsonrecover: found by regex at (6, 19); repairs: prose_trimmed\n",
    ),
    (
        "nothing",
        ["--regex", "<json>(.*?)</json>"],
        1,
        "",
        "jsonrecover: NoJsonFoundError: No JSON found in the reply: the pattern '<json>(.*?)</json>' matched nothing.\n",
    ),
    (
        '<json>{"a": 1,}</json>',
        ["--regex", "<json>(.*?)</json>", "--no-repair"],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 1, column 14 of the reply: trailing comma.\n",
    ),
    (
        '<json>{"a": 1,}</json>',
        ["--regex", "<json>(.*?)</json>", "--repair"],
        0,
        '{"a":1}\n',
        "",
    ),
    (
        "x",
        ["--regex", "(unclosed"],
        2,
        "",
        "jsonrecover: pattern does not compile: missing ), unterminated subpattern at position 0\n",
    ),
    (
        "x",
        ["--regex", "no group"],
        2,
        "",
        "jsonrecover: pattern must have exactly one capture group, it has 0: 'no group'\n",
    ),
    (
        "x",
        ["--regex", "(.)", "--truncated"],
        2,
        "",
        "jsonrecover: --truncated cannot be combined with --regex\n",
    ),
    ('{"a": 1}', ["--max-chars", "8"], 0, '{"a":1}\n', ""),
    (
        '{"a": 1}',
        ["--max-chars", "7"],
        1,
        "",
        "jsonrecover: ReplyTooLargeError: The reply is too long to scan (8 characters, over 7 characters).\n",
    ),
    (
        '{"name": "Ada", "age": 36}',
        ["--schema", "cli_pinned_people:Person"],
        0,
        '{"name":"Ada","age":36}\n',
        "",
    ),
    (
        '{"name": "Ada", "age": "36"}',
        ["--schema", "cli_pinned_people:Person", "--pretty"],
        0,
        '{\n  "name": "Ada",\n  "age": 36\n}\n',
        "",
    ),
    (
        '{"name": "Ada"}',
        ["--schema", "cli_pinned_people:Person"],
        1,
        "",
        "jsonrecover: SchemaValidationError: The JSON does not match the schema Person (1 error):\n  age: Field required\n",
    ),
    (
        '{"name": 5, "age": "old"}',
        ["--schema", "cli_pinned_people:Person"],
        1,
        "",
        'jsonrecover: SchemaValidationError: The JSON does not match the schema Person (2 errors):\n  name: Input should be a valid string (got 5)\n  age: Input should be a valid integer, unable to parse string as an integer (got "old")\n',
    ),
    (
        '{"x": 1}',
        ["--schema", "cli_pinned_people:Person"],
        1,
        "",
        "jsonrecover: SchemaValidationError: The JSON does not match the schema Person (2 errors):\n  name: Field required\n  age: Field required\n",
    ),
    (
        '{"name": "Ada", "age": 36,}',
        ["--schema", "cli_pinned_people:Person", "--repair", "--verbose"],
        0,
        '{"name":"Ada","age":36}\n',
        "jsonrecover: found by raw at (0, 27); repairs: trailing_comma_removed\n",
    ),
    (
        '{"name": "Ada", "age": 3',
        ["--schema", "cli_pinned_people:Person", "--truncated"],
        1,
        "",
        "jsonrecover: SchemaValidationError: The JSON does not match the schema Person (1 error):\n  age: the reply was cut off in this field's value: its default would stand for what the reply was writing\n",
    ),
    (
        '{"name": "Ada", "ag',
        ["--schema", "cli_pinned_people:Person", "--truncated"],
        1,
        "",
        "jsonrecover: SchemaValidationError: The JSON does not match the schema Person (1 error):\n  ag: the reply was cut off in this field's value: its default would stand for what the reply was writing\n",
    ),
    (
        '[{"name": "Ada", "age": 1}]',
        ["--schema", "cli_pinned_people:People"],
        0,
        '[{"name":"Ada","age":1}]\n',
        "",
    ),
    (
        '{"a": 1}',
        ["--schema", "cli_pinned_people:Missing"],
        2,
        "",
        "jsonrecover: 'cli_pinned_people' has no 'Missing' for --schema\n",
    ),
    (
        '{"a": 1}',
        ["--schema", "nosuchmodule:X"],
        2,
        "",
        "jsonrecover: cannot import 'nosuchmodule' for --schema: No module named 'nosuchmodule'\n",
    ),
    (
        '{"a": 1}',
        ["--schema", "bad"],
        2,
        "",
        "jsonrecover: --schema takes MODULE:NAME, got 'bad'\n",
    ),
    (
        '{"n": 123456789012345678901234567890, "f": 1.5e300, "u": "caf\\u00e9 \\ud83d"}',
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: Invalid JSON at line 1, column 69 of the reply: no low surrogate in string.\n",
    ),
    ('\ufeff{"a": "é"}', [], 0, '{"a":"é"}\n', ""),
    (
        "[" * 300 + "]" * 300,
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: The JSON at line 1, column 1 is nested too deeply: nested deeper than max_depth (200).\n",
    ),
    (
        '{"a": "\x01"}',
        ["--verbose"],
        0,
        '{"a":"\\u0001"}\n',
        "jsonrecover: found by raw at (0, 10); repairs: control_characters_escaped\n",
    ),
    (
        'Answer: {"a": 1',
        [],
        1,
        "",
        "jsonrecover: InvalidJsonError: The reply looks cut off: the JSON that starts at line 1, column 9 is still open where the reply ends (line 1, column 16).\n",
    ),
    (
        "I cannot help with that.",
        ["--schema", "cli_pinned_people:Person"],
        1,
        "",
        "jsonrecover: NoJsonFoundError: No JSON found in the reply.\n",
    ),
]


@pytest.fixture(autouse=True)
def _models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cli_pinned_people.py").write_text(CLI_SCHEMAS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))


def _run(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    reply: str,
    options: list[str],
) -> tuple[int, str, str]:
    stdin = io.TextIOWrapper(io.BytesIO(reply.encode("utf-8")))
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        code = main(options)
    except SystemExit as exc:  # argparse's usage errors
        code = int(exc.code or 0)
    captured = capsysbinary.readouterr()
    return code, captured.out.decode("utf-8"), captured.err.decode("utf-8")


@pytest.mark.parametrize(("reply", "options", "code", "out", "err"), _ROWS)
def test_the_output_is_as_pinned(  # noqa: PLR0917 - fixtures and table columns
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    reply: str,
    options: list[str],
    code: int,
    out: str,
    err: str,
) -> None:
    assert _run(monkeypatch, capsysbinary, reply, options) == (code, out, err)


def test_an_unusable_schema_is_a_usage_error_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = _run(
        monkeypatch, capsysbinary, "{}", ["--schema", "cli_pinned_people:NotASchema"]
    )
    assert (code, out) == (2, "")
    assert err.startswith("jsonrecover: ")
    assert "not a usable schema: 5" in err


@pytest.mark.parametrize(
    "value",
    [
        {"a": 1, "b": [1.5, -0.0, 1e300, 5e-324, 0.1], "c": None, "d": True},
        {"n": 2**63, "m": 2**64 - 1, "k": -(2**63)},
        {"big": 2**64, "bigger": -(10**30)},  # beyond orjson: pydantic-core writes
        {"text": 'café ✓ 🎉 "q" \\ \n\t\u0001 </script>', "": {}},
        [[], {}, [[{}]], ""],
        12345678901234567890123,
    ],
)
@pytest.mark.parametrize("pretty", [False, True])
def test_plain_values_are_written_as_pydantic_core_writes_them(
    value: object, *, pretty: bool
) -> None:
    import pydantic_core  # noqa: PLC0415 - the reference writer

    expected = pydantic_core.to_json(value, indent=2 if pretty else None, fallback=str)
    assert _to_json(value, pretty=pretty, plain=True) == expected


def test_a_plain_reply_loads_no_pydantic() -> None:
    code = (
        "import sys; from langchain_jsonrecover.cli import main; main([]);"
        " print(sorted(m for m in sys.modules if m.startswith('pydantic')))"
    )
    done = subprocess.run(  # noqa: S603 - this interpreter, fixed code
        [sys.executable, "-c", code],
        input='Sure: {"a": [1, 2.5, "x"]}',
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.splitlines() == ['{"a":[1,2.5,"x"]}', "[]"]
