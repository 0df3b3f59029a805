"""The repair's fast path for Python-style JSON: single quotes, ``True``/``None``.

Pure functions on ``str``; no LangChain imports.

A model that writes its JSON the way Python prints a dict (``{'id': 7, 'ok':
True}``) puts a fault on every row, and the repair pass (``_repair_pass``)
steps through each of them in Python. When those are the only faults, this
module rewrites the candidate with a few C-level calls instead: one
``re.split`` sets the ``"`` strings apart, one match checks that every ``'``
outside them pairs up around a plain body, ``str.replace`` rewrites the quotes
and literals outside the ``"`` strings, and ``orjson`` decides whether the
result is JSON.

It answers only where the pass would write exactly the same text, repairs and
end; anywhere else it declines (``None``) and the pass runs as before:

- a typographic quote anywhere (the pass may close a string on one);
- a single-quoted string holding a quote, a backslash, a control character or
  a Python literal's word, or spanning a ``"`` string (``['x", "y']`` is one
  string to the pass);
- a result ``orjson`` refuses: anything else between the strings (a comment,
  a bare key, a trailing or missing comma, prose after the value, a cut).

Why that is enough: once the result is strict JSON, every closing quote is
followed by what may follow a string, so the pass's quote rule closes each
string where the split did, and the hot path copies the rest as it stands.
``tests/test_repair_python_style.py`` checks it against the pass, field by
field, on replies of every kind.
"""

from __future__ import annotations

from typing import Final

import orjson

from langchain_jsonrecover._core.repair import tokens as tok

_SEP: Final = "\x00"
"""Joins parts so that one C call reads them all; never in a candidate taken."""
_SPACE: Final = " \t\r\n"
_PYTHON: Final = (("True", "true"), ("False", "false"), ("None", "null"))
_SINGLE: Final = "single_quotes_replaced"
_LITERAL: Final = "python_literal_replaced"
_MIN_CHARS: Final = 2048
"""Shorter candidates are left to the pass: it reads them in a millisecond at
most, and counting their faults would cost all of them more than the fast path
saves the few that are Python-style."""
_SAMPLE: Final = 4096
"""How much of a candidate's start shows whether the fast path may pay."""
_CHARS_PER_MARK: Final = 64
"""The fast path is tried with at least one mark per this many characters: a
single quote is a mark, a Python literal eight (the pass spends a careful step
on each). Below that the pass, its hot path taking the strict runs between
faults, costs about what the fast path does (measured at 200 KB)."""
_LITERAL_MARKS: Final = 8


def rewrite_python_style(text: str) -> tuple[str, tuple[str, ...], int] | None:
    r"""Rewrite a candidate whose only faults are single quotes and Python literals.

    Args:
        text: The candidate, from its opening bracket.

    Returns:
        The strict JSON text, the repairs in order of first occurrence, and
        where the value ends; ``None`` when the candidate has other faults,
        none, too few to pay for the fast path, or is not one whole value
        followed by nothing but white space.

    Example:
        >>> rows = ", ".join(["{'id': 7, 'ok': True}"] * 100)
        >>> fixed, repairs, end = rewrite_python_style(f"[{rows}]\n")
        >>> fixed[:45], end
        ('[{"id": 7, "ok": true}, {"id": 7, "ok": true}', 2300)
        >>> repairs
        ('single_quotes_replaced', 'python_literal_replaced')
        >>> rewrite_python_style(f"[{rows},]") is None  # a trailing comma
        True
        >>> rewrite_python_style("{'a': True}") is None  # short: left to the pass
        True
    """
    if not _dense(text) or "“" in text or "”" in text or _SEP in text:
        return None
    body = text.rstrip(_SPACE)
    # Parts alternate: outside ``"`` strings, a ``"`` string, outside...
    parts = tok.DQ_STRING.split(body)
    if not parts[-1]:
        return None  # the text ends inside a ``"`` string
    outside = _SEP.join(parts[0::2])
    repairs = _repairs_named(outside)
    if not repairs or tok.SINGLE_QUOTED_OUTSIDE.fullmatch(outside) is None:
        return None
    # Every ``'`` outside ``"`` strings is now a single-quoted string's quote,
    # and every Python literal's word stands between strings.
    if _LITERAL in repairs:
        for python, json in _PYTHON:
            outside = outside.replace(python, json)
    parts[0::2] = outside.replace("'", '"').split(_SEP)
    out = "".join(parts)
    try:
        orjson.loads(out)
    except orjson.JSONDecodeError:
        return None
    return out, repairs, len(body)


def _repairs_named(outside: str) -> tuple[str, ...]:
    """The repairs to make outside ``"`` strings, first met first (maybe none)."""
    single = outside.find("'")
    literal = tok.PYTHON_LITERAL_WORD.search(outside)
    if literal is None:
        return () if single < 0 else (_SINGLE,)
    if single < 0:
        return (_LITERAL,)
    return (_LITERAL, _SINGLE) if literal.start() < single else (_SINGLE, _LITERAL)


def _dense(text: str) -> bool:
    """Whether the candidate is long enough, and its start faulty enough, to pay."""
    if len(text) < _MIN_CHARS:
        return False
    due = min(len(text), _SAMPLE)
    marks = text.count("'", 0, _SAMPLE)
    for python, _ in _PYTHON:
        if marks * _CHARS_PER_MARK >= due:
            return True
        marks += _LITERAL_MARKS * text.count(python, 0, _SAMPLE)
    return marks * _CHARS_PER_MARK >= due
