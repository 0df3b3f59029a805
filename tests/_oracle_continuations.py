"""A continuation oracle: a reply cut by the token limit, then its continuation.

Issue 21 (family 22): ``on_truncation="continue"`` must join a continuation
only where it starts exactly at the cut, remove an overlap only where it is
unique, and otherwise ask again for the whole answer; never return a value
that no reply wrote. ``generate`` builds, from a seed, a value rendered as a
model writes it (the syntax oracle's values and layouts, bare, fenced or
after prose), cut after a random token (strings and numbers are split into
short tokens, as a tokenizer splits them: ``10`` | ``3``), and a continuation
of one kind (case ``i`` gets ``KINDS[i % len(KINDS)]``):

- ``exact``: the rest, from the very next character;
- ``overlap``: the rest, repeating the last 1 to 4 tokens before the cut;
- ``phrase``: the rest, repeating the string the cut is in (or the last one)
  from its start: ``"was strong`` + ``The quarter was strong…``;
- ``last_key``: the rest, from the last key before the cut;
- ``restart``: the whole answer again;
- ``prose_after``: the rest, then a sentence;
- ``prose_before``: a sentence, then the rest;
- ``twice``: the rest in two pieces, the first cut by the limit again, the
  second overlapping it by 0 to 3 tokens.

A scripted chat model sends the cut reply (``finish_reason="length"``), the
continuation, and then the whole answer to any further request.
``judge`` says ``"right"`` (the original value), ``"error"`` (a typed error:
an ``OutputParserException``) or ``"wrong"`` (anything else). A case whose
continuation starts exactly at the cut and does not by chance begin with the
text the cut reply ends with (``must_join``) must be right.

Each case is drawn from its own ``random.Random`` seeded by ``(seed, index)``.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from _models import ScriptedChatModel
from _oracle import (
    _LEADS,
    _TRAILERS,
    KEY,
    NUM,
    STR,
    VERDICTS,
    Outcome,
    Verdict,
    _layout,
    _tokens,
    _value,
    canonical,
)
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import JsonOutputParser

from langchain_jsonrecover import JsonFenceOutputParser, JsonRetryChain

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["FIXED_SEED", "KINDS", "VERDICTS", "Case", "Runner", "generate", "judge"]

FIXED_SEED: Final = 20261203
KINDS: Final = (
    "exact",
    "overlap",
    "phrase",
    "last_key",
    "restart",
    "prose_after",
    "prose_before",
    "twice",
)
LENGTH: Final = {"finish_reason": "length"}
STOP: Final = {"finish_reason": "stop"}
_PROSE_BEFORE: Final = (
    "Sure, here is the rest:\n",
    "Continuing from where I stopped: ",
    "Apologies for the cut. ",
)
_PROSE_AFTER: Final = (
    "\n\nLet me know if you need anything else.",
    "\n\nThat is the complete answer.",
    " (end of data)",
)


@dataclass(frozen=True, slots=True)
class Case:
    """A cut reply, what the model sends after it, and the value it meant."""

    first: str
    """The cut reply (sent with ``finish_reason="length"``)."""
    pieces: tuple[str, ...]
    """The continuation: one piece, or two (the first cut by the limit too)."""
    whole: str
    """The whole reply, which the model sends when asked again."""
    original: Any
    kind: str
    seed: int
    index: int
    must_join: bool
    """The continuation starts at the cut and no prefix of it is a suffix of
    the cut reply: the joined text is the only reading."""

    @property
    def label(self) -> str:
        """Where to find the case again: ``seed:index:kind``."""
        return f"{self.seed}:{self.index}:{self.kind}"

    def script(self) -> list[str | AIMessage]:
        """The scripted model's replies, in order (the last one repeats)."""
        *cut, last = self.pieces
        return [
            AIMessage(self.first, response_metadata=LENGTH),
            *(AIMessage(piece, response_metadata=LENGTH) for piece in cut),
            AIMessage(last, response_metadata=STOP),
            AIMessage(self.whole, response_metadata=STOP),
        ]


def judge(case: Case, outcome: Outcome) -> Verdict:
    """Right (the original value), error (a typed error) or wrong.

    Any ``OutputParserException`` (ours, or langchain-core's from a foreign
    parser) is an error; any other exception, or any other value, is wrong.
    """
    if outcome.error is not None:
        if isinstance(outcome.error, OutputParserException):
            return "error"
        return "wrong"
    return "right" if canonical(outcome.value) == canonical(case.original) else "wrong"


