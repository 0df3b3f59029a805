"""The real-replies corpus: loader and the one scoring function.

``tests/data/real_replies.jsonl`` holds replies that broke JSON parsing in
public issue threads, paraphrased (words and values changed, the fault kept),
each labelled with the value a careful reader would accept, or ``"error"``
where the intent cannot be told. The test (``tests/test_real_replies.py``)
and the benchmark (``benchmarks/real_replies.py``) score every contender with
:func:`score`, so the two can never disagree on what counts.

An outcome is ``"right"`` (the expected value; on a case labelled ``"error"``,
an exception), ``"error"`` (the contender raised where a value was expected)
or ``"wrong"`` (any other value, or any value on a case labelled ``"error"``:
the worst outcome, since a wrong value passes validation and nobody re-asks).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from _real_schemas import SCHEMAS
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.outputs import ChatGeneration
from pydantic import TypeAdapter

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from langchain_jsonrecover._core.levels import Repair

CORPUS_PATH: Final = Path(__file__).resolve().parent / "data" / "real_replies.jsonl"
CLASSES: Final = frozenset(
    {
        "tool_markup",
        "reasoning",
        "fence_prose",
        "quotes",
        "escapes",
        "python_literals",
        "syntax",
        "structure",
        "template",
        "envelope",
        "double_encoded",
        "schema_keys",
        "schema_values",
        "truncation",
        "trailing_text",
        "placeholder",
        "no_json",
    }
)
Outcome = Literal["right", "error", "wrong"]
OUTCOMES: Final[tuple[Outcome, ...]] = ("right", "error", "wrong")


@dataclass(frozen=True, slots=True)
class RealCase:
    """One line of the corpus."""

    id: str
    source: str
    model: str
    cls: str
    input: str
    schema: str | None
    cut_off: bool
    expected: Any
    expect: str
    note: str

    @property
    def schema_type(self) -> type[Any] | None:
        return None if self.schema is None else SCHEMAS[self.schema]


def load_real_cases(path: Path = CORPUS_PATH) -> list[RealCase]:
    cases: list[RealCase] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            cases.append(
                RealCase(
                    id=row["id"],
                    source=row["source"],
                    model=row["model"],
                    cls=row["class"],
                    input=row["input"],
                    schema=row["schema"],
                    cut_off=row["cut_off"],
                    expected=row["expected"],
                    expect=row["expect"],
                    note=row["note"],
                )
            )
    return cases


# ---- contenders ----------------------------------------------------------------
# Each takes a case and returns the value it reads, or raises.


def _ours(case: RealCase, *, repair: Repair) -> Any:
    schema = case.schema_type
    if case.cut_off:
        parser: Any = TruncationRecoveringOutputParser(
            pydantic_object=schema, repair=repair
        )
        message = AIMessage(
            content=case.input, response_metadata={"finish_reason": "length"}
        )
        return parser.parse_result([ChatGeneration(message=message)])
    return JsonFenceOutputParser(pydantic_object=schema, repair=repair).parse(
        case.input
    )


def _validated(case: RealCase, value: Any) -> Any:
    schema = case.schema_type
    return value if schema is None else TypeAdapter(schema).validate_python(value)


def _json_repair(case: RealCase) -> Any:
    import json_repair  # noqa: PLC0415  (optional: the bench extra)

    value = json_repair.loads(case.input)
    if value == "" and case.input.strip() != '""':
        # json_repair's way of saying it found nothing: an error, not a value.
        msg = "json_repair returned an empty string"
        raise ValueError(msg)
    return _validated(case, value)


def _langchain_core(case: RealCase) -> Any:
    return _validated(case, JsonOutputParser().parse(case.input))


CONTENDERS: Final[dict[str, Callable[[RealCase], Any]]] = {
    "ours repair=False": lambda case: _ours(case, repair=False),
    "ours (default)": lambda case: _ours(case, repair="safe"),
    "ours repair=True": lambda case: _ours(case, repair=True),
    "json_repair": _json_repair,
    "langchain-core": _langchain_core,
}


# ---- scoring ----------------------------------------------------------------------


def canonical(case: RealCase, value: Any) -> bytes:
    """The value as JSON bytes to compare: through the schema when there is one."""
    schema = case.schema_type
    if schema is not None:
        value = TypeAdapter(schema).dump_python(value, mode="json")
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def expected_canonical(case: RealCase) -> bytes:
    return canonical(case, _validated(case, case.expected))


@dataclass(frozen=True, slots=True)
class Scored:
    """One contender's outcome on one case, with what it returned or raised."""

    outcome: Outcome
    got: str


def score(case: RealCase, contender: str) -> Scored:
    """Run one contender on one case: right, error or wrong."""
    try:
        value = CONTENDERS[contender](case)
    except Exception as exc:  # noqa: BLE001  (any failure to read is an error)
        raised = f"{type(exc).__name__}: {str(exc)[:200]}"
        # Raising is the right answer where the intent cannot be told.
        return Scored("right" if case.expect == "error" else "error", raised)
    try:
        got = canonical(case, value)
    except Exception as exc:  # noqa: BLE001  (a value the schema cannot dump)
        return Scored("wrong", f"undumpable {type(value).__name__}: {exc}")
    if case.expect == "value" and got == expected_canonical(case):
        return Scored("right", got.decode())
    return Scored("wrong", got.decode())
