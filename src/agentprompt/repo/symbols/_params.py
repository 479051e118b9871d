"""Reading a function's parameter names from its parameter-list node.

Each name is marked the way the map shows it: ``?`` for an optional parameter, ``*``,
``**``, ``...`` or ``&`` for a variadic or block one; destructured parameters read as their
names in braces or brackets (``{title,onClose}``), and receivers (a method's leading
``self`` or ``cls``, TypeScript's ``this``) are left out. Python's bare ``*`` and ``/``
stay, as written: they say which parameters a call must name and which it must not.
"""

from __future__ import annotations

from tree_sitter import Node

from agentprompt.repo.symbols._signatures import NAME_TYPES, node_text, present_fields

__all__ = ["read_params"]

_RECEIVERS = frozenset({"self", "cls", "this", "&self", "&mut self", "mut self"})
"""Names a method's first parameter has when it is the receiver, not an argument."""
_SEPARATORS = {"keyword_separator": "*", "positional_separator": "/"}
"""Python's bare ``*`` (keyword-only parameters follow) and ``/`` (positional-only ones
come before), as the map shows them."""
_OPTIONAL_PARAMS = frozenset(
    {
        "default_parameter",
        "typed_default_parameter",
        "optional_parameter",
        "assignment_pattern",
        "optional_parameter_declaration",
    }
)


def read_params(language: str, node: Node | None, *, method: bool = True) -> tuple[str, ...]:
    """Parameter names of a parameter-list node, marked ``?`` optional or ``*``/``**``/
    ``...``/``&`` variadic, with Python's ``*`` and ``/`` separators; a receiver (a
    leading ``self``, ``cls`` or ``this``) left out. ``method`` is False for a Python
    function outside a class, whose leading ``self`` is an ordinary parameter (a bound
    task's, say)."""
    if node is None:
        return ()
    found: list[str] = []
    receiver = _RECEIVERS if method or language != "python" else frozenset()
    for index, child in enumerate(node.named_children):
        kind = child.type
        if kind in _NOT_PARAMS or node.field_name_for_named_child(index) == "type":
            continue  # the type of a C# ``params T[] values`` is no parameter
        if kind == "identifier":  # a bare name (the commonest parameter) has no marks
            name = node_text(child).lstrip("$")
            if language == "csharp" and _after_params(child):
                found.append(f"...{name}")
            elif found or name not in receiver:
                found.append(name)
            continue
        separator = _SEPARATORS.get(kind)
        if separator is not None:
            found.append(separator)
            continue
        names = _param_names(language, child, kind)
        if not found and names and names[0] in receiver:
            names = names[1:]
        if not names:
            if kind == "variadic_parameter":  # C's ``...``, which has no name
                found.append("...")
            continue
        before, after = _param_marks(kind, child)
        for name in names:
            found.append(f"{before}{name}{after}")
    return tuple(found)


def _after_params(name: Node) -> bool:
    """Whether a C# parameter's name follows ``params`` and its type (a variadic array):
    the grammar puts all three in the parameter list itself."""
    declared = name.prev_sibling
    before = declared.prev_sibling if declared is not None else None
    return before is not None and before.type == "params"


_NOT_PARAMS = frozenset({"comment", "self_parameter", "attribute_item"})


def _param_marks(kind: str, node: Node) -> tuple[str, str]:
    """What goes before and after the names a parameter node declares: ``*``, ``**``,
    ``...`` or ``&`` for a variadic one, ``?`` for an optional one."""
    text = node_text(node)
    if kind in ("list_splat_pattern", "splat_parameter") or (
        text.startswith("*") and not text.startswith("**")
    ):
        return "*", ""
    if kind in ("dictionary_splat_pattern", "hash_splat_parameter") or text.startswith("**"):
        return "**", ""
    if "variadic" in kind or kind == "spread_parameter" or text.startswith("..."):
        return "...", ""
    if kind == "block_parameter":
        return "&", ""
    if (
        kind in _OPTIONAL_PARAMS
        or node.child_by_field_name("default_value") is not None
        or (kind == "parameter" and "=" in text)
        or (kind == "required_parameter" and node.child_by_field_name("value"))
        or (kind == "keyword_parameter" and node.child_by_field_name("value"))
        or kind == "optional_parameter"
    ):
        return "", "?"
    return "", ""


_DESTRUCTURED = frozenset({"object_pattern", "array_pattern"})
_WRAPPED_NAMES = frozenset(
    {"variable_declarator", "list_splat_pattern", "dictionary_splat_pattern", "rest_pattern"}
)
"""Nodes inside a parameter that hold its name (its mark was read from the parameter)."""


def _destructured(language: str, node: Node) -> str:
    """A destructured parameter as its names: ``{title,onClose}`` or ``[first,rest]``."""
    names: list[str] = []
    for child in node.named_children:
        kind = child.type
        if kind in ("shorthand_property_identifier_pattern", "identifier"):
            names.append(node_text(child))
        elif kind == "pair_pattern":
            value = child.child_by_field_name("value")
            names.extend(_param_names(language, value) if value is not None else [])
        elif kind in ("object_assignment_pattern", "assignment_pattern"):
            left = child.child_by_field_name("left")
            names.extend(_param_names(language, left) if left is not None else [])
        elif kind == "rest_pattern":
            names.extend(f"...{n}" for n in _param_names(language, child))
        elif kind in _DESTRUCTURED:
            names.append(_destructured(language, child))
    braces = "{}" if node.type == "object_pattern" else "[]"
    return braces[0] + ",".join(names) + braces[1]


def _param_names(language: str, node: Node, kind: str = "") -> list[str]:
    """The names a parameter node declares; ``kind`` is its type when the caller has it
    (reading ``Node.type`` makes a new string each time)."""
    kind = kind or node.type
    if kind in ("identifier", "name", "variable_name"):
        return [node_text(node).lstrip("$")]
    if kind in _DESTRUCTURED:
        return [_destructured(language, node)]
    named = node.named_children
    names = [
        node_text(c).lstrip("$")
        for i, c in enumerate(named)
        if c.type in NAME_TYPES and node.field_name_for_named_child(i) == "name"
    ]
    if names:
        return names
    for field_name in present_fields(language, ("pattern", "declarator", "name", "left")):
        inner = node.child_by_field_name(field_name)
        if inner is not None:
            return _param_names(language, inner)
    for child in named:
        if child.type in ("identifier", "variable_name"):
            return [node_text(child).lstrip("$")]
        if child.type in _WRAPPED_NAMES:  # a typed ``*args: Any``: the name is in the splat
            return _param_names(language, child)
    return []
