"""A candidate-choice oracle: a known answer among distractors, and a verdict.

Issue 21's contract for the candidate layer: *the intended value or a typed
error, never a third value*. ``generate`` builds, from a seed, replies that
hold one known answer (a value from the syntax oracle's templates) beside
things that are not it:

* citations (``[4]``, ``[2]``) after it, before it, or both;
* a draft or a format example before it (``prefer="first"`` answers the
  draft, as documented; ``prefer="last"`` the answer);
* a second value after it, apart in prose (the mirror image);
* values glued together (``{...}{...}``, nothing or spaces between), bare or in
  prose, and JSON Lines in one fence: several values in one place, which only
  an error answers;
* the answer written with typographic quotes as its structure (curly, swapped,
  fullwidth): the answer (after repair) or an error, never a value inside it;
* markup and reasoning tokens inside the answer's strings (``<|end|>``,
  ``<think>`` starting a line of a string …), bare, fenced, after prose, in a
  harmony final message;
* reasoning blocks and harmony analysis messages holding a draft.

``judge`` says whether an answer is ``"right"`` (what the parser's order
should give: ``Case.expected[order]``), ``"error"`` (a typed
``JsonRecoveryError``) or ``"wrong"`` (anything else). Case ``i`` gets kind
``KINDS[i % len(KINDS)]`` and its own ``random.Random`` seeded by
``(seed, index)``, so a short run is a prefix of a long one.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal

from _oracle import (
    FIXED_SEED,
    REPAIR_LEVELS,
    VERDICTS,
    Outcome,
    Verdict,
    _join,
    _layout,
    _tokens,
    _value,
    canonical,
)

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    extract_json,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["FIXED_SEED", "VERDICTS", "Outcome", "Verdict"]

Order = Literal["first", "last"]

KINDS: Final = (
    "citation_after",
    "citation_before",
    "citations_around",
    "draft_before",
    "second_after",
    "glued",
    "jsonl_fence",
    "curly_quotes",
    "token_in_string",
    "think_line_in_string",
    "reasoning_block",
    "harmony",
)
#: Kinds whose only right answer is an error (several values in one place).
SEVERAL: Final = frozenset({"glued", "jsonl_fence"})


@dataclass(frozen=True, slots=True)
class Case:
    """One reply, its answer, and what each order should give."""

    reply: str
    original: Any
    """The answer the reply holds."""
    kind: str
    seed: int
    index: int
    expected: dict[str, tuple[str, ...]]
    """Per order (``first``, ``last``): canonical forms of the right values
    (empty: only an error is right)."""
    fenced: bool = False
    """The answer stands alone in a ```` ```json ```` fence (the regex runner's)."""

    @property
    def label(self) -> str:
        """Where to find the case again: ``seed:index:kind``."""
        return f"{self.seed}:{self.index}:{self.kind}"


def judge(
    case: Case, outcome: Outcome, order: Order = "first", *, ours: bool = True
) -> Verdict:
    """Say whether ``outcome`` answers ``case`` rightly, with an error, or wrongly.

    >>> case = generate(FIXED_SEED, 1)[0]
    >>> judge(case, Outcome(value=case.original))
    'right'
    >>> judge(case, Outcome(value=[4]))
    'wrong'
    >>> judge(case, Outcome(error=ValueError("x")))
    'wrong'
    """
    if outcome.error is None:
        if canonical(outcome.value) in case.expected[order]:
            return "right"
        return "error" if not ours and outcome.value in (None, "", {}, []) else "wrong"
    return (
        "error" if isinstance(outcome.error, JsonRecoveryError) or not ours else "wrong"
    )


# ---------------------------------------------------------------- pieces

_LEADS: Final = (
    "Here is the result:",
    "The filing says",
    "Based on the sources, the data is:",
    "Answer:",
    "Sure!",
)
_CITES: Final = ("[4]", "[2]", "[1][3]", "[1, 2]", "[12]", "[3], [7]")
_DRAFT_LEADS: Final = (
    ("Draft", "Final"),
    ("Format:", "Answer:"),
    ("For example", "Here is yours:"),
    ("My first try was", "Corrected:"),
)
_TOKENS: Final = (
    "<|end|>",
    "<|end|>",
    "<|im_end|>",
    "<|eot_id|>",
    "</s>",
    "<think>",
    "</think>",
    "<tool_call>",
    "<|channel|>final",
    "[TOOL_CALLS]",
    "<|python_tag|>",
    "<|return|>",
    "<|start|>assistant",
)
_THINK_LINES: Final = ("<think>", "</think>", "<reasoning>", "<thinking> ok")
_HARMONY_FINAL: Final = "<|start|>assistant<|channel|>final<|message|>"
_QUOTE_STYLES: Final = (
    ("\u201c", "\u201d"),  # curly
    ("\u201d", "\u201c"),  # swapped
    ("\uff02", "\uff02"),  # fullwidth
    ("\u201c", "\u201c"),  # one curly for both ends
)


def _render(rng: random.Random, value: Any, *, one_line: bool = False) -> str:
    layout = _layout(rng, lines=False)
    while one_line and layout.indent is not None:
        layout = _layout(rng, lines=False)
    return _join(list(_tokens(value, layout)))


def _other(rng: random.Random, answer: Any) -> Any:
    while True:
        other = _value(rng)
        if canonical(other) != canonical(answer):
            return other


def _record(rng: random.Random) -> Any:
    """A value whose top level is an object (so citations are not the answer)."""
    value = _value(rng)
    return value if isinstance(value, dict) else {"items": value, "n": len(value)}


def _exp(
    first: Any | None, last: Any | None = None, *, same: bool = True
) -> dict[str, tuple[str, ...]]:
    one = (canonical(first),) if first is not None else ()
    if same:
        return {"first": one, "last": one}
    two = (canonical(last),) if last is not None else ()
    return {"first": one, "last": two}


def _set_string(rng: random.Random, value: dict[str, Any], text: str) -> None:
    value[rng.choice(("stop", "note", "marker", "text"))] = rng.choice(
        (text, [text], f"say {text} here", {"token": text})
    )


def _quoted_as(payload: str, opening: str, closing: str) -> str:
    """``payload`` with its structural double quotes replaced."""
    out: list[str] = []
    i = 0
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"', payload):
        out += [payload[i : match.start()], opening, match.group()[1:-1], closing]
        i = match.end()
    out.append(payload[i:])
    return "".join(out)


# ---------------------------------------------------------------- kinds

Made = tuple[str, Any, dict[str, tuple[str, ...]], bool]
"""A kind's reply, answer, expected values per order, and whether it is fenced."""


def _citation_after(rng: random.Random) -> Made:
    ans = _record(rng)
    tail = rng.choice(("Sources: {c}", "See {c}.", "{c}", "(refs {c})"))
    tail = tail.format(c=rng.choice(_CITES))
    reply = f"{rng.choice(_LEADS)} {_render(rng, ans)}. {tail}"
    return reply, ans, _exp(ans), False


def _citation_before(rng: random.Random) -> Made:
    ans = _record(rng)
    sep = rng.choice((" ", "\n", " - "))
    reply = f"{rng.choice(_CITES)}{sep}{rng.choice(_LEADS)} {_render(rng, ans)}"
    return reply, ans, _exp(ans), False


def _citations_around(rng: random.Random) -> Made:
    ans = _record(rng)
    reply = (
        f"{rng.choice(_CITES)} {rng.choice(_LEADS)}\n{_render(rng, ans, one_line=True)}"
        f"\nSources: {rng.choice(_CITES)}"
    )
    return reply, ans, _exp(ans), False


def _draft_before(rng: random.Random) -> Made:
    ans, draft = _record(rng), _record(rng)
    while canonical(draft) == canonical(ans):
        draft = _record(rng)
    before, after = rng.choice(_DRAFT_LEADS)
    tail = rng.choice(("", f" Sources: {rng.choice(_CITES)}", " Done."))
    reply = f"{before} {_render(rng, draft)}. {after} {_render(rng, ans)}.{tail}"
    return reply, ans, _exp(draft, ans, same=False), False


def _second_after(rng: random.Random) -> Made:
    ans = _record(rng)
    other = _other(rng, ans)
    while not isinstance(other, dict) or canonical(other) == canonical(ans):
        other = _record(rng)
    mid = rng.choice(
        ("\n\nFor comparison, the old record was", ". An earlier version:", "\nvs.")
    )
    reply = f"{rng.choice(_LEADS)} {_render(rng, ans)}{mid} {_render(rng, other)}"
    return reply, ans, _exp(ans, other, same=False), False


def _glued(rng: random.Random) -> Made:
    ans = _value(rng)
    other = _other(rng, ans)
    glue = rng.choice(("", "", " ", "\n", "\n\n"))
    body = _render(rng, ans, one_line=True) + glue + _render(rng, other, one_line=True)
    reply = rng.choice((body, f"{rng.choice(_LEADS)} {body}", f"{body}\n"))
    return reply, ans, _exp(None), False


def _jsonl_fence(rng: random.Random) -> Made:
    ans = _value(rng)
    rows = [ans, *(_other(rng, ans) for _ in range(rng.randint(1, 3)))]
    body = "\n".join(_render(rng, row, one_line=True) for row in rows)
    fence = rng.choice(("```json\n", "```jsonl\n", "```\n"))
    lead = rng.choice(("", "Here are the rows:\n\n"))
    reply = f"{lead}{fence}{body}\n```"
    return reply, ans, _exp(None), fence == "```json\n"


