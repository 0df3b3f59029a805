"""Differential fuzzing of the speed shortcuts: this tree against an older revision.

What it measures
    Stop 35 made the layers that choose faster with shortcuts (a lone fenced
    block answered at once, a casefolded pre-check of example labels, the
    outer fence's first run, a failed root kept failed, the single-edit
    search's pruned sites, the cut state read from the text's end). Each must
    give the answer the path it replaces gives. This script builds seeded
    replies: a known original (nested, escapes, non-ASCII, big integers,
    strings full of brackets, quotes, backticks, ``<think>`` and
    ``[TOOL_CALLS]``), serialized one of several ways, with ONE fault (a cut
    anywhere, a lost or extra bracket, quote, comma or colon, a trailing
    comma) or none, wrapped one way (bare, prose around, fence variants,
    labels, prose with braces, two candidates, reasoning, tool-call markup).
    Each reply is read through every entry point (``extract`` at each repair
    level and preference, closing cuts, the three parsers, the regex parser,
    the command line's reader, tool-call argument recovery) by this tree and
    by the old revision, imported side by side in one process.

    Every answer is a value or an error's type. A case is a *difference* when
    the two trees answer differently, and a *wrong* value when this tree's
    value is neither the original, nor another reading the reply allows (a
    second candidate's value; the text itself when the fault left valid JSON;
    a partial of the original when the reply is cut). Differences and wrong
    values are counted per fault, wrapper and entry point, and the shortest
    examples are printed (``--dump`` writes every one as a JSON line, with
    the original; ``--progress`` says how far a long run is).

    The judge is coarse where the contract allows a reading it cannot
    rebuild: a reading of the reply as cut (``extract_close``, the
    truncation parser, ``cli_cut_off``) of a reply that was not cut, and
    a fault that broke an escape (``\\u:30c6`` kept as text), count as
    wrong; read the examples before calling one a bug.

How to run
    python benchmarks/fuzz_shortcuts.py --old f1ef700 --count 20000 --seed 1
    python benchmarks/fuzz_shortcuts.py --old f1ef700 --count 2000 --examples 5
    python benchmarks/fuzz_shortcuts.py --count 2000    # this tree only: wrong values
    python benchmarks/fuzz_shortcuts.py --old f1ef700 --count 40000 --seed 361
        --progress 1000 --dump /tmp/found.jsonl    # (one line)

Offline and seeded: the old revision comes from this repository's git.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import random
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beside import import_revision
from langchain_core.messages import AIMessage

import langchain_jsonrecover

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

_STRINGS: Final = (
    "",
    "a",
    "héllo wörld",
    "日本語のテキスト",
    "emoji 😀 here",
    'say "hi"',
    "back\\slash",
    "C:\\path\\to",
    "line\nbreak",
    "tab\there",
    "{braces}",
    "[1, 2]",
    "}",
    "]",
    "{",
    "[",
    '"',
    "'",
    ",",
    ":",
    '{"a": 1}',
    '", "b": "',
    "```json",
    "```",
    "`x`",
    "``` ```",
    "<think>hm</think>",
    "</think>",
    '[TOOL_CALLS]f[ARGS]{"a": 1}',
    "<tool_call>",
    "Example:",
    "For example: {x}",
    "null",
    "true",
    "\\u00e9",
    "a, b: c",
    "x" * 40,
)
_KEYS: Final = ("a", "name", "id", "tags", "é", "a b", "{", "```", "k:", "[x]", "")
_NUMBERS: Final = (0, -1, 7, 3.5, -0.25, 1e10, 10**20, -(10**25), 1.0, 12345)


def _leaf(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.5:
        return rng.choice(_STRINGS)
    if roll < 0.85:
        return rng.choice(_NUMBERS)
    return rng.choice((True, False, None))


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return _leaf(rng)
    if roll < 0.7:
        return {
            f"{rng.choice(_KEYS)}{k}": _value(rng, depth + 1)
            for k in range(rng.randrange(4))
        }
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def original(rng: random.Random) -> Any:
    """A root: mostly an object, sometimes an array (non-empty)."""
    if rng.random() < 0.7:
        return {
            f"{rng.choice(_KEYS)}{k}": _value(rng, 1)
            for k in range(1 + rng.randrange(4))
        }
    return [_value(rng, 1) for _ in range(1 + rng.randrange(4))]


def dump(rng: random.Random, value: Any) -> str:
    style = rng.randrange(4)
    ascii_only = rng.random() < 0.3
    if style == 0:
        return json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    if style == 1:
        return json.dumps(value, ensure_ascii=ascii_only)
    return json.dumps(value, ensure_ascii=ascii_only, indent=2 if style == 2 else 4)


def canonical(value: Any) -> str:
    """Equal for equal JSON, types included (``1``, ``1.0`` and ``True`` differ)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


