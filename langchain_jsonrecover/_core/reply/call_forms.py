"""The readers of tool-call markup, one per form, and key/value arguments built as JSON.

Pure functions on ``str``; no LangChain imports.

Each reader takes the reply, where its opening token starts and where it
ends, and returns the calls it read, the spans to blank and where reading
stopped (:class:`~langchain_jsonrecover._core.reply.call_json.Found`), or ``None`` when
the token opens no call. :data:`READERS` maps each opening token's name (see
:mod:`~langchain_jsonrecover._core.reply.markup_tokens`) to its reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import orjson

from langchain_jsonrecover._core.reply.call_json import (
    CLOSERS,
    Found,
    FoundCall,
    ScanText,
    match_head,
    next_token,
    read_json_call,
    skip_space,
)
from langchain_jsonrecover._core.reply.markup_tokens import spell_deepseek

_NAME_LIMIT: Final = 100
_TAG_LIMIT: Final = 32
"""The longest tag a key/value call writes (``</minimax:tool_call>``)."""
MARKUP_IN_KEY: Final = "a key that holds markup"
"""The ``extra`` of a GLM call one of whose keys holds markup."""
UNCLOSED_PARAMETER: Final = "a parameter opened inside another's value"
"""The ``extra`` of a key/value call one of whose values another parameter's
tag ended, although the call closes its values: two readings."""


def _opens_json(text: str, pos: int) -> bool:
    """Whether a bracket opens the body at ``pos`` (after any spaces)."""
    begin = skip_space(text, pos)
    return begin < len(text) and text[begin] in "[{"


def _read_tool_call(text: ScanText, start: int, after: int) -> Found | None:
    """``<tool_call>``: a JSON envelope, a GLM call, or Qwen's ``<function=``."""
    begin = skip_space(text, after)
    if text.startswith("<function=", begin):
        return Found([], [(start, after)], after)  # the scan reads the function
    if _opens_json(text, begin):
        return read_json_call(text, start, after, "tool_call", None)
    return _read_glm(text, start, after)


# A tool name: word characters and dashes, dots only between them.
_GLM_HEAD: Final = re.compile(
    r"([A-Za-z_][\w\-]{0,99}(?:\.[\w\-]{1,99}){0,4})[ \t]{0,64}+(?:\r?\n)?+"
)
_GLM_KEY: Final = re.compile(r"\s*+<arg_key>")
_GLM_VALUE: Final = re.compile(r"\s*+<arg_value>")


def _read_glm(text: ScanText, start: int, after: int) -> Found | None:
    """``<tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>``."""
    head = match_head(_GLM_HEAD, text, after)
    if head is None:
        return None
    read = _glm_pairs(text, head.end())
    name = head.group(1)
    if read.cut_at_end:
        return _key_value_call(
            name, read.pairs, read.cut, (start, len(text)), closed=False
        )
    close = match_head(CLOSERS["tool_call"], text, read.end)
    if close is not None:
        return _key_value_call(
            name, read.pairs, None, (start, close.end()), closed=True, extra=read.extra
        )
    at_end = skip_space(text, read.end) >= len(text) or _cut_in_a_tag(text, read.end)
    if not read.pairs and not at_end:
        return None  # ``<tool_call>`` then prose: not a call
    span = (start, read.end)
    return _key_value_call(
        name, read.pairs, None, span, closed=not at_end, extra=read.extra
    )


def _cut_in_a_tag(text: str, pos: int) -> bool:
    """Whether the reply ends inside an opening tag at ``pos`` (``<arg_k``).

    A call whose values end there was cut: its next parameter may have been
    being written. Inside a closing tag (``</tool_ca``), its values are all
    there, as when the reply ends after its last value.
    """
    begin = skip_space(text, pos)
    if len(text) - begin > _TAG_LIMIT:
        return False
    rest = text[begin:]
    return rest[:1] == "<" and rest[1:2] != "/" and ">" not in rest


def _read_arg_key(text: ScanText, start: int, after: int) -> Found | None:
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
    close = match_head(CLOSERS["tool_call"], text, read.end)
    end = read.end if close is None else close.end()
    closed = close is not None or not _cut_in_a_tag(text, read.end)
    return _key_value_call(
        name, read.pairs, None, (name_start, end), closed=closed, extra=read.extra
    )


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
    extra: tuple[str, ...] = ()
    """:data:`MARKUP_IN_KEY` when a key holds markup (its ``</arg_key>`` was
    lost, and the key ran over values or calls)."""


