"""Spellings of tool-call markup and special tokens, and the patterns built on them.

Pure data and compiled patterns; no LangChain imports.

Three families: the tokens that open a tool call (one per form, named for the
reader that reads it), the rest of the tool-call markup (blanked where it
stands), and chat-template or end-of-sequence tokens (blanked). The patterns
are arranged so that the regex engine skips to the next ``<`` or ``[`` at C
speed and rejects an HTML tag at its second character.
"""

from __future__ import annotations

import re
from typing import Final

# DeepSeek spells its tokens with a full-width bar and "▁" for spaces; some
# renderings use an ASCII bar.
_DS_BAR: Final = "[|\uff5c]"


def spell_deepseek(name: str) -> str:
    return f"<{_DS_BAR}{name.replace(' ', chr(0x2581))}{_DS_BAR}>"


# Tokens that open a tool call, by form.
_OPENERS: Final = {
    "tool_call": r"<tool_call>",
    "mistral": r"\[TOOL_CALLS\]",
    "python_tag": r"<\|python_tag\|>",
    "deepseek": spell_deepseek("tool call begin"),
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
    spell_deepseek("tool calls begin"),
    spell_deepseek("tool calls end"),
    spell_deepseek("tool call end"),
    spell_deepseek("tool sep"),
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
    spell_deepseek("end of sentence"),
    spell_deepseek("begin of sentence"),
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
    alternation (:data:`TOKEN_KIND`) is only matched where a token stands.
    """
    tokens = [*_OPENERS.values(), *_MARKUP_TOKENS, *_SPECIAL_TOKENS]
    square = "|".join(t[2:] for t in tokens if t.startswith("\\["))
    return f"<{_ANGLE_TAILS}|\\[(?:{square})"


_ANGLE_TAILS: Final = _angle_tails()
TOKEN_KIND: Final = re.compile(_alternation())
_TOKEN: Final = _by_first_char()
ANGLE_TOKEN: Final = re.compile(f"<{_ANGLE_TAILS}")
_STRING: Final = r'"(?:[^"\\]++|\\.)*+(?P<closed>")?'
# A string written with typographic or fullwidth quotes (either form closes
# it): its tokens are data too.
_OTHER_STRING: Final = (
    r"[\u201c\u201d\uff02\u00ab\u00bb](?:[^\u201c\u201d\uff02\u00ab\u00bb\\]++|\\.)*+"
    r"[\u201c\u201d\uff02\u00ab\u00bb]?"
)
# Inside brackets, from the current offset: a run of strings and other text,
# skipped in C, then the next bracket or token (or nothing, at the end).
# Anchored and possessive: it always matches, and never backtracks.
JSON_RUN: Final = re.compile(
    r'(?:[^"\u201c\u201d\uff02\u00ab\u00bb<\[\]{}]++|'
    f"{_STRING}|{_OTHER_STRING}|<(?!{_ANGLE_TAILS}))*+"
    f"(?P<stop>{_TOKEN}|[\\[\\]{{}}])?+",
    re.DOTALL,
)
_FENCE_LINE: Final = r"\n[ \t]{0,3}(?:```|~~~)"
# As ``JSON_RUN``, for the markup scan inside a value: a fence line (a fence
# at a line's start, up to three spaces in) ends the run (``stop`` holds it),
# and a string never runs across one: a block's string left open does not
# swallow the next block's opening quote.
VALUE_RUN: Final = re.compile(
    r'(?:[^"\u201c\u201d\uff02\u00ab\u00bb<\[\]{}\n]++|'
    f"\\n(?![ \\t]{{0,3}}(?:```|~~~))|"
    r'"(?:[^"\\\n]++|\\.|\n(?![ \t]{0,3}(?:```|~~~)))*+"?|'
    f"{_OTHER_STRING}|<(?!{_ANGLE_TAILS}))*+"
    f"(?P<stop>{_TOKEN}|[\\[\\]{{}}]|{_FENCE_LINE})?+",
    re.DOTALL,
)
# In prose: the next token, or the next bracket (then strings are tracked).
PROSE_NEXT: Final = re.compile(f"{_TOKEN}|[\\[{{]")
# The offset of the next token outside strings (brackets are skipped too).
TO_TOKEN: Final = re.compile(
    f'(?:[^"<\\[]++|{_STRING}|<(?!{_ANGLE_TAILS})|\\[(?!TOOL_CALLS\\]|ARGS\\]|CALL_ID\\]))*+',
    re.DOTALL,
)
