"""Markup inside JSON strings is text: a seeded adversary for the reply reader.

What it measures
    Serving layers leave tool-call markup, reasoning tags and special tokens
    in a reply, and the reader blanks them (``_core/reply/markup.py``,
    ``reasoning.py``) before the JSON scan. Inside a JSON string they are
    data, and a reading that blanks one changes the string: a wrong value.
    This script builds seeded replies whose strings hold such tokens
    (``<think>``, ``</think>``, ``<|im_end|>``, ``[TOOL_CALLS]f[ARGS]{}``,
    ``<tool_call>``, fences, ``<|python_tag|>`` …), serialized one of several
    ways, with ONE fault (as ``fuzz_shortcuts.py`` makes them: a lost or
    extra bracket, quote, comma or colon, a trailing comma, a single quote)
    or none, wrapped one way (bare, in a fence, after a faulty first block,
    after reasoning, a fence glued to ``</think>``, after call markup), and
    sometimes cut. Each reply is read through every entry point of
    ``fuzz_shortcuts.py`` (``extract`` at each repair level, with a schema,
    closing cuts, the parsers, the command line's reader, tool-call
    recovery) and streamed through the truncation parser in chunks (the
    last value, and every value on the way, which must be a partial of a
    value the reply allows). Answers are judged as ``fuzz_shortcuts.py``
    judges them: right, error, or wrong (a value no reading allows).

How to run
    python benchmarks/fuzz_markup.py --count 2000 --seed 1
    python benchmarks/fuzz_markup.py --count 500 --examples 5 --old main

Offline and seeded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz_shortcuts import Case, canonical, dump, fault_of, judge, run
from langchain_core.messages import AIMessageChunk

if TYPE_CHECKING:
    import random

TOKENS: Final = (
    "<think>",
    "</think>",
    "<think>hm</think>",
    "<|im_end|>",
    "<|eot_id|>",
    "</s>",
    "[TOOL_CALLS]f[ARGS]{}",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<tool_call>",
    "</tool_call>",
    '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    "<|python_tag|>",
    "<|python_tag|>{}",
    "[THINK]",
    "[/THINK]",
    "<|channel|>final<|message|>",
    "<|end|>",
    "<function=f>",
    "```",
    "```json",
    "```json\n{}\n```",
)
_PLACES: Final = ("{t}", "a {t}", "{t} b", "note: {t} x", "[1] {t}", "{t}\n{t}")
_KEYS: Final = ("a", "b", "c", "name", "args")


def _markup_string(rng: random.Random) -> str:
    return rng.choice(_PLACES).format(t=rng.choice(TOKENS))


def _leaf(rng: random.Random) -> Any:
    roll = rng.random()
    if roll < 0.55:
        return _markup_string(rng)
    if roll < 0.8:
        return rng.choice(("x", "", "y z", "[1]", "{", '"'))
    return rng.choice((1, -2, 3.5, True, None))


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 2 or roll < 0.45:
        return _leaf(rng)
    if roll < 0.75:
        keys = rng.sample(_KEYS, rng.randrange(1, 4))
        return {key: _value(rng, depth + 1) for key in keys}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(1, 4))]


def original(rng: random.Random) -> Any:
    """A root with at least one string holding markup, usually after others."""
    keys = rng.sample(_KEYS, rng.randrange(2, 5))
    value = {key: _value(rng, 1) for key in keys}
    value[keys[-1]] = _markup_string(rng)
    if rng.random() < 0.3:
        return list(value.values())
    return value


def wrap(rng: random.Random, body: str, other: str) -> tuple[str, str]:
    """A wrapper's name and the reply around ``body``."""
    kind = rng.choice(
        (
            "bare",
            "fence",
            "after_faulty_block",
            "think",
            "think_glued_fence",
            "prose",
            "eos_after",
            "tool_markup",
        )
    )
    if kind == "bare":
        return kind, body
    if kind == "fence":
        return kind, f"```json\n{body}\n```"
    if kind == "after_faulty_block":
        broken = other[: max(1, len(other) // 2)]
        return kind, f"```json\n{broken}\n```\n```json\n{body}\n```"
    if kind == "think":
        return kind, f"<think>x</think>\n{body}"
    if kind == "think_glued_fence":
        return kind, f"<think>x</think>```json\n{body}\n```"
    if kind == "prose":
        return kind, f"Here it is:\n{body}\nDone."
    if kind == "eos_after":
        return kind, f"{body}<|im_end|>"
    return kind, f"[TOOL_CALLS]f[ARGS]{body}"


def make_case(rng: random.Random) -> Case:
    """One seeded reply: markup in its strings, one fault or none, perhaps cut."""
    value = original(rng)
    other = original(rng)
    body = dump(rng, value)
    fault, faulty = fault_of(rng, body)
    wrapper, text = wrap(rng, faulty, dump(rng, other))
    allowed = {canonical(value), canonical({"name": "f", "arguments": value})}
    if wrapper == "after_faulty_block":
        allowed.add(canonical(other))
    if fault != "none":
        try:
            read = json.loads(faulty)
        except ValueError:
            pass
        else:
            allowed.update(
                (canonical(read), canonical({"name": "f", "arguments": read}))
            )
    # The first block is a cut of the other value: its partials are readings.
    cut = text if wrapper == "after_faulty_block" else None
    if fault == "none" and rng.random() < 0.5:
        at = rng.randrange(1, len(text))
        fault, cut, text = "cut", text, text[:at]
    return Case(text, fault, wrapper, tuple(sorted(allowed)), cut, value, other)


def streamed(parser: Any, text: str, case: Case) -> dict[str, str]:
    """The last streamed value, and the first wrong value on the way (if any).

    The values on the way are judged as partials of the original, so only
    when the reply has no fault but perhaps its cut.
    """
    chunks = [AIMessageChunk(content=text[i : i + 7]) for i in range(0, len(text), 7)]
    last = "!none"
    on_the_way = "!none"
    partial = Case(
        case.text,
        case.fault,
        case.wrapper,
        case.allowed,
        text,
        case.original,
        case.other,
    )
    try:
        for out in parser.transform(iter(chunks)):
            last = canonical(out)
            if (
                on_the_way == "!none"
                and case.fault in ("none", "cut")
                and judge(partial, last) == "wrong"
            ):
                on_the_way = last
    except Exception as exc:  # noqa: BLE001 - an error's type is an answer
        last = f"!{type(exc).__name__}"
    return {"stream_last": last, "stream_on_the_way": on_the_way}


def main(argv: list[str] | None = None) -> int:
    """Run the adversary; print counts and the shortest examples."""
    return run(
        argv,
        make_case,
        description=__doc__,
        count=1000,
        more=lambda tree, case: streamed(tree.parsers["trunc_on"], case.text, case),
    )


if __name__ == "__main__":
    sys.exit(main())
