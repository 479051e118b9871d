"""The edit engine: parse a model's reply into actions and apply them safely."""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.edits._match import STAGES, Stage
    from agentprompt.edits._stream import StreamClosed, StreamParser
    from agentprompt.edits._textfile import NotText
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
        NotADirectoryRoot,
        apply_actions,
        apply_reply,
    )
    from agentprompt.edits.dialects import DIALECTS, Dialect, UnknownDialect
    from agentprompt.edits.instructions import dialect_instructions
    from agentprompt.edits.journal import (
        ApplyBusy,
        JournalPending,
        JournalUnsafe,
        RecoveryReport,
        WriteFailed,
        recover,
    )
    from agentprompt.edits.parse import detect_dialects, parse_reply
    from agentprompt.edits.paths import UnsafePath

# Loaded on first use: importing one engine module (the dialects' instructions, say)
# does not pay for the applier, the journal and the stream parser.
_LAZY = {
    "Action": "agentprompt.edits.actions",
    "AnchoredEdit": "agentprompt.edits.actions",
    "Continue": "agentprompt.edits.actions",
    "DeleteFile": "agentprompt.edits.actions",
    "Diagnostic": "agentprompt.edits.actions",
    "EditError": "agentprompt.edits.actions",
    "FileAction": "agentprompt.edits.actions",
    "Hunk": "agentprompt.edits.actions",
    "MoveFile": "agentprompt.edits.actions",
    "ParseResult": "agentprompt.edits.actions",
    "PatchFile": "agentprompt.edits.actions",
    "RequestFiles": "agentprompt.edits.actions",
    "SearchReplace": "agentprompt.edits.actions",
    "SwitchMode": "agentprompt.edits.actions",
    "WriteFile": "agentprompt.edits.actions",
    "action_to_json": "agentprompt.edits.actions",
    "AppliedAction": "agentprompt.edits.apply",
    "ApplyOptions": "agentprompt.edits.apply",
    "ApplyReport": "agentprompt.edits.apply",
    "FailedAction": "agentprompt.edits.apply",
    "NotADirectoryRoot": "agentprompt.edits.apply",
    "apply_actions": "agentprompt.edits.apply",
    "apply_reply": "agentprompt.edits.apply",
    "DIALECTS": "agentprompt.edits.dialects",
    "Dialect": "agentprompt.edits.dialects",
    "UnknownDialect": "agentprompt.edits.dialects",
    "dialect_instructions": "agentprompt.edits.instructions",
    "ApplyBusy": "agentprompt.edits.journal",
    "JournalPending": "agentprompt.edits.journal",
    "JournalUnsafe": "agentprompt.edits.journal",
    "RecoveryReport": "agentprompt.edits.journal",
    "WriteFailed": "agentprompt.edits.journal",
    "recover": "agentprompt.edits.journal",
    "STAGES": "agentprompt.edits._match",
    "Stage": "agentprompt.edits._match",
    "detect_dialects": "agentprompt.edits.parse",
    "parse_reply": "agentprompt.edits.parse",
    "UnsafePath": "agentprompt.edits.paths",
    "StreamClosed": "agentprompt.edits._stream",
    "StreamParser": "agentprompt.edits._stream",
    "NotText": "agentprompt.edits._textfile",
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
    "Continue",
    "DeleteFile",
    "Diagnostic",
    "Dialect",
    "EditError",
    "FailedAction",
    "FileAction",
    "Hunk",
    "JournalPending",
    "JournalUnsafe",
    "MoveFile",
    "NotADirectoryRoot",
    "NotText",
    "ParseResult",
    "PatchFile",
    "RecoveryReport",
    "RequestFiles",
    "SearchReplace",
    "Stage",
    "StreamClosed",
    "StreamParser",
    "SwitchMode",
    "UnknownDialect",
    "UnsafePath",
    "WriteFailed",
    "WriteFile",
    "action_to_json",
    "apply_actions",
    "apply_reply",
    "detect_dialects",
    "dialect_instructions",
    "parse_reply",
    "recover",
]
