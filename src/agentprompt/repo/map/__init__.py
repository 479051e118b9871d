"""The repository map: the pipeline from discovery to a fitted map, its text, the tree and
the files' notes.

:func:`build_map` reads the repository and ranks it (see :mod:`agentprompt.repo.rank`),
fits the token budget and renders; :func:`render_map` writes the symbol map notation;
:func:`build_tree` and :func:`render_tree` draw the directory tree; :func:`annotate_files`
gives each file its note (what it exports, or the program it starts).
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.map._build import MapOptions, RankedFile, RepoMap, build_map
    from agentprompt.repo.map._notes import annotate_files, declared_entry_points, file_note
    from agentprompt.repo.map._tree import (
        TreeNode,
        build_tree,
        count_file_tokens,
        entry_line,
        fold_tree,
        folder_listing,
        folders_holding,
        opening_cost_lines,
        render_tree,
    )
    from agentprompt.repo.map.render import (
        MapFile,
        MapParts,
        browse_summary,
        file_annotation,
        is_entry_point,
        render_map,
        render_parts,
    )

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "MapFile": "agentprompt.repo.map.render",
    "MapOptions": "agentprompt.repo.map._build",
    "MapParts": "agentprompt.repo.map.render",
    "RankedFile": "agentprompt.repo.map._build",
    "RepoMap": "agentprompt.repo.map._build",
    "TreeNode": "agentprompt.repo.map._tree",
    "annotate_files": "agentprompt.repo.map._notes",
    "browse_summary": "agentprompt.repo.map.render",
    "build_map": "agentprompt.repo.map._build",
    "build_tree": "agentprompt.repo.map._tree",
    "count_file_tokens": "agentprompt.repo.map._tree",
    "fold_tree": "agentprompt.repo.map._tree",
    "opening_cost_lines": "agentprompt.repo.map._tree",
    "entry_line": "agentprompt.repo.map._tree",
    "folder_listing": "agentprompt.repo.map._tree",
    "folders_holding": "agentprompt.repo.map._tree",
    "declared_entry_points": "agentprompt.repo.map._notes",
    "file_annotation": "agentprompt.repo.map.render",
    "file_note": "agentprompt.repo.map._notes",
    "is_entry_point": "agentprompt.repo.map.render",
    "render_map": "agentprompt.repo.map.render",
    "render_parts": "agentprompt.repo.map.render",
    "render_tree": "agentprompt.repo.map._tree",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "MapFile",
    "MapOptions",
    "MapParts",
    "RankedFile",
    "RepoMap",
    "TreeNode",
    "annotate_files",
    "browse_summary",
    "build_map",
    "build_tree",
    "count_file_tokens",
    "declared_entry_points",
    "entry_line",
    "file_annotation",
    "file_note",
    "fold_tree",
    "folder_listing",
    "folders_holding",
    "is_entry_point",
    "opening_cost_lines",
    "render_map",
    "render_parts",
    "render_tree",
]
