"""The ``jsonrecover`` command: exit codes, output format, input handling.

``main(argv)`` is called in-process, reading files from ``tmp_path`` or bytes
from a fake standard input; two tests run the installed entry points in a
subprocess.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from _streams import failing_stdout

import langchain_jsonrecover
from langchain_jsonrecover.cli import main

REPLY = 'Sure! Here it is:\n```json\n{"name": "Ada", "tags": ["x", 1]}\n```\nBye.'
COMPACT = '{"name":"Ada","tags":["x",1]}\n'
PRETTY = '{\n  "name": "Ada",\n  "tags": [\n    "x",\n    1\n  ]\n}\n'


@pytest.fixture
def reply_file(tmp_path: Path) -> Path:
    path = tmp_path / "reply.txt"
    path.write_text(REPLY, encoding="utf-8")
    return path


def write_bytes(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "reply.bin"
    path.write_bytes(data)
    return path


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def stderr_lines(capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str]]:
    captured = capsys.readouterr()
    return captured.out, captured.err.splitlines()


# --- commands and sources -------------------------------------------------------


@pytest.mark.parametrize(
    "prefix",
    [
        pytest.param([], id="default_command"),
        pytest.param(["extract"], id="explicit_extract"),
    ],
)
def test_file_argument(
    capsys: pytest.CaptureFixture[str], reply_file: Path, prefix: list[str]
) -> None:
    assert main([*prefix, str(reply_file)]) == 0
    assert capsys.readouterr() == (COMPACT, "")


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="no_arguments"),
        pytest.param(["-"], id="dash"),
        pytest.param(["extract"], id="explicit_extract"),
        pytest.param(["extract", "-"], id="explicit_extract_dash"),
        pytest.param(["--pretty"], id="option_only"),
    ],
)
def test_standard_input(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    feed_stdin(monkeypatch, REPLY.encode())
    assert main(argv) == 0
    expected = PRETTY if "--pretty" in argv else COMPACT
    assert capsys.readouterr() == (expected, "")


def test_argv_defaults_to_sys_argv(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    reply_file: Path,
) -> None:
    monkeypatch.setattr(sys, "argv", ["jsonrecover", str(reply_file), "--pretty"])
    assert main() == 0
    assert capsys.readouterr().out == PRETTY


# --- output format --------------------------------------------------------------

OUTPUTS: list[object] = [
    pytest.param('{"a": 1}', [], '{"a":1}\n', id="compact_object"),
    pytest.param('{"a": 1}', ["--pretty"], '{\n  "a": 1\n}\n', id="pretty_object"),
    pytest.param("x [1, 2] y", [], "[1,2]\n", id="compact_array_from_prose"),
    pytest.param(
        "[1, [2]]", ["--pretty"], "[\n  1,\n  [\n    2\n  ]\n]\n", id="pretty_nested"
    ),
    pytest.param("{}", ["--pretty"], "{}\n", id="pretty_empty_object"),
    pytest.param('{"é": "ü✓"}', [], '{"é":"ü✓"}\n', id="utf8_kept_unescaped"),
    pytest.param('{"a": 1.5e300}', [], '{"a":1.5e+300}\n', id="float"),
    pytest.param('{"a": true, "b": null}', [], '{"a":true,"b":null}\n', id="literals"),
]


@pytest.mark.parametrize(("reply", "options", "expected"), OUTPUTS)
def test_output_format(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    reply: str,
    options: list[str],
    expected: str,
) -> None:
    path = write_bytes(tmp_path, reply.encode())
    assert main([*options, str(path)]) == 0
    assert capsys.readouterr() == (expected, "")


def test_pretty_output_is_two_space_indented_json(
    capsys: pytest.CaptureFixture[str], reply_file: Path
) -> None:
    assert main(["--pretty", str(reply_file)]) == 0
    out = capsys.readouterr().out
    assert out == PRETTY
    assert orjson.loads(out) == {"name": "Ada", "tags": ["x", 1]}


# --- --regex --------------------------------------------------------------------

REGEX_OK: list[object] = [
    pytest.param(
        r"<json>(.*?)</json>",
        'a {"decoy": 1} <json>{"a": 1}</json>',
        '{"a":1}\n',
        id="tagged_capture_beats_prose",
    ),
    pytest.param(
        r"ANSWER:(.*)", "ANSWER: ```json\n[1, 2]\n```", "[1,2]\n", id="fence_in_capture"
    ),
]


@pytest.mark.parametrize(("pattern", "reply", "expected"), REGEX_OK)
def test_regex(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pattern: str,
    reply: str,
    expected: str,
) -> None:
    path = write_bytes(tmp_path, reply.encode())
    assert main(["--regex", pattern, str(path)]) == 0
    assert capsys.readouterr() == (expected, "")


BAD_PATTERNS: list[object] = [
    pytest.param(r"(a)(b)", "exactly one capture group, it has 2", id="two_groups"),
    pytest.param(r"abc", "exactly one capture group, it has 0", id="no_group"),
    pytest.param(r"(", "does not compile", id="does_not_compile"),
]


@pytest.mark.parametrize(("pattern", "message"), BAD_PATTERNS)
def test_bad_regex_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    reply_file: Path,
    pattern: str,
    message: str,
) -> None:
    assert main(["extract", "--regex", pattern, str(reply_file)]) == 2
    out, err = stderr_lines(capsys)
    assert out == ""
    assert len(err) == 1
    assert err[0].startswith("jsonrecover: ")
    assert message in err[0]


def test_regex_that_matches_nothing_is_no_json(
    capsys: pytest.CaptureFixture[str], reply_file: Path
) -> None:
    assert main(["--regex", r"<json>(.*?)</json>", str(reply_file)]) == 1
    out, err = stderr_lines(capsys)
    assert out == ""
    assert len(err) == 1
    assert err[0].startswith("jsonrecover: NoJsonFoundError:")
    assert "<json>(.*?)</json>" in err[0]


# --- file errors ----------------------------------------------------------------


def test_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    assert main([str(missing)]) == 2
    out, err = stderr_lines(capsys)
    assert out == ""
    assert err == [f"jsonrecover: cannot read {missing}: No such file or directory"]


def test_directory_instead_of_a_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["extract", str(tmp_path)]) == 2
    out, err = stderr_lines(capsys)
    assert out == ""
    assert len(err) == 1
    assert err[0].startswith(f"jsonrecover: cannot read {tmp_path}:")


def test_unknown_option_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], reply_file: Path
) -> None:
    # argparse reports usage errors by exiting with status 2 itself.
    with pytest.raises(SystemExit) as caught:
        main(["--no-such-option", str(reply_file)])
    assert caught.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "usage: jsonrecover" in captured.err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--help"])
    assert caught.value.code == 0
    assert "extract" in capsys.readouterr().out


# --- failures: exit 1 and one line on stderr ------------------------------------

FAILURES: list[object] = [
    pytest.param(b"Hello, no data here.", [], "NoJsonFoundError", id="prose_only"),
    pytest.param(b"", [], "NoJsonFoundError", id="empty_input"),
    pytest.param(b"<think>{}</think>", [], "NoJsonFoundError", id="reasoning_only"),
    pytest.param(b'{"a" 1}', ["--no-repair"], "InvalidJsonError", id="invalid"),
    pytest.param(b'x {"a": [1, 2', [], "InvalidJsonError", id="truncated"),
    pytest.param(b"[" * 5000, [], "InvalidJsonError", id="too_deep"),
    pytest.param(
        b'{"a": "a long enough reply"}',
        ["--max-chars", "10"],
        "ReplyTooLargeError",
        id="over_max_chars",
    ),
]


@pytest.mark.parametrize(("data", "options", "error"), FAILURES)
def test_failure_is_exit_1_with_one_stderr_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    data: bytes,
    options: list[str],
    error: str,
) -> None:
    path = write_bytes(tmp_path, data)
    assert main([*options, str(path)]) == 1
    out, err = stderr_lines(capsys)
    assert out == ""
    assert len(err) == 1, err
    assert err[0].startswith(f"jsonrecover: {error}: "), err


def test_max_chars_admits_a_reply_of_exactly_that_length(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = b'{"a": 1}'
    path = write_bytes(tmp_path, data)
    assert main(["--max-chars", str(len(data)), str(path)]) == 0
    assert capsys.readouterr().out == '{"a":1}\n'


# --- bytes that are not clean UTF-8 ---------------------------------------------

ENCODINGS: list[object] = [
    pytest.param(b'\xef\xbb\xbf{"a": 1}', '{"a":1}\n', id="utf8_bom"),
    pytest.param(b"\xef\xbb\xbf\n```json\n[1]\n```", "[1]\n", id="utf8_bom_then_fence"),
    pytest.param(b'\xff\xfe{"a": 1}', '{"a":1}\n', id="invalid_bytes_before_json"),
    pytest.param(b'{"a": 1}\xff\xfe', '{"a":1}\n', id="invalid_bytes_after_json"),
    pytest.param(
        b'{"a": "x\xffy"}', '{"a":"x\\ufffdy"}\n', id="invalid_byte_in_string"
    ),
    pytest.param(
        'Voilà : {"clé": "été"}'.encode(), '{"clé":"été"}\n', id="non_ascii_prose"
    ),
    pytest.param(b'{"a": 1}\r\n', '{"a":1}\n', id="crlf_line_ending"),
]


@pytest.mark.parametrize(("data", "expected"), ENCODINGS)
def test_input_bytes(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    expected: str,
) -> None:
    feed_stdin(monkeypatch, data)
    assert main([]) == 0
    out, err = capsys.readouterr()
    assert orjson.loads(out) == orjson.loads(expected)
    assert out.endswith("\n")
    assert err == ""


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xff\xfe", id="bom_of_utf16_only"),
        pytest.param(b"\xff\xfe\x80\x81garbage\xc3", id="undecodable_garbage"),
        pytest.param('{"a": 1}'.encode("utf-16"), id="utf16_encoded_json"),
    ],
)
def test_undecodable_input_is_a_clean_failure(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
) -> None:
    feed_stdin(monkeypatch, data)
    assert main([]) == 1
    out, err = stderr_lines(capsys)
    assert out == ""
    assert len(err) == 1
    assert err[0].startswith("jsonrecover: NoJsonFoundError: ")


# --- size -----------------------------------------------------------------------


def test_one_megabyte_reply(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    items = [{"id": i, "name": f"item {i}", "ok": i % 2 == 0} for i in range(25_000)]
    body = orjson.dumps({"items": items}, option=orjson.OPT_INDENT_2).decode()
    reply = f"Here is the list you asked for:\n```json\n{body}\n```\nAnything else?"
    assert len(reply) > 1_000_000
    path = write_bytes(tmp_path, reply.encode())
    assert main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert orjson.loads(out) == {"items": items}


# --- --verbose ------------------------------------------------------------------

VERBOSE: list[object] = [
    pytest.param(
        REPLY,
        "jsonrecover: found by fence at (26, 59); repairs: fence_stripped",
        id="fence",
    ),
    pytest.param(
        '{"a": 1}', "jsonrecover: found by raw at (0, 8); repairs: none", id="raw"
    ),
    pytest.param(
        '<think>hm</think> So: {"a": 1}.',
        "jsonrecover: found by prose at (22, 30); "
        "repairs: reasoning_skipped, prose_trimmed",
        id="prose_after_reasoning",
    ),
]


@pytest.mark.parametrize(("reply", "line"), VERBOSE)
def test_verbose_says_how_the_json_was_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, reply: str, line: str
) -> None:
    path = write_bytes(tmp_path, reply.encode())
    assert main(["--verbose", str(path)]) == 0
    out, err = stderr_lines(capsys)
    assert out
    assert err == [line]


def test_not_verbose_is_silent_on_success(
    capsys: pytest.CaptureFixture[str], reply_file: Path
) -> None:
    assert main([str(reply_file)]) == 0
    assert capsys.readouterr().err == ""


# --- installed entry points -----------------------------------------------------


def test_console_script(reply_file: Path) -> None:
    script = Path(sys.executable).parent / "jsonrecover"
    assert script.exists(), script
    done = subprocess.run(  # noqa: S603 - our own script, our own file
        [str(script), "--pretty", str(reply_file)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, PRETTY.encode(), b"")


def test_python_dash_m(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, b"nothing here")
    done = subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "langchain_jsonrecover", "extract", str(path)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().splitlines() == [
        "jsonrecover: NoJsonFoundError: No JSON found in the reply."
    ]


# --schema and --prefer.

MODELS = """
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int
"""


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cli_models.py").write_text(MODELS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_schema_validates_and_prints_the_model(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models_dir: Path,
) -> None:
    feed_stdin(monkeypatch, b'Sure: {"name": "Ada", "age": "36"}')
    assert main(["--schema", "cli_models:Person"]) == 0
    assert orjson.loads(capsys.readouterr().out) == {"name": "Ada", "age": 36}


def test_schema_failure_lists_the_fields(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models_dir: Path,
) -> None:
    feed_stdin(monkeypatch, b'{"name": 1}')
    assert main(["extract", "--schema", "cli_models:Person"]) == 1
    assert capsys.readouterr().err.splitlines() == [
        (
            "jsonrecover: SchemaValidationError: The JSON does not match the schema "
            "Person (2 errors):"
        ),
        "  name: Input should be a valid string (got 1)",
        "  age: Field required",
    ]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cli_models", "--schema takes MODULE:NAME"),
        ("cli_models:Nobody", "has no 'Nobody'"),
        ("no_such_module:Person", "cannot import 'no_such_module'"),
    ],
)
def test_bad_schema_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    models_dir: Path,
    spec: str,
    message: str,
) -> None:
    feed_stdin(monkeypatch, b"{}")
    assert main(["--schema", spec]) == 2
    assert message in capsys.readouterr().err


def test_prefer_last(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    feed_stdin(monkeypatch, b'Example: {"a": 0} Answer: {"a": 1}')
    assert main(["--prefer", "last"]) == 0
    assert orjson.loads(capsys.readouterr().out) == {"a": 1}


# --- --repair, --truncated ------------------------------------------------------


def test_the_default_repairs_what_has_one_reading(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_bytes(tmp_path, b"{'a': True,}")
    assert main([str(path)]) == 0
    assert capsys.readouterr() == ('{"a":true}\n', "")
    assert main(["--no-repair", str(path)]) == 1
    assert "InvalidJsonError" in capsys.readouterr().err
    with pytest.raises(SystemExit) as caught:  # one or the other
        main(["--repair", "--no-repair", str(path)])
    assert caught.value.code == 2


PARSER_OPTIONS: list[object] = [
    pytest.param(b"{'a': True, # on\n}", ["--repair"], '{"a":true}\n', id="repair"),
    pytest.param(
        b'Here:\n```json\n{"items": [{"a": 1}, {"b"',
        ["--truncated"],
        '{"items":[{"a":1},{}]}\n',
        id="truncated",
    ),
    pytest.param(
        b"{'items': [1, 2,", ["--repair", "--truncated"], '{"items":[1,2]}\n', id="both"
    ),
]


@pytest.mark.parametrize(("data", "options", "expected"), PARSER_OPTIONS)
def test_parser_options(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    data: bytes,
    options: list[str],
    expected: str,
) -> None:
    path = write_bytes(tmp_path, data)
    assert main([str(path)]) == 1  # no guess, no cut closed by default
    capsys.readouterr()
    assert main([*options, str(path)]) == 0
    assert capsys.readouterr() == (expected, "")


def test_verbose_lists_the_repairs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_bytes(tmp_path, b'{"a": [1, 2')
    assert main(["--truncated", "--verbose", str(path)]) == 0
    assert capsys.readouterr().err == (
        "jsonrecover: found by raw at (0, 11); repairs: truncation_closed\n"
    )


def test_truncated_with_regex_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], reply_file: Path
) -> None:
    assert main(["--truncated", "--regex", "(.*)", str(reply_file)]) == 2
    assert capsys.readouterr().err == (
        "jsonrecover: --truncated cannot be combined with --regex\n"
    )


# --- --version and the top-level help -------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert (
        capsys.readouterr().out == f"jsonrecover {langchain_jsonrecover.__version__}\n"
    )


def test_version_of_the_installed_program() -> None:
    script = Path(sys.executable).parent / "jsonrecover"
    done = subprocess.run(  # noqa: S603 - our own script
        [str(script), "--version"], capture_output=True, check=False, timeout=120
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().strip() == (
        f"jsonrecover {langchain_jsonrecover.__version__}"
    )


def test_top_level_help_shows_the_default_command_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "{extract,batch,demo}" in out
    assert "--version" in out
    default = out.split("With no command, extract runs:", 1)[1]
    for option in ("--pretty", "--regex", "--schema", "--repair", "--truncated"):
        assert option in default, option
    assert "usage: jsonrecover [extract]" in default


# --- writes that fail -----------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "code", "err"),
    [
        pytest.param(BrokenPipeError(32, "Broken pipe"), 0, "", id="broken_pipe"),
        pytest.param(
            OSError(28, "No space left on device"),
            1,
            "jsonrecover: cannot write standard output: No space left on device\n",
            id="full_device",
        ),
    ],
)
def test_write_errors_in_process(  # noqa: PLR0917 - fixtures and table columns
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    reply_file: Path,
    error: OSError,
    code: int,
    err: str,
) -> None:
    monkeypatch.setattr(sys, "stdout", failing_stdout(error))
    assert main([str(reply_file)]) == code
    assert capsys.readouterr().err == err


def test_full_device(reply_file: Path) -> None:
    script = Path(sys.executable).parent / "jsonrecover"
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(  # noqa: S603 - our own script
            [str(script), str(reply_file)],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    assert done.returncode == 1
    assert done.stderr == (
        b"jsonrecover: cannot write standard output: No space left on device\n"
    )


def test_broken_pipe(tmp_path: Path) -> None:
    # A reply whose JSON is far bigger than a pipe holds; the reader takes 1 byte.
    items = [{"id": i, "name": f"item {i}"} for i in range(20_000)]
    path = write_bytes(tmp_path, orjson.dumps(items))
    script = Path(sys.executable).parent / "jsonrecover"
    with subprocess.Popen(  # noqa: S603 - our own script
        [str(script), "--pretty", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        assert process.stdout.read(1) == b"["
        process.stdout.close()
        err = process.stderr.read()
        code = process.wait(timeout=120)
    assert (code, err) == (0, b"")
