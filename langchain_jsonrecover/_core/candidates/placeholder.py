r"""A format example chosen beside a value of its shape: two readings.

Pure functions on ``str``; no LangChain imports. Candidates keep their
documented order (fences first, then prose; the first, or ``prefer``), so a
reply that shows the format before it answers (``The format is:`` then a
fenced ``{"name": "..."}``, then ``Here: {"name": "Ada"}``) used to give the
format. The rule, checked only once a value has been chosen:

- the chosen value is a *placeholder*: it holds at least one string, and
  every string in it, at any depth, is one of :data:`PLACEHOLDER_FORMS`
  (``...``, ``…``, ``<name>``, ``[name]``, ``{{name}}``, a JSON type name
  such as ``string`` or ``integer | null``, ``TODO``, ``xxx``, or empty);
- another candidate of the reply (in a fence or in the prose, before or
  after it) decodes as it stands to an object with the same keys, holds a
  string that is not a placeholder, and differs;

then the reply has two readings (a format shown then the answer, or an
answer left blank then an example), and the reply raises, naming both. A
placeholder with no such rival is read as it is.

A value need not be a placeholder to be a format shown: ``Format: {"sentiment":
"neutral", "summary": "ok"}`` then ``Answer: {"sentiment": "positive", …}``.
So, second rule: the chosen value's lead (the text on its line before it, or
the nearest non-blank line above, past a fence's opening) ends in a label of
:data:`EXAMPLE_LABELS` (``Format:``, ``Output format:``, ``For example:``,
``The schema is:``, ``Sample output:``, ``Expected:``; not ``in the requested
format:``, but ``An example in JSON format:``), and another candidate
after it (a fence, or an object in the prose) decodes as it stands to another
value: two readings, raised naming both (before it too, for ``prefer="last"``).
A labelled value with no other value beside it is read as it is.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.candidates.mention import lead_of
from langchain_jsonrecover._core.candidates.order import find_prose_spans
from langchain_jsonrecover._core.decode.tolerant import loads_within
from langchain_jsonrecover._core.reply.fences import find_fences
from langchain_jsonrecover._core.schema.validate import is_model

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

PLACEHOLDER_FORMS: Final = (
    "an empty string",
    "two or more dots, or an ellipsis",
    "<…>, […] or {{…}} around up to 40 characters",
    (
        "a JSON type name (string, str, text, number, integer, int, float, "
        "boolean, bool, object, array, null, none, value, date, url, email), "
        "or several joined by | or or"
    ),
    "TODO, TBD, xxx, placeholder",
)
"""The strings a placeholder is made of (compared without case or edge spaces)."""

_TYPE: Final = (
    r"(?:string|str|text|number|integer|int|float|boolean|bool|object|array"
    r"|null|none|value|date|url|email)"
)
_PLACEHOLDER: Final = re.compile(
    r"|\.{2,}+|…+"
    r"|<[^<>\n]{1,40}>|\[[^\[\]\n]{1,40}\]|\{\{[^{}\n]{1,40}\}\}"
    rf"|{_TYPE}(?:\s*+(?:\||or)\s*+{_TYPE})*+"
    r"|todo|tbd|x{3,}+|placeholder",
    re.IGNORECASE,
)


EXAMPLE_LABELS: Final = (
    "format",
    "example",
    "e.g.",
    "sample",
    "schema",
    "template",
    "expected",
)
"""Words that, ending a value's lead (a word's plural too, then a noun of
:data:`_SHOWN` such as ``output``, then ``is``, ``would be`` or ``looks
like`` and a colon), show a format, not the answer."""
_PLAIN_WORDS: Final = tuple(word.rstrip(".") for word in EXAMPLE_LABELS)
_WORDS: Final = "|".join(map(re.escape, _PLAIN_WORDS))
_SHOWN: Final = r"(?:output|response|answer|reply|result|json|value|object)"
"""``Sample output:``, ``Example response:``: the label word, then what it shows."""
_LABEL: Final = re.compile(
    rf"(?<![\w.])(?:{_WORDS})(?:e?s)?\.?(?:\s++{_SHOWN}s?)?\s*+"
    r"(?:(?:is|would\s+be|looks\s+like)\s*+)?:?\s*+\Z",
    re.IGNORECASE,
)
_IN_FORMAT: Final = re.compile(r"\bin\s+(?:\w+\s+){0,3}\S+\s*+:?\s*+\Z", re.IGNORECASE)
"""``in the requested format:``, ``in this schema:``: the answer, so framed;
not after a label word (``An example in JSON format:`` shows an example)."""
_LABEL_WORD: Final = re.compile(rf"(?<![\w.])(?:{_WORDS})(?:e?s)?\b", re.IGNORECASE)
_LABEL_CHARS: Final = (
    max(len(word.rstrip(".")) for word in EXAMPLE_LABELS) + len("es.")  # "templates."
    + max(map(len, _SHOWN[3:-1].split("|"))) + len("s")  # "responses"
    + len("lookslike:")
)  # fmt: skip
"""The most non-blank characters a match of :data:`_LABEL` holds (each of its
characters matches one character of the lead, case folding too)."""
_IN_WORDS: Final = 6
"""The most blank-separated words a match of :data:`_IN_FORMAT` spans: the
word ending in ``in``, three words, one more, and a colon."""
_LABEL_WORDS: Final = 5
"""The most blank-separated words a match of :data:`_LABEL` spans."""
_LABEL_READ: Final = 2 * _LABEL_CHARS
"""How much of the lead's end is read for :data:`_LABEL` when it is dense."""
_SEARCHED_WHOLE: Final = 128
"""A lead this short is searched whole: finding its last words costs more."""
_HEAD_READ: Final = 512
"""A value this close to the reply's start has the text before it checked for
a label word before its lead is read (:func:`_may_be_labelled`)."""
_MARKER: Final = re.compile(r"`++[\w+.#-]*+[ \t]*+")
"""A fence marker from its backticks on, as ``mention._FENCE_LINE`` drops it."""
_SCALARS: Final = frozenset({int, float, bool, type(None)})
"""The types of the decoded scalars that hold no string."""


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
        elif isinstance(item, str):
            yield item
        elif is_model(item):  # a value read through a schema: its fields
            stack.extend(vars(item).values())
        elif is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in fields(item))


