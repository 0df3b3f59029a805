"""The keys of each envelope kind, in one place: what may be unwrapped silently.

Pure data and small functions; no LangChain imports.

A model wraps a tool call (or a payload) in an envelope of a known kind. An
envelope is unwrapped only when it holds its kind's keys and nothing else: a
member beyond them (``{"name": …, "arguments": …, "format": "24h"}``) says
something the arguments do not, so dropping it would change the call.

Kinds and their keys:

- a call: :data:`CALL_NAME_KEYS` (``name``, ``tool_name``), one of
  :data:`CALL_ARGUMENT_KEYS` (``arguments`` or its synonym ``parameters``),
  and optionally ``id`` and ``type`` (``"function"``): :data:`CALL_KEYS`;
- a chat API's function wrapper, ``{"type": "function", "function": {call},
  "id": …}``: :data:`FUNCTION_WRAPPER_KEYS` outside, a call inside;
- JSON-RPC (MCP's ``tools/call`` and kin): :data:`JSONRPC_KEYS` (``jsonrpc``,
  ``method``, ``id``, ``params``); ``params`` holds a call envelope, or, for
  any method but ``tools/call``, the method's arguments themselves.

:func:`read_call_envelope` reads the first two kinds from a decoded value,
:func:`read_jsonrpc_arguments` the third;
:func:`extra_keys` names what a value holds beyond a kind's keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

CALL_NAME_KEYS: Final = ("name", "tool_name")
"""The keys that name the tool in a call envelope, in order of preference."""
CALL_ARGUMENT_KEYS: Final = ("arguments", "parameters")
"""The keys that hold a call's arguments (an object, or JSON in a string)."""
CALL_KEYS: Final = frozenset({*CALL_NAME_KEYS, *CALL_ARGUMENT_KEYS, "id", "type"})
"""Every key a call envelope may hold (one name key and one arguments key)."""
FUNCTION_WRAPPER_KEYS: Final = frozenset({"type", "function", "id"})
"""The keys around a call nested as in a chat API (``"function": {call}``)."""
JSONRPC_KEYS: Final = frozenset({"jsonrpc", "method", "id", "params"})
"""The keys of a JSON-RPC request (MCP's ``tools/call`` and kin)."""
MCP_CALL_METHOD: Final = "tools/call"
"""The JSON-RPC method whose ``params`` must be a call envelope."""

KINDS: Final = {
    "call": CALL_KEYS,
    "function": FUNCTION_WRAPPER_KEYS,
    "jsonrpc": JSONRPC_KEYS,
}
"""Each envelope kind's keys, by kind."""


@dataclass(frozen=True, slots=True)
class CallEnvelope:
    """A call envelope read from a decoded value.

    Example:
        >>> read_call_envelope({"name": "f", "arguments": {"a": 1}, "format": "x"})
        CallEnvelope(name='f', arguments={'a': 1}, extra=('format',))
    """

    name: str
    arguments: Any
    """As written: an object, a JSON string, or anything else (refused later)."""
    extra: tuple[str, ...] = ()
    """Keys beyond the kind's (a second name or arguments key counts): the
    envelope is not a call that may be unwrapped silently."""


def extra_keys(value: dict[str, Any], kind: str) -> tuple[str, ...]:
    """The keys of ``value`` beyond those of envelope ``kind``, in order.

    Args:
        value: A decoded JSON object.
        kind: ``"call"``, ``"function"`` or ``"jsonrpc"``.

    Returns:
        The keys no envelope of that kind holds; empty when there are none.

    Example:
        >>> extra_keys({"jsonrpc": "2.0", "method": "tools/call", "x": 1}, "jsonrpc")
        ('x',)
    """
    allowed = KINDS[kind]
    return tuple(key for key in value if key not in allowed)


def read_call_envelope(value: Any) -> CallEnvelope | None:
    """The call a decoded value is an envelope of, or ``None``.

    ``None`` when the value names no tool or holds no arguments key: it is
    not a call envelope at all. Otherwise the call, with the keys it holds
    beyond its kind's (``type`` other than ``"function"``, a second name or
    arguments key, or any other member, inside or around a function wrapper).

    Example:
        >>> read_call_envelope({"type": "function", "function":
        ...     {"name": "f", "parameters": {}}})
        CallEnvelope(name='f', arguments={}, extra=())
        >>> read_call_envelope({"name": "Ada", "age": 36}) is None
        True
    """
    if not isinstance(value, dict):
        return None
    outer: tuple[str, ...] = ()
    if isinstance(value.get("function"), dict):
        outer = extra_keys(value, "function")
        if value.get("type", "function") != "function":
            outer = ("type", *outer)
        value = value["function"]
    names = [k for k in CALL_NAME_KEYS if isinstance(value.get(k), str)]
    arguments = [k for k in CALL_ARGUMENT_KEYS if k in value]
    if not names or not arguments:
        return None
    extra = [*outer, *names[1:], *arguments[1:], *extra_keys(value, "call")]
    if value.get("type", "function") != "function":
        extra.append("type")
    return CallEnvelope(value[names[0]], value[arguments[0]], tuple(extra))


def called_name(value: Any) -> str | None:
    """The tool a call in any envelope form names, or ``None``.

    The forms the schema reading unwraps: a call envelope (or the chat APIs'
    ``function`` form), a list of one, a JSON-RPC request (its ``method``)
    and MCP's ``tools/call`` (the call in its ``params``).

    Example:
        >>> called_name([{"name": "search", "arguments": {}}])
        'search'
        >>> called_name({"jsonrpc": "2.0", "method": "search", "params": {}})
        'search'
        >>> called_name({"jsonrpc": "2.0", "method": "tools/call",
        ...     "params": {"name": "f", "arguments": {}}})
        'f'
        >>> called_name({"name": "Ada"}) is None
        True
    """
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    call = read_call_envelope(value)
    if call is not None:
        return call.name
    if not isinstance(value, dict) or "jsonrpc" not in value:
        return None
    call = read_call_envelope(value.get("params"))
    if call is not None:
        return call.name
    method = value.get("method")
    return method if isinstance(method, str) and method != MCP_CALL_METHOD else None


def read_jsonrpc_arguments(value: Any) -> Any:
    """The arguments a JSON-RPC request carries, each level checked, or ``None``.

    ``None`` when ``value`` is no JSON-RPC request (no ``jsonrpc`` key), holds
    a key beyond :data:`JSONRPC_KEYS`, or its ``params`` is a call envelope
    holding keys beyond a call's; a ``tools/call`` request must hold a call
    envelope, any other method's object ``params`` are its arguments.

    Example:
        >>> read_jsonrpc_arguments({"jsonrpc": "2.0", "method": "tools/call",
        ...     "params": {"name": "f", "arguments": {"a": 1}}})
        {'a': 1}
        >>> read_jsonrpc_arguments({"jsonrpc": "2.0", "method": "eval",
        ...     "params": {"x": "1+2"}})
        {'x': '1+2'}
        >>> read_jsonrpc_arguments({"jsonrpc": "2.0", "method": "eval",
        ...     "params": {"x": 1}, "meta": {}}) is None
        True
    """
    if not isinstance(value, dict) or "jsonrpc" not in value:
        return None
    if extra_keys(value, "jsonrpc"):
        return None
    params = value.get("params")
    call = read_call_envelope(params)
    if call is not None:
        return None if call.extra else call.arguments
    if value.get("method") == MCP_CALL_METHOD or not isinstance(params, dict):
        return None
    return params
