"""detect-secrets on the candidate lines only finds exactly what ``scan_file`` finds."""

from __future__ import annotations

import locale
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentprompt.repo.secrets import SecretFinding, scan_texts
from agentprompt.repo.secrets import _lines as secretlines
from agentprompt.repo.secrets import _scan as secrets_module
from agentprompt.repo.secrets._filter import candidate_lines, may_be_rewritten
from agentprompt.repo.secrets._lines import line_scanner, read_lines
from agentprompt.repo.secrets.stores import STORE_KIND, URL_KIND

Hits = list[tuple[int, str]]

AWS = 'aws_key = "AKIAIOSFODNN7EXAMPLQ"'
B64 = 'blob = "c2VjcmV0cy5hcmUuZnVuLlNoaDEyMzQ1Njc4OTBxd2VydHk="'
HEX = 'const h = "6f1ed002ab5595859014ebf0951522d9";'
PASSWORD_PY = 'password = "correct-horse-battery"'
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----"
NEXTLINE = "# pragma: allowlist nextline secret"

# (file name, text): every kind of line the brief names, in the files detect-secrets
# treats differently.
CASES = {
    "aws": ("settings.py", f"REGION = 'eu'\n{AWS}\n"),
    "private-key": ("id.txt", f"before\n{PRIVATE_KEY}\nafter\n"),
    "keyword-py": ("auth.py", f"def f():\n    {PASSWORD_PY}\n    return 1\n"),
    "keyword-js": ("auth.js", 'const api_key = "sk8sX1ok2Zp0";\nlet x = 1;\n'),
    "keyword-go": ("main.go", 'secret := "whatever-it-is"\n'),
    "keyword-c": ("main.c", 'char password[] = "hunter2hunter";\n'),
    "keyword-cpp": ("main.cpp", 'std::string secret("bar-baz-qux");\n'),
    "keyword-yaml": ("conf.yaml", "db:\n  api_key: notAtAllSecretValue\n"),
    "keyword-ini": ("conf.ini", "[db]\npassword = s3cr3tValue12345\n"),
    "yaml-unquoted": ("ci.yaml", "env:\n  blob: c2VjcmV0cy5hcmUuZnVuLlNoaDEyMzQ1Njc4OTBxd2VydHk\n"),
    "ini-unquoted": ("setup.cfg", "# x\n[auth]\nblob = 6f1ed002ab5595859014ebf0951522d9\n"),
    "eager-ini": ("settings", "name = app\nblob = 6f1ed002ab5595859014ebf0951522d9\n"),
    "dotenv": (".env", "DEBUG=false\nDATABASE_PASSWORD=Xk9mQ2vL7pR4wZ\n"),
    "shell-export": ("run.sh", "#!/bin/sh\nexport SECRET_KEY=Xk29vLq7Ww8pZr3TbN5m\n"),
    "base64": ("blob.py", f"x = 1\n{B64}\n"),
    "hex": ("hex.js", f"{HEX}\n// done\n"),
    "allowlist-nextline": ("ok.py", f"x = 1\n{NEXTLINE}\n{AWS}\n{AWS}\n"),
    "allowlist-inline": ("ok.js", f"{HEX} // pragma: allowlist secret\n{HEX}\n"),
    "spanning-lines": (
        "span.py",
        'password = (\n    "correct-horse-battery"\n)\n"a\nb" == password\n',
    ),
    "crlf": ("win.py", f"x = 1\r\n{AWS}\r\n{PASSWORD_PY}\r\n"),
    "lone-cr": ("mac.py", f"x = 1\r{AWS}\r{B64}\r"),
    "non-ascii": ("jp.py", f"# 秘密の鍵 ✓\ncontraseña = 'Xk29vLq7Ww8pZr3T'\n{AWS}  # ключ\n"),
    "folded-letter": ("long-s.py", f"ſecret = 'Xk29vLq7Ww8pZr3T'\n{AWS}\n"),
    "no-final-newline": ("end.py", f"x = 1\n{AWS}"),
    "trailing-space": ("sp.py", f"{PASSWORD_PY}   \t\n"),
    "id-and-template": ("ids.py", 'user_id = "Xk29vLq7Ww8pZr3T"\npassword = "${PASS}"\n'),
    "many-lines": ("big.py", "line = 1\n" * 300 + f"{AWS}\n" + "tail = 2\n" * 300),
    "lock-file": ("package-lock.json", f'{{"a": "{AWS}"}}\n'),
    "non-text": ("style.css", f"/* {AWS} */\n"),
    "unquoted-other": ("notes", "SECRET = Xk29vLq7Ww8pZr3TbN5m\n"),
    "empty": ("empty.py", ""),
}


