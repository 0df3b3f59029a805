"""Hide reasoning (``<think>…</think>`` and kin, harmony channels) from the JSON scan.

Pure functions on ``str``; no LangChain imports.

Reasoning is replaced by spaces rather than cut out, so every offset found
later (spans, error positions) is still an offset into the model's reply.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.reply.probe import find_token, led_matches
from langchain_jsonrecover._core.reply.quotes import (
    JsonStrings,
    QuoteParity,
    SingleQuotedValue,
    StringParity,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

# A reasoning tag: ``<think>``, ``</Thinking >``, ``<reasoning>`` (any case), or
# Mistral's (Magistral) ``[THINK]``/``[/THINK]``, upper case only. Two
# patterns, each led by its literal bracket, so the regex engine skips to the
# next ``<`` or ``[`` in C (one pattern with both as alternatives tries every
# offset in turn: forty times slower).
_ANGLE_TAG: Final = re.compile(r"<(/?)(think|thinking|reasoning)\s*>", re.IGNORECASE)
_SQUARE_TAG: Final = re.compile(r"\[(/?)(THINK)\]")
_BRACKET_TAG: Final = "THINK]"
_QUOTES: Final = ('"', "'", "`")
_FENCE: Final = ("```", "~~~")

# Harmony (gpt-oss): ``<|start|>{role}<|channel|>{channel} [to=…]
# [<|constrain|>{format}]<|message|>{body}`` then ``<|end|>``, ``<|call|>``
# or ``<|return|>``. Every part of the header is bounded, so the scan is linear.
_HARMONY_HEADER: Final = re.compile(
    r"(?:<\|start\|>(?P<role>[^<]{0,80}))?+"
    r"(?:<\|channel\|>(?P<channel>[^<]{0,200}))?+"
    r"(?:<\|constrain\|>(?P<constrain>[^<]{0,80}))?+"
    r"<\|message\|>"
)
_HARMONY_END: Final = re.compile(
    r"<\|(?:end|call|return)\|>|(?=<\|(?:start|channel|message)\|>)"
)
# A conversation opens the reply or a line; each next message follows the
# last one's end, perhaps after spaces and a repeated ``<|start|>assistant``.
_HARMONY_GAP: Final = re.compile(r"\s*+(?:<\|start\|>[A-Za-z]{0,20}\s*+)*+")
_GAP_LIMIT: Final = 64
# A JSON body (a tool call's arguments, a JSON answer) ends at a terminator
# outside its strings: a token quoted inside the JSON is data.
_JSON_BODY: Final = re.compile(r"\s*+[\[{]")
_OPENER: Final = re.compile(r"[\[{]")
_JSON_BODY_RUN: Final = re.compile(
    r'(?:[^"\u201c\u201d\uff02\u00ab\u00bb<]++|"(?:[^"\\]++|\\.)*+"?'
    r"|[\u201c\u201d\uff02\u00ab\u00bb](?:[^\u201c\u201d\uff02\u00ab\u00bb\\]++|\\.)*+"
    r"[\u201c\u201d\uff02\u00ab\u00bb]?"
    r"|<(?!\|(?:end|call|return|start|channel|message)\|>))*+",
    re.DOTALL,
)
_RECIPIENT: Final = re.compile(r"\bto=([^\s<]+)")
_REASONING_CHANNELS: Final = frozenset({"analysis", "commentary"})
_HARMONY_STARTS: Final = ("<|start|>", "<|channel|>")


@dataclass(frozen=True, slots=True)
class HarmonyMessage:
    """One message of a reply in OpenAI's harmony format (gpt-oss)."""

    start: int
    """Offset of the message's header (``<|start|>`` or ``<|channel|>``)."""
    body_start: int
    """Offset just after ``<|message|>``."""
    body_end: int
    """Offset of the terminator, or the reply's end."""
    end: int
    """Offset just after the terminator (``body_end`` when there is none)."""
    channel: str
    """``analysis``, ``commentary``, ``final``, or ``""`` when none is named."""
    recipient: str
    """The ``to=`` of the header (``functions.get_weather``), or ``""``."""
    closed: bool
    """Whether a terminator or the next message ends the body."""
    json_body: bool = False
    """Whether the body opens with JSON (``{`` or ``[`` after spaces)."""

    @property
    def is_reasoning(self) -> bool:
        """Whether the message is reasoning (a tool call is not).

        ``commentary`` without a recipient whose body is JSON is the payload
        (gpt-oss answers there when no ``final`` message follows); a ``final``
        message, when present, hides it with every other message.
        """
        if self.channel == "commentary" and self.json_body:
            return False
        return self.channel in _REASONING_CHANNELS and not self.recipient

    @property
    def is_commentary_payload(self) -> bool:
        """Whether this is a ``commentary`` message read as the payload."""
        return self.channel == "commentary" and self.json_body and not self.recipient


