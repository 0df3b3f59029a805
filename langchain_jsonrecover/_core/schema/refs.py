"""Local references of a JSON schema, for format instructions.

Pure functions on JSON-schema dicts; no LangChain imports: a ``#/…`` pointer
resolved, the members of an ``allOf`` merged into one node, and the
definitions referenced more than once (those the instructions call by name).
"""

from __future__ import annotations

from typing import Any

Node = dict[str, Any]


def resolve_pointer(root: Node, ref: str) -> Node | None:
    """The node a local reference (``#`` or ``#/…``) points at, if any.

    Example:
        >>> resolve_pointer({"$defs": {"A": {"type": "string"}}}, "#/$defs/A")
        {'type': 'string'}
    """
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    target: Any = root
    for part in ref[2:].split("/"):
        key = part.replace("~1", "/").replace("~0", "~")
        target = target.get(key) if isinstance(target, dict) else None
    return target if isinstance(target, dict) else None


def merge_all_of(root: Node, node: Node, all_of: list[Any]) -> Node:
    """One node for ``allOf``: the members' fields and required keys together.

    Members are followed one ``$ref`` deep; the node's own keys win.
    """
    merged: Node = {}
    properties: Node = {}
    required: list[Any] = []
    for member in all_of:
        if not isinstance(member, dict):
            continue
        inner = _follow_once(root, member)
        for key, value in inner.items():
            merged.setdefault(key, value)
        if isinstance(inner.get("properties"), dict):
            properties.update(inner["properties"])
        if isinstance(inner.get("required"), list):
            required.extend(inner["required"])
    merged.update((k, v) for k, v in node.items() if k != "allOf")
    if properties or isinstance(node.get("properties"), dict):
        merged["properties"] = {**properties, **(node.get("properties") or {})}
    if required or isinstance(node.get("required"), list):
        merged["required"] = [*required, *(node.get("required") or [])]
    return merged


def _follow_once(root: Node, node: Node) -> Node:
    target = node.get("$ref")
    resolved = resolve_pointer(root, target) if isinstance(target, str) else None
    return node if resolved is None else resolved


def shared_refs(root: Node) -> tuple[frozenset[str], int]:
    """The refs used more than once (the top level counts as one use of itself).

    Returns:
        Those refs, and the number of nodes in the schema.
    """
    size = 0
    counts: dict[str, int] = {}
    top = root.get("$ref")
    if not isinstance(top, str):
        counts["#"] = 1
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        size += 1
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                counts[ref] = counts.get(ref, 0) + 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(ref for ref, n in counts.items() if n > 1), size
