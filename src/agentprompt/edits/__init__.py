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
from agentprompt.edits.dialects import DIALECTS, Dialect, UnknownDialect
from agentprompt.edits.parse import detect_dialects, parse_reply
from agentprompt.edits.stream import StreamClosed, StreamParser

__all__ = [
    "DIALECTS",
    "Action",
    "AnchoredEdit",
    "Continue",
    "DeleteFile",
    "Diagnostic",
    "Dialect",
    "EditError",
    "FileAction",
    "Hunk",
    "MoveFile",
    "ParseResult",
    "PatchFile",
    "RequestFiles",
    "SearchReplace",
    "StreamClosed",
    "StreamParser",
    "SwitchMode",
    "UnknownDialect",
    "WriteFile",
    "action_to_json",
    "detect_dialects",
    "parse_reply",
]
