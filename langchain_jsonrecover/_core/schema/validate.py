"""Validate decoded JSON against a schema, unwrapping the envelopes models add.

Pure functions and small classes over pydantic (and, optionally, jsonschema);
no LangChain imports.

A schema is a pydantic model, anything ``pydantic.TypeAdapter`` accepts
(TypedDict, dataclass, ``list[Model]``, ``int`` …), or a JSON-schema ``dict``
(validated with the optional ``jsonschema`` package). Validation is pydantic's
lax mode: ``"36"`` becomes ``36``.

Envelopes (one level, and only when the value itself does not validate, or
validates without filling a single field; never through a key that is a field
of the schema, nor when the value holds a field of the schema, present but
invalid: its errors stand; and only when the inner value validates *and*
fills a field):

- ``{"arguments": {…}}`` and ``{"name": …, "parameters"|"arguments": {…}}``:
  a tool call written out as text (arguments may be a JSON string);
- ``{"type": "function", "function": {"name": …, "parameters": {…}}}``: the
  same, nested as in a chat API's tool call;
- ``{"jsonrpc": "2.0", "method": …, "params": {…}}``: a JSON-RPC request
  (``read_jsonrpc_arguments``: each level its own kind's keys only);
- ``{"properties": {…}}``: the schema echoed back with the data inside;
- ``{"<ModelName>": {…}}``: the data under the schema's name;
- a JSON string holding JSON: the answer encoded twice;
- an agent SDK's result message, a list of one text content block or of one
  call, and a bare array of objects for the schema's one array field
  (``agent_payloads``).

Then the schema-aligned reading (``_align``): the value, and each envelope's
inner value, read once through the schema; it counts only when it validates
and fills a field. What that reading refuses (``_schema_keys``: a wrapper
whose key does not name the payload, a unit-suffixed key for a missing field,
two keys for one field) is an error, ``Rejected.refused``; so are two
``field_aliases`` keys for one field with different values.

When no reading validates, the errors of one that holds a key the schema knows
are reported (such a key says the data was meant for us), even when the outer
value would validate with defaults alone; otherwise the outer value's errors
stand.
"""

from __future__ import annotations

import dataclasses
import importlib
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.reply.envelopes import read_jsonrpc_arguments
from langchain_jsonrecover._core.schema.align import Aligner
from langchain_jsonrecover._core.schema.keys import (
    CALL_ARGUMENTS_IGNORED,
    Refusal,
    beside_a_field,
    holds_call_arguments,
    keys_refused,
)
from langchain_jsonrecover._core.schema.payload import agent_payloads
from langchain_jsonrecover._core.schema.words import format_path

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from pydantic import BaseModel, TypeAdapter
    from pydantic_core import ValidationError

_VALUE_WIDTH: Final = 60
_TOOL_CALL_KEYS: Final = frozenset({"type", "function", "id", "index"})
_NOT_HELD: Final = frozenset({"missing", "extra_forbidden"})
"""Errors that do not show a field of the schema present in the value."""


@dataclass(frozen=True, slots=True)
class FieldError:
    """One reason a value does not match the schema."""

    path: str
    """Where: ``age``, ``items[2].name``; ``""`` for the value as a whole."""
    message: str
    """What pydantic (or jsonschema) says, without URLs."""
    value: str
    """The offending value as compact JSON, cut short; ``""`` when missing."""


@dataclass(frozen=True, slots=True)
class Accepted:
    """A value that matches the schema."""

    value: Any
    repairs: tuple[str, ...] = ()
    aligned: bool = field(default=False, repr=False)
    """Read through the schema (``_align``), not as it stands or unwrapped."""


@dataclass(frozen=True, slots=True)
class Rejected:
    """A value that does not match the schema, and why."""

    errors: tuple[FieldError, ...]
    holds_fields: bool = field(default=False, repr=False)
    """A field of the schema is in the value, present but invalid: the value
    was meant as the answer, so no envelope inside it is read instead."""
    refused: bool = field(default=False, repr=False)
    """The reading refused the value (``_schema_keys``): it holds the answer
    in a form that must be asked again, so no later candidate stands in."""


