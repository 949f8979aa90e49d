"""Saved caller graphs (citegraph.store.snapshots): a later process maps the graph an earlier one
read instead of reading the store again, never across a write, a label set or a deletion."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import Result

import citegraph.store.snapshots as snapshots
from citegraph.embed import HashingEmbedder
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.store import SQLiteStore
from citegraph.store.snapshots import TextColumn

PUBLIC = [
    TextInput("larkspur.md", "Larkspur is a project tracker made by Quillon Labs. Exports stay available for 30 days."),
    TextInput("quillon.md", "Quillon Labs was founded in Tallinn in 2014. Its support desk answers in English and Estonian."),
]
SECRET = TextInput("merger.md", "The Zephyrion merger closes in March. Quillon Labs keeps the Zephyrion data private.")
QUESTION = "Where was the company that makes Larkspur founded?"


@pytest.fixture(autouse=True)
def save_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(snapshots, "SAVE_ABOVE", 1)  # every graph is "large"


def _open(db: Path) -> CiteGraph:
    return CiteGraph(SQLiteStore(db), HashingEmbedder())


def _saved(db: Path) -> list[str]:
    root = Path(str(db) + ".views")
    return sorted(p.name for p in root.iterdir() if (p / "complete").exists()) if root.exists() else []


def _answer(graph: CiteGraph, labels: list[str]) -> list[tuple[str, int, int, float]]:
    evidence = graph.retriever.retrieve(QUESTION, labels).evidence
    return [(e.span.document, e.span.start, e.span.end, round(e.score, 6)) for e in evidence]


@pytest.mark.parametrize("approximate", [False, True])
def test_a_later_process_reads_the_saved_graph_and_what_its_view_made(tmp_path: Path, approximate: bool) -> None:
    """The second process reads no row of the store and builds no index: it maps the graph, the
    mention graph, the indexes and the per-sentence arrays the first one made, and ranks the same."""
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.retriever.approximate_above = 0 if approximate else 10**9
        first = _answer(graph, ["public"])
        (name,) = _saved(db)
    kept = {p.name for p in (Path(str(db) + ".views") / name).iterdir()}
    assert {"derived-mentions.entity_vectors.npy", "derived-word_counts.npy", "derived-topic.pointers.npy"} <= kept
    assert ("derived-span_ivf.centroids.npy" in kept) == approximate
    with _open(db) as graph:

        def unread(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("the store's rows were read again")

        graph.store.graph_columns = unread  # type: ignore[method-assign]
        graph.retriever.approximate_above = 0 if approximate else 10**9
        built = snapshots.Derived.put
        snapshots.Derived.put = lambda *_a, **_k: pytest.fail("a view of the saved graph made something again")  # type: ignore[method-assign]
        try:
            assert _answer(graph, ["public"]) == first
        finally:
            snapshots.Derived.put = built  # type: ignore[method-assign]
        view = graph.retriever.view(["public"])
        assert isinstance(view.columns.span_text, TextColumn) and isinstance(view.columns.span_vectors, np.memmap)


def test_a_write_a_label_set_and_a_deletion_each_keep_a_saved_graph_from_serving(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.retriever.view(["public"])
        (before,) = _saved(db)
        graph.ingest_texts([SECRET], access=("finance",))  # a write: a new generation
    with _open(db) as graph:
        # the private caller reads its own graph, never the public one saved before
        assert any(
            e.span.document == "merger.md" for e in graph.retriever.retrieve("When does the Zephyrion merger close?", ["finance"]).evidence
        )
        assert not any(
            e.span.document == "merger.md" for e in graph.retriever.retrieve("When does the Zephyrion merger close?", ["public"]).evidence
        )
        names = _saved(db)
        assert before not in names and len(names) == 2  # the older generation went when a newer one was saved
        graph.remove(["merger.md"])
        assert _saved(db) == []  # deleted text does not stay in a saved graph


def test_a_text_column_reads_like_the_list_it_holds() -> None:
    texts = ["Exports stay.", "", "Zürich – 30 days", "\udcff lone surrogate"]
    column = TextColumn.of(texts)
    assert list(column) == texts and [column[i] for i in range(len(texts))] == texts
    assert column[-1] == texts[-1] and column[1:3] == texts[1:3] and len(column) == 4
    with pytest.raises(IndexError):
        column[4]


SALARY = "Dana Whitlock earns a salary of 187,450 dollars."
TEAM = [
    TextInput("team.md", "Dana Whitlock leads the Larkspur platform team. Dana Whitlock works with Quillon Labs in Tallinn."),
    *PUBLIC,
]


def _public_reads(db: Path) -> str:
    """Everything a public caller reads of the graph, as text: traverse, show relations, entity,
    export, and the HTTP API's /graph and /traverse with no token."""
    from fastapi.testclient import TestClient

    from citegraph.output import entity_json, nodes_json, relations_json
    from citegraph.serve.app import create_app
    from citegraph.serve.tokens import TokenStore

    with _open(db) as graph:
        seen = [
            nodes_json(graph.traverse(["Dana Whitlock"], labels=["public"], hops=3)),
            relations_json(graph.relations(labels=["public"])),
            entity_json(graph.entity("Dana Whitlock", labels=["public"])),
            graph.export("json", labels=["public"]),
            graph.export("graphml", labels=["public"]),
        ]
        with TestClient(create_app(graph, TokenStore(db))) as client:
            for path in ("/graph?entity=Dana%20Whitlock&hops=3", "/traverse?entity=Dana%20Whitlock&hops=3", "/relations"):
                response = client.get(path)
                assert response.status_code == 200, response.text
                seen.append(response.json())
    return repr(seen)


