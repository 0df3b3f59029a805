"""LangChain output parsers over the extraction core.

Thin adapters: the algorithms live in the private ``_``-modules; a parser
checks for a refusal, runs the core on the reply's text and raises the typed
error. ``invoke``, ``ainvoke``, ``batch``, ``abatch`` and ``stream`` come from
LangChain's ``BaseOutputParser``.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from typing import TYPE_CHECKING, Any

from langchain_core.exceptions import ModelRefusalError
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import ConfigDict, Field, field_validator

from langchain_jsonrecover._extract import (
    DEFAULT_MAX_CHARS,
    DEFAULT_MAX_DEPTH,
    Extraction,
    Failure,
    extract,
    extract_with_pattern,
)
from langchain_jsonrecover._prompts import FORMAT_INSTRUCTIONS
from langchain_jsonrecover.errors import error_for

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["JsonFenceOutputParser", "RegexJsonOutputParser"]


def raise_if_refused(message: BaseMessage) -> None:
    """Raise ``ModelRefusalError`` when the reply is a refusal, not an answer.

    Raises:
        ModelRefusalError: The message holds a ``refusal`` content block.
    """
    for block in message.content_blocks:
        if block["type"] == "refusal":
            raise ModelRefusalError.from_refusal(block, raw_message=message)


def compile_pattern(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """Compile a JSON-capturing pattern, checking it has one capture group.

    Args:
        pattern: A ``str`` (compiled with ``re.DOTALL``) or a compiled pattern.

    Returns:
        The compiled pattern.

    Raises:
        ValueError: It does not compile, is not a ``str`` pattern, or does not
            have exactly one capture group.
    """
    if isinstance(pattern, str):
        try:
            pattern = re.compile(pattern, re.DOTALL)
        except re.error as exc:
            raise ValueError(f"pattern does not compile: {exc}") from exc
    if not isinstance(pattern, re.Pattern) or not isinstance(pattern.pattern, str):
        raise ValueError("pattern must be a str or a compiled str pattern")  # noqa: TRY004
    if pattern.groups != 1:
        raise ValueError(
            f"pattern must have exactly one capture group, it has {pattern.groups}: "
            f"{pattern.pattern!r}"
        )
    return pattern


class _JsonRecoveringParser(BaseOutputParser[Any]):
    """What every parser here shares: limits, refusal check, typed errors."""

    model_config = ConfigDict(frozen=False)

    max_chars: int = Field(default=DEFAULT_MAX_CHARS, ge=1)
    """Longer replies are refused with ``JsonRecoveryError`` before any scan."""

    max_depth: int = Field(default=DEFAULT_MAX_DEPTH, ge=1, le=1000)
    """Deeper nesting is an ``InvalidJsonError`` (never a ``RecursionError``)."""

    @abstractmethod
    def _find(self, text: str) -> Extraction | Failure:
        """Run this parser's extraction on the reply's text."""

    def extract(self, text: str) -> Extraction:
        """Find the JSON in ``text`` and say how it was found.

        Args:
            text: The model's reply.

        Returns:
            The value with its span, step and repairs.

        Raises:
            JsonRecoveryError: No usable JSON (a ``NoJsonFoundError`` or an
                ``InvalidJsonError``).
        """
        result = self._find(str(text))
        if isinstance(result, Failure):
            raise error_for(result, text)
        return result

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """Parse the first generation; a chat reply is checked for a refusal.

        Args:
            result: The model's generations; the first is parsed.
            partial: Return ``None`` instead of raising when nothing decodes.

        Returns:
            The decoded value.

        Raises:
            ModelRefusalError: The model refused.
            JsonRecoveryError: No usable JSON in the reply.
        """
        generation = result[0]
        if isinstance(generation, ChatGeneration):
            raise_if_refused(generation.message)
        found = self._find(str(generation.text))
        if isinstance(found, Failure):
            if partial:
                return None
            raise error_for(found, generation.text)
        return found.value

    def parse(self, text: str) -> Any:
        """Parse a reply given as text.

        Args:
            text: The model's reply.

        Returns:
            The decoded value.

        Raises:
            JsonRecoveryError: No usable JSON in the reply.
        """
        return self.parse_result([Generation(text=text)])

    def get_format_instructions(self) -> str:
        """Tell the model to answer with one JSON object and nothing else."""
        return FORMAT_INSTRUCTIONS


class JsonFenceOutputParser(_JsonRecoveringParser):
    r"""Parse JSON out of a reply wrapped in fences, prose and reasoning.

    The order is that of :func:`~langchain_jsonrecover.extract_json`: the
    reply itself, ``json`` fences, untagged fences, the reply from its first
    bracket, then JSON in prose. ``<think>`` blocks are skipped.

    Example:
        >>> from langchain_jsonrecover import JsonFenceOutputParser
        >>> parser = JsonFenceOutputParser()
        >>> parser.invoke('<think>hmm</think>Sure:\n```json\n{"ok": true}\n```')
        {'ok': True}
    """

    def _find(self, text: str) -> Extraction | Failure:
        return extract(text, max_chars=self.max_chars, max_depth=self.max_depth)

    @property
    def _type(self) -> str:
        return "json_fence_output_parser"


class RegexJsonOutputParser(_JsonRecoveringParser):
    """Parse the JSON captured by a regular expression.

    The pattern needs exactly one capture group. A ``str`` pattern is compiled
    with ``re.DOTALL`` (``.`` matches newlines); a compiled pattern is used as
    given. The first match counts; its capture is stripped, a fence inside it
    removed, and the rest must decode as a whole. Reasoning blocks are hidden
    from the pattern.

    Our own scans are linear in the reply; your pattern runs on Python's
    ``re`` engine, so its cost is yours: prefer lazy ``.*?`` between literal
    delimiters, and avoid nested quantifiers.

    Example:
        >>> from langchain_jsonrecover import RegexJsonOutputParser
        >>> parser = RegexJsonOutputParser(pattern=r"<json>(.*?)</json>")
        >>> parser.parse('Result: <json>{"a": [1, 2]}</json>')
        {'a': [1, 2]}
    """

    pattern: re.Pattern[str]
    """The pattern; group 1 captures the JSON."""

    format_instructions: str | None = None
    """Returned by ``get_format_instructions`` when set (say where the JSON goes)."""

    def __init__(self, pattern: str | re.Pattern[str], **kwargs: Any) -> None:
        """Create the parser.

        Args:
            pattern: A regular expression with exactly one capture group.
            **kwargs: Other fields (``max_chars``, ``max_depth``,
                ``format_instructions``).

        Raises:
            ValueError: The pattern does not have exactly one capture group,
                or does not compile.
        """
        super().__init__(pattern=compile_pattern(pattern), **kwargs)

    @field_validator("pattern", mode="before")
    @classmethod
    def _compile(cls, value: str | re.Pattern[str]) -> re.Pattern[str]:
        return compile_pattern(value)

    def _find(self, text: str) -> Extraction | Failure:
        return extract_with_pattern(
            text, self.pattern, max_chars=self.max_chars, max_depth=self.max_depth
        )

    def get_format_instructions(self) -> str:
        """The instructions given at construction, else the generic ones."""
        return self.format_instructions or FORMAT_INSTRUCTIONS

    @property
    def _type(self) -> str:
        return "regex_json_output_parser"