def is_placeholder(value: Any) -> bool:
    """Whether ``value`` holds a string, and every string in it is a placeholder.

    Example:
        >>> is_placeholder({"name": "...", "tags": ["<tag>"], "age": 0})
        True
        >>> is_placeholder({"name": "Ada", "note": "..."}), is_placeholder({"n": 1})
        (False, False)
    """
    found = False
    stack: list[Iterable[Any]] = [(value,)]
    while stack:
        for item in stack.pop():
            kind = type(item)
            if kind in _SCALARS:  # most items: no string in them
                continue
            if kind is dict:
                stack.append(item.values())
            elif kind is list:
                stack.append(item)
            elif isinstance(item, str):
                if _PLACEHOLDER.fullmatch(item.strip()) is None:
                    return False  # the common case: at the first string
                found = True
            else:
                stack.append(_strings(item))
    return found


def rival_of_placeholder(
    text: str, span: tuple[int, int], *, max_depth: int
) -> tuple[Any, Any, int] | None:
    r"""The placeholder chosen at ``span`` and a value of its shape elsewhere.

    Args:
        text: The reply, reasoning and markup blanked (same offsets).
        span: Where the chosen value's text lies.
        max_depth: Deeper values are not read.

    Returns:
        ``(placeholder, rival, rival_start)``, or ``None`` when the chosen
        value is no placeholder, or no other candidate of its keys holds a
        value.

    Example:
        >>> reply = 'Format:\n```json\n{"name": "..."}\n```\nHere: {"name": "Ada"}'
        >>> rival_of_placeholder(reply, (16, 31), max_depth=64)
        ({'name': '...'}, {'name': 'Ada'}, 42)
        >>> print(rival_of_placeholder('{"n": "A"} {"n": "..."}', (0, 10), max_depth=9))
        None
    """
    chosen = _loads(text[span[0] : span[1]], max_depth)
    if not isinstance(chosen, dict) or not is_placeholder(chosen):
        return None
    for other, start in _other_values(text, span, max_depth=max_depth):
        if (
            isinstance(other, dict)
            and other.keys() == chosen.keys()
            and other != chosen
            and not is_placeholder(other)
            and any(_strings(other))
        ):
            return chosen, other, start
    return None