def _restore(backup: Path, db: Path) -> None:
    shutil.copyfile(backup, db)
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)


def test_a_restored_backup_or_a_new_store_at_the_path_is_never_served_a_view_of_other_contents(tmp_path: Path) -> None:
    """The re-probe's leak: a saved public view made while a staff file was public by mistake, then
    the backup restored and written to until its generation counter is the same again. The counter
    repeats; the view is not served, through any read."""
    db, backup = tmp_path / "store.db", tmp_path / "backup.db"
    with _open(db) as graph:
        graph.ingest_texts(TEAM, access=("public",))
        graph.ingest_texts([TextInput("salaries.txt", SALARY)], access=("staff",))
        counter = graph.store.generation()
    shutil.copyfile(db, backup)
    with _open(db) as graph:
        graph.relabel("salaries.txt", ["public"])  # by mistake: one generation on
        assert "187,450" in repr(graph.traverse(["Dana Whitlock"], labels=["public"], hops=3))  # saves the public view
    assert _saved(db)
    _restore(backup, db)
    with _open(db) as graph:
        assert graph.store.generation() == counter
        graph.ingest_texts([TextInput("more.md", "Quillon Labs opened a second office in Tartu.")], access=("public",))
        assert graph.store.generation().split("-")[0] == str(int(counter.split("-")[0]) + 1)  # type: ignore[union-attr]
    assert "187,450" not in _public_reads(db) and "salary" not in _public_reads(db)
    with _open(db) as graph:  # staff still reads it: the restore is not a loss
        assert any("187,450" in r.span.text for r in graph.relations(labels=["staff"]))

    # A new store at the same path, its saved views made by the earlier one still beside it.
    with _open(db) as graph:
        graph.relabel("salaries.txt", ["public"])
        graph.traverse(["Dana Whitlock"], labels=["public"], hops=3)
        old = int(graph.store.generation().split("-")[0])  # type: ignore[union-attr]
    assert _saved(db)
    for leftover in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
        leftover.unlink(missing_ok=True)
    with _open(db) as graph:
        graph.ingest_texts(TEAM, access=("public",))
        graph.ingest_texts([TextInput("salaries.txt", SALARY)], access=("staff",))
        while int(graph.store.generation().split("-")[0]) < old:  # type: ignore[union-attr]
            graph.relabel("salaries.txt", ["staff"])  # as many writes as the old store had made
        assert int(graph.store.generation().split("-")[0]) == old  # type: ignore[union-attr]
    assert "187,450" not in _public_reads(db)


def test_a_saved_view_that_does_not_prove_its_generation_is_not_served(tmp_path: Path) -> None:
    """A folder copied in under the live store's name (another machine's, or renamed by hand) holds
    another generation inside: it is not read, and saving replaces it."""
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.retriever.view(["public"])
        (name,) = _saved(db)
        folder = Path(str(db) + ".views") / name
        (folder / "generation").write_text("1-000000000000000000000000", encoding="utf-8")
        generation = graph.store.generation()
        assert generation is not None
        cache = graph.store.view_cache()
        assert cache is not None and cache.load(generation, ["public"], False) is None
        graph.retriever.clear_cache()
        graph.retriever.view(["public"])  # reads the store and saves the view again
        assert (folder / "generation").read_text(encoding="utf-8") == generation


def test_a_store_written_by_a_citegraph_without_tokens_saves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.store.db.execute("DELETE FROM meta WHERE key = 'generation_token'")  # type: ignore[attr-defined]
        assert graph.store.generation() is None
        graph.retriever.view(["public"])
    assert _saved(db) == []