_STRUCT: Final = '[]{}",:'


def fault_of(rng: random.Random, text: str) -> tuple[str, str]:
    """One fault in a JSON text: its name and the faulty text (cuts come later)."""
    kind = rng.choice(("none", "none", "lost", "lost", "extra", "trailing", "quote"))
    if kind == "none":
        return "none", text
    if kind == "trailing":
        closers = [i for i, c in enumerate(text) if c in "]}"]
        if not closers:
            return "none", text
        at = rng.choice(closers)
        return "trailing_comma", text[:at] + "," + text[at:]
    if kind == "quote":
        quotes = [i for i, c in enumerate(text) if c == '"' and _free(text, i)]
        if not quotes:
            return "none", text
        at = rng.choice(quotes)
        return "single_quote", text[:at] + "'" + text[at + 1 :]
    char = rng.choice(_STRUCT)
    if kind == "lost":
        places = [i for i, c in enumerate(text) if c == char and _free(text, i)]
        if not places:
            return "none", text
        at = rng.choice(places)
        return f"lost{char}", text[:at] + text[at + 1 :]
    at = rng.randrange(len(text) + 1)
    if not _free(text, at):
        return "none", text
    return f"extra{char}", text[:at] + char + text[at:]


def _free(text: str, at: int) -> bool:
    """Whether no backslash comes right before ``at`` (a fault there would
    change an escape: a second fault, not the one named)."""
    return text[at - 1 : at] != "\\"


_LEADS: Final = (
    "",
    "Here is the JSON:\n",
    "Sure! The {result} is below.\n\n",
    'Example: {"x": 1}\n\nAnswer:\n',
    "For example:\n",
    "The output is:\n",
    "<think>maybe {a: 1} or [2]?</think>\n",
    '<think>```json\n{"b": 2}\n```</think>',
    "I'll use `code` and [brackets].\n",
)
_TAILS: Final = (
    "",
    "\nHope that helps.",
    "\nNote: {braces} and [1] in prose.",
    '\n\nOr {"x": 2}.',
    "\n```",
    " `done`",
)


_SNIPPETS: Final = frozenset(
    map(canonical, ({"x": 1}, {"b": 2}, {"a": 1}, [2], [1], {"x": 2}, ["brackets"]))
)
"""The values the leads and tails write: readings of the reply too."""


@dataclass(frozen=True, slots=True)
class Case:
    """A reply and what may be read from it."""

    text: str
    fault: str
    wrapper: str
    allowed: tuple[str, ...]
    """Canonical values that count as right (not wrong)."""
    cut: str | None
    """The text before its cut, when the reply was cut: partials of its values
    are right too."""
    original: Any
    other: Any


_AROUND: Final = {
    "bare": "{body}",
    "prose": "{lead}{body}{tail}",
    "fence": "{lead}```json\n{body}\n```{tail}",
    "fence_bare": "{lead}```\n{body}\n```{tail}",
    "fence_one_line": "{lead}```json {body}```{tail}",
    "fence_four": "{lead}````json\n{body}\n````{tail}",
    "fence_unclosed": "{lead}```json\n{body}\n",
    "fence_text_after": "{lead}```json\n{body}\nThat is all.\n```{tail}",
}
"""The wrappers that put a lead and a tail around the body (``str.format``)."""


