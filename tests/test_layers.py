"""The import contract of pyproject.toml (layers import downward only, no cycles) holds."""

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def test_import_contract_is_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"  # import-linter's command, from the test extra
    run = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 kept, 0 broken" in run.stdout
