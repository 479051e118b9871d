"""The map's parameters, calls, kinds and reference counts say what the code says, checked
on small sources."""

from __future__ import annotations

from agentprompt.repo.map import MapFile, render_map
from agentprompt.repo.rank import build_graph
from agentprompt.repo.symbols import FileSymbols, SymbolEntry, extract_symbols


def _extract(path: str, source: str) -> FileSymbols:
    return extract_symbols(path, source.encode())


def _symbol(found: FileSymbols, qualname: str) -> SymbolEntry:
    return next(s for s in found.symbols if s.qualname == qualname)


def test_typed_variadic_parameters_are_named() -> None:
    found = _extract(
        "a.py",
        "import typing as t\n"
        "def abort(code, *args: t.Any, **kwargs: t.Any) -> t.NoReturn:\n    raise E(code)\n"
        "def plain(*args, **kwargs):\n    pass\n",
    )
    assert _symbol(found, "abort").params == ("code", "*args", "**kwargs")
    assert _symbol(found, "plain").params == ("*args", "**kwargs")
    assert "abort(code,*args,**kwargs)->t.NoReturn:2" in render_map([MapFile(symbols=found)])


def test_keyword_only_and_positional_only_markers_are_kept() -> None:
    found = _extract(
        "a.py",
        "def url_for(endpoint: str, /, *, _anchor: str | None = None, **values):\n"
        "    pass\n"
        "def tail(a, *, b, c=1):\n    pass\n",
    )
    assert _symbol(found, "url_for").params == ("endpoint", "/", "*", "_anchor?", "**values")
    assert _symbol(found, "tail").params == ("a", "*", "b", "c?")


def test_only_a_methods_leading_self_or_cls_is_left_out() -> None:
    found = _extract(
        "a.py",
        "class C:\n"
        "    def m(self, other, cls):\n        pass\n"
        "    @classmethod\n    def make(cls: type, self_ish):\n        pass\n"
        "def bound_task(self, total):\n    pass\n",
    )
    assert _symbol(found, "C.m").params == ("other", "cls")
    assert _symbol(found, "C.make").params == ("self_ish",)
    assert _symbol(found, "bound_task").params == ("self", "total")


def test_rest_parameters_of_other_languages_are_named() -> None:
    js = _extract("a.js", "function f(a, ...rest) {}\nfunction d([c, ...more], ...tail) {}\n")
    assert _symbol(js, "f").params == ("a", "...rest")
    assert _symbol(js, "d").params == ("[c,...more]", "...tail")
    ts = _extract("a.ts", "const h = (x?: number, ...args: any[]): number => 1;\n")
    assert _symbol(ts, "h").params == ("x?", "...args")
    c = _extract("a.c", "int logf(const char *fmt, ...) { return 0; }\n")
    assert _symbol(c, "logf").params == ("fmt", "...")
    php = _extract("a.php", "<?php\nfunction g(int $a, int ...$nums) {}\n")
    assert _symbol(php, "g").params == ("a", "...nums")


def test_calls_are_never_read_from_docstrings_comments_or_strings() -> None:
    found = _extract(
        "a.py",
        "def app_context(self):\n"
        '    """Use it like this::\n\n        with app.app_context():\n'
        '            init_db()\n    """\n'
        "    # fallback_call() is not used any more\n"
        "    log('retrying connect_db() soon')\n"
        '    return AppContext(f"{render(self)} {{not_a_call()}}")\n',
    )
    # An f-string's fields are code: a call there is a call.
    assert _symbol(found, "app_context").calls == ("log", "AppContext", "render")
    js = _extract("a.js", "function f() {\n  // legacy(1)\n  /* old(2) */ say('x()');\n}\n")
    assert _symbol(js, "f").calls == ("say",)
    jsx = _extract("a.jsx", "function App() {\n  return <p>Run setup() first {render(x)}</p>;\n}\n")
    assert _symbol(jsx, "App").calls == ("render",)
    assert "setup" not in jsx.references
    go = _extract("a.go", 'package x\nfunc F() {\n\t// Old()\n\tfmt.Println("New()")\n}\n')
    assert _symbol(go, "F").calls == ("Println",)


