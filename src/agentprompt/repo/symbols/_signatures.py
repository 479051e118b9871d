"""Reading names, parameters, return types, bases and declared names from syntax nodes.

These helpers are shared by every language's walk; each knows the handful of field names
and node types the official grammars use for the same idea.
"""

from __future__ import annotations

import re
from functools import cache

from tree_sitter import Node

from agentprompt.repo.symbols._languages import tree_sitter_language

__all__ = [
    "FUNCTION_VALUES",
    "NAME_TYPES",
    "chained_declarator",
    "code_text",
    "collapse",
    "declarator_name",
    "declared_names",
    "decorator_markers",
    "function_name",
    "has_keyword",
    "is_accessor",
    "node_text",
    "present_fields",
    "read_bases",
    "read_returns",
    "ruby_attributes",
    "signature_nodes",
]

NAME_TYPES = frozenset(
    {
        "identifier",
        "type_identifier",
        "field_identifier",
        "property_identifier",
        "constant",
        "name",
        "variable_name",
        "qualified_identifier",
        "destructor_name",
        "operator_name",
        "private_property_identifier",
        "namespace_identifier",
    }
)
_OPTIONAL_RETURN = re.compile(
    r"^(?:Optional\[(.*)\]|Union\[(.*?),\s*None\]|Union\[None,\s*(.*)\])$"
)
_NONE_UNION = re.compile(r"\s*\|\s*(?:None|null|undefined)\b|\b(?:None|null|undefined)\s*\|\s*")


def node_text(node: Node | None) -> str:
    """The source text of ``node`` (empty for None)."""
    text = node.text if node is not None else None
    return "" if text is None else text.decode("utf-8", "replace")


def collapse(text: str) -> str:
    """``text`` with every run of whitespace made one space."""
    return " ".join(text.split())


def code_text(node: Node | None) -> str:
    """The source text of ``node`` with the comments inside it cut out (a parameter list
    may have one after each parameter; it is no part of the signature)."""
    if node is None:
        return ""
    text = node.text or b""
    if b"#" not in text and b"/" not in text:  # no comment can begin without one of them
        return text.decode("utf-8", "replace")
    start = node.start_byte
    parts: list[bytes] = []
    at = 0
    for comment in _comments(node):
        parts.append(text[at : comment.start_byte - start])
        at = comment.end_byte - start
    parts.append(text[at:])
    return b" ".join(parts).decode("utf-8", "replace")


def _comments(node: Node) -> list[Node]:
    """The comment nodes below ``node``, in source order."""
    found: list[Node] = []
    for child in node.children:
        if "comment" in child.type:
            found.append(child)
        elif child.child_count:
            found.extend(_comments(child))
    return found


_BASE_CONTAINERS = frozenset(
    {
        "superclasses",
        "class_heritage",
        "extends_clause",
        "implements_clause",
        "superclass",
        "super_interfaces",
        "type_list",
        "base_class_clause",
        "base_list",
        "base_clause",
        "class_interface_clause",
        "extends_type_clause",
        "argument_list",
    }
)


def read_bases(node: Node) -> tuple[str, ...]:
    """The base classes and interfaces a class node names, generic arguments dropped."""
    found: list[str] = []
    for child in node.named_children:
        if child.type in _BASE_CONTAINERS:
            for part in child.named_children:
                if part.type in _BASE_CONTAINERS:
                    found.extend(
                        node_text(p) for p in part.named_children if p.type != "access_specifier"
                    )
                elif part.type not in ("access_specifier", "keyword_argument", "comment"):
                    found.append(node_text(part))
    return tuple(collapse(b).split("<")[0] for b in found if b)


def _inner_declarator(node: Node) -> Node | None:
    """The next declarator inside a C declarator (a parenthesised one has no field name)."""
    inner = node.child_by_field_name("declarator")
    if inner is None and node.type == "parenthesized_declarator" and node.named_children:
        inner = node.named_children[0]
    return inner


