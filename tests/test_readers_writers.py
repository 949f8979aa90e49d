"""Readers never wait on a writer, and a writer holds the store's lock for its rows, not its work.

* A long document is parsed, extracted and embedded *before* its write's transaction: while its
  model work runs, another process writes a small document, revokes a token, and reads, each with a
  lock timeout of 0 (so any wait for a lock would fail at once, not merely be slow).
* Opening an existing store writes nothing: a reader with a lock timeout of 0 opens and reads while
  a writer holds the write lock mid-transaction, and while ``rm``'s checkpoint waits on an old reader.
  Two CPU-bound processes run beside it; the reader's worst time is printed (the target is that no
  read waits over 1 s for a lock; a lock timeout of 0 makes any wait an error).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from citegraph.embed import HashingEmbedder
from citegraph.ingest.indexer import TextInput
from citegraph.models import DocumentStatus
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter
from citegraph.serve.tokens import TokenStore
from citegraph.store import open_store
from tests.conftest import Stores

LONG = "\n\n".join(  # 20 paragraphs of 4 sentences: a long document is indexed a run of paragraphs at a time
    " ".join(f"Workspace {i} keeps its audit log for {i % 90 + 2} days after the export." for i in range(p, p + 4)) for p in range(0, 80, 4)
)


class PausingEmbedder(HashingEmbedder):
    """The hashing embedder, which stops at its ``pause_at``-th call until released: a long
    document's model work, caught in the middle."""

    def __init__(self, pause_at: int) -> None:
        super().__init__()
        self.calls = 0
        self.pause_at = pause_at
        self.reached = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.pause_at:
            self.reached.set()
            assert self.release.wait(120), "the test never released the embedder"
        return super().embed(texts)


def test_a_long_document_being_indexed_holds_no_lock(stores: Stores, splitter: SentenceSplitter) -> None:
    db = stores.location()
    with CiteGraph(stores.open(db), HashingEmbedder(), splitter=splitter) as seed:
        seed.ingest_texts([TextInput("first.md", "Exports stay available for 30 days after cancellation.")])
    token = TokenStore(db).add("support", ("public",))

    pausing = PausingEmbedder(pause_at=2)  # the first run of blocks is embedded, the second waits
    long_writer = CiteGraph(stores.open(db), pausing, splitter=splitter)
    long_writer.ingester.indexer.chunk_chars = 600  # LONG is ~6,000 characters: about ten runs of blocks
    reports: list = []
    thread = threading.Thread(target=lambda: reports.append(long_writer.ingest_texts([TextInput("long.md", LONG)])))
    thread.start()
    try:
        assert pausing.reached.wait(60), "the long document never reached its model work"
        # A reader that may not wait at all reads the last committed state.
        reader = stores.open(db, create=False, lock_timeout=0)
        assert [d.document.id for d in reader.documents(None)] == ["first.md"]
        # Another writer that may not wait at all stores a small document.
        with CiteGraph(stores.open(db, lock_timeout=0), HashingEmbedder(), splitter=splitter) as other:
            (small,) = other.ingest_texts([TextInput("small.md", "Snapshots are kept for 90 days.")]).documents
            assert small.status == DocumentStatus.OK
        # A token revoked now is refused now.
        tokens = TokenStore(db, lock_timeout=0)
        assert tokens.labels(token) == ("public",)
        tokens.revoke("support")
        assert tokens.labels(token) is None
        assert [d.document.id for d in reader.documents(None)] == ["first.md", "small.md"]
    finally:
        pausing.release.set()
        thread.join(120)
    (long_report,) = reports[0].documents
    assert long_report.status == DocumentStatus.OK and long_report.sentences == 80
    with CiteGraph(stores.open(db), HashingEmbedder(), splitter=splitter) as after:
        assert [d.document.id for d in after.documents(labels=None)] == ["first.md", "long.md", "small.md"]
        assert after.check() == []
    long_writer.close()


def test_an_entity_removed_while_a_document_is_indexed_is_embedded_again(stores: Stores, splitter: SentenceSplitter) -> None:
    """Writers interleave, so an entity a document's indexing found stored (and did not embed) can be
    removed by an ``rm`` before the document's write: the write notices (StaleWrite, rolled back) and
    the document is indexed again, not lost and not stored without the entity's vector."""
    db = stores.location()
    with CiteGraph(stores.open(db), HashingEmbedder(), splitter=splitter) as seed:
        seed.ingest_texts([TextInput("old.md", "The Larkspur export runs every night.")])
    pausing = PausingEmbedder(pause_at=1)  # after the store was asked which keys it lacks
    writer = CiteGraph(stores.open(db), pausing, splitter=splitter)
    reports: list = []
    thread = threading.Thread(
        target=lambda: reports.append(writer.ingest_texts([TextInput("new.md", "The Larkspur export keeps snapshots for 30 days.")]))
    )
    thread.start()
    try:
        assert pausing.reached.wait(60)
        with CiteGraph(stores.open(db), HashingEmbedder(), splitter=splitter) as other:
            other.remove(["old.md"])  # its entities go with it: 'export' and 'larkspur' among them
    finally:
        pausing.release.set()
        thread.join(120)
    (report,) = reports[0].documents
    assert report.status == DocumentStatus.OK, report
    assert pausing.calls == 2  # indexed twice: the second time the removed keys were embedded
    assert writer.check() == []
    assert {m.span.document for m in writer.entity("export", labels=None).mentions} == {"new.md"}
    writer.close()


