"""Prompt files: lookup order, declared variables, and the system prompt loader.

Every piece of prompt text is a Markdown file. A file may start with front matter that
declares its variables::

    ---
    description: What this prompt is for.
    variables:
      name: What the value is.
    ---
    Hello {{name}}.

Placeholders are ``{{name}}``; ``\\{{`` writes a literal ``{{``. A file that declares
variables must declare every placeholder it uses, and rendering it needs exactly those
values. A file with no ``variables`` is plain text, used as it is.

A name (``system``, ``agent/identity``, ``skills/compaction``) resolves to ``NAME.md`` in the
first of: the project's ``config/prompts/`` (the place a project keeps its own prompts), its
``.agentprompt/prompts/``, the user's config directory, and the packaged defaults.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import platformdirs

from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.project_root import find_project_root
from agentprompt.prompts.frontmatter import InvalidFrontMatter, read_front_matter
from agentprompt.prompts.stamps import StampedCache

__all__ = [
    "InvalidPromptFile",
    "MissingVariables",
    "PromptFileMissing",
    "PromptLibrary",
    "PromptSource",
    "PromptTemplate",
    "build_system_prompt",
    "declared_variables",
    "load_extra_prompt",
    "load_skill",
    "load_system_prompt",
    "packaged_dir",
    "parse_prompt_file",
    "placeholders",
    "user_prompt_dir",
]


def packaged_dir() -> Path:
    """Where the packaged default prompts live: beside this module, or inside a frozen
    (PyInstaller) build, ``agentprompt/prompts`` under ``sys._MEIPASS`` (the unpacked
    bundle; the executable's folder when that is not set), where the build collects them."""
    if getattr(sys, "frozen", False):
        bundle = getattr(sys, "_MEIPASS", None) or Path(sys.executable).resolve().parent
        return Path(bundle) / "agentprompt" / "prompts"
    return Path(__file__).resolve().parent


PACKAGED_DIR = packaged_dir()
"""Where the packaged default prompts live (:func:`packaged_dir`, read at import)."""

# Either an escaped opening (group 1) or a placeholder (group 2 holds the variable's name).
_PLACEHOLDER = re.compile(r"(\\\{\{)|\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


class PromptFileMissing(AgentPromptError, FileNotFoundError):
    """No prompt file of that name exists in any searched directory."""

    def __init__(self, name: str, searched: list[Path]) -> None:
        self.name = name
        self.searched = searched
        paths = "\n".join(f"  {p}" for p in searched)
        super().__init__(
            f"prompt file {name}.md was not found. Searched, in order:\n{paths}\n"
            f"Create {name}.md in the first of these directories to provide it."
        )


class InvalidPromptFile(AgentPromptError):
    """A file of prompt text that cannot be used: a prompt file (``.md``) whose front matter
    or placeholders are malformed, or a message catalogue (``.yaml``) that is malformed or
    differs from the others of its set."""

    def __init__(self, path: Path, problem: str, *, key: str | None = None) -> None:
        self.path = path
        """The file."""
        self.key = key
        """The catalogue entry at fault, or None when the problem is the whole file."""
        what = "prompt file" if path.suffix == ".md" else "message catalogue"
        where = f"{what} {path}" + (f", entry {key!r}" if key is not None else "")
        super().__init__(f"{where}: {problem}")


class MissingVariables(AgentPromptError):
    """A prompt rendered without some declared variables, or with undeclared ones."""

    def __init__(
        self, path: Path, missing: list[str], unknown: list[str], *, key: str | None = None
    ) -> None:
        self.path = path
        self.missing = missing
        self.unknown = unknown
        self.key = key
        """The entry of a message catalogue rendered (None: a prompt file)."""
        problems = []
        if missing:
            problems.append(f"missing value(s) for {', '.join(missing)}")
        if unknown:
            problems.append(
                f"value(s) given for {', '.join(unknown)}, which the file does not declare"
            )
        if key is None:
            where, declared = f"prompt file {path}", "in its front matter"
        else:
            where, declared = f"message catalogue {path}, entry {key!r}", "for the entry"
        super().__init__(
            f"{where}: {'; '.join(problems)}. Pass exactly the variables declared {declared}."
        )


@dataclass(frozen=True, kw_only=True)
class PromptSource:
    """Where a prompt name resolves to."""

    name: str
    """The prompt's name (its path below a prompt directory, without ``.md``)."""
    path: Path
    """The file that wins the lookup."""
    origin: str
    """Which directory it came from: ``project``, ``local``, ``user`` or ``packaged``."""
    shadows: tuple[Path, ...] = ()
    """Files of the same name further down the lookup order, which it overrides."""


@dataclass(frozen=True, kw_only=True)
class PromptTemplate:
    """A loaded prompt file."""

    name: str
    """The prompt's name."""
    path: Path
    """The file it was read from."""
    body: str
    """The text after the front matter, without the file's final newline."""
    variables: tuple[str, ...] = ()
    """The variables the file declares, in declaration order."""
    description: str = ""
    """What the prompt is for, from its front matter."""
    key: str | None = None
    """The entry of a message catalogue the text is (None: a prompt file of its own)."""

    def render(self, /, **values: object) -> str:
        """The text with every placeholder replaced; exactly the declared variables needed."""
        declared = set(self.variables)
        missing = [v for v in self.variables if v not in values]
        unknown = sorted(set(values) - declared)
        if missing or unknown:
            raise MissingVariables(self.path, missing, unknown, key=self.key)
        if not declared:
            return self.body

        def fill(match: re.Match[str]) -> str:
            if match.group(1):
                return "{{"
            return str(values[match.group(2)])

        return _PLACEHOLDER.sub(fill, self.body)


def placeholders(body: str) -> set[str]:
    """The names of the ``{{name}}`` placeholders in ``body`` (escaped ``\\{{`` excluded)."""
    return {m.group(2) for m in _PLACEHOLDER.finditer(body) if m.group(2)}


def parse_prompt_file(name: str, path: Path, text: str) -> PromptTemplate:
    """A :class:`PromptTemplate` from a file's text, with its front matter checked."""
    try:
        front = read_front_matter(text)
    except InvalidFrontMatter as exc:
        raise InvalidPromptFile(path, str(exc)) from None
    meta: dict[str, object] = front.meta if front else {}
    body = front.body if front else text
    if body.endswith("\r\n"):
        body = body[:-2]
    elif body.endswith("\n"):
        body = body[:-1]
    try:
        variables = declared_variables(meta, body)
    except InvalidFrontMatter as exc:
        raise InvalidPromptFile(path, str(exc)) from None
    description = meta.get("description", "")
    return PromptTemplate(
        name=name, path=path, body=body, variables=variables, description=str(description or "")
    )


def declared_variables(
    meta: dict[str, object], body: str, *, place: str = "in the front matter"
) -> tuple[str, ...]:
    """The variables ``meta`` declares (its ``variables`` key), in declaration order;
    :class:`~agentprompt.prompts.frontmatter.InvalidFrontMatter` when they are not a mapping
    or a list, or ``body`` uses a placeholder they leave out (a text with no variables is
    plain, used as it is). ``place`` says where the declaration goes, for the error."""
    declared = meta.get("variables") or {}
    if isinstance(declared, list):
        declared = {str(v): "" for v in declared}
    if not isinstance(declared, dict):
        raise InvalidFrontMatter("'variables' must map each variable name to a description")
    variables = tuple(str(v) for v in declared)
    if variables:
        undeclared = sorted(placeholders(body) - set(variables))
        if undeclared:
            raise InvalidFrontMatter(
                f"uses {', '.join('{{' + u + '}}' for u in undeclared)} without declaring it; "
                f"add it under 'variables' {place}"
            )
    return variables


_PARSED: StampedCache[tuple[str, Path], PromptTemplate] = StampedCache()
"""Parsed prompt files, shared by every library of the process: a file is parsed again only
when it changed, however many libraries load it (the edit engine makes one per apply)."""


def user_prompt_dir() -> Path:
    """The user's prompt directory: ``$AGENTPROMPT_CONFIG_DIR/prompts`` or the platform's."""
    base = os.environ.get("AGENTPROMPT_CONFIG_DIR")
    root = Path(base) if base else Path(platformdirs.user_config_dir("agentprompt"))
    return root / "prompts"


class PromptLibrary:
    """Resolves, loads and renders prompt files for one project root.

    Loaded files are cached by path, size and modification time, so a file is read once
    until it changes.
    """

    def __init__(self, root: Path | None = None, *, user_dir: Path | None = None) -> None:
        self.root = (root or find_project_root()).resolve()
        self.user_dir = user_dir if user_dir is not None else user_prompt_dir()

    def search_dirs(self) -> list[tuple[str, Path]]:
        """The prompt directories in lookup order, each with its origin name."""
        return [
            ("project", self.root / "config" / "prompts"),
            ("local", self.root / ".agentprompt" / "prompts"),
            ("user", self.user_dir),
            ("packaged", PACKAGED_DIR),
        ]

    def files(self, relative: str) -> list[tuple[str, Path]]:
        """The files at ``relative`` (``edits/catalogue.yaml``) in the prompt directories
        that have one, in lookup order, each with its directory's origin."""
        _check_name(relative)
        return [
            (origin, d / relative) for origin, d in self.search_dirs() if _is_file(d, d / relative)
        ]

    def find(self, name: str) -> PromptSource | None:
        """Where ``name`` resolves to, or None when no directory has it."""
        _check_name(name)
        hits = self.files(f"{name}.md")
        if not hits:
            return None
        origin, path = hits[0]
        return PromptSource(
            name=name, path=path, origin=origin, shadows=tuple(p for _, p in hits[1:])
        )

    def resolve(self, name: str) -> PromptSource:
        """Where ``name`` resolves to; :class:`PromptFileMissing` lists every path searched."""
        found = self.find(name)
        if found is None:
            raise PromptFileMissing(name, [d / f"{name}.md" for _, d in self.search_dirs()])
        return found

    def load(self, name: str) -> PromptTemplate:
        """The prompt file ``name`` resolves to, parsed."""
        path = self.resolve(name).path
        return _PARSED.load_text(
            (name, path),
            path,
            lambda text: parse_prompt_file(name, path, text),
            partial(InvalidPromptFile, path),
        )

    def render(self, name: str, /, **values: object) -> str:
        """The prompt ``name`` with ``values`` filled in."""
        return self.load(name).render(**values)

    def list(self) -> list[PromptSource]:
        """Every prompt name found in any directory, with the file it resolves to (each
        directory is walked once; the first in lookup order wins, as :meth:`find` says)."""
        hits: dict[str, list[tuple[str, Path]]] = {}
        for origin, d in self.search_dirs():
            try:
                if d.is_dir():
                    for path in sorted(d.rglob("*.md")):
                        name = path.relative_to(d).with_suffix("").as_posix()
                        _check_name(name)
                        if _is_file(d, path):
                            hits.setdefault(name, []).append((origin, path))
            except OSError as exc:
                raise _unreadable_dir(d, exc) from None
        return [
            PromptSource(
                name=name,
                path=found[0][1],
                origin=found[0][0],
                shadows=tuple(p for _, p in found[1:]),
            )
            for name, found in sorted(hits.items())
        ]


def _unreadable_dir(folder: Path, exc: OSError) -> AgentPromptError:
    """A prompt directory that cannot be searched (its permissions, say)."""
    return AgentPromptError(
        f"prompt directory {folder} cannot be read ({exc.strerror or exc}); fix its "
        "permissions (or, for the user's directory, set AGENTPROMPT_CONFIG_DIR elsewhere)"
    )


def _is_file(folder: Path, path: Path) -> bool:
    """``path`` is a file; a folder that cannot be searched is a clear error, never a
    traceback (``Path.is_file`` raises a permission error)."""
    try:
        return path.is_file()
    except OSError as exc:
        raise _unreadable_dir(folder, exc) from None


def _check_name(name: str) -> None:
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise UsageError(
            f"prompt name {name!r} is not valid: use a relative name such as 'system' or "
            "'skills/compaction', without '..'"
        )


_LIBRARIES: dict[Path, PromptLibrary] = {}


def _library(root: Path | None) -> PromptLibrary:
    key = (root or find_project_root()).resolve()
    lib = _LIBRARIES.get(key)
    if lib is None or lib.user_dir != user_prompt_dir():
        lib = _LIBRARIES[key] = PromptLibrary(key)
    return lib


def load_system_prompt(root: Path | None = None) -> str:
    """The text of ``system.md`` (required): a missing file raises a ``FileNotFoundError``."""
    return _library(root).load("system").render()


def load_extra_prompt(root: Path | None = None) -> str | None:
    """The text of ``system_extra.md``, or None when there is no extra prompt: no file, or
    one with no text (an empty ``config/prompts/system_extra.md`` turns the packaged extra
    instructions off)."""
    lib = _library(root)
    if lib.find("system_extra") is None:
        return None
    text = lib.load("system_extra").render()
    return text if text.strip() else None


def build_system_prompt(root: Path | None = None) -> str:
    """``system.md`` followed by ``system_extra.md`` when it exists, separated by a blank line."""
    system = load_system_prompt(root)
    extra = load_extra_prompt(root)
    return system if extra is None else f"{system}\n\n{extra}"


def load_skill(name: str, root: Path | None = None) -> str:
    """The skill prompt ``skills/NAME.md``, read on first use and cached until it changes."""
    return _library(root).load(f"skills/{name}").render()
