"""The second pass over a reply: the syntax of failing candidates repaired.

Pure functions on ``str``; no LangChain imports. When no candidate gives a
value as it stands, the failing ones are repaired (``_repair``) and decoded
again, in the same order. Each candidate text is repaired and decoded at most
once per reply, even when the whole reply was tried first as one broken value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.candidates.after_closer import refused_at_a_closer
from langchain_jsonrecover._core.candidates.find import (
    MEMBERS_FIRST,
    NON_SPACE,
    OPENERS,
)
from langchain_jsonrecover._core.candidates.kinds import Candidate, Scan
from langchain_jsonrecover._core.candidates.opener import (
    inside_string,
    inside_structure,
)
from langchain_jsonrecover._core.candidates.order import SEVERAL, another_value
from langchain_jsonrecover._core.decode.close import (
    Closed,
    close_truncated,
    swallows_structure,
)
from langchain_jsonrecover._core.decode.tolerant import (
    Decoded,
    DecodeFailure,
    Stopped,
    decode,
    loads_within,
    within_depth,
)
from langchain_jsonrecover._core.repair.python_reads import STRAY_BRACE, read_tuples
from langchain_jsonrecover._core.repair.single_edit import (
    INNER_LIMIT,
    Ambiguous,
    fix_single_edit,
)
from langchain_jsonrecover._core.repair.single_edit_pieces import value_key
from langchain_jsonrecover._core.repair.single_edit_readings import closers_inside
from langchain_jsonrecover._core.repair.syntax import Repaired, repair_inner_quotes
from langchain_jsonrecover._core.repair.syntax import repair as repair_syntax
from langchain_jsonrecover._core.spans.after import continues_structure

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from langchain_jsonrecover._core.reply.markup import Prepared

_CHECK_LIMIT: Final = 1 << 16
_KEYED_DEPTH: Final = 254  # the deepest value ``value_key`` writes (orjson's limit)
_CHECKED: Final = frozenset(
    {
        "bracket_fixed_guessed",
        "inner_quote_escaped_guessed",
        "literal_backslashes_guessed",
        "opening_quote_guessed",
        "comment_removed",
    }
)
# A reply's first key and its colon (escapes in it allowed, no line break).
_KEY_FIRST: Final = re.compile(r'"(?:[^"\\\n]|\\.)*"[ \t]*:')
# A reply that starts with a bare key and its colon, up to its value.
_BARE_KEY_FIRST: Final = re.compile(r"[ \t\r\n]*[A-Za-z_][A-Za-z0-9_]*[ \t]*:[ \t]*\Z")
_REPAIRABLE: Final = frozenset({"invalid_json", "truncated"})
_ESCAPED: Final = "control_characters_escaped"
# A member's value, or several values together: no repair makes one answer.
_NOT_REPAIRED: Final = frozenset({"nested_value", SEVERAL, MEMBERS_FIRST})


class RepairPass:
    """The repairs of one prepared reply, each made once.

    Example:
        >>> from langchain_jsonrecover._core.reply.markup import prepare_reply
        >>> repairs = RepairPass(prepare_reply("{'a': 1,}"), Scan(max_depth=200))
        >>> found = repairs.repair_whole()
        >>> found.value, found.repairs
        ({'a': 1}, ('single_quotes_replaced', 'trailing_comma_removed'))
    """

    __slots__ = ("_decoded", "_fixed", "masked", "prepared", "scan", "source", "stop")

    def __init__(
        self,
        prepared: Prepared,
        scan: Scan,
        *,
        source: str | None = None,
        stop: Stopped | None = None,
    ) -> None:
        self.prepared = prepared
        self.masked = prepared.text
        self.source = prepared.text if source is None else source
        """The reply as written, before markup was blanked."""
        self.scan = scan
        self.stop = stop
        """Where orjson stopped in the prepared text, when the strict read knows."""
        self._fixed: dict[tuple[int, bool], Repaired | None] = {}
        self._decoded: dict[tuple[int, bool], Decoded | DecodeFailure] = {}

    def repair_whole(self) -> Candidate | None:
        """A reply that is one broken JSON value (and perhaps prose after it).

        The strict pass would have one candidate, failing, and the repair pass
        would then repair it: the same answer, without walking the broken value
        in Python to find its extent first. Only when nothing JSON-like follows
        the repaired value (no other candidate could exist); else ``None``.
        """
        masked = self.masked
        lead = NON_SPACE.search(masked)
        if lead is None:
            return None
        if lead.group() == '"':
            return self._brace_lost(lead.start())
        if lead.group() not in "{[":
            return None
        start = lead.start()
        stop = self.stop and self.stop.of_rest(masked, start, len(masked))
        fixed = self._repair(start, entities=False, stop=stop)
        if fixed is None:
            return self._stray_bracket(start)
        if fixed.truncated:
            return None
        end = start + fixed.end
        if _follows_value(masked, end):
            return None
        result = self._decode(start, fixed, entities=False)
        if not isinstance(result, Decoded):
            return None
        repairs = (*self.prepared.repairs, *fixed.repairs)
        if NON_SPACE.search(masked, end) is not None:
            repairs = (*repairs, "prose_trimmed")
        rival = self._rival(start, fixed)
        return Candidate(start, end, "raw", repairs, value=result.value, rival=rival)

    def _brace_lost(self, start: int) -> Candidate | None:
        r"""A reply of members after a prefilled ``{``: the brace added back.

        ``opening_brace_added``: the reply starts with a key and its colon
        and ends with ``}`` (``"a": 1,\n"b": 2\n}``). A key is only ever
        inside an object, so the one reading opens it before the first key
        (unless that key holds a ``{``: ``"{a": 1}`` may be a stray quote);
        it is taken only when that ``{`` is the one the last ``}`` closes,
        with nothing after it, decoding as it stands or after repairs that
        guess nothing.
        """
        body = self.masked[start:].rstrip()
        key = _KEY_FIRST.match(body)
        if not body.endswith("}") or key is None or "{" in key.group():
            return None  # ``"{a": 1}``: a stray quote before the brace, or not
        text = "{" + body
        max_depth = self.scan.max_depth
        result = decode(text, max_depth=max_depth, allow_trailing=False)
        repairs: tuple[str, ...] = ()
        if not isinstance(result, Decoded):
            fixed = repair_syntax(text)
            if (
                fixed is None
                or fixed.truncated
                or fixed.end != len(text)
                or any(name.endswith("_guessed") for name in fixed.repairs)
                or reads_markup_as_data(self.source, text, start, fixed, prefix="{")
            ):
                return None
            result = decode(fixed.text, max_depth=max_depth, allow_trailing=False)
            repairs = fixed.repairs
        if not isinstance(result, Decoded) or not isinstance(result.value, dict):
            return None
        repairs = (*self.prepared.repairs, "opening_brace_added", *repairs)
        return Candidate(start, start + len(body), "raw", repairs, value=result.value)

    def _stray_bracket(self, start: int) -> Candidate | None:
        r"""A whole root object and one ``]`` after it, nothing else: two readings.

        ``{"input": "…"}]``: the ``]`` is stray (the root is the answer), or
        the root's ``[`` was lost (an array of it); with a schema, ``}`` is
        stray or one inside slipped in. The candidate holds each reading; only
        a schema that takes one decides (``settle``), else an error. Where
        the search names one reading (a short root), :meth:`_rival` gives the pair.
        """
        masked = self.masked
        root = decode(
            masked[start:], max_depth=self.scan.max_depth, allow_trailing=True
        )
        if not isinstance(root, Decoded):
            return None
        closer = NON_SPACE.search(masked, start + root.end)
        if closer is None or NON_SPACE.search(masked, closer.end()) is not None:
            return None
        end = closer.end()
        if closer.group() == "}" and self.scan.scalars:  # a schema decides
            inside = closers_inside(masked[start:end], root.value, self.scan.max_depth)
            if inside is None:
                return None
            repairs = (*self.prepared.repairs, STRAY_BRACE)
            return Candidate(start, end, "raw", repairs, value=root.value, rival=inside)
        if masked[start] != "{" or closer.group() != "]":  # no schema: ``}`` too
            return None
        repairs = (*self.prepared.repairs, "character_inserted")
        return Candidate(
            start, end, "raw", repairs, value=[root.value], rival=(root.value,)
        )

    def _rival(self, start: int, fixed: Repaired) -> tuple[Any, ...]:
        r"""The root alone, when the repair wrapped it in an opener it inserted.

        ``{"a": 1}\n]`` is a root and a stray ``]``, or an array whose ``[``
        was lost: two readings (see ``Candidate.rival``).
        """
        text = fixed.text
        if (
            fixed.repairs != ("character_inserted",)
            or text[:1] not in {"[", "{"}
            or not self.masked.startswith(text[1:-1].rstrip(), start)
        ):
            return ()
        root = decode(
            self.masked[start:], max_depth=self.scan.max_depth, allow_trailing=True
        )
        if not isinstance(root, Decoded):
            return ()
        # Only a lone closer after the whole root: the opener inserted matches
        # it (a root opener lost before several items is one reading).
        closer = NON_SPACE.search(self.masked, start + root.end)
        if closer is None or closer.start() != start + fixed.end - 1:
            return ()
        return (root.value,)

    def repair_each(self, tried: Iterable[Candidate]) -> Iterator[Candidate]:
        """The failing candidates with their syntax repaired, in the same order.

        The repair reads from a candidate's opener and decides itself where the
        value ends: the strict scan's bracket matching, and a fence finder that
        may take a ``` line inside a string for the closing fence, cannot be
        trusted on broken syntax. But a repaired value must account for the
        structure around it: it may not end before a candidate known to be one
        value does, nor where the text goes on as if it had not ended (a closer,
        or ``, "key":``). The text handed to the repair is bounded by twice the
        reply's length, so the pass stays linear.

        Args:
            tried: Candidates of the strict pass, in order.
        """
        masked = self.masked
        budget = 2 * len(masked) + 1024
        limit = len(masked)
        for candidate in tried:
            failure = candidate.failure
            if (
                failure is None
                or failure.kind not in _REPAIRABLE
                or failure.detail in _NOT_REPAIRED
            ):
                continue
            if limit - candidate.start > budget:
                return
            budget -= limit - candidate.start
            repaired = self._repair_candidate(candidate)
            if repaired is not None:
                yield repaired

    def _repair_candidate(self, candidate: Candidate) -> Candidate | None:
        masked, scan = self.masked, self.scan
        if refused_at_a_closer(masked, candidate):  # no repair reads it
            return None
        entities = candidate.step == "fence"
        fixed = self._repair(candidate.start, entities=entities)
        if fixed is None:
            return None
        end = candidate.start + fixed.end
        if not fixed.truncated and (
            (candidate.whole and NON_SPACE.search(masked, end, candidate.end))
            or continues_structure(masked, end, len(masked))
            or _went_on_after_comma(masked, end)
            or another_value(masked, end, scan.max_depth)
            or _member_before_brace(masked, candidate.start, end, scan.max_depth)
        ):
            return None
        repairs = tuple(r for r in candidate.repairs if r != _ESCAPED)
        if fixed.truncated:
            if not scan.close_truncated:
                return None
            ends = masked[candidate.start :].rstrip()[-1:]
            if ends in {"}", "]"} or swallows_structure(fixed.text):
                # The reply ends with a closer, yet the repair ran out of text
                # (in a string or a comment it opened): not a cut.
                return None
            if "bracket_fixed_guessed" in fixed.repairs:
                # A closer of the wrong kind before a cut (``{"a": {"v": [1]],
                # "b": 2``): read as ``}``, it moves the members after it out
                # of their object; dropped as stray, the text is a cut as
                # well. Two readings, and no closer at the end to choose.
                return None
            closing = close_truncated(
                fixed.text, max_depth=scan.max_depth, after_closer=scan.cut_off
            )
            if not isinstance(closing, Closed):
                return None
            value, added = closing.value, (*fixed.repairs, *closing.repairs)
            cut_key = closing.cut_key
        else:
            result = self._decode(candidate.start, fixed, entities=entities)
            if not isinstance(result, Decoded):
                return None
            value, added, cut_key = result.value, fixed.repairs, None
        return Candidate(
            candidate.start,
            end,
            candidate.step,
            (*repairs, *added),
            value=value,
            cut_key=cut_key,
            rival=() if fixed.truncated else self._rival(candidate.start, fixed),
        )

    def _repair(
        self, start: int, *, entities: bool, stop: Stopped | None = None
    ) -> Repaired | None:
        key = (start, entities)
        if key not in self._fixed:
            fixed = self._repair_text(start, entities=entities, stop=stop)
            if fixed is not None and reads_markup_as_data(
                self.source, self.masked[start:], start, fixed, entities=entities
            ):
                fixed = None
            self._fixed[key] = fixed
        return self._fixed[key]

    def _repair_text(
        self, start: int, *, entities: bool, stop: Stopped | None = None
    ) -> Repaired | None:
        """The repair pass's reading, checked against the single-edit search.

        Neither runs on an opener inside a string (see ``inside_string``).

        Where the pass refused the text and no single edit reads it, its
        quotes that cannot close their strings are text
        (``repair_inner_quotes``), in a candidate of at most ``INNER_LIMIT``
        characters (where the search tries every edit before its budget ends).

        The search runs where the pass found nothing, or chose between readings
        (a ``*_guessed`` repair, or a ``#`` comment that may be text a lost
        quote let out of a string): a fix by one edit with one reading that
        reads otherwise than the pass's guess, or two such fixes, make the
        candidate an error.
        A guess in a reply longer than ``_CHECK_LIMIT`` (64 K characters) is
        not checked: there the search, which decodes the text once per edit
        that passes a local check, would cost more than the pass itself.
        """
        if inside_string(self.masked, start):
            return None
        text = self.masked[start:]
        fixed = repair_syntax(text, entities=entities, stopped=stop)
        fixed = fixed or read_tuples(text, entities)
        if fixed is not None and (
            len(text) > _CHECK_LIMIT or not _CHECKED.intersection(fixed.repairs)
        ):
            return fixed
        if inside_structure(self.masked, start):
            return fixed
        max_depth = self.scan.max_depth
        known = (fixed.text, fixed.value[0]) if fixed and fixed.value else None
        single = fix_single_edit(text, max_depth=max_depth, stopped=stop, known=known)
        if isinstance(single, Ambiguous):
            return None
        if single is None and fixed is None and len(text) <= INNER_LIMIT:
            return repair_inner_quotes(text)  # no one-slip reading: inner quotes
        if single is None:
            return fixed
        if fixed is None:
            return single
        # The search read the pass's text, and kept the value handed to it.
        handed = known is not None and single.value[:1] and single.value[0] is known[1]
        if not ((handed and max_depth <= _KEYED_DEPTH) or _same_value(fixed, single)):
            return None
        if fixed.end < single.end:
            return single
        if handed or (fixed.text == single.text and single.value and not fixed.value):
            # As ``_decode`` would decode it: handed, the search checked the
            # depth of the same text as ``within_depth`` checks it (spaces
            # after it change nothing there); else orjson reads it.
            self._decoded[start, entities] = Decoded(single.value[0], len(fixed.text))
        return fixed

    def _decode(
        self, start: int, fixed: Repaired, *, entities: bool
    ) -> Decoded | DecodeFailure:
        key = (start, entities)
        if key not in self._decoded:
            max_depth = self.scan.max_depth
            if fixed.value and within_depth(fixed.text, fixed.value[0], max_depth):
                # Decoded by the repair already (strict, big integers kept).
                self._decoded[key] = Decoded(fixed.value[0], len(fixed.text))
            else:
                self._decoded[key] = decode(
                    fixed.text, max_depth=max_depth, allow_trailing=False
                )
        return self._decoded[key]


def _follows_value(text: str, end: int) -> bool:
    """Whether a fence, an opener or more of a value follows ``end`` (a rival)."""
    return (
        "```" in text[end:]
        or OPENERS.search(text, end) is not None
        or continues_structure(text, end, len(text))
        or _went_on_after_comma(text, end)
    )


