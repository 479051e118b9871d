"""apply_patch envelopes: Add, Delete, Update, Move to, scopes, End of File, End Patch."""

from __future__ import annotations

from agentprompt.edits import DeleteFile, MoveFile, PatchFile, WriteFile, parse_reply

PATCH = """*** Begin Patch
*** Add File: src/new.py
+x = 1
+y = 2
*** Delete File: src/old.py
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
     args = parse()
-    run(args)
+    sys.exit(run(args))
@@
-last
+final
*** End of File
*** End Patch
"""


def test_add_file_gives_a_create_only_write_without_the_plus_prefixes() -> None:
    action = parse_reply(PATCH).actions[0]
    assert action == WriteFile(
        path="src/new.py",
        content="x = 1\ny = 2\n",
        create_only=True,
        dialect="applypatch",
        line=2,
    )


def test_delete_file() -> None:
    action = parse_reply(PATCH).actions[1]
    assert action == DeleteFile(path="src/old.py", dialect="applypatch", block=1, line=5)


def test_update_file_with_move_to_scope_and_end_of_file() -> None:
    action = parse_reply(PATCH).actions[2]
    assert isinstance(action, PatchFile)
    assert (action.path, action.move_to) == ("src/app.py", "src/main.py")
    first, second = action.hunks
    assert first.scope == "def main():"
    assert first.lines == ("     args = parse()", "-    run(args)", "+    sys.exit(run(args))")
    assert (second.scope, second.at_end_of_file) == (None, True)


def test_move_without_changes_is_a_move() -> None:
    reply = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n*** End Patch\n"
    (action,) = parse_reply(reply).actions
    assert action == MoveFile(path="a.py", to="b.py", dialect="applypatch", line=2)


def test_cut_off_patch_keeps_complete_operations() -> None:
    result = parse_reply(PATCH.split("@@ def main")[0] + "@@ def main():\n     args")
    assert [a.kind for a in result.actions] == ["write", "delete"]
    assert result.truncated


def test_patch_in_a_fence_without_end_patch_ends_at_the_fence() -> None:
    reply = "```\n*** Begin Patch\n*** Delete File: a.py\n```\nDone.\n"
    result = parse_reply(reply)
    assert [a.kind for a in result.actions] == ["delete"]
    assert [d.code for d in result.diagnostics] == ["missing-end-patch"]


def test_update_without_changes_is_an_error() -> None:
    result = parse_reply("*** Begin Patch\n*** Update File: a.py\n*** End Patch\n")
    assert [d.code for d in result.diagnostics] == ["empty-patch"]


def test_patch_cut_inside_a_delete_line_drops_it_as_truncated() -> None:
    result = parse_reply("*** Begin Patch\n*** Delete File: src/old")
    assert result.actions == ()
    assert result.truncated


def test_nested_scope_lines_are_all_kept_on_the_hunk() -> None:
    reply = (
        "*** Begin Patch\n*** Update File: a.py\n@@ class A:\n@@     def f(self):\n"
        "-        return 1\n+        return 2\n*** End Patch\n"
    )
    result = parse_reply(reply)
    (action,) = result.actions
    assert isinstance(action, PatchFile)
    (hunk,) = action.hunks
    assert (hunk.scopes, hunk.scope) == (("class A:", "def f(self):"), "def f(self):")
    assert result.diagnostics == ()


def test_indented_end_patch_line_is_a_context_line() -> None:
    reply = (
        "*** Begin Patch\n*** Update File: notes.txt\n@@\n *** End Patch\n-a\n+b\n*** End Patch\n"
    )
    (action,) = parse_reply(reply).actions
    assert isinstance(action, PatchFile)
    assert list(action.hunks[0].lines) == [" *** End Patch", "-a", "+b"]


def test_patch_indented_under_a_list_item_is_read() -> None:
    reply = (
        "- Delete it:\n  ```\n  *** Begin Patch\n  *** Delete File: x.py\n  *** End Patch\n  ```\n"
    )
    (action,) = parse_reply(reply).actions
    assert action == DeleteFile(path="x.py", dialect="applypatch", line=4)