def _glm_pairs(text: str, pos: int) -> _Pairs:
    """Read ``<arg_key>k</arg_key><arg_value>v</arg_value>`` pairs from ``pos``.

    A missing ``<arg_value>`` is tolerated when ``</arg_value>`` ends the
    value: it then starts just after ``</arg_key>``.
    """
    pairs: list[tuple[str, str]] = []
    while (key := match_head(_GLM_KEY, text, pos)) is not None:
        key_end = text.find("</arg_key>", key.end())
        if key_end < 0:
            return _Pairs(pairs, len(text), cut_at_end=True)
        after_key = key_end + len("</arg_key>")
        value = match_head(_GLM_VALUE, text, after_key)
        value_start = after_key if value is None else value.end()
        value_end = text.find("</arg_value>", value_start)
        if value_end < 0:
            cut = (
                None
                if value is None
                else (text[key.end() : key_end], text[value_start:])
            )
            return _Pairs(pairs, len(text), cut_at_end=True, cut=cut)
        name = text[key.end() : key_end]
        pairs.append((name, text[value_start:value_end]))
        pos = value_end + len("</arg_value>")
        if "<" in name:
            return _Pairs(pairs, pos, extra=(MARKUP_IN_KEY,))
    return _Pairs(pairs, pos)


def _key_value_call(
    name: str,
    pairs: list[tuple[str, str]],
    cut: tuple[str, str] | None,
    span: tuple[int, int],
    *,
    closed: bool,
    extra: tuple[str, ...] = (),
) -> Found:
    start, end = span
    call = FoundCall(name, _build_arguments(pairs, cut), start, end, closed, extra)
    return Found([call], [(start, end)], end)


def _build_arguments(pairs: list[tuple[str, str]], cut: tuple[str, str] | None) -> str:
    """The JSON text of key/value arguments: JSON values stay, others are strings."""
    members = [f"{_dumps(key.strip())}: {_value_text(value)}" for key, value in pairs]
    if cut is None:
        return "{" + ", ".join(members) + "}"
    key, value = cut
    members.append(f"{_dumps(key.strip())}: {_dumps(_trim_value(value))[:-1]}")
    return "{" + ", ".join(members)


def _value_text(value: str) -> str:
    """A value's JSON: numbers, literals, objects and arrays stay; text is a string.

    The templates write a string value as it is, without quotes, so a value
    in quotes (``"x"``) is text that holds quotes, not the string ``x``.
    """
    stripped = value.strip()
    if stripped and not stripped.startswith('"'):
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


_FUNCTION_HEAD: Final = re.compile(r"([^>\s]{1,200})>")


def _read_function(text: ScanText, start: int, after: int) -> Found | None:
    """``<function=name>{…}</function>`` or Qwen's ``<parameter=k>v</parameter>``."""
    head = match_head(_FUNCTION_HEAD, text, after)
    if head is None:
        return None
    name, pos = head.group(1), head.end()
    if _opens_json(text, pos):
        found = read_json_call(text, start, pos, "function", name)
        if found is not None:
            return found
    found = _read_parameters(text, start, pos, name, _QWEN_XML)
    return found if found is not None else _unread_body(text, start, pos, name)


def _unread_body(text: ScanText, start: int, pos: int, name: str) -> Found | None:
    """``<function=name>``, text that is neither JSON nor parameters, ``</function>``.

    A call whose arguments do not read (``"a": 1}``, its ``{`` lost): kept
    as a call, to be withheld with feedback, not dropped beside the others.
    """
    stop = next_token(text, pos)
    close = match_head(CLOSERS["function"], text, stop)
    if close is None:
        return None
    call = FoundCall(name, text[pos:stop].strip(), start, close.end(), closed=True)
    return Found([call], [(start, close.end())], close.end())


_INVOKE_HEAD: Final = re.compile(r'"([^"\n]{1,200})"[ \t]{0,8}>')


def _read_invoke(text: ScanText, start: int, after: int) -> Found | None:
    """``<invoke name="x"><parameter name="k">v</parameter></invoke>``.

    Written by MiniMax M2, and in Claude's former XML tool format.
    """
    head = match_head(_INVOKE_HEAD, text, after)
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
    text: ScanText, start: int, pos: int, name: str, form: _XmlForm
) -> Found | None:
    """Read ``parameter`` tags up to the call's closing tag: a key/value call."""
    pairs: list[tuple[str, str]] = []
    closed_by_tag = ended_by_next = False
    while (parameter := match_head(form.parameter, text, pos)) is not None:
        stop = form.value_end.search(text, parameter.end())
        if stop is None:
            cut = (parameter.group(1), text[parameter.end() :])
            return _key_value_call(name, pairs, cut, (start, len(text)), closed=False)
        pos = stop.end() if stop.group("close") else stop.start()
        closed_by_tag = closed_by_tag or bool(stop.group("close"))
        ended_by_next = ended_by_next or form.parameter.match(text, pos) is not None
        pairs.append((parameter.group(1), text[parameter.end() : stop.start()]))
    # A value ended by the next parameter's tag, in a call that closes its
    # values: that tag may be the value's text (``<parameter=to>a<parameter=x``).
    extra = (UNCLOSED_PARAMETER,) if closed_by_tag and ended_by_next else ()
    end = skip_space(text, pos)
    if text.startswith(form.closers[0], end):
        end += len(form.closers[0])
        for wrapper in form.closers[1:]:
            after_wrapper = skip_space(text, end)
            if text.startswith(wrapper, after_wrapper):
                end = after_wrapper + len(wrapper)
        return _key_value_call(
            name, pairs, None, (start, end), closed=True, extra=extra
        )
    at_end = end >= len(text) or _cut_in_a_tag(text, end)
    if not pairs and not at_end:
        return None
    return _key_value_call(
        name, pairs, None, (start, pos), closed=not at_end, extra=extra
    )


