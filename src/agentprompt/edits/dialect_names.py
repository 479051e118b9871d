"""The reply dialects' names, without their parsers: what a schema or a help text offers
before anything is parsed (the MCP server lists them at start, where importing every
dialect's reader would cost start-up time). :data:`agentprompt.edits.dialects.DIALECTS`
registers a dialect under each of these names, in this order."""

from __future__ import annotations

__all__ = ["AUTO", "DIALECT_NAMES"]

AUTO = "auto"
"""The dialect name that detects every dialect by its markers."""

DIALECT_NAMES = ("bridge", "searchreplace", "editrepl", "applypatch", "udiff", "whole")
"""Every dialect's name, in detection order (marker-led dialects first)."""
