"""Partial models: a pydantic model with every field optional, for streaming.

``partial_model(Person)`` is ``PartialPerson``: the same fields, aliases and
constraints, each optional with a default of ``None``; nested models become
their partial models and list items partial items, recursively. The class is
built once per model (cached). While a reply streams, the parsers yield
instances of it (see :func:`langchain_jsonrecover.parsers.streaming.typed_partials`);
the model's own validators are not copied (a field they check is withheld
until the final value, which they do check).

Decided cases:

* ``X | None`` is read as ``X``. Any other union (plain, or discriminated) is
  kept as it is, whole: such a field appears once its value is complete and
  validates as the union, never as a guessed member.
* A generic model (``Box[int]``) is a model like any other (``PartialBox[int]``).
* A ``RootModel`` becomes a ``RootModel`` whose root is the partial type,
  default ``None``; ``list[Model]`` becomes ``list[PartialModel]``.
* ``dict[str, Model]``, tuples, sets and other containers are kept whole, as
  unions are.

Instances pickle: they reduce to the original model and their data, and the
class is found again under its name in this module while it is registered.

Example:
    >>> from pydantic import BaseModel
    >>> class Person(BaseModel):
    ...     name: str
    ...     age: int
    >>> PartialPerson = partial_model(Person)
    >>> PartialPerson.__name__, PartialPerson(name="Ada")
    ('PartialPerson', PartialPerson(name='Ada', age=None))
    >>> partial_model(Person) is PartialPerson
    True
"""

import importlib
import threading
import types
import typing
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, RootModel, create_model
from pydantic.fields import FieldInfo

__all__ = ["PartialBase", "partial_model", "partial_type", "set_candidate"]

_LOCK = threading.RLock()
_BUILDING: set[type[BaseModel]] = set()
_FIELD_KEYS = (
    "alias",
    "validation_alias",
    "serialization_alias",
    "title",
    "description",
)


_CANDIDATE = "_partial_candidate"


def set_candidate(item: BaseModel, candidate: int) -> None:
    """Mark a partial instance as coming from the stream's ``candidate``-th candidate.

    Example:
        >>> from pydantic import BaseModel
        >>> class Point(BaseModel):
        ...     x: int
        >>> item = partial_model(Point)()
        >>> set_candidate(item, 2)
        >>> item.partial_candidate
        2
    """
    private = item.__pydantic_private__
    if private is None:
        object.__setattr__(item, "__pydantic_private__", {_CANDIDATE: candidate})
    else:
        private[_CANDIDATE] = candidate


def _restore(model: type[BaseModel], state: dict[Any, Any]) -> BaseModel:
    """Rebuild a pickled partial instance from its model and its state."""
    cls = partial_model(model)
    item = cls.__new__(cls)
    item.__setstate__(state)
    return item


