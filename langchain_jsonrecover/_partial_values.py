"""Typed partial values: a streamed reply's partial JSON as a partial model.

Internal; the entry point is :func:`langchain_jsonrecover.streaming.typed_partials`.
The partial JSON (from ``extract_partial``) holds only final numbers and
literals; the one value that may still change is the string at the cut, which
is always the last leaf (the last key of the last open object, the last item
of the last open list). So a value on that rightmost path is withheld unless
it may grow as it is shown: a plain ``str`` (it grows by appending), a model
(its fields are pruned the same way), a list (its last item is). What stays is
validated with the same field types as the final value; what fails is left
out. A list stops at its first item left out, so no item shifts place.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Final, Union

from pydantic import BaseModel, RootModel, TypeAdapter, ValidationError

from langchain_jsonrecover.partial_models import PartialBase, partial_type

__all__ = ["Converter", "extends"]

_DROP: Final = object()
_ROUNDS: Final = 3
"""Validation rounds: each one leaves out what the last one rejected."""


def _unwrap(tp: Any) -> Any:
    """``X`` for ``X | None``, else the type itself."""
    if typing.get_origin(tp) in {Union, types.UnionType}:
        args = typing.get_args(tp)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return rest[0]
    return tp


def _keys(model: type[BaseModel]) -> dict[str, str]:
    """The JSON keys a model's fields are read from, each to its field."""
    by_name = bool(
        model.model_config.get("populate_by_name")
        or model.model_config.get("validate_by_name")
    )
    checked = {
        name
        for decorator in model.__pydantic_decorators__.field_validators.values()
        for name in decorator.info.fields
    }
    keys: dict[str, str] = {}
    for name, info in model.model_fields.items():
        if name in checked or "*" in checked:
            continue  # a validator of its own: shown only in the final value
        alias = (
            info.validation_alias if isinstance(info.validation_alias, str) else None
        )
        alias = alias or info.alias
        if alias is None or by_name:
            keys[name] = name
        if alias is not None:
            keys[alias] = name
    return keys


def _prune(tp: Any, value: Any, *, at_end: bool) -> Any:
    tp = _unwrap(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _prune_model(tp, value, at_end=at_end)
    if typing.get_origin(tp) is list:
        if not isinstance(value, list):
            return _DROP
        (item_type,) = typing.get_args(tp)
        kept = []
        for i, item in enumerate(value):
            pruned = _prune(item_type, item, at_end=at_end and i == len(value) - 1)
            if pruned is _DROP:
                break
            kept.append(pruned)
        return kept
    if tp is str:
        return value
    # Anything else appears only once complete: off the cut, or not a string
    # or container (numbers and literals at the cut are already left out).
    if at_end and isinstance(value, str | dict | list):
        return _DROP
    return value


def _prune_model(model: type[BaseModel], value: Any, *, at_end: bool) -> Any:
    if not isinstance(value, dict):
        return _DROP
    if model.__pydantic_decorators__.model_validators:
        return _DROP  # it may rewrite any field: only the final value is shown
    if issubclass(model, RootModel):
        return _prune(model.model_fields["root"].annotation, value, at_end=at_end)
    keys = _keys(model)
    last = next(reversed(value)) if value else None
    kept: dict[str, Any] = {}
    for key, item in value.items():
        name = keys.get(key)
        if name is None:
            continue
        info = model.model_fields[name]
        end = at_end and key == last
        if info.metadata and _unwrap(info.annotation) is str:
            pruned = _DROP if end and isinstance(item, str) else item
        else:
            pruned = _prune(info.annotation, item, at_end=end)
        if pruned is not _DROP:
            kept[key] = pruned
    return kept


def _remove(data: Any, loc: tuple[int | str, ...]) -> bool:
    """Leave out what an error's location names; whether anything went."""
    parent = data
    for depth, step in enumerate(loc):
        last = depth == len(loc) - 1
        if isinstance(parent, dict) and isinstance(step, str) and step in parent:
            if last or not isinstance(parent[step], dict | list):
                del parent[step]
                return True
            parent = parent[step]
        elif isinstance(parent, list) and isinstance(step, int) and step < len(parent):
            if last or not isinstance(parent[step], dict | list):
                del parent[step:]
                return True
            parent = parent[step]
        else:
            break
    if parent is data:
        return False
    # The rest of the location is a union's member or a type tag: the whole
    # value at the last step found goes.
    return _remove(data, loc[:depth])


def extends(previous: Any, value: Any) -> bool:
    """Whether ``value`` grew from ``previous`` (the same candidate, further on).

    Example:
        >>> extends({"a": "Ad", "b": [1]}, {"a": "Ada", "b": [1, 2], "c": 3})
        True
        >>> extends({"name": "Bob"}, {})
        False
    """
    stack = [(previous, value)]
    while stack:
        old, new = stack.pop()
        if isinstance(old, dict):
            if not isinstance(new, dict) or any(k not in new for k in old):
                return False
            stack.extend((old[k], new[k]) for k in old)
        elif isinstance(old, list):
            if not isinstance(new, list) or len(new) < len(old):
                return False
            stack.extend(zip(old, new, strict=False))
        elif isinstance(old, str):
            if not isinstance(new, str) or not new.startswith(old):
                return False
        elif type(old) is not type(new) or old != new:
            return False
    return True


class Converter:
    """Turns a stream's partial JSON values into typed partial values.

    Example:
        >>> from pydantic import BaseModel
        >>> class P(BaseModel):
        ...     name: str
        ...     age: int
        >>> convert = Converter(P)
        >>> convert({"name": "Ad"})
        PartialP(name='Ad', age=None)
    """

    def __init__(self, schema: Any) -> None:
        """Convert to the partial form of ``schema`` (a model or ``list[Model]``).

        Args:
            schema: The parser's schema.
        """
        self.schema = schema
        self._adapter: TypeAdapter[Any] = TypeAdapter(partial_type(schema))
        self._previous: Any = None
        self._candidate = 1

    def __call__(self, value: Any) -> Any:
        """The typed partial value for a partial JSON value (``None``: none).

        Args:
            value: The partial JSON value, as the dict partials give it.

        Returns:
            A partial model instance (or a list of them), or ``None`` when
            nothing of it validates yet.
        """
        if self._previous is not None and not extends(self._previous, value):
            self._candidate += 1
        self._previous = value
        data = _prune(self.schema, value, at_end=True)
        if data is _DROP:
            return None
        for _ in range(_ROUNDS):
            try:
                item = self._adapter.validate_python(data)
            except ValidationError as error:
                removed = [_remove(data, tuple(e["loc"])) for e in error.errors()]
                if not any(removed):
                    return None
                continue
            self._mark(item)
            return item
        return None

    def _mark(self, item: Any) -> None:
        if isinstance(item, PartialBase):
            item._candidate = self._candidate  # noqa: SLF001 - our own attribute
        elif isinstance(item, list):
            for each in item:
                self._mark(each)
