"""The public surface: a curated __all__, and the README's Python example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import citegraph

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_all_is_curated_and_importable() -> None:
    assert sorted(citegraph.__all__) == citegraph.__all__
    for name in citegraph.__all__:
        assert hasattr(citegraph, name), name


def test_readme_python_example_runs(tmp_path: Path, larkspur: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    (code,) = re.findall(r"```python\n(.*?)```", README, re.S)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "handbook").symlink_to(larkspur, target_is_directory=True)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    # Extractive claims quote their spans: the guards and the near-quote check verify them without a model.
    assert printed and all(line.startswith("supported ") for line in printed)
    assert any("retention-policy.md" in line for line in printed)
