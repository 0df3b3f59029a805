"""What a reading of a reply gives: the value and how it was found, or why not.

Pure data, no LangChain imports: the core's readers return these, and the
parsers turn a failure into a typed error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from langchain_jsonrecover._core.candidates.kinds import Step
    from langchain_jsonrecover._core.schema.validate import FieldError

ReplyFailureKind = Literal[
    "too_large", "no_json", "invalid_json", "truncated", "too_deep", "schema"
]
TWO_READINGS: Final = "two_readings"
"""``ReplyFailure.detail`` of a reply with two readings (``_choice``)."""
GUESSED: Final = "guessed"
"""``ReplyFailure.detail`` of a reply only a repair that chooses reads."""


@dataclass(frozen=True, slots=True)
class Extraction:
    r"""The JSON found in a reply, and how it was found.

    Example:
        >>> from langchain_jsonrecover import extract_json
        >>> found = extract_json('Sure! ```json\n{"a": 1}\n```')
        >>> found.value, found.step, found.repairs
        ({'a': 1}, 'fence', ('fence_stripped',))
    """

    value: Any
    """The decoded value."""
    span: tuple[int, int]
    """Where the value's text lies in the reply: ``reply[start:end]``."""
    step: Step
    """What found it: ``raw`` (the reply itself), ``fence``, ``prose`` or ``regex``."""
    repairs: tuple[str, ...] = ()
    """What was done to get the value, in order (``"reasoning_skipped"``,
    ``"fence_stripped"``, ``"json_label_dropped"``, ``"prose_trimmed"``,
    ``"control_characters_escaped"``, ``"truncation_closed"`` …)."""
    cut_off: bool = False
    """The model reported stopping at its token limit (``finish_reason`` and
    kin in the reply's metadata)."""


# Its home before the core moved into folders: pickles name a class by its
# module, and ``langchain_jsonrecover._extract`` still provides it.
Extraction.__module__ = "langchain_jsonrecover._extract"


@dataclass(frozen=True, slots=True)
class ReplyFailure:
    """Why no value came out of a reply."""

    kind: ReplyFailureKind
    """``no_json``, ``invalid_json``, ``truncated``, ``too_deep``, ``too_large``
    or ``schema`` (decoded, but does not match the schema)."""
    reason: str
    """The decoder's reason in plain words (empty for ``no_json``)."""
    pos: int | None = None
    """Offset in the reply where decoding stopped."""
    start: int | None = None
    """Offset in the reply where the failing candidate starts."""
    detail: str = ""
    """Extra context: ``"reasoning_only"``, ``"nested_value"``,
    ``"two_readings"``, ``"guessed"``, or the regex that matched nothing."""
    errors: tuple[FieldError, ...] = ()
    """For ``schema``: why the value does not match."""
    value: Any = None
    """For ``schema``: the decoded value that does not match."""
    recovered: bool = False
    """For ``schema``: the value came from closing a truncated reply."""
    cut_off: bool = False
    """The model reported stopping at its token limit."""
