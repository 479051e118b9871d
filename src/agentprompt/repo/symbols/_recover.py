"""Reading what a parser that lost its way still holds: definitions below error nodes.

tree-sitter wraps code it cannot parse in ``ERROR`` nodes; the definitions after the error
may then sit below expressions the walk never enters, or (in JavaScript) lose their
structure altogether. These helpers find them again.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from agentprompt.repo.symbols._grammars import Grammar
from agentprompt.repo.symbols._walkstate import WalkState
from agentprompt.repo.symbols.entries import SymbolEntry

__all__ = ["nested_definitions", "recover_lines"]

_NAMED_FUNCTION_VALUES = frozenset({"function_expression", "generator_function"})


def nested_definitions(grammar: Grammar, node: Node) -> list[Node]:
    """Named class and function nodes below the children of the error node ``node`` that
    the walk itself skips, in source order (not looking inside what they define)."""
    seen = grammar.classes | grammar.functions | grammar.wrappers | grammar.variables
    seen |= grammar.members | grammar.imports
    found: list[Node] = []
    stack = [c for c in reversed(node.named_children) if c.type not in seen]
    while stack:
        current = stack.pop()
        kind = current.type
        named = current.child_by_field_name("name") is not None
        if named and (
            kind in grammar.classes or kind in grammar.functions or kind in _NAMED_FUNCTION_VALUES
        ):
            found.append(current)
        else:
            stack.extend(reversed(current.named_children))
    return found


_JS_DEFINITION_LINE = re.compile(
    rb"^(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?"
    rb"(class|function\*?|const|let|var)[ \t]+([A-Za-z_$][\w$]*)([^\n]*)",
    re.MULTILINE,
)


def recover_lines(
    walk: WalkState, node: Node, parent: str | None, depth: int, markers: tuple[str, ...]
) -> None:
    """Definitions a JavaScript error-recovery node lost its structure for, read from the
    lines it spans (``class Broken {`` or ``export const after = (x) => x``); names the
    tree already gave are not repeated."""
    known = {s.name for s in walk.symbols if s.parent == parent}
    start_line = node.start_point[0]
    text = walk.source[node.start_byte : node.end_byte]
    for match in _JS_DEFINITION_LINE.finditer(text):
        keyword, raw_name, rest = match.group(1), match.group(2), match.group(3)
        name = raw_name.decode("utf-8", "replace")
        if name in known:
            continue
        known.add(name)
        line = start_line + text.count(b"\n", 0, match.start()) + 1
        if keyword == b"class":
            kind = "class"
        elif keyword.startswith(b"function") or b"=>" in rest or b"function" in rest:
            kind = "function"
        else:
            kind = "variable"
        walk.symbols.append(
            SymbolEntry(
                kind=kind,
                name=name,
                line=line,
                end_line=line,
                parent=parent,
                depth=depth,
                markers=markers,
            )
        )
