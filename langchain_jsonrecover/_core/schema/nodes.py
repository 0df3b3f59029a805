"""Read the nodes of a JSON schema for the aligned reading (``_align``).

Pure functions over a JSON schema (pydantic's ``json_schema()`` or a user's
dict); no LangChain imports. :class:`SchemaNodes` follows ``$ref`` and
single-entry ``allOf``, tells the JSON types a node admits, its fields, the
field that tells a union's branches apart, and which keys name a field once
case, separators and tag residue are set aside. Each answer about a node is
worked out once per schema and kept.
"""

from __future__ import annotations

from typing import Any, Final

_KINDS: Final = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
_SEPARATORS: Final = str.maketrans("", "", "-_ \t")
_MAX_HOPS: Final = 32
"""``$ref``/``allOf`` hops followed before a chain counts as a cycle."""
_MAX_UNION_DEPTH: Final = 8
"""Nested unions read for their types or fields before the answer is "any"."""

Node = dict[str, Any]
Tags = tuple[str, dict[str, Node]]
"""A discriminator: the field's name, and the branch each of its values picks."""


def kind_of(value: Any) -> str:
    """The JSON type of a decoded value.

    Example:
        >>> kind_of([1]), kind_of(True), kind_of(1.5)
        ('array', 'boolean', 'number')
    """
    return _KINDS.get(type(value), "object")


def normalize_key(key: str) -> str:
    r"""A key reduced to what tells fields apart: no case, separators or tags.

    Quotes at either end are residue too (``"message\""`` decodes to
    ``message"``).

    Example:
        >>> normalize_key(" Heading-Text</arg_key>")
        'headingtext'
        >>> normalize_key('message"')
        'message'
    """
    return _strip_tags(key).strip().strip("\"'").casefold().translate(_SEPARATORS)


def _strip_tags(key: str) -> str:
    """Drop ``<tag>``/``</tag>`` fragments at either end (tag-call residue).

    Walks indices, not slices, so that a key of many tags costs its length.
    """
    start, end = 0, len(key)
    while True:
        while end > start and key[end - 1].isspace():
            end -= 1
        if end - start < 3 or key[end - 1] != ">":
            break
        opening = key.rfind("<", start, end - 1)
        if opening < 0 or not _is_tag(key[opening + 1 : end - 1]):
            break
        end = opening
    while True:
        while start < end and key[start].isspace():
            start += 1
        if end - start < 3 or key[start] != "<":
            break
        closing = key.find(">", start + 1, end)
        if closing < 0 or not _is_tag(key[start + 1 : closing]):
            break
        start = closing + 1
    return key[start:end]


def _is_tag(inner: str) -> bool:
    name = inner.removeprefix("/").removesuffix("/").strip()
    return bool(name) and name.replace("_", "").replace("-", "").isalnum()


def branches_of(node: Node) -> list[Node] | None:
    """The branches of a union node (``anyOf``/``oneOf``), or ``None``."""
    for key in ("anyOf", "oneOf"):
        found = node.get(key)
        if isinstance(found, list) and found:
            return [b for b in found if isinstance(b, dict)]
    return None


def enum_values(node: Node) -> list[Any]:
    """The values a node allows by ``const`` or ``enum`` (none: any)."""
    if "const" in node:
        return [node["const"]]
    values = node.get("enum")
    return list(values) if isinstance(values, list) else []


def admits(kinds: frozenset[str] | None, kind: str) -> bool:
    """Whether a value of JSON type ``kind`` fits ``kinds`` (``None``: any)."""
    return kinds is None or kind in kinds or (kind == "integer" and "number" in kinds)


def is_node(node: Any) -> bool:
    """Whether a schema entry is a node (a dict) and not a flag or a list."""
    return isinstance(node, dict)


