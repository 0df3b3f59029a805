r"""Tool-call markup and special tokens in a reply's text.

Pure functions on ``str``; no LangChain imports.

Serving layers often leave a model's tool-call syntax in the content:
``[TOOL_CALLS]search[ARGS]{"q": "x"}`` (Mistral), ``<tool_call>{…}</tool_call>``
(Hermes, Qwen), ``<|python_tag|>{…}`` (Llama 3), harmony's
``<|channel|>commentary to=functions.x <|message|>{…}<|call|>`` (gpt-oss),
``<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>``
(GLM-4.5), ``<function=name><parameter=k>v</parameter></function>`` (Qwen3-Coder),
DeepSeek's ``tool call begin`` token (full-width bars), ``<|tool_call_begin|>…``
(Kimi K2),
``<|tool_call|>[…]`` (Granite), ``<function_call>{…}`` (Granite 20B FC),
``<|START_ACTION|>…`` (Cohere),
``<invoke name="x"><parameter name="k">v</parameter></invoke>`` (MiniMax M2,
Claude's former XML format), and
end-of-sequence tokens (``<|eot_id|>``, ``<|im_end|>``, ``</s>`` …).

:func:`find_tool_calls` reads the calls; :func:`prepare_reply` blanks the
markup (and reasoning) so the JSON inside is a candidate for the JSON scan.

Only exact token spellings count, and never inside a JSON string: in prose,
tokens are found by one regex search (C speed); inside brackets the scan
tracks strings, so ``{"tip": "end with <|im_end|>"}`` keeps its tag. A reply
with no token costs one regex search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from langchain_jsonrecover._core.reply.call_forms import READERS
from langchain_jsonrecover._core.reply.call_json import (
    Found,
    FoundCall,
    ScanText,
    find_clean_end,
)
from langchain_jsonrecover._core.reply.markup_tokens import (
    ANGLE_TOKEN,
    PROSE_NEXT,
    TOKEN_KIND,
    VALUE_RUN,
)
from langchain_jsonrecover._core.reply.quoted import QuotedMarkup, glued_to_quote
from langchain_jsonrecover._core.reply.quotes import MisreadStrings, StringParity
from langchain_jsonrecover._core.reply.reasoning import (
    HarmonyMessage,
    blank,
    harmony_begun_after,
    harmony_hidden,
    harmony_messages,
    merge_spans,
    think_spans,
)

_NON_SPACE: Final = re.compile(r"\S")
_TOKEN_LIMIT: Final = 64
"""Longer than any token: a match for one looks no further."""
_SQUARE_TOKEN: Final = re.compile(r"\[(?:/?THINK|TOOL_CALLS)\]")
"""The tokens in square brackets: Mistral's tool calls, Magistral's reasoning."""


@dataclass(frozen=True, slots=True)
class MarkupCall:
    """One tool call written as markup in a reply's text.

    Example:
        >>> find_tool_calls('[TOOL_CALLS]search[ARGS]{"q": "x"}')[0]
        MarkupCall(name='search', arguments='{"q": "x"}', start=0, end=34, ...)
    """

    name: str
    """The tool's name; ``""`` when the markup names none."""
    arguments: str
    """The arguments' JSON text as written (may be broken or cut). Built for
    the key/value forms (GLM ``<arg_key>``, Qwen ``<parameter=…>``): values that
    are JSON stay JSON, others become strings; a cut value is left open."""
    start: int
    """Offset where the call's markup starts."""
    end: int
    """Offset just after the call's markup. Calls written together in one
    markup (a JSON array of calls) share its span."""
    closed: bool
    """False when the reply ended inside the call (its arguments cut off)."""
    extra: tuple[str, ...] = ()
    """Members of the call's envelope beyond a call's keys (``"format"`` in
    ``{"name": …, "arguments": …, "format": "24h"}``; ``"…"`` for what is not
    a member): such a call is not unwrapped silently."""


class Prepared(NamedTuple):
    """A reply made ready for the JSON scan: reasoning and markup blanked.

    A named tuple, not a frozen dataclass: as immutable, and built for every
    reply that is not clean JSON, at a third of the cost.

    Example:
        >>> p = prepare_reply('<|python_tag|>{"a": 1}<|eot_id|>')
        >>> p.text.strip(), p.repairs
        ('{"a": 1}', ('tool_markup_stripped', 'special_tokens_stripped'))
    """

    text: str
    """The reply, same length: reasoning and markup replaced by spaces."""
    repairs: tuple[str, ...]
    """What was blanked: ``reasoning_skipped``, ``tool_markup_stripped``,
    ``special_tokens_stripped``; ``harmony_commentary_read`` when a harmony
    ``commentary`` message without a recipient (and no ``final``) holds the JSON."""
    only_reasoning: bool
    """Nothing visible remains, reasoning was hidden, and no tool call was found."""
    tool_calls: tuple[MarkupCall, ...] = ()
    """The tool calls written as markup (outside reasoning), as
    :func:`find_tool_calls` gives them. The key/value forms are blanked whole
    (their values alone are not the answer): their arguments are only here."""


