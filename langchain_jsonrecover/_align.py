"""Read a decoded value the way its JSON schema expects: one guided walk.

Pure functions over decoded JSON and a JSON schema (pydantic's
``json_schema()`` or a user's dict); no LangChain imports.

The walk changes a value only where the schema admits exactly one reading,
and names each change:

- ``decoded_json_string``: a string holding JSON where the schema wants an
  object or an array (and no string), at any depth, twice encoded too;
- ``fenced_string_decoded``: the same string inside a markdown fence;
- ``wrapper_unwrapped``: ``{"<any key>": {…}}`` around an object whose key is
  no field (not even after matching) nor allowed as an extra key, when the
  inner value fills a field; or around an array where the schema wants an
  array and no object;
- ``key_matched``: a key that differs from exactly one field only by case,
  surrounding spaces, ``-``/``_``/space, or tag residue (``"path</arg_key>"``);
- ``enum_matched``: a string that differs from exactly one allowed value only
  by case or surrounding spaces.

:meth:`Aligner.hides_a_field` tells when a value that validates leaves a field
to its default while holding it under a key spelt otherwise: that value is read
too, for the default would hide the reply's data.

A union is read through the one branch the value can belong to (its JSON
type, its discriminator, or the only branch whose fields hold all its keys);
with two candidates and nothing to tell them apart, the value is left as it
is. Each node of the value is visited once, and the walk stops deepening at
``max_depth``: what lies below is left to the validator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from langchain_jsonrecover._decode import Decoded, decode

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
_MAX_ENCODINGS: Final = 3
_FENCE: Final = "```"
_NOT_FOUND: Final = object()

Node = dict[str, Any]


def kind_of(value: Any) -> str:
    """The JSON type of a decoded value.

    Example:
        >>> kind_of([1]), kind_of(True), kind_of(1.5)
        ('array', 'boolean', 'number')
    """
    return _KINDS.get(type(value), "object")


def normalize_key(key: str) -> str:
    """A key reduced to what tells fields apart: no case, separators or tags.

    Example:
        >>> normalize_key(" Heading-Text</arg_key>")
        'headingtext'
    """
    return _strip_tags(key).strip().casefold().translate(_SEPARATORS)


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


@dataclass(slots=True)
class Aligner:
    """One schema, read against decoded values.

    Example:
        >>> schema = {
        ...     "type": "object",
        ...     "properties": {"heading_text": {"type": "string"}},
        ... }
        >>> Aligner(schema).align({"Heading Text ": "Hi"})
        ({'heading_text': 'Hi'}, ('key_matched',))
    """

    root: Node
    max_depth: int = 64
    _repairs: list[str] = field(default_factory=list)
    _keys: dict[int, dict[str, list[str]]] = field(default_factory=dict)
    _tags: dict[int, tuple[str, dict[str, Node]] | None] = field(default_factory=dict)
    _optional: dict[int, bool] = field(default_factory=dict)
    _resolved: dict[int, Node] = field(default_factory=dict)
    _deep: dict[int, tuple[str, ...]] = field(default_factory=dict)

    def align(self, value: Any, *, unwrap: bool = True) -> tuple[Any, tuple[str, ...]]:
        """The value read as the schema expects, and the repairs that took.

        Args:
            value: A decoded JSON value (never changed in place).
            unwrap: Whether a wrapper around the value itself may be
                unwrapped (``False`` for a value already taken out of one).

        Returns:
            The aligned value (the value itself when nothing applied) and the
            names of the repairs, each once, in the order first made.
        """
        # A walk of its own per call: one parser may serve many threads.
        walk = Aligner(
            self.root,
            self.max_depth,
            [],
            self._keys,
            self._tags,
            self._optional,
            self._resolved,
            self._deep,
        )
        root = walk._resolve(self.root)
        if not unwrap and isinstance(value, dict) and _branches(root) is None:
            aligned = walk._align_object(value, root, 0, wrapped=True)
        else:
            aligned = walk._align(value, root, 0)
        return aligned, tuple(dict.fromkeys(walk._repairs))

    def hides_a_field(self, value: Any) -> bool:
        """Whether a key would fill a field the value leaves to its default.

        At any depth. A schema whose fields are all required costs nothing
        here (a field left out fails validation instead).

        Example:
            >>> schema = {"properties": {"age": {"type": "integer", "default": 0}}}
            >>> Aligner(schema).hides_a_field({"Age": 36})
            True
        """
        return self._may_hide() and self._hides(value, self.root, 0)

    def _hides(self, value: Any, node: Any, depth: int) -> bool:
        node = self._resolve(node)
        if depth > self.max_depth:
            return False
        branches = _branches(node)
        if branches is not None:
            kind = kind_of(value)
            native = [b for b in branches if _admits(self._kinds(b, 0), kind)]
            return len(native) == 1 and self._hides(value, native[0], depth + 1)
        if isinstance(value, dict):
            properties = node.get("properties")
            if isinstance(properties, dict) and properties:
                return self._hides_in_object(value, node, properties, depth)
            extra = node.get("additionalProperties")
            return isinstance(extra, dict) and any(
                self._hides(item, extra, depth + 1)
                for item in value.values()
                if isinstance(item, (dict, list))
            )
        if not isinstance(value, list):
            return False
        prefix = node.get("prefixItems")
        items = self._resolve(node.get("items"))
        properties = items.get("properties")
        if (
            isinstance(properties, dict)
            and properties
            and not isinstance(prefix, list)
            and _branches(items) is None
        ):
            # The common case, a list of objects, in one plain loop.
            keys = properties.keys()
            deep = self._deep_fields(items, properties)
            for item in value:
                if isinstance(item, dict) and (
                    (not item.keys() <= keys and self._renames(item, properties))
                    or (deep and self._hides_deep(item, properties, deep, depth + 1))
                ):
                    return True
            return False
        return any(
            self._hides(
                item,
                prefix[i] if isinstance(prefix, list) and i < len(prefix) else items,
                depth + 1,
            )
            for i, item in enumerate(value)
            if isinstance(item, (dict, list))
        )

    def _hides_in_object(
        self,
        value: dict[str, Any],
        node: Node,
        properties: dict[str, Any],
        depth: int,
    ) -> bool:
        if not value.keys() <= properties.keys() and self._renames(value, properties):
            return True
        deep = self._deep_fields(node, properties)
        return bool(deep) and self._hides_deep(value, properties, deep, depth)

    def _hides_deep(
        self,
        value: dict[str, Any],
        properties: dict[str, Any],
        deep: tuple[str, ...],
        depth: int,
    ) -> bool:
        return any(
            self._hides(value[key], properties[key], depth + 1)
            for key in deep
            if isinstance(value.get(key), (dict, list))
        )

    def _deep_fields(self, node: Node, properties: dict[str, Any]) -> tuple[str, ...]:
        """The fields that may hold an object or an array (cached per node)."""
        deep = self._deep.get(id(node))
        if deep is None:
            deep = tuple(
                name
                for name, sub in properties.items()
                if (kinds := self._kinds(sub, 0)) is None
                or not kinds.isdisjoint({"object", "array"})
            )
            self._deep[id(node)] = deep
        return deep

    def _may_hide(self) -> bool:
        """Whether any object in the schema has a field that may be left out."""
        known = self._optional.get(id(self.root))
        if known is None:
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
            self._optional[id(self.root)] = known
        return known

    def fills(self, value: Any) -> bool:
        """Whether a value fills at least one field of the root from the input.

        Defaults and unknown keys do not count; an empty array fills nothing.
        """
        return self._fills(value, self.root)

    def _fills(self, value: Any, node: Node) -> bool:
        node = self._resolve(node)
        if isinstance(value, dict):
            names = self._properties_of(node)
            return any(key in names for key in value) if names else bool(value)
        if isinstance(value, list):
            return bool(value)
        return True

    # The walk.

    def _align(self, value: Any, node: Node, depth: int) -> Any:
        if depth > self.max_depth:
            return value
        node = self._resolve(node)
        branches = _branches(node)
        if branches is not None:
            return self._align_union(value, node, branches, depth)
        kinds = self._kinds(node, 0)
        if isinstance(value, str):
            return self._align_string(value, node, kinds, depth)
        if isinstance(value, dict):
            if _admits(kinds, "object"):
                return self._align_object(value, node, depth, wrapped=False)
            if _admits(kinds, "array"):
                return self._unwrap_array(value, node, depth)
            return value
        if isinstance(value, list) and _admits(kinds, "array"):
            return self._align_array(value, node, depth)
        return value

    def _align_string(
        self, value: str, node: Node, kinds: frozenset[str] | None, depth: int
    ) -> Any:
        if kinds is None:
            return value
        if "string" in kinds:
            allowed = _enum_values(node)
            return self._match_enum(value, allowed) if allowed else value
        wanted = kinds & {"object", "array"}
        if not wanted:
            return value
        decoded = self._decode_string(value, wanted)
        return value if decoded is _NOT_FOUND else self._align(decoded, node, depth + 1)

    def _align_object(
        self, value: dict[str, Any], node: Node, depth: int, *, wrapped: bool
    ) -> Any:
        properties = node.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        extra = node.get("additionalProperties")
        # Where the schema takes any key (a model with extra="allow"), the key
        # may be data: no wrapper.
        if properties and len(value) == 1 and not wrapped and extra in (None, False):
            unwrapped = self._unwrap_object(value, node, properties, depth)
            if unwrapped is not _NOT_FOUND:
                return unwrapped
        renamed = self._renames(value, properties) if properties else {}
        if renamed:
            self._repairs.append("key_matched")
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = renamed.get(key, key)
            if name in properties:
                out[name] = self._align(item, properties[name], depth + 1)
            elif isinstance(extra, dict):
                out[name] = self._align(item, extra, depth + 1)
            else:
                out[name] = item
        return out

    def _unwrap_object(
        self,
        value: dict[str, Any],
        node: Node,
        properties: dict[str, Any],
        depth: int,
    ) -> Any:
        ((key, inner),) = value.items()
        if key in properties or self._match_key(key, properties) is not None:
            return _NOT_FOUND
        mark = len(self._repairs)
        if isinstance(inner, str):
            inner = self._decode_string(inner, frozenset({"object"}))
        # Decided before the inner value is walked, so that it is walked once.
        if isinstance(inner, dict) and (
            any(key in properties for key in inner) or self._renames(inner, properties)
        ):
            self._repairs.append("wrapper_unwrapped")
            return self._align_object(inner, node, depth + 1, wrapped=True)
        del self._repairs[mark:]
        return _NOT_FOUND

    def _unwrap_array(self, value: dict[str, Any], node: Node, depth: int) -> Any:
        if len(value) != 1:
            return value
        mark = len(self._repairs)
        (inner,) = value.values()
        if isinstance(inner, str):
            inner = self._decode_string(inner, frozenset({"array"}))
        if isinstance(inner, list) and inner:
            self._repairs.append("wrapper_unwrapped")
            return self._align_array(inner, node, depth + 1)
        del self._repairs[mark:]
        return value

    def _align_array(self, value: list[Any], node: Node, depth: int) -> list[Any]:
        prefix = node.get("prefixItems")
        items = node.get("items")
        out: list[Any] = []
        for index, item in enumerate(value):
            if isinstance(prefix, list) and index < len(prefix):
                sub = prefix[index]
            else:
                sub = items
            out.append(self._align(item, sub, depth + 1) if _is_node(sub) else item)
        return out

    def _align_union(
        self, value: Any, node: Node, branches: list[Node], depth: int
    ) -> Any:
        if value is None:
            return value
        branches = [self._resolve(b) for b in branches]
        kind = kind_of(value)
        native = [b for b in branches if _admits(self._kinds(b, 0), kind)]
        if isinstance(value, dict) and len(native) > 1:
            chosen = self._by_tag(value, node, native) or self._by_keys(value, native)
            return value if chosen is None else self._align(value, chosen, depth + 1)
        if len(native) == 1:
            return self._align(value, native[0], depth + 1)
        if isinstance(value, str):
            if native:
                return self._union_enum(value, native)
            return self._union_string(value, branches, node, depth)
        if isinstance(value, dict):
            arrays = [b for b in branches if _admits(self._kinds(b, 0), "array")]
            if len(arrays) == 1:
                return self._unwrap_array(value, arrays[0], depth)
        return value

    def _union_enum(self, value: str, native: list[Node]) -> Any:
        allowed: list[Any] = []
        for branch in native:
            if "enum" not in branch and "const" not in branch:
                return value  # a free string branch takes it as it is
            allowed.extend(_enum_values(branch))
        return self._match_enum(value, allowed)

    def _union_string(
        self, value: str, branches: list[Node], node: Node, depth: int
    ) -> Any:
        wanted: set[str] = set()
        for branch in branches:
            kinds = self._kinds(branch, 0)
            if kinds is None:
                return value
            wanted |= kinds & {"object", "array"}
        if not wanted:
            return value
        decoded = self._decode_string(value, frozenset(wanted))
        return value if decoded is _NOT_FOUND else self._align(decoded, node, depth + 1)

    # Choices.

    def _match_enum(self, value: str, allowed: list[Any]) -> Any:
        if value in allowed:
            return value
        wanted = value.strip().casefold()
        matches = {
            a for a in allowed if isinstance(a, str) and a.strip().casefold() == wanted
        }
        if len(matches) != 1:
            return value
        self._repairs.append("enum_matched")
        return matches.pop()

    def _renames(
        self, value: dict[str, Any], properties: dict[str, Any]
    ) -> dict[str, str]:
        claims: dict[str, list[str]] = {}
        for key in value:
            if key in properties:
                continue
            name = self._match_key(key, properties)
            if name is not None and name not in value:
                claims.setdefault(name, []).append(key)
        return {keys[0]: name for name, keys in claims.items() if len(keys) == 1}

    def _match_key(self, key: str, properties: dict[str, Any]) -> str | None:
        index = self._keys.get(id(properties))
        if index is None:
            index = {}
            for name in properties:
                index.setdefault(normalize_key(name), []).append(name)
            self._keys[id(properties)] = index
        names = index.get(normalize_key(key), [])
        return names[0] if len(names) == 1 else None

    def _by_tag(
        self, value: dict[str, Any], node: Node, native: list[Node]
    ) -> Node | None:
        tags = self._tags_of(node, native)
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

    def _tags_of(
        self, node: Node, native: list[Node]
    ) -> tuple[str, dict[str, Node]] | None:
        """The discriminator: given, or a field every branch pins to its own value."""
        if id(node) in self._tags:
            return self._tags[id(node)]
        found: tuple[str, dict[str, Node]] | None = None
        resolved = [self._resolve(b) for b in native]
        given = node.get("discriminator")
        names: list[str] = []
        if isinstance(given, dict) and isinstance(given.get("propertyName"), str):
            names = [given["propertyName"]]
        elif resolved and isinstance(resolved[0].get("properties"), dict):
            names = list(resolved[0]["properties"])
        for name in names:
            branches: dict[str, Node] = {}
            for branch in resolved:
                properties = branch.get("properties")
                sub = properties.get(name) if isinstance(properties, dict) else None
                values = _enum_values(self._resolve(sub)) if _is_node(sub) else []
                if not values or any(
                    not isinstance(v, str) or v in branches for v in values
                ):
                    branches = {}
                    break
                branches.update(dict.fromkeys(values, branch))
            if branches:
                found = (name, branches)
                break
        self._tags[id(node)] = found
        return found

    def _by_keys(self, value: dict[str, Any], native: list[Node]) -> Node | None:
        resolved = [self._resolve(b) for b in native]
        for matcher in (self._holds_exactly, self._holds_after_matching):
            fits = [b for b in resolved if matcher(value, b)]
            if len(fits) == 1:
                return fits[0]
            if len(fits) > 1:
                return None
        return None

    def _holds_exactly(self, value: dict[str, Any], branch: Node) -> bool:
        properties = self._properties_of(branch)
        return bool(properties) and all(key in properties for key in value)

    def _holds_after_matching(self, value: dict[str, Any], branch: Node) -> bool:
        properties = branch.get("properties")
        return isinstance(properties, dict) and all(
            key in properties or self._match_key(key, properties) is not None
            for key in value
        )

    # Schema nodes.

    def _resolve(self, node: Any) -> Node:
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
        for _ in range(32):
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

    def _kinds(self, node: Any, depth: int) -> frozenset[str] | None:
        """The JSON types a node admits; ``None`` for any."""
        node = self._resolve(node)
        declared = node.get("type")
        if isinstance(declared, str):
            return frozenset({declared})
        if isinstance(declared, list):
            return frozenset(t for t in declared if isinstance(t, str))
        if "enum" in node or "const" in node:
            return frozenset(kind_of(v) for v in _enum_values(node))
        branches = _branches(node)
        if branches is not None:
            if depth > 8:
                return None
            kinds: set[str] = set()
            for branch in branches:
                sub = self._kinds(branch, depth + 1)
                if sub is None:
                    return None
                kinds |= sub
            return frozenset(kinds)
        if "properties" in node or "additionalProperties" in node:
            return frozenset({"object"})
        if "items" in node or "prefixItems" in node:
            return frozenset({"array"})
        return None

    def _properties_of(self, node: Node, depth: int = 0) -> dict[str, Any]:
        properties = node.get("properties")
        if isinstance(properties, dict):
            return properties
        names: dict[str, Any] = {}
        for branch in _branches(node) or () if depth < 8 else ():
            names.update(self._properties_of(self._resolve(branch), depth + 1))
        return names

    # Strings that hold JSON.

    def _decode_string(self, text: str, wanted: frozenset[str]) -> Any:
        """The value a string holds, when it is of a wanted kind, or _NOT_FOUND."""
        mark = len(self._repairs)
        value: Any = text
        for _ in range(_MAX_ENCODINGS):
            if not isinstance(value, str):
                break
            body = value.strip()
            repair = "decoded_json_string"
            if body.startswith(_FENCE) and body.endswith(_FENCE) and len(body) > 6:
                line_end = body.find("\n")
                if line_end < 0:
                    break
                body = body[line_end + 1 : -3].strip()
                repair = "fenced_string_decoded"
            if not body.startswith(("{", "[", '"')):
                break
            decoded = decode(body, max_depth=self.max_depth, allow_trailing=False)
            if not isinstance(decoded, Decoded):
                break
            self._repairs.append(repair)
            value = decoded.value
        if kind_of(value) in wanted:
            return value
        del self._repairs[mark:]
        return _NOT_FOUND


def _branches(node: Node) -> list[Node] | None:
    for key in ("anyOf", "oneOf"):
        branches = node.get(key)
        if isinstance(branches, list) and branches:
            return [b for b in branches if isinstance(b, dict)]
    return None


def _enum_values(node: Node) -> list[Any]:
    if "const" in node:
        return [node["const"]]
    values = node.get("enum")
    return list(values) if isinstance(values, list) else []


def _admits(kinds: frozenset[str] | None, kind: str) -> bool:
    return kinds is None or kind in kinds or (kind == "integer" and "number" in kinds)


def _is_node(node: Any) -> bool:
    return isinstance(node, dict)
