"""The local web page: the prompt view with the snippet drawer, the copy-paste bridge round
trip, and the context breakdown, over JSON-RPC, for 127.0.0.1 only (needs the ``ui`` extra:
starlette and uvicorn).

Errors::

    UsageError
    └── InvalidParams   a param is missing or of the wrong type (answered as invalid params)

Every :class:`~agentprompt.errors.AgentPromptError` a method raises becomes a JSON-RPC error
(a ``UsageError`` as invalid params, any other as a server error), worded with the inputs
named as the page names its params (``"max_tokens"``), never as command-line flags.
"""

from __future__ import annotations

from agentprompt.loopback import Guard, GuardedApp, new_token
from agentprompt.web._app import create_app, rpc_methods

__all__ = ["Guard", "GuardedApp", "create_app", "new_token", "rpc_methods"]
