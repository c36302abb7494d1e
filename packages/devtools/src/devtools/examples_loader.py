"""``examples/bad_pr.py`` as a module, for the scripts that reuse its copy machinery
(copying the working tree, the environment that imports the copy's own code).

examples/ is not a package, so the file is loaded by path, once per process.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from devtools import REPO_ROOT

ROOT = REPO_ROOT
"""The repository."""


def load_bad_pr() -> ModuleType:
    """``examples/bad_pr.py``, loaded once and registered as ``bad_pr``."""
    if "bad_pr" in sys.modules:
        return sys.modules["bad_pr"]
    spec = importlib.util.spec_from_file_location("bad_pr", ROOT / "examples" / "bad_pr.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bad_pr"] = module
    spec.loader.exec_module(module)
    return module