# ------------------------------------------------------------------ tokens


def _split_word(text: str) -> list[str]:
    """A string or key token in pieces a tokenizer might give: the quotes
    alone, runs of letters or digits in pieces of at most 4, other chars alone."""
    body = text[1:-1]
    pieces = ['"']
    run = ""
    for char in body:
        if char.isalnum():
            run += char
            if len(run) == 4:
                pieces.append(run)
                run = ""
            continue
        if run:
            pieces.append(run)
            run = ""
        pieces.append(char)
    if run:
        pieces.append(run)
    pieces.append('"')
    return _merge_escapes(pieces)


def _merge_escapes(pieces: list[str]) -> list[str]:
    """Keep a backslash with what it escapes (a tokenizer does not part them)."""
    merged: list[str] = []
    for piece in pieces:
        if merged and merged[-1].endswith("\\") and not merged[-1].endswith("\\\\"):
            merged[-1] += piece
        else:
            merged.append(piece)
    return merged


@dataclass(slots=True)
class _Tokens:
    texts: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    """For each token, the index of the first token of its string or key."""


def _sub_tokens(value: Any, rng: random.Random) -> _Tokens:
    out = _Tokens()
    for kind, text in _tokens(value, _layout(rng, lines=False)):
        if kind in {STR, KEY}:
            first = len(out.texts)
            for piece in _split_word(text):
                out.texts.append(piece)
                out.kinds.append(kind)
                out.starts.append(first)
        elif kind == NUM:
            first = len(out.texts)
            for i in range(0, len(text), 2):
                out.texts.append(text[i : i + 2])
                out.kinds.append(kind)
                out.starts.append(first)
        else:
            out.texts.append(text)
            out.kinds.append(kind)
            out.starts.append(len(out.texts) - 1)
    return out


def _frame(rng: random.Random) -> tuple[str, str]:
    style = rng.choice(("bare", "fence", "prose_fence", "prose"))
    lead = rng.choice(_LEADS)
    return {
        "bare": ("", ""),
        "fence": ("```json\n", "\n```"),
        "prose_fence": (lead + "\n\n```json\n", "\n```\n\n" + rng.choice(_TRAILERS)),
        "prose": (lead + "\n", ""),
    }[style]


def _overlaps(first: str, piece: str) -> bool:
    """Whether a non-empty prefix of ``piece`` ends ``first`` (a chance overlap)."""
    return any(
        first.endswith(piece[:k]) for k in range(1, min(len(first), len(piece)) + 1)
    )


def _case(seed: int, index: int) -> Case:
    rng = random.Random(f"continuations:{seed}:{index}")  # noqa: S311 - not crypto
    kind = KINDS[index % len(KINDS)]
    value = _value(rng)
    tokens = _sub_tokens(value, rng)
    texts = tokens.texts
    lead, tail = _frame(rng)
    whole = lead + "".join(texts) + tail
    # Cut after token ``cut`` (1 .. n-1): at least one token written and one left.
    cut = rng.randint(1, len(texts) - 1)
    first = lead + "".join(texts[:cut])
    rest = "".join(texts[cut:]) + tail
    pieces: tuple[str, ...]
    if kind == "exact":
        pieces = (rest,)
    elif kind == "overlap":
        back = rng.randint(1, min(4, cut))
        pieces = ("".join(texts[cut - back :]) + tail,)
    elif kind == "phrase":
        pieces = (_from_string_start(tokens, cut) + tail,)
    elif kind == "last_key":
        keys = [tokens.starts[i] for i in range(cut) if tokens.kinds[i] == KEY]
        start = keys[-1] if keys else 0
        pieces = ("".join(texts[start:]) + tail,)
    elif kind == "restart":
        pieces = (whole,)
    elif kind == "prose_after":
        pieces = (rest + rng.choice(_PROSE_AFTER),)
    elif kind == "prose_before":
        pieces = (rng.choice(_PROSE_BEFORE) + rest,)
    else:  # twice
        second = rng.randint(cut, len(texts) - 1)
        back = rng.randint(0, min(3, second - cut))
        pieces = (
            "".join(texts[cut:second]),
            "".join(texts[second - back :]) + tail,
        )
        if not pieces[0]:
            pieces = (pieces[1],)
    must_join = kind in {"exact", "prose_after"} and not _overlaps(first, pieces[0])
    return Case(first, pieces, whole, value, kind, seed, index, must_join)