def test_a_nested_definition_is_no_call() -> None:
    found = _extract(
        "a.py",
        "def route(rule):\n"
        "    def decorator(f):\n        return f\n"
        "    class Local(Base):\n        pass\n"
        "    return wrap(decorator)\n",
    )
    assert _symbol(found, "route").calls == ("wrap",)
    js = _extract("a.js", "function outer() {\n  function inner(x) {}\n  return run(inner);\n}\n")
    assert _symbol(js, "outer").calls == ("run",)


def test_comments_never_leak_into_a_signature() -> None:
    found = _extract(
        "a.py",
        "def f(a,  # the first\n      b=1,  # the second (a tuple)\n      ):  # done\n    pass\n",
    )
    assert _symbol(found, "f").signature == "(a, b=1, )"
    assert _symbol(found, "f").params == ("a", "b?")
    ts = _extract("a.ts", "function g(a: number, // trailing\n  b /* inline */: string) {}\n")
    assert _symbol(ts, "g").signature == "(a: number, b : string)"


def test_a_property_decorator_followed_by_a_comment_makes_a_property() -> None:
    found = _extract(
        "a.py",
        "class R:\n"
        "    @property  # type: ignore[override]\n    def name(self):\n        return 1\n"
        "    @name.setter  # noqa\n    def name(self, v):\n        pass\n",
    )
    assert [s.kind for s in found.symbols if s.name == "name"] == ["property", "property"]
    assert "  p name:3" in render_map([MapFile(symbols=found)])


def _users(files: dict[str, str], name: str) -> int:
    """How many other files the map says use ``name`` (its ``←N``)."""
    found = [_extract(path, text) for path, text in files.items()]
    graph = build_graph(
        {f.path: [s.name for s in f.symbols if s.depth == 0] for f in found},
        {f.path: f.references for f in found},
    )
    return graph.other_users(name)


def test_short_names_a_file_imports_are_references() -> None:
    files = {
        "pkg/globals.py": "g = LocalProxy()\nT = TypeVar('T')\n",
        "pkg/app.py": "from .globals import g\n\ndef run():\n    g.user = 1\n",
        "pkg/ctx.py": "from .globals import (\n    T,\n    g,\n)\n\ndef push(x: T):\n    g.x = x\n",
        "pkg/loops.py": "def total(items):\n    g = 0\n    for i in items:\n        g += i\n",
    }
    assert _users(files, "g") == 2
    assert _users(files, "T") == 1
    assert "g" in _extract("pkg/app.py", files["pkg/app.py"]).references
    # A local's short name, bound by no import, is no reference; nor is a JS parameter.
    assert "i" not in _extract("pkg/loops.py", files["pkg/loops.py"]).references
    view = _extract("view.js", "import { g, h } from './state';\nexport function v(i) { h(i); }\n")
    assert {"g", "h"} <= set(view.references)
    assert "i" not in view.references


def test_a_builtin_is_no_reference_to_a_module_variable_of_its_name() -> None:
    files = {
        "req/compat.py": "bytes = bytes\nstr = str\nbasestring = (str, bytes)\n",
        "req/utils.py": "from .compat import (\n    basestring,\n    bytes,\n)\n\n"
        "def to_native(s):\n    return isinstance(s, bytes)\n",
        "req/models.py": "def body(data):\n    return bytes(data), type(data)\n",
        "req/auth.py": "import bytes_tools\n\ndef sign(key):\n    return bytes(key)\n",
    }
    assert _users(files, "bytes") == 1
    assert "bytes" not in _extract("req/models.py", files["req/models.py"]).references
    assert "type" not in _extract("req/models.py", files["req/models.py"]).references
    # A file that imports ``*`` may have the name from there: it stays a reference.
    star = _extract("req/star.py", "from .compat import *\n\nx = bytes(1)\n")
    assert "bytes" in star.references
    # A file defining a name of a builtin's (a method ``filter``) keeps its uses.
    own = _extract("q.py", "class Q:\n    def filter(self):\n        return self.filter\n")
    assert "filter" in own.references
