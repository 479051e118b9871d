"""The syntax-tree walk behind :func:`agentprompt.repo.symbols.extract_symbols`.

One walker serves every language: a per-language grammar table
(:mod:`agentprompt.repo.symbols._grammars`) names which node types define classes,
functions, variables, class members and imports, and which are only wrappers to look
inside (exports, decorators, namespaces, error-recovery nodes). The walk never enters
function bodies, so its cost grows with the number of definitions, not with the size of
the code.

A names-only walk (for ranking, which reads only what each file defines and where) is the
same walk with the costly readings skipped: signatures, parameters, return types, calls,
bases, most markers and imports. It shares every step with the full walk, so the names,
kinds, lines and parents it finds cannot drift from the full walk's.
"""

from __future__ import annotations

from tree_sitter import Node

from agentprompt.repo.symbols._grammars import GRAMMARS, node_roles
from agentprompt.repo.symbols._imports import read_imports
from agentprompt.repo.symbols._params import read_params
from agentprompt.repo.symbols._recover import nested_definitions, recover_lines
from agentprompt.repo.symbols._signatures import (
    FUNCTION_VALUES,
    chained_declarator,
    code_text,
    collapse,
    declarator_name,
    declared_names,
    decorator_markers,
    function_name,
    has_keyword,
    is_accessor,
    node_text,
    read_bases,
    read_returns,
    ruby_attributes,
    signature_nodes,
)
from agentprompt.repo.symbols._walkstate import WalkState
from agentprompt.repo.symbols.entries import ImportEntry, SymbolEntry

__all__ = ["walk_tree"]

_NO_IMPORTS: frozenset[int] = frozenset()
"""The import node types looked for in class bodies and by a names-only walk: none."""
_FIELDS = frozenset(
    {"property_signature", "public_field_definition", "field_definition", "property_declaration"}
)
"""Class members declaring one named field (PHP's ``property_declaration`` may declare
several)."""
_OPTIONAL = ("optional",)


def walk_tree(
    language: str,
    root: Node,
    source: bytes,
    *,
    names_only: bool = False,
    code: bytes | None = None,
) -> tuple[tuple[SymbolEntry, ...], tuple[ImportEntry, ...]]:
    """The definitions and imports found in a parsed file.

    With ``names_only`` the definitions keep only their kind, name, lines, parent and depth
    (the rest is left at its default) and no imports are read: what ranking a cold map
    needs, at a fraction of the cost. ``code`` is ``source`` with its comments and string
    text blanked, byte for byte, which calls are read from (``source`` itself when None)."""
    grammar = GRAMMARS.get(language)
    if grammar is None:
        return (), ()
    walk = WalkState(
        language=language,
        grammar=grammar,
        roles=node_roles(language),
        source=source,
        code=source if code is None else code,
        names_only=names_only,
    )
    _visit(walk, root, None, 0, False, ())
    if root.has_error:
        walk.symbols.sort(key=lambda s: s.line)  # recovery may find definitions out of order
    return tuple(walk.symbols), tuple(walk.imports)


def _visit(
    walk: WalkState,
    node: Node,
    parent: str | None,
    depth: int,
    in_class: bool,
    markers: tuple[str, ...],
) -> None:
    roles = walk.roles.inside_class if in_class else walk.roles.outside_class
    imports = _NO_IMPORTS if in_class or walk.names_only else walk.roles.imports
    for child in node.named_children:
        kind = child.kind_id
        if kind in imports:
            walk.imports.extend(read_imports(walk.language, child))
        role = roles.get(kind)
        if role is None:
            continue
        if role == "function":  # the commonest first
            _function(walk, child, parent, depth, in_class, markers)
        elif role == "wrapper":
            _wrapper(walk, child, parent, depth, in_class, markers, node.type == "ERROR")
        elif role == "class":
            _class(walk, child, parent, depth, markers)
        elif role == "member":
            _member(walk, child, parent, depth)
        elif role == "variable":
            _variable(walk, child, parent, depth, markers)
        else:
            _visit(walk, child, parent, depth, in_class, markers)


