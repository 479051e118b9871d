"""What can go wrong when a real model is asked, as typed errors that say what to do.

Every error carries ``partial``: what the model had already streamed when the failure
happened (its text and any complete tool calls), or None when nothing had arrived. An
agent session uses it to keep the partial answer and ask the model to continue.
"""

from __future__ import annotations

from agentprompt.errors import AgentPromptError, UsageError
from agentprompt.llm.base import ModelReply

__all__ = [
    "ClientNotInstalled",
    "MissingApiKey",
    "ModelConfigError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotConfigured",
    "ModelReplyError",
    "ModelStreamInterrupted",
    "RateLimited",
    "ScriptOutOfAnswers",
    "excerpt",
    "status_error",
]

BODY_EXCERPT_CHARS = 500
"""How much of an error response's body an error message quotes."""


def excerpt(text: str, limit: int = BODY_EXCERPT_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class ModelError(AgentPromptError):
    """A model could not be asked, or stopped answering; the base of every client error."""

    def __init__(self, message: str, *, partial: ModelReply | None = None) -> None:
        super().__init__(message)
        self.partial = partial
        """What the model had streamed before the failure (text and complete tool calls)."""


class ModelConfigError(ModelError):
    """The model configuration is missing or invalid (model name, config file, script)."""

    def __init__(self, message: str, *, source: str | None = None) -> None:
        super().__init__(message)
        self.source = source
        """Where the bad setting came from: a flag, a variable, a file path; None if unset."""


class ModelNotConfigured(ModelConfigError, UsageError):
    """A model is needed and none is usable: none is named (by the caller, the environment
    or the config file), or the one named cannot be used (its name, the config file, its
    script).

    It is a :class:`~agentprompt.errors.UsageError` whose fix names the input ``model``:
    each front door words it with its own name for it (the command line's ``--model``).
    """

    def __init__(
        self,
        *,
        reason: ModelConfigError | None = None,
        model_env: str = "",
        config_file: str = "",
        needed_for: str | None = None,
        without: str | None = None,
    ) -> None:
        self.reason = reason
        """Why the named model cannot be used; None when no model is named at all."""
        self.model_env = model_env
        """The environment variable that may name the model."""
        self.config_file = config_file
        """The config file that may name a default model."""
        self.needed_for = needed_for
        """What needs the model (``select``, ``commit-msg``), when the caller said."""
        self.without = without
        """How to go on without a model (may name inputs as ``{print_prompt}``), or None."""
        lead = f"{needed_for} needs a usable model: " if needed_for else ""
        if reason is None:
            other = f", or {without}" if without else ""
            UsageError.__init__(
                self,
                f"{lead}no model is named",
                fix="pass {model} openai:MODEL, anthropic:MODEL or script:FILE, set "
                f'{model_env}, or write model = "..." in {config_file}{other}',
            )
        else:
            UsageError.__init__(self, f"{lead}{reason}")
        self.partial = None
        self.source = reason.source if reason is not None else None

    def needed(self, needed_for: str | None, *, without: str | None = None) -> ModelNotConfigured:
        """This error as ``needed_for`` words it: what needs the model, and how to go on
        without one."""
        return ModelNotConfigured(
            reason=self.reason,
            model_env=self.model_env,
            config_file=self.config_file,
            needed_for=needed_for,
            without=without,
        )


class ClientNotInstalled(ModelError):
    """The SDK a provider needs is not installed."""

    def __init__(self, provider: str, package: str) -> None:
        super().__init__(
            f"the {provider} client needs the '{package}' package, which is not installed; "
            f"install it with: pip install 'agentprompt[{package}]'"
        )
        self.provider = provider
        """The provider whose client was asked for (``openai``, ``anthropic``)."""
        self.package = package
        """The missing package's name."""


class MissingApiKey(ModelError):
    """No API key is configured for a provider that needs one."""

    def __init__(self, provider: str, env_var: str, *, flag: str = "--api-key-env") -> None:
        super().__init__(
            f"no API key for {provider}: set the environment variable {env_var}, or name "
            f"another variable that holds the key with {flag} NAME (or api_key_env in the "
            f"[{provider}] table of the config file)"
        )
        self.provider = provider
        """The provider that needs the key."""
        self.env_var = env_var
        """The environment variable the key was looked for in."""
        self.flag = flag
        """The command-line flag that names another variable."""


class ModelConnectionError(ModelError):
    """The model's server could not be reached, or the connection failed or timed out."""

    def __init__(
        self,
        url: str,
        reason: str,
        *,
        partial: ModelReply | None = None,
    ) -> None:
        super().__init__(
            f"cannot reach the model server at {url}: {reason}; check that the server is "
            "running and the base URL (--base-url, or the provider's *_BASE_URL variable) "
            "is right",
            partial=partial,
        )
        self.url = url
        """The URL that was asked."""
        self.reason = reason
        """What went wrong, in a few words."""


class ModelStreamInterrupted(ModelConnectionError):
    """The connection broke, or the stream ended, before the reply was complete."""

    def __init__(self, url: str, reason: str, *, partial: ModelReply | None = None) -> None:
        kept = (
            "the part that arrived is kept, so asking again continues it"
            if partial is not None
            else "nothing usable arrived; ask again"
        )
        ModelError.__init__(
            self, f"the reply from {url} was cut off: {reason}; {kept}", partial=partial
        )
        self.url = url
        self.reason = reason


class ModelReplyError(ModelError):
    """The server answered, but not with a reply of the protocol it was asked in."""

    def __init__(
        self, url: str, protocol: str, detail: str, *, partial: ModelReply | None = None
    ) -> None:
        said = excerpt(detail, 200)
        super().__init__(
            f"the server at {url} did not answer in the {protocol} format ({said}); "
            f"check that the base URL points at a {protocol} API",
            partial=partial,
        )
        self.url = url
        """The URL that was asked."""
        self.protocol = protocol
        """The protocol the answer should have followed."""


class ModelHTTPError(ModelError):
    """The model's server answered with an HTTP error status."""

    def __init__(
        self,
        url: str,
        status: int,
        body: str,
        *,
        hint: str = "",
        partial: ModelReply | None = None,
    ) -> None:
        said = f": {excerpt(body)}" if body.strip() else ""
        advice = f"; {hint}" if hint else ""
        super().__init__(
            f"the model server at {url} answered HTTP {status}{said}{advice}", partial=partial
        )
        self.url = url
        """The URL that was asked."""
        self.status = status
        """The HTTP status code."""
        self.body = excerpt(body)
        """The start of the response body, on one line."""


class RateLimited(ModelHTTPError):
    """The model's server refused the request for now (HTTP 429); try again later."""

    def __init__(
        self,
        url: str,
        body: str,
        *,
        retry_after: float | None = None,
        partial: ModelReply | None = None,
    ) -> None:
        wait = (
            f"wait {retry_after:g} s before asking again"
            if retry_after is not None
            else "wait a little before asking again"
        )
        super().__init__(url, 429, body, hint=f"rate limited: {wait}", partial=partial)
        self.retry_after = retry_after
        """Seconds the server asked to wait (from ``retry-after``), or None if it did not say."""


class ScriptOutOfAnswers(ModelError):
    """A scripted model was asked more often than it has answers: a
    :class:`~agentprompt.llm.ScriptedModel` in a test, or a ``script:FILE`` model."""

    def __init__(
        self,
        count: int,
        *,
        asked: int | None = None,
        path: str | None = None,
        advice: str = "",
    ) -> None:
        if path is None:
            message = (
                f"ScriptedModel was asked {asked if asked is not None else count + 1} times but "
                f"had only {count} answers; queue another answer with add() or pass more answers "
                "to the constructor"
            )
        else:
            more = f", {advice}" if advice else ""
            message = (
                f"the model script {path} has no answer for round {count + 1} (it holds "
                f"{count}); add one reply per model call to its JSON list{more}"
            )
        super().__init__(message)
        self.count = count
        """How many answers the model had."""
        self.asked = asked
        """How many times it was asked, when known."""
        self.path = path
        """The script file, or None for a test model's list of answers."""


def status_error(
    url: str,
    status: int,
    body: str,
    *,
    retry_after: float | None = None,
    key_env: str | None = None,
    partial: ModelReply | None = None,
) -> ModelHTTPError:
    """The error for an HTTP error status: :class:`RateLimited` for 429, else
    :class:`ModelHTTPError` with advice that fits the status."""
    if status == 429:
        return RateLimited(url, body, retry_after=retry_after, partial=partial)
    if status == 401:
        where = f" in {key_env}" if key_env else ""
        hint = f"the server refused the API key; check the key{where}"
    elif status == 403:
        hint = "the API key may not use this model or endpoint"
    elif status == 404:
        hint = (
            "check the model name and the base URL (an OpenAI-compatible server's usually "
            "ends in /v1)"
        )
    elif status >= 500:
        hint = "the server failed; ask again later"
    else:
        hint = "the server rejected the request"
    return ModelHTTPError(url, status, body, hint=hint, partial=partial)
