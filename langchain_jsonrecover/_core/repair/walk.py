"""The repair pass: one linear walk of a candidate, one step per token, by state.

Each step first lets the hot path take a run of strict JSON whole (one
compiled match, see ``_repair_tokens``), then reads one token in the way its
:class:`State` wants: a key, a colon, a value, or what follows a value.
Strings and closing brackets have their own modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.decode.tolerant import DECODER_DEPTH
from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.ahead import (
    Where,
    find_unopened_value_end,
    lacks_comma,
    starts_key_or_item,
)
from langchain_jsonrecover._core.repair.brackets import (
    array_may_close,
    close_containers,
)
from langchain_jsonrecover._core.repair.punctuation import (
    take_after_value,
    take_at_colon,
    take_stray,
)
from langchain_jsonrecover._core.repair.state import (
    Pass,
    Rewritten,
    State,
)
from langchain_jsonrecover._core.repair.strings import (
    CUT,
    QUOTE_REPAIRS,
    WRONG,
    json_string,
    write_comma_and_key,
    write_escaped_string,
    write_single_quoted_key,
    write_string,
    write_triple_quoted,
)
from langchain_jsonrecover._core.repair.tokens import (
    NUMBER_START,
    match_end,
    take_items,
    take_key_colon,
    take_members,
)

if TYPE_CHECKING:
    from collections.abc import Callable

# Reading an enum's member as a class attribute costs about ten reads of a
# global (CPython 3.11): the steps read the states from module constants.
_KEY_FIRST, _KEY, _COLON, _MEMBER, _ITEM_FIRST, _ITEM, _AFTER = State
_IN_KEY, _IN_OBJECT, _IN_ARRAY = Where
_PYTHON: Final = {"True": "true", "False": "false", "None": "null"}
DEEPEST: Final = DECODER_DEPTH
"""The deepest nesting the pass opens: a repaired text deeper than the decoder
reads would fail as too deep anyway, and a run of 1 MB of ``[`` is refused
before a mark is made per bracket."""
_PREFIXES: Final = frozenset(
    name[:i]
    for name in ("true", "false", "null", "True", "False", "None")
    for i in range(1, len(name))
)


def rewrite(
    text: str, repairs: dict[str, None], *, inner_quotes: bool = False
) -> Rewritten | None:
    """Run the pass on ``text``, which starts with ``{`` or ``[``.

    The repairs it makes are added to ``repairs``, in order. With
    ``inner_quotes``, every quote the quote rule does not close is text.

    Returns:
        The strict text, whether the input ran out inside the value (the text
        is then a prefix, no closer added), and where the value stopped; or
        ``None`` when the text cannot be repaired without a guess.

    Example:
        >>> repairs = {}
        >>> rewrite("[1, 2,] and more", repairs), repairs
        (('[1, 2]', False, 7), {'trailing_comma_removed': None})
        >>> rewrite('{"a": [1, tru', {})
        ('{"a": [1, ', True, 13)
    """
    return _walk(Pass.start(text, repairs, inner_quotes=inner_quotes))


def rewrite_within(
    text: str, start: int, outer: str, repairs: dict[str, None]
) -> Rewritten | None:
    """The pass over all of ``text``, from the object at ``start`` until it closes.

    What :func:`rewrite` writes for that object, when the text before it is
    strict JSON with the containers ``outer`` open (see :meth:`Pass.resume`).

    Returns:
        The object's strict text, whether the input ran out inside it, and
        the offset in ``text`` after it; or ``None`` when the pass refuses
        the object, or closes a container below it with it.

    Example:
        >>> rewrite_within('[1, {"a": [1, 2 "b": 3}, 4]', 4, "[", {})
        ('{"a": [1, 2], "b": 3}', False, 23)
    """
    if len(outer) >= DEEPEST:
        return None  # the pass refuses the object's opener
    p = Pass.resume(text, start, outer, repairs)
    found = _walk(p)
    if found is None or (not found[1] and len(p.stack) != p.floor):
        return None
    return found


def _walk(p: Pass) -> Rewritten | None:
    """Step the pass until it stops: what it wrote, or ``None`` (refused)."""
    text = p.text
    steps, out, stack = _STEPS, p.out, p.stack
    n = len(text)
    while True:
        # The hot path: a match or two take a run of strict JSON.
        pos, state = p.pos, p.state
        if stack[-1] == "{":
            if state <= _KEY:
                end = take_key_colon(text, pos)
                if end > pos:
                    out.append(text[pos:end])
                    pos = end
                    state = _MEMBER
                elif pos < n and text[pos] in "' \t\r\n":
                    end = write_single_quoted_key(p, pos)
                    if end > pos:
                        pos = end
                        state = _MEMBER
            while state in (_MEMBER, _AFTER):
                end = take_members(text, pos)
                if end > pos:
                    p.note_containers(pos, end)
                    out.append(text[pos:end])
                    pos = end
                    state = _MEMBER if text[end - 1] == ":" else _AFTER
                # A comma and a single-quoted key go on with the run.
                if state != _AFTER or p.ticks:
                    break
                end = write_comma_and_key(p, pos)
                if end == pos:
                    break
                pos = end
                state = _MEMBER
        else:
            end = take_items(text, pos)
            if end > pos:
                p.note_containers(pos, end)
                if text[end - 1] == ",":
                    out.append(text[pos : end - 1])
                    p.comma_at = len(out)
                    out.append(",")
                    state = _ITEM
                else:
                    out.append(text[pos:end])
                    state = _AFTER
                pos = end

        # The careful path: one token, read by the step of the state.
        p.value_end, p.gap_at = pos, len(out)
        end = match_end(tok.SPACE, text, pos)
        if end > pos:
            out.append(text[pos:end])
            pos = end
        p.pos, p.state = pos, state
        if pos < n and text[pos] in "/#\\\xa0":
            if not _skip_gap(p, state):
                return p.result
            pos = p.pos
        if pos >= n:
            p.cut()
            return p.result
        if not steps[state](p, text[pos]):
            return p.result


def _skip_gap(p: Pass, state: State) -> bool:
    r"""Skip spaces (kept), comments and literal ``\n`` pairs (dropped).

    ``//`` and ``#`` comments are not looked for where a member's value is
    due: there, ``#fff`` or ``//host`` is an unquoted value, not a comment;
    nor a ``#`` glued to a letter or digit where an array's item is due
    (``[#fff, #000]``: values, where ``[# note`` is a comment). A ``/*`` that
    is never closed, with more JSON after it, would take that JSON away:
    refused (``False``).
    """
    text, repairs = p.text, p.repairs
    n = len(text)
    slashes = state != _MEMBER
    hashes = slashes and state not in {_ITEM_FIRST, _ITEM}  # else only "# note"
    while True:
        p.take(tok.SPACE)
        pos = p.pos
        if pos >= n:
            return True
        char = text[pos]
        nxt = text[pos + 1 : pos + 2]
        if char == "/" and nxt == "*":
            end = text.find("*/", pos + 2)
            if end < 0 and tok.ANY_STRUCTURE.search(text, pos + 2) is not None:
                return p.refuse()
            p.pos = n if end < 0 else end + 2
            repairs["comment_removed"] = None
        elif (char == "#" and (hashes or (slashes and not nxt.isalnum()))) or (
            char == "/" and nxt == "/" and slashes
        ):
            end = text.find("\n", pos)
            p.pos = n if end < 0 else end
            repairs["comment_removed"] = None
        elif char == "\\" and nxt in {"n", "r", "t"}:
            p.pos += 2
            repairs["literal_newlines_removed"] = None
        elif char == "\xa0":
            # A no-break space between tokens: a space to a reader, not to JSON.
            p.pos += 1
            repairs["no_break_space_removed"] = None
        else:
            return True


# --- one step per state: each reads the token at ``p.pos`` (its first
# character is ``char``) and says whether the pass goes on ---------------------


def _read_first_key(p: Pass, char: str) -> bool:
    """After ``{``: a key, the object's end, or a stray comma before the first key."""
    if char == ":":
        return take_stray(p, char) or p.refuse()
    return _read_first_closer(p, char) if char in ",}]" else _read_key(p, char)


def _read_next_key(p: Pass, char: str) -> bool:
    """After a comma in an object: a key, or the object's end (the comma trailing)."""
    if char in ",:":
        return take_stray(p, char) or p.refuse()
    return _end_container(p, empty=False) if char in "}]" else _read_key(p, char)


def _read_colon(p: Pass, char: str) -> bool:
    """After a key: its colon."""
    if char != ":":
        return take_at_colon(p, char) or p.refuse()
    p.out.append(":")
    p.pos += 1
    p.state = _MEMBER
    return True


def _read_first_item(p: Pass, char: str) -> bool:
    """After ``[``: an item, the array's end, or a stray comma before the first item."""
    return _read_first_closer(p, char) if char in ",}]" else _read_value(p, char)


def _read_next_item(p: Pass, char: str) -> bool:
    """After a comma in an array: an item, or the array's end (the comma trailing)."""
    return _end_container(p, empty=False) if char in "}]" else _read_value(p, char)


def _read_after_value(p: Pass, char: str) -> bool:
    """After a value: a comma, a closing bracket, a backtick due, or a lost comma."""
    if p.ticks and len(p.stack) < p.ticks[-1]:
        if char != "`":
            return p.refuse()
        p.ticks.pop()
        p.pos += 1
        return True
    in_object = p.stack[-1] == "{"
    if char == ",":
        p.comma_at = len(p.out)
        p.out.append(",")
        p.pos += 1
    elif char in "}]":
        if not close_containers(p, empty=False):
            return p.refuse()
        return len(p.stack) > p.floor or p.finish()
    elif lacks_comma(p.text, p.value_end, p.pos, in_object=in_object):
        # Right after the value, before the spaces that follow it.
        p.comma_at = p.gap_at
        p.out.insert(p.gap_at, ",")
        p.repairs["comma_inserted"] = None
    else:
        return take_after_value(p, char) or p.refuse()
    p.state = _KEY if in_object else _ITEM
    return True


# --- what the steps share ----------------------------------------------------------


def _read_first_closer(p: Pass, char: str) -> bool:
    """A comma or a closing bracket right after an opening one."""
    if char == ",":
        return _drop_leading_comma(p)
    return _end_container(p, empty=True)


def _drop_leading_comma(p: Pass) -> bool:
    r"""Drop a comma before the first key or item, when one follows it.

    ``[\n,{...}]``; ``{,}`` and ``[,,1]`` stay refused.
    """
    after = match_end(tok.LOOK_GAP, p.text, p.pos + 1)
    in_object = p.stack[-1] == "{"
    if after >= len(p.text) or not starts_key_or_item(
        p.text, after, in_object=in_object
    ):
        return p.refuse()
    p.repairs["leading_comma_removed"] = None
    p.pos += 1
    return True


def _end_container(p: Pass, *, empty: bool) -> bool:
    """End a container where a key or an item could start.

    After a comma (not ``empty``), the comma was a trailing one.
    """
    if not empty:
        p.out[p.comma_at] = ""
        p.repairs["trailing_comma_removed"] = None
    if not close_containers(p, empty=empty):
        return p.refuse()
    if len(p.stack) <= p.floor:
        return p.finish()
    p.state = _AFTER
    return True


def _read_key(p: Pass, char: str) -> bool:
    """A key: quoted any way, escaped once too often, or a bare identifier."""
    text, pos = p.text, p.pos
    if char in "\"'“":
        if char in QUOTE_REPAIRS:
            p.repairs[QUOTE_REPAIRS[char]] = None
        end = write_string(p, _IN_KEY)
        if end == WRONG:
            return p.refuse()
        if end == CUT:
            return p.cut()
    elif text.startswith('\\"', pos):
        end = write_escaped_string(p, _IN_KEY)
        if end < 0:
            return p.refuse()
        p.repairs["escaped_quotes_replaced"] = None
    else:
        end = match_end(tok.IDENT, text, pos)
        if end == pos:
            return p.refuse()
        colon = match_end(tok.SPACE, text, end)
        if colon >= len(text):
            return p.cut()
        if text[colon] != ":":
            return p.refuse()
        p.out.append(f'"{text[pos:end]}"')
        p.repairs["key_quoted"] = None
    p.pos = end
    p.state = _COLON
    return True


def _read_value(p: Pass, char: str) -> bool:
    """A value: the step after a colon, and after ``[`` or a comma in an array."""
    text, pos = p.text, p.pos
    where = _IN_OBJECT if p.state == _MEMBER else _IN_ARRAY
    if char in "\"'“":
        if text.startswith(('"""', "'''"), pos):
            end = write_triple_quoted(p, where)
            return _end_value(p, end, "triple_quotes_replaced")
        return _read_string_value(p, char, where)
    if char in NUMBER_START:
        return _read_number(p)
    if char == "[":
        return p.open_arrays()
    if char == "{":
        if len(p.stack) >= DEEPEST:
            return p.refuse()
        p.push(char)
        p.state = _KEY_FIRST
        return True
    if char == "`" and text.startswith(("`{", "`["), pos):
        # A container as markdown inline code: the backticks go.
        p.ticks.append(len(p.stack) + 1)
        p.pos += 1
        p.repairs["backticks_removed"] = None
        return True
    if text.startswith('\\"', pos):
        end = write_escaped_string(p, where)
        return _end_value(p, end, "escaped_quotes_replaced")
    if char in ",:":
        return take_stray(p, char) or p.refuse()
    if char in "}]":
        return p.refuse()  # a member's value is due (an item's end is read before)
    return _read_word(p)


def _end_value(p: Pass, end: int, repair: str) -> bool:
    """End a value written up to ``end`` by ``repair``; ``-1`` refuses."""
    if end < 0:
        return p.refuse()
    p.repairs[repair] = None
    p.pos = end
    p.state = _AFTER
    return True


def _read_string_value(p: Pass, char: str, where: Where) -> bool:
    """A quoted value; or, in an array, the next key of the object around it."""
    if (
        p.state == _ITEM
        and len(p.stack) > 1
        and p.stack[-2] == "{"
        and match_end(tok.KEY_AHEAD, p.text, p.pos) > p.pos
    ):
        # The array was left open before its object's next key: a lost
        # ``]``, unless a stray ``[`` reads as well (see _repair_brackets).
        if not array_may_close(p, p.marks[-1], p.comma_at):
            return p.refuse()
        p.out[p.comma_at] = "],"
        p.pop()
        p.repairs["bracket_fixed_guessed"] = None
        p.state = _KEY
        return True
    if char in QUOTE_REPAIRS:
        p.repairs[QUOTE_REPAIRS[char]] = None
    end = write_string(p, where)
    if end == WRONG:
        return p.refuse()
    if end == CUT:
        return p.cut()
    p.pos = end
    p.state = _AFTER
    return True


def _read_number(p: Pass) -> bool:
    """A number; one cut off by the text's end is dropped."""
    text, pos = p.text, p.pos
    n = len(text)
    end = match_end(tok.NUMBER, text, pos)
    if end == pos or (end < n and (text[end].isalnum() or text[end] in "._$")):
        # A number cut off (``-``, ``1.``, ``1e+``) is dropped, as the
        # partial parser would drop it; ``1.}``, ``0x1``, ``.5``,
        # ``2notanumber`` are refused.
        if match_end(tok.NUMBER_TAIL, text, pos) >= n:
            return p.cut()
        return p.refuse()
    p.out.append(text[pos:end])
    p.pos = end
    p.state = _AFTER
    return True


def _read_word(p: Pass) -> bool:
    """A literal (JSON's or Python's), or a value that lost its opening quote."""
    text, pos = p.text, p.pos
    found = tok.LITERAL.match(text, pos)
    if found is None or found.end() == pos:
        end = match_end(tok.WORD, text, pos)
        if end >= len(text) and text[pos:end] in _PREFIXES:
            return p.cut()
        end = find_unopened_value_end(text, pos) if p.state == _MEMBER else -1
        written = json_string(text[pos : end - 1]) if end >= 0 else None
        if written is None:  # no end, or a lone surrogate in the value
            return p.refuse()
        p.out.append(written)
        return _end_value(p, end, "opening_quote_guessed")
    if found.group(2) is not None:
        p.out.append(_PYTHON[found.group(2)])
        p.repairs["python_literal_replaced"] = None
    else:
        p.out.append(found.group(1))
    p.pos = found.end()
    p.state = _AFTER
    return True


_STEPS: Final[tuple[Callable[[Pass, str], bool], ...]] = (
    _read_first_key,
    _read_next_key,
    _read_colon,
    _read_value,
    _read_first_item,
    _read_next_item,
    _read_after_value,
)
"""The step of each state, indexed by it (in :class:`State`'s order)."""
