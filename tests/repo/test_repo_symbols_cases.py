"""Symbol extraction's tricky cases, one source snippet and its expected symbols each."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agentprompt.repo.symbols import FileSymbols, extract_symbols


def _extract(path: str, source: str) -> FileSymbols:
    return extract_symbols(path, source.encode())


def _described(found: FileSymbols) -> list[str]:
    described = []
    for s in found.symbols:
        text = f"{s.kind} {s.qualname}"
        if s.signature:
            text += f"({','.join(s.params)})" + (f"->{s.returns}" if s.returns else "")
        described.append(text)
    return described


def test_references_skip_comments_and_string_text() -> None:
    found = _extract(
        "a.py",
        "# helper_one in a comment\n"
        "def f():\n"
        '    """mentions helper_two"""\n'
        '    x = f"{helper_three} and helper_four"\n'
        "    helper_five()\n",
    )
    assert "helper_one" not in found.references
    assert "helper_two" not in found.references
    assert "helper_four" not in found.references
    assert {"helper_three", "helper_five"} <= set(found.references)


def test_references_keep_template_substitutions_in_javascript() -> None:
    found = _extract("a.js", "// helperOne\nconst a = `x ${helperTwo} helperThree`;\n")
    assert "helperTwo" in found.references
    assert "helperOne" not in found.references
    assert "helperThree" not in found.references


def test_fields_count_only_inside_f_strings_and_template_literals() -> None:
    # A field-like brace in a comment, a plain string or a docstring is prose: in the last
    # one a ``:"F"`` looks like the opening of an f-string to a search for f-strings alone.
    found = _extract(
        "a.py",
        "# {comment_field} and f'{comment_fstring}'\n"
        'def f():\n    """{{ when|date:"F" }}{% doc_word %}"""\n'
        "    return '{plain_field}' + f'{real_field}' + rf\"{raw_field}\"\n",
    )
    refs = set(found.references)
    assert {"real_field", "raw_field"} <= refs
    assert not {"comment_field", "comment_fstring", "doc_word", "plain_field"} & refs
    found = _extract(
        "a.ts",
        "/** console.log(`${docNumber}`) */\n"
        "// `${lineNumber}`\n"
        "const a = '${plainNumber}' + `${realNumber}`;\n",
    )
    refs = set(found.references)
    assert "realNumber" in refs
    assert not {"docNumber", "lineNumber", "plainNumber"} & refs


def test_python_definitions_and_imports_under_conditions_are_read() -> None:
    found = _extract(
        "a.py",
        "if TYPE_CHECKING:\n    from app.models import User\n"
        "try:\n    import fast_json as json\nexcept ImportError:\n    import json\n"
        "if sys.version_info >= (3, 11):\n    def modern(): pass\nelse:\n    def legacy(): pass\n"
        'if __name__ == "__main__":\n    args = parse()\n',
    )
    assert _described(found) == ["function modern()", "function legacy()"]
    assert [i.module for i in found.imports] == ["app.models", "fast_json", "json"]


def test_python_cached_property_lambda_and_union_none() -> None:
    found = _extract(
        "a.py",
        "class A:\n    @cached_property\n    def value(self) -> int:\n        return 1\n"
        "def find() -> Union[int, None]:\n    pass\n"
        "double = lambda x, y=2: x * y\n",
    )
    assert _described(found) == [
        "class A",
        "property A.value()->int",
        "function find()->?int",
        "function double(x,y?)",
    ]


def test_typescript_namespace_and_declared_module_bodies_are_read() -> None:
    found = _extract(
        "a.ts",
        "export namespace Geometry {\n  export class Vector {}\n}\n"
        'declare module "external" {\n  export function ext(a: string): void;\n}\n',
    )
    assert _described(found) == ["class Vector", "function ext(a)"]


def test_destructured_parameters_are_kept() -> None:
    found = _extract(
        "a.tsx",
        "function Dialog({ title, onClose }: Props) {}\n"
        "const pick = ([first, second], { a, b } = {}, ...rest) => first;\n",
    )
    assert _described(found) == [
        "function Dialog({title,onClose})",
        "function pick([first,second],{a,b}?,...rest)",
    ]


def test_javascript_default_exports_and_commonjs_exports_are_listed() -> None:
    classes = _extract("a.js", "export default class extends Base {\n  run() {}\n}\n")
    assert _described(classes) == ["class default", "method default.run()"]
    arrow = _extract("b.js", "export default () => {};\n")
    assert _described(arrow) == ["function default()"]
    value = _extract("c.js", "export default { a: 1 };\n")
    assert _described(value) == ["variable default"]
    common = _extract(
        "d.js",
        "exports.helper = function (z) {};\nmodule.exports.VERSION = 2;\n"
        "module.exports = function main(q) {};\n",
    )
    assert _described(common) == ["function helper(z)", "variable VERSION", "function exports(q)"]


def test_class_field_arrows_are_methods() -> None:
    found = _extract(
        "a.ts", "class K {\n  load = async (url: string) => 1;\n  size = () => 2;\n}\n"
    )
    assert _described(found) == ["class K", "async method K.load(url)", "method K.size()"]


def test_a_cpp_header_named_h_is_read_as_cpp() -> None:
    found = _extract(
        "widget.h",
        "#pragma once\nnamespace app {\nclass Widget {\npublic:\n    int size() const;\n};\n}\n",
    )
    assert found.language == "cpp"
    assert _described(found) == ["class Widget", "method Widget.size()->int"]
    plain = _extract("vec.h", "struct vec { int x; };\nint add(int a, int b);\n")
    assert plain.language == "c"


def test_go_generic_receivers_and_grouped_declarations() -> None:
    found = _extract(
        "a.go",
        "package m\n\nfunc (p *Pair[K, V]) Swap() {}\n\n"
        "var (\n\tx, y = 1, 2\n\tZ int\n)\n\nconst (\n\tA = iota\n\tB\n)\n",
    )
    assert _described(found) == [
        "method Pair.Swap()",
        "variable x",
        "variable y",
        "variable Z",
        "variable A",
        "variable B",
    ]
    assert [s.line for s in found.symbols if s.name in ("A", "B")] == [11, 12]


def test_c_typedefs_arrays_and_function_pointer_returns() -> None:
    found = _extract(
        "a.c",
        "typedef struct { float x, y; } vec2;\n"
        "typedef int (*callback_t)(void *ctx, int code);\n"
        'static const char *names[] = { "a" };\n'
        "void (*signal(int sig, int flags))(int) { return 0; }\n",
    )
    assert _described(found) == [
        "class vec2",
        "property vec2.x",
        "property vec2.y",
        "variable callback_t",
        "variable names",
        "function signal(sig,flags)",
    ]


def test_cpp_out_of_class_definitions_are_not_listed_twice() -> None:
    found = _extract(
        "a.cpp",
        "template <typename T, int N>\nclass Container {\npublic:\n"
        "    explicit Container(const T& value);\n    ~Container();\n    T get(int i) const;\n};\n"
        "template <typename T, int N>\nContainer<T, N>::Container(const T& value) {}\n"
        "template <typename T, int N>\nT Container<T, N>::get(int i) const { return T(); }\n"
        "int Other::run() { return helper(); }\n",
    )
    assert _described(found) == [
        "class Container",
        "method Container.Container(value)",
        "method Container.~Container()",
        "method Container.get(i)->T",
        "method Other.run()->int",
    ]
    assert all(s.calls == () for s in found.symbols if s.parent == "Container")


def test_ruby_attributes_singleton_methods_and_optional_keywords() -> None:
    found = _extract(
        "a.rb",
        "class Widget\n  attr_accessor :name, :size\n  attr_reader :id\n"
        "  class << self\n    def build(*args); end\n  end\n"
        "  def initialize(name:, size: 2); end\nend\n",
    )
    assert _described(found) == [
        "class Widget",
        "property Widget.name",
        "property Widget.size",
        "property Widget.id",
        "method Widget.build(*args)",
        "method Widget.initialize(name,size?)",
    ]
    assert "static" in found.symbols[4].markers


def test_php_group_use_function_use_and_variadics() -> None:
    found = _extract(
        "a.php",
        "<?php\nuse App\\Models\\{User, Post};\nuse function App\\helpers\\format;\n"
        "function log_all(string $msg, mixed ...$context): void {}\n",
    )
    assert [(i.module, i.names) for i in found.imports] == [
        ("App\\Models", ("User", "Post")),
        ("App\\helpers", ("format",)),
    ]
    assert _described(found) == ["function log_all(msg,...context)"]


def test_csharp_params_arrays_and_java_varargs() -> None:
    cs = _extract("A.cs", "class T { public T(params int[] values) {} }\n")
    assert _described(cs) == ["class T", "method T.T(...values)"]
    java = _extract("A.java", "class T { void f(int a, String... rest) {} }\n")
    assert _described(java) == ["class T", "method T.f(a,...rest)"]


BROKEN = {
    "b.js": (
        "export function ok(a) { return a; }\nclass Broken {\n  method( { \n}\n"
        "export const after = (x) => x;\nfunction later(y) {}\n",
        ["ok", "Broken", "after", "later"],
    ),
    "b.go": (
        "package x\nfunc Good() {}\nfunc Bad( {\n}\ntype After struct { A int }\n"
        "func Later() int { return 1 }\n",
        ["Good", "After", "Later"],
    ),
    "b.rs": ("fn ok() {}\nfn bad( {\n}\nstruct After { a: i32 }\nfn later() {}\n", ["ok", "later"]),
    "b.rb": ("def ok\nend\nclass X\n  def bad(\nend\ndef later; end\n", ["ok", "later"]),
    "B.java": (
        "class A {\n  void ok() {}\n  void bad( {\n}\nclass B { void later() {} }\n",
        ["A", "ok", "later"],
    ),
}


def test_files_with_syntax_errors_in_every_language_keep_what_can_be_read() -> None:
    for path, (source, expected) in BROKEN.items():
        found = _extract(path, source)
        assert found.syntax_errors, path
        names = [s.name for s in found.symbols]
        assert all(name in names for name in expected), (path, names)


def test_calls_are_the_names_before_parentheses_in_first_seen_order() -> None:
    found = _extract(
        "a.js",
        "function f() {\n"
        "  later(1); $jq(2); obj.method_2(x); v2helper(y); 9lives(); 123();\n"
        "  if (a) { later(); } f(); return typeof(x) + inner (z);\n"
        "}\n",
    )
    # Leading digits are not part of a name (``9lives(`` calls ``lives``); keywords, the
    # function's own name and a space before ``(`` are no calls; repeats count once.
    assert found.symbols[0].calls == ("later", "$jq", "method_2", "v2helper", "lives")


def test_calls_are_read_from_the_first_4_kib_of_the_body_only() -> None:
    filler = "  x = 1;\n" * 500
    found = _extract("a.js", f"function f() {{\n  early();\n{filler}  late();\n}}\n")
    assert found.symbols[0].calls == ("early",)


def test_references_in_non_ascii_text_are_the_ascii_identifier_runs() -> None:
    # Letters outside ASCII are not identifier characters: ``éclair_x`` is used as
    # ``clair_x`` and ``naïve_total`` as ``ve_total``; words in a non-ASCII string or
    # comment are still cut out (and ``na`` of ``naïve``, a short name the file does not
    # bind, is no reference).
    found = _extract("a.py", "# déjà_vu_name\nvalue = éclair_x + naïve_total\ns = 'mañana_word'\n")
    assert found.references == ("clair_x", "s", "value", "ve_total")
    assert found.problem is None


def test_python_lexer_reads_quotes_and_hashes_in_order() -> None:
    # A ``#`` inside a string is no comment, and a quote inside a comment opens nothing:
    # the code after each is still read.
    found = _extract(
        "a.py",
        "colour = '#fff'; after_hash = 1\n"
        "# it's a comment with an_apostrophe\n"
        'after_comment = "it\'s" + word_one\n'
        'doc = """a "quoted" in_docstring \\""" still_doc"""\n'
        "tail_name = rb'\\'' + br\"x\"\n",
    )
    assert {"colour", "after_hash", "after_comment", "word_one", "tail_name"} <= set(
        found.references
    )
    assert not {"fff", "an_apostrophe", "in_docstring", "still_doc"} & set(found.references)