def harmony_messages(text: str) -> list[HarmonyMessage]:
    """The harmony messages of a reply, in order.

    Args:
        text: The model's reply.

    Returns:
        One entry per message of a conversation: the first header opens the
        reply or a line, each next one follows the last message (a header
        elsewhere, as inside a JSON string, is text). Empty when there is none.

    Example:
        >>> [m.channel for m in harmony_messages(
        ...     "<|channel|>analysis<|message|>Hm.<|end|>"
        ...     "<|start|>assistant<|channel|>final<|message|>{}<|return|>")]
        ['analysis', 'final']
    """
    if find_token(text, "<|message|>") < 0:
        return []
    found: list[HarmonyMessage] = []
    pos = 0
    strings = JsonStrings(text)
    while (header := _HARMONY_HEADER.search(text, pos)) is not None:
        if not _follows(text, found, header.start()) and (
            not _opens_harmony(text, header.start()) or strings.inside(header.start())
        ):
            pos = header.end()  # quoted, or inside a JSON string: text
            continue
        channel_text = header.group("channel") or ""
        words = channel_text.split()
        channel = words[0] if words else ""
        head = " ".join(g or "" for g in header.group("role", "channel", "constrain"))
        recipient = _RECIPIENT.search(head)
        body_start = header.end()
        stop = _body_end(text, body_start)
        if stop is None:
            body_end = end = len(text)
        else:
            body_end, end = stop.start(), stop.end()
        found.append(
            HarmonyMessage(
                start=header.start(),
                body_start=body_start,
                body_end=body_end,
                end=end,
                channel=channel,
                recipient=recipient.group(1) if recipient else "",
                closed=stop is not None,
                json_body=_JSON_BODY.match(text, body_start, body_end) is not None,
            )
        )
        pos = max(end, header.end())
    return found


def _body_end(text: str, body_start: int) -> re.Match[str] | None:
    """The terminator of a harmony body: the first outside its JSON's strings.

    A body that is JSON, or prose then JSON (``Here: {"stop": ["<|end|>"]}``),
    ends at the first terminator after the JSON's strings: a token quoted in
    the JSON is data. With no terminator right after the JSON, the first one
    counts.
    """
    if _JSON_BODY.match(text, body_start, body_start + _GAP_LIMIT) is not None:
        run = _JSON_BODY_RUN.match(text, body_start)
        return _HARMONY_END.match(text, run.end() if run else body_start)
    stop = _HARMONY_END.search(text, body_start)
    limit = stop.start() if stop is not None else len(text)
    opener = _OPENER.search(text, body_start, limit)
    if opener is None:
        return stop
    run = _JSON_BODY_RUN.match(text, opener.start())
    end = run.end() if run else opener.start()
    if end >= len(text):
        return None  # the reply ends in the body, as a JSON-first body may
    return _HARMONY_END.match(text, end) or stop


def _follows(text: str, found: list[HarmonyMessage], index: int) -> bool:
    """Whether a header at ``index`` continues the conversation read so far."""
    if not found or index - found[-1].end > _GAP_LIMIT:
        return False
    return _HARMONY_GAP.fullmatch(text, found[-1].end, index) is not None


def _opens_harmony(text: str, index: int) -> bool:
    """Whether a header at ``index`` opens the reply or a line (spaces before it).

    Reasoning blanked before it counts as spaces.
    """
    return _opens_line(text, index, 0)


def harmony_begun_after(text: str, messages: list[HarmonyMessage]) -> bool:
    """Whether another message begins after the last one, its header cut.

    ``…<|end|><|start|>assistant<|channel|>final`` with no ``<|message|>``:
    a message (perhaps the ``final`` one) was begun and the reply stopped in
    its header, so a ``commentary`` body before it is not the payload.

    Example:
        >>> text = "<|channel|>commentary<|message|>{}<|end|><|start|>assistant"
        >>> harmony_begun_after(text, harmony_messages(text))
        True
    """
    if not messages or not messages[-1].closed:
        return False
    end = messages[-1].end
    return any(text.find(token, end) >= 0 for token in _HARMONY_STARTS)


