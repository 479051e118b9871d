"""Ranking files: the reference graph, personalised PageRank, and task-aware ranking.

Pure functions over names and paths: which file uses what another defines, how
central each file is to the focus and the task, and why (BM25 over code-aware terms).
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.rank._centrality import pagerank
    from agentprompt.repo.rank._graph import MAX_DEFINERS, MAX_MEMBER_DEFINERS, build_graph
    from agentprompt.repo.rank._summary import (
        RankSummary,
        definers_of,
        personalization,
        summarize,
        task_mentions,
    )
    from agentprompt.repo.rank._task import (
        INDEX_VERSION,
        FileDocument,
        InvalidTask,
        LexicalIndex,
        RankReason,
        RelevantFile,
        TaskRanking,
        check_task,
        rank_for_task,
        split_identifier,
    )
    from agentprompt.repo.rank._update import FileNames, GraphState, state_from_graph, update_state

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "FileDocument": "agentprompt.repo.rank._task",
    "FileNames": "agentprompt.repo.rank._update",
    "GraphState": "agentprompt.repo.rank._update",
    "INDEX_VERSION": "agentprompt.repo.rank._task",
    "InvalidTask": "agentprompt.repo.rank._task",
    "LexicalIndex": "agentprompt.repo.rank._task",
    "MAX_DEFINERS": "agentprompt.repo.rank._graph",
    "MAX_MEMBER_DEFINERS": "agentprompt.repo.rank._graph",
    "RankReason": "agentprompt.repo.rank._task",
    "RankSummary": "agentprompt.repo.rank._summary",
    "RelevantFile": "agentprompt.repo.rank._task",
    "TaskRanking": "agentprompt.repo.rank._task",
    "build_graph": "agentprompt.repo.rank._graph",
    "check_task": "agentprompt.repo.rank._task",
    "definers_of": "agentprompt.repo.rank._summary",
    "pagerank": "agentprompt.repo.rank._centrality",
    "personalization": "agentprompt.repo.rank._summary",
    "rank_for_task": "agentprompt.repo.rank._task",
    "split_identifier": "agentprompt.repo.rank._task",
    "state_from_graph": "agentprompt.repo.rank._update",
    "summarize": "agentprompt.repo.rank._summary",
    "task_mentions": "agentprompt.repo.rank._summary",
    "update_state": "agentprompt.repo.rank._update",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "INDEX_VERSION",
    "MAX_DEFINERS",
    "MAX_MEMBER_DEFINERS",
    "FileDocument",
    "FileNames",
    "GraphState",
    "InvalidTask",
    "LexicalIndex",
    "RankReason",
    "RankSummary",
    "RelevantFile",
    "TaskRanking",
    "build_graph",
    "check_task",
    "definers_of",
    "pagerank",
    "personalization",
    "rank_for_task",
    "split_identifier",
    "state_from_graph",
    "summarize",
    "task_mentions",
    "update_state",
]
