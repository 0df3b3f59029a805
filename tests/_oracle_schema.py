"""The schema-reading oracle (issue 21, families 6-10): never a third value.

``generate`` builds, from a seed, (pydantic model, value) pairs and a reply
for each: the value written as a model would write it through one *variant*
(as it stands; in an envelope of each kind; a key spelt otherwise; an enum in
another case; JSON in a string; a key with a unit suffix; a wrapper of the
opposite meaning; two keys for one field; an outer value with one invalid
field around an inner call; a syntax slip) and with one *distractor* around it
(none; a citation, a format example that does not validate or a wrapper of the
opposite meaning before it; a second value, a placeholder or a format example
after it; a strictly valid example before an answer that must be read through
the schema, which is two readings). ``judge`` says whether an answer is
``"right"`` (the original value, as the validated model), ``"error"`` (a typed
error) or ``"wrong"``.

A case whose reply does not say the value (a unit-suffixed key for a field
with a default, ``{"exclude": …}``, two keys for one field, an invalid outer
value) has no right answer: only an error passes. A valid candidate before the
answer is placed only where the answer must be read through the schema
(candidates that validate as they stand keep the documented order: first). An
answer that fails (no right answer, or a syntax slip) gets only distractors
that fail too: a valid value after a failing one wins by the documented order,
a matter of candidate choice, not of schema reading.

Each case is drawn from its own ``random.Random`` seeded by ``(seed, index)``,
so the first cases of a long run are the cases of a short one.
"""

from __future__ import annotations

import functools
import json
import random
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Final, Literal

from _oracle import REPAIR_LEVELS
from langchain_core.language_models import GenericFakeChatModel
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    RetryExhaustedError,
    TruncationRecoveringOutputParser,
    structured_output,
)

if TYPE_CHECKING:
    from collections.abc import Callable

Verdict = Literal["right", "error", "wrong"]
VERDICTS: Final[tuple[Verdict, ...]] = ("right", "error", "wrong")
FIXED_SEED: Final = 20261203


# ---------------------------------------------------------------- models


class Review(BaseModel):
    """A review: an enum-like Literal and a string."""

    sentiment: Literal["positive", "negative", "neutral"]
    summary: str


class Config(BaseModel):
    """Settings: a required count and fields with defaults."""

    retries: int
    timeout: int = 30
    verbose: bool = False


class Filter(BaseModel):
    """A search filter whose every field has a default."""

    city: str | None = None
    max_price: int | None = None


class Person(BaseModel):
    """A person, with a field called ``name``."""

    name: str
    age: int
    email: str | None = None


class Size(Enum):
    """Sizes."""

    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"


class Order(BaseModel):
    """An order with an Enum field."""

    item: str
    size: Size
    quantity: int = 1


class Plan(BaseModel):
    """A plan whose steps a model may send as a JSON string."""

    title: str
    steps: list[str]


class Trip(BaseModel):
    """A trip."""

    city: str
    days: int = 1


class Itinerary(BaseModel):
    """An itinerary holding a nested model."""

    owner: str
    trip: Trip


MODELS: Final[tuple[type[BaseModel], ...]] = (
    Review,
    Config,
    Filter,
    Person,
    Order,
    Plan,
    Itinerary,
)
_UNIT_FIELDS: Final[dict[type[BaseModel], str]] = {
    Config: "timeout",
    Filter: "max_price",
    Trip: "days",
}
_ENUM_FIELDS: Final[dict[type[BaseModel], str]] = {Review: "sentiment", Order: "size"}
_STRING_FIELDS: Final[dict[type[BaseModel], str]] = {Plan: "steps", Itinerary: "trip"}
_SUFFIXES: Final = ("_ms", "_s", "_seconds", "_usd", "_pct", "Ms", "Sec", "Usd")

_WORDS: Final = (
    "Ada",
    "Zoë",
    "São Paulo",
    "Kraków",
    "Tokyo",
    "李雷",
    "great value",
    'said "wow"',
    "a {brace}",
    "line\nbreak",
    "50% off",
    "C:\\temp",
    "🙂 ok",
)


def _text(rng: random.Random) -> str:
    return rng.choice(_WORDS) + ("" if rng.random() < 0.5 else f" {rng.randint(1, 99)}")