def find_tool_calls(text: str) -> list[MarkupCall]:
    r"""The tool calls a reply writes as markup in its text, in order.

    Calls inside reasoning (``<think>``, harmony ``analysis``) are not calls.
    A Hermes-style envelope (``{"name": …, "arguments": {…}}``, also with
    ``parameters``, ``tool_name``, or a JSON array of them) is unpacked; a body
    that is not an envelope is the arguments, with ``name=""``.

    Args:
        text: The model's reply.

    Returns:
        The calls, in text order; empty when the reply holds no call markup.

    Example:
        >>> [(c.name, c.arguments) for c in find_tool_calls(
        ...     '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>')]
        [('f', '{"a": 1}')]
        >>> find_tool_calls("<tool_call>get\n<arg_key>n</arg_key>"
        ...                 "<arg_value>2</arg_value>")[0].arguments
        '{"n": 2}'
    """
    return list(_read(text, calls_only=True).calls)


@dataclass(frozen=True, slots=True)
class ToolMarkup:
    r"""A reply's tool-call markup: the calls, and every span of markup.

    Example:
        >>> read = read_tool_markup('<tool_call>\n<tool_call>{"name": "f", '
        ...                         '"arguments": {}}</tool_call>')
        >>> [c.name for c in read.calls], read.spans
        (['f'], ((0, 11), (12, 65)))
    """

    calls: tuple[MarkupCall, ...]
    """As :func:`find_tool_calls` gives them."""
    spans: tuple[tuple[int, int], ...]
    """The calls' spans, and every other piece of markup or special token
    (a lone ``<tool_call>``, ``<|eot_id|>`` …), merged and in order: what
    the content loses when the calls are taken out."""
    masked: str
    """The reply with reasoning blanked (same offsets)."""


def read_tool_markup(text: str) -> ToolMarkup:
    """The tool calls a reply writes as markup, with all its markup's spans.

    Args:
        text: The model's reply.

    Returns:
        The calls, the spans to take out with them, and the reply with its
        reasoning blanked.
    """
    read = _read(text, calls_only=True)
    spans = [(c.start, c.end) for c in read.calls]
    return ToolMarkup(
        read.calls,
        tuple(merge_spans([*spans, *read.markup, *read.special])),
        read.masked,
    )


def prepare_reply(text: str) -> Prepared:
    r"""Blank reasoning, tool-call markup and special tokens, keeping offsets.

    Rules:
    - reasoning as :func:`~langchain_jsonrecover._core.reply.reasoning.mask_reasoning`
      hides it (``<think>`` blocks, harmony ``analysis``; a harmony ``final``
      message, when present, is the answer and hides the rest);
    - tool-call markup around JSON is blanked so the JSON inside is a
      candidate (``[TOOL_CALLS]search[ARGS]{"q": "x"}`` leaves ``{"q": "x"}``);
      the key/value forms (GLM, Qwen3-Coder XML) are blanked whole, their
      arguments are in :attr:`Prepared.tool_calls`;
    - end-of-sequence and chat-template tokens are blanked;
    - nothing inside a JSON string is touched.

    Args:
        text: The model's reply.

    Returns:
        The prepared reply; its ``text`` is ``text`` itself when nothing is
        blanked.

    Example:
        >>> prepare_reply('[TOOL_CALLS]search[ARGS]{"q": "x"}').text
        '                        {"q": "x"}'
        >>> prepare_reply('{"tip": "end with <|im_end|>"}<|im_end|>').text
        '{"tip": "end with <|im_end|>"}          '
    """
    if _plain(text):
        return Prepared(text, (), only_reasoning=False)
    read = _read(text)
    if not read.reasoning and not read.markup and not read.special:
        return Prepared(text, (), only_reasoning=False, tool_calls=read.calls)
    prepared = blank(read.masked, merge_spans([*read.markup, *read.special]))
    repairs = tuple(
        name
        for name, present in (
            ("reasoning_skipped", read.reasoning),
            ("harmony_commentary_read", read.commentary),
            ("tool_markup_stripped", bool(read.markup)),
            ("special_tokens_stripped", bool(read.special)),
        )
        if present
    )
    only_reasoning = (
        read.reasoning and not read.calls and _NON_SPACE.search(prepared) is None
    )
    return Prepared(prepared, repairs, only_reasoning, read.calls)


