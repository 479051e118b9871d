"""Model interfaces, the model clients, the prompt executor, and the test models.

:func:`model_from_environment` is the one way a front door gets the model a caller asked
for (a :class:`ModelSpec`: ``openai:NAME``, ``anthropic:NAME`` or ``script:FILE``, a server,
a key variable, a timeout), the rest from the environment and the config file; underneath,
:func:`resolve_model_config` and :func:`make_client` pick and build the client. The SDK
clients themselves live in ``agentprompt.llm._openai_client`` and
``agentprompt.llm._anthropic_client`` and import their SDK only when made. Tests never reach
a real model: :class:`ScriptedModel` and :class:`FunctionModel` stand in, and with
``AGENTPROMPT_ALLOW_MODEL_REQUESTS=0`` any real client refuses to send.

Errors::

    AgentPromptError
    ├── ModelError                  a model could not be asked, or stopped answering
    │   ├── ModelConfigError        the model's name, the config file or a script is invalid
    │   │   └── ModelNotConfigured  no usable model is named (also a UsageError)
    │   ├── ClientNotInstalled      the provider's SDK is not installed
    │   ├── MissingApiKey           no API key for a provider that needs one
    │   ├── ModelConnectionError    the server cannot be reached
    │   │   └── ModelStreamInterrupted  the reply was cut off
    │   ├── ModelReplyError         the server did not answer in the protocol's format
    │   ├── ModelHTTPError          the server answered an HTTP error status
    │   │   └── RateLimited         HTTP 429: ask again later
    │   └── ScriptOutOfAnswers      a scripted model has no answer left
    ├── ModelRequestsBlocked        a real model was called while requests are switched off
    └── UsageError
        └── ModelNotConfigured
"""

from agentprompt.llm._choice import ChosenModel, ModelSpec, model_from_environment
from agentprompt.llm._executor import ClientPromptExecutor
from agentprompt.llm._script import ScriptFileModel, load_script_model
from agentprompt.llm._testing import FunctionModel, PromptCall, ScriptedModel
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
    MODEL_ENV,
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
    ModelNotConfigured,
    ModelReplyError,
    ModelStreamInterrupted,
    RateLimited,
    ScriptOutOfAnswers,
)

__all__ = [
    "ALLOW_MODEL_REQUESTS_ENV",
    "MODEL_ENV",
    "ChosenModel",
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
    "ModelNotConfigured",
    "ModelReply",
    "ModelReplyError",
    "ModelRequest",
    "ModelRequestsBlocked",
    "ModelSpec",
    "ModelStreamInterrupted",
    "PromptCall",
    "PromptExecutor",
    "Provider",
    "RateLimited",
    "ReplyDone",
    "ScriptFileModel",
    "ScriptOutOfAnswers",
    "ScriptedModel",
    "StreamEvent",
    "TextDelta",
    "Usage",
    "check_model_requests_allowed",
    "load_script_model",
    "make_client",
    "model_from_environment",
    "model_requests",
    "read_config_file",
    "resolve_model_config",
]