def wrap(rng: random.Random, body: str, other: str) -> tuple[str, str]:
    """A wrapper's name and the reply around ``body`` (``other``: a second value)."""
    lead, tail = rng.choice(_LEADS), rng.choice(_TAILS)
    kind = rng.choice(
        (
            "bare",
            "prose",
            "fence",
            "fence",
            "fence_bare",
            "fence_one_line",
            "fence_four",
            "fence_unclosed",
            "fence_text_after",
            "fence_tag",
            "two_fences",
            "two_values",
            "label_then_fence",
            "tool_markup",
            "tool_envelope",
        )
    )
    if kind in _AROUND:
        return kind, _AROUND[kind].format(lead=lead, body=body, tail=tail)
    if kind == "fence_tag":
        tag = rng.choice(("JSON", "js", "python", "jsonc", "text", "json5"))
        return kind, f"{lead}```{tag}\n{body}\n```{tail}"
    if kind == "two_fences":
        first, second = (body, other) if rng.random() < 0.5 else (other, body)
        return kind, f"{lead}```json\n{first}\n```\nor\n```json\n{second}\n```{tail}"
    if kind == "two_values":
        first, second = (body, other) if rng.random() < 0.5 else (other, body)
        return kind, f"{lead}{first}\n\n{second}{tail}"
    if kind == "label_then_fence":
        return (
            kind,
            f"Example output: {other}\n\nHere it is:\n```json\n{body}\n```{tail}",
        )
    if kind == "tool_markup":
        return kind, f"{lead}[TOOL_CALLS]f[ARGS]{body}"
    return kind, f'<tool_call>\n{{"name": "f", "arguments": {body}}}\n</tool_call>'


def _strict(text: str) -> str | None:
    try:
        return canonical(json.loads(text))
    except (ValueError, RecursionError):
        return None


def make_case(rng: random.Random) -> Case:
    """One seeded reply."""
    value = original(rng)
    other = original(rng)
    body = dump(rng, value)
    fault, faulty = fault_of(rng, body)
    wrapper, text = wrap(rng, faulty, dump(rng, other))
    allowed = {canonical(value), canonical(other), *_SNIPPETS}
    allowed.add(canonical({"name": "f", "arguments": value}))
    allowed.update(canonical(pair) for pair in ([value, other], [other, value]))
    if fault != "none" and (read := _strict(faulty)) is not None:
        allowed.add(read)  # the fault left JSON: its value is a reading
        value_read = json.loads(faulty)
        allowed.add(canonical({"name": "f", "arguments": value_read}))
        allowed.update(
            canonical(pair) for pair in ([value_read, other], [other, value_read])
        )
    cut = None
    if fault == "none" and rng.random() < 0.5:
        at = rng.randrange(1, len(text))
        fault, cut, text = "cut", text, text[:at]
    return Case(text, fault, wrapper, tuple(sorted(allowed)), cut, value, other)


def _is_partial(part: Any, whole: Any) -> bool:
    """Whether ``part`` is what closing a cut of ``whole`` can give."""
    if isinstance(whole, dict):
        # The answer comes back through ``canonical`` (keys sorted): the
        # keys' order is lost, so at most one key may hold a partial value.
        if not isinstance(part, dict) or not set(part) <= set(whole):
            return False
        short = [key for key in part if part[key] != whole[key]]
        return len(short) <= 1 and all(
            _is_partial(part[key], whole[key]) for key in short
        )
    if isinstance(whole, list):
        if not isinstance(part, list) or len(part) > len(whole):
            return False
        return all(
            part[i] == whole[i]
            or (i == len(part) - 1 and _is_partial(part[i], whole[i]))
            for i in range(len(part))
        )
    if isinstance(whole, str):
        return isinstance(part, str) and whole.startswith(part)
    if isinstance(whole, (int, float)) and not isinstance(whole, bool):
        return part is None or (
            type(part) is type(whole) and str(whole).startswith(str(part))
        )
    return part == whole or part is None


def _answer(call: Callable[[], Any]) -> str:
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - an error's type is an answer
        return f"!{type(exc).__name__}"
    return _value_of(result)


def _value_of(result: Any) -> str:
    name = type(result).__name__
    if name == "ReplyFailure":
        return f"!{result.kind}"
    if name == "Extraction":
        return canonical(result.value)
    if name == "AIMessage":
        calls = [(c["name"], c["args"]) for c in result.tool_calls]
        bad = len(result.invalid_tool_calls)
        return canonical(calls) if calls else f"!invalid{bad}"
    return canonical(result)


_TOOL: Final = {
    "name": "f",
    "description": "A tool.",
    "parameters": {"type": "object", "properties": {}},
}
"""The one tool the markup calls name (any arguments)."""


