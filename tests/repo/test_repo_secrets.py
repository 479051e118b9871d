"""Secret scanning of content headed into a prompt (detect-secrets' own file scan)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.secrets import SecretFinding, scan_text, scan_texts, screen_texts
from agentprompt.repo.secrets import _scan as secrets_module
from agentprompt.repo.secrets.stores import STORE_KIND

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
CONFIG = f'REGION = "eu-west-1"\nAWS_KEY = "{AWS_KEY}"\n'


def test_a_secret_is_found_with_its_line_and_kind() -> None:
    assert scan_text("settings.py", CONFIG) == (
        SecretFinding(path="settings.py", line=2, kind="AWS Access Key"),
    )


def test_a_finding_never_carries_the_secret_itself() -> None:
    (finding,) = scan_text("settings.py", CONFIG)
    assert AWS_KEY not in repr(finding)
    assert finding.describe() == "settings.py:2: AWS Access Key"


def test_ordinary_code_has_no_findings() -> None:
    text = "def login(password: str) -> bool:\n    return check(password)\n"
    assert scan_text("auth.py", text) == ()


def test_private_keys_are_found() -> None:
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n"
    kinds = [f.kind for f in scan_text("id_rsa.txt", text)]
    assert kinds == ["Private Key", STORE_KIND]  # the name alone is a secret store's


def test_a_file_with_a_secret_is_withheld_by_default() -> None:
    screen = screen_texts([("settings.py", CONFIG), ("app.py", "x = 1\n")])
    assert screen.allowed == ("app.py",)
    assert screen.withheld == ("settings.py",)
    assert [f.path for f in screen.findings] == ["settings.py"]


def test_allow_secrets_lets_the_file_through_and_still_reports_it() -> None:
    screen = screen_texts([("settings.py", CONFIG)], allow_secrets=True)
    assert screen.allowed == ("settings.py",)
    assert screen.withheld == ()
    assert len(screen.findings) == 1


def test_the_same_text_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[tuple[str, str]]] = []
    real = secrets_module._scan_uncached

    def counting(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
        calls.append(items)
        return real(items)

    monkeypatch.setattr(secrets_module, "_scan_uncached", counting)
    text = "ONLY_HERE = 'once'\n"
    scan_texts([("once.py", text)])
    scan_texts([("once.py", text)])
    assert len(calls) == 1


def test_scanning_writes_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    scan_text("fresh.py", CONFIG + "# fresh\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("prod.env", "DEBUG=false\nDB_PASSWORD=Xk29vLq7Ww8pZr3T\n"),
        ("run.sh", "#!/bin/sh\nexport SECRET_KEY=Xk29vLq7Ww8pZr3TbN5m\n"),
        ("notes.txt", "SECRET = Xk29vLq7Ww8pZr3TbN5m\n"),
        (".npmrc", "registry=local\n//host/:_authToken=npm_Xk29vLq7Ww8pZr3TbN5mQ1aB2cD3eF4gH5iJ\n"),
        ("key.py", "KEY = '''\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n'''\n"),
    ],
    ids=["dotenv", "shell-export", "text-assignment", "npmrc-token", "private-key"],
)
def test_unquoted_assignments_and_tokens_are_found_as_detect_secrets_scans_files(
    path: str, text: str
) -> None:
    (finding,) = [f for f in scan_text(path, text) if f.kind != STORE_KIND]
    expected = next(
        n for n, line in enumerate(text.splitlines(), 1) if "Xk29" in line or "BEGIN" in line
    )
    assert finding.line == expected