def _value(model: type[BaseModel], rng: random.Random) -> dict[str, Any]:
    if model is Review:
        return {
            "sentiment": rng.choice(["positive", "negative", "neutral"]),
            "summary": _text(rng),
        }
    if model is Config:
        return {
            "retries": rng.randint(0, 9),
            "timeout": rng.choice([5, 60, 120, 500]),
            "verbose": rng.random() < 0.5,
        }
    if model is Filter:
        return {"city": _text(rng), "max_price": rng.randint(31, 900)}
    if model is Person:
        value: dict[str, Any] = {"name": _text(rng), "age": rng.randint(1, 99)}
        if rng.random() < 0.5:
            value["email"] = f"user{rng.randint(1, 99)}@example.com"
        return value
    if model is Order:
        return {
            "item": _text(rng),
            "size": rng.choice(["small", "medium", "large"]),
            "quantity": rng.randint(2, 9),
        }
    if model is Plan:
        return {"title": _text(rng), "steps": [_text(rng) for _ in range(3)]}
    return {
        "owner": _text(rng),
        "trip": {"city": _text(rng), "days": rng.randint(2, 14)},
    }


# ---------------------------------------------------------------- variants

PAYLOAD_WRAPPERS: Final = ("data", "result", "output", "response", "answer", "input")
OPPOSITE_WRAPPERS: Final = ("exclude", "errors", "previous", "example")
VARIANTS: Final = (
    "plain",
    "arguments",
    "name_parameters",
    "arguments_string",
    "tool_envelope",
    "properties",
    "model_name",
    "payload_key",
    "json_string",
    "near_key",
    "enum_case",
    "json_in_string",
    "unit_key",
    "opposite_wrapper",
    "two_keys",
    "outer_invalid",
    "slip",
)
ALIGNED: Final = frozenset(
    {"near_key", "enum_case", "json_in_string", "payload_key", "slip"}
)
"""Variants whose answer is read through the schema (or repaired), not as it stands."""
NO_RIGHT: Final = frozenset(
    {"unit_key", "opposite_wrapper", "two_keys", "outer_invalid"}
)
"""Variants whose reply does not say the value: only an error passes."""


def _respell(key: str, rng: random.Random) -> str:
    forms = [
        key.upper(),
        key.title(),
        key.replace("_", "-") if "_" in key else key.capitalize(),
        f" {key} ",
        "".join(w.capitalize() for w in key.split("_")),
    ]
    return rng.choice([f for f in forms if f != key])


def _apply(
    variant: str, model: type[BaseModel], value: dict[str, Any], rng: random.Random
) -> Any | None:
    """The value as the reply writes it, or ``None`` where the variant does not apply."""
    name = model.__name__
    if variant == "plain":
        return value
    if variant == "arguments":
        return {"arguments": value}
    if variant == "name_parameters":
        if "name" in value:
            return None
        return {"name": name.lower(), "parameters": value}
    if variant == "arguments_string":
        return {"name": name, "arguments": json.dumps(value)}
    if variant == "tool_envelope":
        call = {"name": name, "arguments": json.dumps(value)}
        return {"type": "function", "function": call}
    if variant == "properties":
        return {"properties": value}
    if variant == "model_name":
        return {rng.choice([name, name.lower()]): value}
    if variant == "payload_key":
        return {rng.choice(PAYLOAD_WRAPPERS): value}
    if variant == "json_string":
        return json.dumps(value)
    key: str | None
    if variant == "near_key":
        key = rng.choice(list(value))
        return {(_respell(k, rng) if k == key else k): v for k, v in value.items()}
    if variant == "enum_case":
        key = _ENUM_FIELDS.get(model)
        if key is None:
            return None
        return {**value, key: rng.choice([str.upper, str.title])(value[key])}
    if variant == "json_in_string":
        key = _STRING_FIELDS.get(model)
        if key is None:
            return None
        return {**value, key: json.dumps(value[key])}
    if variant == "unit_key":
        return _unit_key(model, value, rng)
    if variant == "opposite_wrapper":
        return {rng.choice(OPPOSITE_WRAPPERS): value}
    if variant == "two_keys":
        key = rng.choice([k for k, v in value.items() if isinstance(v, str)] or [None])
        if key is None:
            return None
        return {**value, _respell(key, rng): value[key] + " (old)"}
    if variant == "outer_invalid":
        key = next((k for k, v in value.items() if isinstance(v, int)), None)
        if key is None or isinstance(value[key], bool):
            return None
        outer = {**value, key: "unknown"}
        outer.setdefault("name", name)
        return {**outer, "parameters": _value(model, rng)}
    return value  # slip: the text is broken when it is written


def _unit_key(
    model: type[BaseModel], value: dict[str, Any], rng: random.Random
) -> Any | None:
    field_name = _UNIT_FIELDS.get(model)
    suffix = rng.choice(_SUFFIXES)
    if field_name is not None:
        out = dict(value)
        out[field_name + suffix] = out.pop(field_name)
        return out
    if model is Itinerary:
        trip = dict(value["trip"])
        trip["days" + suffix] = trip.pop("days")
        return {**value, "trip": trip}
    return None


# ---------------------------------------------------------------- distractors

