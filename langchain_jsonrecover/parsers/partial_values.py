"""Typed partial values: a streamed reply's partial JSON as a partial model.

Internal; the entry point is
:func:`langchain_jsonrecover.parsers.streaming.typed_partials`.
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

import copy
import functools
import threading
import types
import typing
from typing import Any, Final, Union

from pydantic import BaseModel, RootModel, TypeAdapter, ValidationError

from langchain_jsonrecover.partial_models import (
    PartialBase,
    partial_type,
    set_candidate,
)

__all__ = ["Converter", "extends"]

_DROP: Final = object()
_ROUNDS: Final = 3
"""Validation rounds: each one leaves out what the last one rejected."""


@functools.lru_cache(maxsize=256)
def _adapter(schema: Any) -> TypeAdapter[Any]:
    """The validator of a schema's partial type, built once per schema."""
    return TypeAdapter(partial_type(schema))


def _unwrap(tp: Any) -> Any:
    """``X`` for ``X | None``, else the type itself."""
    if typing.get_origin(tp) in {Union, types.UnionType}:
        args = typing.get_args(tp)
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return rest[0]
    return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


@functools.lru_cache(maxsize=1024)
def _fields(model: type[BaseModel]) -> dict[str, tuple[str, Any]]:
    """A model's JSON keys, each to how its value is read.

    ``("skip", None)``: the field has a validator of its own, so it is shown
    only in the final value; ``("fixed", None)``: a constrained ``str``, shown
    once complete; ``("clean", annotation)``: off the cut, kept as it is (no
    validator of its own below it); ``("type", annotation)``: pruned by its
    type.
    """
    by_name = bool(
        model.model_config.get("populate_by_name")
        or model.model_config.get("validate_by_name")
    )
    checked = {
        name
        for decorator in model.__pydantic_decorators__.field_validators.values()
        for name in decorator.info.fields
    }
    keys: dict[str, tuple[str, Any]] = {}
    for name, info in model.model_fields.items():
        if name in checked or "*" in checked:
            how: tuple[str, Any] = ("skip", None)
        elif info.metadata and _unwrap(info.annotation) is str:
            how = ("fixed", None)
        elif _clean(info.annotation):
            how = ("clean", info.annotation)
        else:
            how = ("type", info.annotation)
        alias = (
            info.validation_alias if isinstance(info.validation_alias, str) else None
        )
        alias = alias or info.alias
        if alias is None or by_name:
            keys[name] = how
        if alias is not None:
            keys[alias] = how
    return keys


_SEEN: set[Any] = set()
_CLEAN_LOCK = threading.RLock()


def _clean(tp: Any) -> bool:
    """Whether no validator of the models in ``tp`` rewrites a value.

    A value of such a type that is off the cut needs no pruning: the partial
    model validates it as the final model would.
    """
    try:
        with _CLEAN_LOCK:  # _SEEN is shared while a model's answer is worked out
            return _clean_cached(tp)
    except TypeError:  # unhashable metadata
        return False


@functools.lru_cache(maxsize=1024)
def _clean_cached(tp: Any) -> bool:
    tp = _unwrap(tp)
    if _is_model(tp):
        if tp in _SEEN:
            return True  # a model that holds itself: judged by its other fields
        if tp.__pydantic_decorators__.model_validators:
            return False
        _SEEN.add(tp)
        try:
            return all(
                how in {"fixed", "clean"} for how, annotation in _fields(tp).values()
            )
        finally:
            _SEEN.discard(tp)
    if typing.get_origin(tp) is list:
        return _clean(typing.get_args(tp)[0])
    return True  # str, or a type validated whole as the final value is


def _prune(tp: Any, value: Any, *, at_end: bool) -> Any:
    tp = _unwrap(tp)
    if not at_end and _clean(tp):
        return value
    if _is_model(tp):
        return _prune_model(tp, value, at_end=at_end)
    if typing.get_origin(tp) is list:
        if not isinstance(value, list):
            return _DROP
        (item_type,) = typing.get_args(tp)
        if value and at_end and _clean(item_type):
            # Only the last item may be cut: the others stay as they are.
            last = _prune(item_type, value[-1], at_end=True)
            return value[:-1] if last is _DROP else [*value[:-1], last]
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
    if model.__pydantic_decorators__.model_validators:
        return _DROP  # it may rewrite any field: only the final value is shown
    if issubclass(model, RootModel):
        return _prune(model.model_fields["root"].annotation, value, at_end=at_end)
    if not isinstance(value, dict):
        return _DROP
    fields = _fields(model)
    last = next(reversed(value)) if value else None
    kept: dict[str, Any] = {}
    for key, item in value.items():
        how, annotation = fields.get(key, ("skip", None))
        end = at_end and key == last
        if how == "skip":
            continue
        if not end and how != "type":
            kept[key] = item  # complete, validated as the final value is
            continue
        if how == "fixed":
            pruned = _DROP if end and isinstance(item, str) else item
        else:  # "type", or "clean" at the cut
            pruned = _prune(annotation, item, at_end=end)
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
        >>> extends({"a": 1, "b": ["x"]}, {"a": 1, "b": ["xy", 2], "c": 3})
        True
        >>> extends({"name": "Bob"}, {})
        False
    """
    old, new = previous, value
    while True:
        if isinstance(old, dict):
            if not isinstance(new, dict) or len(new) < len(old):
                return False
            if not old:
                return True
            *done, last = old
            # Off the cut, values are final: one C-level comparison each.
            if last not in new or any(new.get(k, _DROP) != old[k] for k in done):
                return False
            old, new = old[last], new[last]
        elif isinstance(old, list):
            if not isinstance(new, list) or len(new) < len(old):
                return False
            if not old:
                return True
            if new[: len(old) - 1] != old[:-1]:
                return False
            old, new = old[-1], new[len(old) - 1]
        elif isinstance(old, str):
            return isinstance(new, str) and new.startswith(old)
        else:
            return type(old) is type(new) and bool(old == new)


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
        self._adapter = _adapter(schema)
        self._previous: Any = None
        self._data: Any = _DROP
        self._candidate = 1

    def __call__(self, value: Any) -> Any:
        """The typed partial value for a partial JSON value (``None``: none).

        Args:
            value: The partial JSON value, as the dict partials give it.

        Returns:
            A partial model instance (or a list of them), or ``None`` when
            nothing of it validates yet or nothing new shows.
        """
        candidate = self._candidate
        if self._previous is not None and not extends(self._previous, value):
            self._candidate += 1
        self._previous = value
        data = _prune(self.schema, value, at_end=True)
        if data is _DROP or (
            candidate == self._candidate
            and type(data) is type(self._data)
            and data == self._data
        ):
            return None  # nothing new to show
        self._data = data
        copied = False
        for _ in range(_ROUNDS):
            try:
                item = self._adapter.validate_python(data)
            except ValidationError as error:
                if not copied:
                    # Off the cut, the data shares the stream's own values.
                    data, copied = copy.deepcopy(data), True
                removed = [_remove(data, tuple(e["loc"])) for e in error.errors()]
                if not any(removed):
                    return None
                continue
            self._mark(item)
            return item
        return None

    def _mark(self, item: Any) -> None:
        if self._candidate == 1:
            return  # the default: equal to a partial built by hand
        if isinstance(item, PartialBase):
            set_candidate(item, self._candidate)
        elif isinstance(item, list):
            for each in item:
                self._mark(each)
