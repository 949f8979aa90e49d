"""Uploads: files sent to ``POST /documents``, ingested in the background as a job.

The files are staged in a private temporary folder, each in a folder of its own (two uploads of one
name are reported as a duplicate id, not overwritten) and ingested by path (so a name such as
``.notes.txt`` is read, not skipped as a hidden file). The folder goes whatever happens, on success,
on failure, and when the request is refused before its job starts: nothing uploaded outlives its
job in the temporary folder. The job (:mod:`citegraph.serve.jobs`) lives in the store, so any
server process reports it, and its heartbeat tells a running job from one whose process died.
"""

from __future__ import annotations

import base64
import binascii
import logging
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from citegraph import output
from citegraph.errors import CitegraphError, StoreLocked, UserError
from citegraph.models import IngestReport
from citegraph.serve.jobs import HEARTBEAT, Job, JobStore

__all__ = ["TooLarge", "Uploads", "upload_name"]

log = logging.getLogger("citegraph.serve")
#: ``ingest(paths, sources, progress)``: the server's write of the staged files (under its write
#: lock), each recorded with the name it was uploaded as (``sources``), not its temporary path
Ingest = Callable[[list[Path], Mapping[Path, str], Callable[[int, int, str], None]], IngestReport]


class TooLarge(CitegraphError):
    """A request or an uploaded file over its size limit (413)."""


#: bytes in one file name on the file systems a server stages uploads on (NAME_MAX of ext4, XFS, tmpfs)
MAX_NAME_BYTES = 255


def upload_name(name: str) -> str:
    """An uploaded file's name as its document id: no folders (the id is the file name), no control
    characters (a NUL cannot be a file name, a newline would split a terminal row), and at most
    :data:`MAX_NAME_BYTES` bytes of UTF-8 (the file is staged under that name)."""
    base = Path(name).name
    if not base or base in {".", ".."} or any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise UserError(f"document {name!r}: not a usable file name (give a name such as notes.md, without folders or control characters)")
    size = len(base.encode("utf-8", "surrogatepass"))
    if size > MAX_NAME_BYTES:
        raise UserError(
            f"document {name[:40]!r}...: the name is {size} bytes of UTF-8, over the limit of {MAX_NAME_BYTES} bytes for a file name; "
            "give a shorter name"
        )
    return base


def _content(name: str, text: str | None, content_base64: str | None, max_bytes: int) -> bytes:
    if (text is None) == (content_base64 is None):
        raise UserError(f"document {name!r}: give exactly one of text or content_base64")
    try:
        data = text.encode("utf-8") if text is not None else base64.b64decode(content_base64 or "", validate=True)
    except binascii.Error as exc:
        raise UserError(f"document {name!r}: content_base64 is not base64 ({exc})") from exc
    if len(data) > max_bytes:
        raise TooLarge(f"document {name!r} is {len(data) / 1048576:.1f} MB, over the limit of {max_bytes / 1048576:.1f} MB (max-file-mb)")
    return data


class Uploads:
    """Starts upload jobs over ``jobs``; a file over ``max_bytes`` refuses the whole upload."""

    def __init__(self, jobs: JobStore, max_bytes: int) -> None:
        self.jobs = jobs
        self.max_bytes = max_bytes

    def start(self, documents: Sequence[tuple[str, str | None, str | None]], *, owner: str, ingest: Ingest) -> Job:
        """Stage ``documents`` (``(name, text, content_base64)``), record a job for ``owner`` (a
        token's digest) and ingest them in a thread; returns the job at once. A bad file, or a store
        that refuses the job's record, refuses the whole upload and leaves nothing behind."""
        folder = Path(tempfile.mkdtemp(prefix="citegraph-upload-"))
        try:
            paths = []
            for n, (name, text, content_base64) in enumerate(documents):
                path = folder / str(n) / upload_name(name)
                data = _content(name, text, content_base64, self.max_bytes)
                try:
                    path.parent.mkdir()
                    path.write_bytes(data)
                except OSError as exc:  # a name this file system refuses: the caller's to change, not a server error
                    raise UserError(
                        f"document {name[:80]!r}: cannot be staged under that name ({exc.strerror or exc}); give another name"
                    ) from exc
                paths.append(path)
            job = self.jobs.create(owner, len(documents))
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        threading.Thread(target=self._run, args=(job, folder, paths, ingest), name=f"ingest-{job.id[:8]}", daemon=True).start()
        return job

    def _run(self, job: Job, folder: Path, paths: list[Path], ingest: Ingest) -> None:
        sources = {path: path.name for path in paths}
        jobs = self.jobs

        def progress(done: int, total: int, current: str) -> None:
            job.done, job.total, job.current = done, total, current
            jobs.save(job, force=False)

        job.state = "running"
        stop = threading.Event()

        def heartbeat() -> None:  # GET /jobs/{id} sees that this process is still at it
            while not stop.wait(HEARTBEAT):
                try:
                    jobs.beat(job)
                except Exception:  # a missed beat is retried at the next one
                    log.exception("upload job %s: heartbeat", job.id)

        threading.Thread(target=heartbeat, name=f"beat-{job.id[:8]}", daemon=True).start()
        try:
            jobs.save(job)
            report: Any = ingest(paths, sources, progress)
            job.report, job.state, job.done = output.ingest_json(report), "done", job.total
        except StoreLocked as exc:  # another process is writing: nothing is wrong with the upload
            log.warning("upload job %s: %s", job.id, exc)
            job.state, job.error = "failed", f"busy, retry: {exc}"
        except Exception as exc:  # the job says why; the server goes on
            log.exception("upload job %s", job.id)
            job.state, job.error = "failed", str(exc)
        finally:
            stop.set()
            shutil.rmtree(folder, ignore_errors=True)
            try:
                jobs.save(job)
            except Exception:  # the store is gone or locked past its timeout: the job reads as it last was
                log.exception("upload job %s: could not record its end", job.id)
