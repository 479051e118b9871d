"""Cut-off replies: every action parsed from a prefix of a valid reply is an action of the
whole reply, or the prefix is reported as truncated.

One exception, by design: a bare diff whose last hunk's counts promise more lines than it
holds is read as whole (the counts models write are often wrong) when it ends on at least as
many context lines as it began with, or when its old side is not the size its header says
(then only as a hunk reaching the end of its file). A prefix cut exactly there, at a line's
end, reads as such a hunk and carries the ``hunk-counts`` warning that says so; applying it
still never writes what the whole reply would not (the last test)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.edits import apply_reply, parse_reply
from agentprompt.edits.actions import Action

REPLIES = {
    "bridge": (
        "Intro.\n\n<<<DELETE: old/a.ts>>>\n<<<FILE: src/utils.ts>>>\nexport const a = 1;\n"
        "export const b = 2;\n<<<END>>>\n<<<DIFF: src/x.ts>>>\n@@ -1,2 +1,2 @@\n keep\n"
        "-old line\n+new line\n<<<END>>>\n<<<REQUEST_FILES>>>\n- src/a.ts\n- src/b.ts\n"
        "<<<END>>>\n<<<SWITCH_MODE: edit>>>\n対象ファイル:\n- src/a.ts\n"
        "理由: バグ修正のために完全なコードが必要です\n<<<END>>>\n<<<CONTINUE>>>\n"
        "残り: 2個のファイル変更があります\n- path/to/file1.ts\n- path/to/file2.ts\n<<<END>>>\n"
        "Done.\n"
    ),
    "searchreplace": (
        "Change:\n\nsrc/cart.py\n```python\n<<<<<<< SEARCH\nTAX = 0.2\nRATE = 3\n=======\n"
        "TAX = 0.25\nRATE = 4\n>>>>>>> REPLACE\n```\n\nDone.\n"
    ),
    "editrepl": (
        "src/a.py\n««« EDIT\ndef f():\n    return 1\n═══════ REPL\ndef f():\n    return 2\n"
        "»»» EDIT END\n\nDone.\n"
    ),
    "udiff_fenced": (
        "```diff\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-bbb\n+ccc\n d\n--- a/y.py\n"
        "+++ b/y.py\n@@ -1 +1 @@\n-p\n+qqq\n```\nDone.\n"
    ),
    "udiff_bare": (
        "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-bbb\n+ccc\n d\n--- a/y.py\n+++ b/y.py\n"
        "@@ -1 +1 @@\n-p\n+qqq\n\nDone.\n"
    ),
    "udiff_git": (
        "diff --git a/x.py b/z.py\nsimilarity index 90%\nrename from x.py\nrename to z.py\n"
        "--- a/x.py\n+++ b/z.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
        "diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-x\n"
    ),
    "udiff_wrong_counts": (
        "--- a/x.py\n+++ b/x.py\n@@ -1,5 +1,6 @@\n a\n-bbb\n+ccc\n d\n--- a/y.py\n+++ b/y.py\n"
        "@@ -1,4 +1,5 @@\n k\n-p\n+qqq\n r\n"
    ),
    "udiff_new": "```diff\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+hello\n+world\n```\n",
    "applypatch": (
        "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n+y = 2\n"
        "*** Delete File: src/old_module.py\n*** Update File: src/app.py\n"
        "*** Move to: src/main.py\n"
        "@@ def main():\n     args = parse()\n-    run(args)\n+    sys.exit(run(args))\n"
        "*** End Patch\nDone.\n"
    ),
    "whole": "src/app.py\n```python\nprint(1)\nprint(22)\n```\nDone.\n",
    "whole_markdown": (
        "README.md\n````markdown\n# Title\n```bash\npip install x\n```\nMore text\n````\nDone.\n"
    ),
    "mixed": (
        "a.py\n```python\nx = 1\n```\n\n<<<DELETE: b.py>>>\n\nc.py\n<<<<<<< SEARCH\nold\n"
        "=======\nnew\n>>>>>>> REPLACE\n"
    ),
}


def _plain(action: Action) -> Action:
    return replace(action, line=0, block=0)


@pytest.mark.parametrize("name", sorted(REPLIES))
def test_every_prefix_keeps_only_complete_actions_or_is_truncated(name: str) -> None:
    text = REPLIES[name]
    full = [_plain(a) for a in parse_reply(text).actions]
    assert full, "the whole reply must parse"
    assert not parse_reply(text).truncated
    for cut in range(len(text)):
        result = parse_reply(text[:cut])
        if result.truncated:
            continue
        if any(d.code == "hunk-counts" for d in result.diagnostics):
            assert text[:cut].endswith("\n"), (cut, text[:cut][-30:])
            continue
        for action in result.actions:
            assert _plain(action) in full, (cut, text[:cut][-30:], action)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(sorted(REPLIES)), min_size=1, max_size=4),
    st.sampled_from(["\n", "\nSome prose.\n\n", "\r\n"]),
    st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=20),
)
def test_prefixes_of_mixed_replies_keep_only_complete_actions_or_are_truncated(
    names: list[str], separator: str, cuts: list[float]
) -> None:
    text = separator.join(REPLIES[name] for name in names)
    if separator == "\r\n":
        text = text.replace("\n", "\r\n")
    whole = parse_reply(text)
    assert not whole.truncated
    full = [_plain(a) for a in whole.actions]
    for fraction in cuts:
        result = parse_reply(text[: int(fraction * len(text))])
        if any(d.code == "hunk-counts" for d in result.diagnostics):
            continue
        if not result.truncated:
            assert all(_plain(a) in full for a in result.actions)


FILES = {
    "udiff_bare": {"x.py": "a\nbbb\nd\n", "y.py": "p\n"},
    "udiff_wrong_counts": {"x.py": "a\nbbb\nd\ne\n", "y.py": "k\np\nr\ns\n"},
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_applying_any_prefix_of_a_bare_diff_writes_only_what_the_whole_reply_writes(
    name: str, tmp_path: Path
) -> None:
    text, files = REPLIES[name], FILES[name]

    def fresh(folder: Path) -> Path:
        folder.mkdir()
        for path, content in files.items():
            (folder / path).write_text(content)
        return folder

    whole = fresh(tmp_path / "whole")
    assert apply_reply(whole, text).ok
    wanted = {path: (whole / path).read_text() for path in files}
    assert wanted != files
    for cut in range(len(text)):
        root = fresh(tmp_path / f"cut{cut}")
        apply_reply(root, text[:cut])
        for path, content in files.items():
            now = (root / path).read_text()
            assert now in (content, wanted[path]), (cut, text[:cut][-30:], path, now)


def test_a_reply_cut_off_between_a_further_files_headers_and_its_hunk_is_truncated() -> None:
    # The last hunk's old side is full, so the "--- a/x.py" / "+++ b/x.py" after it are a
    # further file's headers whose @@ the reply never reached, not a removed and an added
    # line of that hunk (found by the mixed-prefixes property test).
    first = REPLIES["udiff_wrong_counts"]
    result = parse_reply(first + "\n--- a/x.py\n+++ b/x.py\n")
    assert result.truncated
    full = [_plain(a) for a in parse_reply(first).actions]
    assert all(_plain(a) in full for a in result.actions)
