"""The map's functions and methods against Python's own ``ast``, on flask and requests.

Run: ``.venv/bin/python bench/map_accuracy_bench.py [--show N]``.

The pinned source distributions (:data:`SDISTS`) are fetched with ``pip download
--no-binary`` into ``bench/.work/accuracy/`` (git-ignored) and unpacked there once. For
every Python file of each, every function and method the map can show (those defined at
module level or in a class body, however deep in ``if``/``try``/``with`` blocks, but not
inside another function, nor in an ``if __name__ == "__main__":`` block) is read with
:mod:`ast` and with :func:`agentprompt.repo.symbols.extract_symbols` as the map renders it
(``details=True``), matched by name and line, and checked three times:

1. parameters: the map's parameter list (its names with their ``?``, ``*``, ``**`` marks
   and the ``/`` and ``*`` separators) against the one ``ast`` gives, the receiver
   (``self``/``cls`` first in a method) left out. A function the map does not list at all
   counts as wrong.
2. kind: shown as a property (``p``) exactly when a decorator makes it one (``property``,
   ``cached_property``, ``@name.setter``, ``@name.getter``).
3. calls: each name in the map's ``→calls`` is real when ``ast`` finds a ``Call`` of that
   name (``name(...)`` or ``x.name(...)``) in the function's body. A name that is not
   real is counted as *from prose* when the body's code (its tokens, strings and comments
   left out) never names it: it can only have come from a docstring, comment or string.

Prints a table per project and the mismatches, and exits 1 when a project has fewer than
:data:`PARAMS_TARGET` of its functions with the right parameters or any call from prose.
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import sys
import tarfile
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.repo.symbols import SymbolEntry, extract_symbols

WORK = Path(__file__).resolve().parent / ".work" / "accuracy"
"""Where the sdists are downloaded and unpacked."""

SDISTS = {"flask": "3.0.3", "requests": "2.32.3"}
"""The projects measured and their pinned versions."""

PARAMS_TARGET = 0.99
"""The share of functions and methods that must be shown with all their parameters."""

_PROPERTY_DECORATORS = frozenset({"property", "cached_property", "setter", "getter"})
_FUNCTIONS = frozenset({"function", "method", "async function", "async method", "property"})
_RECEIVERS = frozenset({"self", "cls"})


@dataclass(frozen=True, kw_only=True)
class Definition:
    """A function or method as ``ast`` reads it."""

    path: str
    """The file, relative to the project."""
    qualname: str
    """Its name with its enclosing classes."""
    line: int
    """The line of its ``def``."""
    params: tuple[str, ...]
    """Its parameters as the map should show them."""
    is_property: bool
    """Whether a decorator makes it a property (``property``, ``cached_property``, or a
    property's ``setter`` or ``getter``)."""
    calls: frozenset[str]
    """The names its body calls."""
    code_names: frozenset[str]
    """Every name its body's code holds (strings and comments left out)."""


@dataclass(kw_only=True)
class Report:
    """What was found for one project."""

    functions: int = 0
    """Functions and methods ``ast`` found."""
    params_right: int = 0
    """Of those, how many the map shows with exactly the right parameters."""
    kinds_right: int = 0
    """Of those, how many the map shows as a property exactly when one is."""
    calls: int = 0
    """``→calls`` the map gives those functions."""
    calls_real: int = 0
    """Of those, how many ``ast`` confirms."""
    calls_from_prose: int = 0
    """Of those, how many name something only a docstring, comment or string holds."""
    mismatches: list[str] = field(default_factory=list)
    """One line per wrong parameter list or unconfirmed call."""


def _fetch(name: str, version: str) -> Path:
    """The unpacked sdist of ``name==version`` (downloaded and unpacked once)."""
    root = WORK / f"{name}-{version}"
    if root.is_dir():
        return root
    WORK.mkdir(parents=True, exist_ok=True)
    archive = WORK / f"{name}-{version}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"),
                *("--no-binary", ":all:", f"{name}=={version}", "-d", str(WORK)),
            ],
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(WORK, filter="data")
    return root


def _expected_params(
    function: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool
) -> tuple[str, ...]:
    """The parameter list the map should show for ``function``."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    shown = [
        a.arg + ("?" if d is not None else "") for a, d in zip(positional, defaults, strict=True)
    ]
    if arguments.posonlyargs:
        shown.insert(len(arguments.posonlyargs), "/")
    if in_class and positional and positional[0].arg in _RECEIVERS:
        shown.pop(0)
    if arguments.vararg is not None:
        shown.append("*" + arguments.vararg.arg)
    elif arguments.kwonlyargs:
        shown.append("*")
    shown += [
        a.arg + ("?" if d is not None else "")
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
    ]
    if arguments.kwarg is not None:
        shown.append("**" + arguments.kwarg.arg)
    return tuple(shown)


def _decorators(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The last names of ``function``'s decorators (``setter`` for ``@name.setter``)."""
    names = set()
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def _called(body: list[ast.stmt]) -> frozenset[str]:
    names: set[str] = set()
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    names.add(node.func.id)
                elif isinstance(node.func, ast.Attribute):
                    names.add(node.func.attr)
    return frozenset(names)


