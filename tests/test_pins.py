"""Set-up works on a machine that has only the package registries: no pin points at a local file.

A ``pip freeze`` of a virtual environment into which a wheel was installed from disk writes
``NAME @ file:///…/NAME-….whl``; CI on the machine that holds that file passes, and every other
machine fails to install. These tests read the files the set-up reads (constraints.txt,
pyproject.toml, the Makefile) and fail on any local file, ``file://`` URL or direct reference.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?==[A-Za-z0-9.+!_-]+$")
# A requirement naming a file, a URL or a folder instead of a registry release.
LOCAL = re.compile(
    r"file:|\s@\s|(^|[\s=\"'])(/|\./|\.\./|~/)[^\s\"']*\.(whl|tar\.gz|zip)\b|--find-links|--index-url|--extra-index-url|-f\s"
)


def _lines(path: Path) -> list[tuple[int, str]]:
    return [(n, line.strip()) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)]


def test_every_constraint_is_a_registry_release() -> None:
    bad = [
        f"constraints.txt:{n}: {line}"
        for n, line in _lines(ROOT / "constraints.txt")
        if line and not line.startswith("#") and not PIN.match(line)
    ]
    assert not bad, "every constraints line must be NAME==VERSION (a registry release):\n" + "\n".join(bad)


def test_pyproject_requirements_name_no_local_file() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"]) + [r for group in project["optional-dependencies"].values() for r in group]
    bad = [r for r in requirements if LOCAL.search(r)]
    assert not bad, f"pyproject.toml names local files or URLs: {bad}"


def test_makefile_installs_from_the_registry_only() -> None:
    bad = [f"Makefile:{n}: {line}" for n, line in _lines(ROOT / "Makefile") if "pip" in line and LOCAL.search(line)]
    assert not bad, "the Makefile's pip commands name local files or other indexes:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "line",
    [
        "scipy @ file:///tmp/sc/scipy-1.17.1-cp311-cp311-manylinux_2_27_x86_64.whl#sha256=43af",
        "torch @ https://download.pytorch.org/whl/cpu/torch-2.13.0.whl",
        "numpy>=1.26",
        "-e /work/main",
        "./wheels/thing-1.0.whl",
    ],
)
def test_the_pin_rule_refuses_what_another_machine_cannot_install(line: str) -> None:
    assert not PIN.match(line)


def test_the_local_rule_catches_files_and_urls() -> None:
    assert LOCAL.search("scipy @ file:///tmp/sc/scipy.whl")
    assert LOCAL.search("pip install /tmp/wheels/thing-1.0-py3-none-any.whl")
    assert LOCAL.search("pip install --find-links /opt/wheels thing")
    assert not LOCAL.search("llama-cpp-python[server]==0.3.36")
    assert not LOCAL.search("$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,llm]'")
