"""Evaluation harnesses (data paths are always arguments; nothing here needs ../shared to import)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

__all__ = ["Bars", "no_bars", "report_name"]

#: ``bars(label)`` opens a progress display for one data set and yields its ``advance(done, total)``:
#: how a harness's ``run`` shows progress without knowing the terminal (the CLI passes its bars).
Bars = Callable[[str], AbstractContextManager[Callable[..., None]]]


@contextlib.contextmanager
def no_bars(_label: str) -> Iterator[Callable[..., None]]:
    yield lambda *_args: None


def report_name(name: str, taken: set[str], path: Path) -> str:
    """``name`` for the reports of ``path``, made unique among ``taken`` (which it joins): two files of
    one family, or of one file name in two folders, each keep their own reports."""
    candidates = [name, *([f"{name}-{path.stem}"] if path.stem != name else []), f"{name}-{path.parent.name}"]
    chosen = next((c for c in candidates if c not in taken), None)
    n = 2
    while chosen is None:
        chosen = f"{name}-{n}" if f"{name}-{n}" not in taken else None
        n += 1
    taken.add(chosen)
    return chosen
