"""The definitions walk: a names-only walk finds exactly the definitions the full walk does."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.symbols import SymbolEntry, language_for_path, parser_for, walk_tree

FIXTURES = Path(__file__).parent / "fixtures"

TRICKY: dict[str, str] = {
    "properties.py": (
        "class A:\n    @property\n    @cached_property\n    def both(self): pass\n"
        "    @staticmethod\n    async def run(): pass\n"
        "async def main(): pass\n"
        'if __name__ == "__main__":\n    def hidden(): pass\n'
    ),
    "exports.js": (
        "export default function () {}\nexports.one = () => 1;\nmodule.exports = { a };\n"
        "class W { get size() { return 1 } static async load() {} field = async () => 2 }\n"
    ),
    "broken.js": "function ok() {}\nconst x = (;\nclass Broken {\nexport const after = (x) => x\n",
    "members.ts": (
        "interface O { verbose?: boolean; go(): void }\n"
        "abstract class R { abstract save(): void; items: string[] = [] }\n"
        "export default class {}\n"
    ),
    "outside.cpp": (
        "class Box { public: int size() const; int w; };\n"
        "int Box::size() const { return w; }\nint Other::make() { return 1; }\n"
        "typedef struct { int a; } Point;\n"
    ),
    "types.go": "type S struct { A, B int }\nfunc (s *S[T]) Get() T { return s.A }\n",
    "impl.rs": "struct P { x: i32 }\nimpl<T> P<T> { async fn new() -> Self { P { x: 1 } } }\n",
    "attrs.rb": (
        "class U\n  attr_reader :id, :name\n  class << self\n    def make; end\n  end\nend\n"
    ),
}


def _walks(name: str, source: bytes) -> tuple[tuple[SymbolEntry, ...], tuple[SymbolEntry, ...]]:
    """The full and the names-only walk of one file."""
    language = language_for_path(name)
    assert language is not None
    root = parser_for(language).parse(source).root_node
    full, _imports = walk_tree(language, root, source)
    names, _none = walk_tree(language, root, source, names_only=True)
    return full, names


def _projected(symbols: tuple[SymbolEntry, ...]) -> list[tuple[object, ...]]:
    return [(s.kind, s.name, s.line, s.end_line, s.parent, s.depth) for s in symbols]


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_names_only_walk_finds_the_full_walks_definitions_in_every_fixture(name: str) -> None:
    full, names = _walks(name, (FIXTURES / name).read_bytes())
    assert full
    assert _projected(names) == _projected(full)


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_names_only_walk_keeps_kinds_set_by_decorators_keywords_and_recovery(name: str) -> None:
    full, names = _walks(name, TRICKY[name].encode())
    assert full
    assert _projected(names) == _projected(full)


def test_names_only_walk_reads_no_signatures_calls_bases_or_imports() -> None:
    source = (FIXTURES / "sample.py").read_bytes()
    root = parser_for("python").parse(source).root_node
    full, full_imports = walk_tree("python", root, source)
    names, imports = walk_tree("python", root, source, names_only=True)
    assert full_imports
    assert imports == ()
    assert any(s.signature and s.params and s.calls for s in full)
    assert any(s.bases for s in full)
    assert all(
        (s.signature, s.params, s.returns, s.bases, s.markers, s.calls)
        == ("", (), None, (), (), ())
        for s in names
    )


def test_walk_entries_equal_entries_made_by_the_constructor() -> None:
    # The walk fills new entries' fields directly (no __post_init__ may be skipped).
    assert not hasattr(SymbolEntry, "__post_init__")
    source = b"class A(B):\n    async def run(self, x=1) -> int:\n        return go(x)\n"
    root = parser_for("python").parse(source).root_node
    full, _imports = walk_tree("python", root, source)
    assert full == tuple(SymbolEntry(**vars(s)) for s in full)
    assert full[1] == SymbolEntry(
        kind="async method",
        name="run",
        line=2,
        end_line=3,
        signature="(self, x=1) -> int",
        params=("x?",),
        returns="int",
        parent="A",
        depth=1,
        calls=("go",),
    )
    assert full[0].bases == ("B",)