def test_python_f_string_fields_are_code_and_doubled_braces_are_not() -> None:
    found = _extract(
        "a.py",
        "a = f'{field_one} {{not_field}} {call_two(x, \"quoted_word\")}'\n"
        'b = rf"{field_three}" + Fr"{field_four}"\n'
        "c = '{plain_format}'.format(1)\n"
        "def elf(): return 'elf'\n"
        "d = elf'{not_prefix}'\n",
    )
    refs = set(found.references)
    assert {"field_one", "call_two", "field_three", "field_four"} <= refs
    assert not {"not_field", "quoted_word", "plain_format", "not_prefix"} & refs


def test_unterminated_strings_run_to_the_end_of_their_line_or_file() -> None:
    # A one-line string left open takes the rest of its line only; an open triple-quoted
    # string runs to the end of the file.
    found = _extract("a.py", "x = 'open_line\nnext_line = 1\ny = '''open_block\nlost_name\n")
    refs = set(found.references)
    assert "next_line" in refs
    assert not {"open_line", "open_block", "lost_name"} & refs


def _extracted(path: str, text: str) -> Callable[[], object]:
    def run() -> object:
        found = _extract(path, text)
        assert found.problem is None
        return found

    return run


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "make"),
    [
        ("a.py", lambda n: '\\"' * n + " kept_after\nnext_name = 1\n"),
        ("a.js", lambda n: "x = (/'" * n + "\nafter();\n"),
    ],
)
def test_a_line_of_unmatched_quotes_is_lexed_in_linear_time(
    path: str, make: Callable[[int], str], growth: Callable[..., tuple[float, float]]
) -> None:
    # Each quote opening a string that does not close on its line used to send the lexer
    # to the end of the line again: 40 KB of them took seconds, 100 KB minutes. Linear: 4x
    # the input takes about 4x as long (quadratic would be 16x); slack for a busy machine.
    small, large = growth(_extracted(path, make(5_000)), _extracted(path, make(20_000)))
    assert large < 9 * small + 0.05, (small, large)
    if path == "a.js":
        assert "after" in _extract(path, make(20_000)).references


def test_javascript_lexer_skips_regex_literals_comments_and_strings() -> None:
    # The regex literal holds ``/*`` and a quote: neither may swallow the code after it.
    found = _extract(
        "a.js",
        "const trimmed = path.replace(/\\/*$/, '');\n"
        "const quote = text.match(/['\"]/g); afterRegex();\n"
        "/* blockWord */ const ratio = total / count / scale;\n"
        "// it's lineWord\n"
        "const s = 'single_word' + \"double_word\" + `tmpl_word ${subst_name}`;\n",
    )
    refs = set(found.references)
    assert {"trimmed", "replace", "quote", "match", "afterRegex", "ratio", "total"} <= refs
    assert {"count", "scale", "subst_name"} <= refs
    assert not {"blockWord", "lineWord", "single_word", "double_word", "tmpl_word"} & refs


def test_typescript_uses_the_same_lexer() -> None:
    found = _extract("a.ts", "const a: string = 'typed_word'; // noteWord\nuseIt(a);\n")
    assert "useIt" in found.references
    assert not {"typed_word", "noteWord"} & set(found.references)
