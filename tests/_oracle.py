"""A fault-injection oracle: realistic replies, one fault each, and a verdict.

Issue 10's contract is *the intended value or a typed error, never a third
value*. This module measures it. ``generate`` builds, from a seed, replies a
model could send (nested records whose strings hold quotes, braces, brackets,
URLs, code, newlines, backslashes and emoji; compact or indented; bare, fenced
or in prose) and puts exactly one fault in each reply's JSON; ``judge`` says
whether a parser's answer is ``"right"`` (the original value), ``"error"`` (a
typed error) or ``"wrong"`` (anything else: the outcome to drive to zero).

Fault kinds, equally weighted (case ``i`` gets ``FAULTS[i % len(FAULTS)]``):
a bracket, quote, comma or colon deleted / added / swapped, a stray closer, a
missing opener, a Python literal, a single-quoted string or key, a ``//``
comment. A fault that leaves strictly valid JSON is invisible, so the
generator draws again until the faulted payload fails ``orjson.loads``.

Cuts are a separate family (``cut=True``): the reply stops at a random point
inside the JSON, as a token limit stops it, with no other fault. The right
answer is what ``pydantic_core.from_json(cut, allow_partial="trailing-strings")``
reads with a number at the cut dropped (issue 21: its last digits may be
missing, so it is never kept).

A parser that closes cut replies (``closes=True``: the truncation parsers,
``json_repair``, langchain-core's ``JsonOutputParser``) cannot tell a fault at
the very end of a reply that ends with its JSON (a last ``}`` or ``"``
deleted) from a cut, so for it such a case also accepts the cut readings.

Each case is drawn from its own ``random.Random`` seeded by ``(seed, index)``,
so the first cases of a long run are the cases of a short one.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson
from pydantic_core import from_json

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    TruncationRecoveringOutputParser,
)

Verdict = Literal["right", "error", "wrong"]
VERDICTS: Final[tuple[Verdict, ...]] = ("right", "error", "wrong")
FIXED_SEED: Final = 20261130

FAULTS: Final = (
    "bracket_deleted",
    "bracket_added",
    "bracket_swapped",
    "quote_deleted",
    "quote_added",
    "quote_swapped",
    "comma_deleted",
    "comma_added",
    "comma_swapped",
    "colon_deleted",
    "colon_added",
    "colon_swapped",
    "stray_closer",
    "missing_opener",
    "python_literal",
    "single_quote",
    "comment_line",
)
CUT: Final = "cut"
REPAIR_LEVELS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    ("repair=False", {"repair": False}),
    ("", {}),
    ("repair=True", {"repair": True}),
)
"""Each ``repair`` level an oracle runs: its option as written, and as passed.
The default (``repair="safe"``) is the one written as nothing."""

# Token kinds of the serialiser: faults act on tokens, so a comma inside a
# string is never taken for a separator.
OPEN, CLOSE, COLON, COMMA, KEY, STR, NUM, LIT, WS = (
    "open",
    "close",
    "colon",
    "comma",
    "key",
    "str",
    "num",
    "lit",
    "ws",
)
Token = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Case:
    """One reply with one fault (or one cut) and what a parser should answer."""

    reply: str
    """The whole reply, prose and fences included."""
    original: Any
    """The value before the fault (for a cut: the whole value, before cutting)."""
    fault: str
    """A name from ``FAULTS``, or ``"cut"``."""
    cut: bool
    seed: int
    index: int
    payload: str
    """The JSON text as it stands in the reply, fault included."""
    accepted: tuple[str, ...]
    """Canonical forms of the right answers: the original, or a cut's readings."""
    as_cut: tuple[str, ...] = ()
    """Also right for a parser that closes cuts: the fault sits at the end of a
    reply that ends with its JSON, which no parser can tell from a cut."""

    @property
    def label(self) -> str:
        """Where to find the case again: ``seed:index:fault``."""
        return f"{self.seed}:{self.index}:{self.fault}"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a parser did with a reply: a value, or an exception."""

    value: Any = None
    error: BaseException | None = None


def canonical(value: Any) -> str:
    """A text equal for two values iff they are equal JSON, types included.

    ``1``, ``1.0`` and ``True`` differ, key order does not; ``NaN`` is not
    ``null`` (orjson would write it so), and a string holding a lone surrogate
    (a cut emoji) still compares.

    >>> canonical({"b": 1, "a": [1.0, True, None]})
    '{"a": [1.0, true, null], "b": 1}'
    """
    return json.dumps(
        value, sort_keys=True, ensure_ascii=True, default=lambda o: f"<{o!r}>"
    )


def judge(
    case: Case, outcome: Outcome, *, ours: bool = True, closes: bool = False
) -> Verdict:
    """Say whether ``outcome`` answers ``case`` rightly, with an error, or wrongly.

    Args:
        case: The case.
        outcome: What the parser did.
        ours: Only our ``JsonRecoveryError`` counts as an error (any other
            exception breaks the contract: wrong). For a peer, any exception,
            ``None`` or an empty result is its way of failing.
        closes: The parser closes cut replies, so ``case.as_cut`` is right too.

    >>> case = generate(FIXED_SEED, 1)[0]
    >>> judge(case, Outcome(value=case.original))
    'right'
    >>> judge(case, Outcome(value={"something": "else"}))
    'wrong'
    """
    if outcome.error is None:
        seen = canonical(outcome.value)
        if seen in case.accepted or (closes and seen in case.as_cut):
            return "right"
        if not ours and outcome.value in (None, "", {}, []):
            return "error"
        return "wrong"
    if isinstance(outcome.error, JsonRecoveryError) or not ours:
        return "error"
    return "wrong"


# ---------------------------------------------------------------- values

_FIRST = ("Ada", "Grace", "Alan", "José", "Zoë", "Lin", "Amara", "Søren", "Priya")
_LAST = ("Lovelace", "Hopper", "Turing", "Martínez", "O'Neil", "Chen", "Okafor")
_NAMES_CJK = ("李雷", "山田太郎", "Ольга Петрова", "Nguyễn Văn An")
_WORDS = (
    "alpha",
    "beta",
    "urgent",
    "billing",
    "api",
    "v2",
    "ml",
    "eu-west-1",
    "draft",
    "customer",
    "retry",
    "timeout",
    "café",
    "naïve",
    "data",
    "report",
)
_CITIES = ("Paris", "Zürich", "São Paulo", "Tokyo", "New York", "Kraków", "Cairo")
_KEYS_EXTRA = ("notes", "comment", "reason", "details", "hint", "label", "title")


def _sentence(rng: random.Random) -> str:
    """A sentence a model writes into a JSON string: often with JSON-ish text."""
    w = rng.choice(_WORDS)
    n = rng.randint(1, 999)
    name = rng.choice(_FIRST)
    options: tuple[str, ...] = (
        f"The {w} job finished in {n} ms.",
        f'{name} said "ship it" and left.',
        f'Use the "{w}" flag, not "{rng.choice(_WORDS)}".',
        f"Hello {{name}}, your order {{order_id}} shipped ({n} items).",
        f'call f({{"id": {n}}}) then g([1, 2])',
        f'The payload was {{"user": "{name}", "tags": ["{w}"]}}.',
        f"Use items[{n % 10}] and map[key] here.",
        f"See https://api.example.com/v1/items?id={n}&sort=desc for details.",
        f"https://example.org/search?q={w}&page=[{n % 5}]#{{frag}}",
        f"def area(r):\n    return 3.14 * r ** {n % 4}",
        f'if (x > {n}) {{\n  return ["{w}"];\n}}',
        f'const cfg = {{"retries": {n % 7}, "tags": ["{w}", "x"]}};',
        f'print(f"{{name}}: {{value}}")  # {w}',
        f"Line one.\nLine two: {w}.\n\nLast line.",
        "Café déjà vu, naïve façade, Zürich.",
        f"東京タワー {n}m, 日本語のテキスト。",
        f"🎉 Launch day! 🚀 {n} users 👍🏽",
        f"**{w}** and `code({n})` in markdown",
        f"- item one\n- item two: {w}\n- item {n}",
        f"Regex: \\d+\\s*ms, path C:\\logs\\{w}",
        f"LaTeX: \\(\\frac{{1}}{{{n % 9 + 2}}}\\) and \\[x^2\\]",
        f"Note: a, b, c; key: value, other: {w}",
        f"It's {w}; don't retry more than {n % 5} times.",
        'He wrote: "use { and } carefully", then "[x]".',
        f"Tab\tseparated\t{w}",
        f"{w}: {n}",
        f"{name} {rng.choice(_LAST)}",
        "",
    )
    return rng.choice(options)


def _short(rng: random.Random) -> str:
    return rng.choice(
        (
            rng.choice(_WORDS),
            f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
            rng.choice(_NAMES_CJK),
            rng.choice(_CITIES),
            f"{rng.choice(_WORDS)}-{rng.randint(1, 99)}",
        )
    )


def _number(rng: random.Random) -> int | float:
    kind = rng.random()
    if kind < 0.5:
        return rng.randint(0, 5000)
    if kind < 0.6:
        return -rng.randint(1, 300)
    if kind < 0.9:
        return round(rng.uniform(0, 100), rng.choice((1, 2, 3)))
    return rng.choice((0.5, 1.0, 1e-06, 12345678901, 3.14159, 2.5e10))


def _literal(rng: random.Random) -> bool | None:
    return rng.choice((True, False, None))


def _tags(rng: random.Random) -> list[Any]:
    return [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))]


def _person(rng: random.Random) -> dict[str, Any]:
    person: dict[str, Any] = {
        "id": rng.randint(1, 99999),
        "name": _short(rng),
        "email": f"{rng.choice(_FIRST).lower()}_{rng.randint(1, 99)}@example.com",
        "active": rng.random() < 0.7,
    }
    if rng.random() < 0.6:
        person["score"] = _number(rng)
    if rng.random() < 0.5:
        person["tags"] = _tags(rng)
    if rng.random() < 0.5:
        person["address"] = {
            "city": rng.choice(_CITIES),
            "zip": f"{rng.randint(1000, 99999)}",
            "line2": None,
        }
    if rng.random() < 0.4:
        person[rng.choice(_KEYS_EXTRA)] = _sentence(rng)
    return person


def _search(rng: random.Random) -> dict[str, Any]:
    results = [
        {
            "rank": i + 1,
            "title": _sentence(rng) if rng.random() < 0.3 else _short(rng),
            "url": f"https://example.com/{rng.choice(_WORDS)}/{rng.randint(1, 999)}?ref=[{i}]",
            "snippet": _sentence(rng),
            "score": _number(rng),
        }
        for i in range(rng.randint(1, 3))
    ]
    return {
        "query": _sentence(rng) if rng.random() < 0.3 else rng.choice(_WORDS),
        "results": results,
        "total": rng.randint(0, 500),
        "next_page": None if rng.random() < 0.5 else "https://example.com/p/2",
    }


def _agent(rng: random.Random) -> dict[str, Any]:
    steps = [
        {
            "id": i + 1,
            "tool": rng.choice(("search", "calculator", "python", "sql")),
            "args": {"input": _sentence(rng), "limit": rng.randint(1, 50)},
            "ok": rng.random() < 0.8,
        }
        for i in range(rng.randint(1, 3))
    ]
    return {
        "thought": _sentence(rng),
        "steps": steps,
        "final": {"answer": rng.choice((_number(rng), _sentence(rng), _literal(rng)))},
    }


def _review(rng: random.Random) -> dict[str, Any]:
    return {
        "file": f"src/{rng.choice(_WORDS)}/{rng.choice(('main', 'utils', 'api'))}.py",
        "issues": [
            {
                "line": rng.randint(1, 400),
                "severity": rng.choice(("info", "warning", "error")),
                "message": _sentence(rng),
                "suggestion": rng.choice((None, _sentence(rng))),
            }
            for _ in range(rng.randint(1, 3))
        ],
        "approved": rng.random() < 0.4,
    }


def _product(rng: random.Random) -> dict[str, Any]:
    return {
        "sku": f"{rng.choice('ABCXZ')}-{rng.randint(100, 999)}",
        "name": _short(rng),
        "price": round(rng.uniform(1, 500), 2),
        "in_stock": rng.random() < 0.6,
        "variants": [
            {"color": rng.choice(("red", "blue", "noir")), "size": rng.choice("SML")}
            for _ in range(rng.randint(0, 2))
        ],
        "description": _sentence(rng),
        "discount": rng.choice((None, 0.1, 0.25)),
    }


def _entities(rng: random.Random) -> dict[str, Any]:
    return {
        "entities": [
            {
                "text": _short(rng),
                "type": rng.choice(("PERSON", "ORG", "LOC", "DATE")),
                "start": rng.randint(0, 200),
                "end": rng.randint(200, 400),
                "confidence": round(rng.random(), 3),
            }
            for _ in range(rng.randint(1, 3))
        ],
        "sentiment": {"label": rng.choice(("positive", "neutral")), "score": 0.82},
        "language": rng.choice(("en", "fr", "ja")),
        "summary": _sentence(rng),
        "flagged": _literal(rng),
    }


def _settings(rng: random.Random) -> dict[str, Any]:
    return {
        "model": rng.choice(("gpt-4o", "claude-3-5-sonnet", "llama3:8b")),
        "temperature": rng.choice((0, 0.2, 0.7, 1.0)),
        "max_tokens": rng.choice((256, 1024, 4096)),
        "stop": rng.choice((["\n\n", "###"], ["</answer>"], [])),
        "user": {
            "name": _short(rng),
            "prefs": {"theme": "dark", "beta": _literal(rng)},
        },
        "debug": rng.random() < 0.5,
        "prompt": _sentence(rng),
    }


def _events(rng: random.Random) -> dict[str, Any]:
    return {
        "events": [
            {
                "title": _sentence(rng) if rng.random() < 0.4 else _short(rng),
                "date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                "time": f"{rng.randint(0, 23):02d}:{rng.choice(('00', '30'))}",
                "attendees": [_short(rng) for _ in range(rng.randint(0, 3))],
                "location": rng.choice((None, rng.choice(_CITIES))),
            }
            for _ in range(rng.randint(1, 3))
        ],
        "timezone": "Europe/Paris",
    }


def _math(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(2, 9)
    return {
        "question": f"What is 1/{n} of {n * 6}?",
        "answer": rng.choice((6, f"\\(\\frac{{{n * 6}}}{{{n}}} = 6\\)", "6")),
        "steps": [_sentence(rng) for _ in range(rng.randint(1, 3))],
        "confidence": round(rng.random(), 2),
        "verified": _literal(rng),
    }


def _records(rng: random.Random) -> list[Any]:
    make = rng.choice((_person, _product, _review))
    return [make(rng) for _ in range(rng.randint(1, 4))]


_TEMPLATES: Final[tuple[Callable[[random.Random], Any], ...]] = (
    _person,
    _search,
    _agent,
    _review,
    _product,
    _entities,
    _settings,
    _events,
    _math,
    _records,
    _records,
)


def _value(rng: random.Random) -> Any:
    return rng.choice(_TEMPLATES)(rng)


# ------------------------------------------------------------ serialiser


@dataclass(frozen=True, slots=True)
class _Layout:
    indent: int | None
    item_sep: str
    key_sep: str
    ensure_ascii: bool


def _layout(rng: random.Random, *, lines: bool) -> _Layout:
    indent = rng.choice((2, 4)) if lines or rng.random() < 0.5 else None
    spaced = indent is not None or rng.random() < 0.5
    return _Layout(
        indent=indent,
        item_sep="," if indent is not None or not spaced else ", ",
        key_sep=": " if spaced else ":",
        ensure_ascii=rng.random() < 0.15,
    )


def _tokens(value: Any, layout: _Layout, depth: int = 0) -> Iterator[Token]:
    if isinstance(value, dict | list):
        members = list(value.items()) if isinstance(value, dict) else list(value)
        opener, closer = ("{", "}") if isinstance(value, dict) else ("[", "]")
        yield OPEN, opener
        if not members:
            yield CLOSE, closer
            return
        for i, member in enumerate(members):
            if i:
                yield COMMA, ","
                if layout.indent is None and layout.item_sep != ",":
                    yield WS, " "
            if layout.indent is not None:
                yield WS, "\n" + " " * (layout.indent * (depth + 1))
            if isinstance(value, dict):
                key, item = member
                yield KEY, json.dumps(key, ensure_ascii=layout.ensure_ascii)
                yield COLON, ":"
                if layout.key_sep != ":":
                    yield WS, " "
            else:
                item = member
            yield from _tokens(item, layout, depth + 1)
        if layout.indent is not None:
            yield WS, "\n" + " " * (layout.indent * depth)
        yield CLOSE, closer
    elif isinstance(value, str):
        yield STR, json.dumps(value, ensure_ascii=layout.ensure_ascii)
    elif value is None or isinstance(value, bool):
        yield LIT, json.dumps(value)
    else:
        yield NUM, json.dumps(value)


# ---------------------------------------------------------------- faults

_CLOSER_OF: Final = {"{": "}", "[": "]"}
_SWAPPED: Final = {"{": "[", "[": "{", "}": "]", "]": "}"}
_PYTHON: Final = {"true": "True", "false": "False", "null": "None"}
_COMMENTS: Final = (
    "// settings",
    "// TODO: fill in the rest",
    "// the id comes from the request",
    '// note: "score" is 0-1',
    "// optional fields below",
    "// see {docs} for the schema",
    "// results [sorted by rank]",
)

Fault = Callable[[random.Random, list[Token]], str | None]


def _join(tokens: list[Token]) -> str:
    return "".join(text for _, text in tokens)


def _pick(rng: random.Random, tokens: list[Token], kinds: set[str]) -> int | None:
    where = [i for i, (kind, _) in enumerate(tokens) if kind in kinds]
    return rng.choice(where) if where else None


def _pick_text(rng: random.Random, tokens: list[Token], texts: set[str]) -> int | None:
    where = [i for i, (_, text) in enumerate(tokens) if text in texts]
    return rng.choice(where) if where else None


def _replace(tokens: list[Token], i: int, text: str) -> str:
    return _join([*tokens[:i], (tokens[i][0], text), *tokens[i + 1 :]])


def _insert(rng: random.Random, tokens: list[Token], text: str) -> str:
    i = rng.randint(0, len(tokens))
    return _join([*tokens[:i], ("x", text), *tokens[i:]])


def _delete_kind(kinds: set[str]) -> Fault:
    def fault(rng: random.Random, tokens: list[Token]) -> str | None:
        i = _pick(rng, tokens, kinds)
        return None if i is None else _join(tokens[:i] + tokens[i + 1 :])

    return fault


def _add(choices: str) -> Fault:
    def fault(rng: random.Random, tokens: list[Token]) -> str | None:
        return _insert(rng, tokens, rng.choice(choices))

    return fault


def _bracket_swapped(rng: random.Random, tokens: list[Token]) -> str | None:
    i = _pick(rng, tokens, {OPEN, CLOSE})
    return None if i is None else _replace(tokens, i, _SWAPPED[tokens[i][1]])


def _quote_deleted(rng: random.Random, tokens: list[Token]) -> str | None:
    i = _pick(rng, tokens, {KEY, STR})
    if i is None:
        return None
    text = tokens[i][1]
    return _replace(tokens, i, text[1:] if rng.random() < 0.5 else text[:-1])


def _quote_added(rng: random.Random, tokens: list[Token]) -> str | None:
    text = _join(tokens)
    at = rng.randint(1, len(text) - 1)
    return text[:at] + '"' + text[at:]


def _quote_swapped(rng: random.Random, tokens: list[Token]) -> str | None:
    """A delimiting quote trades places with the character beside it."""
    i = _pick(rng, tokens, {KEY, STR})
    if i is None:
        return None
    start = len(_join(tokens[:i]))
    end = start + len(tokens[i][1]) - 1
    text = _join(tokens)
    at = rng.choice((start - 1, start, end - 1, end))
    if at < 0 or at + 1 >= len(text):
        return None
    return text[:at] + text[at + 1] + text[at] + text[at + 2 :]


def _comma_swapped(rng: random.Random, tokens: list[Token]) -> str | None:
    i = _pick(rng, tokens, {COMMA})
    return None if i is None else _replace(tokens, i, rng.choice(":;"))


def _colon_swapped(rng: random.Random, tokens: list[Token]) -> str | None:
    i = _pick(rng, tokens, {COLON})
    return None if i is None else _replace(tokens, i, rng.choice(",="))


def _stray_closer(rng: random.Random, tokens: list[Token]) -> str | None:
    """One closer too many, right after a closer (``]]``, ``}}``, ``}]``)."""
    i = _pick(rng, tokens, {CLOSE})
    if i is None:
        return None
    extra = tokens[i][1] if rng.random() < 0.5 else rng.choice("}]")
    return _join([*tokens[: i + 1], (CLOSE, extra), *tokens[i + 1 :]])


def _python_literal(rng: random.Random, tokens: list[Token]) -> str | None:
    i = _pick(rng, tokens, {LIT})
    return None if i is None else _replace(tokens, i, _PYTHON[tokens[i][1]])


def _single_quote(rng: random.Random, tokens: list[Token]) -> str | None:
    where = [
        i
        for i, (kind, text) in enumerate(tokens)
        if kind in {KEY, STR} and "'" not in text
    ]
    if not where:
        return None
    i = rng.choice(where)
    return _replace(tokens, i, "'" + tokens[i][1][1:-1] + "'")


def _comment_line(rng: random.Random, tokens: list[Token]) -> str | None:
    """A ``//`` line between members, or at the end of a member's line."""
    where = [i for i, (kind, text) in enumerate(tokens) if kind == WS and "\n" in text]
    if not where:
        return None
    i = rng.choice(where)
    comment = rng.choice(_COMMENTS)
    ws = tokens[i][1]
    text = ws + comment + ws if rng.random() < 0.6 else " " + comment + ws
    return _replace(tokens, i, text)


