"""Finding files and turning each into the text that gets stored.

The stored text is what every span indexes into, so a loader's output *is* the document as far as
citegraph is concerned: offsets are into it, never into the raw bytes of the file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from citegraph.errors import InputFileError
from citegraph.ingest import loaders

__all__ = ["DEFAULT_MAX_FILE_MB", "SUPPORTED_SUFFIXES", "FoundFile", "LoadedText", "UnsupportedFile", "discover", "load_file"]


@dataclass(frozen=True)
class LoadedText:
    text: str
    media_type: str


@dataclass(frozen=True)
class FoundFile:
    path: Path
    doc_id: str  #: path relative to the root it was found under, with ``/`` separators
    skip: str | None = None  #: why this entry is not read (a symlinked folder, which is never followed)


DEFAULT_MAX_FILE_MB = 10.0


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


def _stat_size(path: Path) -> int:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would hang ingest, a link to /dev/zero never end
            raise InputFileError(str(path), "not a regular file (a device, pipe or socket)", "give citegraph files")
        return info.st_size
    except FileNotFoundError as exc:
        if path.is_symlink():
            raise InputFileError(str(path), "broken symbolic link (its target does not exist)") from exc
        raise InputFileError(str(path), "file disappeared before it could be read") from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputFileError(str(path), "symbolic link loop (the link never resolves to a file)") from exc
        raise InputFileError(str(path), f"cannot read file: {exc.strerror or exc}") from exc


def load_file(path: Path, max_mb: float = DEFAULT_MAX_FILE_MB) -> LoadedText:
    """Read one file. Raises :class:`UnsupportedFile` or :class:`InputFileError` naming the file.

    The size is checked before anything is read: a file over ``max_mb`` megabytes is refused
    without loading it into memory.
    """
    size = _stat_size(path)
    suffix = path.suffix.lower()
    if suffix not in _LOADERS:
        raise UnsupportedFile(
            str(path),
            f"unsupported file type {suffix or '(no extension)'!r}",
            "citegraph reads " + ", ".join(SUPPORTED_SUFFIXES),
        )
    media_type, loader = _LOADERS[suffix]
    if size > max_mb * 1_000_000:
        raise InputFileError(
            str(path),
            f"the file is {size / 1_000_000:.1f} MB, over the {max_mb:g} MB limit",
            "raise --max-file-mb or split the file",
        )
    limit = int(max_mb * 1_000_000)
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)  # bounded: the file may have grown since it was measured
    except FileNotFoundError as exc:
        raise InputFileError(str(path), "file disappeared before it could be read") from exc
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read file: {exc.strerror or exc}") from exc
    if len(data) > limit:
        raise InputFileError(
            str(path), f"the file grew past the {max_mb:g} MB limit while being read", "ingest it again once it is written"
        )
    return LoadedText(loader(str(path), data), media_type)


def discover(paths: Iterable[Path]) -> Iterator[FoundFile]:
    """Yield the files under ``paths`` in a stable order.

    A file given directly gets its own name as id; files found under a folder get their path
    relative to that folder. Hidden files and folders are skipped; symlinked folders are not
    followed, so a symlink loop cannot hang ingest: each is yielded with ``skip`` set, so the report
    says so.
    """
    for root in paths:
        if not root.exists():
            raise InputFileError(str(root), "no such file or folder", "check the path")
        if root.is_file():
            yield FoundFile(root, root.name)
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            visible = sorted(d for d in dirnames if not d.startswith("."))
            links = {d for d in visible if (Path(dirpath) / d).is_symlink()}
            for d in sorted(links):
                link = Path(dirpath) / d
                yield FoundFile(link, link.relative_to(root).as_posix(), "symbolic link to a folder: not followed")
            dirnames[:] = [d for d in visible if d not in links]
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                path = Path(dirpath) / name
                yield FoundFile(path, path.relative_to(root).as_posix())