def _code_names(lines: list[str], body: list[ast.stmt]) -> frozenset[str]:
    """The names in the body's tokens, strings and comments left out (an f-string's fields
    are code, and tokenize gives their names as names on Python 3.12 and later only)."""
    start, end = body[0].lineno, body[-1].end_lineno or body[-1].lineno
    text = "".join(lines[start - 1 : end])
    names: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NAME:
                names.add(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # the body's lines without the def may not stand alone; what was read counts
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.FormattedValue):
                names.update(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name))
                names.update(n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute))
    return frozenset(names)


def _definitions(path: str, source: str) -> Iterator[Definition]:
    """Every function and method the map can show, as ``ast`` reads them."""
    lines = source.splitlines(keepends=True)

    def visit(body: Sequence[ast.AST], prefix: str, in_class: bool) -> Iterator[Definition]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield Definition(
                    path=path,
                    qualname=prefix + node.name,
                    line=node.lineno,
                    params=_expected_params(node, in_class),
                    is_property=bool(_PROPERTY_DECORATORS & _decorators(node)),
                    calls=_called(node.body),
                    code_names=_code_names(lines, node.body),
                )
            elif isinstance(node, ast.ClassDef):
                yield from visit(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
                continue  # a script's main block: the map leaves it out by design
            else:  # blocks (if, try and its handlers, with, for): their statements
                for name in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, name, None)
                    if isinstance(inner, list):
                        yield from visit(inner, prefix, in_class)

    yield from visit(ast.parse(source).body, "", False)


def measure(root: Path) -> Report:
    """Compare the map with ``ast`` for every Python file under ``root``."""
    report = Report()
    for file in sorted(root.rglob("*.py")):
        relative = file.relative_to(root).as_posix()
        data = file.read_bytes()
        try:
            expected = list(_definitions(relative, data.decode("utf-8")))
        except SyntaxError:
            continue  # a file Python cannot read has nothing to compare with
        extracted = extract_symbols(relative, data, details=True)
        found: dict[tuple[str, int], SymbolEntry] = {
            (s.qualname, s.line): s for s in extracted.symbols if s.kind in _FUNCTIONS
        }
        for definition in expected:
            report.functions += 1
            where = f"{relative}:{definition.line} {definition.qualname}"
            symbol = found.get((definition.qualname, definition.line))
            if symbol is None:
                report.mismatches.append(f"{where}: not in the map")
                continue
            if (symbol.kind == "property") == definition.is_property:
                report.kinds_right += 1
            else:
                report.mismatches.append(f"{where}: shown as {symbol.kind}")
            shown = symbol.params if symbol.signature else None
            if shown == definition.params:
                report.params_right += 1
            else:
                report.mismatches.append(
                    f"{where}: params ({','.join(shown or ())}), ast "
                    f"({','.join(definition.params)})"
                )
            for call in symbol.calls:
                report.calls += 1
                if call in definition.calls:
                    report.calls_real += 1
                    continue
                prose = call not in definition.code_names
                report.calls_from_prose += prose
                kind = "call from prose" if prose else "call not confirmed"
                report.mismatches.append(f"{where}: {kind} →{call}")
    return report


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "n/a"


def main() -> None:
    """Measure every project, print the table and mismatches, exit 1 on a missed target."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=40, help="mismatches listed per project")
    args = parser.parse_args()
    reports = {f"{n}-{v}": measure(_fetch(n, v)) for n, v in SDISTS.items()}
    header = (
        "project",
        "functions",
        "params right",
        "property kind right",
        "calls",
        "confirmed",
        "from prose",
    )
    rows = [
        (
            name,
            str(r.functions),
            f"{r.params_right} ({_percent(r.params_right, r.functions)})",
            f"{r.kinds_right} ({_percent(r.kinds_right, r.functions)})",
            str(r.calls),
            f"{r.calls_real} ({_percent(r.calls_real, r.calls)})",
            str(r.calls_from_prose),
        )
        for name, r in reports.items()
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    missed = False
    for name, report in reports.items():
        if report.mismatches:
            print(f"\n{name}: {len(report.mismatches)} mismatches")
            for line in report.mismatches[: args.show]:
                print(f"  {line}")
            if len(report.mismatches) > args.show:
                print(f"  ... {len(report.mismatches) - args.show} more")
        right = report.params_right / report.functions if report.functions else 0.0
        if right < PARAMS_TARGET or report.calls_from_prose:
            missed = True
    if missed:
        print(
            f"\ntarget missed: parameters right for at least {PARAMS_TARGET:.0%} of functions "
            "and no call from prose, in every project"
        )
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
