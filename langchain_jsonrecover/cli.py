"""``jsonrecover``: pull the JSON out of a model's reply, in pipes and scripts.

Usage::

    jsonrecover [extract] [FILE] [--pretty] [--regex PATTERN] [--verbose]

Reads FILE (or standard input), prints the JSON it holds on standard output,
compactly unless ``--pretty``. On failure, exits 1 with one line on standard
error naming the error kind; a usage or file error exits 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import orjson

from langchain_jsonrecover._extract import DEFAULT_MAX_CHARS
from langchain_jsonrecover.errors import JsonRecoveryError
from langchain_jsonrecover.parsers import JsonFenceOutputParser, RegexJsonOutputParser

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]

_COMMANDS = ("extract",)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jsonrecover",
        description="Pull the JSON out of a language model's reply.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    extract = commands.add_parser(
        "extract",
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
    extract.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help="refuse longer replies (default: %(default)s)",
    )
    extract.add_argument(
        "--verbose",
        action="store_true",
        help="say on standard error how the JSON was found",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code.

    Args:
        argv: The arguments, without the program name (default: ``sys.argv``).

    Returns:
        0 on success, 1 when the reply holds no usable JSON, 2 on a usage or
        file error.

    Example:
        In a shell::

            $ echo 'Sure! {"a": 1} Anything else?' | jsonrecover
            {"a":1}
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] not in {*_COMMANDS, "-h", "--help"}:
        args_list.insert(0, "extract")
    args = _parser().parse_args(args_list)
    try:
        parser = (
            RegexJsonOutputParser(pattern=args.regex, max_chars=args.max_chars)
            if args.regex is not None
            else JsonFenceOutputParser(max_chars=args.max_chars)
        )
    except ValueError as exc:
        _say(f"jsonrecover: {exc}")
        return 2
    try:
        raw = _read(args.file)
    except OSError as exc:
        _say(f"jsonrecover: cannot read {args.file}: {exc.strerror or exc}")
        return 2
    text = raw.decode("utf-8-sig", errors="replace")
    try:
        found = parser.extract(text)
    except JsonRecoveryError as exc:
        _say(f"jsonrecover: {type(exc).__name__}: {_first_line(str(exc))}")
        return 1
    if args.verbose:
        repairs = ", ".join(found.repairs) or "none"
        _say(f"jsonrecover: found by {found.step} at {found.span}; repairs: {repairs}")
    option = orjson.OPT_INDENT_2 if args.pretty else 0
    try:
        sys.stdout.buffer.write(orjson.dumps(found.value, option=option) + b"\n")
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return 0
    return 0


def _read(file: str | None) -> bytes:
    if file is None or file == "-":
        stream: BinaryIO = sys.stdin.buffer
        return stream.read()
    return Path(file).read_bytes()


def _first_line(message: str) -> str:
    return next((line for line in message.splitlines() if line.strip()), message)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
