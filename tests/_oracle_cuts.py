"""The cuts oracle (issue 21): cut replies under schemas with defaults.

A wrong value passes validation and nobody asks again, and a cut reply is
where a schema's defaults hide what the cut removed: ``{"done": fa`` read as
``done=False``. ``generate`` builds, from a seed, values of pydantic models
whose every field has a default (str, int, float, bool, ``Literal``, a nested
model, lists), renders them (compact or indented; bare, fenced or after a
lead line), cuts the text at a random position inside it, and mixes in slips
(a missing inner closer, a key opened with ``'``, a lost comma, a partly
escaped member, a path written with raw backslashes) that a parser must not
read as a cut. ``judge`` says ``"right"``, ``"error"`` or ``"wrong"``.

The right partial of a cut text (``truth``):

- a scalar at the cut (a number or a literal) is dropped: ``[101, 102, 10``
  reads ``[101, 102]`` (a complete ``true`` may also stay);
- a string at the cut keeps its prefix (pydantic-core's
  ``allow_partial="trailing-strings"``);
- with a schema, a member whose key the reply began (a key, partial or whole,
  whose value the cut removed) leaves only an error: its default would stand
  for a value the reply was writing. Fields the reply never reached take
  their defaults.

A slip with no cut after it has the original value as its only right answer.
A slip with a cut after it has the truth of the same cut without the slip. An
entry point that is told the model stopped at its token limit
(``finish_reason="length"``) may also read a slipped reply that is a valid
JSON prefix as that cut (the metadata says it is one).

Each case is drawn from its own ``random.Random`` seeded by ``(seed, index)``,
so the first cases of a long run are the cases of a short one.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from _oracle import VERDICTS, Outcome, Verdict, canonical
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel, Field, ValidationError
from pydantic_core import from_json

from langchain_jsonrecover import JsonRecoveryError, TruncationRecoveringOutputParser

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from langchain_jsonrecover._core.levels import Repair

__all__ = [
    "FIXED_SEED",
    "SLIPS",
    "VERDICTS",
    "Case",
    "Entry",
    "Outcome",
    "Verdict",
    "describe",
    "entries",
    "generate",
    "is_prefix",
    "judge",
    "truth",
]

FIXED_SEED: Final = 20261203
SLIPS: Final = (
    "missing_inner_closer",
    "single_quote_key",
    "comma_lost",
    "partly_escaped",
    "raw_backslashes",
)
_SLIP_SHARE: Final = 0.3


class Address(BaseModel):
    """A nested model."""

    city: str = "unknown"
    zip_code: str = ""
    floor: int = 0


class Profile(BaseModel):
    """Every scalar kind with a default, a nested model and a list."""

    name: str = ""
    age: int = 0
    score: float = 0.0
    active: bool = False
    role: Literal["admin", "user", "guest"] = "guest"
    address: Address = Field(default_factory=Address)
    tags: list[str] = Field(default_factory=list)


class Step(BaseModel):
    """An item of a list of models."""

    id: int = 0
    ok: bool = True
    note: str | None = None


class Task(BaseModel):
    """A path (backslashes), a list of models, numbers with exponents."""

    title: str = ""
    done: bool = False
    priority: int = 3
    estimate: float = 1.0
    status: Literal["open", "closed"] = "open"
    path: str = ""
    steps: list[Step] = Field(default_factory=list)
    scores: list[float] = Field(default_factory=list)


MODELS: Final[tuple[type[BaseModel], ...]] = (Profile, Task)

# ---------------------------------------------------------------- values

_WORDS: Final = ("alpha", "beta", "café", "Zürich", "東京", "naïve", "ok", "x y")
_PATHS: Final = (
    "C:\\logs\\files\\run.txt",
    "D:\\data\\new\\table.csv",
    "C:\\temp\\build\\out",
)


class _Num:
    """A number and the text a model wrote for it (``2.5e1``, ``-0.5``)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _number(rng: random.Random, *, integer: bool) -> _Num:
    if integer:
        return _Num(str(rng.choice((0, 1, 7, 42, 101, 2024, -3, 123456))))
    return _Num(
        rng.choice(
            ("2.5e1", "0.75", "-0.5", "3.14159", "1e-3", "12.0", "100", "6.02E2")
        )
    )


