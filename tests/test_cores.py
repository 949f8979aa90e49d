"""One BLAS thread where the models take the cores (citegraph/cores.py): the ``citegraph`` command
sets it before any command runs; a program importing citegraph keeps its own setting."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
from threadpoolctl import threadpool_info
from threadpoolctl import threadpool_limits
threadpool_limits(limits=2, user_api="blas")  # as on a machine of two cores or more
import citegraph
{action}
print(sorted({{i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"}}))
"""


def _blas_threads(action: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(action=action)], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("action", "threads"),
    [
        ("pass", "[2]"),  # imported as a library: left as the program set it
        ("from citegraph.cores import one_blas_thread; one_blas_thread()", "[1]"),
        # the command, on an empty store: the group sets it before the command runs
        ("from citegraph.cli import main; main(['--config', 'none.toml', 'documents', '--db', 'cg.db'], standalone_mode=False)", "[1]"),
    ],
)
def test_the_command_gives_blas_one_thread_and_the_library_leaves_it(action: str, threads: str, tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("", encoding="utf-8")
    assert _blas_threads(action, tmp_path) == threads
