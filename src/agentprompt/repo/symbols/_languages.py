"""Which language a file is written in, and the tree-sitter grammar that reads it.

Grammars come from the official per-language wheels (``tree-sitter-python`` and friends),
which bundle their compiled parser, so nothing is downloaded. Languages and parsers are
built once per process and reused.
"""

from __future__ import annotations

import importlib
from functools import cache

from tree_sitter import Language, Parser

__all__ = [
    "LANGUAGES",
    "language_for_path",
    "parser_for",
    "tree_sitter_language",
]

LANGUAGES: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "php": ("tree_sitter_php", "language_php"),
}
"""Each supported language's name, with the grammar module and its language function."""

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".cs": "csharp",
    ".php": "php",
    ".phtml": "php",
}

_FILENAMES: dict[str, str] = {
    "Rakefile": "ruby",
    "Gemfile": "ruby",
}


def language_for_path(path: str) -> str | None:
    """The language of the file at ``path`` (by extension or well-known name), or None."""
    name = path.rsplit("/", 1)[-1]
    known = _FILENAMES.get(name)
    if known is not None:
        return known
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _EXTENSIONS.get(name[dot:].lower())


@cache
def tree_sitter_language(language: str) -> Language:
    """The tree-sitter :class:`Language` for a supported language name."""
    module_name, function = LANGUAGES[language]
    module = importlib.import_module(module_name)
    return Language(getattr(module, function)())


@cache
def parser_for(language: str) -> Parser:
    """A parser for ``language``, shared within this process (parsers are not thread-safe)."""
    return Parser(tree_sitter_language(language))
