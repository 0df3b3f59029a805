r"""Turn almost-JSON model replies into data, or into feedback a model can act on.

Example:
    >>> from langchain_jsonrecover import JsonFenceOutputParser
    >>> JsonFenceOutputParser().parse('Here you go:\n```json\n{"a": 1}\n```')
    {'a': 1}
"""

# The one place the version is written: the build reads it from here.
__version__ = "0.1.0"

from langchain_jsonrecover._core.extract import Extraction
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
from langchain_jsonrecover.records import recover_frame, recover_record
from langchain_jsonrecover.retry import JsonRetryChain
from langchain_jsonrecover.structured import structured_output
from langchain_jsonrecover.tools import recover_tool_calls

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
    "recover_frame",
    "recover_record",
    "recover_tool_calls",
    "structured_output",
]