def _profile(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "name": rng.choice(("Ada Lovelace", "Grace", "José", "Zoë O'Neil", "李雷")),
        "age": _number(rng, integer=True),
        "score": _number(rng, integer=False),
        "active": rng.choice((True, False)),
        "role": rng.choice(("admin", "user", "guest")),
        "address": {
            "city": rng.choice(("Paris", "São Paulo", "Kraków")),
            "zip_code": rng.choice(("75001", "01000-000", "")),
            "floor": _number(rng, integer=True),
        },
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 3))],
    }
    return value


def _task(rng: random.Random) -> dict[str, Any]:
    return {
        "title": rng.choice(("Ship v2", 'Fix "quotes"', "Write {docs}", "a, b: c")),
        "done": rng.choice((True, False)),
        "priority": _number(rng, integer=True),
        "estimate": _number(rng, integer=False),
        "status": rng.choice(("open", "closed")),
        "path": rng.choice(_PATHS),
        "steps": [
            {
                "id": _number(rng, integer=True),
                "ok": rng.choice((True, False)),
                "note": rng.choice((None, "done", "see [1]")),
            }
            for _ in range(rng.randint(0, 3))
        ],
        "scores": [_number(rng, integer=False) for _ in range(rng.randint(0, 3))],
    }


def _drop_some(rng: random.Random, value: dict[str, Any]) -> dict[str, Any]:
    """Leave some fields out (their defaults are then right) and shuffle keys."""
    keys = [k for k in value if rng.random() > 0.15] or [next(iter(value))]
    rng.shuffle(keys)
    return {k: value[k] for k in keys}


def _render(value: Any, indent: int | None, depth: int = 0) -> str:
    """JSON text of a value, numbers written as drawn."""
    if isinstance(value, _Num):
        return value.text
    if isinstance(value, dict):
        items = [
            f"{json.dumps(k)}: {_render(v, indent, depth + 1)}"
            for k, v in value.items()
        ]
        return _join("{", items, "}", indent, depth)
    if isinstance(value, list):
        return _join(
            "[", [_render(v, indent, depth + 1) for v in value], "]", indent, depth
        )
    return json.dumps(value, ensure_ascii=False)


def _join(
    opener: str, items: list[str], closer: str, indent: int | None, depth: int
) -> str:
    if not items:
        return opener + closer
    if indent is None:
        return opener + ", ".join(items) + closer
    pad = "\n" + " " * (indent * (depth + 1))
    return (
        opener + pad + ("," + pad).join(items) + "\n" + " " * (indent * depth) + closer
    )


# ---------------------------------------------------------------- truth


def _scan(text: str) -> tuple[list[str], bool, bool, int]:
    """Scan a JSON prefix (tests only, quadratic uses are fine).

    Returns the open containers, whether the text ends in a string, whether
    the innermost object has a key (partial or whole) whose value is missing,
    and where the last scalar token starts.
    """
    stack: list[str] = []
    in_string = escaped = expect_key = string_is_key = after_key = False
    token_start = 0
    for at, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                after_key = string_is_key
            continue
        if char == '"':
            in_string, string_is_key = True, expect_key
            expect_key = after_key = False
        elif char in "{[":
            stack.append(char)
            expect_key, after_key = char == "{", False
        elif char in "}]":
            if not stack:  # the root closed before: no prefix of one value
                return [_CLOSED], False, False, at
            stack.pop()
            expect_key = after_key = False
        elif char == ",":
            expect_key, after_key = stack[-1:] == ["{"], False
        elif _scalar_char(char) and (at == 0 or not _scalar_char(text[at - 1])):
            token_start, after_key = at, False
    key_pending = (in_string and string_is_key) or (not in_string and after_key)
    return stack, in_string, key_pending, token_start


_CLOSED: Final = "closed"
"""In ``_scan``'s stack: a closer after the root closed (not a cut at all)."""


def _scalar_char(char: str) -> bool:
    return char.isalnum() or char in "+-."


@dataclass(frozen=True, slots=True)
class Truth:
    """What a cut text reads as."""

    readings: tuple[tuple[Any, bool], ...]
    """The right partial values (JSON), each with whether a member's value
    (or key) was cut away (with a schema, then only an error); empty: not a
    cut."""
    after_closer: bool
    """The cut fell right after a closer (a slip could end so too)."""