def _curly_quotes(rng: random.Random) -> Made:
    ans = _record(rng)
    ans[rng.choice(("ids", "edges", "counts"))] = rng.choice(
        ([], [1, 2], [[0, 1], [2, 3]], [3.5])
    )
    opening, closing = rng.choice(_QUOTE_STYLES)
    payload = _quoted_as(_render(rng, ans), opening, closing)
    style = rng.choice(("bare", "prose", "fence"))
    reply = {
        "bare": payload,
        "prose": f"{rng.choice(_LEADS)} {payload} Thanks.",
        "fence": f"```json\n{payload}\n```",
    }[style]
    return reply, ans, _exp(ans), style == "fence"


def _token_in_string(rng: random.Random) -> Made:
    ans = _record(rng)
    _set_string(rng, ans, rng.choice(_TOKENS))
    payload = _render(rng, ans)
    style = rng.choice(("bare", "prose", "fence", "harmony", "harmony_prose") * 2)
    reply = {
        "bare": payload,
        "prose": f"{rng.choice(_LEADS)} {payload}",
        "fence": f"```json\n{payload}\n```",
        "harmony": f"{_HARMONY_FINAL}{payload}<|return|>",
        "harmony_prose": f"{_HARMONY_FINAL}{rng.choice(_LEADS)} {payload}<|return|>",
    }[style]
    return reply, ans, _exp(ans), style == "fence"


