"""Import statements of each language, read from their syntax nodes.

Each reader turns one statement node into :class:`ImportEntry` values: what is imported
from, which names it brings in, and whether the syntax alone makes it local to the
repository (a relative path, a quoted ``#include``, ``require_relative``, ``crate::``).
Whether an absolute import names a file of the repository is decided later, when the
whole file list is known (:mod:`agentprompt.repo.map._resolve`).
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from agentprompt.repo.symbols._signatures import node_text
from agentprompt.repo.symbols.entries import ImportEntry

__all__ = ["read_imports"]


def _unquote(text: str) -> str:
    return text.strip().strip("\"'`<>")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _python(node: Node) -> list[ImportEntry]:
    line = _line(node)
    if node.type == "import_statement":
        found = []
        for child in node.children_by_field_name("name"):
            target = child.child_by_field_name("name") if child.type == "aliased_import" else child
            found.append(ImportEntry(module=node_text(target), line=line))
        return found
    if node.type == "future_import_statement":
        return [ImportEntry(module="__future__", line=line)]
    module = node_text(node.child_by_field_name("module_name"))
    names = []
    for child in node.children_by_field_name("name"):
        target = child.child_by_field_name("name") if child.type == "aliased_import" else child
        names.append(node_text(target))
    if any(c.type == "wildcard_import" for c in node.named_children):
        names.append("*")
    return [ImportEntry(module=module, names=tuple(names), local=module.startswith("."), line=line)]


def _js_names(clause: Node) -> list[str]:
    names: list[str] = []
    for child in clause.named_children:
        if child.type == "identifier":
            names.append(node_text(child))
        elif child.type == "namespace_import":
            names.extend(node_text(c) for c in child.named_children if c.type == "identifier")
        elif child.type in ("named_imports", "export_clause"):
            for spec in child.named_children:
                name = spec.child_by_field_name("name")
                if name is not None:
                    names.append(node_text(name))
    return names


def _require(node: Node) -> list[ImportEntry]:
    found = []
    for declarator in node.named_children:
        value = declarator.child_by_field_name("value")
        if value is None or value.type != "call_expression":
            continue
        if node_text(value.child_by_field_name("function")) != "require":
            continue
        arguments = value.child_by_field_name("arguments")
        if arguments is None or not arguments.named_children:
            continue
        module = _unquote(node_text(arguments.named_children[0]))
        name = node_text(declarator.child_by_field_name("name"))
        found.append(
            ImportEntry(
                module=module,
                names=(name,) if name else (),
                local=module.startswith((".", "/")),
                line=_line(node),
            )
        )
    return found


def _js(node: Node) -> list[ImportEntry]:
    if node.type in ("lexical_declaration", "variable_declaration"):
        return _require(node)
    source = node.child_by_field_name("source")
    if source is None:
        return []
    module = _unquote(node_text(source))
    names: list[str] = []
    for child in node.named_children:
        if child.type in ("import_clause", "export_clause"):
            names.extend(_js_names(child) if child.type == "import_clause" else _js_names(node))
    local = module.startswith((".", "/"))
    return [ImportEntry(module=module, names=tuple(names), local=local, line=_line(node))]


def _go(node: Node) -> list[ImportEntry]:
    found = []
    stack = list(node.named_children)
    while stack:
        child = stack.pop(0)
        if child.type == "import_spec_list":
            stack.extend(child.named_children)
        elif child.type == "import_spec":
            path = _unquote(node_text(child.child_by_field_name("path")))
            found.append(ImportEntry(module=path, line=_line(child)))
    return found


def _rust(node: Node) -> list[ImportEntry]:
    if node.type == "extern_crate_declaration":
        return [ImportEntry(module=node_text(node.child_by_field_name("name")), line=_line(node))]
    argument = node.child_by_field_name("argument")
    text = " ".join(node_text(argument).split())
    module, names = text, tuple[str, ...]()
    if argument is not None and argument.type == "scoped_use_list":
        module = node_text(argument.child_by_field_name("path"))
        inner = argument.child_by_field_name("list")
        names = tuple(node_text(c) for c in inner.named_children) if inner is not None else ()
    elif "::" in text:
        module, last = text.rsplit("::", 1)
        names = (last,)
    local = module.startswith(("crate", "self", "super"))
    return [ImportEntry(module=module, names=names, local=local, line=_line(node))]


def _java(node: Node) -> list[ImportEntry]:
    text = node_text(node).removeprefix("import").strip().rstrip(";").strip()
    text = text.removeprefix("static ").strip()
    module, _, last = text.rpartition(".")
    return [ImportEntry(module=module or text, names=(last,) if module else (), line=_line(node))]


def _c(node: Node) -> list[ImportEntry]:
    path = node.child_by_field_name("path")
    if path is None:
        return []
    return [
        ImportEntry(
            module=_unquote(node_text(path)), local=path.type == "string_literal", line=_line(node)
        )
    ]


def _ruby(node: Node) -> list[ImportEntry]:
    method = node_text(node.child_by_field_name("method"))
    if method not in ("require", "require_relative", "load"):
        return []
    arguments = node.child_by_field_name("arguments")
    if arguments is None or not arguments.named_children:
        return []
    module = _unquote(node_text(arguments.named_children[0]))
    return [ImportEntry(module=module, local=method == "require_relative", line=_line(node))]


def _csharp(node: Node) -> list[ImportEntry]:
    parts = [c for c in node.named_children if c.type in ("identifier", "qualified_name")]
    if not parts:
        return []
    return [ImportEntry(module=node_text(parts[-1]), line=_line(node))]


def _php(node: Node) -> list[ImportEntry]:
    if node.type == "namespace_use_declaration":
        group = node.child_by_field_name("body")
        if group is not None:
            # ``use App\Models\{User, Post};``: one import of the shared prefix.
            prefix = next((c for c in node.named_children if c.type == "namespace_name"), None)
            names = tuple(
                node_text(c).split(" as ")[0].strip()
                for c in group.named_children
                if c.type == "namespace_use_clause"
            )
            module = node_text(prefix).lstrip("\\") if prefix is not None else ""
            return [ImportEntry(module=module, names=names, line=_line(node))] if module else []
        found = []
        for clause in node.named_children:
            if clause.type == "namespace_use_clause":
                text = node_text(clause).split(" as ")[0].strip()
                text = text.removeprefix("function ").removeprefix("const ").strip().lstrip("\\")
                module, _, last = text.rpartition("\\")
                found.append(
                    ImportEntry(
                        module=module or text, names=(last,) if module else (), line=_line(node)
                    )
                )
        return found
    expression = node.named_children[0] if node.named_children else None
    if expression is None or not expression.type.startswith(("require", "include")):
        return []
    strings = [c for c in _descendants(expression) if c.type in ("string", "encapsed_string")]
    if not strings:
        return []
    return [ImportEntry(module=_unquote(node_text(strings[-1])), local=True, line=_line(node))]


def _descendants(node: Node) -> list[Node]:
    found: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.named_children)
    return found


_READERS: dict[str, Callable[[Node], list[ImportEntry]]] = {
    "python": _python,
    "javascript": _js,
    "typescript": _js,
    "tsx": _js,
    "go": _go,
    "rust": _rust,
    "java": _java,
    "c": _c,
    "cpp": _c,
    "ruby": _ruby,
    "csharp": _csharp,
    "php": _php,
}


def read_imports(language: str, node: Node) -> list[ImportEntry]:
    """The imports one statement node of ``language`` makes (empty when it makes none)."""
    reader = _READERS.get(language)
    return reader(node) if reader is not None else []
