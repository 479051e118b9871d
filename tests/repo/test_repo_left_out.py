"""Files left out for what they hold are named truthfully: generated or minified text,
binary data (by content or by type, a FITS file among them), or data in a text format no one
reads as lines (a FITS header's 80-character cards with no line break), never "minified or
generated" for data. ``left_out_kind`` tells the kinds apart for the doors that count them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.discovery import DiscoveryOptions, discover, left_out_kind
from agentprompt.repo.rank import left_out_files, skipped_files

WALK = DiscoveryOptions(follow_git=False)

_CARDS = "".join(f"{key:<8}= {value:>20}{'':<50}" for key, value in [("SIMPLE", "T")] * 120)
"""A FITS header: 80-character cards, no line break (9,600 characters)."""


def _reasons(root: Path, options: DiscoveryOptions = WALK) -> dict[str, str]:
    return {e.path: e.reason for e in discover(root, options).excluded}


def test_fits_files_are_a_binary_file_type(tmp_path: Path) -> None:
    for name in ("image.fits", "cube.fit", "table.fts", "packed.fits.fz", "data.hdf5"):
        (tmp_path / name).write_text(_CARDS)
    reasons = _reasons(tmp_path)
    assert reasons["image.fits"] == "binary file type (.fits)"
    assert reasons["packed.fits.fz"] == "binary file type (.fz)"
    assert all(r.startswith("binary file type") for r in reasons.values())


def test_a_fits_header_under_another_name_is_data_not_generated(tmp_path: Path) -> None:
    (tmp_path / "wcs.hdr").write_text(_CARDS)
    (tmp_path / "bundle.json").write_text('{"a": "' + "x" * 9000 + '"}')
    reasons = _reasons(tmp_path)
    assert reasons["wcs.hdr"].startswith("data file (a FITS header: a line of 8192 characters")
    assert "generated" not in reasons["wcs.hdr"]
    assert reasons["bundle.json"].startswith("minified or generated (a line of ")


def test_a_short_fits_header_stays_a_text_file(tmp_path: Path) -> None:
    (tmp_path / "small.hdr").write_text(_CARDS[:800] + "\n")
    assert "small.hdr" not in _reasons(tmp_path)


def test_include_generated_keeps_generated_files_but_never_data(tmp_path: Path) -> None:
    (tmp_path / "wcs.hdr").write_text(_CARDS)
    (tmp_path / "image.fits").write_text(_CARDS)
    (tmp_path / "bundle.json").write_text('{"a": "' + "x" * 9000 + '"}')
    kept = discover(tmp_path, DiscoveryOptions(follow_git=False, include_generated=True))
    assert [f.path for f in kept.files] == ["bundle.json"]


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("minified or generated (a line of 9000 characters ...)", "generated"),
        ("generated file (`@generated` header)", "generated"),
        ("excluded by default exclusion of generated files (`*.min.*`)", "generated"),
        ("binary content (a NUL byte in the first 8 KiB)", "binary"),
        ("binary file type (.fits)", "binary"),
        ("data file (a FITS header: ...)", "data"),
        ("not UTF-8 text (invalid byte at offset 3)", None),
        ("over the 1000000-byte size cap (1500000 bytes)", None),
        ("excluded by .gitignore:1 (`*.log`)", None),
    ],
)
def test_left_out_kind_names_what_a_file_holds(reason: str, kind: str | None) -> None:
    assert left_out_kind(reason) == kind


def test_generated_data_and_binary_code_are_counted_apart_from_problems(tmp_path: Path) -> None:
    (tmp_path / "wcs.hdr").write_text(_CARDS)
    (tmp_path / "blob.py").write_bytes(b"\x00\x01" * 10)
    (tmp_path / "latin.py").write_bytes(b"name = '\xe9'\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG")
    found = discover(tmp_path, WALK)
    assert [e.path for e in left_out_files(found)] == ["blob.py", "wcs.hdr"]
    assert skipped_files(found) == ["latin.py: not UTF-8 text (invalid byte at offset 8)"]
