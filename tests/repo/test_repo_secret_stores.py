"""What detect-secrets misses: files named like secret stores, and URL passwords with the
characters its basic-auth rule does not take."""

from __future__ import annotations

import pytest

from agentprompt.repo.secrets import may_hold_secret, scan_text, screen_texts
from agentprompt.repo.secrets.stores import STORE_KIND, URL_KIND, secret_store_name


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.local",
        "deploy/.env.production",
        "prod.env",
        "certs/server.pem",
        "tls.key",
        "id_rsa",
        "home/.ssh/id_ed25519",
        "credentials",
        "aws/credentials.json",
        "bundle.p12",
        ".netrc",
        ".pgpass",
        ".git-credentials",
    ],
)
def test_secret_stores_are_withheld_whatever_they_hold(path: str) -> None:
    assert secret_store_name(path)
    screen = screen_texts([(path, "nothing secret here\n")])
    assert screen.withheld == (path,)
    assert [f.kind for f in screen.findings] == [STORE_KIND]
    assert screen_texts([(path, "x\n")], allow_secrets=True).allowed == (path,)
    assert may_hold_secret(path, "x\n")


@pytest.mark.parametrize(
    "path", [".env.example", ".env.sample", "id_rsa.pub", "credentials.py", "src/env.ts", "keys.go"]
)
def test_ordinary_files_are_not_stores_by_name(path: str) -> None:
    assert not secret_store_name(path)
    assert screen_texts([(path, "x = 1\n")]).allowed == (path,)


def test_an_npmrc_is_a_store_only_with_a_token() -> None:
    assert not secret_store_name(".npmrc", "registry=https://npm.example.invalid/\n")
    assert secret_store_name(".npmrc", "//npm.example.invalid/:_authToken=abc\n")


@pytest.mark.parametrize("password", ["Tr0ub4dor&3xK9", "pa!ss2024", "a$b$c9", "x;y;z1", "it'sme1"])
def test_url_passwords_with_special_characters_are_found(password: str) -> None:
    text = f"# settings\nDATABASE_URL=postgres://app:{password}@db.example.com:5432/app\n"
    kinds = {(f.line, f.kind) for f in scan_text("config/settings.txt", text)}
    assert (2, URL_KIND) in kinds or (2, "Basic Auth Credentials") in kinds
    assert may_hold_secret("config/settings.txt", text)


@pytest.mark.parametrize(
    "text",
    [
        "url = postgres://app:${DB_PASSWORD}@db/app\n",
        "url = postgres://app:<password>@db/app\n",
        "url = postgres://app:****@db/app\n",
        "see https://example.com/a@b and mailto:x@y.z\n",
        "git@github.com:owner/repo.git\n",
    ],
)
def test_placeholders_and_plain_urls_are_not_passwords(text: str) -> None:
    assert not [f for f in scan_text("notes.txt", text) if f.kind == URL_KIND]