def declarator_name(node: Node | None) -> Node | None:
    """The name inside a C declarator, through pointers, arrays, parentheses and
    function declarators (``*names[]`` is ``names``, ``(*callback_t)(int)`` is
    ``callback_t``)."""
    while node is not None and node.type not in NAME_TYPES:
        node = _inner_declarator(node)
    return node


def chained_declarator(node: Node, ends: tuple[str, ...]) -> Node | None:
    """The first node, down a C or C++ declaration's chain of ``declarator`` fields, whose
    type is one of ``ends`` (a prototype's ``function_declarator``, or the declared name);
    None when the chain ends first."""
    declarator = node.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in ends:
        declarator = declarator.child_by_field_name("declarator")
    return declarator


_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


def _owner_name(owner: str) -> str:
    """The class a qualified C++ name belongs to, template arguments and namespaces dropped
    (``ns::Container<T, N>`` is ``Container``)."""
    previous = None
    while previous != owner:
        previous, owner = owner, _TEMPLATE_ARGS.sub("", owner)
    return owner.rsplit("::", 1)[-1].strip()


def function_name(language: str, node: Node) -> tuple[str, str | None, Node]:
    """Name and owning type (for out-of-class methods) of a function node, and the node
    whose ``parameters`` field holds its parameters (:func:`signature_nodes`)."""
    if language in ("c", "cpp"):
        # The innermost function declarator names the function: in
        # ``void (*signal(int, handler))(int)`` the outer one is the returned pointer's.
        declarator: Node | None = node.child_by_field_name("declarator")
        found = None
        while declarator is not None:
            if declarator.type == "function_declarator":
                found = declarator
            declarator = _inner_declarator(declarator)
        if found is None:
            return "", None, node
        name = node_text(found.child_by_field_name("declarator"))
        if "::" in name:
            owner, name = name.rsplit("::", 1)
            return name, _owner_name(owner), found
        return name, None, found
    name = node_text(node.child_by_field_name("name"))
    if language == "go" and node.type == "method_declaration":
        receiver = node.child_by_field_name("receiver")
        declared = receiver.named_children[0] if receiver and receiver.named_children else None
        kind = declared.child_by_field_name("type") if declared is not None else None
        return name, node_text(kind).lstrip("*").split("[")[0].strip() or None, node
    return name, None, node


