"""Prompt files and the system prompt loader.

The package exports the three system prompt loader functions and nothing else; the file
lookup machinery (:class:`~agentprompt.prompts.loader.PromptLibrary`, ``load_skill``, the
errors) is in :mod:`agentprompt.prompts.loader` and re-exported from :mod:`agentprompt`.

Errors (in :mod:`agentprompt.prompts.loader` and
:mod:`agentprompt.prompts.frontmatter`)::

    AgentPromptError
    ├── PromptFileMissing    no prompt file of that name in any searched folder (also a
    │                        ``FileNotFoundError``)
    ├── InvalidPromptFile    a prompt file or message catalogue that cannot be used (its
    │                        path, and the catalogue entry at fault)
    └── MissingVariables     a prompt rendered without a declared variable, or with another
    ValueError
    └── InvalidFrontMatter   front matter that is not a mapping, or declares unusable
                             variables (the reader names the file)

A prompt name that could leave the prompt folders is a ``UsageError``; a prompt folder
that cannot be searched, or a key no catalogue holds, an ``AgentPromptError``.
"""

from .loader import build_system_prompt, load_extra_prompt, load_system_prompt

__all__ = ["build_system_prompt", "load_extra_prompt", "load_system_prompt"]
