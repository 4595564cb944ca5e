"""A bench script's command line: its parser (``--allow-aws``, ``--quick``), level and count options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

ALLOW_AWS_HELP = "run without DYNAMODB_ENDPOINT_URL, i.e. against real AWS (creates tables, costs money)"


def positive_int(text: str) -> int:
    """An argparse type: an integer ≥ 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be ≥ 1, got {value}")
    return value


def int_list(what: str, maximum: int | None = None) -> Callable[[str], list[int]]:
    """An argparse type: comma-separated integers from 1 (to ``maximum``), at least one; ``what`` names them."""

    def parse(text: str) -> list[int]:
        try:
            levels = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
        if not levels or any(level < 1 or (maximum is not None and level > maximum) for level in levels):
            bounds = "≥ 1" if maximum is None else f"from 1 to {maximum}"
            raise argparse.ArgumentTypeError(f"{what} must be {bounds}, got {text!r}")
        return levels

    return parse


def parser(script: str, doc: str | None) -> argparse.ArgumentParser:
    """A parser for ``bench/<script>.py`` described by its docstring's first line, with ``--allow-aws``."""
    made = argparse.ArgumentParser(prog=f"bench/{script}.py", description=(doc or "").strip().splitlines()[0])
    made.add_argument("--allow-aws", action="store_true", help=ALLOW_AWS_HELP)
    made.add_argument(
        "--quick",
        action="store_true",
        help="small sizes (what `make bench-quick` and `make test` run); options given explicitly still win",
    )
    return made


def quick_sizes(made: argparse.ArgumentParser, args: argparse.Namespace, **sizes: Any) -> argparse.Namespace:
    """With ``--quick``, set each option in ``sizes`` that was left at its default to the small size given.

    ``bench.quick_sizes(parser, args, writers=[1, 4], issues=200)`` after ``parse_args()``: an option
    the caller gave on the command line keeps its value (a value equal to the default counts as left).
    """
    if getattr(args, "quick", False):
        for name, small in sizes.items():
            if getattr(args, name) == made.get_default(name):
                setattr(args, name, small)
    return args


def levels(made: argparse.ArgumentParser, flag: str, default: list[int], help: str, maximum: int | None = None) -> None:
    """An option of comma-separated levels (``--writers 1,4,16``), its default shown in its help."""
    what = flag.lstrip("-").replace("-", " ")
    made.add_argument(
        flag,
        type=int_list(what, maximum),
        default=default,
        metavar="N,N,...",
        help=f"{help} (default: {','.join(map(str, default))})",
    )


def count(made: argparse.ArgumentParser, flag: str, default: int, help: str) -> None:
    """A positive integer option, its default shown in its help."""
    made.add_argument(flag, type=positive_int, default=default, help=f"{help} (default: {default})")
