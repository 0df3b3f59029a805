"""Format instructions: a JSON schema put into words for a model.

Pure functions on JSON-schema dicts; no LangChain imports. The words say
everything validation will check, so that the model does not learn it by
failing: every field with its type, whether it is required and its default;
every member of a union, with its fields and the value of its discriminator;
every constraint (pattern, bounds, lengths, item counts, ``multipleOf``);
``Literal`` and enum values; objects that allow no other keys.

Each definition (``$ref``) is written out once; a later or recursive reference
names it instead (``with fields as for Node above``), so the text grows
linearly with the schema, and nesting is bounded (``_MAX_NESTING``).

The phrases for limits and values are in ``_schema_words``; references are
resolved and ``allOf`` merged by ``_schema_refs``.
"""

from __future__ import annotations

from typing import Any, Final

from langchain_jsonrecover._core.prompts.feedback import Shape
from langchain_jsonrecover._core.schema.refs import (
    merge_all_of,
    resolve_pointer,
    shared_refs,
)
from langchain_jsonrecover._core.schema.words import (
    article,
    chosen_note,
    closed_note,
    constraints,
    discriminator_of,
    group_type,
    has_type,
    json_text,
    short_json,
)

_MAX_NESTING: Final = 8
"""Levels of fields listed below the top level."""
_MAX_TYPE_DEPTH: Final = 6
"""Levels of a type written out (``array of array of …``)."""
_MAX_TYPE_CHARS: Final = 2000
"""A union of types longer than this is cut (each enum keeps all its values)."""
_WORK_PER_NODE: Final = 16
"""Types worked out per node of the schema, at most."""
_MAX_HOPS: Final = 32
"""``$ref`` hops followed before a chain counts as a cycle."""
_END: Final = object()

Node = dict[str, Any]


def shape_of(json_schema: Node, name: str = "") -> Shape:
    """Describe a JSON schema for a model, saying everything validation checks.

    Compact on purpose: no titles, and no ``{"properties": …}`` example, which is
    what makes weak models echo the schema back instead of answering.

    Args:
        json_schema: The schema (pydantic's ``json_schema()`` or a user's dict).
        name: The schema's name.

    Returns:
        The shape of the answer.

    Example:
        >>> schema = {
        ...     "type": "object",
        ...     "properties": {
        ...         "name": {"type": "string", "description": "Full name"},
        ...         "age": {"type": "integer", "minimum": 0},
        ...         "pet": {
        ...             "oneOf": [
        ...                 {"properties": {"kind": {"const": "cat"}}},
        ...                 {"properties": {"kind": {"const": "dog"}}},
        ...             ],
        ...             "discriminator": {"propertyName": "kind"},
        ...         },
        ...     },
        ...     "required": ["name"],
        ...     "additionalProperties": False,
        ... }
        >>> print(shape_of(schema).fields)
        The JSON object has these fields and no others:
        - "name" (string, required): Full name
        - "age" (integer, at least 0, optional)
        - "pet" (object, optional), one of (chosen by "kind"):
          - an object with fields:
            - "kind" (exactly "cat", required)
          - an object with fields:
            - "kind" (exactly "dog", required)
    """
    return _Writer(json_schema).describe(name)


