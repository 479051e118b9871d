"""Every notation a symbol map writes is explained by its legend.

Maps of small repositories are rendered so that, together, they use every notation; each
notation is recognised in the map's lines by a pattern of its own (independent of the
renderer's bookkeeping), and the legend above the lines must explain it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentprompt.repo.map import MapOptions, build_map
from agentprompt.repo.map.render import MapFile, legend_groups, render_map
from agentprompt.repo.symbols import FileSymbols, SymbolEntry, extract_symbols

_KIND = r"^ *(?:c|m|f|af|am|v|p) "
NOTATION: dict[str, re.Pattern[str]] = {
    key: re.compile(pattern)
    for key, pattern in {
        "c": r"^ *c ",
        "c(B)": r"^ *c [^ (:]+\(",
        "m": r"^ *m ",
        "f": r"^ *f ",
        "af": r"^ *af ",
        "am": r"^ *am ",
        "v": r"^ *v ",
        "p": r"^ *p ",
        "i": r"^i ",
        "i→": r"^i→ ",
        ":N": _KIND + r".*:\d+(?: |$)",
        "->T": _KIND + r"[^ ]*->",
        "?": _KIND + r"[^ ]*\?",
        "*a/**k/...a/&b": _KIND + r"[^ (]+\([^)]*?(?<=[(,])(?:\*|\.\.\.|&)",
        "{a,b}": _KIND + r"[^ (]+\([^)]*?(?<=[(,])[{\[]",
        "←N": r"←\d",
        "→": r" →",
        "+N": r"(?:^ *|,)\+\d+(?:,|$)",
        "″": r"″",
        "C.x": r"^(?:m|am|p|v) [^ (:]+\.",
        "Nc/Nm": r": \d+c/\d+m$",
        "D/: a,b": r"^[^ ]*/: ",
        '"P"': r'^"',
    }.items()
}
"""Each legend key, and how a map line that uses its notation looks."""


def _legend_and_body(text: str) -> tuple[str, list[str]]:
    lines = text.splitlines()
    head = [line for line in lines if line.startswith("# ")]
    return "\n".join(head), lines[len(head) :]


def _used(body: list[str]) -> set[str]:
    return {key for key, pattern in NOTATION.items() if any(pattern.search(x) for x in body)}


def _python_repo(root: Path) -> Path:
    files = {
        "pkg/store.py": (
            "import json\nfrom pkg.models import Item\n\n"
            "LIMIT = 10\n\n"
            "class Store(Base):\n"
            "    @property\n    def size(self) -> int:\n        return 1\n\n"
            "    def put(self, key, value, timeout=None, *args, **kwargs):\n"
            "        return load_item(key)\n\n"
            "    def take(self, key, value, timeout=None, *args, **kwargs):\n"
            "        return load_item(key)\n\n"
            "    async def fetch(self, url) -> Item | None:\n        return load_item(url)\n\n"
            "async def gather(urls):\n    return [load_item(u) for u in urls]\n"
        ),
        "pkg/models.py": (
            "class Base:\n    pass\n\nclass Item(Base):\n    pass\n\n"
            "def load_item(key):\n    return Item()\n"
            + "".join(f"\ndef helper_{i}(x):\n    return x\n" for i in range(12))
        ),
        "pkg/use.py": "from pkg.store import Store, LIMIT\n\nx = Store(LIMIT)\n",
        "tests/test_store.py": (
            "from pkg.store import Store\n\n"
            "class TestStore:\n    def test_put(self):\n        Store().put(1, 2)\n"
        ),
        **{f"docs/page_{i}.rst": f"Page {i}\n" for i in range(8)},
        "LICENSE": "MIT\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _maps(tmp_path: Path) -> list[str]:
    """Maps that, between them, use every notation."""
    root = _python_repo(tmp_path / "py")
    whole = build_map(root, MapOptions(tokens=4000, use_cache=False)).text
    tight = build_map(root, MapOptions(tokens=150, use_cache=False)).text
    script = extract_symbols(
        "web/app.js",
        b"export function render({title, body}, ...children) { return title; }\n",
    )
    ruby = extract_symbols("lib/run.rb", b"def each_item(&block)\n  block.call\nend\n")
    view = extract_symbols(
        "pkg/view.py", b"class View:\n    def get(self, request):\n        return request\n"
    )
    method_only = MapFile(
        symbols=view, shown=frozenset(i for i, s in enumerate(view.symbols) if s.name == "get")
    )
    odd = FileSymbols(
        path="odd\nname.py",
        language="python",
        symbols=(SymbolEntry(kind="variable", name="X", line=1, end_line=1),),
    )
    return [
        whole,
        tight,
        render_map([MapFile(symbols=script), MapFile(symbols=ruby)]),
        render_map([method_only]),
        render_map([MapFile(symbols=odd)]),
    ]


def test_every_notation_in_a_map_is_in_its_legend(tmp_path: Path) -> None:
    for text in _maps(tmp_path):
        legend, body = _legend_and_body(text)
        for key in _used(body):
            assert f"{key}=" in legend, f"{key!r} is used but not explained:\n{text}"


def test_the_maps_exercise_every_notation_of_the_legend(tmp_path: Path) -> None:
    # Guards the test above: a notation it never saw could not be checked.
    used = set().union(*(_used(_legend_and_body(t)[1]) for t in _maps(tmp_path)))
    keys = {key for group in legend_groups() for key, _ in group}
    assert keys == set(NOTATION)
    assert used == keys


def test_a_method_shown_without_its_class_is_qualified_and_explained() -> None:
    view = extract_symbols(
        "pkg/view.py", b"class View:\n    def get(self, request):\n        return request\n"
    )
    shown = frozenset(i for i, s in enumerate(view.symbols) if s.name == "get")
    text = render_map([MapFile(symbols=view, shown=shown)])
    assert "\nm View.get(request):2\n" in text
    assert "C.x=member x of class C (class not shown)" in text


@pytest.mark.parametrize("key", sorted(NOTATION))
def test_every_legend_entry_has_a_meaning(key: str) -> None:
    meanings = {k: meaning for group in legend_groups() for k, meaning in group}
    assert meanings[key].strip()