# Mistral v11+: ``name[CALL_ID]id[ARGS]{…}`` or ``name[ARGS]{…}`` or ``name{…}``.
_MISTRAL_NAMED: Final = re.compile(
    r"\s*+([A-Za-z_][\w.\-]{0,199})(?:\[CALL_ID\][\w\-]{0,64})?+(?:\[ARGS\])?+"
)


def _read_mistral(text: ScanText, start: int, after: int) -> Found | None:
    """``[TOOL_CALLS][{…}]``, ``[TOOL_CALLS]name[ARGS]{…}``, ``[TOOL_CALLS]name{…}``."""
    if _opens_json(text, after):
        return read_json_call(text, start, after, None, None)
    named = match_head(_MISTRAL_NAMED, text, after)
    if named is None:
        return None
    return read_json_call(text, start, named.end(), None, named.group(1))


def _read_python_tag(text: ScanText, start: int, after: int) -> Found | None:
    """``<|python_tag|>{"name": …, "parameters": …}`` (``;`` between calls)."""
    found = read_json_call(text, start, after, None, None)
    if found is None:
        return None
    calls = list(found.calls)
    blanks = list(found.blanks)
    end = found.end
    while True:
        sep = skip_space(text, end)
        if sep >= len(text) or text[sep] != ";":
            break
        more = read_json_call(text, start, sep + 1, None, None)
        if more is None:
            break
        calls.extend(more.calls)
        blanks.append((sep, sep + 1))
        blanks.extend(more.blanks[1:])
        end = more.end
    return Found(calls, blanks, end)


_NAME: Final = re.compile(r"[A-Za-z_][\w.\-:/]{0,199}")
_DS_HEAD: Final = re.compile(f"([^<\\n]{{0,200}}?){spell_deepseek('tool sep')}")
_DS_FENCE_OPEN: Final = re.compile(r"\s*+```[a-zA-Z]{0,10}[ \t]*+\r?\n")
_DS_FENCE_CLOSE: Final = re.compile(r"\s*+```")


def _read_deepseek(text: ScanText, start: int, after: int) -> Found | None:
    """DeepSeek's ``tool call begin`` token (spelt with full-width bars).

    V3: ``function``, ``tool sep``, the name, a fenced JSON block, ``tool call
    end``; V3.1: the name, ``tool sep``, the JSON arguments, ``tool call end``.
    """
    head = match_head(_DS_HEAD, text, after)
    if head is None:
        return None
    kind = head.group(1).strip()
    pos = head.end()
    name = kind
    if kind == "function":
        line = match_head(_NAME, text, skip_space(text, pos))
        if line is None:
            return None
        name, pos = line.group(0), line.end()
    fence = match_head(_DS_FENCE_OPEN, text, pos)
    found = read_json_call(text, start, fence.end() if fence else pos, None, name)
    if found is None:
        return None
    end = found.end
    blanks = [found.blanks[0]]
    if (
        fence is not None
        and (fence_close := match_head(_DS_FENCE_CLOSE, text, end)) is not None
    ):
        blanks.append((end, fence_close.end()))
        end = fence_close.end()
    close = match_head(CLOSERS["deepseek"], text, end)
    if close is not None:
        blanks.append((end, close.end()))
        end = close.end()
    calls = [c._replace(start=start, end=end) for c in found.calls]
    return Found(calls, blanks, end)


_KIMI_HEAD: Final = re.compile(r"([^<]{0,200}?)<\|tool_call_argument_begin\|>")


def _read_kimi(text: ScanText, start: int, after: int) -> Found | None:
    """``<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{…}``."""
    head = match_head(_KIMI_HEAD, text, after)
    if head is None:
        return None
    name = head.group(1).strip().removeprefix("functions.")
    name = re.sub(r":\d+$", "", name)
    return read_json_call(text, start, head.end(), "kimi", name)


def _read_granite(text: ScanText, start: int, after: int) -> Found | None:
    return read_json_call(text, start, after, None, None)


def _read_function_call(text: ScanText, start: int, after: int) -> Found | None:
    """``<function_call>{"name": …, "arguments": …}``.

    Written by Granite 20B FC; Glaive-style fine-tunes spell it ``<functioncall>``.
    """
    return read_json_call(text, start, after, "function_call", None)


def _read_cohere(text: ScanText, start: int, after: int) -> Found | None:
    return read_json_call(text, start, after, "cohere", None)


READERS: Final = {
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
