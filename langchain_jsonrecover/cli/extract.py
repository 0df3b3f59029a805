"""``jsonrecover extract`` on the pure core: options to a value or error lines.

The command reads a reply with ``_extract`` directly (no LangChain, no
parser objects), and words a failure as the parsers' errors do: the error
class's name, the first line of its message (``_prompts.describe``) and, for a
schema mismatch, a line per failing field. The output is the same as through
``ParserSpec.build().extract`` (``tests/test_cli_output.py`` pins it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.extract import (
    DEFAULT_MAX_DEPTH,
    Extraction,
    Prefer,
    ReplyFailure,
    extract,
)
from langchain_jsonrecover._core.extract_pattern import extract_with_pattern
from langchain_jsonrecover._core.limits import DEFAULT_MAX_CHARS
from langchain_jsonrecover._core.patterns import compile_pattern
from langchain_jsonrecover._core.prompts.feedback import (
    Shape,
    cut_quoting_short,
    describe,
)
from langchain_jsonrecover._core.prompts.instructions import shape_of
from langchain_jsonrecover._core.schema.load import load_schema
from langchain_jsonrecover._core.schema.validate import Schema

if TYPE_CHECKING:
    import re

    from langchain_jsonrecover._core.levels import Repair

__all__ = ["Reader", "error_words", "failure_lines"]

# The error class a parser raises for each failure kind (``errors.error_for``):
# any other kind is a failure to decode.
_ERROR_NAMES: Final = {
    "schema": "SchemaValidationError",
    "no_json": "NoJsonFoundError",
    "too_large": "ReplyTooLargeError",
}
_DECODE_ERROR: Final = "InvalidJsonError"


@dataclass(frozen=True, slots=True)
class Reader:
    """The command's options, checked, ready to read replies.

    Example:
        >>> reader = Reader.build(repair=True)
        >>> reader.read("Sure: {'a': 1,}").value
        {'a': 1}
    """

    schema: Schema | None = None
    shape: Shape = dataclasses.field(default_factory=Shape)
    pattern: re.Pattern[str] | None = None
    repair: Repair = "safe"
    truncated: bool = False
    prefer: Prefer = "first"
    max_chars: int = 1

    @classmethod
    def build(
        cls,
        *,
        schema: str | None = None,
        repair: Repair = "safe",
        truncated: bool = False,
        regex: str | None = None,
        prefer: Prefer = "first",
        max_chars: int | None = None,
        search_path: str | None = None,
    ) -> Reader:
        """Check the options in the order the parsers do.

        The schema is imported, then ``truncated`` with ``regex`` refused,
        then the pattern compiled, then the schema checked.

        Raises:
            ValueError: The schema cannot be imported or is unusable, the
                regex is unusable, or ``truncated`` is combined with ``regex``.
        """
        target = None if schema is None else load_schema(schema, search_path)
        pattern = None
        if regex is not None:
            if truncated:
                msg = "--truncated cannot be combined with --regex"
                raise ValueError(msg)
            pattern = compile_pattern(regex)
        checked = shape = None
        if target is not None:
            checked = Schema(target, aliases={}, max_depth=DEFAULT_MAX_DEPTH)
            shape = shape_of(checked.json_schema, checked.name)
        return cls(
            schema=checked,
            shape=shape or Shape(),
            pattern=pattern,
            repair=repair,
            truncated=truncated,
            prefer=prefer,
            max_chars=DEFAULT_MAX_CHARS if max_chars is None else max_chars,
        )

    def read(self, text: str, *, cut_off: bool = False) -> Extraction | ReplyFailure:
        """The JSON in ``text``, or why there is none (a schema failure named).

        ``cut_off``: the model said it stopped at its token limit (a pattern's
        capture is never closed, so ``regex`` leaves it out).

        Returns:
            What ``extract`` (or ``extract_with_pattern``) gives; a schema
            failure's ``detail`` is the schema's name, as the parsers set it.
        """
        if self.pattern is not None:
            found = extract_with_pattern(
                text,
                self.pattern,
                max_chars=self.max_chars,
                schema=self.schema,
                prefer=self.prefer,
                repair=self.repair,
            )
        else:
            found = extract(
                text,
                max_chars=self.max_chars,
                schema=self.schema,
                prefer=self.prefer,
                close_truncated=self.truncated,
                repair=self.repair,
                cut_off=cut_off,
            )
        if (
            isinstance(found, ReplyFailure)
            and found.kind == "schema"
            and self.schema is not None
        ):
            return dataclasses.replace(found, detail=self.schema.name)
        return found


def error_words(failure: ReplyFailure, text: str, shape: Shape) -> tuple[str, str]:
    """The error a parser raises for a failure: its class's name and message.

    Example:
        >>> error_words(extract("no json"), "no json", Shape())
        ('NoJsonFoundError', 'No JSON found in the reply.')
    """
    message = describe(_bounded(failure), text, shape).message
    return _ERROR_NAMES.get(failure.kind, _DECODE_ERROR), message


def _bounded(failure: ReplyFailure) -> ReplyFailure:
    """A schema failure's errors cut short, as the error's ``errors`` hold them."""
    if failure.kind != "schema":
        return failure
    bounded = tuple(cut_quoting_short(e) for e in failure.errors)
    return dataclasses.replace(failure, errors=bounded)


def failure_lines(failure: ReplyFailure, text: str, shape: Shape) -> list[str]:
    """What the command prints for a failure, without the ``jsonrecover:`` prefix.

    The error class's name and its message's first line, then, for a schema
    mismatch, one line per failing field (its value cut short, as the
    error's ``errors`` hold it).

    Example:
        >>> failure_lines(extract("no json"), "no json", Shape())
        ['NoJsonFoundError: No JSON found in the reply.']
    """
    name, message = error_words(failure, text, shape)
    first = next((line for line in message.splitlines() if line.strip()), message)
    lines = [f"{name}: {first}"]
    for error in _bounded(failure).errors if failure.kind == "schema" else ():
        got = f" (got {error.value})" if error.value else ""
        lines.append(f"  {error.path or 'the value'}: {error.message}{got}")
    return lines
