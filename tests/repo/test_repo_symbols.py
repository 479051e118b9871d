"""Symbol extraction: each language's fixture file yields the expected definitions and imports."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.repo.symbols import FileSymbols, extract_symbols
from agentprompt.repo.symbols._languages import LANGUAGES, language_for_path, parser_for

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED_SYMBOLS: dict[str, list[str]] = {
    "sample.py": [
        "variable LIMIT:9-9",
        "variable _private:10-10",
        "class Store:13-31",
        "property Store.name:16-16",
        "method Store.__init__(path,timeout?):18-19",
        "property Store.size()->int:22-23",
        "async method Store.fetch(url,*args,retries?,**kw)->?User:25-27",
        "method Store.make()->Store:30-31",
        "function parse(text)->dict[str, int]:34-35",
        "async function main():38-40",
    ],
    "sample.js": [
        "variable path:3-3",
        "variable VERSION:5-5",
        "class Widget:7-23",
        "property Widget.count:8-8",
        "method Widget.constructor(name,size?):10-13",
        "property Widget.label():15-17",
        "async method Widget.load(url):19-22",
        "function render(widget,options?):25-27",
        "async function handler(event):29-31",
    ],
    "sample.ts": [
        "class Options:5-9",
        "property Options.verbose:6-6",
        "property Options.depth:7-7",
        "method Options.format(value)->string:8-8",
        "class Id:11-11",
        "class Color:13-13",
        "class Repository:15-26",
        "property Repository.items:16-16",
        "property Repository.name:17-17",
        "method Repository.constructor(db):19-19",
        "async method Repository.find(id,options?)->Promise<T | undefined>:21-23",
        "method Repository.save(item):25-25",
        "function createRepository(db)->Repository<User>:28-30",
        "async function delay(ms)->Promise<void>:32-34",
    ],
    "sample.tsx": [
        "class Props:4-7",
        "property Props.title:5-5",
        "property Props.onClose:6-6",
        "function Dialog({title,onClose})->JSX.Element:9-12",
        "function Panel(props):14-14",
    ],
    "sample.go": [
        "variable Limit:8-8",
        "variable cache:10-10",
        "class Store:12-15",
        "property Store.Path:13-13",
        "property Store.items:14-14",
        "class Reader:17-19",
        "method Reader.Read(id)->(models.User, error):18-18",
        "function NewStore(path)->*Store:21-23",
        "method Store.Find(id,limit)->(models.User, error):25-28",
    ],
    "sample.rs": [
        "variable LIMIT:4-4",
        "class Store:6-9",
        "property Store.path:7-7",
        "property Store.items:8-8",
        "class Mode:11-11",
        "class Reader:13-15",
        "method Reader.read(id)->Option<User>:14-14",
        "method Store.new(path)->Self:18-20",
        "async method Store.fetch(url)->Result<User, String>:22-25",
        "function load(url)->Result<User, String>:28-30",
    ],
    "Sample.java": [
        "class Store:6-25",
        "property Store.LIMIT:7-7",
        "property Store.items:8-8",
        "method Store.Store(path):10-12",
        "method Store.find(id,limit)->User:14-16",
        "method Store.load(path)->List<User>:18-20",
        "class Store.Listener:22-24",
        "method Store.Listener.changed(user):23-23",
    ],
    "sample.c": [
        "variable LIMIT:4-4",
        "variable counter:6-6",
        "class point:8-11",
        "property point.x:9-9",
        "property point.y:10-10",
        "variable point_t:13-13",
        "function add(a,b)->int:15-15",
        "function square(value)->int:17-19",
        "function main(argc,argv)->int:21-24",
    ],
    "sample.cpp": [
        "class Widget:6-13",
        "method Widget.Widget(size):8-8",
        "method Widget.size()->int:9-9",
        "method Widget.draw(canvas,scale?):10-10",
        "property Widget.size_:12-12",
        "function clamp(value,low,high)->T:20-22",
    ],
    "sample.rb": [
        "class Store:4-22",
        "property Store.LIMIT:5-5",
        "class Store.Repository:7-21",
        "property Store.Repository.path:8-8",
        "method Store.Repository.initialize(path,timeout?):10-12",
        "method Store.Repository.find(id,**options):14-16",
        "method Store.Repository.open(path):18-20",
        "function helper(x):24-26",
    ],
    "Sample.cs": [
        "class Repository:7-25",
        "property Repository.Limit:9-9",
        "property Repository.items:10-10",
        "property Repository.Name:12-12",
        "method Repository.Repository(path):14-17",
        "async method Repository.FindAsync(id,limit?)->Task<User>:19-22",
        "method Repository.Load(path)->List<User>:24-24",
        "class IReader:27-30",
        "method IReader.Find(id)->User:29-29",
    ],
    "sample.php": [
        "variable LIMIT:7-7",
        "class Repository:9-28",
        "property Repository.items:11-11",
        "property Repository.name:12-12",
        "method Repository.__construct(path):14-17",
        "method Repository.find(id,limit?)->?User:19-22",
        "method Repository.open(path)->static:24-27",
        "function load_users(path)->array:30-33",
    ],
}

EXPECTED_IMPORTS: dict[str, list[str]] = {
    "sample.py": [
        "os",
        "json",
        "typing: Optional",
        "local . : helpers",
        "local .models: User, Session",
    ],
    "sample.js": ["fs: readFile", "local ./utils.js: utils, formatDate", "path: path"],
    "sample.ts": ["@angular/core: Injectable", "local ./models: User", "node:fs: fs"],
    "sample.tsx": ["react: React, useState", "local ./Button: Button"],
    "sample.go": ["fmt", "example.com/app/models"],
    "sample.rs": ["std::collections: HashMap", "local crate::models: User, Session"],
    "Sample.java": ["java.util: List", "com.example.models: User"],
    "sample.c": ["stdio.h", "local store.h"],
    "sample.cpp": ["vector", "local widget.hpp"],
    "sample.rb": ["json", "local models/user"],
    "Sample.cs": ["System", "System.Collections.Generic", "App.Models"],
    "sample.php": ["App\\Models: User", "local /helpers.php"],
}


def _extract(name: str) -> FileSymbols:
    return extract_symbols(name, (FIXTURES / name).read_bytes())


def _describe_symbol(
    kind: str, qualname: str, params: tuple[str, ...] | None, returns: str | None
) -> str:
    text = f"{kind} {qualname}"
    if params is not None:
        text += f"({','.join(params)})" + (f"->{returns}" if returns else "")
    return text


@pytest.mark.parametrize("name", sorted(EXPECTED_SYMBOLS))
def test_each_language_yields_the_expected_definitions(name: str) -> None:
    found = _extract(name)
    described = [
        _describe_symbol(s.kind, s.qualname, s.params if s.signature else None, s.returns)
        + f":{s.line}-{s.end_line}"
        for s in found.symbols
    ]
    assert described == EXPECTED_SYMBOLS[name]
    assert not found.syntax_errors


@pytest.mark.parametrize("name", sorted(EXPECTED_IMPORTS))
def test_each_language_yields_the_expected_imports(name: str) -> None:
    found = _extract(name)
    described = []
    for item in found.imports:
        text = ("local " if item.local else "") + item.module
        if item.names:
            text += (" : " if item.module == "." else ": ") + ", ".join(item.names)
        described.append(text)
    assert described == EXPECTED_IMPORTS[name]


def test_every_supported_language_has_a_fixture() -> None:
    languages = {language_for_path(name) for name in EXPECTED_SYMBOLS}
    assert languages == set(LANGUAGES)


def test_every_grammar_loads_and_parses() -> None:
    for language in LANGUAGES:
        tree = parser_for(language).parse(b"\n")
        assert tree.root_node is not None


def test_signature_keeps_parameters_and_return_type_as_written() -> None:
    fetch = next(s for s in _extract("sample.py").symbols if s.name == "fetch")
    assert fetch.signature == ("(self, url: str, *args, retries: int = 3, **kw) -> Optional[User]")
    assert fetch.parent == "Store"
    assert fetch.depth == 1


def test_calls_are_read_from_the_body() -> None:
    fetch = next(s for s in _extract("sample.py").symbols if s.name == "fetch")
    assert fetch.calls == ("get", "parse")


def test_markers_record_decorators_exports_and_optional_members() -> None:
    py = {s.name: s for s in _extract("sample.py").symbols}
    assert "staticmethod" in py["make"].markers
    ts = {s.name: s for s in _extract("sample.ts").symbols}
    assert "exported" in ts["createRepository"].markers
    assert "optional" in ts["verbose"].markers
    assert "abstract" in ts["save"].markers


def test_class_bases_are_recorded() -> None:
    java = {s.name: s for s in _extract("Sample.java").symbols if s.kind == "class"}
    assert java["Store"].bases == ("Base", "Reader")
    cs = {s.name: s for s in _extract("Sample.cs").symbols if s.kind == "class"}
    assert cs["Repository"].bases == ("Base", "IReader")


def test_references_list_identifiers_used() -> None:
    refs = _extract("sample.py").references
    assert "helpers" in refs
    assert "getcwd" in refs
    assert list(refs) == sorted(refs)


def test_a_file_with_syntax_errors_still_yields_what_can_be_read() -> None:
    found = _extract("broken.py")
    assert found.syntax_errors
    names = [s.qualname for s in found.symbols]
    assert "good" in names
    assert "Later.method" in names


def test_an_unknown_language_yields_an_entry_without_symbols() -> None:
    found = extract_symbols("notes/readme.txt", b"def looks_like_code(): pass\n")
    assert found.language is None
    assert found.symbols == ()
    assert found.problem is None
    assert found.lines == 1


def test_non_utf8_text_is_a_problem_not_an_error() -> None:
    found = extract_symbols("latin.py", b"name = '\xe9t\xe9'\n")
    assert found.problem is not None
    assert "UTF-8" in found.problem
    assert found.symbols == ()


def test_binary_content_is_a_problem_not_an_error() -> None:
    found = extract_symbols("blob.py", b"\x00\x01\x02def x(): pass")
    assert found.problem == "binary content"


def test_language_is_chosen_by_extension_and_well_known_names() -> None:
    assert language_for_path("src/app.tsx") == "tsx"
    assert language_for_path("include/vec.hpp") == "cpp"
    assert language_for_path("Rakefile") == "ruby"
    assert language_for_path("Makefile") is None
    assert language_for_path(".bashrc") is None
