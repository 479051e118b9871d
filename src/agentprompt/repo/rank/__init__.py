"""Ranking files: the reference graph, personalised PageRank, and task-aware ranking.

Pure functions over names and paths: which file uses what another defines, how
central each file is to the focus and the task, and why (BM25 over code-aware terms).
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.rank.centrality import pagerank
    from agentprompt.repo.rank.graph import MAX_DEFINERS, MAX_MEMBER_DEFINERS, build_graph
    from agentprompt.repo.rank.summary import (
        RankSummary,
        definers_of,
        personalization,
        summarize,
        task_mentions,
    )
    from agentprompt.repo.rank.task import (
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
    from agentprompt.repo.rank.update import FileNames, GraphState, state_from_graph, update_state

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "FileDocument": "agentprompt.repo.rank.task",
    "FileNames": "agentprompt.repo.rank.update",
    "GraphState": "agentprompt.repo.rank.update",
    "INDEX_VERSION": "agentprompt.repo.rank.task",
    "InvalidTask": "agentprompt.repo.rank.task",
    "LexicalIndex": "agentprompt.repo.rank.task",
    "MAX_DEFINERS": "agentprompt.repo.rank.graph",
    "MAX_MEMBER_DEFINERS": "agentprompt.repo.rank.graph",
    "RankReason": "agentprompt.repo.rank.task",
    "RankSummary": "agentprompt.repo.rank.summary",
    "RelevantFile": "agentprompt.repo.rank.task",
    "TaskRanking": "agentprompt.repo.rank.task",
    "build_graph": "agentprompt.repo.rank.graph",
    "check_task": "agentprompt.repo.rank.task",
    "definers_of": "agentprompt.repo.rank.summary",
    "pagerank": "agentprompt.repo.rank.centrality",
    "personalization": "agentprompt.repo.rank.summary",
    "rank_for_task": "agentprompt.repo.rank.task",
    "split_identifier": "agentprompt.repo.rank.task",
    "state_from_graph": "agentprompt.repo.rank.update",
    "summarize": "agentprompt.repo.rank.summary",
    "task_mentions": "agentprompt.repo.rank.summary",
    "update_state": "agentprompt.repo.rank.update",
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