# --- the scan ---------------------------------------------------------------------


@dataclass(slots=True)
class _Read:
    masked: str
    """The reply with reasoning blanked."""
    reasoning: bool
    calls: tuple[MarkupCall, ...] = ()
    markup: list[tuple[int, int]] = field(default_factory=list)
    special: list[tuple[int, int]] = field(default_factory=list)
    commentary: bool = False
    """A harmony ``commentary`` message (no recipient, no ``final``) is read."""


def _read(text: str, *, calls_only: bool = False) -> _Read:
    """Hide reasoning, then find calls, markup and special tokens.

    With ``calls_only`` (reading the calls a reply makes), markup the reply
    quotes (:class:`QuotedMarkup`) is text: no call, no span.
    """
    if _plain(text):
        return _Read(text, reasoning=False)
    thinking = think_spans(text)
    unthought = blank(text, thinking)
    messages = harmony_messages(unthought)
    begun_after = harmony_begun_after(unthought, messages)
    hidden = harmony_hidden(messages, begun_after=begun_after)
    masked = blank(unthought, hidden)
    calls: list[MarkupCall] = []
    markup: list[tuple[int, int]] = []
    special: list[tuple[int, int]] = []
    has_final = any(m.channel == "final" for m in messages)
    quoted = QuotedMarkup(masked) if calls_only else None
    _read_harmony(unthought, messages, has_final, (calls, markup, special), quoted)
    harmony_reasoning = any(
        m.channel != "final"
        if has_final
        else m.is_reasoning or (begun_after and m.is_commentary_payload)
        for m in messages
    )
    if hidden and not harmony_reasoning:
        special.extend(hidden)  # only a final message's header and terminator
    if _may_hold_tokens(masked):
        if quoted is not None:
            quoted.reset(0)  # the harmony messages were asked first
        _scan(ScanText(masked), (calls, markup, special), quoted)
    calls.sort(key=lambda c: c.start)
    reasoning = bool(thinking) or harmony_reasoning
    commentary = (
        not has_final
        and not begun_after
        and any(m.is_commentary_payload for m in messages)
    )
    return _Read(masked, reasoning, tuple(calls), markup, special, commentary)


def _plain(text: str) -> bool:
    """Whether the reply holds nothing to blank: no ``<`` and no square token.

    Every tag, token and harmony header but three starts with ``<`` (a C
    search); ``[TOOL_CALLS]``, ``[THINK]`` and ``[/THINK]`` are found by one
    regex search, which skips to each ``[`` in C: on a long reply, a seventh
    faster than a substring search for each of them (38 against 44 us at 58 KB).
    """
    return "<" not in text and _SQUARE_TOKEN.search(text) is None


def _may_hold_tokens(text: str) -> bool:
    """A cheap test first: a C substring search, then one regex from a ``<``."""
    if "[TOOL_CALLS]" in text:
        return True
    first = text.find("<")
    return first >= 0 and ANGLE_TOKEN.search(text, first) is not None


def _read_harmony(
    text: str,
    messages: list[HarmonyMessage],
    has_final: bool,
    found: _Found,
    quoted: QuotedMarkup | None,
) -> None:
    """Harmony tool calls (``to=functions.x``), and the visible headers to blank."""
    calls, markup, special = found
    for message in messages:
        if quoted is not None and quoted.inside(message.start):
            continue  # a message quoted in a fence or a comment: text
        if message.recipient:
            arguments = text[message.body_start : message.body_end].strip()
            name = message.recipient.removeprefix("functions.")
            calls.append(
                MarkupCall(name, arguments, message.start, message.end, message.closed)
            )
        if has_final or message.is_reasoning:
            continue  # hidden whole (a final message's header is hidden too)
        into = markup if message.recipient else special
        into.append((message.start, message.body_start))
        if message.end > message.body_end:
            into.append((message.body_end, message.end))


