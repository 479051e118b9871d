"""A repository's tiered-prompt items: the files in context, the symbol map of the rest,
and the conversation so far.

This is the edge that reads the file system; everything downstream is pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentprompt.edits.paths import resolve_inside
from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.messages import Message
from agentprompt.prompts.loader import build_system_prompt
from agentprompt.repo.map import MapOptions, build_map, render_parts
from agentprompt.tiers._items import file_item, history_items, symbol_items
from agentprompt.tiers.assembly import TierContext
from agentprompt.tiers.tracker import TrackedItem
from agentprompt.tokens import Tokenizer, shared_counter

__all__ = ["DEFAULT_MAP_TOKENS", "repository_context"]

DEFAULT_MAP_TOKENS = 4096
"""The symbol map's token budget when none is given."""


def _unreadable(path: str, problem: str) -> UsageError:
    """A file asked to be in context that cannot be read as text."""
    return UsageError(
        f"{path} cannot be put in the context: {problem}; give a text file inside the repository"
    )


def _read_file(root: Path, path: str) -> str:
    try:
        real = resolve_inside(root, path)
    except AgentPromptError as exc:
        raise _unreadable(path, str(exc)) from None
    try:
        raw = real.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc.strerror or "it cannot be read") from None
    if b"\0" in raw[:8192]:
        raise _unreadable(path, "it is a binary file")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _unreadable(path, f"it is not UTF-8 (byte {exc.start})") from None


def repository_context(
    root: Path,
    *,
    files: Sequence[str] = (),
    history: Sequence[Message] = (),
    user: str = "",
    task: str | None = None,
    map_tokens: int = DEFAULT_MAP_TOKENS,
    model: str | None = None,
    counter: Tokenizer | None = None,
    use_cache: bool = True,
) -> TierContext:
    """Everything a tiered request over ``root`` holds: the system prompt, the map legend, a
    map entry per file not in context, the full text of ``files``, and ``history``.

    Files are ordered by path (so a tier's text does not move when ranks shift), history by
    age. A file in ``files`` has no map entry in any tier. With ``task`` the map shows the
    files most relevant to it (task-aware ranking); over a session, pass the session's task
    rather than each message, so the map's entries, and the tiers holding them, stay put.
    """
    root = root.resolve()
    counter = counter or shared_counter(model)
    paths = sorted(dict.fromkeys(Path(f).as_posix() for f in files))
    texts = {p: _read_file(root, p) for p in paths}
    repo_map = build_map(
        root,
        MapOptions(
            tokens=map_tokens,
            in_context=tuple(paths),
            task=task if task and task.strip() else None,
            model=model,
            use_cache=use_cache,
        ),
    )
    shown = sorted((f for f in repo_map.files if f.path not in texts), key=lambda f: f.path)
    parts = render_parts([f.entry for f in shown])
    sources = {p: h for p, h in repo_map.sources.items() if p not in texts}
    items: list[TrackedItem] = [
        *symbol_items(parts, counter, sources),
        *(file_item(p, texts[p], counter) for p in paths),
        *history_items(history, counter),
    ]
    return TierContext(
        system=build_system_prompt(root),
        legend=parts.legend,
        items=tuple(items),
        user=user,
        sources=sources,
    )
