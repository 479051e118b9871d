"""The symbols of a whole repository: the symbol cache, parse workers, and the head start.

:func:`extract_repository` parses only what changed since the cached rows, over every
core when there is much to do, and stores the results in the SQLite symbol cache.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.extraction._cache import SymbolCache, default_cache_path
    from agentprompt.repo.extraction._repository import Extraction, extract_repository
    from agentprompt.repo.extraction._rows import content_hash
    from agentprompt.repo.extraction._workers import HeadStart, ProgressCallback, start_parsing

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "Extraction": "agentprompt.repo.extraction._repository",
    "HeadStart": "agentprompt.repo.extraction._workers",
    "ProgressCallback": "agentprompt.repo.extraction._workers",
    "SymbolCache": "agentprompt.repo.extraction._cache",
    "content_hash": "agentprompt.repo.extraction._rows",
    "default_cache_path": "agentprompt.repo.extraction._cache",
    "extract_repository": "agentprompt.repo.extraction._repository",
    "start_parsing": "agentprompt.repo.extraction._workers",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "Extraction",
    "HeadStart",
    "ProgressCallback",
    "SymbolCache",
    "content_hash",
    "default_cache_path",
    "extract_repository",
    "start_parsing",
]
