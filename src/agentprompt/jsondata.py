"""Walking JSON-compatible data: one function that rewrites every string in it, and one
that finds what no JSON answer can hold."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["map_strings", "unusable_value"]


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


def unusable_value(value: Any) -> str | None:
    """What makes ``value`` (decoded JSON) unusable, or ``None``: a number too large for a
    float (``1e400`` decodes to infinity, which no JSON answer can hold) or a string with a
    lone surrogate (``"\\ud800"``, which is no Unicode text), in it or in any key or item
    within; walked without recursion, as deep as the decoder allowed."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return "a number too large to use (it overflows to infinity)"
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                found = item[exc.start].encode("unicode_escape").decode("ascii")
                return f"a lone surrogate ({found}), which is not Unicode text"
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None
