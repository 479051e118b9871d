"""The symbol map notation (snapshots), its legend, and seed 003's per-file summaries."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agentprompt.repo.discovery import is_test_path
from agentprompt.repo.map.render import (
    MapFile,
    browse_summary,
    file_annotation,
    is_entry_point,
    legend_groups,
    needs_text_for_entry,
    render_map,
    render_parts,
)
from agentprompt.repo.symbols import FileSymbols, SymbolEntry, extract_symbols

FIXTURES = Path(__file__).parent / "fixtures"


def _fixture(name: str, path: str) -> FileSymbols:
    return extract_symbols(path, (FIXTURES / name).read_bytes())


def _sample_map() -> list[MapFile]:
    store = _fixture("sample.py", "src/project/storage/store.py")
    repo = _fixture("sample.ts", "src/project/storage/repository.ts")
    shown_ts = {i for i, s in enumerate(repo.symbols) if s.name in ("Repository", "find", "delay")}
    return [
        MapFile(
            symbols=store,
            file_refs=3,
            symbol_refs={2: 4, 8: 2},
            local_imports=("src/project/storage/helpers.py", "src/project/storage/models.py"),
            external_imports=("os", "json", "typing"),
        ),
        MapFile(
            symbols=repo,
            shown=frozenset(shown_ts),
            local_imports=("src/project/storage/models.ts",),
            external_imports=("@angular/core", "node:fs"),
        ),
        MapFile(symbols=_fixture("sample.py", "tests/test_store.py")),
    ]


def test_map_notation_matches_snapshot(snapshot: Callable[[str, str], None]) -> None:
    snapshot("repo/symbol_map.txt", render_map(_sample_map()))


def test_map_for_every_language_matches_snapshot(snapshot: Callable[[str, str], None]) -> None:
    files = [
        MapFile(symbols=_fixture(p.name, f"lib/{p.name}"))
        for p in sorted(FIXTURES.iterdir())
        if p.name != "broken.py"
    ]
    snapshot("repo/symbol_map_languages.txt", render_map(files))


def test_legend_lists_only_the_notation_used() -> None:
    entry = FileSymbols(
        path="a.py",
        language="python",
        symbols=(SymbolEntry(kind="variable", name="LIMIT", line=1, end_line=1),),
    )
    text = render_map([MapFile(symbols=entry)])
    assert text == "# v=var\n# :N=line\na.py:\nv LIMIT:1\n"


def test_legend_is_read_from_the_prompt_file() -> None:
    keys = [key for group in legend_groups() for key, _ in group]
    assert keys[:6] == ["c", "c(B)", "m", "f", "af", "am"]
    assert "Nc/Nm" in keys
    assert "i→" in keys


def test_long_shared_prefixes_get_aliases_defined_in_the_legend() -> None:
    text = render_map(_sample_map())
    assert "# @1=" not in text
    assert "@1/=src/project/storage/" in text
    assert "\n@1/store.py: ←3\n" in text
    assert "i→ @1/helpers.py,@1/models.py" in text


def test_hidden_members_are_counted_with_more_marker() -> None:
    text = render_map(_sample_map())
    block = text.split("@1/repository.ts:")[1]
    assert "  +" in block
    assert "+N=more not shown" in text


def test_repeated_parameter_lists_use_ditto() -> None:
    symbols = tuple(
        SymbolEntry(
            kind="method",
            name=name,
            line=line,
            end_line=line,
            signature="(self, request, response)",
            params=("request", "response"),
            parent="View",
            depth=1,
        )
        for line, name in ((2, "get"), (4, "post"))
    )
    view = SymbolEntry(kind="class", name="View", line=1, end_line=5)
    entry = FileSymbols(path="views.py", language="python", symbols=(view, *symbols))
    text = render_map([MapFile(symbols=entry)])
    assert "  m get(request,response):2\n  m post(″):4\n" in text
    assert "″=ditto" in text


def test_test_files_are_summarised_as_class_and_method_counts() -> None:
    text = render_map([MapFile(symbols=_fixture("sample.py", "tests/test_store.py"))])
    assert text.endswith("tests/test_store.py: 1c/5m\n")
    assert "Nc/Nm=test file" in text


def test_an_empty_map_is_empty_text() -> None:
    assert render_map([]) == ""


def test_test_paths_are_recognised() -> None:
    assert is_test_path("tests/unit/helpers.py")
    assert is_test_path("src/widget.test.tsx")
    assert is_test_path("pkg/store_test.go")
    assert not is_test_path("src/testing_tools.py")


def test_annotation_lists_exports_for_a_module() -> None:
    utils = FileSymbols(
        path="src/utils.ts",
        language="typescript",
        symbols=tuple(
            SymbolEntry(kind="function", name=n, line=i, end_line=i, markers=("exported",))
            for i, n in enumerate(("formatDate", "parseJSON", "slugify", "clamp"), start=1)
        ),
    )
    assert file_annotation(utils) == "exports: formatDate, parseJSON, slugify, ..."


def test_annotation_marks_a_main_entry_with_its_local_imports() -> None:
    index = extract_symbols(
        "src/index.ts", b'import { formatDate } from "./utils";\nconsole.log(formatDate());\n'
    )
    assert file_annotation(index) == "main entry, imports: utils"


def test_annotation_is_none_when_there_is_nothing_to_say() -> None:
    assert file_annotation(extract_symbols("src/empty.py", b"\n")) is None


def test_browse_summary_shows_signatures_without_bodies() -> None:
    summary = browse_summary(_fixture("sample.py", "store.py"))
    assert "class Store(Base)  [13-31]" in summary
    assert "  async method fetch(self, url: str, *args, retries: int = 3, **kw)" in summary
    assert "return" not in summary
    assert summary.startswith("imports: os, json, typing, ., .models")


def test_overloads_are_shown_once_and_counted() -> None:
    source = b"function f(a: string): void;\nfunction f(a: number): void;\nfunction f(a: any) {}\n"
    text = render_map([MapFile(symbols=extract_symbols("x.ts", source))])
    assert text.endswith("x.ts:\nf f(a):1\n+2\n")


def test_references_leave_out_keywords() -> None:
    refs = extract_symbols("x.py", b"def load(self):\n    return None if self else parse()\n")
    assert "parse" in refs.references
    assert "return" not in refs.references
    assert "self" not in refs.references


def test_parts_give_the_legend_and_one_block_per_file() -> None:
    files = _sample_map()
    parts = render_parts(files)
    assert parts.text == render_map(files)
    assert [path for path, _ in parts.blocks] == [f.path for f in files]
    assert parts.legend.startswith("# c=class")
    assert parts.legend.endswith("# @1/=src/project/storage/\n")
    assert parts.blocks[2] == ("tests/test_store.py", "tests/test_store.py: 1c/5m\n")
    assert render_map(files, legend=False) == "".join(b for _, b in parts.blocks)


def _notation_used(body: list[str]) -> set[str]:
    """The legend keys a map body's lines use, read from the lines alone."""
    used: set[str] = set()
    for line in body:
        stripped = line.strip()
        if re.search(r"\d+c/\d+m$", stripped):
            used.add("Nc/Nm")
            continue
        if stripped.endswith(":") or re.search(r":( ←\d+)?$", stripped):
            if "←" in stripped:
                used.add("←N")
            continue
        prefix, _, rest = stripped.partition(" ")
        if re.fullmatch(r"\+\d+", prefix):
            used.add("+N")
            continue
        used.add(prefix)
        if prefix == "c" and re.match(r"[\w.]+\(", rest):
            used.add("c(B)")
        for key, pattern in (
            (":N", r":\d"),
            ("->T", r"->"),
            ("←N", r"←\d"),
            ("→", r"(?<!i)→"),
            ("″", r"″"),
            ("+N", r"\+\d"),
            ("?", r"\?"),
        ):
            applies = prefix not in ("i", "i→") or key == "+N"
            if applies and re.search(pattern, rest):
                used.add(key)
    return used