def truth(text: str) -> Truth:
    """The right partial readings of a JSON text cut at its end.

    >>> truth('[101, 102, 10').readings
    (([101, 102], False),)
    >>> truth('{"done": fa').readings, truth('{"a": "x').readings
    ((({}, True),), (({'a': 'x'}, False),))
    """
    stripped = text.rstrip()
    stack, in_string, _, token_start = _scan(stripped)
    after_closer = not in_string and stripped[-1:] in ("}", "]")
    if stack == [_CLOSED]:
        return Truth((), after_closer=after_closer)
    candidates = [text]
    if not in_string and _scalar_char(text[-1:] or " "):
        candidates = [text[:token_start]]
        if stripped[token_start:] in ("true", "false", "null"):
            candidates.append(text)
    readings: list[tuple[Any, bool]] = []
    for candidate in candidates:
        try:
            value = from_json(candidate, allow_partial="trailing-strings")
        except ValueError:
            continue
        open_, _, pending, _ = _scan(candidate.rstrip())
        readings.append((value, bool(open_) and open_[-1] == "{" and pending))
    del stack
    return Truth(tuple(readings), after_closer=after_closer)


# ---------------------------------------------------------------- cases


@dataclass(frozen=True, slots=True)
class Case:
    """One cut (or slipped) reply and what each entry point may answer."""

    reply: str
    model: type[BaseModel]
    seed: int
    index: int
    slip: str
    """A name from ``SLIPS``, or ``""``."""
    cut: bool
    accepted: tuple[str, ...]
    """Canonical right answers without a schema."""
    accepted_model: tuple[str, ...]
    """Canonical ``model_dump()`` of the right answers with the schema."""
    as_length: tuple[str, ...] = ()
    """Also right without a schema when told the token limit stopped the reply."""
    as_length_model: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """Where to find the case again: ``seed:index:slip``."""
        return f"{self.seed}:{self.index}:{self.slip or 'cut'}"


def _model_readings(model: type[BaseModel], t: Truth) -> tuple[str, ...]:
    out: list[str] = []
    for reading, removed in t.readings:
        if removed:
            continue
        try:
            out.append(canonical(model.model_validate(reading).model_dump()))
        except ValidationError:
            continue
    return tuple(out)


def _plain_readings(t: Truth) -> tuple[str, ...]:
    return tuple(dict.fromkeys(canonical(reading) for reading, _ in t.readings))


def _slip(rng: random.Random, kind: str, text: str) -> tuple[str, int, int] | None:
    """``(slipped, start, end)``: ``text[start:end]`` was replaced; ``None``: n/a."""
    if kind == "missing_inner_closer":
        spots = [i for i, c in enumerate(text[:-1]) if c in "}]" and _outside(text, i)]
        if not spots:
            return None
        i = rng.choice(spots)
        return text[:i] + text[i + 1 :], i, i + 1
    if kind == "single_quote_key":
        spots = [i for i in range(1, len(text)) if text[i] == '"' and _key_at(text, i)]
        if not spots:
            return None
        i = rng.choice(spots)
        return text[:i] + "'" + text[i + 1 :], i, i + 1
    if kind == "comma_lost":
        spots = [i for i, c in enumerate(text) if c == "," and _outside(text, i)]
        if not spots:
            return None
        i = rng.choice(spots)
        return text[:i] + text[i + 1 :], i, i + 1
    if kind == "partly_escaped":
        end = text.find(",")
        while end >= 0 and _scan(text[:end])[:2] != (["{"], False):
            end = text.find(",", end + 1)
        if end < 0:
            return None
        head = text[:end].replace("\\", "\\\\").replace('"', '\\"')
        return head + text[end:], 0, end
    start = text.find('"path": "')
    if start < 0:
        return None
    start += len('"path": ')
    end = text.index('"', start + 1) + 1
    return text[:start] + text[start:end].replace("\\\\", "\\") + text[end:], start, end


def _outside(text: str, i: int) -> bool:
    """Whether ``text[i]`` is outside every string (a cheap scan, tests only)."""
    return not _scan(text[:i])[1]


def _key_at(text: str, i: int) -> bool:
    before = text[:i].rstrip()
    return (
        _outside(text, i)
        and before[-1:] == ","
        and bool(_scan(before)[0][-1:] == ["{"])
    )


def _wrap(rng: random.Random, payload: str) -> str:
    style = rng.choice(("bare", "bare", "fence", "lead"))
    return {
        "bare": "",
        "fence": rng.choice(("```json\n", "```\n")),
        "lead": "Here is the JSON you asked for:\n\n",
    }[style] + payload