@cache
def present_fields(language: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` less the field names ``language``'s grammar has no field for: a node never
    has those, so trying them in turn is wasted work."""
    grammar = tree_sitter_language(language)
    return tuple(name for name in names if grammar.field_id_for_name(name) is not None)


def signature_nodes(language: str, node: Node, holder: Node) -> tuple[Node | None, Node | None]:
    """The parameters node and the return-type node of the function ``node``, whose
    parameters ``holder`` holds (from :func:`function_name`)."""
    params = holder.child_by_field_name("parameters")
    for field_name in present_fields(language, ("return_type", "result", "returns", "type")):
        returns = node.child_by_field_name(field_name)
        if returns is not None:
            return params, returns
    return params, None


def read_returns(node: Node | None) -> str | None:
    """The declared return type of a return-type node, ``?T`` when it may be absent."""
    if node is None:
        return None
    text = collapse(node_text(node)).lstrip(":").strip().strip("\"'")
    if not text or text in ("void", "None", "()", "unit"):
        return None
    optional = _OPTIONAL_RETURN.match(text)
    if optional:
        inner = next(g for g in optional.groups() if g is not None)
        return (
            f"?{inner}"
            if "," not in inner or inner.startswith(("Optional", "Union"))
            else (f"?Union[{inner}]")
        )
    stripped = _NONE_UNION.sub("", text)
    if stripped != text and stripped and not any(c in stripped for c in "<[({"):
        return f"?{stripped}"
    return text


def declared_names(node: Node, kind: str = "") -> list[tuple[str, Node]]:
    """Names declared by a variable or member declaration, with the node holding each value;
    ``kind`` is its type when the caller has it."""
    kind = kind or node.type
    if kind == "expression_statement":
        inner = node.named_child(0) if node.named_child_count else None
        if inner is None or inner.type != "assignment":
            return []
        left = inner.child_by_field_name("left")
        return [(node_text(left), inner)] if left is not None and left.type == "identifier" else []
    if kind == "assignment":
        left = node.child_by_field_name("left")
        return [(node_text(left), node)] if left is not None and left.type == "constant" else []
    if kind in ("preproc_def", "preproc_function_def"):
        return [(node_text(node.child_by_field_name("name")), node)]
    if kind == "type_definition":
        return [
            (node_text(d), node)
            for d in node.children_by_field_name("declarator")
            if d.type == "type_identifier"
        ]
    found: list[tuple[str, Node]] = []
    for child in node.named_children:
        child_kind = child.type
        if child_kind in ("variable_declaration", "var_spec_list"):
            found.extend(declared_names(child, child_kind))
        elif child_kind in _DECLARATORS:
            for i, part in enumerate(child.children):
                if (
                    child.field_name_for_child(i) in ("name", "declarator")
                    and part.type in NAME_TYPES
                ):
                    found.append((node_text(part).lstrip("$"), child))
            if child_kind == "const_element" and child.named_child_count:
                found.append((node_text(child.named_child(0)), child))
        elif child_kind in NAME_TYPES and node.field_name_for_child(_index(node, child)) in (
            "name",
            "declarator",
        ):
            found.append((node_text(child), node))
    return found


_DECLARATORS = frozenset(
    {
        "variable_declarator",
        "init_declarator",
        "const_spec",
        "var_spec",
        "const_element",
        "property_element",
    }
)
"""Nodes declaring one variable each (the name in their ``name`` or ``declarator``)."""


def _index(parent: Node, child: Node) -> int:
    for i, c in enumerate(parent.children):
        if c.id == child.id:
            return i
    return -1


FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function", "lambda"}
)


def decorator_markers(node: Node) -> list[str]:
    """Markers a Python ``decorated_definition`` earns: ``decorated``, and ``property``,
    ``staticmethod``, ``classmethod``, ``abstractmethod`` by its decorators' last names
    (``cached_property`` and ``x.setter``/``x.getter`` make a property too)."""
    # The name is read from the text, as a comment after it (``@property  # type:
    # ignore[misc]``) is part of the decorator's node.
    names = {
        found.group(1)
        for d in node.named_children
        if d.type == "decorator" and (found := _DECORATOR_NAME.match(node_text(d)))
    }
    extra = ["decorated"]
    extra += [
        n for n in ("property", "staticmethod", "classmethod", "abstractmethod") if n in names
    ]
    if names & {"cached_property", "setter", "getter"}:
        extra.append("property")
    return extra


_DECORATOR_NAME = re.compile(r"@\s*(?:[\w]+\s*\.\s*)*(\w+)")
"""A decorator's dotted name; the group is its last part (``setter`` in ``@x.setter``)."""

_RUBY_ATTRIBUTES = frozenset({"attr_reader", "attr_writer", "attr_accessor", "attr"})


def ruby_attributes(node: Node) -> list[str]:
    """The properties a Ruby ``attr_reader :id, :name`` call defines (none for other calls)."""
    if node_text(node.child_by_field_name("method")) not in _RUBY_ATTRIBUTES:
        return []
    arguments = node.child_by_field_name("arguments")
    return [
        node_text(a).lstrip(":")
        for a in (arguments.named_children if arguments is not None else ())
        if a.type == "simple_symbol"
    ]


_KEYWORDS = {
    word: re.compile(rb"\b" + word + rb"\b") for word in (b"async", b"static", b"abstract")
}
_ACCESSOR = re.compile(rb"\b(?:get|set)\s+[#\w$]+\s*$")


def has_keyword(word: bytes, prefix: bytes) -> bool:
    """Whether a definition's ``prefix`` (its text before the parameters) holds ``word``
    (``async``, ``static`` or ``abstract``) as a whole word; the substring test comes first,
    since most definitions have none of them."""
    return word in prefix and _KEYWORDS[word].search(prefix) is not None


def is_accessor(prefix: bytes) -> bool:
    """Whether a JavaScript/TypeScript definition's ``prefix`` makes it a getter or setter."""
    return _ACCESSOR.search(prefix) is not None