class Schema:
    """A validation target, with what the prompts need to know about it.

    Example:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     name: str
        ...     age: int
        >>> Schema(Person).accept({"arguments": {"name": "Ada", "age": "36"}})
        Accepted(value=Person(name='Ada', age=36), repairs=('unwrapped_arguments',))
    """

    def __init__(
        self,
        target: Any,
        *,
        aliases: Mapping[str, str] | None = None,
        max_depth: int = 200,
    ) -> None:
        """Prepare a target for validation.

        Args:
            target: A pydantic model, a type ``TypeAdapter`` accepts, or a
                JSON-schema ``dict``.
            aliases: Top-level keys renamed before validation.
            max_depth: Nesting limit for JSON decoded out of strings.

        Raises:
            ValueError: The target is not a usable schema, or it is a ``dict``
                and ``jsonschema`` is not installed.
        """
        self.target = target
        self.aliases = dict(aliases or {})
        self.max_depth = max_depth
        self._validator: Any = None
        self._adapter: TypeAdapter[Any] | None = None
        if isinstance(target, dict):
            self.json_schema: dict[str, Any] = target
            self._validator = _json_schema_validator(target)
            self.name = str(target.get("title", ""))
        else:
            # pydantic is imported by the first schema (the core's callers
            # without one, the command line's included, do not load it).
            from pydantic import TypeAdapter  # noqa: PLC0415
            from pydantic_core import ValidationError  # noqa: PLC0415 - pydantic's own

            self._invalid: type[ValidationError] = ValidationError

            try:
                self._adapter = TypeAdapter(target)
                self.json_schema = self._adapter.json_schema()
            except Exception as exc:
                msg = f"not a usable schema: {target!r} ({exc})"
                raise ValueError(msg) from exc
            self.name = getattr(target, "__name__", "") or str(
                self.json_schema.get("title", "")
            )
        self.fields = frozenset(_top_level_keys(self.json_schema, target))
        self._aligner = Aligner(
            self.json_schema, max_depth=min(max_depth, 64), name=self.name
        )

    def accept(self, value: Any) -> Accepted | Rejected:
        """Validate a decoded value, unwrapping one envelope if that is what fits.

        An envelope is unwrapped only when its inner value validates and fills
        a field from the input. A value that validates only with defaults never
        hides the errors of an inner value holding the schema's keys, nor
        does one that leaves a field to its default while holding it under a
        key that differs only in spelling (``"Age"`` for ``age``).

        Args:
            value: A decoded JSON value.

        Returns:
            The validated value with the repairs made, or the errors to report.
        """
        outer = self._validate(value)
        if (
            isinstance(outer, Accepted)
            and not self.fills_nothing(value)
            and holds_call_arguments(value, self.fields, self._decoded)
        ):
            # Valid only by ignoring a call's arguments: they answer, or none.
            outer = Rejected((FieldError("", CALL_ARGUMENTS_IGNORED, ""),))
        if isinstance(outer, Accepted) and not self.fills_nothing(value):
            if not self._aligner.hides_a_field(value):
                return outer
            # Valid only by leaving a field to its default while the reply
            # holds it under a near key (at any depth), or with a key the
            # reading refuses: read that key, or report why not.
            aligned, made, refused = self._aligner.read(value)
            if refused:
                return _refused(refused)
            result = self._validate(aligned)
            if isinstance(result, Accepted):
                return Accepted(result.value, (*made, *result.repairs), aligned=True)
            return result
        inner_errors: Rejected | None = None
        # An outer value holding a field of ours, present but invalid, is the
        # answer: its errors stand, not an envelope's inner value.
        held = isinstance(outer, Rejected) and outer.holds_fields
        readings: list[tuple[tuple[str, ...], Any]] = (
            [] if held else [((r,), inner) for r, inner in self._envelopes(value)]
        )
        for repairs, inner in readings:
            result = self._validate(inner)
            if isinstance(result, Accepted) and self._fills(inner):
                return Accepted(result.value, (*repairs, *result.repairs))
            if isinstance(result, Rejected) and self._meant_for_us(inner):
                inner_errors = inner_errors or result
        # Known envelopes first, so that one is named as such when read.
        refusals: tuple[Refusal, ...] = ()
        for repairs, inner in [*readings, ((), value)]:
            aligned, made, refused = self._aligner.read(inner, unwrap=not repairs)
            if refused:
                refusals = refusals or refused
                continue
            if not made:
                continue
            result = self._validate(aligned)
            if isinstance(result, Accepted) and self._aligner.fills(aligned):
                return Accepted(
                    result.value, (*repairs, *made, *result.repairs), aligned=True
                )
            if isinstance(result, Rejected) and self._meant_for_us(aligned):
                inner_errors = inner_errors or result
        if refusals:
            return _refused(refusals)
        return inner_errors or outer

    def _meant_for_us(self, value: Any) -> bool:
        """Whether a failing value holds a key of the schema: its errors count."""
        return isinstance(value, dict) and self._knows(value)

    def _validate(self, value: Any) -> Accepted | Rejected:
        repairs: tuple[str, ...] = ()
        if self.aliases and isinstance(value, dict):
            refused = _alias_clash(value, self.aliases)
            if refused is not None:
                return _refused((refused,))
            renamed = _rename(value, self.aliases)
            if renamed is not value:
                value, repairs = renamed, ("fields_renamed",)
        if self._adapter is not None:
            try:
                return Accepted(self._adapter.validate_python(value), repairs)
            except self._invalid as exc:
                held = isinstance(value, dict) and any(
                    e["type"] not in _NOT_HELD
                    and e["loc"]
                    and e["loc"][0] in self.fields
                    and e["loc"][0] in value
                    for e in exc.errors(include_url=False)
                )
                return Rejected(tuple(_pydantic_errors(exc)), holds_fields=held)
        errors = sorted(self._validator.iter_errors(value), key=lambda e: list(e.path))
        if not errors:
            return Accepted(value, repairs)
        held = isinstance(value, dict) and any(
            e.validator != "required"
            and e.absolute_path
            and e.absolute_path[0] in self.fields
            and e.absolute_path[0] in value
            for e in errors
        )
        return Rejected(tuple(_jsonschema_error(e) for e in errors), holds_fields=held)

    def _knows(self, value: dict[str, Any]) -> bool:
        return any(key in self.fields or key in self.aliases for key in value)

    def fills_nothing(self, value: Any) -> bool:
        """Whether a dict holds none of the schema's keys (defaults only)."""
        return (
            isinstance(value, dict)
            and bool(value)
            and bool(self.fields)
            and not self._knows(value)
        )

    def _fills(self, value: Any) -> bool:
        """Whether a value fills at least one field from the input."""
        if isinstance(value, dict):
            return self._knows(value) if self.fields else bool(value)
        return not isinstance(value, list) or bool(value)

    def _envelopes(self, value: Any) -> Iterator[tuple[str, Any]]:
        """Inner values a known envelope may hold; never through or beside a field."""
        if isinstance(value, str):
            decoded = self._decode_string(value)
            if decoded is not None:
                yield "decoded_json_string", decoded.value
            return
        yield from agent_payloads(value, self.json_schema, max_depth=self.max_depth)
        if not isinstance(value, dict):
            return
        if beside_a_field(value, self.fields):
            return
        for key in ("arguments", "parameters"):
            if (
                key in value
                and key not in self.fields
                and (key == "arguments" or "name" in value)
            ):
                yield f"unwrapped_{key}", self._decoded(value[key])
        function = value.get("function")
        if (
            "function" not in self.fields
            and isinstance(function, dict)
            and set(value) <= _TOOL_CALL_KEYS
        ):
            for key in ("arguments", "parameters"):
                if key in function and "name" in function:
                    yield "tool_envelope_unwrapped", self._decoded(function[key])
        if "params" not in self.fields:
            jsonrpc = read_jsonrpc_arguments(value)
            if jsonrpc is not None:
                yield "jsonrpc_unwrapped", self._decoded(jsonrpc)
        if "properties" not in self.fields and isinstance(
            value.get("properties"), dict
        ):
            yield "unwrapped_properties", value["properties"]
        if len(value) == 1 and self.name:
            ((key, inner),) = value.items()
            if key.lower() == self.name.lower() and key not in self.fields:
                yield "unwrapped_model_name", inner

    def _decoded(self, inner: Any) -> Any:
        """Arguments as a tool call sends them: an object, or JSON in a string."""
        if isinstance(inner, str):
            decoded = self._decode_string(inner)
            return decoded.value if decoded is not None else inner
        return inner

    def _decode_string(self, text: str) -> Decoded | None:
        if not text.lstrip().startswith(("{", "[")):
            return None
        result = decode(text, max_depth=self.max_depth, allow_trailing=False)
        return result if isinstance(result, Decoded) else None


