"""`citegraph ingest --workers N` (issue 12, item 3): indexing in worker processes, one writer."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.components import GraphSpec
from citegraph.errors import UserError
from citegraph.ingest.workers import ProcessIndexing
from citegraph.pipeline import CiteGraph
from citegraph.store import SQLiteStore

NOTES = {
    f"note-{i:02d}.md": f"Orion review {i} needs {i + 2} reviewers from the Vega team. "
    f"The Vega team reports to Ada Lovelace in {2000 + i}. Reviews of Orion close on day {i + 1}."
    for i in range(12)
}


def _rows(db: Path | str) -> dict[str, list[tuple[object, ...]]]:
    """Every stored record that does not depend on when or in which order it was written, from a
    SQLite file or a PostgreSQL URL (the same SQL on both)."""
    queries = {
        "documents": "SELECT doc_id, version, current, status, extractor, text FROM documents ORDER BY 1, 2",
        "access": "SELECT doc_id, version, label FROM document_access ORDER BY 1, 2, 3",
        "spans": "SELECT doc_id, version, start_char, end_char, text, kind, vector FROM spans ORDER BY 1, 2, 3",
        "entities": "SELECT key, key_vector FROM entities ORDER BY 1",
        "mentions": "SELECT e.key, s.doc_id, s.start_char, m.start_char, m.surface, m.type, m.inferred FROM mentions m"
        " JOIN entities e ON e.id = m.entity_id JOIN spans s ON s.id = m.span_id ORDER BY 1, 2, 3, 4, 5, 6",
        "relations": "SELECT a.key, b.key, r.type, s.doc_id, s.start_char FROM relations r JOIN entities a ON a.id = r.source_id"
        " JOIN entities b ON b.id = r.target_id JOIN spans s ON s.id = r.span_id ORDER BY 1, 2, 3, 4, 5",
        "rejections": "SELECT doc_id, kind, reason, detail FROM rejections ORDER BY 1, 2, 3, 4",
    }
    if str(db).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(db)) as pg:
            return {
                table: sorted(
                    (
                        tuple(bytes(v) if isinstance(v, memoryview) else int(v) if isinstance(v, bool) else v for v in row)
                        for row in pg.execute(sql).fetchall()
                    ),
                    key=repr,
                )  # sorted here: the two backends' text collations differ
                for table, sql in queries.items()
            }
    con = sqlite3.connect(db)
    try:
        return {table: sorted(con.execute(sql).fetchall(), key=repr) for table, sql in queries.items()}
    finally:
        con.close()


def test_two_workers_store_exactly_what_one_process_stores(tmp_path: Path, larkspur: Path, write) -> None:  # type: ignore[no-untyped-def]
    for name, text in NOTES.items():
        folder = write(name, text).parent
    (folder / "broken.pdf").write_bytes(b"not a pdf")  # one bad document: reported, the others go on
    runner = CliRunner()
    reports = {}
    for workers in (1, 2):
        db = tmp_path / f"w{workers}.db"
        result = runner.invoke(
            main, ["ingest", str(larkspur), str(folder), "--db", str(db), "--embedder", "hashing", "--workers", str(workers), "--json"]
        )
        assert result.exit_code == 3, result.output  # partial: the broken PDF failed
        reports[workers] = json.loads(result.stdout)["documents"]
    assert [(d["id"], d["status"], d["sentences"], d["entities"], d["relations"]) for d in reports[2]] == [
        (d["id"], d["status"], d["sentences"], d["entities"], d["relations"]) for d in reports[1]
    ]
    assert {d["id"]: d["status"] for d in reports[2]}["broken.pdf"] == "failed"
    one, two = _rows(tmp_path / "w1.db"), _rows(tmp_path / "w2.db")
    assert len(two["documents"]) == 5 + 12 and len(two["relations"]) > 12
    for table in one:
        assert two[table] == one[table], table

    again = runner.invoke(
        main, ["ingest", str(folder), "--db", str(tmp_path / "w2.db"), "--embedder", "hashing", "--workers", "2", "--json"]
    )
    assert {d["status"] for d in json.loads(again.stdout)["documents"] if d["id"] != "broken.pdf"} == {"unchanged"}


def test_a_batch_whose_worker_died_is_indexed_again_here_and_said(tmp_path: Path, write) -> None:  # type: ignore[no-untyped-def]
    for name, text in NOTES.items():
        folder = write(name, text).parent
    db = tmp_path / "killed.db"
    with CiteGraph.open(db, "hashing") as graph:
        graph.ingest([folder / "note-00.md"])  # the store exists for the workers to read
        assert graph.spec is not None
        indexing = ProcessIndexing(graph.spec, 2, fallback=lambda docs: [])
        try:
            from citegraph.ingest.indexer import content_version
            from citegraph.models import Document

            doc = Document("x.md", content_version("Orion ships."), "Orion ships.", "x.md", ("public",), None, "", True, "text/markdown")
            future = indexing.submit([doc])
            for process in list(indexing._pool._processes.values()):  # type: ignore[union-attr]  # killed while loading their models
                process.kill()
            fell_back: list[str] = []
            indexing.fallback = lambda docs: fell_back.extend(d.id for d in docs) or []  # type: ignore[func-returns-value]
            assert indexing.result(future, [doc]) == [] and fell_back == ["x.md"] and indexing.retried == ["x.md"]
            # the pool was replaced: the next batch is indexed by a worker again
            (result,) = indexing.result(indexing.submit([doc]), [doc])
            assert result.document.id == "x.md" and not hasattr(result, "reason")
        finally:
            indexing.close()


def test_workers_need_a_graph_opened_from_spec_strings(tmp_path: Path, splitter, write) -> None:  # type: ignore[no-untyped-def]
    from citegraph.embed import HashingEmbedder

    graph = CiteGraph(SQLiteStore(tmp_path / "s.db"), HashingEmbedder(), splitter=splitter)
    with pytest.raises(UserError, match=r"CiteGraph\.open"):
        graph.ingest([write("a.md", "Orion ships.")], workers=2)
    graph.close()
    import pickle

    spec = GraphSpec(db="d.db", embedder="hashing", hops=3)  # what travels to a worker: it pickles and goes as JSON
    assert pickle.loads(pickle.dumps(spec)) == spec == GraphSpec.from_json(spec.to_json())
    with pytest.raises(UserError, match="hops"):
        GraphSpec(hops=-1)


def test_a_worker_that_cannot_load_its_models_fails_the_documents_with_the_reason(tmp_path: Path) -> None:
    from dataclasses import replace

    from citegraph.ingest.indexer import content_version
    from citegraph.models import Document

    with CiteGraph.open(tmp_path / "m.db", "hashing") as graph:
        assert graph.spec is not None
        indexing = ProcessIndexing(replace(graph.spec, extractor="nosuch:model"), 1, fallback=lambda docs: [])
        try:
            doc = Document("x.md", content_version("Orion ships."), "Orion ships.", "x.md", ("public",), None, "", True, "text/markdown")
            (failure,) = indexing.result(indexing.submit([doc]), [doc])
            assert failure.document.id == "x.md" and "worker could not load its models" in failure.reason  # type: ignore[union-attr]
            assert indexing.retried == []  # not mistaken for a dead worker
        finally:
            indexing.close()
