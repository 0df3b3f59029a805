"""The schema module the command-line tests write beside a log: ``--schema MODULE:NAME``.

``Person`` and ``People`` (a list of them) validate; ``NotASchema`` is
unusable, for the usage error.
"""

from __future__ import annotations

CLI_SCHEMAS = """
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int


People = list[Person]
NotASchema = 5
"""
