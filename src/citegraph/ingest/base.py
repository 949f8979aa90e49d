"""Finding files and turning each into the text that gets stored.

The stored text is what every span indexes into, so a loader's output *is* the document as far as
citegraph is concerned: offsets are into it, never into the raw bytes of the file.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from citegraph.errors import InputFileError, UnsupportedFile
from citegraph.ingest import loaders, messages, office

__all__ = [
    "DEFAULT_MAX_FILE_MB",
    "SUPPORTED_SUFFIXES",
    "FoundFile",
    "IngestOptions",
    "LoadedText",
    "UnsupportedFile",
    "discover",
    "load_file",
]


@dataclass(frozen=True)
class IngestOptions:
    """How one ingest runs, named once: ``citegraph ingest``, :meth:`CiteGraph.ingest
    <citegraph.pipeline.CiteGraph.ingest>` and the ingester all pass this record.

    ``prefix`` goes before every document id (a namespace); ``doc_id`` names the one file;
    ``dated`` (``YYYY-MM-DD``) dates every document of the ingest, over the date a file gives itself;
    ``workers`` > 1 indexes in that many processes, ``executor="ray"`` on Ray actors (at
    ``ray_address``); hidden files are skipped unless ``include_hidden``; ``sources`` records another
    source than the path for the files it names (an upload's name)."""

    access: tuple[str, ...] = ("public",)
    extractions: str | Path | None = None  #: an extraction import file (``citegraph extract --json``)
    doc_id: str | None = None
    prefix: str = ""
    version_label: str | None = None
    dated: str | None = None
    batch_size: int = 32
    workers: int = 1
    executor: str = "process"
    ray_address: str | None = None
    include_hidden: bool = False
    sources: Mapping[Path, str] | None = None


@dataclass(frozen=True)
class LoadedText:
    text: str
    media_type: str
    dated: str | None = None  #: the date the file gives itself (ISO 8601 day)
    supersedes: tuple[str, ...] = ()  #: document ids its front matter says it replaces


@dataclass(frozen=True)
class FoundFile:
    path: Path
    doc_id: str  #: path relative to the root it was found under, with ``/`` separators
    skip: str | None = None  #: why this entry is not read (a link that is not followed, a hidden file)
    fail: str | None = None  #: why this entry cannot be ingested (a file name that is not UTF-8)
    shown: str | None = None  #: what to record as its source instead of its path (an upload: the name it was sent as)

    @property
    def source(self) -> str:
        """The path as text that can be printed and stored (undecodable bytes shown as escapes), or
        :attr:`shown`."""
        return self.shown if self.shown is not None else _printable(str(self.path))


def _printable(name: str) -> str:
    """A file name from the file system as valid text: bytes that are not UTF-8 (kept by Python as
    lone surrogates) become ``\\xNN`` escapes."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


DEFAULT_MAX_FILE_MB = 10.0


_LOADERS = {
    ".txt": ("text/plain", loaders.read_text),
    ".text": ("text/plain", loaders.read_text),
    ".md": ("text/markdown", loaders.read_text),
    ".markdown": ("text/markdown", loaders.read_text),
    ".html": ("text/html", loaders.read_html),
    ".htm": ("text/html", loaders.read_html),
    ".pdf": ("application/pdf", loaders.read_pdf),
    ".json": ("text/plain", messages.read_chat_json),  # a chat export (Slack, Teams...): one line per message
    ".docx": (office.DOCX_MEDIA_TYPE, office.read_docx),
    ".csv": ("text/csv", office.read_csv),  # a table: one sentence per row, each cell after its column's name
    ".tsv": ("text/csv", office.read_csv),
    ".xlsx": (office.XLSX_MEDIA_TYPE, office.read_xlsx),  # each sheet a table: one sentence per row
    ".pptx": (office.PPTX_MEDIA_TYPE, office.read_pptx),  # slide by slide, with the speaker notes
    ".eml": ("text/plain", messages.read_email),  # sender, recipients, day and subject, then the body
    ".vtt": ("text/plain", messages.read_transcript),  # a meeting transcript: one "[time] Speaker: words" line a turn
    ".srt": ("text/plain", messages.read_transcript),
}
SUPPORTED_SUFFIXES = tuple(sorted(_LOADERS))
#: files dated by the day they were saved (their metadata), often the day they were exported: a date
#: the text states in its opening ("Version 2.3, effective 1 March 2025", :func:`loaders.stated_date`) comes first
_SAVED_DATES = frozenset({".pdf", ".docx", ".xlsx", ".pptx"})


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
    text, meta = loader(str(path), data)
    stated = loaders.stated_date(text) if suffix in _SAVED_DATES else None
    # what a PDF or an Office file states of its date comes before the day it was saved, unless that
    # day falls in the month it states ("Reviewed: March 2025", saved on 4 March: the 4th)
    if stated and not (meta.dated and meta.dated[:7] == stated[:7] and stated.endswith("-01")):
        meta = meta._replace(dated=stated)
    if meta.dated is None:  # a file named by its day, as meeting notes are ("2025-03-10-planning.md"): that day
        meta = meta._replace(dated=named_day(path.name))
    return LoadedText(text, media_type, meta.dated, meta.supersedes)


_NAMED_DAY = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_.]?(0[1-9]|1[0-2])[-_.]?(0[1-9]|[12]\d|3[01])(?!\d)")


def named_day(name: str) -> str | None:
    """The day a file name gives ("2025-03-10-planning.md", "standup_20250602.vtt"), as an ISO 8601
    day; None without one (a year alone, "faq-2023.md", says too little: the year it was written, or
    the one it is about)."""
    found = _NAMED_DAY.search(name)
    if found is None:
        return None
    try:
        return dt.date(int(found.group(1)), int(found.group(2)), int(found.group(3))).isoformat()
    except ValueError:
        return None


#: the report's reason for a hidden file or folder under an ingested folder
HIDDEN = "hidden: not read (ingest with --include-hidden to read hidden files and folders)"


def discover(paths: Iterable[Path], *, include_hidden: bool = False) -> Iterator[FoundFile]:
    """Yield the files under ``paths`` in a stable order.

    A file given directly gets its own name as id; files found under a folder get their path
    relative to that folder. Hidden files and folders (a name starting with a dot) are yielded with
    ``skip`` set, a folder once and not entered, unless ``include_hidden``. Links are never followed out of
    the folder being ingested: a symlinked folder is not followed (so a loop cannot hang ingest),
    and a file link whose target lies outside the folder is not read; each is yielded with ``skip``
    set, so the report says so. A file given directly is read even when it is a link: it was named.
    A file name that is not valid UTF-8 is yielded with ``fail`` set, under an escaped id.
    """
    for root in paths:
        if not root.exists():
            raise InputFileError(_printable(str(root)), "no such file or folder", "check the path")
        if not root.is_dir():  # a file, or a device or pipe, which load_file reports
            yield _found(root, root.name)
            continue
        real_root = root.resolve()
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            visible = sorted(d for d in dirnames if include_hidden or not d.startswith("."))
            for d in sorted(d for d in dirnames if d not in visible):
                hidden = Path(dirpath) / d
                yield _found(hidden, hidden.relative_to(root).as_posix() + "/", HIDDEN)
            links = {d for d in visible if (Path(dirpath) / d).is_symlink()}
            for d in sorted(links):
                link = Path(dirpath) / d
                yield _found(link, link.relative_to(root).as_posix(), "symbolic link to a folder: not followed")
            dirnames[:] = [d for d in visible if d not in links]
            for name in sorted(filenames):
                path = Path(dirpath) / name
                skip = None
                if name.startswith(".") and not include_hidden:
                    skip = HIDDEN
                elif path.is_symlink() and not _inside(path, real_root):
                    skip = "symbolic link to a file outside the ingested folder: not followed (ingest the target itself if you mean it)"
                yield _found(path, path.relative_to(root).as_posix(), skip)


def _inside(link: Path, root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop: load_file reports it
        return True


def _found(path: Path, doc_id: str, skip: str | None = None) -> FoundFile:
    printable = _printable(doc_id)
    if printable != doc_id:
        return FoundFile(path, printable, None, "the file name is not valid UTF-8 (rename it, e.g. with convmv -f latin1 -t utf-8)")
    return FoundFile(path, doc_id, skip)
