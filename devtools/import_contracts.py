"""Four import-linter contract types the built-in ones cannot state (``make lint`` runs them).

- ``sealed_packages``: every subpackage of a container (less the ones listed as ``open``) is
  entered from outside only through its ``__init__``: ``from ddbmodels import issues`` or
  ``from ddbmodels.issues import issue_create``, never ``from ddbmodels.issues.model import …``.
  The container itself may re-export (``ddbmodels/__init__``). One contract covers every table
  package, present and future, so a new one is sealed without anyone remembering to add it.
- ``no_private_names``: no module takes a private name (``_name``, not ``__dunder__``) of another
  module: ``from x import _name``, ``import x._y`` or ``x._name`` where ``x`` is a module of ours.
  A name used across modules is public; give it a public name. Names are invisible to the import
  graph, so this one reads each module's source (``ast``).
- ``names_only``: ``importers`` take from ``sources`` only names that start with a capital (an
  error class, an item type, a constant) or are listed in ``allowed_names``: no function, no
  module (``from ddbmodels import issues``, ``import ddbmodels.core.items``). Views take named
  errors and constants from ddbmodels, and call selectors and services for everything else.
  With ``forbidden_attributes``, no importer reads one of those attributes of a name it took from
  ``sources`` (``IssueItem.get(...)``, ``OrderItem.query``, ``Membership.objects``): an item type
  or a model is for annotations, ``isinstance`` and its constants, never a read or a write of its
  table.
- ``allowed_imports``: an allowlist. Every import of ``importers`` (read from the source, so an
  external package's submodule counts: ``django.db`` is not ``django.utils``) is under one of
  ``allowed`` (a module, or ``module.Name`` for one name of it), or is the standard library when
  ``allow_stdlib``; and under none of ``forbidden`` (carved out of what ``allowed`` lets in).
  Imports under ``if TYPE_CHECKING:`` are annotations and are skipped, as the built-in contracts
  skip them (``exclude_type_checking_imports``). The built-in ``forbidden`` type is a blocklist and
  cannot name an external package's submodule.

Configured in ``pyproject.toml`` (``[tool.importlinter]``, ``contract_types``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any, cast

import grimp
from importlinter import Contract, ContractCheck, fields, output
from importlinter.application import contract_utils


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


class SealedPackagesContract(Contract):
    """Subpackages of ``containers`` (less ``open``) are imported from outside only through ``__init__``."""

    type_name = "sealed_packages"

    containers = fields.ListField(subfield=fields.StringField())
    open = fields.SetField(subfield=fields.StringField(), required=False)
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)
    unmatched_ignore_imports_alerting = fields.EnumField(
        contract_utils.AlertLevel, default=contract_utils.AlertLevel.ERROR
    )

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph,
            ignore_imports=self.ignore_imports,  # type: ignore[arg-type]
            unmatched_alerting=self.unmatched_ignore_imports_alerting,  # type: ignore[arg-type]
        )
        open_tails = set(cast("set[str]", self.open or set()))
        illegal: list[dict[str, Any]] = []
        for container in self.containers:  # type: ignore[attr-defined]
            for package in sorted(graph.find_children(container)):
                if package.rsplit(".", 1)[1] in open_tails or not graph.find_children(package):
                    continue  # open by design, or a plain module (nothing inside to reach into)
                inside = graph.find_descendants(package)
                for internal in sorted(inside):
                    for importer in sorted(graph.find_modules_that_directly_import(internal)):
                        if importer in inside or importer in (package, container):
                            continue
                        lines = [
                            d["line_number"] for d in graph.get_import_details(importer=importer, imported=internal)
                        ]
                        illegal.append({"importer": importer, "imported": internal, "lines": lines, "package": package})
        return ContractCheck(
            kept=not illegal,
            warnings=list(removal.warnings),
            ignored_import_count=removal.ignored_import_count,
            metadata={"illegal": illegal},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Reached past a package's __init__ (import the package, or have it export the name):")
        output.new_line()
        for link in check.metadata["illegal"]:
            lines = ", ".join(map(str, link["lines"]))
            output.print_error(f"- {link['importer']} -> {link['imported']} (l.{lines})", bold=False)
        output.new_line()


class NoPrivateNamesContract(Contract):
    """No module of ``root_packages`` takes another module's private name."""

    type_name = "no_private_names"

    packages = fields.ListField(subfield=fields.StringField())
    ignore_names = fields.SetField(subfield=fields.StringField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        ours = with_descendants(graph, cast("list[str]", self.packages))
        allowed = set(cast("set[str]", self.ignore_names or set()))
        found = [
            found
            for module in sorted(ours)
            for found in private_names_taken(module, ours)
            if f"{module}:{found['name']}" not in allowed
        ]
        return ContractCheck(kept=not found, warnings=[], metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        print_found("Private names taken from another module (make them public, or keep them at home):", check)


class NamesOnlyContract(Contract):
    """``importers`` take from ``sources`` only capitalised names (errors, types, constants) or ``allowed_names``."""

    type_name = "names_only"

    importers = fields.ListField(subfield=fields.StringField())
    sources = fields.ListField(subfield=fields.StringField())
    allowed_names = fields.SetField(subfield=fields.StringField(), required=False)
    forbidden_attributes = fields.SetField(subfield=fields.StringField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        modules = with_descendants(graph, cast("list[str]", self.importers))
        allowed = set(cast("set[str]", self.allowed_names or set()))
        sources = tuple(cast("list[str]", self.sources))
        found = [
            item
            for module in sorted(modules)
            for item in names_taken(module, sources)
            if not item["name"].rpartition(".")[2][:1].isupper() and item["name"].rpartition(".")[2] not in allowed
        ]
        methods = set(cast("set[str]", self.forbidden_attributes or set()))
        calls = [call for module in sorted(modules) for call in attributes_read(module, sources, methods)]
        return ContractCheck(kept=not (found or calls), warnings=[], metadata={"found": found, "calls": calls})

    def render_broken_contract(self, check: ContractCheck) -> None:
        if check.metadata["found"]:
            print_found(
                "Functions or modules taken (call a selector or service; take errors, types, constants):", check
            )
        if check.metadata["calls"]:
            print_found("A table read or written through an item type (call a selector or service):", check, "calls")


class AllowedImportsContract(Contract):
    """``importers`` import only what ``allowed`` lists (and the standard library), less ``forbidden``."""

    type_name = "allowed_imports"

    importers = fields.ListField(subfield=fields.StringField())
    allowed = fields.ListField(subfield=fields.StringField())
    forbidden = fields.ListField(subfield=fields.StringField(), required=False)
    allow_stdlib = fields.BooleanField(required=False, default=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        modules = with_descendants(graph, cast("list[str]", self.importers))
        allowed = tuple(cast("list[str]", self.allowed))
        forbidden = tuple(cast("list[str]", self.forbidden or []))
        stdlib = bool(self.allow_stdlib)
        found = [
            item
            for module in sorted(modules)
            for item in imports_of(module)
            if under(item["name"], forbidden)
            or not (
                under(item["name"], allowed) or (stdlib and item["name"].partition(".")[0] in sys.stdlib_module_names)
            )
        ]
        return ContractCheck(kept=not found, warnings=[], metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        print_found("Imports outside the allowlist (or inside what it forbids):", check)


def with_descendants(graph: grimp.ImportGraph, packages: list[str]) -> set[str]:
    """``packages`` and every module inside them."""
    modules: set[str] = set()
    for package in packages:
        modules |= {package, *graph.find_descendants(package)}
    return modules


def print_found(title: str, check: ContractCheck, key: str = "found") -> None:
    """``title``, then each ``{module, line, name}`` of ``check.metadata[key]`` on a line of its own."""
    output.print_error(title)
    output.new_line()
    for item in check.metadata[key]:
        output.print_error(f"- {item['module']} (l.{item['line']}): {item['name']}", bold=False)
    output.new_line()


def under(name: str, prefixes: tuple[str, ...]) -> bool:
    """``name`` is one of ``prefixes`` or inside one (``a.b.c`` is under ``a.b``, ``a.bc`` is not)."""
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def run_time_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` but those under ``if TYPE_CHECKING:`` (annotations only)."""
    nodes: list[ast.AST] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}:
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def imports_of(module: str) -> list[dict[str, Any]]:
    """Each run-time import of ``module``: ``import a.b`` as ``a.b``, ``from a import n`` as ``a.n``."""
    source_of = parsed(module)
    if source_of is None:
        return []
    tree, package = source_of
    found: list[dict[str, Any]] = []
    for node in run_time_nodes(tree):
        if isinstance(node, ast.ImportFrom):
            if node.module == "__future__":
                continue
            source = import_source(node, package)
            found += [{"module": module, "line": node.lineno, "name": f"{source}.{a.name}"} for a in node.names]
        elif isinstance(node, ast.Import):
            found += [{"module": module, "line": node.lineno, "name": a.name} for a in node.names]
    return sorted(found, key=lambda item: (item["line"], item["name"]))


def attributes_read(module: str, sources: tuple[str, ...], methods: set[str]) -> list[dict[str, Any]]:
    """Each ``Name.attr`` in ``module`` where ``Name`` was taken from ``sources`` and ``attr`` is listed.

    ``Name`` is any name but an upper-case constant, bound by ``from source import Name [as alias]``.
    """
    source_of = parsed(module)
    if source_of is None or not methods:
        return []
    tree, _ = source_of
    bound: dict[str, str] = {}  # local name -> where it came from
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and under(node.module or "", sources):
            # a CONSTANT (a dict's .get, a list's .count) is no table; a class or a function may be
            bound |= {
                alias.asname or alias.name: f"{node.module}.{alias.name}"
                for alias in node.names
                if not alias.name.isupper()
            }
    found = [
        {"module": module, "line": node.lineno, "name": f"{bound[node.value.id]}.{node.attr}"}
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and node.attr in methods
    ]
    return sorted(found, key=lambda item: (item["line"], item["name"]))


def names_taken(module: str, sources: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each name ``module`` takes from ``sources``: ``from x import n`` as ``x.n``, ``import x`` as ``x``."""
    source_of = parsed(module)
    if source_of is None:
        return []
    tree, _ = source_of
    found: list[dict[str, Any]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and under(node.module or "", sources):
            found += [{"module": module, "line": node.lineno, "name": f"{node.module}.{a.name}"} for a in node.names]
        elif isinstance(node, ast.Import):
            found += [
                {"module": module, "line": node.lineno, "name": a.name} for a in node.names if under(a.name, sources)
            ]
    return found


def parsed(module: str) -> tuple[ast.Module, str] | None:
    """``module``'s syntax tree and the package its relative imports start from (None: not a source of ours)."""
    path = module_file(module)
    if path is None:
        return None
    tree = ast.parse(path.read_text(), filename=str(path))
    return tree, module if path.name == "__init__.py" else module.rpartition(".")[0]


def import_source(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` takes from, a relative one resolved from ``package``."""
    source = node.module or ""
    if node.level:
        parts = package.split(".")
        base = parts[: len(parts) - (node.level - 1)]
        source = ".".join([*base, source] if source else base)
    return source


def module_file(module: str) -> Path | None:
    """The source file of one of our modules (relative to the checkout, where lint runs)."""
    base = Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def private_names_taken(module: str, ours: set[str]) -> list[dict[str, Any]]:
    """Each ``from x import _name``, ``import x._y`` and ``x._name`` (x one of ``ours``) in ``module``."""
    source_of = parsed(module)
    if source_of is None:
        return []
    tree, package = source_of
    found: list[dict[str, Any]] = []
    bound: dict[str, str] = {}  # local name -> our module it is bound to

    def take(line: int, name: str) -> None:
        found.append({"module": module, "line": line, "name": name})

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = import_source(node, package)
            for alias in node.names:
                if _private(alias.name) and source != module:
                    take(node.lineno, f"{source}.{alias.name}")
                if f"{source}.{alias.name}" in ours:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(_private(part) for part in alias.name.split(".")):
                    take(node.lineno, alias.name)
                if alias.name in ours:
                    bound[alias.asname or alias.name] = alias.name if alias.asname else alias.name.split(".")[0]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and bound.get(node.value.id, module) != module
        ):
            take(node.lineno, f"{bound[node.value.id]}.{node.attr}")
    return found
