from __future__ import annotations

import json
from pathlib import Path

import pytest

from citegraph.errors import InputFileError
from citegraph.extract import SpacyExtractor, entity_key, load_extractions
from citegraph.extract.imported import locate
from citegraph.models import Document
from citegraph.sentences import SentenceSplitter


def _extract(splitter: SentenceSplitter, text: str):  # type: ignore[no-untyped-def]
    doc = Document("d.md", "v1", text, "d.md")
    return SpacyExtractor(splitter).extract(doc, splitter.split(doc.id, doc.version, text))


def test_inflections_and_case_share_one_key(splitter: SentenceSplitter) -> None:
    keys = {entity_key(n, splitter.nlp) for n in ["Export", "export", "Exports", "exports"]}
    assert keys == {"export"}
    result = _extract(splitter, "Exports use the latest snapshot. An export is fast. Snapshots are kept.")
    assert {e.key for e in result.entities} >= {"export", "snapshot"}
    assert sorted({e.name for e in result.entities if e.key == "export"}) == ["Exports", "export"]


def test_every_entity_and_relation_points_at_its_own_sentence(splitter: SentenceSplitter) -> None:
    text = "Exports use the latest snapshot. The retention service deletes snapshots after 30 days."
    result = _extract(splitter, text)
    for e in result.entities:
        assert text[e.sentence.start : e.sentence.end] == e.sentence.text
        assert e.start is not None and e.end is not None
        assert text[e.start : e.end] == e.name
        assert e.sentence.start <= e.start < e.end <= e.sentence.end
    triples = {(r.source_key, r.type, r.target_key, r.sentence.text) for r in result.relations}
    assert ("export", "use", "snapshot", "Exports use the latest snapshot.") in triples
    assert ("retention service", "delete", "snapshot", text.split(". ")[1]) in triples
    assert ("retention service", "delete after", "30 day", text.split(". ")[1]) in triples


def test_negation_and_passive_are_kept_in_the_relation_type(splitter: SentenceSplitter) -> None:
    result = _extract(splitter, "Snapshots are not retained by the archive service.")
    assert any(r.type == "not retained by" and r.source_key == "snapshot" for r in result.relations)


def test_compound_nouns_link_to_their_head(splitter: SentenceSplitter) -> None:
    result = _extract(splitter, "Snapshot exports stay available for 30 days after cancellation.")
    assert ("snapshot export", "is a", "export") in {(r.source_key, r.type, r.target_key) for r in result.relations}
    assert ("snapshot export", "stay available for") in {(r.source_key, r.type) for r in result.relations}


def test_locate_is_whitespace_normalised_and_exact_otherwise() -> None:
    text = "Intro.\n\nExports  use the\nlatest snapshot. Tail."
    start, end = locate(text, "Exports use the latest snapshot.") or (0, 0)
    assert text[start:end] == "Exports  use the\nlatest snapshot."
    assert locate(text, "Exports use the newest snapshot.") is None


def test_malformed_extractions_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"document": "a.md", "entities": []}) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"x\.jsonl:2: invalid JSON"):
        load_extractions(path)
    path.write_text(json.dumps({"document": "a.md", "entities": [{"name": "X"}]}) + "\n", encoding="utf-8")
    with pytest.raises(InputFileError, match=r"x\.jsonl:1: entities\[0\] needs .*'source_sentence'"):
        load_extractions(path)
