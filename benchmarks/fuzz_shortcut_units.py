"""Differential fuzzing of the shortcuts' own functions: this tree against an older one.

What it measures
    ``fuzz_shortcuts.py`` compares whole answers; this compares the functions
    the speed shortcuts of stop 35 changed, on many more inputs each, against
    the same functions at an older revision (imported side by side):

    - ``cuts``: every prefix of a seeded text (JSON with one fault, or a
      soup of brackets, quotes, backslashes, keys and deep runs of openers)
      through ``close_truncated`` (four sets of flags), ``cut_state`` (with
      and without the path), ``_end_state``; and ``tail_state`` (read from
      the end) against the old ``cut_state`` (read from the start).
    - ``edits``: texts with one or two slips (a character dropped, added,
      replaced, two swapped; a structural one dropped) through
      ``fix_single_edit`` and ``one_edit_readings`` (every reading, the
      short ones too).
    - ``edits_before``: the same two, on nested texts whose strings hold
      brackets, quotes and escapes, with a slip put before the opener of a
      container and often a second one after it: what ``before_innermost``
      rules out unread (a quote moved, an escape lost, a bracket, comma or
      colon lost, added or replaced before the innermost open container).
    - ``fences``: replies (wrapped as ``fuzz_shortcuts`` wraps them, or a
      soup of fences, tags, quotes and braces) through ``find_fences``,
      ``outer_fence``, the candidates in order (with and without scalars),
      and ``is_example`` on every lead.

    A difference is printed with both answers; differences the stop meant
    (a one-line fence whose string holds backticks) show as such.

How to run
    python benchmarks/fuzz_shortcut_units.py --old f1ef700 --count 2000 --seed 1
    python benchmarks/fuzz_shortcut_units.py --old f1ef700 --only cuts --soup 0.5
    python benchmarks/fuzz_shortcut_units.py --only edits_before --count 100000

Offline and seeded: the old revision comes from this repository's git.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beside import import_revision
from fuzz_shortcuts import canonical, dump, fault_of, original, wrap

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

_CUT_PIECES: Final = (
    *"{}[]:,x\n ",
    '"a"',
    '"k": ',
    '"x\\\\"',
    '"\\""',
    "\\",
    "1",
    "-2.5",
    '"é😀"',
    "true",
    '"a\\u00e9"',
    '"[{"',
    '"\\\\\\""',
    "null",
    '"',
)
_FENCE_PIECES: Final = (
    *"`\"'{}[]x\n\\,:\t",
    "```",
    "````",
    "```json",
    "```JSON",
    "```js",
    "``",
    "  ",
    '{"a": 1}',
    '{"a": "```"}',
    '["```", 1]',
    "Example:",
    "For example",
    "text",
    "~~~",
    '{"b": [1, 2]}',
    "<think>",
    "</think>",
    '"```"',
)
_EXTRA: Final = ('"', "'", "\\", ",", ":", "[", "]", "{", "}", " ", "x", "1")
_FLAGS: Final[tuple[dict[str, bool], ...]] = (
    {},
    {"after_closer": False},
    {"trim_runaway_newlines": True},
    {"final_only": True},
)


def _soup(rng: random.Random, pieces: tuple[str, ...]) -> str:
    if rng.random() < 0.15:  # a deep run of openers, some closed
        depth = rng.randrange(1, 40)
        openers = "".join(rng.choice("[{") for _ in range(depth))
        closers = "".join(rng.choice("]}") for _ in range(rng.randrange(depth + 1)))
        return openers + rng.choice(pieces) + closers + rng.choice(pieces)
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 30)))


def _slip(rng: random.Random, text: str) -> str:
    """``text`` with one slip: a character dropped, added, replaced or swapped."""
    at = rng.randrange(len(text))
    kind = rng.randrange(5)
    if kind == 0:
        return text[:at] + text[at + 1 :]
    if kind == 1:
        return text[:at] + rng.choice(_EXTRA) + text[at:]
    if kind == 2:
        return text[:at] + rng.choice(_EXTRA) + text[at + 1 :]
    if kind == 3 and at + 1 < len(text):
        return text[:at] + text[at + 1] + text[at] + text[at + 2 :]
    marks = [i for i, c in enumerate(text) if c in '[]{}",:\\']
    if not marks:
        return text
    at = rng.choice(marks)
    return text[:at] + text[at + 1 :]


def _shown(result: Any) -> str:
    """A result as text that compares equal across the two trees."""
    if dataclasses.is_dataclass(result) or hasattr(result, "_fields"):
        names = (
            [f.name for f in dataclasses.fields(result)]
            if dataclasses.is_dataclass(result)
            else list(result._fields)
        )
        fields = {name: getattr(result, name) for name in names}
        if "value" in fields:
            fields["value"] = canonical(fields["value"])
        shown = {name: _shown(value) for name, value in fields.items()}
        return f"{type(result).__name__}{shown}"
    if isinstance(result, (list, tuple)):
        return repr([_shown(item) for item in result])
    return repr(result)


def _call(function: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    try:
        return _shown(function(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - an exception is an answer
        return f"raised {type(exc).__name__}"


class Pair:
    """A module of this tree and of the old one, compared call by call."""

    def __init__(self, old_name: str, module: str) -> None:
        """Import ``module`` (dotted, under the package) from both trees."""
        self.new = importlib.import_module(f"langchain_jsonrecover.{module}")
        self.old = importlib.import_module(f"{old_name}.{module}")


@dataclasses.dataclass(slots=True)
class Diffs:
    """Calls compared and differences found, per function."""

    calls: Counter[str] = dataclasses.field(default_factory=Counter)
    found: Counter[str] = dataclasses.field(default_factory=Counter)
    examples: int = 3

    def check(self, name: str, text: str, new: str, old: str) -> None:
        """Count one comparison; print the first few differences."""
        self.calls[name] += 1
        if new != old:
            self.found[name] += 1
            if self.found[name] <= self.examples:
                print(f"DIFF {name} {text!r}\n  new {new[:300]}\n  old {old[:300]}")


def _cut_texts(rng: random.Random, count: int, soup: float) -> Iterator[str]:
    for _ in range(count):
        if rng.random() < soup:
            text = _soup(rng, _CUT_PIECES)
        else:
            text = fault_of(rng, dump(rng, original(rng)))[1]
        if rng.random() < 0.3:
            text = _slip(rng, text)
        ats = (
            range(1, len(text))
            if len(text) < 120
            else rng.sample(range(1, len(text)), 100)
        )
        yield from (text[:at] for at in ats)


def run_cuts(
    old: str, rng: random.Random, count: int, soup: float, diffs: Diffs
) -> None:
    """Every prefix through the cut closer and the cut state readers."""
    close, scan = Pair(old, "_core.decode.close"), Pair(old, "_core.decode.cut_scan")
    for text in _cut_texts(rng, count, soup):
        for flags in _FLAGS:
            new = _call(close.new.close_truncated, text, max_depth=200, **flags)
            was = _call(close.old.close_truncated, text, max_depth=200, **flags)
            diffs.check(f"close_truncated{flags}", text, new, was)
        diffs.check(
            "_end_state",
            text,
            _call(getattr(close.new, "_end_state"), text),  # noqa: B009 - private
            _call(getattr(close.old, "_end_state"), text),  # noqa: B009
        )
        for path in (True, False):
            new = _call(scan.new.cut_state, text, path=path)
            diffs.check(
                f"cut_state(path={path})",
                text,
                new,
                _call(scan.old.cut_state, text, path=path),
            )
        tail = scan.new.tail_state(text)
        if tail is not None:
            start = scan.old.cut_state(text, path=False)
            seen = (tail.string_start, tail.key_start, tail.scalar_start)
            walked = (start.string_start, start.key_start, start.scalar_start)
            diffs.check("tail_state", text, repr(seen), repr(walked))


def run_edits(old: str, rng: random.Random, count: int, diffs: Diffs) -> None:
    """Slipped texts through the single-edit search and the list of readings."""
    edit = Pair(old, "_core.repair.single_edit")
    readings = Pair(old, "_core.repair.single_edit_readings")
    tails = ("", " and more text", "\n\nThanks!", " {x} [y]", ', "z": 1}')
    for _ in range(count):
        value = original(rng)
        if rng.random() < 0.6:
            value = [original(rng) for _ in range(rng.randrange(2, 14))]
        text = _slip(rng, dump(rng, value))
        if rng.random() < 0.4:
            text = _slip(rng, text)
        text += rng.choice(tails)
        if text[:1] not in "[{":
            continue
        new = _call(edit.new.fix_single_edit, text, max_depth=200)
        diffs.check(
            "fix_single_edit",
            text,
            new,
            _call(edit.old.fix_single_edit, text, max_depth=200),
        )
        new = _call(_sorted_readings, readings.new, text)
        diffs.check(
            "one_edit_readings", text, new, _call(_sorted_readings, readings.old, text)
        )


_NESTED_STRINGS: Final = (
    "[1 2]",
    "{",
    "]",
    '\\"',
    'a\\"b',
    "\\\\",
    "x, y",
    "k: v",
    "é",
    "[{",
    '"}',
)


def _nested(rng: random.Random, depth: int) -> Any:
    """A value of nested containers and strings that look like JSON."""
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        if rng.random() < 0.6:
            return rng.choice(_NESTED_STRINGS)
        return rng.choice((1, 23, -4.5, True, None))
    if roll < 0.65:
        return {f"k{i}": _nested(rng, depth + 1) for i in range(rng.randrange(1, 4))}
    return [_nested(rng, depth + 1) for _ in range(rng.randrange(1, 4))]


def _moved_quote(rng: random.Random, text: str) -> str:
    """``text`` with a quote moved a few characters (quotes as many as before)."""
    quotes = [i for i, c in enumerate(text) if c == '"']
    if not quotes:
        return text
    at = rng.choice(quotes)
    without = text[:at] + text[at + 1 :]
    to = max(0, min(len(without), at + rng.choice((-3, -2, -1, 1, 2, 3))))
    return without[:to] + '"' + without[to:]


def run_edits_before(old: str, rng: random.Random, count: int, diffs: Diffs) -> None:
    """Slips before the innermost container open at the decoder's stop.

    ``before_innermost`` rules out every edit wholly before that container's
    opener that keeps the quotes after it; here the slips are put there (a
    quote moved, an escape lost or added, a bracket, comma or colon lost,
    added or replaced) in nested texts whose strings hold brackets, quotes
    and escapes, and a second slip follows in the innermost container.
    """
    edit = Pair(old, "_core.repair.single_edit")
    readings = Pair(old, "_core.repair.single_edit_readings")
    for _ in range(count):
        text = json.dumps(_nested(rng, 0), ensure_ascii=rng.random() < 0.3)
        if text[:1] not in "[{":
            continue
        openers = [i for i, c in enumerate(text) if c in "[{"]
        cut = rng.choice(openers)
        head, tail = text[:cut], text[cut:]
        if head and rng.random() < 0.8:
            roll = rng.random()
            if roll < 0.3:
                head = _moved_quote(rng, head)
            elif roll < 0.45 and "\\" in head:
                at = rng.choice([i for i, c in enumerate(head) if c == "\\"])
                head = head[:at] + head[at + 1 :]
            else:
                head = _slip(rng, head)
        if rng.random() < 0.7:
            tail = _slip(rng, tail)
        text = head + tail
        if text[:1] not in "[{":
            continue
        diffs.check(
            "fix_single_edit(before)",
            text,
            _call(edit.new.fix_single_edit, text, max_depth=200),
            _call(edit.old.fix_single_edit, text, max_depth=200),
        )
        diffs.check(
            "one_edit_readings(before)",
            text,
            _call(_sorted_readings, readings.new, text),
            _call(_sorted_readings, readings.old, text),
        )


def _sorted_readings(module: Any, text: str) -> Any:
    found = module.one_edit_readings(text, max_depth=200)
    if found is None:
        return None
    return sorted(
        (k.at, k.name, k.insert, k.drop, canonical(k.value), k.end) for k in found
    )


def run_fences(
    old: str, rng: random.Random, count: int, soup: float, diffs: Diffs
) -> None:
    """Replies through the fence finders, the candidates and the label check."""
    fences, markup = Pair(old, "_core.reply.fences"), Pair(old, "_core.reply.markup")
    kinds, labels = (
        Pair(old, "_core.candidates.kinds"),
        Pair(old, "_core.candidates.placeholder"),
    )
    read = importlib.import_module("langchain_jsonrecover._core.candidates.read")
    found = importlib.import_module(f"{old}._core.candidates.find")  # before ``read``
    for _ in range(count):
        if rng.random() < soup:
            text = _soup(rng, _FENCE_PIECES)
        else:
            text = wrap(rng, dump(rng, original(rng)), dump(rng, original(rng)))[1]
            if rng.random() < 0.3:
                at = rng.randrange(len(text) + 1)
                text = text[:at] + rng.choice(_FENCE_PIECES) + text[at:]
        diffs.check(
            "find_fences",
            text,
            _call(fences.new.find_fences, text),
            _call(fences.old.find_fences, text),
        )
        diffs.check(
            "outer_fence",
            text,
            _call(fences.new.outer_fence, text),
            _call(fences.old.outer_fence, text),
        )
        new_prepared, old_prepared = (
            markup.new.prepare_reply(text),
            markup.old.prepare_reply(text),
        )
        for scalars in (False, True):
            new = _call(
                _candidates,
                read.iter_candidates,
                new_prepared,
                kinds.new.Scan(200, scalars=scalars),
            )
            was = _call(
                _candidates,
                found.iter_candidates,
                old_prepared,
                kinds.old.Scan(200, scalars=scalars),
            )
            diffs.check(f"candidates(scalars={scalars})", text, new, was)
        lead = text[: rng.randrange(len(text) + 1)]
        diffs.check(
            "is_example",
            lead,
            _call(labels.new.is_example, lead),
            _call(labels.old.is_example, lead),
        )


def _candidates(
    iterate: Callable[..., Iterator[Any]], prepared: Any, scan: Any
) -> list[Any]:
    return [
        (
            c.start,
            c.end,
            c.step,
            c.repairs,
            c.failure if c.value is None else canonical(c.value),
        )
        for c in iterate(prepared, scan)
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the chosen groups; print the counts of calls and differences."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--old", default="f1ef700", help="the git revision to compare with"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=1000, help="texts per group")
    parser.add_argument("--soup", type=float, default=0.5, help="share of soup texts")
    parser.add_argument(
        "--only", choices=("cuts", "edits", "edits_before", "fences"), action="append"
    )
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args(argv)
    groups = args.only or ["cuts", "edits", "edits_before", "fences"]
    diffs = Diffs(examples=args.examples)
    with tempfile.TemporaryDirectory(prefix="fuzz-units-") as scratch:
        sys.path.insert(0, scratch)
        old = import_revision(args.old, Path(scratch))[1].__name__
        for group in groups:
            rng = random.Random(f"{args.seed}-{group}")
            if group == "cuts":
                run_cuts(old, rng, args.count, args.soup, diffs)
            elif group == "edits":
                run_edits(old, rng, args.count, diffs)
            elif group == "edits_before":
                run_edits_before(old, rng, args.count, diffs)
            else:
                run_fences(old, rng, args.count, args.soup, diffs)
    print("\ncalls compared, differences:")
    for name, calls in sorted(diffs.calls.items()):
        print(f"  {calls:9}  {diffs.found[name]:6}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
