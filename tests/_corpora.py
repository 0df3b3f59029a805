"""The peers' test cases (``../shared/corpora``), for the conformance tests.

Read where they live, never copied: ``../shared/corpora`` next to the clone, or
the folder named by ``JSONRECOVER_CORPORA``. Without them a conformance module
is skipped with the reason, unless ``JSONRECOVER_REQUIRE_CORPORA=1`` (as in CI).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

if TYPE_CHECKING:
    from langchain_jsonrecover import JsonRecoveryError

CORPORA_ENV: Final = "JSONRECOVER_CORPORA"
REQUIRE_ENV: Final = "JSONRECOVER_REQUIRE_CORPORA"
DEFAULT_CORPORA: Final = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPUS_NAMES: Final = (
    "langchain",
    "json_repair",
    "baml",
    "vercel_ai",
    "partial_json_parser",
)


@dataclass(frozen=True, slots=True)
class Case:
    """One line of a corpus."""

    id: str
    corpus: str
    input: str
    expected: Any
    expect: str
    kind: str
    note: str


@dataclass(frozen=True, slots=True)
class Returns:
    """We return this value where the peer expects something else."""

    value: Any


@dataclass(frozen=True, slots=True)
class Raises:
    """We raise exactly this error where the peer expects something else."""

    error: type[JsonRecoveryError]


Outcome = Returns | Raises


def corpora_dir() -> Path:
    return Path(os.environ.get(CORPORA_ENV) or DEFAULT_CORPORA)


def missing_files(folder: Path) -> list[str]:
    return [
        f"{name}.jsonl"
        for name in CORPUS_NAMES
        if not (folder / f"{name}.jsonl").is_file()
    ]


def load_cases(folder: Path) -> list[Case]:
    cases: list[Case] = []
    for name in CORPUS_NAMES:
        text = (folder / f"{name}.jsonl").read_text(encoding="utf-8")
        for line in text.splitlines():
            if line.strip():
                row = json.loads(line)
                cases.append(
                    Case(
                        id=row["id"],
                        corpus=name,
                        input=row["input"],
                        expected=row["expected"],
                        expect=row["expect"],
                        kind=row["kind"],
                        note=row["note"],
                    )
                )
    return cases


def same_json(a: object, b: object) -> bool:
    """Equal as JSON: a bool is no number, ``1 == 1.0``, keys and order count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_json, a, b))
    return type(a) is type(b) and a == b


def case_id(case: Case) -> str:
    return case.id


CORPORA: Final = corpora_dir()
MISSING: Final = missing_files(CORPORA)
MISSING_REASON: Final = (
    f"peer corpora not found: {CORPORA} lacks {', '.join(MISSING)} "
    f"(set {CORPORA_ENV} to their folder)"
    if CORPORA.is_dir()
    else f"peer corpora not found: no folder {CORPORA} (set {CORPORA_ENV} to it)"
)


def all_cases() -> list[Case]:
    """Every case, or skip the calling module (fail instead, when required)."""
    if MISSING and os.environ.get(REQUIRE_ENV) != "1":
        pytest.skip(MISSING_REASON, allow_module_level=True)
    return [] if MISSING else load_cases(CORPORA)
