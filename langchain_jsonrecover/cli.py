"""``jsonrecover``: pull the JSON out of a model's reply, in pipes and scripts.

Usage::

    jsonrecover [extract] [FILE] [--pretty] [--regex PATTERN] [--schema MODULE:NAME]
                [--prefer first|last] [--max-chars N] [--verbose]
    jsonrecover demo [--model PROVIDER:NAME] [--max-retries N]
                     [--feedback-strategy user|system] [--agent]

``extract`` reads FILE (or standard input), prints the JSON it holds on
standard output, compactly unless ``--pretty``. On failure, exits 1 with one
line on standard error naming the error kind (and, for a schema mismatch, a
line per failing field); a usage or file error exits 2.

``demo`` runs a :class:`~langchain_jsonrecover.retry.JsonRetryChain` end to
end, offline, on :class:`~langchain_jsonrecover.demo.DemoChatModel` (a
scripted weak model), printing each reply, the feedback sent and the validated
result; ``--model`` uses a real
model through ``langchain.chat_models.init_chat_model`` (the ``demo`` extra
and the provider's package). ``demo --agent`` runs
:class:`~langchain_jsonrecover.agents.JsonRecoveryMiddleware` in
``create_agent`` on a scripted weak model without tool calling (the
``agents`` extra).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import pydantic_core

from langchain_jsonrecover._extract import DEFAULT_MAX_CHARS
from langchain_jsonrecover.demo import run_agent_demo, run_demo
from langchain_jsonrecover.errors import JsonRecoveryError, SchemaValidationError
from langchain_jsonrecover.parsers import JsonFenceOutputParser, RegexJsonOutputParser

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["main"]

_COMMANDS = ("extract", "demo")


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
        "--schema",
        metavar="MODULE:NAME",
        help="validate against this pydantic model (or any type pydantic accepts), "
        "imported from the current directory or the environment",
    )
    extract.add_argument(
        "--prefer",
        choices=("first", "last"),
        default="first",
        help="which candidate wins when the reply holds several (default: first)",
    )
    extract.add_argument(
        "--max-chars",
        type=_positive,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help="refuse longer replies (default: %(default)s)",
    )
    extract.add_argument(
        "--verbose",
        action="store_true",
        help="say on standard error how the JSON was found",
    )
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
        "openai:gpt-4o-mini); needs the demo extra and the provider's package",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code.

    Args:
        argv: The arguments, without the program name (default: ``sys.argv``).

    Returns:
        0 on success, 1 when the reply holds no usable JSON (``demo``: no
        reply parsed, or the model call failed), 2 on a usage or file error
        (``demo``: a ``--model`` that cannot be set up).

    Example:
        In a shell::

            $ echo 'Sure! {"a": 1} Anything else?' | jsonrecover
            {"a":1}
            $ jsonrecover demo
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or args_list[0] not in {*_COMMANDS, "-h", "--help"}:
        args_list.insert(0, "extract")
    args = _parser().parse_args(args_list)
    if args.command == "demo" and args.agent:
        return run_agent_demo(args.model, args.max_retries)
    if args.command == "demo":
        return run_demo(args.model, args.max_retries, args.feedback_strategy)
    try:
        options: dict[str, Any] = {"max_chars": args.max_chars, "prefer": args.prefer}
        if args.schema is not None:
            options["pydantic_object"] = load_schema(args.schema)
        parser: JsonFenceOutputParser[Any] | RegexJsonOutputParser[Any] = (
            RegexJsonOutputParser(args.regex, **options)
            if args.regex is not None
            else JsonFenceOutputParser(**options)
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
    except SchemaValidationError as exc:
        _say(f"jsonrecover: {type(exc).__name__}: {_first_line(str(exc))}")
        for error in exc.errors:
            got = f" (got {error['value']})" if error["value"] else ""
            _say(f"  {error['path'] or 'the value'}: {error['message']}{got}")
        return 1
    except JsonRecoveryError as exc:
        _say(f"jsonrecover: {type(exc).__name__}: {_first_line(str(exc))}")
        return 1
    if args.verbose:
        repairs = ", ".join(found.repairs) or "none"
        _say(f"jsonrecover: found by {found.step} at {found.span}; repairs: {repairs}")
    # Models, dataclasses and big integers, nested any way.
    out = pydantic_core.to_json(
        found.value, indent=2 if args.pretty else None, fallback=str
    )
    try:
        sys.stdout.buffer.write(out + b"\n")
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return 0
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        msg = f"not a whole number: {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def load_schema(spec: str) -> Any:
    """Import ``MODULE:NAME`` (the current directory first, then the environment).

    Args:
        spec: ``package.module:Name``.

    Returns:
        The object named.

    Raises:
        ValueError: The spec is malformed, or the module or name is missing.
    """
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        msg = f"--schema takes MODULE:NAME, got {spec!r}"
        raise ValueError(msg)
    if "" not in sys.path and "." not in sys.path:
        sys.path.insert(0, "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        msg = f"cannot import {module_name!r} for --schema: {exc}"
        raise ValueError(msg) from exc
    try:
        target: Any = module
        for part in name.split("."):
            target = getattr(target, part)
    except AttributeError as exc:
        msg = f"{module_name!r} has no {name!r} for --schema"
        raise ValueError(msg) from exc
    return target


def _read(file: str | None) -> bytes:
    if file is None or file == "-":
        stream: BinaryIO = sys.stdin.buffer
        return stream.read()
    return Path(file).read_bytes()


def _first_line(message: str) -> str:
    return next((line for line in message.splitlines() if line.strip()), message)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