def _wrapper(
    walk: WalkState,
    node: Node,
    parent: str | None,
    depth: int,
    in_class: bool,
    markers: tuple[str, ...],
    in_error: bool,
) -> None:
    """A node whose children the walk reads as its own (``in_error``: its parent is an
    error-recovery node, known here because ``Node.parent`` walks down from the root)."""
    kind = node.type
    if kind == "if_statement" and "__main__" in node_text(node.child_by_field_name("condition")):
        return
    if kind == "singleton_class":
        markers = (*markers, "static")  # Ruby's ``class << self``: class methods
    elif kind == "export_statement":
        markers = markers if "exported" in markers else (*markers, "exported")
        if any(c.type == "default" for c in node.children):
            _default_export(walk, node, parent, depth, markers)
    elif kind == "decorated_definition":
        markers = (*markers, *decorator_markers(node))
    elif kind == "impl_item":
        target = node_text(node.child_by_field_name("type")).split("<")[0]
        body = node.child_by_field_name("body")
        if body is not None and target:
            qual = f"{parent}.{target}" if parent else target
            _visit(walk, body, qual, depth + 1, True, ())
        return
    _visit(walk, node, parent, depth, in_class, markers)
    if kind == "ERROR":
        _recover(walk, node, parent, depth, in_class, markers, outermost=not in_error)


def _recover(
    walk: WalkState,
    node: Node,
    parent: str | None,
    depth: int,
    in_class: bool,
    markers: tuple[str, ...],
    *,
    outermost: bool,
) -> None:
    """Named definitions an error-recovery node holds below children the walk skips (a
    parser that lost its way may nest ``function later() {}`` inside a broken expression),
    and for JavaScript those it lost the structure of (read from its lines)."""
    for current in nested_definitions(walk.grammar, node):
        if current.type in walk.grammar.classes:
            _class(walk, current, parent, depth, markers)
        else:
            _function(walk, current, parent, depth, in_class, markers)
    if walk.language in ("javascript", "typescript", "tsx") and not in_class and outermost:
        recover_lines(walk, node, parent, depth, markers)


def _default_export(
    walk: WalkState, node: Node, parent: str | None, depth: int, markers: tuple[str, ...]
) -> None:
    """``export default`` of something without a name of its own: listed as ``default``."""
    value = node.child_by_field_name("value") or node.child_by_field_name("declaration")
    if value is None or value.child_by_field_name("name") is not None:
        return
    if value.type in ("class", "class_declaration"):
        _class(walk, value, parent, depth, markers, name="default")
    elif value.type in FUNCTION_VALUES:
        _arrow(walk, node, value, "default", parent, depth, markers)
    elif value.type != "identifier":
        walk.add(node, "variable", "default", parent, depth, markers=markers)


def _class(
    walk: WalkState,
    node: Node,
    parent: str | None,
    depth: int,
    markers: tuple[str, ...],
    *,
    name: str = "",
) -> None:
    name_node = node.child_by_field_name("name")
    name = node_text(name_node) or name
    if walk.language in ("c", "cpp") and node.child_by_field_name("body") is None:
        return
    if walk.language == "go" and node.type == "type_spec":
        inner = node.child_by_field_name("type")
        body = (
            inner if inner is not None and inner.type in ("struct_type", "interface_type") else None
        )
    else:
        body = node.child_by_field_name("body")
    if walk.names_only:
        walk.add(node, "class", name, parent, depth)
    else:
        walk.add(node, "class", name, parent, depth, bases=read_bases(node), markers=markers)
    if not name:
        return
    qual = f"{parent}.{name}" if parent else name
    if body is not None:
        _visit(walk, body, qual, depth + 1, True, ())
    elif walk.language == "ruby":
        _visit(walk, node, qual, depth + 1, True, ())


