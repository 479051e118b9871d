"""Commit messages from a staged diff: the model's reply checked against the conventional
format and the subject's style, repaired where that is mechanical, asked again once where it
is not (``agentprompt commit-msg``).

With ``apply --commit``, the files one bridge round wrote are committed alone
(:func:`commit_files`), with a model's message or one made from the round
(:func:`round_message`).

Errors: no class of its own. A staged diff that is empty or cannot be read is a
:class:`~agentprompt.errors.UsageError`; the model's failures are the model client's
:class:`~agentprompt.llm.ModelError`.
"""

from agentprompt.commitmsg._commit import (
    CommitResult,
    check_committable,
    commit_files,
    paths_diff,
    round_message,
)
from agentprompt.commitmsg._message import (
    BODY_WIDTH,
    COMMIT_TYPES,
    SUBJECT_LIMIT,
    CommitMessage,
    clean_commit_message,
    commit_messages,
    commit_problems,
    get_commit_message,
    staged_diff,
)
from agentprompt.commitmsg._style import subject_style_problems

__all__ = [
    "BODY_WIDTH",
    "COMMIT_TYPES",
    "SUBJECT_LIMIT",
    "CommitMessage",
    "CommitResult",
    "check_committable",
    "clean_commit_message",
    "commit_files",
    "commit_messages",
    "commit_problems",
    "get_commit_message",
    "paths_diff",
    "round_message",
    "staged_diff",
    "subject_style_problems",
]