_FAULT_MAKERS: Final[dict[str, Fault]] = {
    "bracket_deleted": _delete_kind({OPEN, CLOSE}),
    "bracket_added": _add("{}[]"),
    "bracket_swapped": _bracket_swapped,
    "quote_deleted": _quote_deleted,
    "quote_added": _quote_added,
    "quote_swapped": _quote_swapped,
    "comma_deleted": _delete_kind({COMMA}),
    "comma_added": _add(","),
    "comma_swapped": _comma_swapped,
    "colon_deleted": _delete_kind({COLON}),
    "colon_added": _add(":"),
    "colon_swapped": _colon_swapped,
    "stray_closer": _stray_closer,
    "missing_opener": _delete_kind({OPEN}),
    "python_literal": _python_literal,
    "single_quote": _single_quote,
    "comment_line": _comment_line,
}
assert set(_FAULT_MAKERS) == set(FAULTS)

# ---------------------------------------------------------------- replies

_LEADS: Final = (
    "Here is the result:",
    "Sure! Here's the JSON you asked for:",
    "Based on the document, the extracted data is:",
    "I found the matching records (see below).",
    "Of course. The answer, as JSON:",
    "Done - output follows.",
    "Here you go:",
)
_TRAILERS: Final = (
    "Let me know if you need anything else.",
    "Hope this helps!",
    "Note: scores are on a 0-1 scale.",
    "I can add more fields if needed.",
    "Let me know if the format should change (e.g. CSV).",
)
_STYLES: Final = ("bare", "fence", "fence_prose", "prose", "prose_lead")
_STYLE_WEIGHTS: Final = (25, 20, 20, 25, 10)


