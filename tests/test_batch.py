"""``jsonrecover batch`` end to end: in-process through ``main`` and as a program.

Rows, order under ``--jobs``, malformed lines, the summary, the progress line
(terminal only), standard input, output files, and write failures (a closed
pipe, a full device).
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest
from _streams import failing_stdout

from langchain_jsonrecover import TruncationRecoveringOutputParser
from langchain_jsonrecover.cli import main
from langchain_jsonrecover.cli.batch import CHUNK_LINES, pool_context
from langchain_jsonrecover.records import recover_line

SCRIPT = Path(sys.executable).parent / "jsonrecover"

LOG = [
    b'"Sure! {\\"a\\": 1}"',
    (
        b'{"content": "```json\\n{\\"b\\": [1, 2]}\\n```", '
        b'"response_metadata": {"finish_reason": "stop"}}'
    ),
    b'{"content": "{\\"b\\": [1, 2", "response_metadata": {"finish_reason": "length"}}',
    b"not json",
    b"",
    b'{"reply": "x"}',
    b'{"content": "{\'a\': True, # on\\n}"}',  # a '#' comment: only with --repair
]


def write_log(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def rows_of(out: str | bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in out.splitlines()]


def summary_of(err: str) -> list[str]:
    """The summary without its timing line (the one line that varies)."""
    lines = err.splitlines()
    start = next(i for i, line in enumerate(lines) if " lines: " in line)
    return [line for line in lines[start:] if not line.endswith("lines/s")]


def many_replies(n: int) -> list[bytes]:
    """n log lines of varied shapes, each carrying its own number."""
    shapes = [
        lambda i: orjson.dumps(f'Sure! {{"id": {i}}}'),
        lambda i: orjson.dumps({"content": f'```json\n{{"id": {i}}}\n```'}),
        lambda i: orjson.dumps(
            {
                "content": f'{{"id": {i}, "x": [1',
                "response_metadata": {"done_reason": "length"},
            }
        ),
        lambda i: orjson.dumps({"content": f"nothing for {i}"}),
        lambda i: f"broken {i}".encode(),
    ]
    return [shapes[i % len(shapes)](i) for i in range(n)]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_log(tmp_path / "log.jsonl", LOG)


# --- rows and summary -----------------------------------------------------------


def test_one_row_per_line_in_order(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    assert main(["batch", str(log)]) == 0
    out, err = capsys.readouterr()
    rows = rows_of(out)
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert [r["ok"] for r in rows] == [True, True, False, False, False, False, False]
    assert rows[0] == {
        "line": 1,
        "ok": True,
        "value": {"a": 1},
        "error": None,
        "repairs": ["prose_trimmed"],
        "cut_off": False,
    }
    assert rows[2]["cut_off"] is True
    assert [r["error"]["kind"] for r in rows[2:]] == [
        "InvalidJsonError",
        "MalformedLine",
        "MalformedLine",
        "BadRecord",
        "InvalidJsonError",
    ]
    assert summary_of(err) == [
        "jsonrecover: 7 lines: 2 recovered, 5 failed",
        "  failed: InvalidJsonError 2, MalformedLine 2, BadRecord 1",
        "  repairs: fence_stripped 1, prose_trimmed 1",
        "  cut off at the token limit: 1",
    ]


def test_rows_are_those_of_recover_line(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    # batch and the public helpers run the same code.
    assert main(["batch", str(log)]) == 0
    expected = [recover_line(line, line=n) for n, line in enumerate(LOG, 1)]
    assert rows_of(capsys.readouterr().out) == expected


def test_repair_and_truncated(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    assert main(["batch", str(log), "--repair", "--truncated"]) == 0
    out, err = capsys.readouterr()
    rows = rows_of(out)
    assert rows[2]["value"] == {"b": [1]}  # the number at the cut dropped
    assert rows[2]["repairs"] == ["truncation_closed"]
    assert rows[6]["value"] == {"a": True}
    assert summary_of(err)[:2] == [
        "jsonrecover: 7 lines: 4 recovered, 3 failed",
        "  failed: MalformedLine 2, BadRecord 1",
    ]


def test_malformed_lines_are_reported_with_their_numbers(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    assert main(["batch", str(log)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == [
        (
            "jsonrecover: line 4: MalformedLine: the line is not JSON: "
            "invalid literal, expected 'null' (character 1)"
        ),
        "jsonrecover: line 5: MalformedLine: an empty line, not a JSON record",
    ]


def test_many_malformed_lines_are_reported_up_to_twenty(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_log(tmp_path / "bad.jsonl", [b"{"] * 50 + [b'"[1]"'])
    assert main(["batch", str(path)]) == 0
    out, err = capsys.readouterr()
    assert len(rows_of(out)) == 51
    said = [line for line in err.splitlines() if ": MalformedLine: " in line]
    assert len(said) == 20
    assert said[-1].startswith("jsonrecover: line 20: ")
    assert "further malformed lines are counted in the summary only" in err
    assert "jsonrecover: 51 lines: 1 recovered, 50 failed" in err
    assert "  failed: MalformedLine 50" in err


def test_field_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = [
        orjson.dumps({"id": 1, "run": {"outputs": {"content": '{"a": 1}'}}}),
        orjson.dumps({"id": 2, "run": {"outputs": "[2]"}}),
        orjson.dumps({"id": 3, "run": {}}),
    ]
    path = write_log(tmp_path / "runs.jsonl", lines)
    assert main(["batch", str(path), "--field", "run.outputs"]) == 0
    rows = rows_of(capsys.readouterr().out)
    assert [r["value"] for r in rows] == [{"a": 1}, [2], None]
    assert rows[2]["error"] == {
        "kind": "BadRecord",
        "message": "no key 'outputs' in run (keys: none)",
    }


def test_empty_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write_log(tmp_path / "empty.jsonl", [])
    assert main(["batch", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert summary_of(err) == ["jsonrecover: 0 lines: 0 recovered, 0 failed"]


def test_crlf_and_missing_final_newline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b'"[1]"\r\n"[2]"')
    assert main(["batch", str(path)]) == 0
    assert [r["value"] for r in rows_of(capsys.readouterr().out)] == [[1], [2]]


def test_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"".join(line + b"\n" for line in LOG)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["batch", "-"]) == 0
    rows = rows_of(capsys.readouterr().out)
    assert len(rows) == len(LOG)


def test_output_file(capsys: pytest.CaptureFixture[str], log: Path) -> None:
    out_path = log.parent / "rows.jsonl"
    assert main(["batch", str(log), "-o", str(out_path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert len(rows_of(out_path.read_bytes())) == len(LOG)
    assert "jsonrecover: 7 lines" in err


# --- --jobs -----------------------------------------------------------------------


def test_jobs_keep_the_input_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Enough lines for many chunks in flight at once.
    n = CHUNK_LINES * 12 + 17
    path = write_log(tmp_path / "many.jsonl", many_replies(n))
    assert main(["batch", str(path), "--jobs", "1"]) == 0
    one, err_one = capsys.readouterr()
    assert main(["batch", str(path), "--jobs", "2"]) == 0
    two, err_two = capsys.readouterr()
    assert two == one
    rows = rows_of(two)
    assert [r["line"] for r in rows] == list(range(1, n + 1))
    for i, row in enumerate(rows):
        if row["ok"]:
            assert row["value"]["id"] == i
    assert summary_of(err_two) == summary_of(err_one)
    recovered = sum(1 for i in range(n) if i % 5 < 2)
    assert summary_of(err_two)[0] == (
        f"jsonrecover: {n:,} lines: {recovered:,} recovered, {n - recovered:,} failed"
    )


MODELS = """
from pydantic import BaseModel