def harmony_hidden(
    messages: list[HarmonyMessage], *, begun_after: bool = False
) -> list[tuple[int, int]]:
    """The spans of harmony reasoning: what the JSON scan must not see.

    When a ``final`` message is present it is the answer and everything else
    of the harmony conversation is hidden (drafts in ``analysis``, tool calls in
    ``commentary``); otherwise the ``analysis`` messages and the ``commentary``
    messages that call no tool are, unless such a message holds JSON (then it
    is the payload).

    Args:
        messages: The reply's messages, from :func:`harmony_messages`.
        begun_after: Another message begins after the last, its header cut
            (:func:`harmony_begun_after`): a ``commentary`` payload is hidden.

    Returns:
        Spans to blank, in order.

    Example:
        >>> harmony_hidden(harmony_messages("<|channel|>analysis<|message|>x<|end|>{}"))
        [(0, 38)]
    """
    finals = [m for m in messages if m.channel == "final"]
    if not finals:
        # A message begun after the last, its header cut: it may have been
        # the final one, so no commentary stands in for it.
        return [
            (m.start, m.end)
            for m in messages
            if m.is_reasoning or (begun_after and m.is_commentary_payload)
        ]
    hidden: list[tuple[int, int]] = []
    last = 0
    for message in finals:
        hidden.append((last, message.body_start))
        last = message.body_end
    hidden.append((last, max(m.end for m in messages)))
    return [(start, end) for start, end in hidden if end > start]


