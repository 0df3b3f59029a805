"""Plain schemas (no unions, no constraints) whose format instructions were
recorded before the instructions learnt unions and constraints.

``tests/fixtures/instructions_before.json`` holds that text; the instructions
of today must stay within 1.5x of its length for these schemas.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class Person(BaseModel):
    name: str = Field(description="Full name")
    age: int


class Address(BaseModel):
    street: str
    city: str
    country: str = "UK"


class LineItem(BaseModel):
    sku: str = Field(description="Stock keeping unit")
    quantity: int
    unit_price: float


class Order(BaseModel):
    id: int
    customer: Person
    shipping: Address | None = None
    items: list[LineItem]
    notes: list[str] = []
    paid: bool = False


class Settings(BaseModel):
    verbose: bool = False
    retries: int = 3
    label: str | None = None
    tags: dict[str, str] = {}


class Node(BaseModel):
    kind: Literal["leaf", "branch"]
    children: list[Node] = []


class Movie(TypedDict):
    title: str
    year: int


DICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Record",
    "properties": {
        "id": {"type": "integer"},
        "label": {"type": "string", "description": "Shown to people"},
        "meta": {
            "type": "object",
            "properties": {"source": {"type": "string"}},
            "required": ["source"],
        },
    },
    "required": ["id"],
}

PLAIN: dict[str, Any] = {
    "person": Person,
    "order": Order,
    "settings": Settings,
    "node": Node,
    "list_of_items": list[LineItem],
    "typed_dict": Movie,
    "dict_schema": DICT_SCHEMA,
}
