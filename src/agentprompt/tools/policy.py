"""Which tools an agent may use, and the limits they run under.

A :class:`ToolPolicy` is a plain value: the registry filters its definitions and guidance
by it, and every built-in tool reads its limits (bytes read, matches listed, shell timeout)
from it. The shell tool is off unless ``shell_enabled`` is set; a read-only policy (the
explore agent's) keeps only tools that change nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ToolPolicy"]


@dataclass(frozen=True, kw_only=True)
class ToolPolicy:
    """The tools an agent may use and the limits they run under."""

    enabled: frozenset[str] | None = None
    """Only these tools are offered (None: every registered tool)."""
    disabled: frozenset[str] = frozenset()
    """These tools are never offered, even when ``enabled`` names them."""
    read_only: bool = False
    """Offer only tools that change nothing (the explore agent)."""
    required_tools: tuple[str, ...] = ()
    """Tools a specialised agent must call before it finishes (the session enforces it)."""
    max_read_bytes: int = 256_000
    """The most bytes the read tool returns from one file."""
    max_output_chars: int = 40_000
    """The most characters of one tool result; longer results are cut with a note."""
    max_matches: int = 200
    """The most matches the glob and grep tools list."""
    max_tree_entries: int = 400
    """The most entries the tree and ls tools list."""
    max_batch: int = 5
    """The most tools one batch call runs concurrently."""
    shell_enabled: bool = False
    """Whether the shell tool is offered at all (off by default)."""
    shell_timeout: float = 60.0
    """Seconds a shell command may run before it is stopped."""
    propose_todos: bool = False
    """Todos this agent adds are proposals, whatever status it asks for (the planner's:
    its todos go into the main list, where only the user's answer makes them active)."""

    def allows(self, name: str, *, read_only: bool, runs_commands: bool = False) -> bool:
        """Whether a tool with this name and nature may be offered and run."""
        if name in self.disabled:
            return False
        if self.enabled is not None and name not in self.enabled:
            return False
        if runs_commands and not self.shell_enabled:
            return False
        return read_only or not self.read_only
