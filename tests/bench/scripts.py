"""Load a bench script (``bench/<name>.py``: a script, not a package) as a module for its unit tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_script(path: Path, module_name: str) -> ModuleType:
    """Execute ``path`` as the module ``module_name`` (registered in ``sys.modules``: its dataclasses look it up)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
