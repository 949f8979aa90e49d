"""The PostgreSQL store beyond the shared contract: the same graph as SQLite from the same documents,
several processes writing one store at once, secure deletion (VACUUM FULL after rm), ``--db`` /
``CITEGRAPH_DB`` selection, and errors that name the URL without its password.

The cluster is conftest's throwaway one; without PostgreSQL installed these tests are skipped.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.embed import HashingEmbedder
from citegraph.errors import BackendUnavailable, NotFound, UserError
from citegraph.output import answer_json, documents_json
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.sentences import SentenceSplitter
from citegraph.store import SQLiteStore, open_store
from tests.conftest import PostgresCluster, Stores, _free_port

POLICY = "Exports use the latest snapshot. The retention service deletes old snapshots."
SECRET = "The Zephyrion merger closes in March. Exports of Zephyrion data use a private snapshot."
WORDS = ["export", "snapshot", "invoice", "archive", "payroll", "retention", "workspace", "billing"]


@pytest.fixture
def pg(postgres_cluster: PostgresCluster, tmp_path: Path) -> Iterator[Stores]:
    made = Stores("postgres", tmp_path, postgres_cluster)
    try:
        yield made
    finally:
        made.drop()


def _snapshot(graph: CiteGraph) -> dict[str, Any]:
    documents = documents_json(graph.documents(labels=None))
    for d in documents:
        d.pop("ingested_at")
    return {"documents": documents, "graph": json.loads(graph.export("json", labels=None, include_superseded=True))}


def _corpus(folder: Path, name: str, count: int) -> None:
    folder.mkdir(parents=True)
    for i in range(count):
        a, b, c = WORDS[i % 8], WORDS[(i + 3) % 8], WORDS[(i + 5) % 8]
        text = f"The {a} of team {i} uses the {b}. Every {c} is kept for {i + 2} days. The {b} never touches the {c}.\n"
        (folder / f"{name}{i:03}.md").write_text(text, encoding="utf-8")


def _ingest(folder: Path, db: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "citegraph.cli", "ingest", str(folder), "--db", db, "--embedder", "hashing", "--quiet", "--json"]
    return subprocess.Popen([*command, "--lock-timeout", "300"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _report(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err.decode(errors="replace")
    return dict(json.loads(out))


def test_the_same_documents_make_the_same_graph_on_both_backends(
    pg: Stores, tmp_path: Path, larkspur: Path, splitter: SentenceSplitter
) -> None:
    seen = []
    for store in (SQLiteStore(tmp_path / "s.db"), pg.new()):
        with CiteGraph(store, HashingEmbedder(), splitter=splitter) as graph:
            graph.ingest([larkspur], access=("public",))
            graph.ingest_texts([TextInput("notes.md", POLICY)], access=("staff",))
            graph.ingest_texts([TextInput("notes.md", POLICY + " Snapshots are kept for 30 days.")], access=("staff",))
            assert graph.check() == []
            answers = [answer_json(graph.ask(q, labels=("public",))) for q in ("How long are exports kept?", "What does billing use?")]
            staff = json.loads(graph.export("json", labels=("staff",), include_superseded=True))
            seen.append((_snapshot(graph), answers, staff))
    assert seen[0] == seen[1]


def test_two_processes_ingesting_the_same_files_store_each_once(pg: Stores, tmp_path: Path) -> None:
    """Both ingests pass their "already stored?" check before either writes (the test holds every
    document's write lock until both wait on it); then each document is written by one and found
    ``unchanged`` by the other, never stored twice."""
    import psycopg

    from citegraph.store.postgres import _DOCUMENT_LOCK

    folder = tmp_path / "docs"
    _corpus(folder, "doc", 30)
    db = pg.location()
    open_store(db).close()  # the schema, so the lock below is the only thing the ingests wait on
    with psycopg.connect(db, autocommit=True) as holder:
        for path in sorted(folder.iterdir()):
            holder.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", (_DOCUMENT_LOCK, path.name))
        processes = [_ingest(folder, db) for _ in range(2)]
        deadline, waiting = time.monotonic() + 300, 0
        while time.monotonic() < deadline and any(p.poll() is None for p in processes):
            (waiting,) = holder.execute(
                "SELECT count(DISTINCT pid) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            ).fetchone() or (0,)
            if waiting == 2:
                break
            time.sleep(0.05)
        assert waiting == 2, "both ingests should be waiting on the first document's lock"
        holder.execute("SELECT pg_advisory_unlock_all()")
        reports = [_report(p) for p in processes]
    statuses: dict[str, list[str]] = {}
    for report in reports:
        for d in report["documents"]:
            statuses.setdefault(d["id"], []).append(d["status"])
    assert len(statuses) == 30 and all(sorted(s) == ["ok", "unchanged"] for s in statuses.values()), statuses
    raced = [d for r in reports for d in r["documents"] if d["reason"] == "another ingest stored this version meanwhile"]
    assert raced  # the write itself, not the check before it, found the version stored
    with CiteGraph(pg.open(db), HashingEmbedder()) as graph:
        assert graph.check() == []
        assert [d.document.id for d in graph.documents(labels=None)] == sorted(statuses)  # one version each
        together = _snapshot(graph)
    with CiteGraph(pg.open(pg.location()), HashingEmbedder()) as alone:
        alone.ingest([folder])
        assert together == _snapshot(alone)


def test_two_processes_ingesting_different_files_share_entities_safely(stores: Stores, tmp_path: Path) -> None:
    """Different documents naming the same entities, written at once by two processes: every write
    succeeds, each entity key is one row, and the graph is the one a single process makes."""
    _corpus(tmp_path / "a", "a", 40)
    _corpus(tmp_path / "b", "b", 40)
    db = stores.location()
    stores.open(db).close()
    processes = [_ingest(tmp_path / name, db) for name in ("a", "b")]
    reports = [_report(p) for p in processes]
    assert [r["totals"]["ok"] for r in reports] == [40, 40]
    with CiteGraph(stores.open(db), HashingEmbedder()) as graph:
        assert graph.check() == []
        together = _snapshot(graph)
    with CiteGraph(stores.open(stores.location()), HashingEmbedder()) as alone:
        alone.ingest([tmp_path / "a"])
        alone.ingest([tmp_path / "b"])
        assert together == _snapshot(alone)


def _database_files(cluster: PostgresCluster, db: str) -> bytes:
    """Every file of the database (tables, TOAST, indexes), after a checkpoint wrote its pages out."""
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        (oid,) = conn.execute("SELECT oid FROM pg_database WHERE datname = current_database()").fetchone() or (0,)
    return b"".join(p.read_bytes() for p in (cluster.data / "base" / str(oid)).iterdir() if p.is_file())


def test_rm_leaves_no_deleted_text_in_the_database_files(pg: Stores, postgres_cluster: PostgresCluster) -> None:
    db = pg.location()
    with CiteGraph(pg.open(db), HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY)])
        # Last in, so its rows are the last of their pages: where a plain VACUUM leaves the bytes.
        graph.ingest_texts([TextInput("secret.md", SECRET)])
        assert b"Zephyrion" in _database_files(postgres_cluster, db)
        (result,) = graph.remove(["secret.md"])
        assert result.purged and result.entities >= 1
        assert graph.check() == []
        raw = _database_files(postgres_cluster, db)
    assert b"Zephyrion" not in raw and b"zephyrion" not in raw
    assert b"latest snapshot" in raw  # the scan sees text that is still stored


def test_rm_reports_when_another_snapshot_keeps_the_deleted_rows(pg: Stores, postgres_cluster: PostgresCluster) -> None:
    db = pg.location()
    with CiteGraph(pg.open(db), HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY), TextInput("secret.md", SECRET)])
        reader = pg.open(db)
        with reader.snapshot():
            assert len(reader.documents(None)) == 2
            (result,) = graph.remove(["secret.md"])
            assert not result.purged  # said, not hidden: the reader's snapshot still sees the rows
            assert len(reader.documents(None)) == 2
        assert graph.store.purge()  # the reader is done: the next purge finishes the job
        raw = _database_files(postgres_cluster, db)
    assert b"Zephyrion" not in raw


def test_errors_name_the_url_without_its_password(pg: Stores, postgres_cluster: PostgresCluster, tmp_path: Path) -> None:
    port = postgres_cluster.port
    with pytest.raises(UserError, match=r'database "nosuch" does not exist; create it') as missing:
        open_store(f"postgresql://postgres:hunter2@127.0.0.1:{port}/nosuch")
    assert "hunter2" not in str(missing.value) and "postgres:***@127.0.0.1" in str(missing.value)
    with pytest.raises(BackendUnavailable, match="cannot reach the PostgreSQL server") as refused:
        open_store(f"postgresql://postgres:hunter2@127.0.0.1:{_free_port()}/x")
    assert "hunter2" not in str(refused.value)
    with pytest.raises(UserError, match="not a citegraph store"):
        open_store(pg.location(), create=False)
    with pytest.raises(UserError, match=r"a URL, not a SQLite file") as sqlite:
        SQLiteStore(f"postgresql://postgres:hunter2@127.0.0.1:{port}/x")
    assert "hunter2" not in str(sqlite.value)
    runner = CliRunner()
    result = runner.invoke(main, ["documents", "--db", f"postgresql://postgres:hunter2@127.0.0.1:{port}/nosuch"])
    assert result.exit_code == 1 and "does not exist" in result.stderr and "hunter2" not in result.output + result.stderr
    result = runner.invoke(main, ["token", "list", "--db", f"postgresql://postgres:hunter2@127.0.0.1:{port}/nosuch"])
    assert result.exit_code == 1 and "does not exist" in result.stderr and "hunter2" not in result.stderr


def test_the_command_line_picks_postgres_from_db_or_the_environment(pg: Stores, write) -> None:  # type: ignore[no-untyped-def]
    write("a.md", POLICY)
    write("b.md", SECRET)
    db = pg.location()
    runner = CliRunner()
    common = ["--embedder", "hashing"]
    ingested = runner.invoke(main, ["ingest", str(Path(write("c.md", "Invoices use the archive.")).parent), "--db", db, *common, "--json"])
    assert ingested.exit_code == 0, ingested.output
    assert json.loads(ingested.stdout)["totals"]["ok"] == 3
    env = {"CITEGRAPH_DB": db}
    listed = runner.invoke(main, ["documents", *common, "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    assert [d["id"] for d in json.loads(listed.stdout)] == ["a.md", "b.md", "c.md"]
    asked = runner.invoke(main, ["ask", "What do exports use?", *common, "--json"], env=env)
    assert asked.exit_code == 0 and "latest snapshot" in asked.stdout
    assert runner.invoke(main, ["rm", "b.md", *common], env=env).exit_code == 0
    assert runner.invoke(main, ["check", *common], env=env).exit_code == 0
    store = open_store(db, create=False)
    try:
        assert {d for d, _version in store.visible(None)} == {"a.md", "c.md"}
    finally:
        store.close()


def test_both_backends_migrate_to_the_same_version_and_tables(pg: Stores, tmp_path: Path) -> None:
    from citegraph.store import postgres, sqlite

    assert [v for v, _ in postgres._migrations()] == [v for v, _ in sqlite._migrations()]
    lite = SQLiteStore(tmp_path / "s.db")
    big = pg.new()
    assert lite.schema_version() == big.schema_version() == sqlite.SCHEMA_VERSION
    lite_tables = {
        table: {r[1] for r in lite.db.execute(f"PRAGMA table_info({table})")}
        for (table,) in lite.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    lite.close()
    pg_tables: dict[str, set[str]] = {}
    for table, column in big.conn.execute(  # type: ignore[attr-defined]
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()"
    ):
        pg_tables.setdefault(table, set()).add(column)
    # PostgreSQL's own: the change counter, and the ingest order SQLite keeps as the rowid.
    assert pg_tables.pop("changes") == {"one", "n"}
    pg_tables["documents"].remove("seq")
    assert pg_tables == lite_tables


def test_a_held_lock_and_a_lost_server_are_their_own_errors(pg: Stores) -> None:
    import psycopg

    from citegraph.errors import StoreLocked
    from citegraph.store.postgres import _DOCUMENT_LOCK

    db = pg.location()
    store = pg.open(db, lock_timeout=0.2)
    with psycopg.connect(db, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s, hashtext('a.md'))", (_DOCUMENT_LOCK,))  # another writer of a.md
        with pytest.raises(StoreLocked, match=r"write lock \(waited 0.2 s\)"):
            store.relabel("a.md", ("staff",))
        other.execute("SELECT pg_advisory_unlock_all()")
        with pytest.raises(NotFound):  # the lock is free: the relabel runs (and finds no such document)
            store.relabel("a.md", ("staff",))
        other.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid != pg_backend_pid()"
        )
    with pytest.raises(BackendUnavailable, match="lost the PostgreSQL server"):
        store.documents(None)