def rival_of_example(
    text: str, span: tuple[int, int], *, max_depth: int
) -> tuple[Any, Any, int] | None:
    r"""The value at ``span``, labelled a format or example, and another value.

    Args:
        text: The reply, reasoning and markup blanked (same offsets).
        span: Where the chosen value's text lies.
        max_depth: Deeper values are not read.

    Returns:
        ``(example, rival, rival_start)``, or ``None`` when the chosen value's
        lead is no label of :data:`EXAMPLE_LABELS`, or no other value stands
        beside it.

    Example:
        >>> reply = 'Format: {"n": "a"}\nAnswer: {"n": "b"}'
        >>> rival_of_example(reply, (8, 18), max_depth=64)
        ({'n': 'a'}, {'n': 'b'}, 27)
        >>> print(rival_of_example('Answer: {"n": "b"}\nFormat: {"n": "a"}', (8, 18),
        ...     max_depth=64))
        None
    """
    if not _may_be_labelled(text, span[0]) or not is_example(lead_of(text, span[0])):
        return None
    chosen = _loads(text[span[0] : span[1]], max_depth)
    for other, start in _other_values(text, span, max_depth=max_depth):
        if other is not None and other != chosen:
            return chosen, other, start
    return None


def _may_be_labelled(text: str, start: int) -> bool:
    r"""Whether the lead of the value at ``start`` may be a label: a cheap test.

    ``False`` only where ``is_example(lead_of(text, start))`` is ``False``.
    Finding the lead (lines read back past blank ones and a fence's opening
    line, each with its fence markers dropped) costs a third of decoding a
    300-byte reply; most replies hold no label word before their value. The
    lead is made of pieces of the lines before ``start``, joined by spaces;
    a piece is a line's text with its fence markers (``mention._FENCE_LINE``:
    blanks, a run of three backticks or more, a tag, blanks) dropped. A label
    word holds no blank, so the match ``is_example`` needs (a label word, see
    :func:`_may_hold_label_word`) lies in one piece: either within what the
    piece kept of its line, so in the casefolded text before ``start``; or
    across a dropped marker, which then has more of its line after it. When
    neither can be, the lead is not read. A longer head is not checked.

    Example:
        >>> _may_be_labelled('Here it is:\n```json\n{"a": 1}\n```', 20)
        False
        >>> _may_be_labelled('For``` mat:\n```json\n{"a": 1}\n```', 20)
        True
    """
    if start > _HEAD_READ:
        return True
    head = text[:start]
    if _may_hold_label_word(head):
        return True
    at = head.find("```")
    while at >= 0:
        marker = _MARKER.match(head, at)
        end = marker.end() if marker is not None else at + 3
        if head[end : end + 1] not in ("", "\n", "\r"):
            return True  # a word may run on over the dropped marker
        at = head.find("```", end)
    return False


def is_example(lead: str) -> bool:
    """Whether a value's lead labels it a format or an example.

    The patterns read the lead's last words only (a label ends the lead), so
    a megabyte of text before the value costs what its label costs; only a
    frame (``… in JSON format:``) has the words before it searched for a
    label word.

    Example:
        >>> is_example("Output format:"), is_example("An example in JSON format:")
        (True, True)
        >>> is_example("Reply in the requested format:"), is_example("Answer:")
        (False, False)
    """
    lead = lead.strip()
    if len(lead) <= _SEARCHED_WHOLE:
        if not _may_hold_label_word(lead):
            return False  # most leads: no pattern searched
        found = _IN_FORMAT.search(lead)
        framed, label_from = (None if found is None else found.start()), 0
    else:
        words = _last_words(lead, _IN_WORDS)
        framed = _in_format(lead, words)
        label_from = _label_from(lead, words) if framed is None else 0
    if framed is not None:
        return _LABEL_WORD.search(lead, 0, framed) is not None
    return _LABEL.search(lead, label_from) is not None