def think_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``<think>``-style reasoning blocks, tags included.

    Args:
        text: The model's reply.

    Returns:
        The spans to hide, in order, not overlapping.

    Example:
        >>> think_spans('<think>say "</think>" then</think>{}')
        [(0, 34)]
        >>> think_spans('[THINK]Maybe [TOOL_CALLS]rm[ARGS]{}[/THINK]No.')
        [(0, 43)]
    """
    return think_bounds(text)[0]


def think_bounds(text: str) -> tuple[list[tuple[int, int]], bool]:
    r"""The spans of :func:`think_spans`, and whether their end is unsettled.

    A block whose closing tags are all quoted (``"</think>"``) ends at the
    last of them; with two or more, any of them could be its end, and the
    later ones may sit inside a call's arguments (issue 21): the bound is
    unsettled, and a caller that would run what follows must not guess.

    Example:
        >>> think_bounds('<think>say "</think>"\n{"note": "</think>"}')[1]
        True
        >>> think_bounds('<think>say "</think>"\n{}')
        ([(0, 20)], False)
    """
    if "<" not in text and _BRACKET_TAG not in text:
        return [], False
    hidden: list[tuple[int, int]] = []
    open_at = -1
    open_name = ""
    visible_from = 0
    quoted_close = -1  # the last quoted closing tag of the open block
    quoted_count = 0  # how many quoted closing tags the open block holds
    quotes = QuoteParity(text)
    json_strings = JsonStrings(text)  # an opening tag in one is data
    strings = StringParity(text)  # a lone closing tag in one is data
    single = SingleQuotedValue(text)  # so is one in a single-quoted string
    for match in _tags(text):
        closing = match.group(1) == "/"
        name = match.group(2)
        if match.re is _ANGLE_TAG:
            name = name.lower()
        if open_at < 0 and (
            _quoted(text, match.start(), match.end())
            or json_strings.inside(match.start())
        ):
            continue  # a tag in quotes, or in a JSON string, outside reasoning
        if (
            open_at < 0
            and not closing
            and not _opens_line(text, match.start(), visible_from)
        ):
            continue
        if open_at < 0:
            if not closing:
                open_at, open_name = match.start(), name
                quoted_close, quoted_count = -1, 0
                quotes.reset(match.end())
            elif (
                not hidden
                and not strings.inside(match.start())
                and not single.inside(match.start())
            ):
                # A lone closing tag opening the reply's tags: what came
                # before it was reasoning (the opening tag was in the prompt).
                # Inside a JSON string (``{"tz": "a</think>"}``) it is data.
                hidden.append((0, match.end()))
                visible_from = match.end()
                strings.reset(visible_from)
                json_strings.reset(visible_from)
        elif closing and name == open_name:
            if quotes.inside(match.start()) or _quote_follows(text, match.end()):
                quoted_close = match.end()
                quoted_count += 1
                continue
            hidden.append((open_at, match.end()))
            visible_from = match.end()
            strings.reset(visible_from)
            json_strings.reset(visible_from)
            open_at = -1
    if open_at >= 0:
        # Only quoted closing tags: the last of them is the best reading.
        hidden.append((open_at, quoted_close if quoted_close >= 0 else len(text)))
        return merge_spans(hidden), quoted_count > 1
    return merge_spans(hidden), False


def _tags(text: str) -> Iterator[re.Match[str]]:
    """The reasoning tags of ``text``, in order: ``<…>`` and ``[…]`` merged.

    A match of one pattern never overlaps one of the other (neither holds the
    other's brackets), so the merge is what one pattern with both
    alternatives would find.

    Example:
        >>> [m.group() for m in _tags("[THINK]a</think>[x]<Reasoning >")]
        ['[THINK]', '</think>', '<Reasoning >']
    """
    angle = led_matches(_ANGLE_TAG, text, "<")  # tried where a ``<`` is only
    if _BRACKET_TAG not in text:  # the common case: no merge
        return angle
    return heapq.merge(angle, _SQUARE_TAG.finditer(text), key=re.Match.start)


def blank(text: str, spans: list[tuple[int, int]]) -> str:
    """Replace the given spans (in order, not overlapping) by spaces.

    Example:
        >>> blank("ab<x>cd", [(2, 5)])
        'ab   cd'
    """
    if not spans:
        return text
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts.append(text[last:start])
        parts.append(" " * (end - start))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def mask_reasoning(text: str) -> tuple[str, bool]:
    """Blank out reasoning blocks, keeping every offset of the reply.

    Rules:
    - ``<think>…</think>``, ``<thinking>…</thinking>`` and
      ``<reasoning>…</reasoning>`` are hidden, tags included;
    - a closing tag with no opening one, before any other reasoning tag, hides
      everything before it (chat templates often put the opening tag in the
      prompt, not the reply);
    - an opening tag that is never closed hides the rest of the reply;
    - inside reasoning, a closing tag in quotes (followed by a quote or a
      backtick, or after an odd number of ``"`` on its line) is text and does
      not end it;
    - harmony (gpt-oss): ``analysis`` messages and ``commentary`` messages
      that call no tool are reasoning, unless the ``commentary`` body is JSON
      (the payload, when no ``final`` message is present); a ``final``
      message is the answer and, when present, everything else of the
      harmony conversation is hidden.

    Models open reasoning at the start of a line; a tag elsewhere, or one
    quoted (``"</think>"``), is text, as in ``{"tip": "use <think> tags"}``.

    Args:
        text: The model's reply.

    Returns:
        The reply with reasoning replaced by spaces (the same object when there
        is none), and whether anything was hidden.

    Example:
        >>> mask_reasoning("<think>hm</think>{}")
        ('                 {}', True)
    """
    if "<" not in text and _BRACKET_TAG not in text:
        return text, False
    spans = think_spans(text)
    masked = blank(text, spans)
    messages = harmony_messages(masked)
    harmony = harmony_hidden(
        messages, begun_after=harmony_begun_after(masked, messages)
    )
    if harmony:
        masked = blank(masked, harmony)
    hidden = bool(spans or harmony)
    return (masked, True) if hidden else (text, False)


def _opens_line(text: str, index: int, visible_from: int) -> bool:
    """Whether only spaces precede ``index`` on its line (or since ``visible_from``)."""
    i = index - 1
    while i >= visible_from and text[i] in " \t":
        i -= 1
    return i < visible_from or text[i] in "\r\n"


def _quote_follows(text: str, end: int) -> bool:
    """Whether a quote follows a closing tag: a fence opener glued to it is none.

    Example:
        >>> _quote_follows('</think>"', 8), _quote_follows("</think>```json", 8)
        (True, False)
    """
    return text.startswith(_QUOTES, end) and not text.startswith(_FENCE, end)


def _quoted(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1] == '"') or text.startswith('"', end)


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping spans, in order of start.

    Example:
        >>> merge_spans([(5, 9), (0, 2), (1, 3), (8, 10)])
        [(0, 3), (5, 10)]
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
