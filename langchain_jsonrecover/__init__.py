r"""Turn almost-JSON model replies into data, or into feedback a model can act on.

Example:
    >>> from langchain_jsonrecover import JsonFenceOutputParser
    >>> JsonFenceOutputParser().parse('Here you go:\n```json\n{"a": 1}\n```')
    {'a': 1}
"""

from langchain_jsonrecover._extract import Extraction
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    JsonRecoveryError,
    NoJsonFoundError,
    SchemaValidationError,
)
from langchain_jsonrecover.extract import extract_json
from langchain_jsonrecover.outcomes import Continue, Halt
from langchain_jsonrecover.parsers import (
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
)

__all__ = [
    "Continue",
    "Extraction",
    "Halt",
    "InvalidJsonError",
    "JsonFenceOutputParser",
    "JsonRecoveryError",
    "NoJsonFoundError",
    "RegexJsonOutputParser",
    "SchemaValidationError",
    "TruncationRecoveringOutputParser",
    "extract_json",
]
