"""Project instruction files: ALLY.md, AGENTS.md and CLAUDE.md.

All three are read from every directory from the project root down to the working
directory, so a subdirectory can refine the root's rules; the deeper file wins, and the
prompt says so. ``ALLY.md`` is not read from the working directory alone: here it is
also read from the root above it, because that is where ``project init`` and the append
tool write it, and an agent started in a subdirectory must not lose the project's own
file. Run from the root, that is exactly the root's ``ALLY.md``. Which names
are read, and in which order, is the ``names`` argument.

The included text is capped at ``max_bytes`` (UTF-8) in total. The budget goes first to the
file names listed first and, within a name, to the deeper files, so the instructions that
win are the ones kept whole; a file cut short ends with a line saying how much is missing.
Each file is named in the prompt by its path relative to the project root.

:func:`written_instructions` and :func:`appended_instructions` give the content a write
would leave; :mod:`agentprompt.tools.instructions_tool` writes it through the edit engine.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.errors import AgentPromptError
from agentprompt.prompts.loader import PromptLibrary

__all__ = [
    "DEFAULT_INSTRUCTION_FILES",
    "DEFAULT_MAX_INSTRUCTION_BYTES",
    "HIERARCHICAL_FILES",
    "INSTRUCTION_FILES_ENV",
    "PRIMARY_FILE",
    "InstructionError",
    "InstructionFile",
    "ProjectInstructions",
    "appended_instructions",
    "instruction_names",
    "load_instructions",
    "render_instructions",
    "written_instructions",
]

DEFAULT_INSTRUCTION_FILES: tuple[str, ...] = ("ALLY.md", "AGENTS.md", "CLAUDE.md")
"""The instruction files read by default, in the order the prompt shows them."""

HIERARCHICAL_FILES = frozenset({"ALLY.md", "AGENTS.md", "CLAUDE.md"})
"""Files read from every directory from the project root down to the working directory;
any other name is read from the working directory only."""

DEFAULT_MAX_INSTRUCTION_BYTES = 32_000
"""The default cap, in UTF-8 bytes, on the instruction text put into a prompt."""

INSTRUCTION_FILES_ENV = "AGENTPROMPT_INSTRUCTION_FILES"
"""Environment variable naming the instruction files to read, comma-separated, in order
(``AGENTS.md,ALLY.md``); unset means :data:`DEFAULT_INSTRUCTION_FILES`."""

PRIMARY_FILE = "ALLY.md"
"""The file ``project init`` creates and the append tool writes to."""


class InstructionError(AgentPromptError):
    """A project instruction file could not be written, or the text to write is unusable."""


@dataclass(frozen=True, kw_only=True)
class InstructionFile:
    """One instruction file as it goes into the prompt."""

    name: str
    """Its path relative to the project root, as the prompt names it (``src/AGENTS.md``)."""
    path: Path
    """Where it was read from."""
    text: str
    """Its content, trimmed, and cut to the size cap when ``omitted`` is not 0."""
    omitted: int = 0
    """How many bytes of it the size cap left out."""
    depth: int = 0
    """How many directories below the project root it sits."""


@dataclass(frozen=True, kw_only=True)
class ProjectInstructions:
    """The project instructions found for one working directory."""

    files: tuple[InstructionFile, ...] = ()
    """The files included, in the order the prompt shows them."""
    problems: tuple[str, ...] = ()
    """Files that exist but could not be used, each with the reason (never fatal)."""

    @property
    def empty(self) -> bool:
        """No instruction file was found."""
        return not self.files

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the included files, in prompt order."""
        return tuple(f.name for f in self.files)