def test_every_notation_a_map_uses_is_in_its_legend() -> None:
    files = [
        MapFile(symbols=_fixture(p.name, f"lib/{p.name}"))
        for p in sorted(FIXTURES.iterdir())
        if p.name != "broken.py"
    ]
    for text in (render_map(files), render_map(_sample_map())):
        lines = text.splitlines()
        legend = [line for line in lines if line.startswith("# ")]
        body = [line for line in lines if not line.startswith("# ")]
        defined = " " + " ".join(line[2:] for line in legend)
        for key in _notation_used(body):
            assert f" {key}=" in defined, key


def test_a_question_mark_on_a_method_is_always_part_of_its_name() -> None:
    ruby = extract_symbols("lib/a.rb", b"class A\n  def valid?; true; end\nend\n")
    ts = extract_symbols("lib/b.ts", b"class B {\n  compute?(): void {}\n  size?: number;\n}\n")
    text = render_map([MapFile(symbols=ruby), MapFile(symbols=ts)])
    assert "m valid?:2" in text
    assert "m compute():2" in text
    assert "p size?:3" in text


def _plain(path: str) -> MapFile:
    return MapFile(symbols=FileSymbols(path=path, language=None))


def test_files_without_symbols_are_listed_per_folder_not_a_line_each() -> None:
    code = extract_symbols("src/app.py", b"def run():\n    pass\n")
    assets = [_plain(f"assets/{name}") for name in ("a.png", "b.svg", "c.svg", "d.css")]
    more = [_plain(f"assets/e{i}.svg") for i in range(4)]
    text = render_map([MapFile(symbols=code), *assets, *more, _plain("LICENSE")])
    lines = text.splitlines()
    assert "assets/: a.png,b.svg,c.svg,d.css,e0.svg,e1.svg,+2" in lines
    assert "./: LICENSE" in lines
    assert not any(line.startswith("assets/e") for line in lines)
    assert "D/: a,b=files in D/ without symbols" in text
    # After the code files' blocks, folders in path order.
    assert lines[-2:] == ["./: LICENSE", "assets/: a.png,b.svg,c.svg,d.css,e0.svg,e1.svg,+2"]


