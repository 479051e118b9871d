"""Walking JSON-compatible data: one function that rewrites every string in it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["map_strings"]


def map_strings(data: Any, fn: Callable[[str], str]) -> Any:
    """``data`` with ``fn`` applied to every string in it, dictionary keys included.

    Dictionaries stay dictionaries (keys made text), lists and tuples become lists, and
    other values are returned as they are.
    """
    if isinstance(data, str):
        return fn(data)
    if isinstance(data, dict):
        return {fn(str(k)): map_strings(v, fn) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [map_strings(v, fn) for v in data]
    return data
