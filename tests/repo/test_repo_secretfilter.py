"""The secret prefilter never lets through a text detect-secrets would flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentprompt.bridge._screening import screen_prompt_texts
from agentprompt.repo.secrets import may_hold_secret, scan_texts

REPO = Path(__file__).parents[2]

# One text per kind of secret the default plugins report (made-up values).
SECRETS = {
    "aws.py": 'aws_key = "AKIAIOSFODNN7EXAMPLQ"\n',
    "azure.txt": "AccountKey=" + "a1B2" * 22 + "\n",
    "basic.md": "see https://user:hunter2pass@example.com/x\n",
    "cloudant.js": 'cloudant_password = "' + "ab12" * 16 + '";\n',
    "discord.txt": "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs\n",
    "github.sh": "token ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8\n",
    "gitlab.txt": "glpat-" + "x1Y2z3W4v5U6t7S8r9Q0" + "\n",
    "b64.py": 'blob = "c2VjcmV0cy5hcmUuZnVuLlNoaDEyMzQ1Njc4OTBxd2VydHk="\n',
    "hex.js": 'const h = "6f1ed002ab5595859014ebf0951522d9";\n',
    "iam.txt": 'ibm_cloud_iam_api_key = "' + "a1B2-c3D4_e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0" + '"\n',
    "cos.txt": 'ibm_cos_secret_access_key = "' + "a1b2c3d4e5f6" * 4 + '"\n',
    "ip.txt": "server at 8.8.4.4:53\n",
    "jwt.txt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
    "keyword.py": 'password = "correct-horse-battery"\n',
    "keyword.go": 'secret := "whatever-it-is"\n',
    "keyword.yaml": "api_key: notAtAllSecretValue\n",
    "mailchimp.txt": "key " + "a1b2c3d4" * 4 + "-us12\n",
    "npmrc": "//registry.example/:_authToken=npm_abcdefghijklmnop\n",
    "openai.txt": "sk-" + "A" * 20 + "T3BlbkFJ" + "B" * 20 + "\n",
    "key.pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----\n",
    "pypi.txt": "pypi-AgEIcHlwaS5vcmc" + "A1b2" * 18 + "\n",
    "sendgrid.txt": "SG." + "a" * 22 + "." + "b" * 43 + "\n",
    "slack.txt": "xoxb-1234-5678-abcdefgh\n",
    "softlayer.txt": 'softlayer_api_key = "' + "a1b2c3d4" * 8 + '"\n',
    "square.txt": "sq0csp-" + "A1b2" * 10 + "xyz\n",
    "stripe.txt": "sk_live_" + "a1B2c3D4" * 3 + "\n",
    "telegram.txt": "1234567890:" + "A1b2C3d4E5" * 3 + "f6G7h\n",
    "twilio.txt": "AC" + "a1b2c3d4" * 4 + "\n",
    "config.ini": "[db]\npassword = s3cr3tValue12345\n",
    ".env": "DATABASE_PASSWORD=Xk9#mQ2$vL7pR4wZ\n",
}

# Texts that look close but hold nothing detect-secrets reports.
QUIET = {
    "plain.py": "def add(a, b):\n    return a + b\n",
    "short.js": "const s = 'abc123';\n",
    "numbers.txt": "version 1.2.3 released\n",
    "private.ts": "export function f() {\n  return 1;\n}\n",
    "crlf.py": "x = 1\r\ny = 'two'\r\n",
}


def _scanned(items: dict[str, str]) -> dict[str, bool]:
    return {path: bool(hits) for path, hits in scan_texts(list(items.items())).items()}


def test_every_kind_of_secret_passes_the_prefilter() -> None:
    flagged = _scanned(SECRETS)
    assert sum(flagged.values()) >= len(SECRETS) - 3, flagged  # the fixtures are real secrets
    for path, text in SECRETS.items():
        assert may_hold_secret(path, text) or not flagged[path], path


def test_quiet_texts_are_not_scanned() -> None:
    assert not any(_scanned(QUIET).values())
    assert not any(may_hold_secret(path, text) for path, text in QUIET.items())


def test_files_detect_secrets_rewrites_are_always_scanned() -> None:
    assert may_hold_secret("a.yaml", "x: 1\n")
    assert may_hold_secret("setup.py", "# note\n[section]\nx = 1\n")
    assert may_hold_secret("settings.txt", "name = value\n")
    assert not may_hold_secret("notes.txt", "just some words\n")


def _repository_texts() -> dict[str, str]:
    """A varied sample of the repository's own files: code, prompts, examples, docs."""
    paths = [
        *sorted(REPO.glob("src/agentprompt/**/*.py"))[::4],
        *sorted(REPO.glob("src/agentprompt/**/*.md"))[::3],
        *sorted(REPO.glob("tests/**/*.py"))[::8],
        *sorted(REPO.glob("examples/**/*.*")),
        *sorted(REPO.glob("*.md")),
        *sorted(REPO.glob("*.toml")),
        *sorted(REPO.glob("bench/*.py")),
    ]
    return {str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in paths}


def test_prefilter_negative_means_scan_finds_nothing_on_real_files() -> None:
    texts = {**_repository_texts(), **SECRETS, **QUIET}
    negative = {p: t for p, t in texts.items() if not may_hold_secret(p, t)}
    assert len(negative) > len(texts) // 2  # the prefilter does spare most files
    assert not any(_scanned(negative).values())


def test_screening_finds_the_same_as_a_full_scan(tmp_path: Path) -> None:
    items = list({**SECRETS, **QUIET, **_repository_texts()}.items())[:60]
    full = scan_texts(items)
    screen = screen_prompt_texts(items, workers=1, cache_path=tmp_path / "cache.db")
    assert set(screen.withheld) == {p for p, hits in full.items() if hits}
    assert list(screen.findings) == [f for p, _ in items for f in full[p]]


_FRAGMENTS = st.sampled_from(
    [
        "password",
        "api_key",
        "Secret",
        "pwd",
        "=",
        " = ",
        ": ",
        ":=",
        "==",
        '"',
        "'",
        "`",
        ";",
        "(",
        "[",
        "]",
        "\n",
        "\r\n",
        "\r",
        "  \n",
        "\t",
        "#",
        "[global]",
        "aws",
        "AKIA",
        "6f1ed002ab5595859014ebf0951522d9",
        "c2VjcmV0cy5hcmUuZnVuLlNoaDEyMzQ1Njc4OTBxd2VydHk",
        "Xk9mQ2vL7pR4wZ",
        "8.8.4.4",
        "https://u:p@h",
        "ghp_",
        "-us12",
        "eyJ",
        ".",
        "x",
        "0123",
    ]
)
_TEXTS = st.lists(st.one_of(_FRAGMENTS, st.text(max_size=6)), max_size=25).map("".join)
_NAMES = st.sampled_from(["a.py", "a.js", "a.go", "a.c", "a.txt", "a.yaml", "a.ini", "a", ".env"])


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(name=_NAMES, text=_TEXTS)
def test_prefilter_is_a_superset_of_the_scan(name: str, text: str) -> None:
    if may_hold_secret(name, text):
        return
    assert scan_texts([(name, text)])[name] == ()


@pytest.mark.parametrize("path", sorted(SECRETS))
def test_a_secret_among_many_lines_is_still_seen(path: str) -> None:
    text = "line\n" * 50 + SECRETS[path] + "tail   \n" * 50
    flagged = _scanned({path: text})[path]
    assert may_hold_secret(path, text) or not flagged
