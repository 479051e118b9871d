"""The copy-paste bridge: browse and edit prompts, rounds, split sending, clipboard.

Errors::

    UsageError
    ├── NoBridgeSession   a command needs a bridge session and the root has none
    ├── UnknownFile       a path the bridge cannot show (outside the root, held back...)
    ├── LimitTooSmall     a split limit that cannot hold a part header and the longest line
    ├── BadNote           a note for the next prompt that is empty, whitespace or binary
    └── CommandNotStarted a command to run for the next prompt that cannot be started

Other bad input (a file to drop that is not in context, a file that changed while the
prompt was made) is a ``UsageError``; a language with no prompts is the edit engine's
:class:`~agentprompt.edits.UnknownLanguage`; a budget the prompt cannot fit is
:class:`~agentprompt.budget.BudgetExceeded`; a stored session that cannot be read is a
:class:`~agentprompt.store.StoreError`.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.bridge.clipboard import CopyFunction, CopyResult, copy_prompt
    from agentprompt.bridge.control import add_files, drop_files
    from agentprompt.bridge.inputs import (
        DEFAULT_OUTPUT_TOKENS,
        DEFAULT_RUN_TIMEOUT,
        BadNote,
        CommandNotStarted,
        CommandRun,
        UserNote,
        check_note,
        run_command,
        trim_output,
    )
    from agentprompt.bridge.pack import (
        BridgePrompt,
        build_prompt,
        pack_repository,
        session_view,
        split_limit,
    )
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

# The bridge's modules load on first use: a command that needs one of them (the workspace's
# defaults, a session's state) does not pay for the prompt builder.
_LAZY = {
    "BadNote": "agentprompt.bridge.inputs",
    "CommandNotStarted": "agentprompt.bridge.inputs",
    "CommandRun": "agentprompt.bridge.inputs",
    "DEFAULT_OUTPUT_TOKENS": "agentprompt.bridge.inputs",
    "DEFAULT_RUN_TIMEOUT": "agentprompt.bridge.inputs",
    "UserNote": "agentprompt.bridge.inputs",
    "check_note": "agentprompt.bridge.inputs",
    "run_command": "agentprompt.bridge.inputs",
    "trim_output": "agentprompt.bridge.inputs",
    "BridgePrompt": "agentprompt.bridge.pack",
    "BridgeState": "agentprompt.bridge.state",
    "CopyFunction": "agentprompt.bridge.clipboard",
    "CopyResult": "agentprompt.bridge.clipboard",
    "DEFAULT_SPLIT_CHARS": "agentprompt.bridge.split",
    "LimitTooSmall": "agentprompt.bridge.split",
    "NoBridgeSession": "agentprompt.bridge.state",
    "RepoView": "agentprompt.bridge.view",
    "Round": "agentprompt.bridge.rounds",
    "SizeReport": "agentprompt.bridge.sizes",
    "SplitLimit": "agentprompt.bridge.split",
    "UnknownFile": "agentprompt.bridge.view",
    "add_files": "agentprompt.bridge.control",
    "advance": "agentprompt.bridge.rounds",
    "build_prompt": "agentprompt.bridge.pack",
    "clear_session": "agentprompt.bridge.state",
    "copy_prompt": "agentprompt.bridge.clipboard",
    "default_lang": "agentprompt.bridge.text",
    "drop_files": "agentprompt.bridge.control",
    "find_session": "agentprompt.bridge.state",
    "load_session": "agentprompt.bridge.state",
    "pack_repository": "agentprompt.bridge.pack",
    "reply_options": "agentprompt.bridge.rounds",
    "run_round": "agentprompt.bridge.rounds",
    "save_state": "agentprompt.bridge.state",
    "session_view": "agentprompt.bridge.pack",
    "split_limit": "agentprompt.bridge.pack",
    "size_report": "agentprompt.bridge.sizes",
    "split_prompt": "agentprompt.bridge.split",
    "start_session": "agentprompt.bridge.state",
    "view_repository": "agentprompt.bridge.view",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "DEFAULT_OUTPUT_TOKENS",
    "DEFAULT_RUN_TIMEOUT",
    "DEFAULT_SPLIT_CHARS",
    "BadNote",
    "BridgePrompt",
    "BridgeState",
    "CommandNotStarted",
    "CommandRun",
    "CopyFunction",
    "CopyResult",
    "LimitTooSmall",
    "NoBridgeSession",
    "RepoView",
    "Round",
    "SizeReport",
    "SplitLimit",
    "UnknownFile",
    "UserNote",
    "add_files",
    "advance",
    "build_prompt",
    "check_note",
    "clear_session",
    "copy_prompt",
    "default_lang",
    "drop_files",
    "find_session",
    "load_session",
    "pack_repository",
    "reply_options",
    "run_command",
    "run_round",
    "save_state",
    "session_view",
    "size_report",
    "split_limit",
    "split_prompt",
    "start_session",
    "trim_output",
    "view_repository",
]
