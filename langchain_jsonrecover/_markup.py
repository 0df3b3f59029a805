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
from typing import Any, Final, Self

import orjson

from langchain_jsonrecover._reasoning import (
    HarmonyMessage,
    blank,
    harmony_hidden,
    harmony_messages,
    think_spans,
)

# DeepSeek spells its tokens with a full-width bar and "▁" for spaces; some
# renderings use an ASCII bar.
_DS_BAR: Final = "[|\uff5c]"


def _ds(name: str) -> str:
    return f"<{_DS_BAR}{name.replace(' ', chr(0x2581))}{_DS_BAR}>"


# Tokens that open a tool call, by form.
_OPENERS: Final = {
    "tool_call": r"<tool_call>",
    "mistral": r"\[TOOL_CALLS\]",
    "python_tag": r"<\|python_tag\|>",
    "deepseek": _ds("tool call begin"),
    "kimi": r"<\|tool_call_begin\|>",
    "function": r"<function=",
    "granite": r"<\|tool_call\|>",
    "cohere": r"<\|START_ACTION\|>",
    "invoke": r"<invoke name=",
    "function_call": r"<function_?call>",
    "arg_key": r"<arg_key>",
}
# The rest of the tool-call markup: blanked where it stands.
_MARKUP_TOKENS: Final = (
    r"</tool_call>",
    r"\[ARGS\]",
    r"\[CALL_ID\]",
    r"</function>",
    _ds("tool calls begin"),
    _ds("tool calls end"),
    _ds("tool call end"),
    _ds("tool sep"),
    r"<\|tool_calls_section_begin\|>",
    r"<\|tool_calls_section_end\|>",
    r"<\|tool_call_argument_begin\|>",
    r"<\|tool_call_end\|>",
    r"<\|END_ACTION\|>",
    r"</invoke>",
    r"<minimax:tool_call>",
    r"</minimax:tool_call>",
    r"<function_calls>",
    r"</function_calls>",
    r"</function_?call>",
)
# Chat-template and end-of-sequence tokens (and harmony's): blanked.
_SPECIAL_TOKENS: Final = (
    (
        r"<\|(?:eot_id|eom_id|im_end|endoftext|end_of_text|begin_of_text|end"
        r"|call|return|message|constrain|END_OF_TURN_TOKEN)\|>"
    ),
    r"<\|im_start\|>(?:assistant|system|user|tool)?",
    (
        r"<\|start_header_id\|>(?:assistant|system|user|ipython|tool)?"
        r"(?:<\|end_header_id\|>)?"
    ),
    r"<\|end_header_id\|>",
    r"<\|start\|>(?:assistant|user|system|developer)?",
    r"<\|channel\|>(?:final|analysis|commentary)?",
    r"</s>",
    r"<end_of_turn>",
    r"<start_of_turn>(?:model|user)?",
    _ds("end of sentence"),
    _ds("begin of sentence"),
)


def _alternation() -> str:
    named = "|".join(f"(?P<{name}>{token})" for name, token in _OPENERS.items())
    markup = "|".join(_MARKUP_TOKENS)
    special = "|".join(_SPECIAL_TOKENS)
    return f"{named}|(?P<markup>{markup})|(?P<special>{special})"


def _angle_tails() -> str:
    """What may follow ``<`` in a token, as one group.

    Closing tags (``</…``) are grouped apart, and the others sit behind a
    one-character lookahead, so an HTML tag in a reply fails at its second
    character instead of being tried against every token.
    """
    tokens = [*_OPENERS.values(), *_MARKUP_TOKENS, *_SPECIAL_TOKENS]
    tails = [t[1:] for t in tokens if t.startswith("<")]
    closing = "|".join(t[1:] for t in tails if t.startswith("/"))
    opening = [t for t in tails if not t.startswith("/")]
    firsts = set()
    for tail in opening:
        if tail.startswith("\\|"):
            firsts.add("|")
        elif tail.startswith(f"{_DS_BAR}"):
            firsts.update("|\uff5c")
        else:
            firsts.add(tail[0])
    lookahead = re.escape("".join(sorted(firsts)))
    return f"(?:/(?:{closing})|(?=[{lookahead}])(?:{'|'.join(opening)}))"


