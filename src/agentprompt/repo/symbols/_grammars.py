"""Which syntax node types play which part in each language's grammar.

A :class:`Grammar` names the node types that define classes, functions, variables and
class members, that hold imports, that are only wrappers to look inside (exports,
decorators, namespaces, error-recovery nodes), and that are class bodies.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from agentprompt.repo.symbols._languages import tree_sitter_language

__all__ = ["GRAMMARS", "Grammar", "NodeRoles", "Role", "node_roles"]

Role = Literal["wrapper", "class", "function", "member", "variable", "body"]
"""What the walk does with a child node of a given type: look inside a wrapper with the same
parent; read a class, function, member (in class bodies) or variable (outside them); look
inside a class body's part. Strings, not an Enum: the walk compares one per child, and an
Enum member's lookup costs six times a string comparison."""


@dataclass(frozen=True, kw_only=True)
class Grammar:
    """Which node types play which part in one language."""

    classes: frozenset[str] = frozenset()
    """Nodes that define a class-like type."""
    functions: frozenset[str] = frozenset()
    """Nodes that define a function or method."""
    variables: frozenset[str] = frozenset()
    """Module-level nodes that declare variables."""
    members: frozenset[str] = frozenset()
    """Class-body nodes that declare properties or fields."""
    imports: frozenset[str] = frozenset()
    """Nodes that may hold an import."""
    wrappers: frozenset[str] = frozenset({"ERROR"})
    """Nodes to look inside with the same parent."""
    bodies: frozenset[str] = frozenset()
    """Class-body nodes to look inside."""

    def roles(self, in_class: bool) -> dict[str, Role]:
        """Each node type's role in class bodies or outside them (comments have none);
        where a type is in several sets, wrappers come first, then classes, functions,
        members or variables, bodies."""
        ordered: list[tuple[frozenset[str], Role]] = [
            (self.wrappers, "wrapper"),
            (self.classes, "class"),
            (self.functions, "function"),
        ]
        if in_class:
            ordered += [(self.members, "member"), (self.bodies, "body")]
        else:
            ordered.append((self.variables, "variable"))
        roles: dict[str, Role] = {}
        for kinds, role in reversed(ordered):
            roles.update(dict.fromkeys(kinds, role))
        roles.pop("comment", None)
        return roles


@dataclass(frozen=True, kw_only=True)
class NodeRoles:
    """A grammar's roles by node kind id (``Node.kind_id``), which the walk looks up for
    every child of every place definitions live: one dictionary lookup on a number, instead
    of making the type's name (``Node.type`` builds a new string) and up to six set tests."""

    outside_class: dict[int, Role]
    """Each kind's role outside class bodies."""
    inside_class: dict[int, Role]
    """Each kind's role in class bodies."""
    imports: frozenset[int]
    """The kinds that may hold an import."""


@cache
def node_roles(language: str) -> NodeRoles:
    """The roles of ``language``'s node kinds, by id (``language`` has a grammar)."""
    grammar = GRAMMARS[language]
    tree_sitter = tree_sitter_language(language)
    # A kind id's type name is what ``Node.type`` gives for a node of that id; several ids
    # may share a name (aliases, anonymous twins), and each gets its role. Error-recovery
    # nodes have an id of their own, past the grammar's.
    ids = [*range(tree_sitter.node_kind_count), _ERROR_ID]
    names = {i: tree_sitter.node_kind_for_id(i) for i in ids}

    def by_id(roles: dict[str, Role]) -> dict[int, Role]:
        return {i: roles[name] for i, name in names.items() if name in roles}

    return NodeRoles(
        outside_class=by_id(grammar.roles(False)),
        inside_class=by_id(grammar.roles(True)),
        imports=frozenset(i for i, name in names.items() if name in grammar.imports),
    )


_ERROR_ID = 0xFFFF
"""The kind id of tree-sitter's ``ERROR`` nodes in every grammar (``ts_builtin_sym_error``)."""


def _fs(*names: str) -> frozenset[str]:
    return frozenset(names)