def _think_line_in_string(rng: random.Random) -> Made:
    ans = _record(rng)
    tag = rng.choice(_THINK_LINES)
    _set_string(rng, ans, rng.choice((f"a\n{tag} b", f"first line\n{tag}\nlast")))
    # A raw newline in the string, as models write them: ``<think>`` starts a line.
    payload = _render(rng, ans).replace(f"\\n{tag}", f"\n{tag}")
    style = rng.choice(("bare", "prose", "fence"))
    reply = {
        "bare": payload,
        "prose": f"{rng.choice(_LEADS)} {payload}",
        "fence": f"```json\n{payload}\n```",
    }[style]
    return reply, ans, _exp(ans), style == "fence"


def _reasoning_block(rng: random.Random) -> Made:
    ans, draft = _record(rng), _record(rng)
    tag = rng.choice(("think", "thinking", "reasoning"))
    reply = (
        f"<{tag}>Maybe {_render(rng, draft)}, or [1].</{tag}>\n"
        f"{rng.choice(('', 'Answer: '))}{_render(rng, ans)}"
    )
    return reply, ans, _exp(ans), False


def _harmony(rng: random.Random) -> Made:
    ans, draft = _record(rng), _record(rng)
    lead = rng.choice(("", f"{rng.choice(_LEADS)} "))
    reply = (
        f"<|channel|>analysis<|message|>Draft {_render(rng, draft)} [2]<|end|>"
        f"{_HARMONY_FINAL}{lead}{_render(rng, ans)}<|return|>"
    )
    return reply, ans, _exp(ans), False


