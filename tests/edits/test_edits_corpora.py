"""The externally written corpora in ../shared/corpora (see its README for sources).

``standard-diff-cases/`` (nocapro/apply-multi-diff fixtures, MIT): every case gives its
expected result. ``gpt-engineer-diffs/`` (gpt-engineer's improve-function cases, MIT): every
reply is parsed and each block either applies or fails with a specific reason. The tests skip
when the corpora folder is absent (a fresh clone has no ``../shared``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentprompt.edits.apply import ApplyOptions, apply_reply
from agentprompt.edits.parse import parse_reply


def _corpora() -> Path | None:
    for candidate in (
        Path(__file__).resolve().parents[2].parent / "shared" / "corpora",
        Path("/work/shared/corpora"),
    ):
        if candidate.is_dir():
            return candidate
    return None


CORPORA = _corpora()
needs_corpora = pytest.mark.skipif(CORPORA is None, reason="../shared/corpora is not present")

UNREACHABLE = {
    "hunk-splitting-with-intermediate-user-edit": (
        "the case's own description says it 'should succeed by splitting a hunk when a user "
        "edit breaks its contiguity', and both parts then match exactly and unambiguously; "
        "the issue asks for parts to be placed independently, so applying them is right and "
        "the fixture's success: false contradicts its description"
    ),
    "pure-insertion-after-line": (
        "a hunk with no context lines in the middle of a file is placed only by its line "
        "numbers, which this engine never trusts (the issue: hunks are placed by their "
        "context); it fails asking for context lines instead of guessing"
    ),
}
"""Cases whose expectation this engine does not meet on principle, with the reason."""


def _load_cases() -> list[Any]:
    if CORPORA is None:
        return []
    params = []
    for path in sorted((CORPORA / "standard-diff-cases").glob("*.yml")):
        text = path.read_text(encoding="utf-8")
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            params.append(pytest.param(path.name, None, False, id=path.stem))
            continue
        cases = data.get("apply_diff_tests", [])
        for i, case in enumerate(cases):
            # A block scalar at the very end of a file without a final line break loses its
            # own final newline; the fixture's expected text then lacks one the file keeps.
            clipped = i == len(cases) - 1 and not text.endswith("\n")
            marks = []
            if case["name"] in UNREACHABLE:
                marks.append(pytest.mark.xfail(reason=UNREACHABLE[case["name"]], strict=True))
            params.append(pytest.param(path.name, case, clipped, id=case["name"], marks=marks))
    return params


@needs_corpora
@pytest.mark.parametrize(("source", "case", "clipped"), _load_cases())
def test_standard_diff_case(
    tmp_path: Path, source: str, case: dict[str, Any] | None, clipped: bool
) -> None:
    if case is None:
        pytest.skip(f"{source} is not valid YAML and holds no diff or expectation to test")
    diff = case["input"]["diff_content"]
    original = case["input"]["original_content"]
    target = re.search(r"^\+\+\+ (?:b/)?(\S+)", diff, re.MULTILINE)
    assert target is not None
    path = tmp_path / target.group(1)
    creates = re.search(r"^--- /dev/null", diff, re.MULTILINE) is not None
    if original or not creates:
        path.write_text(original, encoding="utf-8")
    report = apply_reply(tmp_path, diff)
    expected = case["expected"]
    assert report.ok is expected["success"], report.feedback
    if expected["success"]:
        want = expected["content"]
        if clipped and original.endswith("\n") and not want.endswith("\n"):
            want += "\n"
        assert path.read_text(encoding="utf-8") == want
    else:
        assert report.failed[0].reason
        assert path.read_text(encoding="utf-8") == original


GPT_ENGINEER_OUTCOMES = {
    "apps_benchmark_6_chat": ([0, 1], []),
    "apps_benchmark_6_v2_chat": ([0], []),
    "controller_chat": ([], [0]),
    "create_two_new_files_chat": ([0, 1], []),
    # `-def subtract(self, a, b)` becomes two added lines, where the file goes on with
    # `return a - b  # Syntax`, which the hunk leaves out: the second added line may go
    # before or after it (the model most likely meant to remove it). Placed before it, the
    # file had two return lines; now it is refused and the feedback names the line.
    "simple_calculator_chat": ([1], [0]),
    "task_master_chat": ([], [0]),
    "temperature_converter_chat": ([0], []),
    "theo_case_chat": ([0, 1], [2, 3]),
    "vgvishesh_example_2_chat": ([0], []),
    # The hunk moves `profiles` above the component, but the file has the component first:
    # placed fuzzily it put `export const profiles` inside the component (broken code). Its
    # additions now meet a line the quote left out, so it is refused and asked again.
    "vgvishesh_example_chat": ([], [0]),
    "wheaties_example_chat": ([], [0]),
    "zbf_yml_missing_chat": ([0, 1], [2, 3]),
    "corrected_diff_from_missing_lines": ([], [0]),
}
"""Which blocks of each reply apply and which fail, as reviewed by hand: the failures are
replies whose removed lines are not in the file (controller: two blank lines too many;
wheaties: invented lines), whose context was invented (task_master), that repeat a change
already made (theo_case, zbf_yml_missing), or that patch a file not given (corrected_diff)."""


def _replies() -> list[str]:
    if CORPORA is None:
        return []
    folder = CORPORA / "gpt-engineer-diffs"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith("_chat"))
    return [*names, "corrected_diff_from_missing_lines"]


@needs_corpora
@pytest.mark.parametrize("name", _replies())
def test_gpt_engineer_reply_applies_or_fails_with_a_reason(tmp_path: Path, name: str) -> None:
    assert CORPORA is not None
    folder = CORPORA / "gpt-engineer-diffs"
    reply = (folder / name).read_text(encoding="utf-8")
    parsed = parse_reply(reply)
    assert parsed.actions, f"{name}: no block parsed: {parsed.diagnostics}"
    code = folder / name.replace("_chat", "_code")
    target = next((a.path for a in parsed.actions if a.kind == "patch"), None)
    if target and code.exists() and code.stat().st_size:
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target).write_bytes(code.read_bytes())
    report = apply_reply(tmp_path, reply, options=ApplyOptions(dry_run=True, partial=True))
    applied = [a.index for a in report.applied]
    failed = [f.index for f in report.failed]
    assert (applied, failed) == GPT_ENGINEER_OUTCOMES[name], report.feedback
    for failure in report.failed:
        assert failure.reason and failure.feedback
        assert "Block" in failure.feedback and failure.path in failure.feedback
