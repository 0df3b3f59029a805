"""``jsonrecover``: pull the JSON out of model replies, in pipes and scripts.

Usage::

    jsonrecover [extract] [FILE] [--pretty] [--regex PATTERN] [--schema MODULE:NAME]
                [--prefer first|last] [--repair | --no-repair] [--truncated]
                [--max-chars N] [--verbose]
    jsonrecover batch IN.jsonl [--field PATH] [--schema MODULE:NAME]
                [--repair | --no-repair] [--truncated] [--jobs N] [-o OUT.jsonl]
    jsonrecover demo [--model PROVIDER:NAME] [--max-retries N]
                     [--feedback-strategy user|system] [--agent]
    jsonrecover --version

``extract`` reads FILE (or standard input), prints the JSON it holds on
standard output, compactly unless ``--pretty``. On failure, exits 1 with one
line on standard error naming the error kind (and, for a schema mismatch, a
line per failing field); a usage or file error exits 2.

``batch`` reads a JSONL file of logged replies (``-``: standard input) and
writes one row per line (see :mod:`langchain_jsonrecover.records`), with
``--jobs N`` worker processes, then a summary on standard error.

``demo`` runs a :class:`~langchain_jsonrecover.retry.JsonRetryChain` end to
end, offline, on :class:`~langchain_jsonrecover.demo.DemoChatModel` (a
scripted weak model), printing each reply, the feedback sent and the validated
result; ``--model`` uses a real
model through ``langchain.chat_models.init_chat_model`` (the ``demo`` extra
and the provider's package). ``demo --agent`` runs
:class:`~langchain_jsonrecover.agents.JsonRecoveryMiddleware` in
``create_agent`` on a scripted weak model without tool calling (the
``agents`` extra).

Output that cannot be written ends the run: a closed pipe (``| head``) exits 0
silently, any other write error exits 1 with one line naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import orjson

from langchain_jsonrecover import __version__
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS

# The batch runner, the demo and the parsers (with LangChain) are imported by
# the command that uses them: --version and --help load none of them, extract
# and batch read replies with the pure core.
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    from langchain_jsonrecover.cli.batch import ParserSpec
    from langchain_jsonrecover.cli.rows import RowReader

    Commands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]  # noqa: SLF001


__all__ = ["main"]

_COMMANDS = ("extract", "batch", "demo")
_TOP_LEVEL = frozenset({*_COMMANDS, "-h", "--help", "--version"})


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jsonrecover",
        description="Pull the JSON out of language models' replies.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    extract = _add_extract(commands)
    _add_batch(commands)
    _add_demo(commands)
    parser.epilog = "With no command, extract runs:\n\n" + extract.format_help()
    return parser


def _add_extract(commands: Commands) -> argparse.ArgumentParser:
    extract = commands.add_parser(
        "extract",
        prog="jsonrecover [extract]",
        help="print the JSON found in a reply (the default command)",
        description="Print the JSON found in a reply: fences, prose and "
        "<think> blocks are handled.",
    )
    extract.add_argument(
        "file", nargs="?", help="the reply to read (default: standard input)"
    )
    extract.add_argument(
        "--pretty", action="store_true", help="indent the output by two spaces"
    )
    extract.add_argument(
        "--regex",
        metavar="PATTERN",
        help="take the JSON from the first match of PATTERN's one capture group "
        "(compiled with re.DOTALL)",
    )
    _add_parser_options(extract)
    extract.add_argument(
        "--prefer",
        choices=("first", "last"),
        default="first",
        help="which candidate wins when the reply holds several (default: first)",
    )
    extract.add_argument(
        "--max-chars",
        type=_parse_positive,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help="refuse longer replies (default: %(default)s)",
    )
    extract.add_argument(
        "--verbose",
        action="store_true",
        help="say on standard error how the JSON was found",
    )
    return extract


def _add_batch(commands: Commands) -> None:
    batch = commands.add_parser(
        "batch",
        help="recover the JSON in every reply of a JSONL log",
        description="Read a JSONL file of logged replies and write one row per "
        'line: {"line", "ok", "value", "error": {"kind", "message"}, "repairs", '
        '"cut_off"}. A summary ends the run on standard error.',
    )
    batch.add_argument("input", help="the JSONL file to read (-: standard input)")
    batch.add_argument(
        "--field",
        metavar="PATH",
        help="dotted path to the reply in each record, digits index lists "
        "(e.g. outputs.reply, choices.0.message); the reply there is a string "
        "or a message dict with content and response_metadata (default: the "
        "record itself)",
    )
    _add_parser_options(batch)
    batch.add_argument(
        "--jobs",
        type=_parse_positive,
        default=1,
        metavar="N",
        help="worker processes, input order kept (default: %(default)s)",
    )
    batch.add_argument(
        "-o",
        "--output",
        metavar="OUT.jsonl",
        help="where the rows go (default: standard output)",
    )


def _add_demo(commands: Commands) -> None:
    demo = commands.add_parser(
        "demo",
        help="run a retry chain end to end on a scripted weak model (offline)",
        description="Ask a model for a weather report as JSON with a retry chain: "
        "print each reply, the feedback sent and the validated result. Offline "
        "on a scripted weak model unless --model is given.",
    )
    demo.add_argument(
        "--model",
        metavar="PROVIDER:NAME",
        help="a real chat model for langchain's init_chat_model (e.g. "
        "openai:gpt-4o-mini); needs the agents extra and the provider's package",
    )
    demo.add_argument(
        "--max-retries",
        type=int,
        default=2,
        metavar="N",
        help="re-asks allowed after the first call (default: %(default)s)",
    )
    demo.add_argument(
        "--agent",
        action="store_true",
        help="run JsonRecoveryMiddleware in a langchain create_agent instead "
        "(needs the agents extra)",
    )
    demo.add_argument(
        "--feedback-strategy",
        choices=("user", "system"),
        default="user",
        help="send feedback as a new user turn, or in the system message "
        "(default: %(default)s)",
    )


def _add_parser_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--schema",
        metavar="MODULE:NAME",
        help="validate against this pydantic model (or any type pydantic accepts), "
        "imported from the current directory or the environment",
    )
    repair = command.add_mutually_exclusive_group()
    repair.add_argument(
        "--repair",
        action="store_const",
        const=True,
        default="safe",
        help="also take the repairs that choose among readings (the *_guessed "
        "repairs, the single-edit search, # comments); by default only the "
        "repairs with one reading are made (trailing commas, single quotes, "
        "// comments, Python literals, bare keys, missing commas …)",
    )
    repair.add_argument(
        "--no-repair",
        dest="repair",
        action="store_const",
        const=False,
        help="repair nothing: strict JSON only",
    )
    command.add_argument(
        "--truncated",
        action="store_true",
        help="close JSON that the token limit cut off "
        "(TruncationRecoveringOutputParser)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code.

    Args:
        argv: The arguments, without the program name (default: ``sys.argv``).

    Returns:
        0 on success, 1 when the reply holds no usable JSON (``demo``: no
        reply parsed, or the model call failed) or the output cannot be
        written, 2 on a usage or file error (``demo``: a ``--model`` that
        cannot be set up). ``batch`` exits 0 once every line has its row,
        whatever the rows say.

    Example:
        In a shell::

            $ echo 'Sure! {"a": 1} Anything else?' | jsonrecover
            {"a":1}
            $ jsonrecover batch replies.jsonl --field reply --jobs 2 -o rows.jsonl
            $ jsonrecover demo
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] not in _TOP_LEVEL:
        args_list.insert(0, "extract")
    args = _build_parser().parse_args(args_list)
    if args.command == "demo":
        from langchain_jsonrecover.demo import run_agent_demo, run_demo  # noqa: PLC0415 - loaded by the command that uses it

        if args.agent:
            return run_agent_demo(args.model, args.max_retries)
        return run_demo(args.model, args.max_retries, args.feedback_strategy)
    if args.command == "batch":
        return _batch(args)
    return _extract(args)


def _extract(args: argparse.Namespace) -> int:
    # The pure core: no LangChain, no parser objects (cli.extract).
    from langchain_jsonrecover._core.extract import ReplyFailure  # noqa: PLC0415
    from langchain_jsonrecover.cli.extract import Reader, failure_lines  # noqa: PLC0415 - loaded by the command that uses it

    try:
        reader = Reader.build(
            schema=args.schema,
            repair=args.repair,
            truncated=args.truncated,
            regex=args.regex,
            prefer=args.prefer,
            max_chars=args.max_chars,
        )
    except ValueError as exc:
        _say(f"jsonrecover: {_take_first_line(str(exc))}")
        return 2
    try:
        raw = _read_input(args.file)
    except OSError as exc:
        _say(f"jsonrecover: cannot read {args.file}: {exc.strerror or exc}")
        return 2
    text = raw.decode("utf-8-sig", errors="replace")
    found = reader.read(text)
    if isinstance(found, ReplyFailure):
        for line in failure_lines(found, text, reader.shape):
            _say(line if line.startswith(" ") else f"jsonrecover: {line}")
        return 1
    if args.verbose:
        repairs = ", ".join(found.repairs) or "none"
        _say(f"jsonrecover: found by {found.step} at {found.span}; repairs: {repairs}")
    out = _to_json(found.value, pretty=args.pretty, plain=args.schema is None)
    try:
        sys.stdout.buffer.write(out + b"\n")
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        _drop_stdout()
        return 0
    except OSError as exc:
        _drop_stdout()
        _say(f"jsonrecover: cannot write standard output: {exc.strerror or exc}")
        return 1
    return 0


def _to_json(value: object, *, pretty: bool, plain: bool) -> bytes:
    """The value as JSON, compact or indented by two spaces.

    A plain JSON value (no schema) is written by orjson, which gives the same
    bytes as pydantic-core for those and needs no pydantic-core at start-up;
    what orjson refuses (an integer beyond 64 bits) and a schema's value
    (models, dataclasses, nested any way) go to pydantic-core.
    """
    if plain:
        with contextlib.suppress(orjson.JSONEncodeError):
            return orjson.dumps(value, option=orjson.OPT_INDENT_2 if pretty else 0)
    import pydantic_core  # noqa: PLC0415 - loaded by the values that need it

    return pydantic_core.to_json(value, indent=2 if pretty else None, fallback=str)


def _batch(args: argparse.Namespace) -> int:
    from langchain_jsonrecover.cli.batch import ParserSpec  # noqa: PLC0415 - loaded by the command that uses it

    spec = ParserSpec(schema=args.schema, repair=args.repair, truncated=args.truncated)
    try:
        rows = spec.rows()  # the pure core: LangChain only for a record needing it
    except ValueError as exc:
        _say(f"jsonrecover: {_take_first_line(str(exc))}")
        return 2
    to_stdout = args.output in {None, "-"}
    from_stdin = args.input == "-"
    if not to_stdout and not from_stdin and _is_same_file(args.input, args.output):
        _say(f"jsonrecover: --output {args.output} would overwrite the input")
        return 2
    with contextlib.ExitStack() as files:
        try:
            source: BinaryIO = (
                sys.stdin.buffer
                if from_stdin
                else files.enter_context(Path(args.input).open("rb"))
            )
        except OSError as exc:
            _say(f"jsonrecover: cannot read {args.input}: {exc.strerror or exc}")
            return 2
        try:
            sink: BinaryIO = (
                sys.stdout.buffer
                if to_stdout
                else files.enter_context(_OutputFile(Path(args.output)))
            )
        except OSError as exc:
            _say(f"jsonrecover: cannot write {args.output}: {exc.strerror or exc}")
            return 2
        return _run(args, spec, rows, source, sink)
    return 0  # pragma: no cover - the with block returns


def _run(
    args: argparse.Namespace,
    spec: ParserSpec,
    rows: RowReader,
    source: BinaryIO,
    sink: BinaryIO,
) -> int:
    from langchain_jsonrecover.cli.batch import (  # noqa: PLC0415 - loaded by the command that uses it
        ReadFailedError,
        WriteFailedError,
        input_size,
        run_batch,
    )

    to_stdout = sink is sys.stdout.buffer
    try:
        run_batch(
            source,
            sink,
            spec,
            rows=rows,
            field_path=args.field,
            jobs=args.jobs,
            source_name="standard input" if args.input == "-" else args.input,
            target="standard output" if to_stdout else args.output,
            total_bytes=input_size(source),
        )
    except BrokenPipeError:
        if to_stdout:
            _drop_stdout()
            return 0
        _say(f"jsonrecover: cannot write {args.output}: broken pipe")
        return 1
    except WriteFailedError as exc:
        if to_stdout:
            _drop_stdout()
        _say(f"jsonrecover: {exc}")
        return 1
    except ReadFailedError as exc:
        _say(f"jsonrecover: {exc}")
        return 2
    except KeyboardInterrupt:
        _say("jsonrecover: interrupted")
        return 130
    return 0


class _OutputFile(contextlib.AbstractContextManager["BinaryIO"]):
    """The output file, closed at the end; a flush error was reported already."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file: BinaryIO | None = None

    def __enter__(self) -> BinaryIO:
        self.file = self.path.open("wb")
        return self.file

    def __exit__(self, *exc_info: object) -> None:
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.close()


def _is_same_file(first: str, second: str) -> bool:
    try:
        return Path(first).samefile(second)
    except OSError:
        return False


def _drop_stdout() -> None:
    """Point standard output at the null device after a failed write.

    Python flushes ``sys.stdout`` again at exit; with the data still buffered
    that would fail again and print "Exception ignored". A stream with no
    file descriptor (a test's capture) is left alone.
    """
    try:
        descriptor = sys.stdout.fileno()
    except (OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, descriptor)
    finally:
        os.close(null)


def _parse_positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        msg = f"not a whole number: {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _read_input(file: str | None) -> bytes:
    if file is None or file == "-":
        stream: BinaryIO = sys.stdin.buffer
        return stream.read()
    return Path(file).read_bytes()


def _take_first_line(message: str) -> str:
    return next((line for line in message.splitlines() if line.strip()), message)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
