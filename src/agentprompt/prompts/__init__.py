"""Prompt files and the system prompt loader.

The package exports the three system prompt loader functions and nothing else; the file
lookup machinery (:class:`~agentprompt.prompts.loader.PromptLibrary`, ``load_skill``, the
errors) is in :mod:`agentprompt.prompts.loader` and re-exported from :mod:`agentprompt`.
"""

from .loader import build_system_prompt, load_extra_prompt, load_system_prompt

__all__ = ["build_system_prompt", "load_extra_prompt", "load_system_prompt"]