class Tree:
    """One tree's package, read through every entry point by name."""

    def __init__(self, package: ModuleType) -> None:
        """Build the parsers once (their construction is not what is compared)."""
        name = package.__name__
        self.extract = importlib.import_module(f"{name}._core.extract").extract
        self.schema = importlib.import_module(f"{name}._core.schema.validate").Schema
        self.recover = package.recover_tool_calls
        fence = package.JsonFenceOutputParser
        trunc = package.TruncationRecoveringOutputParser
        regex = package.RegexJsonOutputParser
        self.parsers = {
            "fence_off": fence(repair=False),
            "fence_safe": fence(),
            "fence_on": fence(repair=True),
            "regex_safe": regex(pattern=r"```(?:json)?\s*(.*?)```"),
            "regex_on": regex(pattern=r"(\{.*\})", repair=True),
            "trunc_safe": trunc(),
            "trunc_on": trunc(repair=True),
        }
        cli = importlib.import_module(f"{name}.cli.extract")
        self.cli_read = cli.Reader.build(repair=True, truncated=True).read
        self.schemas: dict[str, Any] = {}

    def answers(self, text: str, shape: Any) -> dict[str, str]:
        """Each entry point's answer to ``text`` (``shape``: the schema's type)."""
        out: dict[str, str] = {}
        extract = self.extract
        schema = self.schemas.get(repr(shape))
        if schema is None:
            schema = self.schemas[repr(shape)] = self.schema(shape)
        for repair in (False, "safe", True):
            for prefer in ("first", "last"):
                out[f"extract_{repair}_{prefer}"] = _answer(
                    functools.partial(extract, text, repair=repair, prefer=prefer)
                )
            out[f"schema_{repair}"] = _answer(
                functools.partial(extract, text, repair=repair, schema=schema)
            )
        out["extract_close"] = _answer(
            functools.partial(extract, text, close_truncated=True, repair=False)
        )
        for name, parser in self.parsers.items():
            out[name] = _answer(functools.partial(parser.parse, text))
        out["cli_cut_off"] = _answer(
            functools.partial(self.cli_read, text, cut_off=True)
        )
        bad = {"name": "f", "args": text, "id": "c1"}
        for repair in ("safe", True):
            message = AIMessage("", invalid_tool_calls=[bad])
            out[f"tool_args_{repair}"] = _answer(
                functools.partial(self.recover, message, repair=repair)
            )
        out["tool_text"] = _answer(
            functools.partial(self.recover, AIMessage(text), [_TOOL])
        )
        return out


def shape_of(value: Any) -> Any:
    """A type the value validates as: tight for lists of one kind (``list[list[str]]``)."""
    if isinstance(value, dict):
        return dict[str, Any]
    if isinstance(value, list):
        shapes = {repr(shape_of(item)): shape_of(item) for item in value}
        item = next(iter(shapes.values())) if len(shapes) == 1 else Any
        return list.__class_getitem__(item)
    if value is None:
        return type(None)
    return type(value)


def judge(case: Case, answer: str) -> str:
    """``right``, ``error`` or ``wrong`` (a value no reading allows)."""
    if answer.startswith("!"):
        return "error"
    if answer in case.allowed:
        return "right"
    value = json.loads(answer)
    if answer.startswith('[["f", ') and all(
        canonical(args) in case.allowed for _, args in value
    ):
        return "right"  # tool calls: their arguments are the values
    if case.cut is not None and any(
        _is_partial(value, whole)
        for whole in (
            case.original,
            case.other,
            {"name": "f", "arguments": case.original},
        )
    ):
        return "right"
    return "wrong"


