"""Reading a JSON schema's nodes (``_schema_nodes``), its words and its references.

``_schema_nodes`` serves the aligned reading; ``_schema_words`` and
``_schema_refs`` serve the format instructions.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover._core.schema.nodes import SchemaNodes, normalize_key
from langchain_jsonrecover._core.schema.refs import (
    merge_all_of,
    resolve_pointer,
    shared_refs,
)
from langchain_jsonrecover._core.schema.words import constraints, group_type

PET: dict[str, Any] = {
    "$defs": {
        "Cat": {"properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}}},
        "Dog": {"properties": {"kind": {"enum": ["dog"]}, "name": {"type": "string"}}},
    },
    "anyOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
}


@pytest.mark.parametrize(
    ("node", "kinds"),
    [
        pytest.param({"type": "string"}, {"string"}, id="declared"),
        pytest.param({"type": ["string", "null"]}, {"string", "null"}, id="listed"),
        pytest.param({"enum": [1, "a"]}, {"integer", "string"}, id="from_enum"),
        pytest.param({"properties": {}}, {"object"}, id="object_by_keywords"),
        pytest.param({"items": {}}, {"array"}, id="array_by_keywords"),
        pytest.param(
            {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            {"integer", "null"},
            id="union",
        ),
        pytest.param({}, None, id="anything"),
        pytest.param({"anyOf": [{"type": "integer"}, {}]}, None, id="union_with_any"),
    ],
)
def test_kinds_a_node_admits(node: dict[str, Any], kinds: set[str] | None) -> None:
    found = SchemaNodes(node).kinds(node)
    assert found == (frozenset(kinds) if kinds is not None else None)


def test_references_are_followed_and_cycles_stop() -> None:
    # Answers are kept per node of the schema: the nodes asked about are its own.
    cycle, merged, plain = (
        {"$ref": "#/$defs/A"},
        {"allOf": [{"type": "string"}]},
        {"$ref": "#/$defs/C"},
    )
    root = {
        "$defs": {
            "A": {"$ref": "#/$defs/B"},
            "B": {"$ref": "#/$defs/A"},
            "C": {"type": "integer"},
        },
        "properties": {"cycle": cycle, "merged": merged, "plain": plain},
    }
    nodes = SchemaNodes(root)
    assert nodes.resolve(cycle) == {}
    assert nodes.resolve(merged) == {"type": "string"}
    assert nodes.resolve(plain) == {"type": "integer"}
    assert nodes.resolve("not a node") == {}


def test_discriminator_is_found_when_every_branch_pins_it() -> None:
    nodes = SchemaNodes(PET)
    tags = nodes.tags_of(PET, PET["anyOf"])
    assert tags is not None
    name, branches = tags
    assert name == "kind"
    assert sorted(branches) == ["cat", "dog"]
    assert branches["cat"] is PET["$defs"]["Cat"]


def test_no_discriminator_when_a_branch_leaves_it_free() -> None:
    root = {
        "anyOf": [
            {"properties": {"kind": {"const": "a"}}},
            {"properties": {"kind": {"type": "string"}}},
        ]
    }
    assert SchemaNodes(root).tags_of(root, root["anyOf"]) is None


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        pytest.param("User-Name", "user_name", id="case_and_separators"),
        pytest.param("<arg>user name</arg>", "user_name", id="tag_residue"),
        pytest.param("username", "user_name", id="no_separator_at_all"),
        pytest.param("name", None, id="no_field"),
    ],
)
def test_keys_name_one_field(key: str, expected: str | None) -> None:
    properties: dict[str, Any] = {"user_name": {}, "age": {}}
    assert SchemaNodes({"properties": properties}).match_key(key, properties) == (
        expected
    )


def test_two_fields_alike_match_no_key() -> None:
    properties: dict[str, Any] = {"user_name": {}, "UserName": {}}
    assert normalize_key("user_name") == normalize_key("UserName")
    assert SchemaNodes({}).match_key("user-name", properties) is None


@pytest.mark.parametrize(
    ("root", "optional"),
    [
        pytest.param({"properties": {"a": {}}, "required": ["a"]}, False, id="all"),
        pytest.param({"properties": {"a": {}}}, True, id="top_level"),
        pytest.param(
            {
                "properties": {"a": {"$ref": "#/$defs/A"}},
                "required": ["a"],
                "$defs": {"A": {"properties": {"b": {}}}},
            },
            True,
            id="in_a_definition",
        ),
    ],
)
def test_optional_fields_are_found_anywhere(
    root: dict[str, Any], optional: bool
) -> None:
    assert SchemaNodes(root).has_optional_field() is optional


@pytest.mark.parametrize(
    ("node", "words"),
    [
        pytest.param(
            {"minLength": 2, "maxLength": 2}, ["exactly 2 characters"], id="n"
        ),
        pytest.param({"maxLength": 1}, ["at most 1 character"], id="singular"),
        pytest.param(
            {"minimum": 0, "exclusiveMaximum": 10, "multipleOf": 2},
            ["at least 0", "less than 10", "a multiple of 2"],
            id="bounds",
        ),
        pytest.param(
            {"exclusiveMinimum": True, "minimum": 3}, ["greater than 3"], id="draft_4"
        ),
        pytest.param(
            {"minItems": 1, "maxItems": 3, "uniqueItems": True},
            ["1 to 3 items", "no repeated items"],
            id="items",
        ),
        pytest.param({"pattern": "^a"}, ["matching the regex `^a`"], id="pattern"),
        pytest.param({"minLength": 0, "minimum": True}, [], id="nothing_to_say"),
    ],
)
def test_constraints_in_words(node: dict[str, Any], words: list[str]) -> None:
    assert constraints(node) == words


@pytest.mark.parametrize(
    ("kind", "grouped"),
    [
        ("string", "string"),
        ("string or null", "(string or null)"),
        ('one of "a", "b"', '(one of "a", "b")'),
        ("array of (string or null)", "array of (string or null)"),
    ],
)
def test_a_type_holding_a_list_is_grouped(kind: str, grouped: str) -> None:
    assert group_type(kind) == grouped


def test_pointers_resolve_with_escapes() -> None:
    root = {"$defs": {"a/b": {"type": "string"}, "c~d": {"type": "integer"}}}
    assert resolve_pointer(root, "#/$defs/a~1b") == {"type": "string"}
    assert resolve_pointer(root, "#/$defs/c~0d") == {"type": "integer"}
    assert resolve_pointer(root, "#") is root
    assert resolve_pointer(root, "#/$defs/missing") is None
    assert resolve_pointer(root, "other.json#/a") is None


def test_all_of_members_merge_and_the_node_wins() -> None:
    root = {"$defs": {"Base": {"properties": {"a": {}}, "required": ["a"]}}}
    node: dict[str, Any] = {
        "allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"b": {}}}],
        "properties": {"c": {}},
        "required": ["c"],
        "title": "Mine",
    }
    merged = merge_all_of(root, node, node["allOf"])
    assert list(merged["properties"]) == ["a", "b", "c"]
    assert merged["required"] == ["a", "c"]
    assert merged["title"] == "Mine"


def test_shared_refs_are_those_used_twice() -> None:
    root = {
        "properties": {
            "x": {"$ref": "#/$defs/A"},
            "y": {"$ref": "#/$defs/A"},
            "z": {"$ref": "#/$defs/B"},
        }
    }
    named, size = shared_refs(root)
    assert named == frozenset({"#/$defs/A"})
    assert size > len(root["properties"])
