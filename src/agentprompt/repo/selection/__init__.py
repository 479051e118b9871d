"""Model-driven file selection: the prompts that ask a model which files to read, and the
loop that enforces the constraints and loads the files it asks for.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.selection._loop import (
        FileSelection,
        Rejection,
        SelectedFile,
        first_selection_prompt,
        select_files,
    )
    from agentprompt.repo.selection._prompt import (
        FileChoice,
        SelectionOptions,
        ask_llm_for_files,
        build_constraints_section,
        normalize_response,
        parse_response,
    )

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "FileChoice": "agentprompt.repo.selection._prompt",
    "FileSelection": "agentprompt.repo.selection._loop",
    "Rejection": "agentprompt.repo.selection._loop",
    "SelectedFile": "agentprompt.repo.selection._loop",
    "first_selection_prompt": "agentprompt.repo.selection._loop",
    "SelectionOptions": "agentprompt.repo.selection._prompt",
    "ask_llm_for_files": "agentprompt.repo.selection._prompt",
    "build_constraints_section": "agentprompt.repo.selection._prompt",
    "normalize_response": "agentprompt.repo.selection._prompt",
    "parse_response": "agentprompt.repo.selection._prompt",
    "select_files": "agentprompt.repo.selection._loop",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "FileChoice",
    "FileSelection",
    "Rejection",
    "SelectedFile",
    "SelectionOptions",
    "ask_llm_for_files",
    "build_constraints_section",
    "first_selection_prompt",
    "normalize_response",
    "parse_response",
    "select_files",
]
