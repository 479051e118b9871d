"""A project's persistence, under its ``.agentprompt/`` folder.

Two SQLite databases, kept apart because they are kept differently: ``state.db``
(:mod:`agentprompt.store._sessions`) holds sessions, which must survive every upgrade, so its
schema only ever migrates forward and a damaged file is an error that says what to do;
``cache/cache.db`` (:mod:`agentprompt.store.cachedb`) holds what can be worked out again
(the symbol cache, remembered secret scans, token counts, text facts, texts sent), so a
damaged file or one of another schema version is rebuilt. :mod:`agentprompt.store.paths`
says where both live. The modules that use a cache keep their own queries and open their
tables through :func:`agentprompt.store.cachedb.connect` or
:func:`~agentprompt.store.cachedb.open_cache`.

Errors::

    AgentPromptError
    └── StoreError   the state database cannot be used (locked, damaged, empty, another
                     program's, newer, a session not JSON); it says what to do, and the
                     file is left as it was
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.store._sessions import (
        MIGRATIONS,
        Migration,
        SessionRecord,
        Store,
        StoreError,
        UndoRecord,
    )
    from agentprompt.store.paths import default_cache_path, default_store_path

# The caches (agentprompt.store.cachedb, used by the token counts) load without the session
# store, and the session store without them.
_LAZY = {
    "MIGRATIONS": "agentprompt.store._sessions",
    "Migration": "agentprompt.store._sessions",
    "SessionRecord": "agentprompt.store._sessions",
    "Store": "agentprompt.store._sessions",
    "StoreError": "agentprompt.store._sessions",
    "UndoRecord": "agentprompt.store._sessions",
    "default_cache_path": "agentprompt.store.paths",
    "default_store_path": "agentprompt.store.paths",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "MIGRATIONS",
    "Migration",
    "SessionRecord",
    "Store",
    "StoreError",
    "UndoRecord",
    "default_cache_path",
    "default_store_path",
]
