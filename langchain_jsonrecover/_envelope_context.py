"""A call envelope unwrapped by the schema reading needs a reply that is only it.

Issue 21's rule for tool calls (family 1) holds for the schema reading of an
envelope too: ``{"name": ..., "arguments": {...}}`` is read as the answer's
payload only when the whole reply, reasoning and whitespace aside, is that
envelope (bare, or in one fence with nothing else). An envelope that the
prose mentions (``I won't run {...} until you confirm.``) is not an answer.
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._reasoning import mask_reasoning

CALL_UNWRAPS: Final = frozenset(
    {"unwrapped_arguments", "unwrapped_parameters", "tool_envelope_unwrapped"}
)
_FENCE_MARKS: Final = re.compile(r"```[A-Za-z0-9_+-]*+|\s++")
ENVELOPE_IN_PROSE: Final = (
    "the reply mentions a tool-call envelope in its prose; it is not the "
    "answer's payload unless the reply is only that envelope"
)


def envelope_in_prose(
    text: str, span: tuple[int, int], repairs: tuple[str, ...]
) -> bool:
    r"""Whether a call envelope was unwrapped from a value with prose beside it.

    Example:
        >>> unwrapped = ("unwrapped_arguments",)
        >>> envelope_in_prose('Run {"a": 1} later', (4, 12), unwrapped)
        True
        >>> envelope_in_prose('```json\n{"a": 1}\n```', (8, 16), unwrapped)
        False
    """
    if CALL_UNWRAPS.isdisjoint(repairs):
        return False
    masked = mask_reasoning(text)[0]
    start, end = span
    outside = masked[:start] + " " + masked[end:]
    return _FENCE_MARKS.sub("", outside) != ""
