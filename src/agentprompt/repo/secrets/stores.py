"""Secrets detect-secrets misses: files named like secret stores, and passwords in URLs.

A file named like a place secrets are kept (``.env`` and its variants, private keys and
certificates' key files, ``id_rsa``, ``credentials``, PKCS#12 bundles, ``.netrc``,
``.pgpass``, an ``.npmrc`` or ``.pypirc`` holding a token or password...) is a finding
whatever it holds and whatever git says of it: such a file is never sent to a model unless
secrets are explicitly allowed. Committed templates (``.env.example``, ``.env.sample``...)
are not secret stores by name; their text is still scanned.

detect-secrets' basic-auth rule misses a URL password holding ``& ! $ ; '`` and the like
(``postgres://app:Tr0ub4dor&3xK9@db/app``); :func:`url_passwords` finds any
``scheme://user:password@host``, placeholders aside.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

__all__ = ["RULES_VERSION", "STORE_KIND", "URL_KIND", "extra_findings", "secret_store_name"]

RULES_VERSION = "stores-1"
"""Changes whenever these rules do: remembered scan results keyed by it are redone."""

STORE_KIND = "Secret store file"
"""The finding's kind for a file named like a secret store."""
URL_KIND = "Password in URL"
"""The finding's kind for a password written into a URL."""

_TEMPLATES = frozenset(
    {"example", "examples", "sample", "samples", "template", "templates", "dist", "defaults"}
)
_STORE_NAMES = frozenset(
    {
        ".netrc",
        "_netrc",
        ".pgpass",
        ".git-credentials",
        ".htpasswd",
        ".dockercfg",
        "secrets.json",
        "secrets.yaml",
        "secrets.yml",
        "secrets.toml",
        "service-account.json",
        "terraform.tfvars",
        "credentials",
    }
)
_DATA_SUFFIXES = frozenset(
    {"json", "yml", "yaml", "xml", "csv", "txt", "ini", "toml", "conf", "cfg", "db", "env"}
)
_STORE_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".ppk", ".asc")
_KEY_FILE = re.compile(r"^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[._-].*)?$")
_TOKEN_RC = re.compile(r"(?im)(?:_authtoken|_auth|_password|password|token)\s*[=:]\s*\S")


def secret_store_name(path: str, text: str = "") -> bool:
    """``path`` names a file secrets are kept in (``text``: its content, for the files that
    are stores only when they hold a token, such as ``.npmrc``)."""
    name = PurePosixPath(path.replace("\\", "/")).name.lower()
    if not name:
        return False
    if name in (".npmrc", ".pypirc", ".yarnrc", ".yarnrc.yml", ".gemrc"):
        return bool(_TOKEN_RC.search(text))
    if name == ".env" or name.startswith((".env.", ".env-", ".env_")) or name.endswith(".env"):
        last = name.rsplit(".", 1)[-1]
        return last not in _TEMPLATES
    if name in _STORE_NAMES:
        return True
    if name.startswith("credentials"):
        # credentials, credentials.json, credentials-prod.yaml; not credentials.py (code).
        stem, dot, last = name.rpartition(".")
        return not dot or (last in _DATA_SUFFIXES and stem.rsplit(".", 1)[-1] not in _TEMPLATES)
    if name.endswith(".pub"):
        return False
    return name.endswith(_STORE_SUFFIXES) or _KEY_FILE.match(name) is not None


_URL = re.compile(
    r"(?i)\b[a-z][a-z0-9+.\-]{1,20}://"  # scheme
    r"(?P<user>[^\s:/?#@\"'`<>]*)"  # user (may be empty)
    r":(?P<password>[^\s@/\"`<>]{1,256})"  # password: anything but a space, @ or /
    r"@(?P<host>[^\s/@:\"'`<>]+)"
)
_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[A-Za-z_][\w.]*\}?|\{\{.*\}\}|\{[\w.]*\}|<[^>]*>|%\(?\w*\)?s?|\*+|x+|\.+|"
    r"password|passwd|pass|pwd|secret|changeme|redacted|\[redacted\]|user|username)$",
    re.IGNORECASE,
)


def url_passwords(text: str) -> list[int]:
    """The 1-based lines of ``text`` holding a URL with a password (placeholders such as
    ``${DB_PASSWORD}``, ``<password>`` or ``****`` aside)."""
    if "://" not in text:
        return []
    lines: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "://" not in line or "@" not in line:
            continue
        for found in _URL.finditer(line):
            password = found.group("password").rstrip("'\";,)")
            if password and not _PLACEHOLDER.match(password):
                lines.append(number)
                break
    return lines


def extra_findings(path: str, text: str) -> list[tuple[int, str]]:
    """``(line, kind)`` for what these rules find in ``path``'s ``text``."""
    found = [(line, URL_KIND) for line in url_passwords(text)]
    if secret_store_name(path, text):
        found.append((1, STORE_KIND))
    return found
