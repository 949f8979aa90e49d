"""Upload jobs of the HTTP API, kept beside the store so every server worker process sees them.

``POST /documents`` answers with a job id at once and ingests in the background; ``GET /jobs/{id}``
may reach another worker process (``citegraph serve --workers N``), so a job's state lives in an
``upload_jobs`` table (schema migration 3), not in one process's memory: for a SQLite store in a
file of its own beside it (``STORE.jobs``), since the store's write lock is held by whichever
process ingests, and a job must record its end and its reason (``busy, retry`` when the store was
locked) whatever that lock does; for PostgreSQL in the store (row locks). A job belongs to the
token that made it. A queued or running job whose server process is gone (killed, restarted) reads as
``failed``, with that reason, instead of running forever: the process running a job writes a heartbeat
every ``HEARTBEAT`` seconds, and a job without one for ``STALE`` seconds is gone (on a SQLite store,
whose servers share one machine, a process that no longer exists is seen at once).

Progress is written at most every ``PROGRESS_EVERY`` seconds (and at every state change): each write
is a commit to the store file, which makes the readers' view of the store look changed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citegraph.serve.tables import Tables
from citegraph.settings import DEFAULTS

__all__ = ["Job", "JobStore"]

MAX_JOBS_KEPT = 1000  #: finished jobs remembered for GET /jobs/{id}; older ones are forgotten
PROGRESS_EVERY = 0.5  #: seconds between two progress writes of one job
HEARTBEAT = 10.0  #: seconds between two heartbeats of a running job
STALE = 60.0  #: a queued or running job without a heartbeat for this long is gone


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this machine (every worker of one server runs on it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


@dataclass
class Job:
    """One upload: its progress and, when done, the ingest report (the ``ingest --json`` object)."""

    id: str
    owner: str  #: sha256 of the Authorization header that made it
    total: int
    state: str = "queued"  #: queued · running · done · failed
    done: int = 0
    current: str = ""
    report: dict[str, Any] | None = None
    error: str = ""
    pid: int = field(default_factory=os.getpid)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "state": self.state, "done": self.done, "total": self.total,
            "current": self.current, "report": self.report, "error": self.error,
        }  # fmt: skip


class JobStore:
    """The ``upload_jobs`` table of a store file; each call uses a short connection of its own, so
    the request threads and the ingest threads of a worker never share one."""

    def __init__(self, db: str | Path, *, lock_timeout: float = DEFAULTS.lock_timeout) -> None:
        self.store = Tables(db, lock_timeout=lock_timeout)
        self.tables = self.store.beside(".jobs", "upload_jobs", 3)
        self.path = self.tables.location
        self._written: dict[str, float] = {}  # job id -> when its progress was last written (this process)

    def _connect(self) -> contextlib.AbstractContextManager[Any]:
        return self.tables.connect()

    def beat(self, job: Job) -> None:
        """The running job's heartbeat: its process is alive."""
        with self._connect() as db:
            db.execute("UPDATE upload_jobs SET updated_at = ? WHERE id = ? AND state IN ('queued', 'running')", (_now(), job.id))

    def create(self, owner: str, total: int) -> Job:
        """A new queued job of this process; the oldest finished jobs beyond ``MAX_JOBS_KEPT`` are
        forgotten. Refused (:class:`~citegraph.errors.StoreLocked`, a 503) while another process holds
        the store's write lock past the timeout: the job would only fail."""
        self.store.probe_write()
        job = Job(uuid.uuid4().hex, owner, total)
        now = _now()
        with self._connect() as db:
            db.execute(
                "INSERT INTO upload_jobs (id, owner, total, state, pid, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (job.id, owner, total, job.state, job.pid, now, now),
            )
            db.execute(
                "DELETE FROM upload_jobs WHERE state IN ('done', 'failed') AND id NOT IN "
                "(SELECT id FROM upload_jobs WHERE state IN ('done', 'failed') ORDER BY created_at DESC LIMIT ?)",
                (MAX_JOBS_KEPT,),
            )
        return job

    def save(self, job: Job, *, force: bool = True) -> None:
        """Write ``job``'s state; with ``force=False`` (progress), skip it when the last write of this
        job was under ``PROGRESS_EVERY`` seconds ago."""
        now = time.monotonic()
        if not force and now - self._written.get(job.id, 0.0) < PROGRESS_EVERY:
            return
        report = None if job.report is None else json.dumps(job.report)
        with self._connect() as db:
            db.execute(
                "UPDATE upload_jobs SET state = ?, done = ?, total = ?, current = ?, report = ?, error = ?, updated_at = ? WHERE id = ?",
                (job.state, job.done, job.total, job.current, report, job.error, _now(), job.id),
            )
        if job.state in {"done", "failed"}:
            self._written.pop(job.id, None)
        else:
            self._written[job.id] = now

    def get(self, job_id: str, owner: str) -> Job | None:
        """The job ``job_id`` if ``owner`` made it (another token's job does not exist for this one)."""
        with self._connect() as db:
            row = db.execute(
                "SELECT id, owner, total, state, done, current, report, error, pid, updated_at FROM upload_jobs WHERE id = ? AND owner = ?",
                (job_id, owner),
            ).fetchone()
        if row is None:
            return None
        job = Job(row[0], row[1], row[2], row[3], row[4], row[5], None if row[6] is None else json.loads(row[6]), row[7], row[8])
        silent = (datetime.now(UTC) - datetime.fromisoformat(row[9])).total_seconds()
        if job.state in {"queued", "running"} and (silent > STALE or (not self.tables.postgres and not _alive(job.pid))):
            job.state = "failed"
            job.error = (
                f"the server process that ran this upload (pid {job.pid}) stopped before it finished; "
                "documents it had committed are stored, upload the others again"
            )
            self.save(job)
        return job