def _may_hold_label_word(lead: str) -> bool:
    """Whether a word of :data:`EXAMPLE_LABELS` can match somewhere in ``lead``.

    Each answer ``True`` of :func:`is_example` holds a match of a label word
    (:data:`_LABEL` and the frame's :data:`_LABEL_WORD` both start with one).
    Under ``IGNORECASE`` a character matches a letter of these words only if it
    casefolds to that letter (the long s to ``s``; checked over every code
    point in the tests), and casefolding works one character at a time: so
    a match leaves its word in the casefolded lead, where C substring searches
    look for it, at a fraction of one pattern's search.
    """
    folded = lead.casefold()
    for word in _PLAIN_WORDS:  # noqa: SIM110 - a loop: any() on a generator costs twice
        if word in folded:
            return True
    return False


def _label_from(lead: str, words: list[tuple[int, int]]) -> int:
    """Where a match of :data:`_LABEL` in ``lead`` can start, at the earliest.

    A match ends the lead and holds at most :data:`_LABEL_CHARS` non-blanks
    in at most five words (four runs of blanks: before the noun, after it,
    inside ``looks like``, before the colon): it starts in the last five
    words, and after any end of the lead that holds more non-blanks than it
    can. Its lookbehind reads the character before, as ``search`` does.
    """
    start = words[-_LABEL_WORDS][0] if len(words) >= _LABEL_WORDS else 0
    read = max(len(lead) - _LABEL_READ, 0)
    if len("".join(lead[read:].split())) > _LABEL_CHARS:
        start = max(start, read)
    return start


def _in_format(lead: str, words: list[tuple[int, int]]) -> int | None:
    r"""Where :data:`_IN_FORMAT` first matches ``lead``, as ``search`` finds it.

    A match starts at the ``in`` that ends a word followed by blanks, and
    after it come at most three words, one more and a colon, to the end: it
    starts two characters before the end of one of the lead's last words but
    one (``words``), so only those places are tried, leftmost first.
    ``\b`` reads the character before the place, as it does in ``search``.
    """
    for start, end in words[:-1]:
        place = end - len("in")
        if place >= start and _IN_FORMAT.match(lead, place) is not None:
            return place
    return None


def _last_words(lead: str, count: int) -> list[tuple[int, int]]:
    """Where the last ``count`` blank-separated words of ``lead`` lie, in order.

    ``lead`` has no blanks at its ends, so the last word ends it. Each word
    before is found from the right at the end of what is left of the lead:
    the blanks before the next word are skipped by ``rfind``, which cannot
    stop inside a word (a word holds no blank). Only the last words are
    read, whatever their length.
    """
    parts = lead.rsplit(None, count)
    spans: list[tuple[int, int]] = []
    end = len(lead)
    for word in reversed(parts[1:] if len(parts) > count else parts):
        start = end - len(word) if end == len(lead) else lead.rfind(word, 0, end)
        spans.append((start, start + len(word)))
        end = start
    spans.reverse()
    return spans


def _other_values(
    text: str, span: tuple[int, int], *, max_depth: int
) -> Iterator[tuple[Any, int]]:
    """The strict values of the reply's other fences and prose objects, in order."""
    fences = find_fences(text)
    places = [(f.body_start, f.body_end) for f in fences]
    places += [
        (s.start, s.end)
        for s in find_prose_spans(text, 0, fences, max_depth=max_depth)
        if s.is_object and s.closed
    ]
    for start, end in places:
        if not start <= span[0] < end:  # not the chosen value itself
            yield _loads(text[start:end], max_depth), start


def _loads(text: str, max_depth: int) -> Any:
    """The strict value of ``text``, or ``None``."""
    try:
        value, shallow = loads_within(text.strip(), max_depth)
    except orjson.JSONDecodeError:
        return None
    return value if shallow else None
