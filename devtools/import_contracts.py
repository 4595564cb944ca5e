"""Two import-linter contract types the built-in ones cannot state (``make lint`` runs them).

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

Configured in ``pyproject.toml`` (``[tool.importlinter]``, ``contract_types``).
"""

from __future__ import annotations

import ast
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
        ours: set[str] = set()
        for package in self.packages:  # type: ignore[attr-defined]
            ours |= {package, *graph.find_descendants(package)}
        allowed = set(cast("set[str]", self.ignore_names or set()))
        found = [
            found
            for module in sorted(ours)
            for found in private_names_taken(module, ours)
            if f"{module}:{found['name']}" not in allowed
        ]
        return ContractCheck(kept=not found, warnings=[], metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Private names taken from another module (make them public, or keep them at home):")
        output.new_line()
        for item in check.metadata["found"]:
            output.print_error(f"- {item['module']} (l.{item['line']}): {item['name']}", bold=False)
        output.new_line()


class NamesOnlyContract(Contract):
    """``importers`` take from ``sources`` only capitalised names (errors, types, constants) or ``allowed_names``."""

    type_name = "names_only"

    importers = fields.ListField(subfield=fields.StringField())
    sources = fields.ListField(subfield=fields.StringField())
    allowed_names = fields.SetField(subfield=fields.StringField(), required=False)

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        modules: set[str] = set()
        for package in self.importers:  # type: ignore[attr-defined]
            modules |= {package, *graph.find_descendants(package)}
        allowed = set(cast("set[str]", self.allowed_names or set()))
        sources = tuple(cast("list[str]", self.sources))
        found = [
            item
            for module in sorted(modules)
            for item in names_taken(module, sources)
            if not item["name"].rpartition(".")[2][:1].isupper() and item["name"].rpartition(".")[2] not in allowed
        ]
        return ContractCheck(kept=not found, warnings=[], metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        output.print_error("Functions or modules taken (call a selector or service; take errors, types, constants):")
        output.new_line()
        for item in check.metadata["found"]:
            output.print_error(f"- {item['module']} (l.{item['line']}): {item['name']}", bold=False)
        output.new_line()


def names_taken(module: str, sources: tuple[str, ...]) -> list[dict[str, Any]]:
    """Each name ``module`` takes from ``sources``: ``from x import n`` as ``x.n``, ``import x`` as ``x``."""
    path = module_file(module)
    if path is None:
        return []
    tree = ast.parse(path.read_text(), filename=str(path))

    def under(name: str) -> bool:
        return any(name == source or name.startswith(source + ".") for source in sources)

    found: list[dict[str, Any]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and under(node.module or ""):
            found += [{"module": module, "line": node.lineno, "name": f"{node.module}.{a.name}"} for a in node.names]
        elif isinstance(node, ast.Import):
            found += [{"module": module, "line": node.lineno, "name": a.name} for a in node.names if under(a.name)]
    return found


def module_file(module: str) -> Path | None:
    """The source file of one of our modules (relative to the checkout, where lint runs)."""
    base = Path(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def private_names_taken(module: str, ours: set[str]) -> list[dict[str, Any]]:
    """Each ``from x import _name``, ``import x._y`` and ``x._name`` (x one of ``ours``) in ``module``."""
    path = module_file(module)
    if path is None:
        return []
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[dict[str, Any]] = []
    bound: dict[str, str] = {}  # local name -> our module it is bound to

    def take(line: int, name: str) -> None:
        found.append({"module": module, "line": line, "name": name})

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, source] if source else base)
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