def test_a_folder_listing_is_one_block_keyed_by_the_folder() -> None:
    parts = render_parts([_plain("docs/a.rst"), _plain("docs/b.rst")])
    assert parts.blocks == (("docs/", "docs/: a.rst,b.rst\n"),)


def test_a_code_file_with_imports_keeps_its_own_block() -> None:
    entry = extract_symbols("pkg/__init__.py", b"from .core import run\n")
    text = render_map([MapFile(symbols=entry, local_imports=("pkg/core.py",))])
    assert "pkg/__init__.py:\ni→ pkg/core.py\n" in text


def _entry(path: str, source: bytes) -> FileSymbols:
    return extract_symbols(path, source)


def test_only_real_entry_points_are_noted_as_main_entry() -> None:
    plain = b"x = 1\n"
    assert file_annotation(FileSymbols(path="server.key", language=None)) is None
    assert file_annotation(FileSymbols(path="docs/index.rst", language=None)) is None
    assert file_annotation(FileSymbols(path="main.txt", language=None)) is None
    assert file_annotation(_entry("src/app.py", b"def make_app():\n    pass\n")) == (
        "exports: make_app"
    )
    assert file_annotation(_entry("cli.py", plain)) is None
    assert file_annotation(_entry("pkg/__main__.py", plain)) == "main entry"
    assert file_annotation(_entry("main.py", plain)) == "main entry"
    assert file_annotation(_entry("web/index.js", plain)) == "main entry"
    assert file_annotation(_entry("cmd/tool/main.go", b"package main\n\nfunc main() {}\n")) == (
        "main entry"
    )
    assert file_annotation(_entry("cmd/serve.go", b"package main\n\nfunc main() {}\n")) == (
        "main entry"
    )
    java = b"class Tool {\n  public static void main(String[] args) {}\n}\n"
    assert file_annotation(_entry("src/Tool.java", java)) == "main entry"


def test_a_main_guard_makes_an_entry_point_when_the_text_is_given() -> None:
    source = 'import sys\n\ndef run():\n    pass\n\nif __name__ == "__main__":\n    run()\n'
    entry = _entry("tools/report.py", source.encode())
    assert needs_text_for_entry(entry)
    assert file_annotation(entry) == "exports: run"
    assert file_annotation(entry, source) == "main entry"
    logger = _entry("lib/log.py", b"import logging\nlog = logging.getLogger(__name__)\n")
    assert needs_text_for_entry(logger)
    assert not is_entry_point(logger, "import logging\nlog = logging.getLogger(__name__)\n")
    ruby = "def run\nend\n\nrun if __FILE__ == $0\n"
    assert is_entry_point(_entry("bin/x.rb", ruby.encode()), ruby)
    ruby = "def run\nend\n\nif __FILE__ == $PROGRAM_NAME\n  run\nend\n"
    assert is_entry_point(_entry("bin/x.rb", ruby.encode()), ruby)
