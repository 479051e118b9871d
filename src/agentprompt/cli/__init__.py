"""The ``agentprompt`` command line: one thin module per command group.

It defines no errors of its own: every :class:`~agentprompt.errors.AgentPromptError` a
service or an engine raises is worded with the command line's names for inputs
(``--max-tokens``, ``PATHS``) and actions (``agentprompt apply --recover``) and printed as
one line on stderr, exit status 2 (1 for a reported failure, such as an edit that did not
apply).
"""
