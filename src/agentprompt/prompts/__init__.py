"""Prompt files and seed 004's system prompt loader.

The package exports exactly what seed 004's ``ac/prompts/__init__.py`` does; the file
lookup machinery (:class:`~agentprompt.prompts.loader.PromptLibrary`, ``load_skill``, the
errors) is in :mod:`agentprompt.prompts.loader` and re-exported from :mod:`agentprompt`.
"""

from .loader import build_system_prompt, load_extra_prompt, load_system_prompt

__all__ = ["build_system_prompt", "load_extra_prompt", "load_system_prompt"]
