"""The edit engine: parse a model's reply into actions and apply them safely."""

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
from agentprompt.edits.match import STAGES, Stage
from agentprompt.edits.parse import detect_dialects, parse_reply
from agentprompt.edits.paths import UnsafePath
from agentprompt.edits.stream import StreamClosed, StreamParser
from agentprompt.edits.textfile import NotText

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