def _relative_name(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _directories(root: Path, cwd: Path) -> list[Path]:
    """The directories from ``root`` down to ``cwd`` (just ``cwd`` when it is outside)."""
    try:
        parts = cwd.relative_to(root).parts
    except ValueError:
        return [cwd]
    dirs = [root]
    for part in parts:
        dirs.append(dirs[-1] / part)
    return dirs


def _inside(path: Path, bases: Sequence[Path]) -> bool:
    """Whether the resolved ``path`` lies under one of ``bases``."""
    return any(path.is_relative_to(base) for base in bases)


def _read(path: Path, name: str, *, trim: bool = True) -> tuple[str | None, str | None]:
    """The text of ``path``, trimmed unless ``trim`` is false (None when absent or blank),
    or a problem."""
    if not path.is_file():
        return None, None
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"{name}: cannot be read ({exc.strerror}); check its permissions"
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"{name}: is not UTF-8 text (byte {exc.start}); save it as UTF-8"
    if "\x00" in text:
        return None, f"{name}: is a binary file, not instructions; remove or rename it"
    text = text.replace("\r\n", "\n")
    if not text.strip():
        return None, None
    return (text.strip() if trim else text), None


def _cut(text: str, budget: int) -> tuple[str, int]:
    """``text`` cut at a line end to at most ``budget`` UTF-8 bytes, and the bytes left out."""
    data = text.encode("utf-8")
    if len(data) <= budget:
        return text, 0
    head = data[: max(0, budget)].decode("utf-8", errors="ignore")
    # Whole lines only: a line that does not fit is left out with the rest.
    head = head[: head.rindex("\n")].rstrip() if "\n" in head else ""
    return head, len(data) - len(head.encode("utf-8"))


def instruction_names(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The instruction file names to read, from :data:`INSTRUCTION_FILES_ENV` in ``env``
    (default: the process environment), or the defaults when it is unset or blank."""
    value = (os.environ if env is None else env).get(INSTRUCTION_FILES_ENV, "")
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    bad = [n for n in names if "/" in n or "\\" in n or n in (".", "..")]
    if bad:
        raise InstructionError(
            f"{INSTRUCTION_FILES_ENV} names {', '.join(bad)}: give plain file names such as "
            "ALLY.md,AGENTS.md,CLAUDE.md (each is looked up in the project's directories)"
        )
    return names or DEFAULT_INSTRUCTION_FILES


def load_instructions(
    root: Path,
    cwd: Path | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_INSTRUCTION_BYTES,
    names: Sequence[str] | None = None,
) -> ProjectInstructions:
    """The instruction files for working directory ``cwd`` (default: ``root``) in project
    ``root``: each name of ``names`` (default: :func:`instruction_names`) in order,
    hierarchical names root first. Files that cannot be used are listed in ``problems``;
    this never raises for a file's content."""
    names = instruction_names() if names is None else tuple(names)
    root = Path(root).resolve()
    cwd = Path(cwd).resolve() if cwd is not None else root
    found: list[tuple[int, int, str, Path, str]] = []  # (name order, depth, label, path, text)
    problems: list[str] = []
    seen: set[Path] = set()
    for order, name in enumerate(names):
        dirs = _directories(root, cwd) if name in HIERARCHICAL_FILES else [cwd]
        for depth, directory in enumerate(dirs):
            path = directory / name
            label = _relative_name(root, path)
            key = path.resolve() if path.exists() else path
            if key in seen:
                continue
            seen.add(key)
            if path.exists() and not _inside(key, (root, cwd)):
                problems.append(
                    f"{label}: is a link to {key}, outside the project; it was not read"
                )
                continue
            text, problem = _read(path, label)
            if problem:
                problems.append(problem)
            if text is not None:
                found.append((order, depth, label, path, text))
    # Budget by priority: earlier names first, deeper files first within a name.
    budget = max(0, max_bytes)
    cut: dict[str, tuple[str, int]] = {}
    for _order, _depth, label, _path, text in sorted(found, key=lambda f: (f[0], -f[1])):
        kept, omitted = _cut(text, budget)
        budget -= len(kept.encode("utf-8"))
        cut[label] = (kept, omitted)
    files = tuple(
        InstructionFile(
            name=label, path=path, text=cut[label][0], omitted=cut[label][1], depth=depth
        )
        for _order, depth, label, path, _text in found
        if cut[label][0]
    )
    dropped = [label for *_x, label, _p, _t in found if not cut[label][0]]
    problems.extend(
        f"{label}: left out, the instruction size cap of {max_bytes} bytes was reached"
        for label in dropped
    )
    return ProjectInstructions(files=files, problems=tuple(problems))


def render_instructions(instructions: ProjectInstructions, prompts: PromptLibrary) -> str:
    """The instructions as context lines: one ``- Project Instructions (NAME):`` entry per
    file, then the precedence note when files from different depths are included; ``""``
    when there is none."""
    entries = []
    for f in instructions.files:
        text = f.text
        if f.omitted:
            note = prompts.render("context/instructions_truncated", name=f.name, omitted=f.omitted)
            text = f"{text}\n{note}"
        entries.append(prompts.render("context/instructions", name=f.name, text=text))
    nested = {f.depth for f in instructions.files if f.path.name in HIERARCHICAL_FILES}
    if len(nested) > 1:
        entries.append(prompts.render("context/instructions_precedence"))
    return "\n".join(entries)


def written_instructions(text: str, *, name: str = PRIMARY_FILE) -> str:
    """The content of instruction file ``name`` when ``text`` is written as the whole of it
    (line ends normalised, one final newline); :class:`InstructionError` when it is empty."""
    body = text.replace("\r\n", "\n").strip()
    if not body:
        raise InstructionError(f"refusing to write an empty {name}; give the instructions text")
    return body + "\n"


def appended_instructions(root: Path, text: str, *, name: str = PRIMARY_FILE) -> str:
    """The content of instruction file ``name`` under ``root`` once ``text`` is appended
    after a blank line (just ``text`` when the file is missing); :class:`InstructionError`
    when the text is empty or the file cannot be read."""
    addition = text.replace("\r\n", "\n").strip()
    if not addition:
        raise InstructionError(
            f"nothing to append to {name}: the text is empty; pass the instruction to add"
        )
    existing, problem = _read(Path(root).resolve() / name, name, trim=False)
    if problem:
        raise InstructionError(f"cannot append to {problem}")
    return f"{existing.rstrip()}\n\n{addition}\n" if existing else f"{addition}\n"