def test_a_model_that_fails_mid_document_stores_nothing_of_it(splitter: SentenceSplitter, tmp_path: Path) -> None:
    """The spool's failure path: a model that goes down in the middle of a long document's work
    fails that document (and the rest of the run), and nothing of it is written."""
    from citegraph.errors import BackendUnavailable

    class FailingEmbedder(HashingEmbedder):
        calls = 0

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            FailingEmbedder.calls += 1
            if FailingEmbedder.calls == 3:
                raise BackendUnavailable("the embedding server went away")
            return super().embed(texts)

    with CiteGraph(open_store(tmp_path / "s.db"), FailingEmbedder(), splitter=splitter) as graph:
        graph.ingester.indexer.chunk_chars = 600
        report = graph.ingest_texts([TextInput("long.md", LONG)])
        (failed,) = report.documents
        assert failed.status == DocumentStatus.FAILED and "went away" in failed.reason
        assert report.unavailable and graph.documents(labels=None) == [] and graph.check() == []


def _read(db: str) -> float:
    """One reader's visit, as a CLI read does it: open (lock timeout 0), list, read the graph."""
    started = time.perf_counter()
    store = open_store(db, create=False, lock_timeout=0)
    try:
        with store.snapshot():
            store.documents(None)
            store.graph_columns(None)
    finally:
        store.close()
    return time.perf_counter() - started


def _reads_while(db: str, what: str, times: list[tuple[str, float]], during: Callable[[], None]) -> None:
    """Read the store repeatedly, and once through the CLI, while ``during``'s writer state holds."""
    during()
    for _ in range(20):
        times.append((what, _read(db)))
    started = time.perf_counter()
    command = [sys.executable, "-m", "citegraph.cli", "documents", "--json", "--db", db, "--lock-timeout", "0", "--embedder", "hashing"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert {d["id"] for d in json.loads(done.stdout)} >= {"a.md"}
    times.append((f"{what} (CLI process)", time.perf_counter() - started))


def test_readers_never_wait_on_a_writer_under_load(tmp_path: Path, splitter: SentenceSplitter, busy_cpus: int) -> None:
    db = str(tmp_path / "store.db")
    with CiteGraph(open_store(db), HashingEmbedder(), splitter=splitter) as graph:
        graph.ingest_texts([TextInput(f"{n}.md", f"Team {n} keeps its exports for {ord(n)} days.") for n in "abcdefgh"])
    times: list[tuple[str, float]] = []

    # 1. A writer mid-transaction, holding the write lock with uncommitted rows.
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("DELETE FROM documents WHERE doc_id = 'h.md'")
    try:
        _reads_while(db, "write lock held", times, lambda: None)
        assert "h.md" in {d.document.id for d in open_store(db, create=False, lock_timeout=0).documents(None)}  # uncommitted: unseen
    finally:
        holder.execute("ROLLBACK")
        holder.close()

    # 2. `rm` whose checkpoint waits for an old reader's snapshot (up to its 5 s), in another thread.
    old = sqlite3.connect(db, isolation_level=None)
    old.execute("BEGIN")
    old.execute("SELECT count(*) FROM spans").fetchone()
    removed: list[bool] = []
    with CiteGraph(open_store(db), HashingEmbedder(), splitter=splitter) as writer:
        remover = threading.Thread(target=lambda: removed.append(writer.remove(["g.md"])[0].purged))
        try:
            _reads_while(db, "rm checkpointing", times, remover.start)
        finally:
            old.execute("COMMIT")
            old.close()
            remover.join(60)
    assert removed, "rm did not finish"

    # 3. A schema migration of another store file in the same folder, holding that file's lock.
    other = sqlite3.connect(str(tmp_path / "other.db"), isolation_level=None)
    other.execute("PRAGMA journal_mode = WAL")
    other.execute("BEGIN IMMEDIATE")
    other.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    try:
        _reads_while(db, "another store migrating", times, lambda: None)
    finally:
        other.execute("ROLLBACK")
        other.close()

    worst: dict[str, float] = {}
    for what, seconds in times:
        worst[what] = max(worst.get(what, 0.0), seconds)
    print(f"\nreader worst times with {busy_cpus} busy processes beside it (lock timeout 0, so no lock was waited for):")
    for what, seconds in worst.items():
        print(f"  {what}: {seconds * 1000:.0f} ms")