class PartialBase(BaseModel):
    """The base of every partial model: the origin and the candidate count.

    ``partial_candidate`` starts at 1 and grows by one each time the stream
    moved to another candidate (a prose example withdrawn when a fence
    arrives): a UI that sees it change starts its view again.

    Example:
        >>> from pydantic import BaseModel
        >>> class Point(BaseModel):
        ...     x: int
        >>> partial_model(Point)().partial_candidate
        1
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)
    __partial_origin__: typing.ClassVar[type[BaseModel]]

    @property
    def partial_candidate(self) -> int:
        """Which candidate of the reply this partial comes from (1, 2, ...)."""
        # Kept beside the fields, not as a declared private attribute: those
        # cost an initialisation for every nested instance of every partial.
        private = self.__pydantic_private__
        return private.get(_CANDIDATE, 1) if private else 1

    def __reduce__(self) -> Any:
        """Pickle as the original model and the state (importable anywhere)."""
        return (_restore, (self.__partial_origin__, self.__getstate__()))


_CACHE: dict[type[BaseModel], type[PartialBase]] = {}
_BY_NAME: dict[str, type[PartialBase]] = {}


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def partial_type(tp: Any) -> Any:
    """The partial form of a type: models and list items made partial.

    Args:
        tp: A type, as a field annotation or a parser's schema.

    Returns:
        ``partial_model(tp)`` for a model, ``list[partial_type(X)]`` for
        ``list[X]``, ``partial_type(X)`` for ``X | None``, else ``tp`` itself.

    Example:
        >>> from pydantic import BaseModel
        >>> class Tag(BaseModel):
        ...     label: str
        >>> partial_type(list[Tag]) == list[partial_model(Tag)]
        True
    """
    if _is_model(tp):
        # A model that holds itself (Node.children: list[Node]): the inner
        # ones stay whole, shown once they validate as they are.
        return tp if tp in _BUILDING else partial_model(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is list and len(args) == 1:
        return list[partial_type(args[0])]  # type: ignore[misc]
    if origin in {Union, types.UnionType}:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            return partial_type(rest[0])
    return tp


def partial_model(model: type[BaseModel]) -> type[PartialBase]:
    """The partial model of a pydantic model: every field optional, default None.

    Cached: the same class for the same model. Nested models become their
    partial models and list items partial items; aliases, descriptions and
    constraints are kept; validators are not (see the module's notes).

    Args:
        model: A pydantic model class (a ``RootModel`` too).

    Returns:
        The class ``Partial<Name>``, a subclass of :class:`PartialBase`.

    Raises:
        TypeError: ``model`` is not a pydantic model class.

    Example:
        >>> from pydantic import BaseModel
        >>> class Label(BaseModel):
        ...     text: str
        >>> class Post(BaseModel):
        ...     title: str
        ...     labels: list[Label]
        >>> partial_model(Post).model_validate({"labels": [{}]})
        PartialPost(title=None, labels=[PartialLabel(text=None)])
    """
    if not _is_model(model):
        msg = f"partial_model takes a pydantic model class, not {model!r}"
        raise TypeError(msg)
    if not model.__pydantic_complete__:
        model.model_rebuild()  # raises when a name it refers to is undefined
    with _LOCK:
        found = _CACHE.get(model)
        if found is not None:
            return found
        if issubclass(model, PartialBase):
            return model
        name = f"Partial{model.__name__}"
        _BUILDING.add(model)
        try:
            if issubclass(model, RootModel):
                built = _build_root(model, name)
            else:
                built = _build(model, name)
        finally:
            _BUILDING.discard(model)
        built.__partial_origin__ = model
        built.__qualname__ = _stable_name(model)
        _CACHE[model] = built
        _BY_NAME[built.__qualname__] = built
        return built


def _stable_name(model: type[BaseModel]) -> str:
    """The name pickle finds the class by: the origin's module and qualname.

    ``PartialPerson@shop/models:Person`` (no dots, which pickle would split
    on): :func:`__getattr__` imports ``shop.models`` and rebuilds it.
    """
    module = model.__module__.replace(".", "/")
    return f"Partial{model.__name__}@{module}:{model.__qualname__.replace('.', '/')}"


def _build(model: type[BaseModel], name: str) -> type[PartialBase]:
    fields: dict[str, Any] = {}
    for key, info in model.model_fields.items():
        kept = {k: getattr(info, k) for k in _FIELD_KEYS if getattr(info, k)}
        annotation = partial_type(info.annotation)
        if info.metadata and annotation is info.annotation:
            annotation = typing.Annotated[(annotation, *info.metadata)]
        fields[key] = (annotation | None, FieldInfo(default=None, **kept))
    config = {
        k: v
        for k, v in model.model_config.items()
        if k in {"populate_by_name", "validate_by_name", "validate_by_alias"}
        or k.startswith("str_")
    }
    created: type[PartialBase] = create_model(
        name,
        __base__=PartialBase,
        __module__=__name__,
        __doc__=f"{model.__name__} with every field optional (streaming).",
        __cls_kwargs__=config,
        **fields,
    )
    return created


def _build_root(model: type[BaseModel], name: str) -> type[PartialBase]:
    root = partial_type(model.model_fields["root"].annotation)
    base = RootModel[root | None]  # type: ignore[valid-type]
    namespace = {
        "__module__": __name__,
        "__qualname__": name,
        "__doc__": f"{model.__name__} with an optional root (streaming).",
        "__annotations__": {"root": root | None},
        "root": None,
    }
    return type(name, (base, PartialBase), namespace)


def __getattr__(name: str) -> type[PartialBase]:
    """A partial class by its stable name (how pickle finds a class).

    Raises:
        AttributeError: No such partial class, nor a model to build it from.
    """
    with _LOCK:
        found = _BY_NAME.get(name)
    if found is not None:
        return found
    _, _, origin = name.partition("@")
    module, _, qualname = origin.partition(":")
    try:
        target: Any = importlib.import_module(module.replace("/", "."))
        for part in qualname.split("/"):
            target = getattr(target, part)
    except (ImportError, AttributeError, ValueError):
        target = None
    if not (isinstance(target, type) and issubclass(target, BaseModel)):
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)  # noqa: TRY004 - the protocol of getattr
    return partial_model(target)