def _function(
    walk: WalkState,
    node: Node,
    parent: str | None,
    depth: int,
    in_class: bool,
    markers: tuple[str, ...],
) -> None:
    name, owner, holder = function_name(walk.language, node)
    if not name:
        return
    if owner and not parent:
        if f"{owner}.{name}" in walk.declared:
            return
        parent, depth, in_class = owner, depth + 1, True
    if "declaration" in markers and parent:
        walk.declared.add(f"{parent}.{name}")
    start = node.start_byte
    prefix = walk.source[start : start + 200].split(b"(", 1)[0]
    is_async = has_keyword(b"async", prefix)
    is_getter = walk.language in ("javascript", "typescript", "tsx") and is_accessor(prefix)
    kind = "property" if "property" in markers or is_getter else _callable(in_class, is_async)
    if walk.names_only:
        walk.add(node, kind, name, parent, depth)
        return
    marks = list(markers)
    if "property" in marks:
        marks.remove("property")  # it made the kind (a second one stays a marker)
    if has_keyword(b"static", prefix) or node.type == "singleton_method":
        marks.append("static")
    if has_keyword(b"abstract", prefix) or node.type == "abstract_method_signature":
        marks.append("abstract")
    params_node, returns_node = signature_nodes(walk.language, node, holder)
    params = read_params(walk.language, params_node, method=in_class)
    returns = read_returns(returns_node)
    signature = collapse(code_text(params_node))
    if returns:
        signature += f" -> {collapse(code_text(returns_node)).lstrip(':').strip()}"
    walk.add(
        node,
        kind,
        name,
        parent,
        depth,
        signature=signature,
        params=params,
        returns=returns,
        markers=tuple(dict.fromkeys(marks)),
        calls=walk.calls(node, name),
    )


def _variable(
    walk: WalkState, node: Node, parent: str | None, depth: int, markers: tuple[str, ...]
) -> None:
    kind = node.type
    if kind == "assignment_expression":
        _commonjs_export(walk, node, parent, depth, markers)
        return
    if kind == "type_definition":
        _typedef(walk, node, parent, depth, markers)
        return
    if kind == "declaration":
        declarator = chained_declarator(node, ("function_declarator", "identifier"))
        if declarator is not None and declarator.type == "function_declarator":
            _function(walk, node, parent, depth, False, (*markers, "declaration"))
            return
        for part in node.children_by_field_name("declarator"):
            walk.add(node, "variable", node_text(declarator_name(part)), parent, depth)
        return
    for name, holder in declared_names(node, kind):
        value = holder.child_by_field_name("value") or holder.child_by_field_name("right")
        if value is not None and value.type in FUNCTION_VALUES:
            _arrow(walk, node, value, name, parent, depth, markers)
        else:
            # Only Go's grammar has specs (a grouped declaration spans them all).
            go_spec = walk.language == "go" and holder.type in ("const_spec", "var_spec")
            spec = holder if go_spec else node
            walk.add(spec, "variable", name, parent, depth, markers=markers)


def _typedef(
    walk: WalkState, node: Node, parent: str | None, depth: int, markers: tuple[str, ...]
) -> None:
    """``typedef struct {...} name``: the struct as a class (named after the typedef when it
    has no name of its own) with its fields; other typedef names as variables."""
    names = [node_text(declarator_name(d)) for d in node.children_by_field_name("declarator")]
    names = [n for n in names if n]
    kind = node.child_by_field_name("type")
    if kind is not None and kind.type in walk.grammar.classes and kind.child_by_field_name("body"):
        if kind.child_by_field_name("name") is None and names:
            _class(walk, kind, parent, depth, markers, name=names.pop(0))
        else:
            _class(walk, kind, parent, depth, markers)
    for name in names:
        walk.add(node, "variable", name, parent, depth, markers=markers)


