"""Reading a JSON-RPC method's named params: each missing or mistyped one is an
:class:`~agentprompt.web._rpc.InvalidParams` naming it and what it should be."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agentprompt.web._rpc import InvalidParams

__all__ = ["budget", "check_unknown", "flag", "text", "text_list"]


def check_unknown(params: Mapping[str, Any], known: Sequence[str], method: str) -> None:
    """Refuse params the method does not take (a typo would otherwise be ignored)."""
    extra = sorted(set(params) - set(known))
    if extra:
        takes = ", ".join(known) or "no params"
        raise InvalidParams(f"{method} does not take {', '.join(extra)}; it takes: {takes}")


def text(
    params: Mapping[str, Any],
    name: str,
    *,
    required: bool = False,
    choices: Sequence[str] = (),
) -> str | None:
    """The string param ``name`` (None when absent and not required)."""
    value = params.get(name)
    if value is None:
        if required:
            raise InvalidParams(f'param "{name}" is required (a string)')
        return None
    if not isinstance(value, str):
        raise InvalidParams(f'param "{name}" must be a string, not {type(value).__name__}')
    if choices and value not in choices:
        raise InvalidParams(f'param "{name}" must be one of {", ".join(choices)}, not {value!r}')
    return value


def flag(params: Mapping[str, Any], name: str) -> bool:
    """The boolean param ``name`` (False when absent)."""
    value = params.get(name, False)
    if not isinstance(value, bool):
        raise InvalidParams(f'param "{name}" must be true or false')
    return value


def budget(params: Mapping[str, Any], name: str) -> int | Literal["none"] | None:
    """The budget param ``name``: a whole number of tokens, 1 or more, or ``"none"`` for
    no budget (None when absent)."""
    value = params.get(name)
    if value is None or value == "none":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParams(
            f'param "{name}" must be a whole number of at least 1, or "none" for no budget'
        )
    return value


def text_list(
    params: Mapping[str, Any], name: str, what: str = "paths relative to the root"
) -> tuple[str, ...]:
    """The list-of-strings param ``name`` (empty when absent); ``what`` says what the
    strings are, in the error."""
    value = params.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidParams(f'param "{name}" must be a list of strings ({what})')
    return tuple(value)
