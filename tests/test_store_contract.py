"""The store contract, run against every backend: SQLite in memory and on disk, and PostgreSQL (a
throwaway cluster, see conftest; skipped where PostgreSQL is not installed)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from citegraph.errors import AccessConflict, NotFound, StoreError, UserError
from citegraph.models import Document, ExtractedRelation, Span
from citegraph.pipeline import content_version
from citegraph.store import DocumentWrite, MentionRow, SQLiteStore, Store, open_store
from citegraph.store.sqlite import SCHEMA_VERSION
from tests.conftest import Stores

TEXT = "Exports use the latest snapshot. Exports use snapshots."


@pytest.fixture(params=["sqlite-memory", "sqlite-file", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    backend = request.param.split("-")[0]
    made = Stores(backend, tmp_path, request.getfixturevalue("postgres_cluster") if backend == "postgres" else None)
    try:
        yield made.new() if request.param == "sqlite-memory" else made.open(made.location())
    finally:
        made.drop()


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


def test_dates_and_supersessions_are_kept_read_and_filtered(store: Store) -> None:
    from dataclasses import replace

    from citegraph.store.base import current_on

    old = _write("faq.md")
    store.write_document(replace(old, document=replace(old.document, dated="2023-02-01")))
    new = _write("policy.md", TEXT.replace("latest", "newest"))
    store.write_document(replace(new, document=replace(new.document, dated="2025-06-01", supersedes=("faq.md",))))
    faq = store.get_document("faq.md")
    assert faq is not None and faq.dated == "2023-02-01" and faq.superseded_by == "policy.md"
    assert {d for d, _v in store.visible(None)} == {"policy.md"}  # left out, like an old version
    assert {d for d, _v in store.visible(None, include_superseded=True)} == {"faq.md", "policy.md"}
    assert {s.document for s in store.graph(["public"]).spans} == {"policy.md"}
    versions, moved = store.history()
    assert moved == [("faq.md", "policy.md")] and {(d, dated) for d, _v, _at, dated in versions} == {
        ("faq.md", "2023-02-01"),
        ("policy.md", "2025-06-01"),
    }
    assert {d for d, _v in current_on("2024-01-01", versions, moved)} == {"faq.md"}
    assert {d for d, _v in current_on("2026-01-01", versions, moved)} == {"policy.md"}
    assert store.supersede("faq.md", None, "2026-01-01T00:00:00+00:00") == "policy.md"
    assert {d for d, _v in store.visible(None)} == {"faq.md", "policy.md"}
    store.supersede("faq.md", "policy.md", "2026-01-01T00:00:00+00:00")
    store.delete_document("policy.md")  # the mark goes with either document
    assert store.history()[1] == [] and {d for d, _v in store.visible(None)} == {"faq.md"}


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


def _set_raw_schema_version(location: str, value: str) -> None:
    """Write the stored schema version behind the store's back (as a newer citegraph would)."""
    if location.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(location, autocommit=True) as conn:
            conn.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", (value,))
        return
    db = sqlite3.connect(location)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
    db.commit()
    db.close()


def test_schema_is_versioned_and_newer_stores_are_refused(stores: Stores) -> None:
    location = stores.location()
    store = stores.open(location)
    assert store.schema_version() == SCHEMA_VERSION
    store.close()
    stores.open(location).close()  # reopening runs no migration twice
    _set_raw_schema_version(location, "999")
    with pytest.raises(StoreError, match="newer than this citegraph"):
        open_store(location)


def test_a_missing_store_is_an_error_when_not_creating(stores: Stores) -> None:
    location = stores.location()  # a new empty database, or a path with no file
    with pytest.raises(UserError, match="ingest documents first or check --db") as error:
        open_store(location, create=False)
    assert stores.backend == "sqlite" or "not a citegraph store" in str(error.value)
    stores.open(location).close()  # created
    reader = stores.open(location, create=False)
    assert reader.documents(None) == []


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