def _went_on_after_comma(text: str, end: int) -> bool:
    r"""Whether a repair that took the comma after the value left a member behind.

    The single-edit search may drop a comma after a closed root
    (``{"b": false}, 'n': 5``); what follows that comma is read as it would
    be right after the root, so a key there still shows the root closed early.

    Example:
        >>> _went_on_after_comma("{\"b\": false}, 'n': 5", 13)
        True
        >>> _went_on_after_comma('{"b": false}, thanks', 13)
        False
    """
    back = end
    while back > 0 and text[back - 1] in " \t\r\n":
        back -= 1
    if back == 0 or text[back - 1] != ",":
        return False
    return continues_structure(text, back - 1, len(text))


def reads_markup_as_data(
    source: str,
    text: str,
    start: int,
    fixed: Repaired,
    *,
    prefix: str = "",
    entities: bool = False,
) -> bool:
    """Whether markup blanked inside a repaired value may be data in a string.

    ``fixed`` repairs ``text``: ``prefix`` and the blanked reply from
    ``start``. The markup scan tracks ``"`` strings only, so a token inside
    a string the repair reads otherwise (single quotes:
    ``{'a': 'say <|eot_id|> now'}``) was blanked as markup. When the reply
    as written (``source``) repairs to another value, the token is data in
    one reading and markup in the other: two readings.

    Example:
        >>> from langchain_jsonrecover._core.repair.syntax import repair
        >>> masked = "{'a': 'x            y'}"
        >>> fixed = repair(masked)
        >>> reads_markup_as_data("{'a': 'x <|eot_id|> y'}", masked, 0, fixed)
        True
    """
    end = start + fixed.end - len(prefix)
    if source[start:end] == text[len(prefix) : len(prefix) + end - start]:
        return False
    other = repair_syntax(prefix + source[start:], entities=entities)
    return other is not None and not _same_value(fixed, other)


def _member_before_brace(text: str, start: int, end: int, max_depth: int) -> bool:
    """Whether the value at ``start`` is a member's, its object's ``{`` prefilled.

    The reply starts with a bare key and its colon (``tags: ["a", "b"]}``),
    and the value decodes as it stands up to a ``}`` that ends the repaired
    span: that ``}`` is stray, or it closes an object whose ``{`` the prompt
    held (``{tags: [...]}``). Two readings; the quoted-key form is read by
    ``opening_brace_added``.
    """
    if _BARE_KEY_FIRST.match(text, 0, start) is None:
        return False
    root = decode(text[start:end], max_depth=max_depth, allow_trailing=True)
    if not isinstance(root, Decoded):
        return False
    closer = NON_SPACE.search(text, start + root.end, end)
    return closer is not None and closer.group() == "}" and closer.end() == end


def _same_value(one: Repaired, other: Repaired) -> bool:
    """Whether two repairs read one value (big integers exact; depth unchecked)."""
    keys = []
    for fixed in (one, other):
        try:
            read = fixed.value or loads_within(fixed.text, len(fixed.text))
        except orjson.JSONDecodeError:
            return False
        keys.append(value_key(read[0]))
    return keys[0] is not None and keys[0] == keys[1]
