"""The edit engine: parse a model's reply into actions and apply them safely.

Errors::

    AgentPromptError
    └── EditError              what the engine refuses (an unknown dialect, a file that is
        │                      not text, a garbled reply, a journal's unsafe place...)
        ├── UnsafePath         a path that could leave the root or damage the repository
        │   └── PathTooLong    a name or path no file system holds (nothing of it exists)
        ├── JournalPending     an interrupted apply left its journal: recover first
        ├── ApplyBusy          another apply or recovery holds the root's lock
        ├── WriteFailed        a write failed part way; every file was restored
        └── RollbackFailed     a write failed and so did restoring; the journal keeps them
    UsageError
    ├── ChangedSince           files an apply wrote were changed since: not reverted
    └── UnknownLanguage        a language the engine (or the bridge) has no text in

A root that is not a folder is :class:`~agentprompt.errors.NotADirectory`. Inside the
engine, ``Refused`` (an action that cannot be applied) and ``Unplaceable`` (added lines
that cannot be written into the file) become an action's feedback and never escape.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.edits._lineindex import LineIndex
    from agentprompt.edits._match import STAGES, Found, Missing, Stage, locate
    from agentprompt.edits._stream import StreamParser
    from agentprompt.edits.actions import (
        Action,
        AnchoredEdit,
        Continue,
        DeleteFile,
        Diagnostic,
        EditError,
        FileAction,
        Hunk,
        MoveFile,
        ParseResult,
        PatchFile,
        RequestFiles,
        SearchReplace,
        SwitchMode,
        WriteFile,
        action_to_json,
    )
    from agentprompt.edits.apply import (
        AppliedAction,
        ApplyOptions,
        ApplyReport,
        FailedAction,
        Placement,
        apply_actions,
        apply_reply,
    )
    from agentprompt.edits.dialects import DIALECTS, Dialect
    from agentprompt.edits.instructions import dialect_instructions
    from agentprompt.edits.journal import (
        ApplyBusy,
        JournalPending,
        RecoveryReport,
        WriteFailed,
        recover,
    )
    from agentprompt.edits.parse import detect_dialects, parse_reply
    from agentprompt.edits.paths import UnsafePath
    from agentprompt.edits.revert import (
        ChangedSince,
        FileBefore,
        RevertReport,
        revert_files,
    )
    from agentprompt.edits.wording import UnknownLanguage

# Loaded on first use: importing one engine module (the dialects' instructions, say)
# does not pay for the applier, the journal and the stream parser.
_LAZY = {
    "Action": "agentprompt.edits.actions",
    "AnchoredEdit": "agentprompt.edits.actions",
    "AppliedAction": "agentprompt.edits.apply",
    "ApplyBusy": "agentprompt.edits.journal",
    "ApplyOptions": "agentprompt.edits.apply",
    "ApplyReport": "agentprompt.edits.apply",
    "ChangedSince": "agentprompt.edits.revert",
    "Continue": "agentprompt.edits.actions",
    "DIALECTS": "agentprompt.edits.dialects",
    "DeleteFile": "agentprompt.edits.actions",
    "Diagnostic": "agentprompt.edits.actions",
    "Dialect": "agentprompt.edits.dialects",
    "EditError": "agentprompt.edits.actions",
    "FailedAction": "agentprompt.edits.apply",
    "FileAction": "agentprompt.edits.actions",
    "FileBefore": "agentprompt.edits.revert",
    "Found": "agentprompt.edits._match",
    "Hunk": "agentprompt.edits.actions",
    "JournalPending": "agentprompt.edits.journal",
    "LineIndex": "agentprompt.edits._lineindex",
    "Missing": "agentprompt.edits._match",
    "MoveFile": "agentprompt.edits.actions",
    "ParseResult": "agentprompt.edits.actions",
    "PatchFile": "agentprompt.edits.actions",
    "Placement": "agentprompt.edits.apply",
    "RecoveryReport": "agentprompt.edits.journal",
    "RequestFiles": "agentprompt.edits.actions",
    "RevertReport": "agentprompt.edits.revert",
    "STAGES": "agentprompt.edits._match",
    "SearchReplace": "agentprompt.edits.actions",
    "Stage": "agentprompt.edits._match",
    "StreamParser": "agentprompt.edits._stream",
    "SwitchMode": "agentprompt.edits.actions",
    "UnknownLanguage": "agentprompt.edits.wording",
    "UnsafePath": "agentprompt.edits.paths",
    "WriteFailed": "agentprompt.edits.journal",
    "WriteFile": "agentprompt.edits.actions",
    "action_to_json": "agentprompt.edits.actions",
    "apply_actions": "agentprompt.edits.apply",
    "apply_reply": "agentprompt.edits.apply",
    "detect_dialects": "agentprompt.edits.parse",
    "dialect_instructions": "agentprompt.edits.instructions",
    "locate": "agentprompt.edits._match",
    "parse_reply": "agentprompt.edits.parse",
    "recover": "agentprompt.edits.journal",
    "revert_files": "agentprompt.edits.revert",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "DIALECTS",
    "STAGES",
    "Action",
    "AnchoredEdit",
    "AppliedAction",
    "ApplyBusy",
    "ApplyOptions",
    "ApplyReport",
    "ChangedSince",
    "Continue",
    "DeleteFile",
    "Diagnostic",
    "Dialect",
    "EditError",
    "FailedAction",
    "FileAction",
    "FileBefore",
    "Found",
    "Hunk",
    "JournalPending",
    "LineIndex",
    "Missing",
    "MoveFile",
    "ParseResult",
    "PatchFile",
    "Placement",
    "RecoveryReport",
    "RequestFiles",
    "RevertReport",
    "SearchReplace",
    "Stage",
    "StreamParser",
    "SwitchMode",
    "UnknownLanguage",
    "UnsafePath",
    "WriteFailed",
    "WriteFile",
    "action_to_json",
    "apply_actions",
    "apply_reply",
    "detect_dialects",
    "dialect_instructions",
    "locate",
    "parse_reply",
    "recover",
    "revert_files",
]