class SchemaNodes:
    """One schema's nodes, read on demand; each answer kept per node.

    Example:
        >>> nodes = SchemaNodes({"properties": {"user_name": {"type": "string"}}})
        >>> nodes.match_key("User-Name", nodes.properties_of(nodes.root))
        'user_name'
    """

    __slots__ = ("_deep", "_keys", "_optional", "_resolved", "_tags", "root")

    def __init__(self, root: Node) -> None:
        self.root = root
        self._keys: dict[int, dict[str, list[str]]] = {}
        self._tags: dict[int, Tags | None] = {}
        self._optional: bool | None = None
        self._resolved: dict[int, Node] = {}
        self._deep: dict[int, tuple[str, ...]] = {}

    def resolve(self, node: Any) -> Node:
        """Follow ``$ref`` and single-entry ``allOf`` (bounded, cycles stop)."""
        if not isinstance(node, dict):
            return {}
        if "$ref" not in node and "allOf" not in node:
            return node
        resolved = self._resolved.get(id(node))
        if resolved is None:
            resolved = self._resolved[id(node)] = self._follow(node)
        return resolved

    def _follow(self, node: Any) -> Node:
        for _ in range(_MAX_HOPS):
            if not isinstance(node, dict):
                return {}
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                node = self._lookup(ref)
                continue
            all_of = node.get("allOf")
            if isinstance(all_of, list) and len(all_of) == 1:
                node = all_of[0]
                continue
            return node
        return {}

    def _lookup(self, ref: str) -> Any:
        target: Any = self.root
        for part in ref[2:].split("/") if ref != "#" else ():
            target = target.get(part) if isinstance(target, dict) else None
        return target

    def kinds(self, node: Any, depth: int = 0) -> frozenset[str] | None:
        """The JSON types a node admits; ``None`` for any."""
        node = self.resolve(node)
        declared = node.get("type")
        if isinstance(declared, str):
            return frozenset({declared})
        if isinstance(declared, list):
            return frozenset(t for t in declared if isinstance(t, str))
        if "enum" in node or "const" in node:
            return frozenset(kind_of(v) for v in enum_values(node))
        options = branches_of(node)
        if options is not None:
            if depth > _MAX_UNION_DEPTH:
                return None
            kinds: set[str] = set()
            for branch in options:
                sub = self.kinds(branch, depth + 1)
                if sub is None:
                    return None
                kinds |= sub
            return frozenset(kinds)
        if "properties" in node or "additionalProperties" in node:
            return frozenset({"object"})
        if "items" in node or "prefixItems" in node:
            return frozenset({"array"})
        return None

    def properties_of(self, node: Node, depth: int = 0) -> dict[str, Any]:
        """The fields of an object node, or of every branch of a union."""
        properties = node.get("properties")
        if isinstance(properties, dict):
            return properties
        names: dict[str, Any] = {}
        options = branches_of(node) if depth < _MAX_UNION_DEPTH else None
        for branch in options or ():
            names.update(self.properties_of(self.resolve(branch), depth + 1))
        return names

    def match_key(self, key: str, properties: dict[str, Any]) -> str | None:
        """The one field a key names once normalized (:func:`normalize_key`)."""
        index = self._keys.get(id(properties))
        if index is None:
            index = {}
            for name in properties:
                index.setdefault(normalize_key(name), []).append(name)
            self._keys[id(properties)] = index
        names = index.get(normalize_key(key), [])
        return names[0] if len(names) == 1 else None

    def choose_branch(
        self, value: dict[str, Any], node: Node, native: list[Node]
    ) -> Node | None:
        """The one branch of a union an object belongs to, or ``None``.

        By its discriminator (declared, or a field every branch pins), else
        the only branch whose fields hold all its keys, as written or once
        matched (:meth:`match_key`).
        """
        return self._choose_by_tag(value, node, native) or self._choose_by_keys(
            value, native
        )

    def _choose_by_tag(
        self, value: dict[str, Any], node: Node, native: list[Node]
    ) -> Node | None:
        tags = self.tags_of(node, native)
        if tags is None:
            return None
        name, branches = tags
        tag = value.get(name)
        if tag is None:
            wanted_key = normalize_key(name)
            found = [v for k, v in value.items() if normalize_key(k) == wanted_key]
            tag = found[0] if len(found) == 1 else None
        if not isinstance(tag, str):
            return None
        if tag in branches:
            return branches[tag]
        wanted = tag.strip().casefold()
        chosen = {
            id(b): b for t, b in branches.items() if t.strip().casefold() == wanted
        }
        return next(iter(chosen.values())) if len(chosen) == 1 else None

    def _choose_by_keys(self, value: dict[str, Any], native: list[Node]) -> Node | None:
        resolved = [self.resolve(b) for b in native]
        for matcher in (self._holds_exactly, self._holds_after_matching):
            fits = [b for b in resolved if matcher(value, b)]
            if len(fits) == 1:
                return fits[0]
            if len(fits) > 1:
                return None
        return None

    def _holds_exactly(self, value: dict[str, Any], branch: Node) -> bool:
        properties = self.properties_of(branch)
        return bool(properties) and all(key in properties for key in value)

    def _holds_after_matching(self, value: dict[str, Any], branch: Node) -> bool:
        properties = branch.get("properties")
        return isinstance(properties, dict) and all(
            key in properties or self.match_key(key, properties) is not None
            for key in value
        )

    def tags_of(self, node: Node, native: list[Node]) -> Tags | None:
        """The discriminator: given, or a field every branch pins to its own value."""
        if id(node) in self._tags:
            return self._tags[id(node)]
        found: Tags | None = None
        resolved = [self.resolve(b) for b in native]
        given = node.get("discriminator")
        names: list[str] = []
        if isinstance(given, dict) and isinstance(given.get("propertyName"), str):
            names = [given["propertyName"]]
        elif resolved and isinstance(resolved[0].get("properties"), dict):
            names = list(resolved[0]["properties"])
        for name in names:
            chosen = self._pinned_by(name, resolved)
            if chosen:
                found = (name, chosen)
                break
        self._tags[id(node)] = found
        return found

    def _pinned_by(self, name: str, resolved: list[Node]) -> dict[str, Node]:
        """Each value of field ``name`` and its branch, if every branch pins it."""
        chosen: dict[str, Node] = {}
        for branch in resolved:
            properties = branch.get("properties")
            sub = properties.get(name) if isinstance(properties, dict) else None
            values = enum_values(self.resolve(sub)) if is_node(sub) else []
            if not values or any(not isinstance(v, str) or v in chosen for v in values):
                return {}
            chosen.update(dict.fromkeys(values, branch))
        return chosen

    def deep_fields(self, node: Node, properties: dict[str, Any]) -> tuple[str, ...]:
        """The fields that may hold an object or an array."""
        deep = self._deep.get(id(node))
        if deep is None:
            deep = tuple(
                name
                for name, sub in properties.items()
                if (kinds := self.kinds(sub)) is None
                or not kinds.isdisjoint({"object", "array"})
            )
            self._deep[id(node)] = deep
        return deep

    def has_optional_field(self) -> bool:
        """Whether any object in the schema has a field that may be left out."""
        if self._optional is None:
            known = False
            stack: list[Any] = [self.root]
            while stack and not known:
                node = stack.pop()
                if isinstance(node, list):
                    stack.extend(node)
                elif isinstance(node, dict):
                    properties = node.get("properties")
                    required = node.get("required")
                    needed = set(required) if isinstance(required, list) else set()
                    known = isinstance(properties, dict) and bool(
                        properties.keys() - needed
                    )
                    stack.extend(node.values())
            self._optional = known
        return self._optional
