r"""A reply cut inside its one fenced block: that block is its only candidate.

Pure functions on ``str``; no LangChain imports.

A model stopped by its token limit inside a fenced block leaves a sentence,
an opening fence and a body that stops: ```` Here it is:\n```json\n{"a": [1, ````.
:func:`~langchain_jsonrecover._core.candidates.read.read_candidates` reads
such a reply in general: it guesses an outer block (there is none: one run
of backticks), walks the fences, and yields the block's candidate lazily for
``extract`` to compare with the others. :func:`read_cut_fence` knows from two
searches that there are no others, and hands the block's candidate over at
once, so that ``extract`` treats it as the one candidate it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.candidates.find import (
    OPENERS,
    _check_block,
    decode_place,
    locate_fence_body,
)
from langchain_jsonrecover._core.reply.fences import find_fences

if TYPE_CHECKING:
    from langchain_jsonrecover._core.candidates.kinds import Candidate, Scan
    from langchain_jsonrecover._core.reply.markup import Prepared

_LONGEST_RUN: Final = 16
"""A longer run of backticks is left to the general reader (never wrong, only
slower): counting the backticks of the run stays a short read."""


def read_cut_fence(
    prepared: Prepared, scan: Scan
) -> Candidate | tuple[Candidate] | None:
    r"""A cut fence's block, the reply's only candidate, when ``scan`` closes cuts.

    Its candidate as ``read_candidates`` would yield it, and as the only one
    (see :func:`lone_open_block`): alone when it has a value (as
    ``read_candidates`` hands over a lone block that decodes), else in a
    tuple (``extract`` then reports or repairs it as it would the general
    reader's); ``None``: read the reply in general.

    Example:
        >>> from langchain_jsonrecover._core.candidates.kinds import Scan
        >>> from langchain_jsonrecover._core.reply.markup import prepare_reply
        >>> read = read_cut_fence(
        ...     prepare_reply('Here:\n```json\n{"a": [1, 2'),
        ...     Scan(200, close_truncated=True),
        ... )
        >>> read.value, read.repairs
        ({'a': [1]}, ('fence_stripped', 'truncation_closed'))
    """
    if not scan.close_truncated:
        return None
    cut = lone_open_block(prepared, scan)
    if cut is None or cut.failure is None:
        return cut
    return (cut,)


def lone_open_block(prepared: Prepared, scan: Scan) -> Candidate | None:
    r"""The candidate of a reply's one fenced block when the reply ends in it.

    ``None`` unless the general reader (``read_candidates``) would give that
    block's candidate and no other. It does so when:

    - every backtick of the reply is in one run of three or more: one fence,
      and no closing run (a backtick anywhere else, before or after it,
      leaves the reply to the general reader). Then ``outer_fence`` guesses
      no block (it needs a second run), and the fence walk finds this one,
      unclosed, to the reply's end;
    - the run is not glued to a quote (a string's content, not a fence);
    - no ``{``, ``[`` or ``"`` comes before it: no JSON that opens before the
      fence (whose strings might hold it), and no member that starts the
      reply (``"key":``, which the general reader answers first);
    - its tag names JSON, or it has none, and its body holds a candidate
      (``locate_fence_body``): a block of another language, or of prose, is
      passed over and the prose read instead;
    - no tool call is written as markup (its arguments would follow).

    The block's candidate is then read as the fence reader reads it
    (``decode_place``, then ``_check_block``); with a candidate found in a
    fence, the prose is not read.

    Example:
        >>> from langchain_jsonrecover._core.candidates.kinds import Scan
        >>> from langchain_jsonrecover._core.reply.markup import prepare_reply
        >>> scan = Scan(200, close_truncated=True)
        >>> lone_open_block(prepare_reply('Sure.\n```json\n["a", "b'), scan).value
        ['a', 'b']
        >>> lone_open_block(prepare_reply('Sure.\n```json\n[1]\n```'), scan) is None
        True
    """
    masked = prepared.text
    last = masked.rfind("`")
    if last < 2 or prepared.tool_calls:
        return None
    first = masked.find("`")  # a reply with a closed block fails here
    run = last + 1 - first
    if (
        not 3 <= run <= _LONGEST_RUN
        or masked.count("`", first, last + 1) != run  # one run: every backtick
        or (first and masked[first - 1] in "\"'")
        or OPENERS.search(masked, 0, first) is not None
        or masked.find('"', 0, first) >= 0
    ):
        return None
    (fence,) = find_fences(masked)  # the one block, open to the end
    if fence.tag and not fence.is_json:
        return None
    place = locate_fence_body(masked, fence, prepared.repairs)
    if place is None:
        return None
    return _check_block(masked, place, decode_place(masked, place, scan), scan)