_MAKERS: Final[dict[str, Callable[[random.Random], Made]]] = {
    "citation_after": _citation_after,
    "citation_before": _citation_before,
    "citations_around": _citations_around,
    "draft_before": _draft_before,
    "second_after": _second_after,
    "glued": _glued,
    "jsonl_fence": _jsonl_fence,
    "curly_quotes": _curly_quotes,
    "token_in_string": _token_in_string,
    "think_line_in_string": _think_line_in_string,
    "reasoning_block": _reasoning_block,
    "harmony": _harmony,
}
assert set(_MAKERS) == set(KINDS)


def generate(seed: int, count: int, *, start: int = 0) -> list[Case]:
    """``count`` cases from ``start``, kinds in turn, each seeded by ``(seed, i)``."""
    cases = []
    for index in range(start, start + count):
        kind = KINDS[index % len(KINDS)]
        rng = random.Random(f"{seed}:{index}:cands")  # noqa: S311 - test data
        reply, original, expected, fenced = _MAKERS[kind](rng)
        cases.append(Case(reply, original, kind, seed, index, expected, fenced))
    return cases


# ---------------------------------------------------------------- runners


@dataclass(frozen=True, slots=True)
class Runner:
    """An entry point under test, and the order it documents."""

    name: str
    parse: Callable[[str], Any] = field(repr=False)
    order: Order = "first"
    fenced_only: bool = False
    """Judged only on cases whose answer stands alone in a json fence."""
    ours: bool = True
    """Only a ``JsonRecoveryError`` is an error (for a peer: any exception,
    ``None`` or an empty result)."""

    def applies(self, case: Case) -> bool:
        """Whether this runner is judged on ``case``."""
        return case.fenced or not self.fenced_only

    def judge(self, case: Case) -> tuple[Verdict, Outcome]:
        """Run the entry point on ``case`` and judge its outcome."""
        try:
            outcome = Outcome(value=self.parse(case.reply))
        except Exception as exc:  # noqa: BLE001 - any exception is an outcome
            outcome = Outcome(error=exc)
        return judge(case, outcome, self.order, ours=self.ours), outcome


_FENCE_PATTERN: Final = r"```json\s*(.*?)```"


def _extracted_value(levels: dict[str, Any], text: str) -> Any:
    return extract_json(text, **levels).value


def our_runners() -> list[Runner]:
    """The entry points of the candidate layer at each ``repair`` level.

    By the names the tables use; ``X()`` is the default level.
    """
    runners = []
    for option, levels in REPAIR_LEVELS:
        extracted = functools.partial(_extracted_value, levels)
        last = ", ".join(['prefer="last"', *([option] if option else [])])
        fence = ", ".join(["```json fence", *([option] if option else [])])
        runners += [
            Runner(f"extract_json({option})", extracted),
            Runner(
                f"JsonFenceOutputParser({option})",
                JsonFenceOutputParser(**levels).parse,
            ),
            Runner(
                f"JsonFenceOutputParser({last})",
                JsonFenceOutputParser(prefer="last", **levels).parse,
                "last",
            ),
            Runner(
                f"TruncationRecoveringOutputParser({option})",
                TruncationRecoveringOutputParser(**levels).parse,
            ),
            Runner(
                f"RegexJsonOutputParser({fence})",
                RegexJsonOutputParser(pattern=_FENCE_PATTERN, **levels).parse,
                fenced_only=True,
            ),
        ]
    return runners


def peer_runners() -> list[Runner]:
    """langchain-core's ``JsonOutputParser`` and, when installed, ``json_repair``."""
    from langchain_core.output_parsers import JsonOutputParser  # noqa: PLC0415

    runners = [
        Runner(
            "langchain-core JsonOutputParser()", JsonOutputParser().parse, ours=False
        )
    ]
    try:
        import json_repair  # noqa: PLC0415
    except ImportError:
        return runners
    return [Runner("json_repair.loads", json_repair.loads, ours=False), *runners]


def describe(case: Case, outcome: Outcome, order: Order = "first") -> str:
    """A wrong answer, shown so that a fixer can reproduce it."""
    got = (
        f"raised {type(outcome.error).__name__}: {outcome.error}"
        if outcome.error is not None
        else canonical(outcome.value)
    )
    expected = " or ".join(case.expected[order]) or "an error"
    return f"[{case.label}] reply={case.reply!r}\n    expected: {expected}\n    got:      {got}"
