"""The JSON shape of every action kind (``agentprompt parse --json``), pinned literally:
each key is the action's field name (a move's destination is ``to``; a patch that also
moves the file has ``move_to``)."""

from __future__ import annotations

from typing import Any

from agentprompt.edits import parse_reply

REPLY = (
    "a.py\n```python\nx = 1\n```\n"
    "<<<DELETE: b.py>>>\n"
    "```diff\n--- a/c.py\n+++ b/d.py\n@@ -1 +1 @@\n-p\n\\ No newline at end of file\n+q\n```\n"
    "```diff\ndiff --git a/e.py b/f.py\nsimilarity index 100%\nrename from e.py\n"
    "rename to f.py\n```\n"
    "g.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"
    "h.py\n««« EDIT\ndef f():\n    return 1\n═══════ REPL\ndef f():\n    return 2\n»»» EDIT END\n"
    "<<<REQUEST_FILES>>>\n- i.py\n<<<END>>>\n"
    "<<<SWITCH_MODE: edit>>>\n対象ファイル:\n- j.py\n理由: 修正\n<<<END>>>\n"
    "<<<CONTINUE>>>\n残り: 1個のファイル変更があります\n- k.py\n<<<END>>>\n"
)

EXPECTED: list[dict[str, Any]] = [
    {
        "kind": "write",
        "dialect": "whole",
        "path": "a.py",
        "block": 0,
        "line": 1,
        "content": "x = 1\n",
        "create_only": False,
    },
    {
        "kind": "delete",
        "dialect": "bridge",
        "path": "b.py",
        "block": 1,
        "line": 5,
        "expected": None,
    },
    {
        "kind": "patch",
        "dialect": "udiff",
        "path": "c.py",
        "block": 2,
        "line": 7,
        "hunks": [
            {
                "old_start": 1,
                "old_count": None,
                "new_start": 1,
                "new_count": None,
                "scope": None,
                "scopes": [],
                "at_end_of_file": False,
                "open_end": False,
                "no_newline_at_end": False,
                "old_no_newline_at_end": True,
                "lines": ["-p", "+q"],
            }
        ],
        "move_to": "d.py",
    },
    {"kind": "move", "dialect": "udiff", "path": "e.py", "block": 3, "line": 15, "to": "f.py"},
    {
        "kind": "replace",
        "dialect": "searchreplace",
        "path": "g.py",
        "block": 4,
        "line": 21,
        "search": "old\n",
        "replace": "new\n",
    },
    {
        "kind": "edit",
        "dialect": "editrepl",
        "path": "h.py",
        "block": 5,
        "line": 27,
        "search": "def f():\n    return 1\n",
        "replace": "def f():\n    return 2\n",
        "anchor": "def f():\n",
    },
    {
        "kind": "request",
        "dialect": "bridge",
        "path": None,
        "block": 6,
        "line": 34,
        "paths": ["i.py"],
    },
    {
        "kind": "switch_mode",
        "dialect": "bridge",
        "path": None,
        "block": 7,
        "line": 37,
        "mode": "edit",
        "paths": ["j.py"],
        "reason": "修正",
    },
    {
        "kind": "continue",
        "dialect": "bridge",
        "path": None,
        "block": 8,
        "line": 42,
        "remaining": 1,
        "paths": ["k.py"],
    },
]


def test_every_action_kind_has_exactly_its_json_keys_and_values() -> None:
    result = parse_reply(REPLY)
    assert [d.code for d in result.diagnostics] == ["renamed-by-headers"]
    assert result.to_json()["actions"] == EXPECTED