_BEFORE: Final = frozenset(
    {"none", "citation_before", "invalid_format_before", "opposite_before"}
)
"""Distractors that never validate, so that a failing answer is not passed over."""
DISTRACTORS: Final = (
    "none",
    "citation_before",
    "invalid_format_before",
    "opposite_before",
    "second_value_after",
    "placeholder_after",
    "format_after",
    "valid_before",
)


def _placeholder(model: type[BaseModel], rng: random.Random) -> dict[str, Any]:
    value = _value(model, rng)
    return {k: ("..." if isinstance(v, str) else v) for k, v in value.items()}


def _invalid_format(model: type[BaseModel]) -> dict[str, Any]:
    kinds = {str: "string", int: "integer", bool: "boolean"}
    out: dict[str, Any] = {}
    for key, info in model.model_fields.items():
        out[key] = kinds.get(info.annotation, "integer | null")  # type: ignore[arg-type]
    return out


def _dump(value: Any, rng: random.Random) -> str:
    return json.dumps(
        value, ensure_ascii=rng.random() < 0.3, indent=rng.choice([None, 2])
    )


def _slip(text: str, rng: random.Random) -> str:
    """One syntax slip repair reads: a trailing comma or a single-quoted key."""
    end = text.rstrip().rfind("}")
    if rng.random() < 0.5:
        return text[:end] + "," + text[end:]
    quote = text.find('"')
    close = text.find('"', quote + 1)
    return f"{text[:quote]}'{text[quote + 1 : close]}'{text[close + 1 :]}"


def _wrap(
    rng: random.Random, body: str, distractor: str, model: type[BaseModel]
) -> str:
    other = _dump(_value(model, rng), rng)
    fenced = rng.random() < 0.4
    answer = f"```json\n{body}\n```" if fenced else body
    if distractor == "none":
        return answer if rng.random() < 0.5 else f"Here is the result:\n{answer}"
    if distractor == "citation_before":
        return f"[{rng.randint(1, 9)}] The source says so. Answer: {answer}"
    if distractor == "invalid_format_before":
        example = json.dumps(_invalid_format(model))
        return f"The format is {example}. Here it is:\n{answer}"
    if distractor == "opposite_before":
        wrapper = rng.choice(OPPOSITE_WRAPPERS)
        return f'Not this: {{"{wrapper}": {other}}}\nThis: {answer}'
    if distractor == "second_value_after":
        return f"{answer}\nEarlier I had written {other}, now corrected."
    if distractor == "placeholder_after":
        return f"{answer}\n(format: {json.dumps(_placeholder(model, rng))})"
    if distractor == "format_after":
        return f"{answer}\n\nFor example: {other}"
    return f"An example: {other}\nMy answer: {answer}"  # valid_before


# ---------------------------------------------------------------- cases


