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

__all__ = [
    "Action",
    "AnchoredEdit",
    "Continue",
    "DeleteFile",
    "Diagnostic",
    "EditError",
    "FileAction",
    "Hunk",
    "MoveFile",
    "ParseResult",
    "PatchFile",
    "RequestFiles",
    "SearchReplace",
    "SwitchMode",
    "WriteFile",
    "action_to_json",
]
