"""What a parser's ``process()`` step answers: go on, or stop and ask again.

A reply that parses lets the chain go on with the value; one that does not
halts it with a user message telling the model what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage, HumanMessage

    from langchain_jsonrecover.errors import JsonRecoveryError

__all__ = ["Continue", "Halt"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Continue(Generic[T]):
    """The reply parsed: go on with ``value``.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover import Continue, JsonFenceOutputParser
        >>> step = JsonFenceOutputParser().process(AIMessage('{"a": 1}'))
        >>> isinstance(step, Continue), step.value
        (True, {'a': 1})
    """

    value: T
    """The parsed (and, with a schema, validated) value."""
    message: BaseMessage
    """The reply it came from, unchanged."""


@dataclass(frozen=True, slots=True)
class Halt:
    """The reply did not parse: send ``feedback`` to the model and ask again.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover import Halt, JsonFenceOutputParser
        >>> step = JsonFenceOutputParser().process(AIMessage("Sorry, no."))
        >>> isinstance(step, Halt)
        True
        >>> print(step.feedback.content)
        Your reply contains no JSON. Respond with only the JSON object, and ...
    """

    feedback: HumanMessage
    """A user message saying what was wrong and what to send instead."""
    error: JsonRecoveryError
    """The error the reply raised (its ``llm_output`` is the reply)."""
