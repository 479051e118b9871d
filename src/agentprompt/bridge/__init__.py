"""The copy-paste bridge: browse and edit prompts, rounds, split sending, clipboard.

Errors::

    UsageError
    ├── NoBridgeSession   a command needs a bridge session and the root has none
    ├── UnknownFile       a path the bridge cannot show (outside the root, held back...)
    └── LimitTooSmall     a split limit that cannot hold a part header and the longest line

Other bad input (a file to drop that is not in context, a file that changed while the
prompt was made) is a ``UsageError``; a language with no prompts is the edit engine's
:class:`~agentprompt.edits.UnknownLanguage`; a budget the prompt cannot fit is
:class:`~agentprompt.budget.BudgetExceeded`; a stored session that cannot be read is a
:class:`~agentprompt.store.StoreError`.
"""

from agentprompt.bridge.clipboard import CopyFunction, CopyResult, copy_prompt
from agentprompt.bridge.control import add_files, drop_files
from agentprompt.bridge.pack import BridgePrompt, build_prompt, pack_repository, session_view
from agentprompt.bridge.rounds import Round, advance, reply_options, run_round
from agentprompt.bridge.sizes import SizeReport, size_report
from agentprompt.bridge.split import (
    DEFAULT_SPLIT_CHARS,
    LimitTooSmall,
    SplitLimit,
    split_prompt,
)
from agentprompt.bridge.state import (
    BridgeState,
    NoBridgeSession,
    clear_session,
    find_session,
    load_session,
    save_state,
    start_session,
)
from agentprompt.bridge.text import default_lang
from agentprompt.bridge.view import RepoView, UnknownFile, view_repository

__all__ = [
    "DEFAULT_SPLIT_CHARS",
    "BridgePrompt",
    "BridgeState",
    "CopyFunction",
    "CopyResult",
    "LimitTooSmall",
    "NoBridgeSession",
    "RepoView",
    "Round",
    "SizeReport",
    "SplitLimit",
    "UnknownFile",
    "add_files",
    "advance",
    "build_prompt",
    "clear_session",
    "copy_prompt",
    "default_lang",
    "drop_files",
    "find_session",
    "load_session",
    "pack_repository",
    "reply_options",
    "run_round",
    "save_state",
    "session_view",
    "size_report",
    "split_prompt",
    "start_session",
    "view_repository",
]