def test_a_write_prepares_the_saved_graph_of_each_caller_who_had_one(tmp_path: Path) -> None:
    """After a write, the caller who had a saved graph has one again, for the new contents, with the
    indexes and the communities' membership its first ask and corpus question would make: a later
    process builds nothing. A caller who never asked gets none made, and a deleted document is in
    no prepared graph."""
    db = tmp_path / "store.db"
    with _open(db) as graph:
        graph.ingest_texts(PUBLIC, access=("public",))
        graph.ingest_texts([SECRET], access=("finance",))
        graph.retriever.retrieve(QUESTION, ["public"])
        callers = graph.saved_callers()
        assert callers == [(("public",), False)]  # the finance caller never asked: nothing saved for it
        graph.ingest_texts([TEAM[0]], access=("public",))  # a write: the saved graph no longer serves
        assert graph.prepare_views(callers) == 1
        (name,) = _saved(db)
        kept = {p.name for p in (Path(str(db) + ".views") / name).iterdir()}
        assert {"derived-community_membership.npy", "derived-mentions.entity_vectors.npy", "derived-same_names.npy", "caller.json"} <= kept
    with _open(db) as graph:
        graph.store.graph_columns = lambda *_a, **_k: pytest.fail("the store's rows were read again")  # type: ignore[method-assign]
        built = snapshots.Derived.put
        snapshots.Derived.put = lambda *_a, **_k: pytest.fail("a view of the prepared graph made something again")  # type: ignore[method-assign]
        try:
            evidence = graph.retriever.retrieve("Who leads the Larkspur platform team?", ["public"]).evidence
            assert any(e.span.document == "team.md" for e in evidence)  # the write's document is in it
            assert graph.communities(labels=["public"])
        finally:
            snapshots.Derived.put = built  # type: ignore[method-assign]
    with _open(db) as graph:
        callers = graph.saved_callers()
        graph.remove(["team.md"])
        graph.prepare_views(callers)
        (name,) = _saved(db)
        text = b"".join(p.read_bytes() for p in (Path(str(db) + ".views") / name).iterdir() if p.is_file())
        assert b"Dana Whitlock" not in text and b"Zephyrion" not in text


def _cli_with_a_saved_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Callable[..., Result], Path]:
    """The CLI over a store of PUBLIC (team.md written beside it, not ingested) whose public caller
    has asked once, so its graph is saved: ``run(*args)`` on that store, and the store's path."""
    from click.testing import CliRunner

    from citegraph.cli import main

    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    db = tmp_path / "store.db"
    for doc in (*PUBLIC, TEAM[0]):
        (tmp_path / doc.id).write_text(doc.text, encoding="utf-8")
    runner = CliRunner()
    run = lambda *args: runner.invoke(main, [*args, "--db", str(db)], catch_exceptions=False)  # noqa: E731
    assert run("ingest", str(tmp_path / "larkspur.md"), str(tmp_path / "quillon.md"), "--quiet").exit_code == 0
    assert run("ask", QUESTION, "--no-verify").exit_code == 0  # the public caller's graph is saved
    return run, db


def test_the_cli_prepares_saved_graphs_after_each_kind_of_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run, db = _cli_with_a_saved_graph(tmp_path, monkeypatch)
    (first,) = _saved(db)
    writes = [
        ("ingest", str(tmp_path / "team.md"), "--quiet"),
        ("supersede", "larkspur.md", "--by", "quillon.md"),
        ("relabel", "team.md", "--access", "public,staff"),
        ("rm", "team.md"),
    ]
    for write in writes:
        result = run(*write)
        assert result.exit_code == 0, result.output
        assert "preparing the saved graph of 1 caller(s)" in result.output
        (name,) = _saved(db)
        assert name != first and json.loads((Path(str(db) + ".views") / name / "caller.json").read_text()) == {
            "labels": ["public"],
            "include_superseded": False,
        }
        first = name


def test_a_write_whose_preparing_fails_still_succeeds_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citegraph.errors import ModelUnavailable

    run, db = _cli_with_a_saved_graph(tmp_path, monkeypatch)

    def down(*_args: object) -> int:
        raise ModelUnavailable("the embedder's server does not answer")

    monkeypatch.setattr(CiteGraph, "prepare_views", down)
    result = run("ingest", str(tmp_path / "team.md"), "--quiet")
    said = " ".join(result.output.split())  # the console wraps long lines
    assert result.exit_code == 0 and "the saved graphs were not prepared (the embedder's server does not answer)" in said
    with _open(db) as graph:
        assert graph.store.get_document("team.md") is not None  # the write stands
