"""Payload builders: a realistic document at a given size (fixed seed), and replies.

The document is a customer export (records with strings, numbers, nested
objects, arrays and non-ASCII text), generated deterministically so that
every run, script and revision times the same bytes. A reply is that document
written one way: compact (``clean``), pretty-printed in a ```` ```json ````
fence between two sentences (``fenced``), or compact and cut at 70 % of its
length (``truncated``). The faulty replies (syntax repair) are in
``_faults.py``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final

import orjson

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

SEED: Final = 20_240_601
"""The document's seed: the same records in every run."""

_FIRST_NAMES: Final = (
    "Ada", "José", "Zoë", "Łukasz", "Søren", "Chidi", "Mei", "Anaïs",
    "Dmitri", "Aoife", "Björk", "Nguyễn", "Yuki", "Fátima", "Ólafur",
)  # fmt: skip
_LAST_NAMES: Final = (
    "Lovelace", "Núñez", "Müller", "Kowalski", "Østergaard", "Okafor", "Wang",
    "Dubois", "Ivanov", "O'Brien", "Guðmundsdóttir", "Tanaka", "Al-Sayed",
)  # fmt: skip
_CITIES: Final = (
    ("Zürich", "CH"), ("São Paulo", "BR"), ("東京", "JP"), ("Kraków", "PL"),
    ("Reykjavík", "IS"), ("Москва", "RU"), ("Lagos", "NG"), ("Montréal", "CA"),
    ("München", "DE"), ("서울", "KR"), ("Zaragoza", "ES"), ("Cork", "IE"),
)  # fmt: skip
_STREETS: Final = (
    "Hauptstraße",
    "Rue de l'Église",
    "Main St",
    "Calle Mayor",
    "Ulica Długa",
)
_TAGS: Final = (
    "vip", "beta", "newsletter", "churn-risk", "enterprise", "trial",
    "partner", "überfällig", "nuevo", "優先",
)  # fmt: skip
_NOTES: Final = (
    'Prefers "express" shipping.',
    "Called twice about invoice #{n}; resolved.",
    "Line one\nLine two",
    "Pays in €, invoices in CHF — check the rate.",
    "Tab\tseparated\tvalues requested",
    "Files live under C:\\Users\\{n}",
    "☕ before 10:00, please 🚀",
    "",
)

PROSE_BEFORE: Final = "Sure! Here is the customer export you asked for, as JSON:\n\n"
PROSE_AFTER: Final = "\n\nLet me know if you need it in another format."
FENCE_OPENER: Final = "```json\n"
FENCE_CLOSER: Final = "\n```"


def _record(rng: random.Random, index: int) -> dict[str, Any]:
    first, last = rng.choice(_FIRST_NAMES), rng.choice(_LAST_NAMES)
    city, country = rng.choice(_CITIES)
    orders = [
        {
            "sku": f"SKU-{rng.randrange(100_000):05d}",
            "qty": rng.randint(1, 12),
            "price": round(rng.uniform(0.5, 499.0), 2),
            "shipped": rng.random() < 0.7,
            "discount": None if rng.random() < 0.6 else round(rng.random() / 2, 3),
        }
        for _ in range(rng.randint(0, 4))
    ]
    return {
        "id": 10_000 + index,
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{index}@example.com",
        "active": rng.random() < 0.8,
        "score": round(rng.uniform(0, 100), 3),
        "balance": rng.randint(-100_000, 10_000_000) / 100,
        "tags": rng.sample(_TAGS, rng.randint(0, 4)),
        "address": {
            "street": f"{rng.choice(_STREETS)} {rng.randint(1, 250)}",
            "city": city,
            "country": country,
            "geo": {
                "lat": round(rng.uniform(-90, 90), 6),
                "lon": round(rng.uniform(-180, 180), 6),
            },
        },
        "orders": orders,
        "note": rng.choice(_NOTES).format(n=index) if rng.random() < 0.5 else None,
    }


def make_document(target_bytes: int, seed: int = SEED) -> dict[str, Any]:
    """A deterministic document whose compact UTF-8 JSON is about ``target_bytes``.

    Returns:
        ``{"version", "generated", "source", "count", "records"}``; records are
        added until the serialized size reaches the target.
    """
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 120  # the envelope, roughly
    while size < target_bytes:
        record = _record(rng, len(records))
        records.append(record)
        size += len(orjson.dumps(record)) + 1
    return {
        "version": 3,
        "generated": "2024-06-01T12:00:00Z",
        "source": {
            "system": "crm",
            "region": "eu-west",
            "filters": {"active_only": False},
        },
        "count": len(records),
        "records": records,
    }


def clean_reply(document: Any) -> str:
    """The document as compact JSON text."""
    return orjson.dumps(document).decode()


def fenced_body(document: Any) -> str:
    """The pretty-printed document: what the fence of :func:`fenced_reply` holds."""
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()


def fenced_reply(document: Any) -> str:
    """Prose, a json fence with the pretty-printed document, more prose."""
    body = fenced_body(document)
    return f"{PROSE_BEFORE}{FENCE_OPENER}{body}{FENCE_CLOSER}{PROSE_AFTER}"


CUT_AT: Final = 0.7
"""Where a truncated reply stops: this fraction of the compact document's length."""


def truncated_reply(document: Any) -> str:
    """The compact document, cut at ``CUT_AT`` of its length (in characters)."""
    clean = clean_reply(document)
    return clean[: int(len(clean) * CUT_AT)]


SIZES: Final = (("2 KB", 2_000), ("20 KB", 20_000), ("200 KB", 200_000))
"""The sizes of the speed tables: a name, and the compact document's bytes."""
SHAPES: Final[dict[str, Callable[[Any], str]]] = {
    "clean": clean_reply,
    "fenced": fenced_reply,
}


def size_bytes(size: str) -> int:
    """The target bytes of a size named in :data:`SIZES` (``"200 KB"``)."""
    return dict(SIZES)[size]


def canonical(value: Any) -> bytes | None:
    """``value`` as sorted-key JSON bytes, to compare values; ``None`` if not JSON."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None


def check_fixture(document: Any, clean: str) -> None:
    """Check that the document round-trips through its compact JSON.

    Raises:
        ValueError: It does not.
    """
    if canonical(document) is None or orjson.loads(clean) != document:
        raise ValueError("fixture does not round-trip through JSON")


def sized_documents(
    sizes: Sequence[tuple[str, int]] = SIZES,
) -> Iterator[tuple[str, dict[str, Any], str]]:
    """Each size's name, document and compact JSON, checked to round-trip."""
    for size, target in sizes:
        document = make_document(target)
        clean = clean_reply(document)
        check_fixture(document, clean)
        yield size, document, clean
