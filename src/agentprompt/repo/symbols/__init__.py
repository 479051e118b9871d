"""Symbols of one file: definitions, imports and references, read with tree-sitter.

:func:`extract_symbols` turns a path and its bytes into :class:`FileSymbols`; the
per-language grammars, the tree walk and the signature readers are inner modules.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.symbols._languages import language_for_path, parser_for
    from agentprompt.repo.symbols._skeletons import masked_text, skeleton
    from agentprompt.repo.symbols._walk import walk_tree
    from agentprompt.repo.symbols.entries import FileSymbols, ImportEntry, SymbolEntry
    from agentprompt.repo.symbols.extract import extract_symbols

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "FileSymbols": "agentprompt.repo.symbols.entries",
    "ImportEntry": "agentprompt.repo.symbols.entries",
    "SymbolEntry": "agentprompt.repo.symbols.entries",
    "extract_symbols": "agentprompt.repo.symbols.extract",
    "language_for_path": "agentprompt.repo.symbols._languages",
    "masked_text": "agentprompt.repo.symbols._skeletons",
    "parser_for": "agentprompt.repo.symbols._languages",
    "skeleton": "agentprompt.repo.symbols._skeletons",
    "walk_tree": "agentprompt.repo.symbols._walk",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "FileSymbols",
    "ImportEntry",
    "SymbolEntry",
    "extract_symbols",
    "language_for_path",
    "masked_text",
    "parser_for",
    "skeleton",
    "walk_tree",
]
