"""Fan-out on threads that keeps the caller's capacity meters and access-pattern tag."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")


def map_in_threads(fn: Callable[[A], R], args: Iterable[A], *, workers: int) -> list[R]:
    """``[fn(a) for a in args]`` on up to ``workers`` threads, each call in a copy of the caller's context.

    Copying the context makes the caller's ``capacity.measure()`` meters see the threads' calls.
    """
    contexts = [(copy_context(), arg) for arg in args]
    if workers <= 1 or len(contexts) <= 1:
        return [context.run(fn, arg) for context, arg in contexts]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ddb-worker") as pool:
        return list(pool.map(lambda pair: pair[0].run(fn, pair[1]), contexts))