@dataclass(slots=True)
class Tally:
    """Counts of cases, differences and wrong values, with examples."""

    cases: Counter[tuple[str, str]] = field(default_factory=Counter)
    diffs: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    wrongs: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    shown: dict[tuple[str, str], list[tuple[int, str, str, str]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    dump: TextIO | None = None
    """Where each wrong value and difference goes as a JSON line, if anywhere."""

    def add(self, case: Case, new: dict[str, str], old: dict[str, str]) -> None:
        """Judge one case's answers (``old``: the old tree's, or ``new`` again)."""
        self.cases[case.fault, case.wrapper] += 1
        for name, answer in new.items():
            before, verdict = old[name], judge(case, answer)
            example = (len(case.text), case.text, before, answer)
            # A user's pattern decides what the regex parser reads: no verdict.
            kind = None
            if verdict == "wrong" and not name.startswith("regex"):
                was = "old too" if judge(case, before) == "wrong" else "new"
                self.wrongs[case.fault, name, was] += 1
                self.shown[kind := f"wrong ({was})", name].append(example)
            if before != answer:
                change = f"{judge(case, before)}->{verdict}"
                self.diffs[case.fault, name, change] += 1
                self.shown[change, name].append(example)
                kind = kind or change
            if kind is not None and self.dump is not None:
                row = {"kind": kind, "entry": name, "fault": case.fault}
                row |= {"wrapper": case.wrapper, "text": case.text}
                row |= {"old": before, "new": answer}
                row |= {"original": canonical(case.original)}
                self.dump.write(json.dumps(row, ensure_ascii=False) + "\n")

    def report(self, examples: int) -> None:
        """Print the counts, then the shortest examples of each kind."""
        faults: Counter[str] = Counter()
        wrappers: Counter[str] = Counter()
        for (fault, wrapper), n in self.cases.items():
            faults[fault] += n
            wrappers[wrapper] += n
        print(f"cases: {self.cases.total()}, each through {ENTRY_POINTS} entry points")
        print("  per fault:", dict(sorted(faults.items())))
        print("  per wrapper:", dict(sorted(wrappers.items())))
        print(f"\ndifferences (fault, entry point, old->new): {self.diffs.total()}")
        for key, n in sorted(self.diffs.items()):
            print(f"  {n:6}  {key}")
        print(f"\nwrong values (fault, entry point, since): {self.wrongs.total()}")
        for key, n in sorted(self.wrongs.items()):
            print(f"  {n:6}  {key}")
        for (kind, name), found in sorted(self.shown.items()):
            print(f"\n== {kind}: {name}")
            for _, text, before, answer in sorted(found)[:examples]:
                print(
                    f"  reply {text!r}\n    old {before[:200]}\n    new {answer[:200]}"
                )


ENTRY_POINTS: Final = 22
"""How many entry points :meth:`Tree.answers` reads each reply through."""


def main(argv: list[str] | None = None) -> int:
    """Run the fuzzer; print counts and the shortest examples."""
    return run(argv, make_case, description=__doc__, count=2000)


def run(
    argv: list[str] | None,
    make: Callable[[random.Random], Case],
    *,
    description: str | None,
    count: int,
    more: Callable[[Tree, Case], dict[str, str]] | None = None,
) -> int:
    """Read ``make``'s seeded cases through both trees; print counts and examples.

    ``more`` adds a tree's answers through further entry points.
    """
    parser = argparse.ArgumentParser(description=(description or "").split("\n\n")[0])
    parser.add_argument("--old", help="a git revision to compare with")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=count)
    parser.add_argument("--examples", type=int, default=3)
    parser.add_argument(
        "--progress", type=int, default=0, help="say every N cases how many are read"
    )
    parser.add_argument(
        "--dump", type=Path, help="write each wrong value and difference here (JSONL)"
    )
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tally = Tally()
    if args.dump is not None:
        tally.dump = args.dump.open("w", encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="fuzz-") as scratch:
        sys.path.insert(0, scratch)
        new = Tree(langchain_jsonrecover)
        old = Tree(import_revision(args.old, Path(scratch))[1]) if args.old else None
        for index in range(args.count):
            if args.progress and index and index % args.progress == 0:
                print(f"{index} cases", file=sys.stderr, flush=True)
                if tally.dump is not None:
                    tally.dump.flush()
            case = make(rng)
            answers = _all_answers(new, case, more)
            before = answers if old is None else _all_answers(old, case, more)
            tally.add(case, answers, before)
    tally.report(args.examples)
    if tally.dump is not None:
        tally.dump.close()
    return 0


def _all_answers(
    tree: Tree, case: Case, more: Callable[[Tree, Case], dict[str, str]] | None
) -> dict[str, str]:
    answers = tree.answers(case.text, shape_of(case.original))
    return answers if more is None else answers | more(tree, case)


if __name__ == "__main__":
    sys.exit(main())