def test_change_token_moves_when_another_connection_commits(stores: Stores) -> None:
    location = stores.location()
    writer, reader = stores.open(location), stores.open(location)
    before = reader.change_token()
    assert reader.change_token() == before  # nothing changed: a cache stays valid
    writer.write_document(_write())
    after_write = reader.change_token()
    assert after_write != before
    writer.relabel("a.md", ("staff",))
    assert reader.change_token() != after_write
    assert reader.visible(["staff"]) == {("a.md", _write().document.version)}


def test_a_snapshot_does_not_see_a_commit_made_during_it(stores: Stores) -> None:
    location = stores.location()
    writer, reader = stores.open(location), stores.open(location)
    writer.write_document(_write("a.md"))
    with reader.snapshot():
        assert [d.document.id for d in reader.documents(None)] == ["a.md"]
        writer.write_document(_write("b.md"))
        assert [d.document.id for d in reader.documents(None)] == ["a.md"]
        assert {s.document for s in reader.graph(None).spans} == {"a.md"}
    assert [d.document.id for d in reader.documents(None)] == ["a.md", "b.md"]


def test_delete_removes_a_document_and_the_entities_only_it_supported(store: Store) -> None:
    store.write_document(_write("a.md"))
    other = _write("b.md", text=TEXT.replace("latest", "newest"))
    store.write_document(
        DocumentWrite(
            other.document,
            "ok",
            "test",
            other.spans[:1],
            other.span_vectors[:1],
            (MentionRow("export", other.spans[0][0], "Exports", "CONCEPT"),),
        )
    )
    result = store.delete_document("a.md")
    assert (result.versions, result.spans, result.mentions, result.relations, result.entities) == (1, 2, 2, 2, 1)
    assert result.purged
    assert store.missing_keys({"export", "snapshot"}) == {"snapshot"}  # "export" is still mentioned by b.md
    assert store.visible(None, include_superseded=True) == {("b.md", other.document.version)}
    assert store.check() == []
    with pytest.raises(NotFound, match=r"did you mean 'b\.md'"):
        store.delete_document("b.mdx")


def test_make_current_restores_an_old_version(store: Store) -> None:
    first, second = _write(text=TEXT), _write(text=TEXT + " More.")
    store.write_document(first)
    store.write_document(second)
    assert store.make_current("a.md", first.document.version) == second.document.version
    current = store.get_document("a.md")
    assert current is not None and current.version == first.document.version and current.current
    assert store.document_status("a.md", first.document.version) == "ok"
    assert store.document_access("a.md") == ("public",) and store.document_access("b.md") is None
    assert store.visible_among(["public"], False, [("a.md", first.document.version), ("a.md", second.document.version)]) == {
        ("a.md", first.document.version)
    }


def test_embedder_name_is_kept(store: Store) -> None:
    assert store.embedder_name() is None
    store.set_embedder_name("hashing")
    assert store.embedder_name() == "hashing"


def test_the_store_is_three_interfaces_and_both_backends_implement_all_three() -> None:
    """Documents and lifecycle, graph reads, state: every public member of Store belongs to exactly
    one of them, and SQLite and PostgreSQL each implement every abstract method of the three."""
    import inspect

    from citegraph.store.base import Documents, GraphReader, Store, StoreState
    from citegraph.store.sqlite import SQLiteStore

    parts = (Documents, GraphReader, StoreState)
    members = [{n for n in vars(part) if not n.startswith("_")} for part in parts]
    assert all(not (a & b) for i, a in enumerate(members) for b in members[i + 1 :])  # no member in two
    assert {n for n, _ in inspect.getmembers(Store) if not n.startswith("_")} == set().union(*members)
    backends: list[type] = [SQLiteStore]
    try:
        from citegraph.store.postgres import PostgresStore

        backends.append(PostgresStore)
    except ImportError:  # psycopg not installed: the SQLite store alone
        pass
    for backend in backends:
        assert all(issubclass(backend, part) for part in parts) and not getattr(backend, "__abstractmethods__", None)
