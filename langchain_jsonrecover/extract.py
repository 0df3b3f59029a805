"""``extract_json``: the extraction core as a function, with typed errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jsonrecover._core.extract import (
    DEFAULT_MAX_DEPTH,
    Extraction,
    ReplyFailure,
    extract,
)
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS
from langchain_jsonrecover.errors import error_for

if TYPE_CHECKING:
    from langchain_jsonrecover._core.levels import Repair

__all__ = ["Extraction", "extract_json"]


def extract_json(
    text: str | bytes,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    repair: Repair = "safe",
) -> Extraction:
    r"""Find and decode the JSON value in a model's reply.

    Tried in order, the first that decodes wins: the reply as it stands; with
    ``<think>``/``<thinking>``/``<reasoning>`` blocks hidden, ```` ```json ````
    fences, then untagged fences; the trimmed reply from its first ``{``/``[``;
    JSON-like spans in prose (objects before arrays). Bare scalars in prose are
    never taken, and neither are brackets that hold no key/value pairs or
    values (``{1, 2, 3}``, ``{name}``).

    Args:
        text: The model's reply; ``bytes`` are decoded as UTF-8 (a byte-order
            mark dropped), as the parsers' ``parse`` does.
        max_chars: Longer replies are refused before any scan.
        max_depth: Deeper nesting is an ``InvalidJsonError``.
        repair: When no candidate decodes as it stands, repair the syntax:
            ``"safe"`` (the default, as for the parsers) only with the repairs
            that have one reading, ``True`` with every repair, ``False`` not
            at all (see the parsers' ``repair``).

    Returns:
        The value, where it was found, and what was done to get it.

    Raises:
        NoJsonFoundError: Nothing JSON-like in the reply.
        InvalidJsonError: A JSON-like candidate that does not decode
            (``truncated=True`` when the reply ends inside it).
        JsonRecoveryError: The reply is longer than ``max_chars``.
        ValueError: ``max_chars`` or ``max_depth`` is not positive.
        UnicodeDecodeError: ``text`` is bytes that are not UTF-8.
        TypeError: ``text`` is neither ``str`` nor ``bytes`` (``None``, a
            message …).

    Example:
        >>> found = extract_json('<think>plan</think>Here: {"name": "Ada"} Done.')
        >>> found.value
        {'name': 'Ada'}
        >>> found.repairs
        ('reasoning_skipped', 'prose_trimmed')
        >>> extract_json(b'\xef\xbb\xbf{"caf\xc3\xa9": 1}').value
        {'café': 1}
        >>> extract_json('{"tags": ["a", "b",],}').repairs
        ('trailing_comma_removed',)
    """
    if isinstance(text, bytes | bytearray | memoryview):
        text = bytes(text).decode("utf-8-sig")
    elif not isinstance(text, str):
        msg = (
            f"extract_json takes the reply as str or bytes, not "
            f"{type(text).__name__} (for a message, pass message.text)"
        )
        raise TypeError(msg)
    check_limits(max_chars, max_depth)
    result = extract(text, max_chars=max_chars, max_depth=max_depth, repair=repair)
    if isinstance(result, ReplyFailure):
        raise error_for(result, text)
    return result


def check_limits(max_chars: int, max_depth: int) -> None:
    """Reject limits that make no sense, before any reply is seen.

    Raises:
        ValueError: Either limit is below 1.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, got {max_depth}")
