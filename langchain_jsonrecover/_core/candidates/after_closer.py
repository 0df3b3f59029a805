"""A reply cut right after a closer: no repair reads it, so none is run.

Pure functions on ``str``; no LangChain imports. Without a token-limit stop,
such a reply is refused (a cut there, or a closer lost before it), and the
repair pass would then run three passes in Python over it (the splice, the
whole pass, inner quotes) only to give the same refusal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_jsonrecover._core.decode.close import AT_A_CLOSER
from langchain_jsonrecover._core.decode.tolerant import END_OF_DATA, stop_in
from langchain_jsonrecover._core.repair.syntax import quote_like

if TYPE_CHECKING:
    from langchain_jsonrecover._core.candidates.kinds import Candidate


def refused_at_a_closer(text: str, candidate: Candidate) -> bool:
    """Whether the candidate is refused for a cut after a closer that no repair reads.

    Only the refusals of :data:`AT_A_CLOSER` ask :func:`cut_at_a_closer`,
    so that other failures pay no orjson call for it.

    Example:
        >>> from langchain_jsonrecover._core.candidates.kinds import (
        ...     Candidate, CandidateFailure)
        >>> from langchain_jsonrecover._core.decode.close import AFTER_CLOSER
        >>> failure = CandidateFailure("invalid_json", AFTER_CLOSER, 11)
        >>> refused_at_a_closer('{"a": {"b": 1}', Candidate(0, 14, "raw", (),
        ...     failure=failure))
        True
    """
    failure = candidate.failure
    return (
        failure is not None
        and failure.reason in AT_A_CLOSER
        and cut_at_a_closer(text, candidate.start)
    )


def cut_at_a_closer(text: str, start: int) -> bool:
    r"""Whether ``text[start:]`` is strict JSON cut right after a closer.

    Then no repair reads it, so ``RepairPass._repair_candidate`` gives
    ``None`` without running one: the cut reply's refusal ("a cut there, or
    a closer lost before it") comes at the cost of one orjson call instead of
    three passes in Python (the splice, the whole pass, inner quotes).

    The conditions: orjson reads all of ``rest = text[start:]`` and runs out
    of data there (``rest`` is a prefix of strict JSON whose root is still
    open, or a string; a slip would stop it earlier); ``rest`` holds no
    quote the pass may read as a string's end besides ``"`` (typographic,
    fullwidth: ``quote_like``); and ``rest.rstrip()`` ends with ``}`` or
    ``]``. Why no repair then reads a value, step by step through
    ``_repair_text``:

    - ``repair_syntax``: its whole-text readings need what strict JSON never
      has outside a string (``{\"``, ``&quot;``, ``{{``); the Python-style
      rewrite gives the pass's own reading or declines; the trailing-comma
      reading and the splice need orjson to stop at a slip, not at the end
      (the splice also declines an object that runs out of text). The pass
      itself copies strict JSON as it stands where no quote-like character
      is (the invariant the trailing-comma reading and the splice rest on:
      ``_only_a_trailing_comma``), so it closes only what ``rest`` closes:
      it runs out of text inside the root (``truncated``), or reports no
      repair (``None``). It does not refuse strict JSON, so the readings
      that follow a refusal (a restarted value, requoting) do not run.
    - ``read_tuples``: ``tuples_listed`` declines a text with no tuple
      (strict JSON has ``(`` only inside strings) or whose root is still
      open at its end.
    - ``fix_single_edit``: ``None`` wherever orjson runs out of data.
    - ``repair_inner_quotes``: ``None`` when its pass runs out of text.

    So each reading is ``None`` or ``truncated``, and a truncated repair of
    a reply that ends with a closer is dropped (``_repair_candidate``: not a
    cut). ``tests/test_cut_at_closer.py`` checks each step on every cut of
    seeded documents, and compares the answers with and without this check.

    Example:
        >>> cut_at_a_closer('{"a": {"b": 1}', 0), cut_at_a_closer('{"a": 1}}', 0)
        (True, False)
    """
    rest = text[start:]
    if rest.rstrip()[-1:] not in {"}", "]"} or quote_like(rest):
        return False
    stopped = stop_in(rest)
    return stopped is not None and stopped.msg.startswith(END_OF_DATA)