def _scan_file(folder: Path, name: str, text: str) -> Hits:
    """The oracle: detect-secrets' own ``scan_file`` on the text written to a file."""
    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / name
    copy.write_bytes(text.encode("utf-8", "surrogatepass"))
    with default_settings():
        return sorted({(int(s.line_number), str(s.type)) for s in scan_file(str(copy))})


def _scan_texts(name: str, text: str) -> Hits:
    """detect-secrets' findings as the scan gives them (without agentprompt's own rules,
    :mod:`agentprompt.repo.secrets.stores`, which add what detect-secrets misses)."""
    secrets_module._cache.clear()
    found = scan_texts([(name, text)])[name]
    return [(f.line, f.kind) for f in found if f.kind not in (STORE_KIND, URL_KIND)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_findings_equal_scan_file(case: str, tmp_path: Path) -> None:
    name, text = CASES[case]
    assert _scan_texts(name, text) == _scan_file(tmp_path, name, text)


def test_the_cases_find_secrets_and_none_is_written_to_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = {case: _scan_file(tmp_path / case, *CASES[case]) for case in CASES}
    assert sum(bool(hits) for hits in found.values()) >= len(CASES) - 6, found
    scanned = _spy_whole_files(monkeypatch)
    for name, text in CASES.values():
        _scan_texts(name, text)
    assert scanned == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_flagged_line_is_a_candidate(case: str, tmp_path: Path) -> None:
    name, text = CASES[case]
    numbers = candidate_lines(name, text)
    if numbers is not None and not may_be_rewritten(name, text):
        assert {line for line, _ in _scan_file(tmp_path, name, text)} <= numbers


def test_only_the_lines_that_could_be_flagged_are_candidates() -> None:
    assert candidate_lines(*CASES["many-lines"]) == frozenset({301})
    assert candidate_lines("quiet.py", "def f():\n    return 1\n") == frozenset()
    assert candidate_lines(*CASES["crlf"]) == frozenset({2, 3})


def test_files_whose_lines_detect_secrets_may_rewrite_are_known() -> None:
    rewritten = {case for case, (name, text) in CASES.items() if may_be_rewritten(name, text)}
    assert {"keyword-yaml", "keyword-ini", "yaml-unquoted", "ini-unquoted", "eager-ini"} <= (
        rewritten
    )
    assert not rewritten & {"aws", "keyword-py", "crlf", "folded-letter", "many-lines"}


def test_unquoted_values_are_found_in_the_lines_transformers_rewrite() -> None:
    for case in ("yaml-unquoted", "ini-unquoted", "eager-ini"):
        name, text = CASES[case]
        assert candidate_lines(name, text) == frozenset(), case  # not in the text's own lines
        assert _scan_texts(name, text), case


def test_folded_letters_are_matched_without_word_gates() -> None:
    assert candidate_lines(*CASES["folded-letter"]) == frozenset({1, 2})


def test_the_line_scan_reads_no_file_and_uses_the_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name, text = CASES["keyword-go"]
    with line_scanner() as scanner:
        assert scanner is not None
        assert scanner.scan(name, text, {1}, rewritten=False) == ((1, "Secret Keyword"),)
        # ``:=`` is only an assignment in Go: the file type comes from the name.
        assert scanner.scan("main.py", text, {1}, rewritten=False) == ()
    assert list(tmp_path.iterdir()) == []


def test_lines_are_read_as_open_reads_them() -> None:
    assert read_lines("a\r\nb\rc\n\nd") == ["a\n", "b\n", "c\n", "\n", "d"]
    assert read_lines("x\x0by\u2028z\x85\n") == ["x\x0by\u2028z\x85\n"]
    assert read_lines("") == []


def test_texts_that_would_not_read_back_go_to_scan_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    surrogate = f"{AWS}\n\udcff\n"
    assert read_lines(surrogate) is None
    assert _scan_texts("s.py", surrogate) == _scan_file(tmp_path, "s.py", surrogate)
    monkeypatch.setattr(locale, "getpreferredencoding", lambda do_setlocale=True: "latin-1")
    assert read_lines("plain\n") is None


def _spy_whole_files(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    scanned: list[str] = []
    real = secrets_module._scan_whole_files

    def spy(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
        scanned.extend(path for path, _ in items)
        return real(items)

    monkeypatch.setattr(secrets_module, "_scan_whole_files", spy)
    return scanned


def test_the_line_path_does_not_call_scan_file(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned = _spy_whole_files(monkeypatch)
    assert _scan_texts(*CASES["aws"]) == [(2, "AWS Access Key")]
    assert scanned == []


def test_another_detect_secrets_version_falls_back_to_scan_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scanned = _spy_whole_files(monkeypatch)
    monkeypatch.setattr(secretlines, "SUPPORTED_VERSION", "0.0.1")
    with line_scanner() as scanner:
        assert scanner is None
    assert _scan_texts(*CASES["aws"]) == [(2, "AWS Access Key")]
    assert scanned == ["settings.py"]


def test_a_helper_that_cannot_be_imported_falls_back_to_scan_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scanned = _spy_whole_files(monkeypatch)
    monkeypatch.setitem(sys.modules, "detect_secrets.util.code_snippet", None)
    with line_scanner() as scanner:
        assert scanner is None
    assert _scan_texts(*CASES["aws"]) == [(2, "AWS Access Key")]
    assert scanned == ["settings.py"]


def test_the_default_settings_are_restored_after_a_scan() -> None:
    from detect_secrets.settings import get_settings

    before = dict(get_settings().filters)
    with line_scanner() as scanner:
        assert scanner is not None
        assert "detect_secrets.filters.common.is_invalid_file" not in get_settings().filters
    assert get_settings().filters == before


_SECRET_LINES = [
    AWS,
    B64,
    HEX,
    PASSWORD_PY,
    *PRIVATE_KEY.split("\n"),
    NEXTLINE,
    "# pragma: allowlist secret",
    "api_key: notAtAllSecretValue",
    "DATABASE_PASSWORD=Xk9mQ2vL7pR4wZ",
    'secret := "whatever-it-is"',
    'char password[] = "hunter2hunter";',
    '"Xk29vLq7Ww8pZr3T" == my_password',
    "password = (",
    '    "correct-horse-battery"',
    "https://user:hunter2pass@example.com/x",
    "xoxb-1234-5678-abcdefgh",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THs",
    "[global]",
    "user_id = 'Xk29vLq7Ww8pZr3T'",
]
_CODE_LINES = st.sampled_from(
    [
        "def f(a, b):",
        "    return a + b",
        "x = 'short'",
        "// comment",
        "",
        "   ",
        "}",
        "key = value",
        'name = "ab12cd34ef56ab12"',
        "contraseña",
        "# ✓ ünïcödé",
    ]
)
_LINES = st.lists(
    st.one_of(_CODE_LINES, st.sampled_from(_SECRET_LINES), st.text(max_size=12)), max_size=14
)
_ENDINGS = st.sampled_from(["\n", "\r\n", "\r", "  \n"])
_NAMES = st.sampled_from(["a.py", "a.js", "a.go", "a.c", "a.cpp", "a.txt", "a.yaml", "a", ".env"])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(name=_NAMES, lines=_LINES, ending=_ENDINGS, tail=st.booleans())
def test_mixed_texts_find_what_scan_file_finds(
    name: str, lines: list[str], ending: str, tail: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    text = ending.join(lines) + (ending if tail else "")
    assert _scan_texts(name, text) == _scan_file(tmp_path_factory.mktemp("oracle"), name, text)


def test_folded_letters_are_those_re_matches_case_insensitively() -> None:
    from agentprompt.repo.secrets._filter import _folded

    letters = {"k", "s", "i", "ß", "1"}
    every = "".join(map(chr, range(0x80, 0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    expected: set[str] = set()
    for letter in {*letters, *"abcdefghijklmnopqrstuvwxyzñ"}:
        if letter.isalpha():
            twins = re.compile(re.escape(letter), re.IGNORECASE).findall(every)
            expected.update(c for c in twins if c.lower() != letter)
    assert _folded(set(letters)) == expected
    assert {"ſ", "ı", "İ"} <= expected
