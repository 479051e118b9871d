"""The command lines that do what an error tells its reader to run.

An engine's error names an action it cannot take itself by a plain name, ``{recover}``;
every front door words it as this command line, since whoever reads the error (at the
terminal, on the page, or an agent over MCP) can run it from a terminal in the repository.
Engines never import this table: they name the action, the doors word it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["COMMAND_LINES"]

COMMAND_LINES: Mapping[str, str] = MappingProxyType(
    {
        "apply": "agentprompt apply",
        "delete_session": "agentprompt sessions delete",
        "recover": "agentprompt apply --recover",
        "recover_preview": "agentprompt apply --recover --dry-run",
        "reset_session": "agentprompt bridge reset",
        "reset_tiers": "agentprompt tiers --reset",
        "start_session": "agentprompt pack --task TEXT",
    }
)
"""Each action an error may name, by its plain name, and the command line that does it."""