class _Writer:
    """One pass over one schema: remembers what it has written out."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self.named, size = shared_refs(root)
        """Definitions referenced more than once: called by their name."""
        self.written: set[str] = set()
        """Definitions whose fields are written out already."""
        self.types: dict[str, str] = {}
        """The type of each definition, in words, once worked out."""
        self.typing: set[str] = set()
        """Definitions whose type is being worked out (to catch recursion)."""
        self.named_in: set[str] = set()
        """Definitions named inside their own type (recursive)."""
        self.budget = _WORK_PER_NODE * size
        """Types worked out before the rest are ``JSON value``: linear work."""
        self.tags: dict[str, str] = {}
        """The discriminator marked required where a definition was written."""
        self.lines: list[str] = []

    # --- the top level -------------------------------------------------------

    def describe(self, name: str) -> Shape:
        view, ref = self.follow(self.root)
        options, _, nullable = self.list_options(view)
        nullable = nullable and len(options) > 0
        if len(options) == 1 and nullable and self.has_fields(options[0][0]):
            view, ref = options[0]  # fields, or null: the fields first
        else:
            nullable = nullable and len(options) > 1
        noun = self.write_top(view, ref or "#")
        if nullable:
            self.lines.append("The JSON may also be null.")
            noun = "JSON value"
        return Shape(noun, "\n".join(self.lines), name)

    def write_top(self, view: Node, ref: str) -> str:
        """Write the top level; return its noun (``JSON object`` …)."""
        self.written.add(ref)
        if view.get("properties"):
            label = self.label(ref, view)
            title = f"The JSON object ({label})" if label else "The JSON object"
            self.lines.append(f"{title} has these fields{closed_note(view)}:")
            self.write_fields(view, 0)
            return "JSON object"
        options, discriminator, _ = self.list_options(view)
        if len(options) > 1 and any(self.has_fields(o) for o, _ in options):
            objects = all(o.get("properties") for o, _ in options)
            noun = "JSON object" if objects else "JSON value"
            self.lines.append(
                f"The {noun} is one of these{chosen_note(discriminator)}:"
            )
            self.write_variants(options, discriminator, 0)
            return noun
        if has_type(view, "array") or "items" in view or "prefixItems" in view:
            self.write_container(view, "array")
            return "JSON array"
        if isinstance(view.get("additionalProperties"), dict):
            self.write_container(view, "object")
            return "JSON object"
        kind = self.say_type(view, 0, ref)
        self.lines.append(f"The JSON is {article(kind)}{kind}.")
        return "JSON object" if kind.startswith("object") else "JSON value"

    def write_container(self, view: Node, noun: str) -> None:
        """An array, or an object of any keys, whose items have fields."""
        limits = constraints(view)
        where = f"The JSON {noun}"
        if limits:
            where += f" ({', '.join(limits)})"
        holds, one = ("holds", "") if noun == "array" else ("maps each key to", "an ")
        payload = self.find_payload(view)
        if payload is not None:
            kind, node, ref, discriminator = payload
            if kind == "object":
                self.written.add(ref)
                label = self.label(ref, node)
                things = f"{label} object" if label else "object"
                things = f"{one}{things}" if one else f"{things}s"
                self.lines.append(f"{where} {holds} {things} with these fields:")
                self.write_fields(node, 0)
                return
            items = "items, each" if noun == "array" else "a value that is"
            self.lines.append(
                f"{where} {holds} {items} one of these{chosen_note(discriminator)}:"
            )
            self.write_variants(self.list_options(node)[0], discriminator, 0)
            return
        kind = self.name_type(view, 0)
        sentence = f"The JSON is {article(kind)}{kind}"
        self.lines.append(
            f"{sentence}, {', '.join(limits)}." if limits else f"{sentence}."
        )

    # --- fields and union members --------------------------------------------

    def write_fields(self, view: Node, level: int, discriminator: str = "") -> None:
        listed = view.get("required")
        required = (
            {k for k in listed if isinstance(k, str)}
            if isinstance(listed, list)
            else set()
        )
        properties = view.get("properties")
        if not isinstance(properties, dict):
            return
        indent = "  " * level
        for key, raw in properties.items():
            prop, ref = self.follow(raw if isinstance(raw, dict) else {})
            parts = [self.name_type(prop, 0, ref)]
            if not (prop.get("anyOf") or prop.get("oneOf")):
                parts.extend(constraints(prop))
            # A discriminator with a default still has to be sent: validation
            # reads it before any default applies.
            if key in required or key == discriminator:
                parts.append("required")
            else:
                parts.append("optional")
                if "default" in prop and "const" not in prop:
                    parts.append(f"default {short_json(prop['default'])}")
            line = f"{indent}- {json_text(key)} ({', '.join(parts)})"
            description = prop.get("description")
            if description:
                line += f": {' '.join(str(description).split())}"
            self.write_field(line, prop, ref, level)
        extra = view.get("additionalProperties")
        if properties and isinstance(extra, dict) and extra:
            self.lines.append(f"{indent}- any other key ({self.say_type(extra, 0)})")

    def write_field(self, line: str, view: Node, ref: str, level: int) -> None:
        """Write a field's line, then the fields or members of what it holds."""
        payload = self.find_payload(view, ref)
        if payload is None:
            self.lines.append(line)
            return
        kind, node, inner_ref, discriminator = payload
        label = self.label(inner_ref, node, always=True) or (
            "the top-level value" if inner_ref == "#" else "the object"
        )
        if inner_ref and inner_ref in self.written:
            if kind == "union":
                each = "each one of" if node is not view else "one of"
                self.lines.append(f"{line}, {each} the members of {label} above")
            else:
                self.lines.append(f"{line}, with fields as for {label} above")
            return
        if level + 1 >= _MAX_NESTING:
            what = "members" if kind == "union" else "fields"
            self.lines.append(f"{line}, with {what} nested too deep to list")
            return
        if inner_ref:
            self.written.add(inner_ref)
        if kind == "union":
            each = "each one of" if node is not view else "one of"
            named = label if inner_ref in self.named else ""
            self.lines.append(f"{line}, {each}{chosen_note(discriminator, named)}:")
            self.write_variants(self.list_options(node)[0], discriminator, level + 1)
            return
        closed = closed_note(node)
        these = " these" if closed else ""
        self.lines.append(f"{line}, with{these} fields{closed}:")
        self.write_fields(node, level + 1)

    def write_variants(
        self, options: list[tuple[Node, str]], discriminator: str, level: int
    ) -> None:
        indent = "  " * level
        for node, ref in options:
            if not node.get("properties"):
                line = f"{indent}- {self.say_type(node, 0, ref)}"
                self.write_field(line, node, ref, level)
                continue
            label = self.label(ref, node, always=True)
            if ref and ref in self.written:
                tag = self.tags.get(ref, "")
                note = (
                    f", with {json_text(discriminator)} required"
                    if discriminator and tag != discriminator
                    else ""
                )
                self.lines.append(
                    f"{indent}- {label or 'an object'} (fields as above{note})"
                )
                continue
            if level + 1 >= _MAX_NESTING:
                self.lines.append(
                    f"{indent}- {label or 'an object'}, with fields nested too deep "
                    "to list"
                )
                continue
            if ref:
                self.written.add(ref)
                self.tags[ref] = discriminator
            head = f"{label}, with" if label else "an object with"
            closed = closed_note(node)
            these = " these" if closed else ""
            self.lines.append(f"{indent}- {head}{these} fields{closed}:")
            self.write_fields(node, level + 1, discriminator)

    def find_payload(
        self, view: Node, ref: str = ""
    ) -> tuple[str, Node, str, str] | None:
        """What a value holds that has fields: an object or a union with one.

        Looks through ``null`` alternatives, array items and dict values.

        Returns:
            ``("object"|"union", node, its ref, discriminator)``, or ``None``.
        """
        node = view
        for _ in range(_MAX_TYPE_DEPTH):
            if node.get("properties"):
                return "object", node, ref, ""
            options, discriminator, _ = self.list_options(node)
            if len(options) > 1:
                if any(self.has_fields(o) for o, _ in options):
                    return "union", node, ref, discriminator
                return None
            if len(options) == 1 and options[0][0] is not node:
                node, ref = options[0]
                continue
            items = node.get("items")
            values = node.get("additionalProperties")
            inner = items if isinstance(items, dict) else values
            if not isinstance(inner, dict) or not inner:
                return None
            node, ref = self.follow(inner)
        return None

    def has_fields(self, node: Node) -> bool:
        """An object with fields, an array or dict of them, or a union with one."""
        if node.get("properties"):
            return True
        members = node.get("anyOf") or node.get("oneOf")
        if isinstance(members, list):
            return any(
                self.follow(m)[0].get("properties")
                for m in members
                if isinstance(m, dict)
            )
        items = node.get("items")
        inner = items if isinstance(items, dict) else node.get("additionalProperties")
        return isinstance(inner, dict) and bool(self.follow(inner)[0].get("properties"))

    def list_options(self, view: Node) -> tuple[list[tuple[Node, str]], str, bool]:
        """The members of a union, inline unions flattened, ``null`` left out.

        A member that is a reference to a union stays one member: it is
        written out (once) where it is expanded.

        Returns:
            The members (each resolved, with its ref), the discriminator's
            property name (or ``""``) and whether ``null`` is a member.
        """
        raw = view.get("anyOf") or view.get("oneOf")
        if not isinstance(raw, list):
            return [(view, "")], "", False
        discriminator = discriminator_of(view)
        members: list[tuple[Node, str]] = []
        nullable = False
        stack = [iter(raw)]  # no recursion: inline unions nest without limit
        while stack:
            option = next(stack[-1], _END)
            if option is _END:
                stack.pop()
                continue
            if not isinstance(option, dict):
                continue
            node, ref = self.follow(option)
            inner = node.get("anyOf") or node.get("oneOf")
            if node.get("type") == "null":
                nullable = True
            elif isinstance(inner, list) and not ref:
                discriminator = discriminator or discriminator_of(node)
                stack.append(iter(inner))
            else:
                members.append((node, ref))
        return members, discriminator, nullable

    # --- types -----------------------------------------------------------------

    def say_type(self, node: Node, depth: int, ref: str = "") -> str:
        """A type with its constraints: ``string (at most 5 characters)``."""
        view, _ = self.follow(node)
        kind = self.name_type(node, depth, ref)
        limits = [] if (view.get("anyOf") or view.get("oneOf")) else constraints(view)
        return f"{kind} ({', '.join(limits)})" if limits else kind

    def name_type(self, node: Node, depth: int, ref: str = "") -> str:
        """A type in words; ``ref`` names a node already resolved."""
        view, found = self.follow(node)
        ref = found or ref
        if not ref:
            return self._name_type(view, ref, depth)
        if ref in self.types:
            return self.types[ref]
        if ref in self.typing:  # a recursive type: say its name
            self.named_in.add(ref)
            return self.label(ref, view, always=True) or "JSON value"
        self.typing.add(ref)
        kind = self._name_type(view, ref, depth)
        self.typing.discard(ref)
        if ref in self.named_in:
            self.named_in.discard(ref)
            kind = f"{self.label(ref, view, always=True)} = {kind}"
        if not self.named_in & self.typing:  # says no name defined elsewhere
            self.types[ref] = kind
        return kind

    def _name_type(self, view: Node, ref: str, depth: int) -> str:
        self.budget -= 1
        if depth > _MAX_TYPE_DEPTH or self.budget < 0:
            return "JSON value"
        if isinstance(view.get("enum"), list) and view["enum"]:
            values = [json_text(v) for v in view["enum"]]
            if len(values) == 1:
                return f"exactly {values[0]}"
            return "one of " + ", ".join(values)
        if "const" in view:
            return f"exactly {json_text(view['const'])}"
        if view.get("anyOf") or view.get("oneOf"):
            if ref in self.named and self.has_fields(view):
                return self.label(ref, view, always=True)  # its members are listed
            options, _, nullable = self.list_options(view)
            kinds = [
                *dict.fromkeys(self.say_type(o, depth + 1, r) for o, r in options),
                *(["null"] if nullable else []),
            ]
            if len(kinds) > 1:  # (one of "a", "b") or null
                kinds = [f"({k})" if k.startswith("one of ") else k for k in kinds]
            text = " or ".join(kinds)
            if len(text) > _MAX_TYPE_CHARS:
                text = text[: _MAX_TYPE_CHARS - 1] + "…"
            return text
        kind = view.get("type")
        if isinstance(kind, list):
            return " or ".join(str(k) for k in kind)
        if kind == "array" or "items" in view or "prefixItems" in view:
            return self._name_array(view, depth)
        if kind == "object" or "properties" in view:
            if view.get("properties"):
                label = self.label(ref, view)
                return f"{label} object" if label else "object"
            extra = view.get("additionalProperties")
            if isinstance(extra, dict) and extra:
                inner = group_type(self.say_type(extra, depth + 1))
                return f"object with {inner} values"
            return "object"
        if kind == "string" and view.get("format"):
            return f"string ({view['format']})"
        return str(kind) if kind else "any JSON value"

    def _name_array(self, view: Node, depth: int) -> str:
        prefix = view.get("prefixItems")
        if isinstance(prefix, list) and prefix:
            kinds = [self.say_type(p, depth + 1) for p in prefix if isinstance(p, dict)]
            return f"array [{', '.join(kinds)}]"
        items = view.get("items")
        if isinstance(items, dict) and items:
            kind = self.say_type(items, depth + 1)
            if " or " not in kind and (kind == "object" or kind.endswith(" object")):
                return f"array of {kind}s"
            return f"array of {group_type(kind)}"
        return "array"

    # --- references ------------------------------------------------------------

    def follow(self, node: Node) -> tuple[Node, str]:
        """Resolve local ``$ref``s; keys beside a ``$ref`` win (a field's default).

        Returns:
            The resolved node and the last ref followed (``""`` for none).
        """
        ref = ""
        for _ in range(_MAX_HOPS):
            target = node.get("$ref")
            if not isinstance(target, str):
                break
            resolved = resolve_pointer(self.root, target)
            if resolved is None:
                break
            ref = target
            beside = {k: v for k, v in node.items() if k != "$ref"}
            node = {**resolved, **beside} if beside else resolved
        else:
            node = {}  # a cycle of bare references says nothing
        all_of = node.get("allOf")
        if isinstance(all_of, list) and all_of:
            return merge_all_of(self.root, node, all_of), ref
        return node, ref

    def label(self, ref: str, view: Node, *, always: bool = False) -> str:
        """The name of a definition, when it is referenced more than once."""
        if not always and ref not in self.named:
            return ""
        title = view.get("title")
        if isinstance(title, str) and title:
            return title
        if ref.startswith("#/"):
            return ref.rsplit("/", 1)[-1]
        return ""
