"""Ranking files: the reference graph, personalised PageRank, and task-aware ranking.

At the core, pure functions over names and paths: which file uses what another defines,
how central each file is to the focus and the task, and why (BM25 over code-aware terms).
Over them, the ranking of a whole repository: :func:`read_repository` reads it (discovery,
extraction through the symbol cache), :func:`rank_extraction` ranks what was read with the
reference graph remembered between runs, and :func:`rank_repository` orders every code
file by its relevance to a task.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.rank._centrality import pagerank
    from agentprompt.repo.rank._graph import MAX_DEFINERS, MAX_MEMBER_DEFINERS, build_graph
    from agentprompt.repo.rank._remembered import (
        lexical_index,
        paused_collection,
        rank_extraction,
        rank_task_extraction,
    )
    from agentprompt.repo.rank._repository import (
        RankOptions,
        RepositoryRanking,
        discover_remembered,
        left_out_files,
        rank_repository,
        ranked_repository,
        read_repository,
        remember_discovery,
        root_relative,
        skipped_files,
    )
    from agentprompt.repo.rank._summary import (
        RankSummary,
        definers_of,
        personalization,
        summarize,
        task_mentions,
    )
    from agentprompt.repo.rank._symbols import RelevantSymbol, rank_symbols, rank_symbols_in
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
    "INDEX_VERSION": "agentprompt.repo.rank._task",
    "MAX_DEFINERS": "agentprompt.repo.rank._graph",
    "MAX_MEMBER_DEFINERS": "agentprompt.repo.rank._graph",
    "FileDocument": "agentprompt.repo.rank._task",
    "FileNames": "agentprompt.repo.rank._update",
    "GraphState": "agentprompt.repo.rank._update",
    "InvalidTask": "agentprompt.repo.rank._task",
    "LexicalIndex": "agentprompt.repo.rank._task",
    "RankOptions": "agentprompt.repo.rank._repository",
    "RankReason": "agentprompt.repo.rank._task",
    "RankSummary": "agentprompt.repo.rank._summary",
    "RelevantFile": "agentprompt.repo.rank._task",
    "RelevantSymbol": "agentprompt.repo.rank._symbols",
    "RepositoryRanking": "agentprompt.repo.rank._repository",
    "TaskRanking": "agentprompt.repo.rank._task",
    "build_graph": "agentprompt.repo.rank._graph",
    "check_task": "agentprompt.repo.rank._task",
    "definers_of": "agentprompt.repo.rank._summary",
    "discover_remembered": "agentprompt.repo.rank._repository",
    "left_out_files": "agentprompt.repo.rank._repository",
    "lexical_index": "agentprompt.repo.rank._remembered",
    "pagerank": "agentprompt.repo.rank._centrality",
    "paused_collection": "agentprompt.repo.rank._remembered",
    "personalization": "agentprompt.repo.rank._summary",
    "rank_extraction": "agentprompt.repo.rank._remembered",
    "rank_for_task": "agentprompt.repo.rank._task",
    "rank_repository": "agentprompt.repo.rank._repository",
    "rank_symbols": "agentprompt.repo.rank._symbols",
    "rank_symbols_in": "agentprompt.repo.rank._symbols",
    "rank_task_extraction": "agentprompt.repo.rank._remembered",
    "ranked_repository": "agentprompt.repo.rank._repository",
    "read_repository": "agentprompt.repo.rank._repository",
    "remember_discovery": "agentprompt.repo.rank._repository",
    "root_relative": "agentprompt.repo.rank._repository",
    "skipped_files": "agentprompt.repo.rank._repository",
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
    "RankOptions",
    "RankReason",
    "RankSummary",
    "RelevantFile",
    "RelevantSymbol",
    "RepositoryRanking",
    "TaskRanking",
    "build_graph",
    "check_task",
    "definers_of",
    "discover_remembered",
    "left_out_files",
    "lexical_index",
    "pagerank",
    "paused_collection",
    "personalization",
    "rank_extraction",
    "rank_for_task",
    "rank_repository",
    "rank_symbols",
    "rank_symbols_in",
    "rank_task_extraction",
    "ranked_repository",
    "read_repository",
    "remember_discovery",
    "root_relative",
    "skipped_files",
    "split_identifier",
    "state_from_graph",
    "summarize",
    "task_mentions",
    "update_state",
]
