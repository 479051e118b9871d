"""Secrets in content headed into a prompt, found with detect-secrets before a model sees
it.

A multi-pattern prefilter names the candidate lines; detect-secrets reads only those.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.secrets._filter import may_hold_secret
    from agentprompt.repo.secrets._scan import (
        SecretFinding,
        SecretScreen,
        scan_text,
        scan_texts,
        screen_texts,
    )

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "SecretFinding": "agentprompt.repo.secrets._scan",
    "SecretScreen": "agentprompt.repo.secrets._scan",
    "may_hold_secret": "agentprompt.repo.secrets._filter",
    "scan_text": "agentprompt.repo.secrets._scan",
    "scan_texts": "agentprompt.repo.secrets._scan",
    "screen_texts": "agentprompt.repo.secrets._scan",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "SecretFinding",
    "SecretScreen",
    "may_hold_secret",
    "scan_text",
    "scan_texts",
    "screen_texts",
]
