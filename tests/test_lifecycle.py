"""Document lifecycle: versions, deletion that leaks nothing, the integrity check, bad input (export: tests/test_export.py).

The lesson's notebook keeps one source per entity (last write wins), has no versions, no deletion
and no integrity check: each test below fails on that behaviour.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from citegraph.cli import main
from citegraph.embed import HashingEmbedder
from citegraph.errors import NotFound
from citegraph.models import DocumentStatus
from citegraph.output import answer_json
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.store import SQLiteStore

OLD_FAQ = "Exports are removed at cancellation. Billing questions go to the help desk."
NEW_FAQ = "Snapshot exports stay available for 30 days after cancellation. Billing questions go to the help desk."
POLICY = "Exports use the latest snapshot. The retention service deletes old snapshots."
SECRET = "The Zephyrion merger closes in March. Exports of Zephyrion data use a private snapshot."


def _all_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


# -- versions -----------------------------------------------------------------------------------
def test_updated_faq_replaces_the_stale_sentence_everywhere(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("faq.md", OLD_FAQ), TextInput("policy.md", POLICY)])
    report = graph.ingest_texts([TextInput("faq.md", NEW_FAQ)], version_label="2024")
    (faq,) = report.documents
    assert faq.status == DocumentStatus.OK and faq.superseded is not None

    history = graph.history("faq.md")
    assert [(d.document.current, d.document.label) for d in history] == [(True, "2024"), (False, None)]
    old_version = history[1].document.version

    stale = "Exports are removed at cancellation."
    answer = graph.ask("What happens to exports at cancellation?")
    assert stale not in _all_text(answer_json(answer))
    assert all(item.evidence.span.version != old_version for item in answer.context)
    assert stale not in graph.export("json") and stale not in graph.export("graphml")
    assert all(r.span.text != stale for r in graph.relations())
    for node in graph.traverse(["export"]):
        assert all(hop.span.text != stale for hop in node.route)
    # `show entity` keeps the old mention for the record, flagged as superseded, never as current
    old = [m for m in graph.entity("export").mentions if m.span.text == stale]
    assert old and not any(m.current for m in old)

    # Asked for explicitly, the superseded sentence comes back, carrying its old version.
    superseded = graph.export("json", include_superseded=True)
    assert stale in superseded and old_version in superseded


def test_a_new_version_embeds_only_what_changed(graph: CiteGraph) -> None:
    """Re-ingesting an edited document embeds its changed sentences, its new whole text and its new
    entity keys; an unchanged sentence keeps its stored vector, and a sentence given twice is embedded once."""
    embedded: list[str] = []
    embed = graph.embedder.embed

    def counting(texts):  # type: ignore[no-untyped-def]
        embedded.extend(texts)
        return embed(texts)

    graph.ingester.indexer.embedder.embed = counting  # type: ignore[method-assign]
    graph.ingest_texts([TextInput("faq.md", OLD_FAQ + " Billing questions go to the help desk.")])
    assert embedded.count("Billing questions go to the help desk.") == 1
    old = graph.store.graph(None)
    before = {s.text: v for s, v in zip(old.spans, old.span_vectors, strict=True)}
    embedded.clear()
    graph.ingest_texts([TextInput("faq.md", NEW_FAQ)], version_label="2024")
    sentences = [t for t in embedded if t in NEW_FAQ and t.endswith(".") and t != NEW_FAQ]
    assert sentences == ["Snapshot exports stay available for 30 days after cancellation."]
    assert NEW_FAQ in embedded  # the new version's whole text
    new = graph.store.graph(None)  # the current version only
    assert {s.version for s in new.spans} != {s.version for s in old.spans}
    after = {s.text: v for s, v in zip(new.spans, new.span_vectors, strict=True)}
    np.testing.assert_array_equal(after["Billing questions go to the help desk."], before["Billing questions go to the help desk."])


def test_history_and_unknown_documents(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("faq.md", OLD_FAQ)])
    with pytest.raises(NotFound, match=r"did you mean 'faq\.md'"):
        graph.history("faq")
    with pytest.raises(NotFound):
        graph.remove(["faq.md", "nope.md"])
    assert graph.history("faq.md")  # nothing was deleted: the unknown id is found before any delete


# -- deletion -----------------------------------------------------------------------------------
def test_deleted_document_is_gone_from_every_view(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY)])
        graph.ingest_texts([TextInput("secret.md", SECRET)])
        graph.ingest_texts([TextInput("secret.md", SECRET + " A second version mentions Zephyrion again.")])
        assert graph.entity("Zephyrion").mentions
        before_export = graph.export("json")
        shared_before = {m.span.document for m in graph.entity("export").mentions}
        assert shared_before == {"policy.md", "secret.md"}

        raw_before = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("store.db"))
        assert b"Zephyrion" in raw_before

        (result,) = graph.remove(["secret.md"])
        assert result.versions == 2 and result.spans == 5 and result.purged
        assert result.entities >= 2 and result.relations >= 1  # "zephyrion" and "merger" had no other source

        # Neither answerable nor visible anywhere.
        for labels in (("public",), None):
            answer = answer_json(graph.ask("When does the Zephyrion merger close?", labels=labels))
            answer.pop("question")
            assert "Zephyrion" not in _all_text(answer)
            with pytest.raises(NotFound):
                graph.entity("Zephyrion", labels=labels)
            with pytest.raises(NotFound):
                graph.traverse(["Zephyrion"], labels=labels)
            assert "Zephyrion" not in graph.export("json", labels=labels, include_superseded=True)
            assert "secret.md" not in graph.export("graphml", labels=labels, include_superseded=True)
            assert [d.document.id for d in graph.documents(labels=labels)] == ["policy.md"]
        # The shared entity survives with its remaining live span only; so do its relations.
        export = graph.entity("export")
        assert {m.span.document for m in export.mentions} == {"policy.md"}
        assert {r.span.document for r in graph.relations()} == {"policy.md"}
        assert graph.check() == []
        assert before_export != graph.export("json")
        # Entities with no other source are gone with their vectors (reference counting).
        keys = {r[0] for r in graph.store.db.execute("SELECT key FROM entities")}  # type: ignore[attr-defined]
        assert not any("zephyrion" in k for k in keys)
    # Nothing of the deleted text is left in the file or its WAL (secure_delete + checkpoint).
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("store.db"))
    assert b"Zephyrion" not in raw and b"zephyrion" not in raw
    assert b"latest snapshot" in raw  # the check can see text that is still there


def test_rm_reports_when_another_reader_keeps_the_old_pages(tmp_path: Path) -> None:
    db = tmp_path / "busy.db"
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY), TextInput("secret.md", SECRET)])
        reader = SQLiteStore(db)
        reader.db.execute("BEGIN")
        reader.db.execute("SELECT count(*) FROM spans").fetchone()  # holds a snapshot open
        graph.store.purge = lambda wait_ms=5000: SQLiteStore.purge(graph.store, wait_ms=200)  # type: ignore[attr-defined, method-assign]
        (result,) = graph.remove(["secret.md"])
        assert not result.purged  # said, not hidden: the old pages may still be in the WAL
        reader.db.execute("COMMIT")
        reader.close()
        assert graph.store.purge()  # type: ignore[attr-defined]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("busy.db"))
    assert b"Zephyrion" not in raw


def test_rm_on_the_command_line(tmp_path: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("a.md", POLICY)
    write("b.md", SECRET)
    db = str(tmp_path / "cli.db")
    runner = CliRunner()
    common = ["--db", db, "--embedder", "hashing"]
    assert runner.invoke(main, ["ingest", str(tmp_path / "docs"), *common, "--quiet"]).exit_code == 0
    result = runner.invoke(main, ["rm", "b.md", *common, "--json"])
    assert result.exit_code == 0, result.output
    (removed,) = json.loads(result.stdout)
    assert removed["doc_id"] == "b.md" and removed["versions"] == 1
    missing = runner.invoke(main, ["rm", "c.md", *common])
    assert missing.exit_code == 1 and "no document named 'c.md'" in missing.stderr
    assert runner.invoke(main, ["check", *common]).exit_code == 0
    history = runner.invoke(main, ["history", "a.md", *common, "--json"])
    assert [v["current"] for v in json.loads(history.stdout)] == [True]


# -- integrity check ------------------------------------------------------------------------------
def test_check_finds_broken_offsets_dangling_rows_and_orphans(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY)])
        assert graph.check() == []
        conn = graph.store.db  # type: ignore[attr-defined]
        conn.execute("UPDATE spans SET start_char = start_char + 1 WHERE id = (SELECT min(id) FROM spans)")
        conn.execute("INSERT INTO entities (key, key_vector) VALUES ('orphan', ?)", (HashingEmbedder().embed(["orphan"])[0].tobytes(),))
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("INSERT INTO mentions (entity_id, span_id, surface, type, extractor) VALUES (999, 999, 'x', 'X', 'test')")
        conn.execute("UPDATE entities SET key_vector = zeroblob(8) WHERE key = 'orphan'")
        doubled = (2 * HashingEmbedder().embed(["export"])[0]).astype("float32").tobytes()  # right size, wrong norm
        conn.execute("UPDATE spans SET vector = ? WHERE id = (SELECT max(id) FROM spans)", (doubled,))
        problems = graph.check()
        kinds = {p.kind for p in problems}
    assert {"offsets", "orphan_entity", "dangling_reference", "vector"} <= kinds
    assert any(p.kind == "vector" and "norm 2" in p.detail for p in problems)
    result = CliRunner().invoke(main, ["check", "--db", str(db), "--embedder", "hashing", "--json"])
    assert result.exit_code == 4 and not json.loads(result.stdout)["ok"]


# -- bad input -------------------------------------------------------------------------------------
def test_bad_input_folder_reports_each_file_and_ingests_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "good.md").write_text(POLICY, encoding="utf-8")
    (docs / "sub" / "also-good.txt").write_text(NEW_FAQ, encoding="utf-8")
    (docs / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (docs / "latin1.txt").write_bytes("Caf\xe9 cr\xe8me is served daily.".encode("latin-1"))
    (docs / "empty.md").write_bytes(b"")
    with (docs / "huge.txt").open("wb") as f:  # 50 MB, sparse: refused by size, never read
        f.truncate(50 * 1_000_000)
    os.symlink("loop.txt", docs / "loop.txt")
    os.symlink("..", docs / "sub" / "up")  # a folder loop
    (docs / "vanish.md").write_text("This file is deleted after it was found.", encoding="utf-8")
    (docs / "table.xlsx").write_bytes(b"PK\x03\x04 not really a spreadsheet")
    (docs / "notes.odt").write_bytes(b"PK\x03\x04 an OpenDocument text")
    os.mkfifo(docs / "pipe.txt")  # reading it would block forever
    os.symlink("/dev/zero", docs / "zeros.txt")  # size 0, endless

    import citegraph.ingest.ingester as pipeline  # where ingest discovers the files

    real = pipeline.discover

    def discover_then_delete(paths, **options):  # type: ignore[no-untyped-def]
        found = list(real(paths, **options))
        (docs / "vanish.md").unlink()
        return found

    monkeypatch.setattr(pipeline, "discover", discover_then_delete)
    db = tmp_path / "bad.db"
    result = CliRunner().invoke(main, ["ingest", str(docs), "--db", str(db), "--embedder", "hashing", "--quiet", "--json"])
    assert result.exit_code == 3, result.output  # partial
    rows = {d["id"]: d for d in json.loads(result.stdout)["documents"]}
    expect = {
        "good.md": ("ok", ""),
        "sub/also-good.txt": ("ok", ""),
        "binary.txt": ("failed", "binary file"),
        "latin1.txt": ("failed", "not valid UTF-8 (byte 3)"),
        "empty.md": ("empty", "no text: the file is empty"),
        "huge.txt": ("failed", "the file is 50.0 MB, over the 10 MB limit"),
        "loop.txt": ("failed", "symbolic link loop"),
        "sub/up": ("skipped", "symbolic link to a folder: not followed"),
        "vanish.md": ("failed", "file disappeared before it could be read"),
        "table.xlsx": ("failed", "cannot read the workbook"),
        "notes.odt": ("skipped", "unsupported file type '.odt'"),
        "pipe.txt": ("failed", "not a regular file"),
        "zeros.txt": ("skipped", "symbolic link to a file outside the ingested folder"),
    }
    assert set(rows) == set(expect)
    for doc_id, (status, reason) in expect.items():
        assert rows[doc_id]["status"] == status, (doc_id, rows[doc_id])
        assert reason in (rows[doc_id]["reason"] or ""), (doc_id, rows[doc_id])
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        # the empty file is recorded (status empty), so ingesting it again is a no-op
        assert sorted(d.document.id for d in graph.documents()) == ["empty.md", "good.md", "sub/also-good.txt"]
        assert graph.check() == []

    # The limit is a setting: raised, the big file is read (and found to be binary zeros).
    monkeypatch.setattr(pipeline, "discover", real)
    again = CliRunner().invoke(
        main, ["ingest", str(docs / "huge.txt"), "--db", str(db), "--embedder", "hashing", "--quiet", "--json", "--max-file-mb", "60"]
    )
    (huge,) = json.loads(again.stdout)["documents"]
    assert huge["status"] == "failed" and "binary file" in huge["reason"]
    # A link to /dev/zero named on the command line is followed, and refused as no regular file.
    named = CliRunner().invoke(main, ["ingest", str(docs / "zeros.txt"), "--db", str(db), "--embedder", "hashing", "--quiet", "--json"])
    (zeros,) = json.loads(named.stdout)["documents"]
    assert zeros["status"] == "failed" and "not a regular file" in zeros["reason"]


def test_a_document_over_the_text_limit_is_refused_with_the_reason_and_the_others_are_ingested(tmp_path: Path) -> None:
    """The text limit (``--max-text-mb``) is read on the text, not the file: it says how large the
    text is, why there is a limit, and how to pass it; the documents beside it are ingested, by
    file and by text alike."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "long.md").write_text("Exports are kept for a month. " * 40_000, encoding="utf-8")  # 1.2 MB
    (docs / "short.md").write_text(POLICY, encoding="utf-8")
    db = tmp_path / "store.db"
    args = ["ingest", str(docs), "--db", str(db), "--embedder", "hashing", "--quiet", "--json"]
    result = CliRunner().invoke(main, [*args, "--max-text-mb", "1"])
    rows = {d["id"]: d for d in json.loads(result.stdout)["documents"]}
    assert rows["short.md"]["status"] == "ok"
    assert rows["long.md"]["status"] == "failed"
    assert "its text is 1.2 MB, over the 1 MB text limit" in rows["long.md"]["reason"] and "--max-text-mb" in rows["long.md"]["reason"]
    with CiteGraph(SQLiteStore(db), HashingEmbedder(), max_text_mb=0.001) as graph:
        report = graph.ingest_texts([TextInput("a.md", OLD_FAQ * 30), TextInput("b.md", POLICY)])
        assert [(d.id, d.status) for d in report.documents] == [("a.md", DocumentStatus.FAILED), ("b.md", DocumentStatus.OK)]
        assert "over the 0.001 MB text limit" in report.documents[0].reason
