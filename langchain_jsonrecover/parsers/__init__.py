"""LangChain output parsers over the extraction core.

Thin adapters: the algorithms live in the private ``_``-modules; a parser
checks for a refusal, runs the core on the reply's text and raises the typed
error. ``invoke``, ``ainvoke``, ``batch``, ``abatch`` and ``stream`` come from
LangChain's ``BaseOutputParser``.
"""

from __future__ import annotations

import re  # noqa: TC003 - pydantic reads the pattern field's type at runtime
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, overload

from pydantic import field_validator

from langchain_jsonrecover._core.extract import Extraction, ReplyFailure
from langchain_jsonrecover._core.extract_pattern import extract_with_pattern
from langchain_jsonrecover._core.patterns import compile_pattern
from langchain_jsonrecover.parsers.base import _JsonRecoveringParser

if TYPE_CHECKING:
    from langchain_jsonrecover._core.levels import Repair
    from langchain_jsonrecover._core.schema.validate import Schema

__all__ = [
    "JsonFenceOutputParser",
    "RegexJsonOutputParser",
    "TruncationRecoveringOutputParser",
]

T = TypeVar("T")


class JsonFenceOutputParser(_JsonRecoveringParser[T]):
    r"""Parse JSON out of a reply wrapped in fences, prose and reasoning.

    The order is that of :func:`~langchain_jsonrecover.extract_json`: the
    reply itself, ``json`` fences, untagged fences, the reply from its first
    bracket, then JSON in prose. ``<think>`` blocks are skipped. With a
    schema, the first candidate that validates wins.

    Example:
        >>> from pydantic import BaseModel
        >>> from langchain_jsonrecover import JsonFenceOutputParser
        >>> JsonFenceOutputParser().invoke('<think>…</think>```json\n{"ok": 1}\n```')
        {'ok': 1}
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> parser = JsonFenceOutputParser(pydantic_object=Person)
        >>> parser.parse('Draft: {"foo": 1} Final: {"name": "Ada", "age": "36"}')
        Person(name='Ada', age=36)
    """

    @overload
    def __init__(
        self: JsonFenceOutputParser[Any], *, pydantic_object: None = None, **kwargs: Any
    ) -> None: ...
    @overload
    def __init__(
        self: JsonFenceOutputParser[dict[str, Any]],
        *,
        pydantic_object: dict[str, Any],
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __init__(
        self: JsonFenceOutputParser[T], *, pydantic_object: type[T], **kwargs: Any
    ) -> None: ...
    def __init__(self, **kwargs: Any) -> None:
        """Create the parser.

        Args:
            **kwargs: The fields: ``pydantic_object``, ``prefer``,
                ``field_aliases``, ``feedback``, ``max_chars``, ``max_depth``.

        Raises:
            ValueError: A field is out of range, or the schema is unusable.
        """
        super().__init__(**kwargs)

    @property
    def _type(self) -> str:
        return "json_fence_output_parser"


class TruncationRecoveringOutputParser(_JsonRecoveringParser[T]):
    r"""Parse replies that the token limit cut off, closing the JSON.

    It extracts exactly as :class:`JsonFenceOutputParser` does (same options),
    and where that parser reports a truncated candidate (open at the end of
    the reply, or in an unclosed fence), this one closes it as a whole, with
    pydantic-core's partial-JSON semantics: an unfinished string keeps its
    prefix, an unfinished key or a key without a value is dropped, an
    unfinished literal (``tr``, ``nul``) is dropped, and so is a number at the
    cut (its last digits may be missing); open containers are closed.
    ``"truncation_closed"`` is listed in the repairs. With a schema, a field
    whose value the cut removed is an error, never its default. A reply that
    ends right after a closer is closed only when the message says the model
    stopped at its token limit (a lost inner closer reads so too). A value
    nested inside the cut candidate is never returned alone.

    Example:
        >>> from langchain_jsonrecover import TruncationRecoveringOutputParser
        >>> parser = TruncationRecoveringOutputParser()
        >>> parser.parse('```json\n{"items": [{"a": 1}, {"b"')
        {'items': [{'a': 1}, {}]}
        >>> parser.parse("[101, 102, 10")
        [101, 102]
        >>> TruncationRecoveringOutputParser(trim_runaway_newlines=True).parse(
        ...     '{"page_text": "Hello\\n\\n\\n\\n\\n'
        ... )
        {'page_text': 'Hello'}
    """

    trim_runaway_newlines: bool = False
    """When the cut is inside a string opened at depth 1, the string ends
    after its last character that is not part of a ``\n``/``\r`` escape run
    (a model looping on newlines until the limit). Strings nested deeper are
    closed by the general rule, untrimmed."""

    _closes_truncation: ClassVar[bool] = True

    @overload
    def __init__(
        self: TruncationRecoveringOutputParser[Any],
        *,
        pydantic_object: None = None,
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __init__(
        self: TruncationRecoveringOutputParser[dict[str, Any]],
        *,
        pydantic_object: dict[str, Any],
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __init__(
        self: TruncationRecoveringOutputParser[T],
        *,
        pydantic_object: type[T],
        **kwargs: Any,
    ) -> None: ...
    def __init__(self, **kwargs: Any) -> None:
        """Create the parser.

        Args:
            **kwargs: The fields: ``trim_runaway_newlines``, and those of
                :class:`JsonFenceOutputParser`.

        Raises:
            ValueError: A field is out of range, or the schema is unusable.
        """
        super().__init__(**kwargs)

    def _trims_newlines(self) -> bool:
        return self.trim_runaway_newlines

    @property
    def _type(self) -> str:
        return "truncation_recovering_output_parser"


class RegexJsonOutputParser(_JsonRecoveringParser[T]):
    """Parse the JSON captured by a regular expression.

    The pattern needs exactly one capture group. A ``str`` pattern is compiled
    with ``re.DOTALL`` (``.`` matches newlines); a compiled pattern is used as
    given. The first match counts (the last, with ``prefer="last"``); its
    capture is stripped, a fence inside it removed, and the rest must decode
    as a whole. Reasoning blocks are hidden from the pattern.

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

    @overload
    def __init__(
        self: RegexJsonOutputParser[Any],
        pattern: str | re.Pattern[str],
        *,
        pydantic_object: None = None,
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __init__(
        self: RegexJsonOutputParser[dict[str, Any]],
        pattern: str | re.Pattern[str],
        *,
        pydantic_object: dict[str, Any],
        **kwargs: Any,
    ) -> None: ...
    @overload
    def __init__(
        self: RegexJsonOutputParser[T],
        pattern: str | re.Pattern[str],
        *,
        pydantic_object: type[T],
        **kwargs: Any,
    ) -> None: ...
    def __init__(self, pattern: str | re.Pattern[str], **kwargs: Any) -> None:
        """Create the parser.

        Args:
            pattern: A regular expression with exactly one capture group.
            **kwargs: Other fields (``pydantic_object``, ``prefer``,
                ``field_aliases``, ``feedback``, ``format_instructions``,
                ``max_chars``, ``max_depth``).

        Raises:
            ValueError: The pattern does not have exactly one capture group,
                or does not compile; or a field is out of range.
        """
        super().__init__(pattern=compile_pattern(pattern), **kwargs)

    @field_validator("pattern", mode="before")
    @classmethod
    def _compile(cls, value: str | re.Pattern[str]) -> re.Pattern[str]:
        return compile_pattern(value)

    def _find(self, text: str, *, cut_off: bool = False) -> Extraction | ReplyFailure:
        del cut_off  # a capture is never closed
        return self._match(text, schema=self._schema_read(), repair=self.repair)

    def _partial(self, text: str) -> Any:
        # The capture is complete once the pattern matches: no closing needed.
        found = self._match(text, schema=None, repair=False)
        return found.value if isinstance(found, Extraction) else None

    def _match(
        self, text: str, *, schema: Schema | None, repair: Repair
    ) -> Extraction | ReplyFailure:
        return extract_with_pattern(
            text,
            self.pattern,
            max_chars=self.max_chars,
            max_depth=self.max_depth,
            schema=schema,
            prefer=self.prefer,
            repair=repair,
        )

    def get_format_instructions(self) -> str:
        """The instructions given at construction, else the generic ones."""
        return self.format_instructions or super().get_format_instructions()

    @property
    def _type(self) -> str:
        return "regex_json_output_parser"