def _by_first_char() -> str:
    """Every token, grouped under its first character (``<`` or ``[``).

    A pattern whose alternatives all start with a literal character lets the
    regex engine skip to the next candidate character at C speed; the named
    alternation (:data:`_TOKEN_KIND`) is only matched where a token stands.
    """
    tokens = [*_OPENERS.values(), *_MARKUP_TOKENS, *_SPECIAL_TOKENS]
    square = "|".join(t[2:] for t in tokens if t.startswith("\\["))
    return f"<{_ANGLE_TAILS}|\\[(?:{square})"


_ANGLE_TAILS: Final = _angle_tails()
_TOKEN_KIND: Final = re.compile(_alternation())
_TOKEN: Final = _by_first_char()
_ANGLE_TOKEN: Final = re.compile(f"<{_ANGLE_TAILS}")
_STRING: Final = r'"(?:[^"\\]++|\\.)*+(?P<closed>")?'
# Inside brackets, from the current offset: a run of strings and other text,
# skipped in C, then the next bracket or token (or nothing, at the end).
# Anchored and possessive: it always matches, and never backtracks.
_JSON_RUN: Final = re.compile(
    f'(?:[^"<\\[\\]{{}}]++|{_STRING}|<(?!{_ANGLE_TAILS}))*+'
    f"(?P<stop>{_TOKEN}|[\\[\\]{{}}])?+",
    re.DOTALL,
)
# In prose: the next token, or the next bracket (then strings are tracked).
_PROSE_NEXT: Final = re.compile(f"{_TOKEN}|[\\[{{]")
# The offset of the next token outside strings (brackets are skipped too).
_TO_TOKEN: Final = re.compile(
    f'(?:[^"<\\[]++|{_STRING}|<(?!{_ANGLE_TAILS})|\\[(?!TOOL_CALLS\\]|ARGS\\]|CALL_ID\\]))*+',
    re.DOTALL,
)
_WINDOW: Final = 512
_NAME_LIMIT: Final = 100
_TRAILING: Final = "unexpected content after document"
_SPACE: Final = re.compile(r"\s*+")
_NON_SPACE: Final = re.compile(r"\S")
_NAME: Final = re.compile(r"[A-Za-z_][\w.\-:/]{0,199}")
_ENVELOPE_HEAD: Final = re.compile(
    r'\{\s*+(?:"type"\s*+:\s*+"function"\s*+,\s*+)?+"(?:name|tool_name)"\s*+:\s*+'
    r'"((?:[^"\\\n]|\\.){0,300})"\s*+,\s*+"(?:arguments|parameters)"\s*+:\s*+'
)
_NAME_KEYS: Final = ("name", "tool_name")
_ARGUMENT_KEYS: Final = ("arguments", "parameters")
# Mistral v11+: ``name[CALL_ID]id[ARGS]{…}`` or ``name[ARGS]{…}`` or ``name{…}``.
_MISTRAL_NAMED: Final = re.compile(
    r"\s*+([A-Za-z_][\w.\-]{0,199})(?:\[CALL_ID\][\w\-]{0,64})?+(?:\[ARGS\])?+"
)
# A tool name: word characters and dashes, dots only between them.
_GLM_HEAD: Final = re.compile(
    r"([A-Za-z_][\w\-]{0,99}(?:\.[\w\-]{1,99}){0,4})[ \t]{0,64}+(?:\r?\n)?+"
)
_GLM_KEY: Final = re.compile(r"\s*+<arg_key>")
_GLM_VALUE: Final = re.compile(r"\s*+<arg_value>")
_FUNCTION_HEAD: Final = re.compile(r"([^>\s]{1,200})>")
_INVOKE_HEAD: Final = re.compile(r'"([^"\n]{1,200})"[ \t]{0,8}>')
_DS_HEAD: Final = re.compile(f"([^<\\n]{{0,200}}?){_ds('tool sep')}")
_DS_FENCE_OPEN: Final = re.compile(r"\s*+```[a-zA-Z]{0,10}[ \t]*+\r?\n")
_DS_FENCE_CLOSE: Final = re.compile(r"\s*+```")
_KIMI_HEAD: Final = re.compile(r"([^<]{0,200}?)<\|tool_call_argument_begin\|>")
_CLOSERS: Final = {
    "tool_call": re.compile(r"\s*+</tool_call>"),
    "deepseek": re.compile(r"\s*+" + _ds("tool call end")),
    "kimi": re.compile(r"\s*+<\|tool_call_end\|>"),
    "cohere": re.compile(r"\s*+<\|END_ACTION\|>"),
    "function": re.compile(r"\s*+</function>"),
    "function_call": re.compile(r"\s*+</function_?call>"),
}