_JS = Grammar(
    classes=_fs(
        "class_declaration", "class", "abstract_class_declaration", "interface_declaration"
    ),
    functions=_fs(
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_signature",
        "abstract_method_signature",
        "function_signature",
    ),
    variables=_fs("lexical_declaration", "variable_declaration", "assignment_expression"),
    members=_fs("field_definition", "public_field_definition", "property_signature"),
    imports=_fs(
        "import_statement", "export_statement", "lexical_declaration", "variable_declaration"
    ),
    # Namespaces (``namespace X {}``, ``declare module "m" {}``) are looked into: their
    # statement blocks hold definitions; function bodies are never entered.
    wrappers=_fs(
        "ERROR",
        "export_statement",
        "ambient_declaration",
        "internal_module",
        "module",
        "expression_statement",
        "statement_block",
    ),
    bodies=_fs("class_body", "interface_body", "object_type", "statement_block"),
)
_TS = Grammar(
    classes=_JS.classes | _fs("enum_declaration", "type_alias_declaration"),
    functions=_JS.functions,
    variables=_JS.variables,
    members=_JS.members,
    imports=_JS.imports,
    wrappers=_JS.wrappers,
    bodies=_JS.bodies,
)
GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        classes=_fs("class_definition"),
        functions=_fs("function_definition"),
        variables=_fs("expression_statement"),
        members=_fs("expression_statement"),
        imports=_fs("import_statement", "import_from_statement", "future_import_statement"),
        # Conditional definitions and imports (``if TYPE_CHECKING:``, ``try: import x
        # except ImportError:``) are looked into; ``if __name__ == "__main__":`` is not.
        wrappers=_fs(
            "ERROR",
            "decorated_definition",
            "if_statement",
            "elif_clause",
            "else_clause",
            "try_statement",
            "except_clause",
            "finally_clause",
            "block",
        ),
        bodies=_fs("block"),
    ),
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": Grammar(
        classes=_fs("type_spec", "type_alias"),
        functions=_fs("function_declaration", "method_declaration", "method_elem"),
        variables=_fs("const_declaration", "var_declaration"),
        members=_fs("field_declaration"),
        imports=_fs("import_declaration"),
        wrappers=_fs("ERROR", "type_declaration"),
        bodies=_fs("struct_type", "interface_type", "field_declaration_list"),
    ),
    "rust": Grammar(
        classes=_fs("struct_item", "enum_item", "trait_item", "union_item", "type_item"),
        functions=_fs("function_item", "function_signature_item"),
        variables=_fs("const_item", "static_item"),
        members=_fs("field_declaration"),
        imports=_fs("use_declaration", "extern_crate_declaration"),
        wrappers=_fs("ERROR", "mod_item", "declaration_list", "impl_item"),
        bodies=_fs("field_declaration_list", "declaration_list"),
    ),
    "java": Grammar(
        classes=_fs(
            "class_declaration",
            "interface_declaration",
            "enum_declaration",
            "record_declaration",
            "annotation_type_declaration",
        ),
        functions=_fs("method_declaration", "constructor_declaration"),
        members=_fs("field_declaration", "constant_declaration"),
        imports=_fs("import_declaration"),
        bodies=_fs("class_body", "interface_body", "enum_body", "enum_body_declarations"),
    ),
    "c": Grammar(
        classes=_fs("struct_specifier", "union_specifier", "enum_specifier"),
        functions=_fs("function_definition"),
        variables=_fs("declaration", "preproc_def", "preproc_function_def", "type_definition"),
        members=_fs("field_declaration"),
        imports=_fs("preproc_include"),
        wrappers=_fs(
            "ERROR", "preproc_ifdef", "preproc_if", "preproc_else", "linkage_specification"
        ),
        bodies=_fs("field_declaration_list", "declaration_list"),
    ),
    "cpp": Grammar(
        classes=_fs("class_specifier", "struct_specifier", "union_specifier", "enum_specifier"),
        functions=_fs("function_definition"),
        variables=_fs("declaration", "preproc_def", "preproc_function_def", "type_definition"),
        members=_fs("field_declaration", "declaration"),
        imports=_fs("preproc_include"),
        wrappers=_fs(
            "ERROR",
            "namespace_definition",
            "template_declaration",
            "preproc_ifdef",
            "preproc_if",
            "preproc_else",
            "linkage_specification",
            "declaration_list",
        ),
        bodies=_fs("field_declaration_list", "declaration_list"),
    ),
    "ruby": Grammar(
        classes=_fs("class", "module"),
        functions=_fs("method", "singleton_method"),
        variables=_fs("assignment"),
        members=_fs("assignment", "call"),
        imports=_fs("call"),
        wrappers=_fs("ERROR", "body_statement", "singleton_class"),
        bodies=_fs("body_statement"),
    ),
    "csharp": Grammar(
        classes=_fs(
            "class_declaration",
            "interface_declaration",
            "struct_declaration",
            "enum_declaration",
            "record_declaration",
        ),
        functions=_fs(
            "method_declaration",
            "constructor_declaration",
            "local_function_statement",
            "operator_declaration",
        ),
        members=_fs("field_declaration", "property_declaration", "event_field_declaration"),
        imports=_fs("using_directive"),
        wrappers=_fs(
            "ERROR",
            "namespace_declaration",
            "file_scoped_namespace_declaration",
            "declaration_list",
        ),
        bodies=_fs("declaration_list"),
    ),
    "php": Grammar(
        classes=_fs(
            "class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"
        ),
        functions=_fs("function_definition", "method_declaration"),
        variables=_fs("const_declaration"),
        members=_fs("property_declaration", "const_declaration"),
        imports=_fs("namespace_use_declaration", "expression_statement"),
        wrappers=_fs("ERROR", "namespace_definition", "compound_statement"),
        bodies=_fs("declaration_list"),
    ),
}