def _refused(refusals: tuple[Refusal, ...]) -> Rejected:
    """What the reading refused, as the errors to report."""
    errors = tuple(FieldError(r.path, r.message, r.value) for r in refusals)
    return Rejected(errors, holds_fields=True, refused=True)


def _alias_clash(value: dict[str, Any], aliases: Mapping[str, str]) -> Refusal | None:
    """Two keys that name one field (by ``aliases``), with different values."""
    holders: dict[str, list[str]] = {}
    for key in value:
        target = aliases.get(key)
        if target is not None and target != key:
            holders.setdefault(target, [target] if target in value else []).append(key)
    for target, keys in holders.items():
        first = value[keys[0]]
        if any(value[k] != first for k in keys[1:]):
            return keys_refused(target, keys)
    return None


def _rename(value: dict[str, Any], aliases: Mapping[str, str]) -> dict[str, Any]:
    if not any(key in aliases for key in value):
        return value
    renamed: dict[str, Any] = {}
    for key, item in value.items():
        target = aliases.get(key, key)
        if target != key and target in value:
            target = key  # the real key is there too: keep both as written
        renamed.setdefault(target, item)
    return renamed


def _top_level_keys(json_schema: dict[str, Any], target: Any) -> set[str]:
    keys: set[str] = set()
    node = resolve_ref(json_schema, json_schema)
    properties = node.get("properties")
    if isinstance(properties, dict):
        keys.update(properties)
    if isinstance(target, type) and issubclass(target, _base_model()):
        keys.update(target.model_fields)
    elif isinstance(target, type) and dataclasses.is_dataclass(target):
        keys.update(f.name for f in dataclasses.fields(target))
    return keys