def _scan(text: ScanText, into: _Found, quoted: QuotedMarkup | None) -> None:
    """Walk the tokens outside JSON strings, reading each call's form."""
    calls, markup, special = into
    depth = 0
    pos = 0
    n = len(text)
    strings = StringParity(text)
    misread = MisreadStrings(text)
    while pos < n:
        if depth:
            run = VALUE_RUN.match(text, pos)
            if run is None or run.start("stop") < 0:
                return  # the rest is inside the JSON (a cut string, perhaps)
            start, pos = run.span("stop")
            if text[start] == "\n":
                depth = 0  # a fence line: the block, and any value in it, ends
                continue
        else:
            found = PROSE_NEXT.search(text, pos)
            if found is None:
                return
            start, pos = found.span()
        char = text[start]
        if pos - start == 1:
            if depth == 0:
                if (end := _clean_end(text, start)) is not None:
                    pos = end  # a clean value in prose: no token inside
                    continue
                misread.reset(pos)
            depth += 1 if char in "[{" else -1
            if depth == 0:
                misread.watch(pos)  # the rest of its line is asked too
            continue
        if (
            (depth or misread.watched(start))
            and not _ends_reply(text, start, pos)
            and (end := misread.string_end(start, pos)) is not None
        ):
            pos = end  # in a string a lost or extra quote hid: text
            continue
        if depth == 0 and glued_to_quote(text, start):
            continue  # a token quoted in prose is text
        if depth == 0 and strings.inside(start):
            continue  # inside a string on its line: ``print("<tool_call>…")``
        if quoted is not None and quoted.inside(start):
            continue  # quoted: a fence beside prose, a comment, ``> …``
        kind = _kind(text, start)
        if kind == "special":
            special.append((start, pos))
            continue
        reader = READERS.get(kind)
        found_call = None if reader is None else reader(text, start, pos)
        if found_call is None:
            markup.append((start, pos))
            continue
        if depth and (end := _call_in_string(text, misread, found_call)) is not None:
            pos = end  # the whole call in a string whose opening quote was lost
            continue
        calls.extend(MarkupCall(*call) for call in found_call.calls)
        markup.extend(found_call.blanks)
        pos = max(pos, found_call.end)
        strings.reset(pos)
        misread.reset(pos)
        if (body := _body_cut_by_token(text, found_call.calls, pos)) is not None:
            pos = body + 1  # read the body again: is that token in a string?
            depth = 1
            misread.reset(pos)
        if quoted is not None:
            quoted.reset(pos)


_Found = tuple[list[MarkupCall], list[tuple[int, int]], list[tuple[int, int]]]
"""Where the scan puts what it finds: calls, markup spans, special tokens."""


def _ends_reply(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is an end-of-sequence token that ends the reply.

    After a value cut (``{"a": "x"<|im_end|>``) it is blanked, whatever
    comes before it.
    """
    return _NON_SPACE.search(text, end) is None and _kind(text, start) == "special"


def _body_cut_by_token(text: str, calls: list[FoundCall], end: int) -> int | None:
    """The opener of the last call's JSON body, when a token right after ended it.

    A reader ends a body at the first token outside its strings; with a
    quote lost before it, that token may be inside a string
    (``[TOOL_CALLS]f[ARGS]{"b": "", a": "x <|eot_id|>"}``), which the scan
    then asks as it asks any token inside brackets.
    """
    after = _NON_SPACE.search(text, end) if calls else None
    at = -1 if after is None else after.start()
    token = None if at < 0 else PROSE_NEXT.match(text, at, at + _TOKEN_LIMIT)
    if token is None or token.end() - token.start() == 1:
        return None  # no token after it, or a bracket
    return _body_of(text, calls[-1], end)


def _body_of(text: str, call: FoundCall, end: int) -> int | None:
    """Where a call's JSON body opens, when its arguments are the text to ``end``."""
    body = end - len(call.arguments)
    if call.arguments[:1] not in ("{", "[") or not text.startswith(
        call.arguments, body
    ):
        return None
    return body


def _call_in_string(
    text: ScanText, misread: MisreadStrings, found: Found
) -> int | None:
    """Just after the quote that ends a string the call, read inside brackets, is in.

    A quote after the call, or after its body's first value, with no
    bracket, comma or colon between (``"a": a [TOOL_CALLS]f[ARGS]{}",``):
    the string's opening quote was lost, and the call is its text.
    """
    end = misread.quote_after(found.end)
    if end is not None or not found.calls:
        return end
    body = _body_of(text, found.calls[-1], found.end)
    value_end = None if body is None else _clean_end(text, body)
    return None if value_end is None else misread.quote_after(value_end)


def _clean_end(text: ScanText, start: int) -> int | None:
    """Where the clean JSON value at ``start`` ends, if the budget allows."""
    if len(text) - start > text.budget:
        return None
    text.budget -= len(text) - start
    return find_clean_end(text, start, len(text))


def _kind(text: str, start: int) -> str:
    """The kind of the token at ``start``: a form's name, markup or special."""
    match = TOKEN_KIND.match(text, start)
    return "markup" if match is None or match.lastgroup is None else match.lastgroup
