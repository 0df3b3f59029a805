"""Replies of the sizes replies have (300 B to 30 KB), for the speed targets.

The document is that of ``_data.py`` (records with non-ASCII text, escapes and
nested objects) with one more string per record that holds braces and
brackets (``"Dear {name}, see {order_7} [7]"``), written pretty-printed
(indent 2), as models write JSON. Each builder returns the reply and, where
the reply has one, the value a parser should give; ``orjson.loads`` on
:func:`clean_payload` is the baseline of every ratio.

Replies: ``clean`` (the pretty-printed document), ``fenced`` (a sentence, a
```` ```json ```` fence, a sentence with ``{braces}``), ``think`` (a
``<think>`` block whose reasoning holds braces, then the document), one slip
in the middle record (a trailing comma, a lost comma, a lost closing bracket, a
lost closing quote; each where it has one reading), cuts at random positions of the compact or the fenced
reply, and a megabyte of JSON-like prose with no JSON in it.
"""

from __future__ import annotations

import random
import re
from typing import Any, Final

import orjson
from _data import make_document

LIVE_SIZES: Final = (("300 B", 300), ("3 KB", 3_000), ("30 KB", 30_000))
"""Sizes: a name, and the compact document's bytes (at least one record)."""
BEFORE: Final = "Here is the export you asked for:\n\n"
AFTER: Final = "\n\nFields in {curly braces} are placeholders; see [1] for the format."
THINK: Final = (
    "<think>\nThe user wants the export as JSON. Each record is {id, name,"
    " email, …} and the tags go in [brackets]; keep the notes as written.\n"
    "</think>\n\n"
)
SLIPS: Final = ("trailing comma", "lost comma", "lost bracket", "lost quote")
SLIP_SITES: Final = {
    "trailing comma": "after an object's last member",
    "lost comma": "between two members",
    "lost bracket": "the ] of a list of two or more strings",
    "lost quote": "the closing quote of a key",
}
"""Where :func:`slipped` puts each slip: a place with one reading that
``repair=True`` reads. A lost ``}`` before more members has several (which
object the members belong to), and the pass refuses a guess there. A lost
closing quote before a line's comma has one single-edit reading, but its
string then runs over the line break, which is read as a raw control
character and escaped first; no single edit reads the escaped text, so the
pass refuses it too."""
CUT_POSITIONS: Final = 60
"""Cuts per reply: random positions inside its JSON (fixed seed)."""


def live_document(target_bytes: int) -> dict[str, Any]:
    """The ``_data.py`` document, each record with a string of braces added."""
    document = make_document(target_bytes)
    for record in document["records"]:
        record["greeting"] = (
            f"Dear {{name}}, see {{order_{record['id']}}} [{record['id']}]"
        )
    return document


def clean_payload(document: Any) -> str:
    """The document as models write it: pretty-printed, indent 2."""
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()


def fenced(document: Any) -> str:
    """A sentence, the document in a json fence, a sentence with braces."""
    return f"{BEFORE}```json\n{clean_payload(document)}\n```{AFTER}"


def think(document: Any) -> str:
    """A ``<think>`` block with braces in it, then the document."""
    return THINK + clean_payload(document)


def _find(patterns: tuple[str, ...], text: str) -> re.Match[str]:
    """The first match of the first pattern found in or after the middle of
    ``text`` (or, in a one-record document, anywhere).

    Raises:
        ValueError: No pattern matches.
    """
    for start in (len(text) // 2, 0):
        for pattern in patterns:
            found = re.compile(pattern).search(text, start)
            if found is not None:
                return found
    raise ValueError(f"none of {patterns} in the document")


def slipped(document: Any, slip: str) -> str:
    """The pretty-printed document with one slip, in or after its middle.

    Raises:
        ValueError: The slip is unknown, or left the text valid JSON.
    """
    text = clean_payload(document)
    if slip == "trailing comma":
        found = _find((r'"lon": [-0-9.eE+]+',), text)
        out = text[: found.end()] + "," + text[found.end() :]
    elif slip == "lost comma":
        found = _find((r'"qty": \d+,', r'"score": [-0-9.eE+]+,'), text)
        out = text[: found.end() - 1] + text[found.end() :]
    elif slip == "lost bracket":
        found = _find((r'"tags": \[\n\s*"[^"\\]*",\n[^\]]*\n\s*\]',), text)
        out = text[: found.end() - 1] + text[found.end() :]
    elif slip == "lost quote":
        found = _find((r'"city"',), text)
        out = text[: found.end() - 1] + text[found.end() :]
    else:
        raise ValueError(f"unknown slip {slip!r}")
    try:
        orjson.loads(out)
    except orjson.JSONDecodeError:
        return out
    raise ValueError(f"the {slip} left valid JSON")


def cuts(document: Any, *, in_fence: bool, seed: int = 7) -> list[str]:
    """:data:`CUT_POSITIONS` replies cut at random points inside their JSON.

    Compact JSON cut anywhere after its first character, or the fenced reply
    cut inside its pretty-printed body (its fence never closed), as a token
    limit stops a reply.
    """
    rng = random.Random(seed)
    if in_fence:
        body = clean_payload(document)
        head = f"{BEFORE}```json\n"
        return [
            head + body[: rng.randrange(1, len(body))] for _ in range(CUT_POSITIONS)
        ]
    compact = orjson.dumps(document).decode()
    return [compact[: rng.randrange(1, len(compact))] for _ in range(CUT_POSITIONS)]


PROSE_UNIT: Final = "Use {name: Ada} or {city: Paris, tags: [a, b]} as examples. "


def json_like_prose(target_bytes: int = 1_000_000) -> str:
    """About ``target_bytes`` of prose full of ``{key: value}``: no JSON in it."""
    return PROSE_UNIT * (target_bytes // len(PROSE_UNIT))
