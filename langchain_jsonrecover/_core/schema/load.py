"""Importing the schema a command names as ``MODULE:NAME`` (``--schema``).

Pure: no LangChain imports; the command line's ``extract`` and ``batch`` and
the batch workers use it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

__all__ = ["load_schema"]


def load_schema(spec: str, search_path: str | None = None) -> Any:
    """Import ``MODULE:NAME`` (``search_path`` first, then the environment).

    Args:
        spec: ``package.module:Name``.
        search_path: A directory searched before the environment (default:
            the current directory).

    Returns:
        The object named.

    Raises:
        ValueError: The spec is malformed, or the module or name is missing.

    Example:
        >>> import json
        >>> load_schema("json:JSONDecodeError") is json.JSONDecodeError
        True
    """
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        msg = f"--schema takes MODULE:NAME, got {spec!r}"
        raise ValueError(msg)
    directory = str(Path.cwd()) if search_path is None else search_path
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        msg = f"cannot import {module_name!r} for --schema: {exc}"
        raise ValueError(msg) from exc
    try:
        target: Any = module
        for part in name.split("."):
            target = getattr(target, part)
    except AttributeError as exc:
        msg = f"{module_name!r} has no {name!r} for --schema"
        raise ValueError(msg) from exc
    return target
