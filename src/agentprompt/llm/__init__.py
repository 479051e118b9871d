"""Model interfaces, the model clients, the prompt executor, and the test models.

:func:`resolve_model_config` and :func:`make_client` pick and build a client
(``openai:NAME``, ``anthropic:NAME`` or ``script:FILE``); the SDK clients themselves live in
``agentprompt.llm._openai_client`` and ``agentprompt.llm._anthropic_client`` and import their
SDK only when made. Tests never reach a real model: :class:`ScriptedModel` and
:class:`FunctionModel` stand in, and with ``AGENTPROMPT_ALLOW_MODEL_REQUESTS=0`` any real
client refuses to send.

Errors::

    AgentPromptError
    ├── ModelError                   a model could not be asked, or stopped answering
    │   │                            (``partial``: what had streamed before)
    │   ├── ModelConfigError         the model configuration is missing or invalid
    │   ├── ClientNotInstalled       the SDK a provider needs is not installed
    │   ├── MissingApiKey            no API key for a provider that needs one
    │   ├── ModelConnectionError     the server cannot be reached, or the connection failed
    │   │   └── ModelStreamInterrupted   the stream broke before the reply was complete
    │   ├── ModelReplyError          an answer not in the protocol it was asked in
    │   ├── ModelHTTPError           an HTTP error status
    │   │   └── RateLimited          HTTP 429 (``retry_after``)
    │   └── ScriptOutOfAnswers       a ``script:FILE`` model was asked more than FILE holds
    ├── ScriptExhausted              a ScriptedModel was asked more than it had answers
    └── ModelRequestsBlocked         a real model was called while requests are switched off
"""

from agentprompt.llm._testing import FunctionModel, PromptCall, ScriptedModel, ScriptExhausted
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
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import (
    ModelConfig,
    Provider,
    read_config_file,
    resolve_model_config,
)
from agentprompt.llm.errors import (
    ClientNotInstalled,
    MissingApiKey,
    ModelConfigError,
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelReplyError,
    ModelStreamInterrupted,
    RateLimited,
    ScriptOutOfAnswers,
)
from agentprompt.llm.executor import ClientPromptExecutor
from agentprompt.llm.script import ScriptFileModel, load_script_model

__all__ = [
    "ALLOW_MODEL_REQUESTS_ENV",
    "ClientNotInstalled",
    "ClientPromptExecutor",
    "FunctionModel",
    "MissingApiKey",
    "ModelClient",
    "ModelConfig",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelReply",
    "ModelReplyError",
    "ModelRequest",
    "ModelRequestsBlocked",
    "ModelStreamInterrupted",
    "PromptCall",
    "PromptExecutor",
    "Provider",
    "RateLimited",
    "ReplyDone",
    "ScriptExhausted",
    "ScriptFileModel",
    "ScriptOutOfAnswers",
    "ScriptedModel",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "check_model_requests_allowed",
    "load_script_model",
    "make_client",
    "model_requests",
    "read_config_file",
    "resolve_model_config",
]