@dataclass(frozen=True, slots=True)
class Case:
    """One reply and what a parser should answer."""

    reply: str
    model: type[BaseModel]
    intended: str | None
    """The canonical form of the right answer; ``None``: only an error passes."""
    variant: str
    distractor: str
    seed: int
    index: int

    @property
    def label(self) -> str:
        """Where to find the case again: ``seed:index:model:variant:distractor``."""
        return (
            f"{self.seed}:{self.index}:{self.model.__name__}:"
            f"{self.variant}:{self.distractor}"
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an entry point did with a reply: a value, or an exception."""

    value: Any = None
    error: BaseException | None = None


def canonical(value: Any) -> str:
    """A text equal for two values iff they are equal JSON, types included."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    return json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)


def _case(seed: int, index: int) -> Case:
    rng = random.Random(f"{seed}:schema:{index}")  # noqa: S311
    variant = VARIANTS[index % len(VARIANTS)]
    for _ in range(100):
        model = rng.choice(MODELS)
        value = _value(model, rng)
        written = _apply(variant, model, value, rng)
        if written is None:
            continue
        distractor = rng.choice(DISTRACTORS)
        if distractor == "valid_before" and variant not in ALIGNED:
            continue  # two valid candidates: the first wins, as documented
        if (variant == "slip" or variant in NO_RIGHT) and distractor not in _BEFORE:
            continue  # a valid candidate after a failing one wins: candidate choice
        body = _dump(written, rng)
        if variant == "slip":
            body = _slip(body, rng)
        intended = (
            None if variant in NO_RIGHT else canonical(model.model_validate(value))
        )
        return Case(
            reply=_wrap(rng, body, distractor, model),
            model=model,
            intended=intended,
            variant=variant,
            distractor=distractor,
            seed=seed,
            index=index,
        )
    msg = f"no {variant} case for seed {seed}, index {index}"
    raise RuntimeError(msg)


def generate(seed: int, count: int, *, start: int = 0) -> list[Case]:
    """``count`` cases for ``seed``.

    >>> [case.variant for case in generate(FIXED_SEED, 2)]
    ['plain', 'arguments']
    >>> generate(7, 3) == generate(7, 3)
    True
    """
    return [_case(seed, i) for i in range(start, start + count)]


def judge(case: Case, outcome: Outcome, *, ours: bool = True) -> Verdict:
    """Say whether ``outcome`` answers ``case`` rightly, with an error, or wrongly.

    >>> case = generate(FIXED_SEED, 1)[0]
    >>> judge(case, Outcome(value=case.model.model_validate_json(case.intended)))
    'right'
    >>> judge(case, Outcome(value={"something": "else"}))
    'wrong'
    """
    if outcome.error is None:
        if not ours and outcome.value is None:
            return "error"
        return "right" if canonical(outcome.value) == case.intended else "wrong"
    if not ours or isinstance(outcome.error, (JsonRecoveryError, RetryExhaustedError)):
        return "error"
    return "wrong"


# ---------------------------------------------------------------- runners


@dataclass(frozen=True, slots=True)
class Runner:
    """An entry point under test: how to call it with a model and a reply."""

    name: str
    parse: Callable[[type[BaseModel], str], Any] = field(repr=False)
    ours: bool = True

    def run(self, case: Case) -> Outcome:
        """Parse the case's reply, catching what the entry point raises."""
        try:
            return Outcome(value=self.parse(case.model, case.reply))
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            return Outcome(error=exc)

    def judge(self, case: Case) -> tuple[Verdict, Outcome]:
        """Run the entry point on ``case`` and judge its outcome."""
        outcome = self.run(case)
        return judge(case, outcome, ours=self.ours), outcome


_PARSERS: dict[tuple[type[Any], str, type[BaseModel]], Any] = {}


def _parser(kind: type[Any], option: str, model: type[BaseModel]) -> Any:
    """The parser ``kind`` for ``model`` at the ``repair`` level ``option``."""
    found = _PARSERS.get((kind, option, model))
    if found is None:
        found = kind(pydantic_object=model, **dict(REPAIR_LEVELS)[option])
        _PARSERS[kind, option, model] = found
    return found


def _structured(option: str) -> Callable[[type[BaseModel], str], Any]:
    def run(model: type[BaseModel], reply: str) -> Any:
        chat = GenericFakeChatModel(messages=iter([reply]))
        options: dict[str, Any] = {"max_retries": 0}
        if option:  # the default runs with no parser given
            options["parser"] = JsonFenceOutputParser(**dict(REPAIR_LEVELS)[option])
        return structured_output(chat, model, **options).invoke("Answer in JSON.")

    return run


def our_runners() -> list[Runner]:
    """Our entry points at each ``repair`` level, by the names the tables use
    (the name without ``repair=`` is the default, ``repair="safe"``)."""
    runners = []
    for option, _ in REPAIR_LEVELS:
        given = f", {option}" if option else ""
        runners += [
            Runner(
                f"JsonFenceOutputParser(pydantic_object=M{given})",
                functools.partial(_parse, JsonFenceOutputParser, option),
            ),
            Runner(
                f"TruncationRecoveringOutputParser(pydantic_object=M{given})",
                functools.partial(_parse, TruncationRecoveringOutputParser, option),
            ),
            Runner(
                f"structured_output(model, M{given}) (one attempt)",
                _structured(option),
            ),
        ]
    return runners


def _parse(kind: type[Any], option: str, model: type[BaseModel], reply: str) -> Any:
    return _parser(kind, option, model).parse(reply)


def peer_runners() -> list[Runner]:
    """langchain-core's ``PydanticOutputParser`` and, when installed, ``json_repair``."""
    from langchain_core.output_parsers import PydanticOutputParser  # noqa: PLC0415

    runners = [
        Runner(
            "langchain-core PydanticOutputParser(pydantic_object=M)",
            lambda m, r: PydanticOutputParser(pydantic_object=m).parse(r),
            ours=False,
        )
    ]
    try:
        import json_repair  # noqa: PLC0415
    except ImportError:
        return runners
    runners.insert(
        0,
        Runner(
            "json_repair.loads + M.model_validate",
            lambda m, r: m.model_validate(json_repair.loads(r)),
            ours=False,
        ),
    )
    return runners


def describe(case: Case, outcome: Outcome) -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    got = (
        f"raised {type(outcome.error).__name__}: {outcome.error}"
        if outcome.error is not None
        else canonical(outcome.value)
    )
    expected = case.intended or "an error"
    return (
        f"[{case.label}] reply={case.reply!r}\n"
        f"    expected: {expected}\n"
        f"    got:      {got}"
    )
