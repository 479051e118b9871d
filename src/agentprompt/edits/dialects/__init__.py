"""The reply dialects, in a registry by name.

Each dialect is a small value implementing :class:`Dialect`; the scanner asks them, in the
order of :data:`DIALECTS`, whether a block starts at a line. Marker-led dialects come first,
the whole-file form (a path line and a fence) last.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from agentprompt.edits.actions import EditError
from agentprompt.edits.dialect_names import AUTO, DIALECT_NAMES
from agentprompt.edits.dialects import _applypatch as applypatch
from agentprompt.edits.dialects import _editrepl as editrepl
from agentprompt.edits.dialects import _searchreplace as searchreplace
from agentprompt.edits.dialects import _udiff as udiff
from agentprompt.edits.dialects import _whole as whole
from agentprompt.edits.dialects import bridge
from agentprompt.edits.dialects.base import BlockOutcome, BlockReader, Dialect, ScanState

__all__ = [
    "AUTO",
    "DIALECTS",
    "BlockOutcome",
    "BlockReader",
    "Dialect",
    "ScanState",
    "get_dialect",
    "select_dialects",
]

DIALECTS: Mapping[str, Dialect] = MappingProxyType(
    {
        d.name: d
        for d in (
            bridge.DIALECT,
            searchreplace.DIALECT,
            editrepl.DIALECT,
            applypatch.DIALECT,
            udiff.DIALECT,
            whole.DIALECT,
        )
    }
)
"""Every dialect by name, in detection order."""

if tuple(DIALECTS) != DIALECT_NAMES:  # pragma: no cover - a registry edited on one side only
    raise ImportError(
        f"the dialect registry {tuple(DIALECTS)} differs from DIALECT_NAMES {DIALECT_NAMES}; "
        "list the same dialects in the same order in agentprompt/edits/dialect_names.py"
    )


def _unknown_dialect(name: str) -> EditError:
    """A dialect name that is not registered: the error naming the valid ones."""
    valid = ", ".join([AUTO, *DIALECTS])
    return EditError(f"unknown reply dialect {name!r}; use one of: {valid}")


def get_dialect(name: str) -> Dialect:
    """The dialect registered as ``name``; an :class:`~agentprompt.edits.EditError` names the
    valid ones."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise _unknown_dialect(name) from None


def select_dialects(name: str) -> tuple[Dialect, ...]:
    """The dialects a parse with ``name`` looks for: all of them for ``auto``."""
    if name == AUTO:
        return tuple(DIALECTS.values())
    return (get_dialect(name),)