def _case(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:cuts:{index}")  # noqa: S311
    model = MODELS[index % len(MODELS)]
    kinds = SLIPS if model is Task else SLIPS[:-1]  # a path is a Task's
    slip = rng.choice(kinds) if rng.random() < _SLIP_SHARE else ""
    for _ in range(1000):
        raw = (_profile if model is Profile else _task)(rng)
        text = _render(_drop_some(rng, raw), rng.choice((None, None, 2)))
        original = from_json(text)
        if not slip:
            cut_at = rng.randint(1, len(text) - 1)
            t = truth(text[:cut_at])
            if not t.readings:
                continue
            return Case(
                reply=_wrap(rng, text[:cut_at]),
                model=model,
                seed=seed,
                index=index,
                slip="",
                cut=True,
                accepted=_plain_readings(t),
                accepted_model=_model_readings(model, t),
            )
        made = _slip(rng, slip, text)
        if made is None:
            continue
        slipped, start, end = made
        # A missing closer and then a cut is a JSON prefix: a cut to any reader.
        cut = (
            slip != "missing_inner_closer"
            and rng.random() < 0.5
            and end < len(text) - 1
        )
        if cut:
            low = start + 1 if slip == "raw_backslashes" else end
            clean_at = rng.randint(low, len(text) - 1)
            shift = len(slipped) - len(text)
            payload = (
                slipped[: clean_at + shift] if clean_at >= end else slipped[:clean_at]
            )
            clean = text[:clean_at]
            if clean_at < end:  # a cut inside the raw-backslash string
                body = slipped[start:clean_at]
                clean = text[:start] + body.replace("\\", "\\\\")
            t = truth(clean)
            if not t.readings:
                continue
            if clean_at < end:
                t = _raw_backslash_readings(t, clean, payload)
            accepted = _plain_readings(t)
            accepted_model = _model_readings(model, t)
        else:
            payload = slipped
            accepted = (canonical(original),)
            accepted_model = (canonical(model.model_validate(original).model_dump()),)
        as_cut = truth(payload) if is_prefix(payload) else Truth((), after_closer=False)
        return Case(
            reply=_wrap(rng, payload),
            model=model,
            seed=seed,
            index=index,
            slip=slip,
            cut=cut,
            accepted=accepted,
            accepted_model=accepted_model,
            as_length=_plain_readings(as_cut),
            as_length_model=_model_readings(model, as_cut),
        )
    msg = f"no case for seed {seed}, index {index}"
    raise RuntimeError(msg)


def _raw_backslash_readings(t: Truth, clean: str, payload: str) -> Truth:
    r"""Readings of a cut inside a path written with raw backslashes.

    Its literal prefix; that prefix without an escape at the cut (``\n`` of
    ``\new`` or a line break?); and, when the prefix is valid JSON as it
    stands (``C:\temp``), that reading too.
    """
    readings = list(t.readings)
    if clean.endswith("\\\\"):
        readings += truth(clean[:-2]).readings
    elif clean[-3:-1] == "\\\\":
        readings += truth(clean[:-3]).readings
    if is_prefix(payload):
        readings += truth(payload).readings
    return Truth(tuple(readings), t.after_closer)


def is_prefix(text: str) -> bool:
    """Whether a text is a valid JSON prefix with its root open.

    The decoder runs out of text without meeting an error (pydantic-core's
    partial mode is more lenient: it reads ``[1}``).

    >>> is_prefix('{"a": [1'), is_prefix('{"a": 1}]'), is_prefix('[1}')
    (True, False, False)
    """
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return exc.msg.startswith("unexpected end of data")
    return False


def generate(seed: int, count: int, *, start: int = 0) -> list[Case]:
    """``count`` cases for ``seed``.

    >>> generate(7, 3) == generate(7, 3)
    True
    """
    return [_case(seed, i) for i in range(start, start + count)]


# ---------------------------------------------------------------- entries


@dataclass(frozen=True, slots=True)
class Entry:
    """An entry point under test."""

    name: str
    parse: Callable[[str], Any] = field(repr=False)
    schema: bool
    length: bool
    """The message says the model stopped at its token limit."""
    ours: bool = True

    def run(self, reply: str) -> Outcome:
        """Parse ``reply``, catching what the entry point raises."""
        try:
            return Outcome(value=self.parse(reply))
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            return Outcome(error=exc)


def judge(case: Case, entry: Entry, outcome: Outcome) -> Verdict:
    """Right (a right partial or the original), error (typed) or wrong.

    >>> case = generate(FIXED_SEED, 1)[0]
    >>> entry = entries()[0]
    >>> judge(case, entry, Outcome(error=RuntimeError("x")))
    'wrong'
    """
    if outcome.error is not None:
        ok = isinstance(outcome.error, JsonRecoveryError) or not entry.ours
        return "error" if ok else "wrong"
    value = outcome.value
    if not entry.ours and value in (None, "", {}, []):
        return "error"
    if entry.schema:
        seen = canonical(value.model_dump() if isinstance(value, BaseModel) else value)
        right = case.accepted_model + (case.as_length_model if entry.length else ())
    else:
        seen = canonical(value)
        right = case.accepted + (case.as_length if entry.length else ())
    return "right" if seen in right else "wrong"


def _message(reply: str, *, length: bool) -> AIMessage:
    metadata = {"finish_reason": "length"} if length else {"finish_reason": "stop"}
    return AIMessage(content=reply, response_metadata=metadata)


def _chunks(reply: str, *, length: bool) -> Iterator[AIMessageChunk]:
    step = max(1, len(reply) // 7)
    for i in range(0, len(reply), step):
        yield AIMessageChunk(content=reply[i : i + step])
    metadata = {"finish_reason": "length"} if length else {"finish_reason": "stop"}
    yield AIMessageChunk(content="", response_metadata=metadata)


def _invoker(parser: Any, *, length: bool) -> Callable[[str], Any]:
    return lambda reply: parser.invoke(_message(reply, length=length))


def _streamer(parser: Any, *, length: bool) -> Callable[[str], Any]:
    def final(reply: str) -> Any:
        out = None
        for out in parser.transform(_chunks(reply, length=length)):  # noqa: B007
            pass
        return out

    return final


def entries(model: type[BaseModel] | None = None) -> list[Entry]:
    """Our entry points: truncation parser with and without a schema (``model``,
    else each case's own), each ``repair`` level (``Trunc(M)`` is the default,
    ``repair="safe"``) and ``finish_reason="length"``, and streaming."""
    out: list[Entry] = []
    levels: tuple[tuple[Repair, str], ...] = (
        (False, ", repair=False"),
        ("safe", ""),
        (True, ", repair"),
    )
    for schema in (True, False):
        for repair, option in levels:
            for length in (False, True):
                name = (
                    f"Trunc({'M' if schema else 'dict'}"
                    f"{option}){' +length' if length else ''}"
                )
                parsers = _parsers(repair=repair, schema=schema)
                out.append(
                    Entry(
                        name,
                        _per_model(parsers, _invoker, length=length),
                        schema=schema,
                        length=length,
                    )
                )
    for schema, (repair, option) in itertools.product((True, False), levels[1:]):
        parsers = _parsers(repair=repair, schema=schema)
        out.append(
            Entry(
                f"stream Trunc({'M' if schema else 'dict'}{option}) final",
                _per_model(parsers, _streamer, length=False),
                schema=schema,
                length=False,
            )
        )
    del model
    return out


def _parsers(*, repair: Repair, schema: bool) -> dict[type[BaseModel] | None, Any]:
    if not schema:
        return {None: TruncationRecoveringOutputParser(repair=repair)}
    return {
        m: TruncationRecoveringOutputParser(pydantic_object=m, repair=repair)
        for m in MODELS
    }


_CURRENT: dict[str, type[BaseModel]] = {}


def _per_model(
    parsers: dict[type[BaseModel] | None, Any],
    make: Callable[..., Callable[[str], Any]],
    *,
    length: bool,
) -> Callable[[str], Any]:
    calls = {m: make(p, length=length) for m, p in parsers.items()}

    def parse(reply: str) -> Any:
        key = _CURRENT["model"] if None not in calls else None
        return calls[key](reply)

    return parse


def run_case(entry: Entry, case: Case) -> tuple[Verdict, Outcome]:
    """Run one entry point on one case (the schema is the case's model)."""
    _CURRENT["model"] = case.model
    outcome = entry.run(case.reply)
    return judge(case, entry, outcome), outcome


def describe(case: Case, outcome: Outcome) -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    got = (
        f"raised {type(outcome.error).__name__}: {outcome.error}"
        if outcome.error is not None
        else canonical(
            outcome.value.model_dump()
            if isinstance(outcome.value, BaseModel)
            else outcome.value
        )
    )
    return (
        f"[{case.label}] {case.model.__name__} reply={case.reply!r}\n"
        f"    expected: {' or '.join(case.accepted_model) or 'an error'}"
        f" (dict: {' or '.join(case.accepted) or 'an error'})\n"
        f"    got:      {got}"
    )
