"""The store contract, run against every backend (SQLite in memory and on disk today)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import AccessConflict, StoreError
from citegraph.models import Document, ExtractedRelation, Span
from citegraph.pipeline import content_version
from citegraph.store import DocumentWrite, MentionRow, SQLiteStore, Store
from citegraph.store.sqlite import SCHEMA_VERSION

TEXT = "Exports use the latest snapshot. Exports use snapshots."


@pytest.fixture(params=["memory", "file"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = SQLiteStore(":memory:" if request.param == "memory" else tmp_path / "s.db")
    yield s
    s.close()


def _write(doc_id: str = "a.md", text: str = TEXT, access: tuple[str, ...] = ("public",), bad: bool = False) -> DocumentWrite:
    doc = Document(doc_id, content_version(text), text, doc_id, access)
    s1 = Span(doc_id, doc.version, 0, 32, text[0:32])
    s2 = Span(doc_id, doc.version, 33, len(text), text[33:] if not bad else "x" * (len(text) - 33))
    vec = np.eye(4, dtype=np.float32)[:2]
    return DocumentWrite(
        doc,
        "ok",
        "test",
        ((s1, "sentence"), (s2, "sentence")),
        vec,
        (MentionRow("export", s1, "Exports", "CONCEPT"), MentionRow("snapshot", s1, "snapshot", "CONCEPT")),
        (
            ExtractedRelation("export", "snapshot", "use", s1),
            ExtractedRelation("export", "snapshot", "use", s2),  # same pair and type, another sentence: kept
            ExtractedRelation("export", "snapshot", "use", s1),  # exact duplicate from one sentence: once
        ),
        {"export": np.ones(4, np.float32) / 2, "snapshot": np.ones(4, np.float32) / 2},
    )


def test_write_and_read_back(store: Store) -> None:
    result = store.write_document(_write())
    assert result.relations == 2
    data = store.graph(["public"])
    assert data.keys == ["export", "snapshot"]
    assert [data.spans[r[4]].start for r in data.relations] == [0, 33]
    assert data.span_vectors.shape == (2, 4)
    assert store.graph(["staff"]).spans == []  # labels filter inside the store
    assert len(store.graph(None).spans) == 2  # None: unrestricted (internal use)


def test_a_failed_write_leaves_nothing_behind(store: Store) -> None:
    with pytest.raises(StoreError, match="does not slice"):
        store.write_document(_write(bad=True))
    assert store.documents(None) == []
    assert store.graph(None).spans == [] and store.missing_keys({"export"}) == {"export"}


def test_new_version_supersedes_and_keeps_the_old(store: Store) -> None:
    first = _write(text=TEXT)
    store.write_document(first)
    second = _write(text=TEXT.replace("latest", "newest"))
    assert store.write_document(second).superseded == first.document.version
    current = store.get_document("a.md")
    assert current is not None and current.version == second.document.version
    assert [(d.document.version, d.document.current) for d in store.documents(None)] == [
        (second.document.version, True),
        (first.document.version, False),
    ]
    assert {s.version for s in store.graph(None).spans} == {second.document.version}
    assert {s.version for s in store.graph(None, include_superseded=True).spans} == {first.document.version, second.document.version}


def test_schema_is_versioned_and_newer_stores_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    SQLiteStore(path).close()  # reopening runs no migration twice
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer than this citegraph"):
        SQLiteStore(path)


def test_a_file_that_is_not_a_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a readable citegraph store"):
        SQLiteStore(path)


def test_visible_follows_labels_and_currency(store: Store) -> None:
    first = _write(access=("public", "staff"))
    store.write_document(first)
    # A write never changes who may read a stored document: other labels are refused, nothing written.
    with pytest.raises(AccessConflict, match=r"'a.md' is stored with access public,staff.*citegraph relabel a.md --access staff"):
        store.write_document(_write(text=TEXT + " More.", access=("staff",)))
    assert store.visible(None, include_superseded=True) == {("a.md", first.document.version)}
    second = _write(text=TEXT + " More.", access=("public", "staff"))
    store.write_document(second)
    relabelled = store.relabel("a.md", ("staff",))
    assert (relabelled.before, relabelled.after, relabelled.versions) == (("public", "staff"), ("staff",), 2)
    assert (relabelled.gained, relabelled.lost) == ((), ("public",))
    # Labels belong to the document: relabelling applies to the old version too, so a public caller
    # can read neither (nor learn that a newer version exists).
    assert store.visible(["public"]) == set()
    assert store.visible(["public"], include_superseded=True) == set()
    assert store.visible(["staff"], include_superseded=True) == {("a.md", first.document.version), ("a.md", second.document.version)}
    assert store.visible(["staff"]) == {("a.md", second.document.version)}
    assert store.visible(None, include_superseded=True) == {("a.md", first.document.version), ("a.md", second.document.version)}


def test_a_version_stored_complete_is_not_written_twice(store: Store) -> None:
    """Two ingests racing on one file: the second write finds the version stored and leaves it."""
    write = _write()
    assert not store.write_document(write).unchanged
    again = store.write_document(write)
    assert again.unchanged and again.relations == 0
    assert len(store.graph(None).spans) == 2
