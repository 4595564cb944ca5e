"""Every table package's team-data declaration (``TEAM_DATA`` in its ``__init__``), found by walking ``ddbmodels/``.

A subpackage of ``ddbmodels`` other than ``core``, ``patterns`` and ``tenants`` is a table package; each
declares what it stores for a team (a tuple of ``core.team_data.TeamData``) or that it stores nothing per
team (``NoTeamData(reason)``). One that declares neither is refused here (``MissingDeclaration``, naming
the package and what to add), so offboarding and "does this team still hold data?" never silently skip
a table: ``tests/ddbmodels/tenants/test_team_data.py`` calls ``declarations()`` on the real tree.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path

from ddbmodels.core.team_data import Declaration, NoTeamData, TeamData

NOT_TABLE_PACKAGES = frozenset({"core", "patterns", "tenants"})
ROOT = Path(__file__).resolve().parent.parent


class MissingDeclaration(Exception):
    """A table package that declares neither what it stores for a team nor that it stores nothing per team."""


def table_packages(root: Path = ROOT) -> list[str]:
    """The subpackages of ``root`` that are table packages (every one but core, patterns and tenants), sorted."""
    return sorted(
        info.name for info in pkgutil.iter_modules([str(root)]) if info.ispkg and info.name not in NOT_TABLE_PACKAGES
    )


def declaration_of(package: str) -> Declaration:
    """``<package>.TEAM_DATA`` (through its ``__init__``), checked; MissingDeclaration when it has none."""
    value = getattr(importlib.import_module(package), "TEAM_DATA", None)
    if isinstance(value, NoTeamData):
        return value
    if isinstance(value, tuple) and value and all(isinstance(d, TeamData) for d in value):
        return value
    raise MissingDeclaration(
        f"{package} declares no team data: its __init__ must expose TEAM_DATA = (TeamData(...), ...) "
        "(ddbmodels.core.team_data: how to find, probe and delete what it stores for a team) "
        "or TEAM_DATA = NoTeamData('why nothing it stores belongs to a team')"
    )


def declarations(root: Path = ROOT, package: str = "ddbmodels") -> dict[str, Declaration]:
    """Table package name → its declaration, for every table package under ``root`` (MissingDeclaration else).

    Every package's problem is named at once; part names must be unique (they name archive parts).
    """
    found: dict[str, Declaration] = {}
    missing: list[str] = []
    for name in table_packages(root):
        try:
            found[name] = declaration_of(f"{package}.{name}")
        except MissingDeclaration as error:
            missing.append(str(error))
    if missing:
        raise MissingDeclaration("\n".join(missing))
    parts = [d.part for declared in found.values() if isinstance(declared, tuple) for d in declared]
    doubles = sorted({p for p in parts if parts.count(p) > 1})
    if doubles:
        raise MissingDeclaration(f"part names declared twice: {', '.join(doubles)}")
    return found


@functools.cache
def team_data() -> tuple[TeamData, ...]:
    """Every declared kind of a team's items, the one that lists the team's issues first, then by delete order."""
    every = [d for declared in declarations().values() if isinstance(declared, tuple) for d in declared]
    return tuple(sorted(every, key=lambda d: (not d.lists_issues, d.delete_order, d.part)))


def delete_order(part: str) -> int:
    """Where an archive part (``events-2026-11`` is ``events``'s) comes in the delete order."""
    for declared in team_data():
        if part == declared.part:
            return declared.delete_order
    for declared in team_data():
        if part.startswith(f"{declared.part}-"):
            return declared.delete_order
    raise KeyError(f"no table package declares the archive part {part!r}")
