"""What the bench scripts share: reading the HotpotQA sample, describing the machine, writing figures."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

from rich.console import Console

__all__ = ["environment", "read_questions", "write_figures"]


def read_questions(path: Path) -> list[dict[str, Any]]:
    """The HotpotQA objects of ``path`` (a JSON list), or exit naming the file."""
    questions = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(questions, list):
        raise SystemExit(f"{path}: expected a JSON list of HotpotQA objects")
    return questions


def environment() -> str:
    return f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}, {platform.system()}"


def write_figures(path: Path | None, result: dict[str, Any], err: Console) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    err.print(f"figures written to {path}")
