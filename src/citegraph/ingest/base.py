"""Finding files and turning each into the text that gets stored.

The stored text is what every span indexes into, so a loader's output *is* the document as far as
citegraph is concerned: offsets are into it, never into the raw bytes of the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from citegraph.errors import InputFileError
from citegraph.ingest import loaders

__all__ = ["SUPPORTED_SUFFIXES", "FoundFile", "LoadedText", "UnsupportedFile", "discover", "load_file"]


@dataclass(frozen=True)
class LoadedText:
    text: str
    media_type: str


@dataclass(frozen=True)
class FoundFile:
    path: Path
    doc_id: str  #: path relative to the root it was found under, with ``/`` separators


class UnsupportedFile(InputFileError):
    """A file of a type citegraph does not read: reported as ``skipped``, never an abort."""


_LOADERS = {
    ".txt": ("text/plain", loaders.load_text),
    ".text": ("text/plain", loaders.load_text),
    ".md": ("text/markdown", loaders.load_text),
    ".markdown": ("text/markdown", loaders.load_text),
    ".html": ("text/html", loaders.load_html),
    ".htm": ("text/html", loaders.load_html),
    ".pdf": ("application/pdf", loaders.load_pdf),
}
SUPPORTED_SUFFIXES = tuple(sorted(_LOADERS))


def load_file(path: Path) -> LoadedText:
    """Read one file. Raises :class:`UnsupportedFile` or :class:`InputFileError` naming the file."""
    suffix = path.suffix.lower()
    if suffix not in _LOADERS:
        raise UnsupportedFile(
            str(path),
            f"unsupported file type {suffix or '(no extension)'!r}",
            "citegraph reads " + ", ".join(SUPPORTED_SUFFIXES),
        )
    media_type, loader = _LOADERS[suffix]
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputFileError(str(path), "file disappeared before it could be read") from exc
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read file: {exc.strerror or exc}") from exc
    return LoadedText(loader(str(path), data), media_type)


def discover(paths: Iterable[Path]) -> Iterator[FoundFile]:
    """Yield the files under ``paths`` in a stable order.

    A file given directly gets its own name as id; files found under a folder get their path
    relative to that folder. Hidden files and folders are skipped; symlinked folders are not
    followed, so a symlink loop cannot hang ingest.
    """
    for root in paths:
        if not root.exists():
            raise InputFileError(str(root), "no such file or folder", "check the path")
        if root.is_file():
            yield FoundFile(root, root.name)
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                path = Path(dirpath) / name
                yield FoundFile(path, path.relative_to(root).as_posix())
