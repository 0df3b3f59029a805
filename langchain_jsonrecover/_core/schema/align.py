"""Read a decoded value the way its JSON schema expects: one guided walk.

Pure functions over decoded JSON and a JSON schema (pydantic's
``json_schema()`` or a user's dict); no LangChain imports. The schema's nodes
are read by ``_schema_nodes``.

The walk changes a value only where the schema admits exactly one reading,
and names each change:

- ``decoded_json_string``: a string holding JSON where the schema wants an
  object or an array (and no string), at any depth, twice encoded too;
- ``fenced_string_decoded``: the same string inside a markdown fence;
  ``reply_string_read``: the same string read as a reply (prose around the
  fence, markup after the JSON; see ``schema/payload.py``);
- ``wrapper_unwrapped``: ``{"<key>": {…}}`` whose key names the payload
  (``_schema_keys``; any other is refused) and is no field nor allowed as an
  extra key, when the inner value fills a field; or around an array;
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

import copy
from typing import Any, Final

from langchain_jsonrecover._core.schema.keys import (
    Refusal,
    names_payload,
    normalize,
    read_keys,
    titles_of,
    wrapper_refused,
)
from langchain_jsonrecover._core.schema.nodes import (
    Node,
    SchemaNodes,
    admits,
    branches_of,
    enum_values,
    is_node,
    kind_of,
)
from langchain_jsonrecover._core.schema.payload import read_string_reply

_MAX_ENCODINGS: Final = 3
_NOT_FOUND: Final = object()


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

    __slots__ = ("_nodes", "_refusals", "_repairs", "_titles", "max_depth", "root")

    def __init__(self, root: Node, max_depth: int = 64, *, name: str = "") -> None:
        self.root = root
        self.max_depth = max_depth
        self._nodes = SchemaNodes(root)
        self._repairs: list[str] = []
        self._refusals: list[Refusal] = []
        title = root.get("title")
        names = (name, title if isinstance(title, str) else "")
        self._titles = tuple(normalize(n) for n in dict.fromkeys(names) if n)

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
        aligned, repairs, _ = self.read(value, unwrap=unwrap)
        return aligned, repairs

    def read(
        self, value: Any, *, unwrap: bool = True
    ) -> tuple[Any, tuple[str, ...], tuple[Refusal, ...]]:
        """As :meth:`align`, with what the reading refused (see ``_schema_keys``).

        A refusal makes the value an error whatever else was read: a wrapper
        whose key does not name the payload, a unit-suffixed key for a field
        the value lacks, two keys for one field with different values.

        Example:
            >>> schema = {"properties": {"city": {"type": "string"}}}
            >>> _, _, refused = Aligner(schema).read({"exclude": {"city": "Oslo"}})
            >>> refused[0].value
            'exclude'
        """
        # A walk of its own per call: one parser may serve many threads.
        walk: Aligner = copy.copy(self)
        walk._repairs = []
        walk._refusals = []
        root = walk._nodes.resolve(self.root)
        if not unwrap and isinstance(value, dict) and branches_of(root) is None:
            aligned = walk._align_object(value, root, 0, wrapped=True)
        else:
            aligned = walk._align(value, root, 0)
        return aligned, tuple(dict.fromkeys(walk._repairs)), tuple(walk._refusals)

    def hides_a_field(self, value: Any) -> bool:
        """Whether a key would fill a field the value leaves to its default.

        At any depth; also when a key would be refused (a unit-suffixed key
        for a field the value lacks, two keys for one field): the value must
        then be read, to be refused. Only objects with a key that is no field
        are looked at closely.

        Example:
            >>> schema = {"properties": {"age": {"type": "integer", "default": 0}}}
            >>> Aligner(schema).hides_a_field({"Age": 36})
            True
        """
        return self._hides(value, self.root, 0)

    def _hides(self, value: Any, node: Any, depth: int) -> bool:
        node = self._nodes.resolve(node)
        if depth > self.max_depth:
            return False
        branches = branches_of(node)
        if branches is not None:
            kind = kind_of(value)
            native = [b for b in branches if admits(self._nodes.kinds(b), kind)]
            if isinstance(value, dict) and len(native) > 1:
                chosen = self._nodes.choose_branch(value, node, native)
                if chosen is None:
                    return bool(self._branch_refusals(value, native))
                return self._hides(value, chosen, depth + 1)
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
        items = self._nodes.resolve(node.get("items"))
        properties = items.get("properties")
        if (
            isinstance(properties, dict)
            and properties
            and not isinstance(prefix, list)
            and branches_of(items) is None
        ):
            # The common case, a list of objects, in one plain loop.
            keys = properties.keys()
            deep = self._nodes.deep_fields(items, properties)
            for item in value:
                if isinstance(item, dict) and (
                    (not item.keys() <= keys and self._troubled(item, properties))
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
        if not value.keys() <= properties.keys() and self._troubled(value, properties):
            return True
        deep = self._nodes.deep_fields(node, properties)
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

    def fills(self, value: Any) -> bool:
        """Whether a value fills at least one field of the root from the input.

        Defaults and unknown keys do not count; an empty array fills nothing.
        """
        return self._fills(value, self.root)

    def _fills(self, value: Any, node: Node) -> bool:
        node = self._nodes.resolve(node)
        if isinstance(value, dict):
            names = self._nodes.properties_of(node)
            return any(key in names for key in value) if names else bool(value)
        if isinstance(value, list):
            return bool(value)
        return True

    # The walk.

    def _align(self, value: Any, node: Node, depth: int) -> Any:
        if depth > self.max_depth:
            return value
        node = self._nodes.resolve(node)
        branches = branches_of(node)
        if branches is not None:
            return self._align_union(value, node, branches, depth)
        kinds = self._nodes.kinds(node)
        if isinstance(value, str):
            return self._align_string(value, node, kinds, depth)
        if isinstance(value, dict):
            if admits(kinds, "object"):
                return self._align_object(value, node, depth, wrapped=False)
            if admits(kinds, "array"):
                return self._unwrap_array(value, node, depth)
            return value
        if isinstance(value, list) and admits(kinds, "array"):
            return self._align_array(value, node, depth)
        return value

    def _align_string(
        self, value: str, node: Node, kinds: frozenset[str] | None, depth: int
    ) -> Any:
        if kinds is None:
            return value
        if "string" in kinds:
            allowed = enum_values(node)
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
        # may be data: no wrapper is unwrapped, and one that looks it is refused.
        if properties and len(value) == 1 and not wrapped:
            allowed = extra not in (None, False)
            unwrapped = self._unwrap_object(value, node, depth, allowed=allowed)
            if unwrapped is not _NOT_FOUND:
                return unwrapped
        renamed = (
            self._read_keys(value, properties, self._refusals) if properties else {}
        )
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
        self, value: dict[str, Any], node: Node, depth: int, *, allowed: bool
    ) -> Any:
        """The object inside a one-key wrapper if it fills a field, or not found."""
        properties: dict[str, Any] = node["properties"]
        ((key, inner),) = value.items()
        if key in properties or self._nodes.match_key(key, properties) is not None:
            return _NOT_FOUND
        mark = len(self._repairs)
        if isinstance(inner, str):
            inner = self._decode_string(inner, frozenset({"object"}))
        # Decided before the inner value is walked, so that it is walked once.
        if isinstance(inner, dict) and (
            any(key in properties for key in inner)
            or self._read_keys(inner, properties, None)
        ):
            if allowed or not self._names_payload(key, node):
                del self._repairs[mark:]
                self._refusals.append(wrapper_refused(key, extra=allowed))
                return _NOT_FOUND
            self._repairs.append("wrapper_unwrapped")
            return self._align_object(inner, node, depth + 1, wrapped=True)
        del self._repairs[mark:]
        return _NOT_FOUND

    def _names_payload(self, key: str, node: Node, items: Node | None = None) -> bool:
        """Whether a wrapper's key names the payload (``_schema_keys``)."""
        return names_payload(key, titles_of(self._titles, node, items))

    def _unwrap_array(self, value: dict[str, Any], node: Node, depth: int) -> Any:
        if len(value) != 1:
            return value
        mark = len(self._repairs)
        ((key, inner),) = value.items()
        if isinstance(inner, str):
            inner = self._decode_string(inner, frozenset({"array"}))
        if isinstance(inner, list) and inner:
            if not self._names_payload(
                key, node, self._nodes.resolve(node.get("items"))
            ):
                del self._repairs[mark:]
                self._refusals.append(wrapper_refused(key))
                return value
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
            out.append(self._align(item, sub, depth + 1) if is_node(sub) else item)
        return out

    def _align_union(
        self, value: Any, node: Node, branches: list[Node], depth: int
    ) -> Any:
        if value is None:
            return value
        branches = [self._nodes.resolve(b) for b in branches]
        kind = kind_of(value)
        native = [b for b in branches if admits(self._nodes.kinds(b), kind)]
        if isinstance(value, dict) and len(native) > 1:
            chosen = self._nodes.choose_branch(value, node, native)
            if chosen is not None:
                return self._align(value, chosen, depth + 1)
            if len(value) == 1:
                unwrapped = self._unwrap_branch(value, node, native, depth)
                if unwrapped is not _NOT_FOUND:
                    return unwrapped
            # No branch to read it through; what a branch would refuse (a
            # unit key for a field it lacks …) is refused still.
            self._refusals.extend(self._branch_refusals(value, native))
            return value
        if len(native) == 1:
            return self._align(value, native[0], depth + 1)
        if isinstance(value, str):
            if native:
                return self._match_union_enum(value, native)
            return self._decode_union_string(value, branches, node, depth)
        if isinstance(value, dict):
            arrays = [b for b in branches if admits(self._nodes.kinds(b), "array")]
            if len(arrays) == 1:
                return self._unwrap_array(value, arrays[0], depth)
        return value

    def _match_union_enum(self, value: str, native: list[Node]) -> Any:
        allowed: list[Any] = []
        for branch in native:
            if "enum" not in branch and "const" not in branch:
                return value  # a free string branch takes it as it is
            allowed.extend(enum_values(branch))
        return self._match_enum(value, allowed)

    def _decode_union_string(
        self, value: str, branches: list[Node], node: Node, depth: int
    ) -> Any:
        wanted: set[str] = set()
        for branch in branches:
            kinds = self._nodes.kinds(branch)
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

    def _troubled(self, value: dict[str, Any], properties: dict[str, Any]) -> bool:
        """Whether a key would fill a field, or be refused."""
        refused: list[Refusal] = []
        return bool(self._read_keys(value, properties, refused)) or bool(refused)

    def _unwrap_branch(
        self, value: dict[str, Any], node: Node, native: list[Node], depth: int
    ) -> Any:
        """The object inside a one-key wrapper, read through its one branch."""
        ((key, inner),) = value.items()
        branch = (
            self._nodes.choose_branch(inner, node, native)
            if isinstance(inner, dict)
            else None
        )
        if branch is None or key in self._nodes.properties_of(branch):
            return _NOT_FOUND
        if not self._names_payload(key, branch):
            self._refusals.append(wrapper_refused(key))
            return _NOT_FOUND
        self._repairs.append("wrapper_unwrapped")
        return self._align_object(inner, branch, depth + 1, wrapped=True)

    def _branch_refusals(
        self, value: dict[str, Any], native: list[Node]
    ) -> list[Refusal]:
        """What any branch of a union would refuse in a value none is chosen for."""
        refused: list[Refusal] = []
        for branch in native:
            properties = self._nodes.resolve(branch).get("properties")
            if isinstance(properties, dict) and properties:
                self._read_keys(value, properties, refused)
        return refused

    def _read_keys(
        self,
        value: dict[str, Any],
        properties: dict[str, Any],
        refused: list[Refusal] | None,
    ) -> dict[str, str]:
        """The keys to read as a field, and (into ``refused``) those refused."""
        return read_keys(value, properties, self._nodes.match_key, refused)

    # Strings that hold JSON.

    def _decode_string(self, text: str, wanted: frozenset[str]) -> Any:
        """The value a string holds, when it is of a wanted kind, or _NOT_FOUND."""
        mark = len(self._repairs)
        value: Any = text
        for _ in range(_MAX_ENCODINGS):
            if not isinstance(value, str):
                break
            read = read_string_reply(value, max_depth=self.max_depth)
            if read is None:
                break
            value, repair = read
            self._repairs.append(repair)
        if kind_of(value) in wanted:
            return value
        del self._repairs[mark:]
        return _NOT_FOUND