def _from_string_start(tokens: _Tokens, cut: int) -> str:
    """The rest from the start of the string the cut is in (else the last one),
    its opening quote left out: the model repeats the phrase it was writing."""
    texts = tokens.texts
    inside = tokens.kinds[cut - 1] in {STR, KEY} and tokens.starts[cut - 1] != cut - 1
    if inside:
        start = tokens.starts[cut - 1] + 1
    else:
        strings = [
            tokens.starts[i] for i in range(cut) if tokens.kinds[i] in {STR, KEY}
        ]
        start = strings[-1] + 1 if strings else max(0, cut - 2)
        if start >= cut:
            start = cut - 1
    return "".join(texts[start:])


def generate(seed: int, count: int, *, start: int = 0) -> list[Case]:
    """``count`` cases for ``seed``, kinds in turn.

    >>> [case.kind for case in generate(FIXED_SEED, 3)]
    ['exact', 'overlap', 'phrase']
    >>> generate(7, 4) == generate(7, 4)
    True
    """
    return [_case(seed, i) for i in range(start, start + count)]


# ----------------------------------------------------------------- runners


@dataclass(frozen=True, slots=True)
class Runner:
    """An entry point under test: ``run(case)`` gives the outcome."""

    name: str
    call: Callable[[Case], Any] = field(repr=False)

    def judge(self, case: Case) -> tuple[Verdict, Outcome]:
        """Run the entry point on ``case`` and judge its outcome."""
        try:
            outcome = Outcome(value=self.call(case))
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            outcome = Outcome(error=exc)
        return judge(case, outcome), outcome


def _chain(parser: Any) -> Callable[[Case], Any]:
    def call(case: Case) -> Any:
        model = ScriptedChatModel(script=case.script())
        chain = JsonRetryChain(model=model, parser=parser, on_truncation="continue")
        return chain.invoke("Answer in JSON.")

    return call


def _structured(**options: Any) -> Callable[[Case], Any]:
    from langchain_jsonrecover import structured_output  # noqa: PLC0415

    def run(case: Case) -> Any:
        model = ScriptedChatModel(script=case.script())
        schema = list[Any] if isinstance(case.original, list) else dict[str, Any]
        runnable = structured_output(
            model, schema, strategy="json", on_truncation="continue", **options
        )
        return runnable.invoke("Answer in JSON.")

    return run


def our_runners() -> list[Runner]:
    """The entry points of ours that continue a cut reply, at each ``repair``
    level (the name without ``repair=`` is the default, ``repair="safe"``)."""
    return [
        Runner(
            "JsonRetryChain(JsonFenceOutputParser(repair=False))",
            _chain(JsonFenceOutputParser(repair=False)),
        ),
        Runner(
            "JsonRetryChain(JsonFenceOutputParser())", _chain(JsonFenceOutputParser())
        ),
        Runner(
            "JsonRetryChain(JsonFenceOutputParser(repair=True))",
            _chain(JsonFenceOutputParser(repair=True)),
        ),
        Runner(
            "structured_output(strategy='json', repair=False)",
            _structured(parser=JsonFenceOutputParser(repair=False)),
        ),
        Runner("structured_output(strategy='json')", _structured()),
    ]


def _naive_json_repair(case: Case) -> Any:
    import json_repair  # noqa: PLC0415

    value = json_repair.loads(case.first + "".join(case.pieces))
    if value in ("", None):
        raise OutputParserException("json_repair gave nothing")
    return value


def peer_runners() -> list[Runner]:
    """langchain-core's ``JsonOutputParser`` in our loop, and the naive join
    that ``json_repair`` reads (when installed)."""
    runners = [
        Runner(
            "JsonRetryChain(langchain-core JsonOutputParser())",
            _chain(JsonOutputParser()),
        )
    ]
    try:
        import json_repair  # noqa: F401, PLC0415
    except ImportError:
        return runners
    runners.append(Runner("json_repair.loads(cut + continuation)", _naive_json_repair))
    return runners


def describe(case: Case, outcome: Outcome) -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    got = (
        f"raised {type(outcome.error).__name__}: {outcome.error}"
        if outcome.error is not None
        else canonical(outcome.value)
    )
    return (
        f"[{case.label}] first={case.first!r}\n"
        f"    pieces={list(case.pieces)!r}\n"
        f"    expected: {canonical(case.original)}\n"
        f"    got:      {got}"
    )


def dump(value: Any) -> str:
    """The compact JSON of a value (for the benchmark's examples)."""
    return json.dumps(value, ensure_ascii=False)
