"""Crash safety: an ingest killed with SIGKILL at random moments never leaves a broken store.

Twenty trials. Each runs ``citegraph ingest`` of 100 documents in a subprocess and kills it at a
random moment between its first write and its end (moments drawn from an uninterrupted run, with a
fixed seed). While it runs, this process reads the same store again and again (as a second user
would) and checks every read is consistent. After the kill, ``check`` must find nothing wrong, and
ingesting the folder again must reach exactly the graph of an uninterrupted run.

Both backends (``stores``): a SQLite file, and a PostgreSQL database (see conftest). Two CPU-bound
processes run beside it (``busy_cpus``): a reader must not fail because the machine is busy.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from citegraph.embed import HashingEmbedder
from citegraph.output import documents_json
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.store import open_store
from tests.conftest import Stores

TRIALS = 20
DOCUMENTS = 100
WORDS = ["export", "snapshot", "invoice", "archive", "payroll", "retention", "workspace", "billing", "audit log", "backup"]


def _corpus(folder: Path) -> None:
    rng = random.Random(7)
    folder.mkdir()
    for i in range(DOCUMENTS):
        sentences = []
        for _ in range(rng.randint(2, 5)):
            a, b = rng.sample(WORDS, 2)
            sentences.append(f"The {a} of team {i} uses the {b} for {rng.randint(2, 90)} days.")
        (folder / f"doc{i:03}.md").write_text(f"# Note {i}\n\n" + " ".join(sentences) + "\n", encoding="utf-8")


def _snapshot(graph: CiteGraph) -> dict[str, Any]:
    documents = documents_json(graph.documents(labels=None))
    for d in documents:
        d.pop("ingested_at")
    return {"documents": documents, "graph": json.loads(graph.export("json", labels=None, include_superseded=True))}


def _ingest_command(folder: Path, db: str) -> list[str]:
    return [sys.executable, "-m", "citegraph.cli", "ingest", str(folder), "--db", db, "--embedder", "hashing", "--quiet"]


def _exists(db: str) -> bool:
    """Whether the store is there to read: a SQLite file exists (it is made whole, schema and all,
    then linked into place); a PostgreSQL database has its schema (made in one transaction)."""
    if not db.startswith("postgresql://"):
        return Path(db).exists()
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        return conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone() == (True,)


def _stored(db: str) -> int:
    if not _exists(db):
        return 0
    store = open_store(db, create=False)
    try:
        return len(store.documents(None))
    finally:
        store.close()


def _read_consistently(db: str, stop: threading.Event, seen: list[int], errors: list[str]) -> None:
    """A second user reading while the ingest writes: every read is one consistent snapshot."""
    while not stop.is_set():
        if not _exists(db):
            time.sleep(0.01)
            continue
        try:
            store = open_store(db, create=False)  # a reader: it never creates, migrates or writes
            try:
                with store.snapshot():
                    docs = store.documents(None)
                    graph = store.graph(None)
            finally:
                store.close()
        except Exception as exc:  # any failure of a reader is the finding
            errors.append(f"{type(exc).__name__}: {exc}")
            return
        # One snapshot: every listed document's sentences are all in the graph, no more, no fewer;
        # and the number of stored documents never goes down.
        spans_by_doc: dict[str, int] = {}
        for span in graph.spans:
            spans_by_doc[span.document] = spans_by_doc.get(span.document, 0) + 1
        if seen and len(docs) < seen[-1]:
            errors.append(f"documents went from {seen[-1]} to {len(docs)}")
        for d in docs:
            if spans_by_doc.get(d.document.id, 0) != d.sentences:
                errors.append(f"{d.document.id}: {d.sentences} sentences listed, {spans_by_doc.get(d.document.id, 0)} spans read")
        if set(spans_by_doc) - {d.document.id for d in docs}:
            errors.append("spans of a document that is not listed")
        seen.append(len(docs))


def _reference(stores: Stores, root: Path) -> tuple[Path, dict[str, Any], float, float]:
    """The corpus, the graph of an uninterrupted CLI run, and when that run wrote first and ended."""
    folder = root / "docs"
    _corpus(folder)
    db = stores.location()
    start = time.monotonic()
    log = root / "reference.log"
    with log.open("wb") as err:
        process = subprocess.Popen(_ingest_command(folder, db), stdout=subprocess.DEVNULL, stderr=err)
        first_write = None
        while process.poll() is None:
            if first_write is None and _stored(db) > 0:
                first_write = time.monotonic() - start
            time.sleep(0.02)
    end = time.monotonic() - start
    assert process.returncode == 0, log.read_text(encoding="utf-8", errors="replace")
    with CiteGraph(stores.open(db), HashingEmbedder()) as graph:
        assert graph.check() == []
        snapshot = _snapshot(graph)
    assert len(snapshot["documents"]) == DOCUMENTS
    return folder, snapshot, first_write or 0.0, end


@pytest.mark.slow
def test_sigkill_during_ingest_never_breaks_the_store(stores: Stores, tmp_path: Path, splitter: SentenceSplitter, busy_cpus: int) -> None:
    folder, expected, first_write, end = _reference(stores, tmp_path)
    rng = random.Random(20261130)
    interrupted, stored_at_kill, reads = [], [], 0
    for trial in range(TRIALS):
        db = stores.location()
        # A random moment between this run's first write and the end an uninterrupted run would
        # reach (measured from the first write, so a slow start-up on a loaded machine moves nothing).
        delay = rng.uniform(0.0, max(end - first_write, 0.05))
        stop, seen, errors = threading.Event(), [], []
        reader = threading.Thread(target=_read_consistently, args=(db, stop, seen, errors))
        process = subprocess.Popen(_ingest_command(folder, db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        reader.start()
        deadline = time.monotonic() + 120
        while process.poll() is None and _stored(db) == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(delay)
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait()
        stop.set()
        reader.join()
        assert not errors, f"trial {trial}: a reader saw an inconsistent store: {errors[:3]}"
        stored = _stored(db)
        interrupted.append(0 < stored < DOCUMENTS)
        stored_at_kill.append(stored)
        reads += len(seen)

        with CiteGraph(stores.open(db), HashingEmbedder(), splitter=splitter) as graph:
            assert graph.check() == [], f"trial {trial} (killed after {delay:.2f} s, {stored} documents stored)"
            graph.ingest([folder])
            assert graph.check() == []
            assert _snapshot(graph) == expected, f"trial {trial}: the re-run did not reach the uninterrupted graph"
    print(
        f"\ncrash trials ({stores.backend}): {TRIALS}; documents stored when killed: {stored_at_kill}; consistent concurrent reads: {reads}"
    )
    # The trials must actually interrupt ingests, not only kill them before or after their work.
    assert sum(interrupted) >= TRIALS // 4, f"only {sum(interrupted)} of {TRIALS} kills landed mid-ingest"


def test_processes_opening_a_new_store_at_once_migrate_it_once(stores: Stores) -> None:
    db = stores.location()
    code = f"from citegraph.store import open_store; open_store({db!r}).close()"
    processes = [subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE) for _ in range(4)]
    for p in processes:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    store = stores.open(db)
    assert store.schema_version() >= 1 and store.check() == []