class Item(BaseModel):
    id: int
"""


def test_jobs_import_the_schema_in_each_worker(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    (tmp_path / "batch_models.py").write_text(MODELS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    lines = [orjson.dumps(f'{{"id": "{i}"}}') for i in range(600)] + [b'"[1]"']
    path = write_log(tmp_path / "items.jsonl", lines)
    assert (
        main(["batch", str(path), "--schema", "batch_models:Item", "--jobs", "2"]) == 0
    )
    rows = rows_of(capsys.readouterr().out)
    assert [r["value"] for r in rows[:600]] == [{"id": i} for i in range(600)]
    assert rows[600]["error"]["kind"] == "SchemaValidationError"


# --- usage and file errors ------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        pytest.param(
            ["--schema", "nowhere_at_all:Item"],
            "jsonrecover: cannot import 'nowhere_at_all' for --schema",
            id="schema_not_found",
        ),
        pytest.param(
            ["--schema", "Item"],
            "jsonrecover: --schema takes MODULE:NAME",
            id="bad_spec",
        ),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], log: Path, argv: list[str], message: str
) -> None:
    assert main(["batch", str(log), *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(message)
    assert len(err.splitlines()) == 1


def test_missing_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["batch", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"jsonrecover: cannot read {missing}: No such file or directory\n"
    )


def test_output_into_a_missing_folder(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    target = log.parent / "no" / "rows.jsonl"
    assert main(["batch", str(log), "-o", str(target)]) == 2
    assert capsys.readouterr().err == (
        f"jsonrecover: cannot write {target}: No such file or directory\n"
    )


def test_output_onto_the_input_is_refused(
    capsys: pytest.CaptureFixture[str], log: Path
) -> None:
    before = log.read_bytes()
    assert main(["batch", str(log), "-o", str(log)]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert log.read_bytes() == before


@pytest.mark.parametrize("jobs", ["0", "x"])
def test_bad_jobs(capsys: pytest.CaptureFixture[str], log: Path, jobs: str) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["batch", str(log), "--jobs", jobs])
    assert caught.value.code == 2
    assert "--jobs" in capsys.readouterr().err


# --- progress ---------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = write_log(tmp_path / "many.jsonl", many_replies(CHUNK_LINES * 3))
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["batch", str(path)]) == 0
    drawn, _, after = terminal.getvalue().rpartition("\r\x1b[K")
    assert "\r[########################] 100% 768 lines, " in drawn
    # Malformed lines are said on lines of their own.
    said = [line for line in drawn.split("\n") if "MalformedLine" in line]
    assert len(said) == 20
    assert all(line.startswith(("jsonrecover: line", "\r\x1b[K")) for line in said)
    # The progress line is erased before the summary.
    assert after.startswith("jsonrecover: 768 lines: 308 recovered, 460 failed\n")
    assert capsys.readouterr().out.count("\n") == 768


def test_no_progress_when_not_a_terminal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_log(tmp_path / "many.jsonl", many_replies(CHUNK_LINES * 3))
    assert main(["batch", str(path)]) == 0
    err = capsys.readouterr().err
    assert "\r" not in err
    assert "\x1b" not in err


def test_no_progress_in_a_pipe(tmp_path: Path) -> None:
    path = write_log(tmp_path / "many.jsonl", many_replies(CHUNK_LINES * 3))
    done = subprocess.run(  # noqa: S603 - our own script
        [str(SCRIPT), "batch", str(path)],
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0
    assert b"\r" not in done.stderr
    assert done.stderr.decode().splitlines()[0].startswith("jsonrecover: line 5: ")
    assert len(done.stdout.splitlines()) == CHUNK_LINES * 3


# --- writes that fail -------------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_broken_pipe_in_process_exits_0_silently(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    log: Path,
    jobs: str,
) -> None:
    monkeypatch.setattr(
        sys, "stdout", failing_stdout(BrokenPipeError(32, "Broken pipe"))
    )
    assert main(["batch", str(log), "--jobs", jobs]) == 0
    assert capsys.readouterr().err == ""


def test_full_device_in_process_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, log: Path
) -> None:
    error = OSError(28, "No space left on device")
    monkeypatch.setattr(sys, "stdout", failing_stdout(error))
    assert main(["batch", str(log)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert (
        err[-1] == "jsonrecover: cannot write standard output: No space left on device"
    )
    assert not any(" lines: " in line for line in err)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_broken_pipe_exits_0_silently(tmp_path: Path, jobs: str) -> None:
    # Far more output than a pipe holds, so writing goes on after the reader left.
    path = write_log(tmp_path / "many.jsonl", many_replies(6000))
    with subprocess.Popen(  # noqa: S603 - our own script
        [str(SCRIPT), "batch", str(path), "--jobs", jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        err = process.stderr.read()
        code = process.wait(timeout=120)
    assert orjson.loads(first)["line"] == 1
    assert code == 0
    assert b"Traceback" not in err
    assert b"Broken pipe" not in err
    assert b" lines: " not in err


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="standard_output"),
        pytest.param(["-o", "/dev/full"], id="output_file"),
        pytest.param(["--jobs", "2"], id="jobs"),
    ],
)
def test_full_device_exits_1_with_one_line(log: Path, argv: list[str]) -> None:
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(  # noqa: S603 - our own script
            [str(SCRIPT), "batch", str(log), *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    assert done.returncode == 1
    err = done.stderr.decode().splitlines()
    target = "/dev/full" if "-o" in argv else "standard output"
    assert err[-1] == f"jsonrecover: cannot write {target}: No space left on device"
    assert "Traceback" not in done.stderr.decode()
    assert not any(line.startswith("Exception ignored") for line in err)


def test_workers_fork_when_single_threaded_else_forkserver(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write_log(tmp_path / "many.jsonl", many_replies(CHUNK_LINES * 4))
    if threading.active_count() == 1 and sys.platform == "linux":
        assert pool_context().get_start_method() == "fork"
    assert main(["batch", str(path), "--jobs", "2"]) == 0
    quiet = capsys.readouterr().out
    # With another thread alive, forking is unsafe: the forkserver starts them.
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert pool_context().get_start_method() == "forkserver"
        assert main(["batch", str(path), "--jobs", "2"]) == 0
    finally:
        stop.set()
        thread.join()
    assert capsys.readouterr().out == quiet
    assert len(rows_of(quiet)) == CHUNK_LINES * 4


class TerminalBytes(io.BytesIO):
    def isatty(self) -> bool:
        return True


def test_rows_on_the_same_terminal_never_share_the_progress_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # stdout and stderr on one terminal: one screen, in order of writing.
    screen = TerminalBytes()

    class Screen(io.StringIO):
        def isatty(self) -> bool:
            return True

        def write(self, text: str) -> int:
            screen.write(text.encode())
            return len(text)

    path = write_log(tmp_path / "many.jsonl", many_replies(CHUNK_LINES * 3))
    monkeypatch.setattr("langchain_jsonrecover.cli.batch.PROGRESS_EVERY", 0.0)
    monkeypatch.setattr(sys, "stderr", Screen())
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(screen))
    assert main(["batch", str(path)]) == 0
    shown = screen.getvalue().decode()
    assert "lines/s\x1b[K" in shown  # the progress was drawn
    lines = [render(line) for line in shown.split("\n")]
    rows = [line for line in lines if '{"line":' in line]
    assert len(rows) == CHUNK_LINES * 3
    for row in rows:
        orjson.loads(row)  # a whole row, nothing of the progress line on it


def render(line: str) -> str:
    """What a terminal shows for one line: \\r goes back, ESC[K erases."""
    shown: list[str] = []
    column = 0
    for piece in re.split(r"(\r|\x1b\[K)", line):
        if piece == "\r":
            column = 0
        elif piece == "\x1b[K":
            del shown[column:]
        else:
            for char in piece:
                if column < len(shown):
                    shown[column] = char
                else:
                    shown.append(char)
                column += 1
    return "".join(shown)


def test_program_end_to_end_from_standard_input_with_jobs() -> None:
    n = CHUNK_LINES * 5 + 3
    log = b"".join(line + b"\n" for line in many_replies(n))
    done = subprocess.run(  # noqa: S603 - our own script
        [str(SCRIPT), "batch", "-", "--jobs", "2", "--truncated"],
        input=log,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0
    rows = rows_of(done.stdout)
    assert [r["line"] for r in rows] == list(range(1, n + 1))
    assert rows == [
        recover_line(line, TruncationRecoveringOutputParser(), line=number)
        for number, line in enumerate(many_replies(n), 1)
    ]
    recovered = sum(1 for i in range(n) if i % 5 < 3)
    err = done.stderr.decode()
    assert summary_of(err)[:3] == [
        f"jsonrecover: {n:,} lines: {recovered:,} recovered, {n - recovered:,} failed",
        f"  failed: MalformedLine {n // 5:,}, NoJsonFoundError {n // 5:,}",
        (
            f"  repairs: fence_stripped {n // 5 + 1:,}, prose_trimmed {n // 5 + 1:,}, "
            f"truncation_closed {n // 5 + 1:,}"
        ),
    ]


def test_interrupt_exits_130_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, log: Path
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("langchain_jsonrecover.cli.batch.recover_chunk", interrupted)
    assert main(["batch", str(log)]) == 130
    assert capsys.readouterr() == ("", "jsonrecover: interrupted\n")
