"""The streaming benchmark's typed row: the document as a pydantic model.

``(model | parser).stream`` with ``JsonFenceOutputParser(pydantic_object=
Document)`` twice, paired in the same rounds: with typed partials (what the
parser yields, instances of ``partial_model(Document)``) and with dict
partials (the same parser with the typed conversion turned off, what it
yielded before). Target: typed at most 1.2x dict.
"""

from __future__ import annotations

import datetime as dt  # noqa: TC003 - pydantic reads the annotations
from typing import Any, Final

from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover.parsers.streaming import plain

TYPED: Final = "JsonFenceOutputParser(Document), typed partials"
DICTS: Final = "JsonFenceOutputParser(Document), dict partials"
TYPED_TARGET: Final = 1.2
"""Issue 23: typed partials cost at most this many times dict partials."""


class Geo(BaseModel):
    lat: float
    lon: float


class Address(BaseModel):
    street: str
    city: str
    country: str
    geo: Geo


class Order(BaseModel):
    sku: str
    qty: int
    price: float
    shipped: bool
    discount: float | None


class Record(BaseModel):
    id: int
    name: str
    email: str
    active: bool
    score: float
    balance: float
    tags: list[str]
    address: Address
    orders: list[Order]
    note: str | None


class Filters(BaseModel):
    active_only: bool


class Source(BaseModel):
    system: str
    region: str
    filters: Filters


class Document(BaseModel):
    version: int
    generated: dt.datetime
    source: Source
    count: int
    records: list[Record]


class DictPartials(JsonFenceOutputParser[Any]):
    """The parser as it streamed before typed partials: dicts, then the model."""

    def _typed_partials(self) -> None:
        return None


def typed_parsers() -> tuple[tuple[str, Any], ...]:
    """The pair to time: typed partials, dict partials."""
    return (
        (TYPED, JsonFenceOutputParser(pydantic_object=Document)),
        (DICTS, DictPartials(pydantic_object=Document)),
    )


def as_json(value: Any) -> Any:
    """A streamed value as the JSON it stands for (the model dumped by alias)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return plain(value)