def _wrap(rng: random.Random, payload: str, style: str, *, cut: bool) -> str:
    lead = rng.choice(_LEADS)
    sep = rng.choice(("\n\n", "\n", " "))
    fence = rng.choice(("```json\n", "```json\n", "```\n"))
    if cut:  # the token limit: nothing after the JSON
        return {
            "bare": "",
            "fence": fence,
            "fence_prose": lead + "\n\n" + fence,
            "prose": lead + sep,
            "prose_lead": lead + sep,
        }[style] + payload
    trailer = rng.choice(_TRAILERS)
    return {
        "bare": payload,
        "fence": fence + payload + "\n```",
        "fence_prose": lead + "\n\n" + fence + payload + "\n```\n\n" + trailer,
        "prose": lead + sep + payload + sep + trailer,
        "prose_lead": lead + sep + payload,
    }[style]


def _is_strict_json(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


_NUMBER_TAIL: Final = re.compile(r"[-+0-9.eE]+\Z")


def _open_end(text: str) -> tuple[bool, bool]:
    """Scan JSON text: (is its root still open at the end, does it end in a string)."""
    depth = 0
    in_string = escaped = False
    stripped = text.rstrip()
    for at, char in enumerate(stripped):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth <= 0 and at < len(stripped) - 1:
                return False, False  # the root closed before the end
    return depth > 0 or in_string, in_string


def cut_readings(text: str) -> tuple[str, ...]:
    """Canonical forms of what a cut JSON text reads as (empty: not a cut).

    A cut is a prefix of valid JSON whose root is still open: pydantic-core's
    ``allow_partial="trailing-strings"`` reading, without a number at the cut
    (its last digits may be missing: issue 21, never kept).

    >>> cut_readings('{"a": [1, 2')
    ('{"a": [1]}',)
    >>> cut_readings('{"a": 1} x')
    ()
    """
    if not text.lstrip()[:1] or text.lstrip()[0] not in "{[":
        return ()
    still_open, in_string = _open_end(text)
    if not still_open:
        return ()
    readings: list[str] = []
    candidates = [text]
    tail = _NUMBER_TAIL.search(text)
    if tail and not in_string and tail.group()[0] in "-0123456789":
        candidates = [text[: tail.start()]]
    for candidate in candidates:
        try:
            reading = canonical(from_json(candidate, allow_partial="trailing-strings"))
        except ValueError:
            continue
        if reading not in readings:
            readings.append(reading)
    return tuple(readings)


def _case(seed: int, index: int, *, cut: bool) -> Case:
    rng = random.Random(f"{seed}:{'cut' if cut else 'fault'}:{index}")  # noqa: S311
    fault = CUT if cut else FAULTS[index % len(FAULTS)]
    for _ in range(1000):
        original = _value(rng)
        layout = _layout(rng, lines=fault == "comment_line")
        tokens = list(_tokens(original, layout))
        style = rng.choices(_STYLES, _STYLE_WEIGHTS)[0]
        if cut:
            whole = _join(tokens)
            payload: str | None = whole[: rng.randint(1, len(whole) - 1)]
        else:
            payload = _FAULT_MAKERS[fault](rng, tokens)
        if payload is None or _is_strict_json(payload):
            continue  # the fault does not apply, or it is invisible
        readings = cut_readings(payload)
        accepted: tuple[str, ...]
        as_cut: tuple[str, ...]
        if cut:
            if not readings:
                continue
            accepted, as_cut = readings, ()
        else:
            accepted = (canonical(original),)
            ends_with_json = style in {"bare", "prose_lead"}
            as_cut = readings if ends_with_json else ()
        return Case(
            reply=_wrap(rng, payload, style, cut=cut),
            original=original,
            fault=fault,
            cut=cut,
            seed=seed,
            index=index,
            payload=payload,
            accepted=accepted,
            as_cut=as_cut,
        )
    msg = f"no {fault} case for seed {seed}, index {index}"
    raise RuntimeError(msg)


def generate(seed: int, count: int, *, cut: bool = False, start: int = 0) -> list[Case]:
    """``count`` cases for ``seed``: faulted replies, or cut ones with ``cut=True``.

    >>> [case.fault for case in generate(FIXED_SEED, 3)]
    ['bracket_deleted', 'bracket_added', 'bracket_swapped']
    >>> generate(7, 2) == generate(7, 2)
    True
    """
    return [_case(seed, i, cut=cut) for i in range(start, start + count)]


# ---------------------------------------------------------------- runners


@dataclass(frozen=True, slots=True)
class Runner:
    """A parser under test: how to call it, and how to read its failures."""

    name: str
    parse: Callable[[str], Any] = field(repr=False)
    ours: bool = True
    """Only a ``JsonRecoveryError`` is an error; other exceptions are wrong."""
    closes: bool = False
    """The parser closes cut replies (see ``Case.as_cut``)."""

    def run(self, reply: str) -> Outcome:
        """Parse ``reply``, catching what the parser raises."""
        try:
            return Outcome(value=self.parse(reply))
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            return Outcome(error=exc)

    def judge(self, case: Case) -> tuple[Verdict, Outcome]:
        """Run the parser on ``case`` and judge its outcome."""
        outcome = self.run(case.reply)
        return judge(case, outcome, ours=self.ours, closes=self.closes), outcome


def our_runners() -> list[Runner]:
    """Our two parsers at each ``repair`` level, by the names the tables use.

    ``X()`` is the default level (``repair="safe"``).
    """
    return [
        Runner(
            f"{parser.__name__}({option})",
            parser(**levels).parse,
            closes=parser is TruncationRecoveringOutputParser,
        )
        for parser in (JsonFenceOutputParser, TruncationRecoveringOutputParser)
        for option, levels in REPAIR_LEVELS
    ]


def peer_runners() -> list[Runner]:
    """langchain-core's ``JsonOutputParser`` and, when installed, ``json_repair``."""
    from langchain_core.output_parsers import JsonOutputParser  # noqa: PLC0415

    runners = [
        Runner(
            "langchain-core JsonOutputParser()",
            JsonOutputParser().parse,
            ours=False,
            closes=True,
        )
    ]
    try:
        import json_repair  # noqa: PLC0415
    except ImportError:
        return runners
    runners.insert(
        0, Runner("json_repair.loads", json_repair.loads, ours=False, closes=True)
    )
    return runners


def describe(case: Case, outcome: Outcome) -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    got = (
        f"raised {type(outcome.error).__name__}: {outcome.error}"
        if outcome.error is not None
        else canonical(outcome.value)
    )
    expected = " or ".join(case.accepted)
    return (
        f"[{case.label}] reply={case.reply!r}\n"
        f"    expected: {expected}\n"
        f"    got:      {got}"
    )