def _commonjs_export(
    walk: WalkState, node: Node, parent: str | None, depth: int, markers: tuple[str, ...]
) -> None:
    """``exports.name = ...`` and ``module.exports.name = ...`` define ``name``;
    ``module.exports = ...`` defines ``exports``."""
    target = node_text(node.child_by_field_name("left"))
    if target == "module.exports":
        name = "exports"
    elif target.startswith(("exports.", "module.exports.")) and target.count(".") in (1, 2):
        name = target.rsplit(".", 1)[-1]
    else:
        return
    value = node.child_by_field_name("right")
    marks = (*markers, "exported")
    if value is not None and value.type in FUNCTION_VALUES:
        _arrow(walk, node, value, name, parent, depth, marks)
    elif value is not None and value.type == "class":
        _class(walk, value, parent, depth, marks, name=name)
    else:
        walk.add(node, "variable", name, parent, depth, markers=marks)


def _arrow(
    walk: WalkState,
    node: Node,
    value: Node,
    name: str,
    parent: str | None,
    depth: int,
    markers: tuple[str, ...],
    *,
    in_class: bool = False,
) -> None:
    is_async = walk.source[value.start_byte : value.start_byte + 5] == b"async"
    kind = _callable(in_class, is_async)
    if walk.names_only:
        walk.add(node, kind, name, parent, depth)
        return
    params = value.child_by_field_name("parameters") or value.child_by_field_name("parameter")
    returns_node = value.child_by_field_name("return_type")
    returns = read_returns(returns_node)
    signature = collapse(code_text(params))
    if returns:
        signature += f" -> {returns}"
    walk.add(
        node,
        kind,
        name,
        parent,
        depth,
        signature=signature,
        params=read_params(walk.language, params, method=in_class)
        if params is not None and params.type != "identifier"
        else ((node_text(params),) if params else ()),
        returns=returns,
        markers=markers,
        calls=walk.calls(value, name),
    )


def _member(walk: WalkState, node: Node, parent: str | None, depth: int) -> None:
    kind = node.type
    if kind == "call":
        for name in ruby_attributes(node):
            walk.add(node, "property", name, parent, depth)
        return
    if walk.language in ("cpp", "c") and kind in ("field_declaration", "declaration"):
        declarator = chained_declarator(
            node, ("function_declarator", "field_identifier", "identifier")
        )
        if declarator is not None and declarator.type == "function_declarator":
            _function(walk, node, parent, depth, True, ("declaration",))
            return
        if declarator is None:
            return
        for part in node.children_by_field_name("declarator"):
            walk.add(node, "property", node_text(declarator_name(part)), parent, depth)
        return
    if kind in _FIELDS and walk.language != "php":
        name = node_text(node.child_by_field_name("name") or node.child_by_field_name("property"))
        value = node.child_by_field_name("value")
        if value is not None and value.type in FUNCTION_VALUES:
            _arrow(walk, node, value, name, parent, depth, (), in_class=True)
        elif walk.names_only:
            walk.add(node, "property", name, parent, depth)
        else:
            text = walk.source[node.start_byte : node.end_byte]
            optional = b"?" in text.split(b":", 1)[0].split(b"=", 1)[0]
            walk.add(node, "property", name, parent, depth, markers=_OPTIONAL if optional else ())
        return
    if kind == "field_declaration" and walk.language in ("go", "rust"):
        for i, part in enumerate(node.children):
            if node.field_name_for_child(i) == "name":
                walk.add(node, "property", node_text(part), parent, depth)
        return
    if kind == "property_declaration" and walk.language == "php":
        declared_type = node.child_by_field_name("type")
        optional = declared_type is not None and declared_type.type == "optional_type"
        for name, _holder in declared_names(node, kind):
            walk.add(node, "property", name, parent, depth, markers=_OPTIONAL if optional else ())
        return
    for name, _holder in declared_names(node, kind):
        walk.add(node, "property", name, parent, depth)


def _callable(in_class: bool, is_async: bool) -> str:
    """The kind of a function or method definition."""
    if in_class:
        return "async method" if is_async else "method"
    return "async function" if is_async else "function"