@dataclass(frozen=True, slots=True)
class MarkupCall:
    """One tool call written as markup in a reply's text.

    Example:
        >>> find_tool_calls('[TOOL_CALLS]search[ARGS]{"q": "x"}')[0]
        MarkupCall(name='search', arguments='{"q": "x"}', start=0, end=34, closed=True)
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


@dataclass(frozen=True, slots=True)
class Prepared:
    """A reply made ready for the JSON scan: reasoning and markup blanked.

    Example:
        >>> p = prepare_reply('<|python_tag|>{"a": 1}<|eot_id|>')
        >>> p.text.strip(), p.repairs
        ('{"a": 1}', ('tool_markup_stripped', 'special_tokens_stripped'))
    """

    text: str
    """The reply, same length: reasoning and markup replaced by spaces."""
    repairs: tuple[str, ...]
    """What was blanked: ``reasoning_skipped``, ``tool_markup_stripped``,
    ``special_tokens_stripped``."""
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
    return list(_read(text).calls)


def prepare_reply(text: str) -> Prepared:
    r"""Blank reasoning, tool-call markup and special tokens, keeping offsets.

    Rules:
    - reasoning as :func:`~langchain_jsonrecover._reasoning.mask_reasoning`
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
    if "<" not in text and "[TOOL_CALLS]" not in text:
        return Prepared(text, (), only_reasoning=False)
    read = _read(text)
    if not read.reasoning and not read.markup and not read.special:
        return Prepared(text, (), only_reasoning=False, tool_calls=read.calls)
    prepared = blank(read.masked, _merge([*read.markup, *read.special]))
    repairs = tuple(
        name
        for name, present in (
            ("reasoning_skipped", read.reasoning),
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


@dataclass(frozen=True, slots=True)
class _Found:
    calls: list[MarkupCall]
    blanks: list[tuple[int, int]]
    end: int


def _read(text: str) -> _Read:
    """Hide reasoning, then find calls, markup and special tokens."""
    if "<" not in text and "[TOOL_CALLS]" not in text:
        return _Read(text, reasoning=False)
    thinking = think_spans(text)
    unthought = blank(text, thinking)
    messages = harmony_messages(unthought)
    hidden = harmony_hidden(messages)
    masked = blank(unthought, hidden)
    calls: list[MarkupCall] = []
    markup: list[tuple[int, int]] = []
    special: list[tuple[int, int]] = []
    has_final = any(m.channel == "final" for m in messages)
    _read_harmony(unthought, messages, has_final, (calls, markup, special))
    harmony_reasoning = any(
        m.channel != "final" if has_final else m.is_reasoning for m in messages
    )
    if hidden and not harmony_reasoning:
        special.extend(hidden)  # only a final message's header and terminator
    if _may_hold_tokens(masked):
        _scan(_Text(masked), calls, markup, special)
    calls.sort(key=lambda c: c.start)
    reasoning = bool(thinking) or harmony_reasoning
    return _Read(masked, reasoning, tuple(calls), markup, special)


def _may_hold_tokens(text: str) -> bool:
    """A cheap test first: ``in`` is a C substring search, then one regex."""
    if "[TOOL_CALLS]" in text:
        return True
    return "<" in text and _ANGLE_TOKEN.search(text) is not None


def _read_harmony(
    text: str,
    messages: list[HarmonyMessage],
    has_final: bool,
    found: tuple[list[MarkupCall], list[tuple[int, int]], list[tuple[int, int]]],
) -> None:
    """Harmony tool calls (``to=functions.x``), and the visible headers to blank."""
    calls, markup, special = found
    for message in messages:
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


def _scan(
    text: _Text,
    calls: list[MarkupCall],
    markup: list[tuple[int, int]],
    special: list[tuple[int, int]],
) -> None:
    """Walk the tokens outside JSON strings, reading each call's form."""
    depth = 0
    pos = 0
    n = len(text)
    while pos < n:
        if depth:
            run = _JSON_RUN.match(text, pos)
            if run is None or run.start("stop") < 0:
                return  # the rest is inside the JSON (a cut string, perhaps)
            start, pos = run.span("stop")
        else:
            found = _PROSE_NEXT.search(text, pos)
            if found is None:
                return
            start, pos = found.span()
        char = text[start]
        if pos - start == 1:
            if depth == 0 and (end := _clean_end(text, start)) is not None:
                pos = end  # a clean value in prose: no token inside
                continue
            depth += 1 if char in "[{" else -1
            continue
        if depth == 0 and start > 0 and text[start - 1] in "\"'`":
            continue  # a token quoted in prose is text
        kind = _kind(text, start)
        if kind == "special":
            special.append((start, pos))
            continue
        reader = _READERS.get(kind)
        found_call = None if reader is None else reader(text, start, pos)
        if found_call is None:
            markup.append((start, pos))
            continue
        calls.extend(found_call.calls)
        markup.extend(found_call.blanks)
        pos = max(pos, found_call.end)


def _clean_end(text: _Text, start: int) -> int | None:
    """Where the clean JSON value at ``start`` ends, if the budget allows."""
    if len(text) - start > text.budget:
        return None
    text.budget -= len(text) - start
    return _decoded_end(text, start, len(text))


def _kind(text: str, start: int) -> str:
    """The kind of the token at ``start``: a form's name, markup or special."""
    match = _TOKEN_KIND.match(text, start)
    return "markup" if match is None or match.lastgroup is None else match.lastgroup


# --- JSON bodies ------------------------------------------------------------------


class _Text(str):  # noqa: SLOT000 - str subtypes cannot have non-empty __slots__
    """The reply being scanned, with what orjson may still be handed.

    orjson finds where a clean value ends at C speed, but each try copies the
    text from the opener on; the budget (twice the reply's length) keeps many
    tries in a row linear, after which brackets are counted in Python.
    """

    budget: int

    def __new__(cls, text: str) -> Self:
        made = super().__new__(cls, text)
        made.budget = 2 * len(text) + 1024
        return made


def _json_end(text: _Text, start: int, stop: int | None = None) -> int | None:
    """The end of the bracketed value at ``start``, or ``None`` if it is cut.

    A token outside strings, or ``stop``, also ends the search: the scan never
    reads past the next markup, so many cut bodies in a row stay linear.
    """
    limit = len(text) if stop is None else stop
    if limit - start <= text.budget:
        text.budget -= limit - start
        end = _decoded_end(text, start, limit)
        if end is not None:
            return end
    depth = 0
    pos = start
    while pos < limit:
        run = _JSON_RUN.match(text, pos, limit)
        if run is None or run.start("stop") < 0:
            return None
        begin, pos = run.span("stop")
        if pos - begin > 1:
            return None  # a token
        if text[begin] in "[{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return pos
    return None


def _decoded_end(text: str, start: int, limit: int) -> int | None:
    """Where a strictly valid JSON value at ``start`` ends, read by orjson."""
    try:
        orjson.loads(text[start:limit])
    except orjson.JSONDecodeError as exc:
        if not exc.msg.startswith(_TRAILING):
            return None
        end = start + exc.pos
    else:
        end = limit
    while text[end - 1].isspace():
        end -= 1
    return end


def _next_token(text: str, start: int) -> int:
    """The offset of the next token outside strings at or after ``start``."""
    run = _TO_TOKEN.match(text, start)
    return start if run is None else run.end()


def _body(text: _Text, start: int) -> tuple[int, int, bool] | None:
    """A JSON body from ``start`` (after spaces): its span, and whether it closed.

    A body that does not close runs to the next token outside strings, or to
    the reply's end (then it is cut). ``None`` when no bracket opens it.
    """
    begin = _skip_space(text, start)
    if begin >= len(text) or text[begin] not in "[{":
        return None
    end = _json_end(text, begin)
    if end is not None:
        return begin, end, True
    stop = _next_token(text, begin)
    end = max(begin, len(text[begin:stop].rstrip()) + begin)
    return begin, end, stop < len(text)


def _unpack(
    text: _Text, begin: int, end: int, closed: bool
) -> list[tuple[str, str, bool]]:
    """A body's calls: ``(name, arguments, closed)`` for each envelope."""
    if text[begin] == "[":
        items = _array_envelopes(text, begin, end)
        if items is not None:
            return items
    elif (one := _envelope(text, begin, end)) is not None:
        return [one]
    return [("", text[begin:end], closed)]


def _array_envelopes(
    text: _Text, begin: int, end: int
) -> list[tuple[str, str, bool]] | None:
    items: list[tuple[str, str, bool]] = []
    pos = _skip_space(text, begin + 1)
    while pos < end and text[pos] == "{":
        stop = _json_end(text, pos, end)
        one = _envelope(text, pos, end if stop is None else stop)
        if one is None:
            return None
        items.append(one)
        if stop is None:
            return items
        pos = _skip_space(text, stop)
        if pos < end and text[pos] == ",":
            pos = _skip_space(text, pos + 1)
        elif pos < end and text[pos] == "]":
            return items
    return items or None


def _envelope(text: _Text, begin: int, end: int) -> tuple[str, str, bool] | None:
    """``(name, arguments, closed)`` of a ``{"name": …, "arguments": …}`` object."""
    head = _ENVELOPE_HEAD.match(text, begin, end)
    if head is not None:
        name = _json_string(head.group(1))
        at = head.end()
        if at < end and text[at] in "[{":
            stop = _json_end(text, at, end)
            if stop is None:
                return name, text[at:end].rstrip(), False
            return name, text[at:stop], True
    try:
        value = orjson.loads(text[begin:end])
    except orjson.JSONDecodeError:
        return None
    return _decoded_envelope(value)


def _decoded_envelope(value: Any) -> tuple[str, str, bool] | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    key = next((k for k in _ARGUMENT_KEYS if k in value), None)
    if name is None or key is None:
        return None
    arguments = value[key]
    if isinstance(arguments, str):
        return name, arguments, True
    return name, orjson.dumps(arguments).decode(), True


def _json_string(raw: str) -> str:
    try:
        decoded = orjson.loads(f'"{raw}"')
    except orjson.JSONDecodeError:
        return raw
    return decoded if isinstance(decoded, str) else raw


def _json_form(
    text: _Text, start: int, after: int, closer: str | None, name: str | None
) -> _Found | None:
    """A call whose body is JSON: an envelope (``name`` None) or arguments."""
    body = _body(text, after)
    if body is None:
        return None
    begin, end, closed = body
    stop = end
    if closer is not None and (close := _head(_CLOSERS[closer], text, end)) is not None:
        stop = close.end()
        closed = True
    if name is None:
        found = _unpack(text, begin, end, closed)
    else:
        found = [(name, text[begin:end], closed)]
    calls = [MarkupCall(n, args, start, stop, done) for n, args, done in found]
    blanks = [(start, begin)]
    if stop > end:
        blanks.append((end, stop))
    return _Found(calls, blanks, stop)


# --- the forms --------------------------------------------------------------------


def _read_tool_call(text: _Text, start: int, after: int) -> _Found | None:
    """``<tool_call>``: a JSON envelope, a GLM call, or Qwen's ``<function=``."""
    begin = _skip_space(text, after)
    if text.startswith("<function=", begin):
        return _Found([], [(start, after)], after)  # the scan reads the function
    if begin < len(text) and text[begin] in "[{":
        return _json_form(text, start, after, "tool_call", None)
    return _read_glm(text, start, after)


def _read_glm(text: _Text, start: int, after: int) -> _Found | None:
    """``<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>``."""
    head = _head(_GLM_HEAD, text, after)
    if head is None:
        return None
    name = head.group(1)
    read = _glm_pairs(text, head.end())
    if read.cut_at_end:
        return _key_value_call(
            name, read.pairs, read.cut, (start, len(text)), closed=False
        )
    close = _head(_CLOSERS["tool_call"], text, read.end)
    if close is not None:
        return _key_value_call(
            name, read.pairs, None, (start, close.end()), closed=True
        )
    at_end = _skip_space(text, read.end) >= len(text)
    if not read.pairs and not at_end:
        return None  # ``<tool_call>`` then prose: not a call
    span = (start, read.end)
    return _key_value_call(name, read.pairs, None, span, closed=not at_end)


def _read_arg_key(text: _Text, start: int, after: int) -> _Found | None:
    """A GLM call whose ``<tool_call>`` the serving layer dropped: ``name<arg_key>…``.

    The name is the word just before the first ``<arg_key>``, at the start
    of the reply or of a line; without one the call names no tool.
    """
    del after
    name_start = start
    while (
        name_start > 0
        and start - name_start < _NAME_LIMIT
        and _is_name_char(text[name_start - 1])
    ):
        name_start -= 1
    if not _starts_line(text, name_start):
        name_start = start
    name = text[name_start:start]
    read = _glm_pairs(text, start)
    if read.cut_at_end:
        span = (name_start, len(text))
        return _key_value_call(name, read.pairs, read.cut, span, closed=False)
    if not read.pairs:
        return None
    close = _head(_CLOSERS["tool_call"], text, read.end)
    end = read.end if close is None else close.end()
    return _key_value_call(name, read.pairs, None, (name_start, end), closed=True)


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char in "_.-"


def _starts_line(text: str, index: int) -> bool:
    """Whether only spaces stand between ``index`` and its line's start."""
    i = index - 1
    while i >= 0 and index - i < _NAME_LIMIT and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in "\r\n>"


@dataclass(frozen=True, slots=True)
class _Pairs:
    pairs: list[tuple[str, str]]
    end: int
    """Where reading stopped (after the last pair)."""
    cut_at_end: bool = False
    """The reply ended inside a pair."""
    cut: tuple[str, str] | None = None
    """A key whose value the reply ended inside, and that value so far."""


def _glm_pairs(text: str, pos: int) -> _Pairs:
    """Read ``<arg_key>k</arg_key><arg_value>v</arg_value>`` pairs from ``pos``.

    A missing ``<arg_value>`` is tolerated when ``</arg_value>`` ends the
    value: it then starts just after ``</arg_key>``.
    """
    pairs: list[tuple[str, str]] = []
    while (key := _head(_GLM_KEY, text, pos)) is not None:
        key_end = text.find("</arg_key>", key.end())
        if key_end < 0:
            return _Pairs(pairs, len(text), cut_at_end=True)
        after_key = key_end + len("</arg_key>")
        value = _head(_GLM_VALUE, text, after_key)
        value_start = after_key if value is None else value.end()
        value_end = text.find("</arg_value>", value_start)
        if value_end < 0:
            cut = (
                None
                if value is None
                else (text[key.end() : key_end], text[value_start:])
            )
            return _Pairs(pairs, len(text), cut_at_end=True, cut=cut)
        pairs.append((text[key.end() : key_end], text[value_start:value_end]))
        pos = value_end + len("</arg_value>")
    return _Pairs(pairs, pos)


def _key_value_call(
    name: str,
    pairs: list[tuple[str, str]],
    cut: tuple[str, str] | None,
    span: tuple[int, int],
    *,
    closed: bool,
) -> _Found:
    start, end = span
    call = MarkupCall(name, _build_arguments(pairs, cut), start, end, closed)
    return _Found([call], [(start, end)], end)


def _build_arguments(pairs: list[tuple[str, str]], cut: tuple[str, str] | None) -> str:
    """The JSON text of key/value arguments: JSON values stay, others are strings."""
    members = [f"{_dumps(key.strip())}: {_value_text(value)}" for key, value in pairs]
    if cut is None:
        return "{" + ", ".join(members) + "}"
    key, value = cut
    members.append(f"{_dumps(key.strip())}: {_dumps(_trim_value(value))[:-1]}")
    return "{" + ", ".join(members)


def _value_text(value: str) -> str:
    stripped = value.strip()
    if stripped:
        try:
            orjson.loads(stripped)
        except orjson.JSONDecodeError:
            pass
        else:
            return stripped
    return _dumps(_trim_value(value))


def _trim_value(value: str) -> str:
    """Drop the layout the templates put around a value, not its content.

    A value that starts on the tag's line loses the spaces before it; one
    that starts on the next line loses that newline only (its indentation is
    content, as in code). One trailing newline, and the spaces after it, go.
    """
    if value.startswith(("\n", "\r\n")):
        value = value.removeprefix("\r").removeprefix("\n")
    else:
        value = value.lstrip(" \t")
    stripped = value.rstrip(" \t")
    if stripped.endswith("\n"):
        return stripped.removesuffix("\n").removesuffix("\r")
    return value if stripped == value else stripped


def _dumps(value: str) -> str:
    return orjson.dumps(value).decode()


def _read_function(text: _Text, start: int, after: int) -> _Found | None:
    """``<function=name>{…}</function>`` or Qwen's ``<parameter=k>v</parameter>``."""
    head = _head(_FUNCTION_HEAD, text, after)
    if head is None:
        return None
    name = head.group(1)
    begin = _skip_space(text, head.end())
    if begin < len(text) and text[begin] in "[{":
        found = _json_form(text, start, head.end(), "function", name)
        if found is not None:
            return found
    return _read_parameters(text, start, head.end(), name, _QWEN_XML)


def _read_invoke(text: _Text, start: int, after: int) -> _Found | None:
    """``<invoke name="x"><parameter name="k">v</parameter></invoke>``.

    Written by MiniMax M2, and in Claude's former XML tool format.
    """
    head = _head(_INVOKE_HEAD, text, after)
    if head is None:
        return None
    return _read_parameters(text, start, head.end(), head.group(1), _INVOKE_XML)


@dataclass(frozen=True, slots=True)
class _XmlForm:
    """A key/value call form: how a parameter opens, what ends a value."""

    parameter: re.Pattern[str]
    """A parameter's opening tag; group 1 is its name."""
    value_end: re.Pattern[str]
    """What ends a value: its closing tag (group ``close``), the next
    parameter, or the end of the call (both left for the next step)."""
    closers: tuple[str, ...]
    """The call's closing tag, then an optional wrapper's."""


_QWEN_XML: Final = _XmlForm(
    re.compile(r"<parameter=([^>\n]{1,200})>"),
    re.compile(r"(?P<close></parameter>)|<parameter=|</function>|</tool_call>"),
    ("</function>", "</tool_call>"),
)
_INVOKE_XML: Final = _XmlForm(
    re.compile(r'<parameter name="([^"\n]{1,200})">'),
    re.compile(
        r"(?P<close></parameter>)|<parameter name=|</invoke>"
        r"|</minimax:tool_call>|</function_calls>"
    ),
    ("</invoke>",),
)


def _read_parameters(
    text: _Text, start: int, pos: int, name: str, form: _XmlForm
) -> _Found | None:
    """Read ``parameter`` tags up to the call's closing tag: a key/value call."""
    pairs: list[tuple[str, str]] = []
    while (parameter := _head(form.parameter, text, pos)) is not None:
        stop = form.value_end.search(text, parameter.end())
        if stop is None:
            cut = (parameter.group(1), text[parameter.end() :])
            return _key_value_call(name, pairs, cut, (start, len(text)), closed=False)
        pos = stop.end() if stop.group("close") else stop.start()
        pairs.append((parameter.group(1), text[parameter.end() : stop.start()]))
    end = _skip_space(text, pos)
    if text.startswith(form.closers[0], end):
        end += len(form.closers[0])
        for wrapper in form.closers[1:]:
            after_wrapper = _skip_space(text, end)
            if text.startswith(wrapper, after_wrapper):
                end = after_wrapper + len(wrapper)
        return _key_value_call(name, pairs, None, (start, end), closed=True)
    at_end = end >= len(text)
    if not pairs and not at_end:
        return None
    return _key_value_call(name, pairs, None, (start, pos), closed=not at_end)


def _read_mistral(text: _Text, start: int, after: int) -> _Found | None:
    """``[TOOL_CALLS][{…}]``, ``[TOOL_CALLS]name[ARGS]{…}``, ``[TOOL_CALLS]name{…}``."""
    begin = _skip_space(text, after)
    if begin < len(text) and text[begin] in "[{":
        return _json_form(text, start, after, None, None)
    named = _head(_MISTRAL_NAMED, text, after)
    if named is None:
        return None
    return _json_form(text, start, named.end(), None, named.group(1))


def _read_python_tag(text: _Text, start: int, after: int) -> _Found | None:
    """``<|python_tag|>{"name": …, "parameters": …}`` (``;`` between calls)."""
    found = _json_form(text, start, after, None, None)
    if found is None:
        return None
    calls = list(found.calls)
    blanks = list(found.blanks)
    end = found.end
    while True:
        sep = _skip_space(text, end)
        if sep >= len(text) or text[sep] != ";":
            break
        more = _json_form(text, start, sep + 1, None, None)
        if more is None:
            break
        calls.extend(more.calls)
        blanks.append((sep, sep + 1))
        blanks.extend(more.blanks[1:])
        end = more.end
    return _Found(calls, blanks, end)


def _read_deepseek(text: _Text, start: int, after: int) -> _Found | None:
    """DeepSeek's ``tool call begin`` token (spelt with full-width bars).

    V3: ``function``, ``tool sep``, the name, a fenced JSON block, ``tool call
    end``; V3.1: the name, ``tool sep``, the JSON arguments, ``tool call end``.
    """
    head = _head(_DS_HEAD, text, after)
    if head is None:
        return None
    kind = head.group(1).strip()
    pos = head.end()
    name = kind
    if kind == "function":
        line = _head(_NAME, text, _skip_space(text, pos))
        if line is None:
            return None
        name, pos = line.group(0), line.end()
    fence = _head(_DS_FENCE_OPEN, text, pos)
    found = _json_form(text, start, fence.end() if fence else pos, None, name)
    if found is None:
        return None
    end = found.end
    blanks = [found.blanks[0]]
    if (
        fence is not None
        and (fence_close := _head(_DS_FENCE_CLOSE, text, end)) is not None
    ):
        blanks.append((end, fence_close.end()))
        end = fence_close.end()
    close = _head(_CLOSERS["deepseek"], text, end)
    if close is not None:
        blanks.append((end, close.end()))
        end = close.end()
    calls = [MarkupCall(c.name, c.arguments, start, end, c.closed) for c in found.calls]
    return _Found(calls, blanks, end)


def _read_kimi(text: _Text, start: int, after: int) -> _Found | None:
    """``<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}``."""
    head = _head(_KIMI_HEAD, text, after)
    if head is None:
        return None
    name = head.group(1).strip().removeprefix("functions.")
    name = re.sub(r":\d+$", "", name)
    return _json_form(text, start, head.end(), "kimi", name)


def _read_granite(text: _Text, start: int, after: int) -> _Found | None:
    return _json_form(text, start, after, None, None)


def _read_function_call(text: _Text, start: int, after: int) -> _Found | None:
    """``<function_call>{"name": …, "arguments": …}``.

    Written by Granite 20B FC; Glaive-style fine-tunes spell it ``<functioncall>``.
    """
    return _json_form(text, start, after, "function_call", None)


def _read_cohere(text: _Text, start: int, after: int) -> _Found | None:
    return _json_form(text, start, after, "cohere", None)


_READERS: Final = {
    "tool_call": _read_tool_call,
    "mistral": _read_mistral,
    "python_tag": _read_python_tag,
    "deepseek": _read_deepseek,
    "kimi": _read_kimi,
    "function": _read_function,
    "granite": _read_granite,
    "cohere": _read_cohere,
    "invoke": _read_invoke,
    "function_call": _read_function_call,
    "arg_key": _read_arg_key,
}


def _head(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """Match a bounded piece of markup at ``pos``, after any spaces.

    Every such pattern reads at most a few hundred characters, so the match
    is given a window of that size: a miss costs little, however long the
    reply.
    """
    start = _skip_space(text, pos)
    return pattern.match(text, start, start + _WINDOW)


def _skip_space(text: str, pos: int) -> int:
    """The offset of the first non-space character at or after ``pos``."""
    space = _SPACE.match(text, pos)
    return pos if space is None else space.end()


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
