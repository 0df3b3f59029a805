r"""Turn almost-JSON model replies into data, or into feedback a model can act on.

Example:
    >>> from langchain_jsonrecover import JsonFenceOutputParser
    >>> JsonFenceOutputParser().parse('Here you go:\n```json\n{"a": 1}\n```')
    {'a': 1}
"""

# The one place the version is written: the build reads it from here.
__version__ = "0.1.0"

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from langchain_jsonrecover._extract import Extraction
    from langchain_jsonrecover.errors import (
        InvalidJsonError,
        JsonRecoveryError,
        NoJsonFoundError,
        ReplyTooLargeError,
        RetryExhaustedError,
        SchemaValidationError,
        UnknownToolError,
    )
    from langchain_jsonrecover.extract import extract_json
    from langchain_jsonrecover.outcomes import Continue, Halt
    from langchain_jsonrecover.parsers import (
        JsonFenceOutputParser,
        RegexJsonOutputParser,
        TruncationRecoveringOutputParser,
    )
    from langchain_jsonrecover.partial_models import partial_model
    from langchain_jsonrecover.records import recover_frame, recover_record
    from langchain_jsonrecover.retry import JsonRetryChain
    from langchain_jsonrecover.structured import structured_output
    from langchain_jsonrecover.tools import recover_tool_calls

# Each public name and the module it lives in: a name is imported when it is
# first used, so importing the package (or its pure core, as the command line
# does) loads neither LangChain nor the agents, batch, records or demo parts.
_HOMES: Final = {
    "Continue": "langchain_jsonrecover.outcomes",
    "Extraction": "langchain_jsonrecover._extract",
    "Halt": "langchain_jsonrecover.outcomes",
    "InvalidJsonError": "langchain_jsonrecover.errors",
    "JsonFenceOutputParser": "langchain_jsonrecover.parsers",
    "JsonRecoveryError": "langchain_jsonrecover.errors",
    "JsonRetryChain": "langchain_jsonrecover.retry",
    "NoJsonFoundError": "langchain_jsonrecover.errors",
    "RegexJsonOutputParser": "langchain_jsonrecover.parsers",
    "ReplyTooLargeError": "langchain_jsonrecover.errors",
    "RetryExhaustedError": "langchain_jsonrecover.errors",
    "SchemaValidationError": "langchain_jsonrecover.errors",
    "TruncationRecoveringOutputParser": "langchain_jsonrecover.parsers",
    "UnknownToolError": "langchain_jsonrecover.errors",
    "extract_json": "langchain_jsonrecover.extract",
    "partial_model": "langchain_jsonrecover.partial_models",
    "recover_frame": "langchain_jsonrecover.records",
    "recover_record": "langchain_jsonrecover.records",
    "recover_tool_calls": "langchain_jsonrecover.tools",
    "structured_output": "langchain_jsonrecover.structured",
}

__all__ = [
    "Continue",
    "Extraction",
    "Halt",
    "InvalidJsonError",
    "JsonFenceOutputParser",
    "JsonRecoveryError",
    "JsonRetryChain",
    "NoJsonFoundError",
    "RegexJsonOutputParser",
    "ReplyTooLargeError",
    "RetryExhaustedError",
    "SchemaValidationError",
    "TruncationRecoveringOutputParser",
    "UnknownToolError",
    "extract_json",
    "partial_model",
    "recover_frame",
    "recover_record",
    "recover_tool_calls",
    "structured_output",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module when it is first used."""
    home = _HOMES.get(name)
    if home is None:
        message = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(message)
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # the next use is a plain lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
