"""Model interfaces, seed 000's prompt executor, and the test models.

Tests never reach a real model: :class:`ScriptedModel` and :class:`FunctionModel` stand in,
and with ``AGENTPROMPT_ALLOW_MODEL_REQUESTS=0`` any real client refuses to send.
"""

from agentprompt.llm.base import (
    ALLOW_MODEL_REQUESTS_ENV,
    ModelClient,
    ModelReply,
    ModelRequest,
    ModelRequestsBlocked,
    PromptExecutor,
    ReplyDone,
    StreamEvent,
    TextDelta,
    Usage,
    check_model_requests_allowed,
    model_requests,
)
from agentprompt.llm.executor import ClientPromptExecutor
from agentprompt.llm.testing import FunctionModel, PromptCall, ScriptedModel, ScriptExhausted

__all__ = [
    "ALLOW_MODEL_REQUESTS_ENV",
    "ClientPromptExecutor",
    "FunctionModel",
    "ModelClient",
    "ModelReply",
    "ModelRequest",
    "ModelRequestsBlocked",
    "PromptCall",
    "PromptExecutor",
    "ReplyDone",
    "ScriptExhausted",
    "ScriptedModel",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "check_model_requests_allowed",
    "model_requests",
]