def resolve_ref(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local ``$ref`` (``#/$defs/Name``) one step."""
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part, {}) if isinstance(target, dict) else {}
    return target if isinstance(target, dict) else node


def _pydantic_errors(exc: ValidationError) -> Iterator[FieldError]:
    for error in exc.errors(include_url=False):
        value = "" if error["type"] == "missing" else _short(error.get("input"))
        yield FieldError(format_path(error["loc"]), error["msg"], value)


def _jsonschema_error(error: Any) -> FieldError:
    return FieldError(
        format_path(tuple(error.absolute_path)), error.message, _short(error.instance)
    )


def two_readings(
    first: tuple[Any, int, bool], second: tuple[Any, int, bool]
) -> FieldError:
    """The error of two candidates that give two values: which is the answer?

    Args:
        first: The earlier candidate's value, offset in the reply, and whether
            it was read through the schema or repaired (else: as it stands).
        second: The same, for the later one.
    """
    said = [
        f"{_short(_plain(value))} at offset {start}"
        + (" (read through the schema or repaired)" if read else " (as it stands)")
        for value, start, read in (first, second)
    ]
    message = (
        f"two readings: {said[0]} and {said[1]}; "
        "send only the answer, as it should stand"
    )
    return FieldError("", message, "")


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if is_model(value) else value


def _base_model() -> type[BaseModel]:
    from pydantic import BaseModel  # noqa: PLC0415 - see is_model

    return BaseModel


def is_model(value: object) -> bool:
    """Whether ``value`` is a pydantic model instance.

    pydantic is not imported to answer: no instance exists before
    ``pydantic.main`` is loaded.

    Example:
        >>> from pydantic import BaseModel
        >>> class Point(BaseModel):
        ...     x: int
        >>> is_model(Point(x=1)), is_model({"x": 1})
        (True, False)
    """
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, main.BaseModel)


def _short(value: Any) -> str:
    try:
        text = orjson.dumps(value, default=str).decode()
    except TypeError:
        text = str(value)
    if len(text) > _VALUE_WIDTH:
        text = text[: _VALUE_WIDTH - 1] + "…"
    return text


def _json_schema_validator(schema: dict[str, Any]) -> Any:
    try:
        jsonschema = importlib.import_module("jsonschema")
    except ImportError as exc:
        msg = (
            "a JSON-schema dict needs the jsonschema package: "
            "pip install 'langchain-jsonrecover[jsonschema]'"
        )
        raise ValueError(msg) from exc
    validator_class = jsonschema.validators.validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        msg = f"not a valid JSON schema: {exc.message}"
        raise ValueError(msg) from exc
    return validator_class(schema)
