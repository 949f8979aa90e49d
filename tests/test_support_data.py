"""The support checker's training set (bench/build_support_data.py) on the small shipped samples:
every item in exactly one split, the evaluation's test half kept for test, rule-built pairs beside
the pairs they came from, inputs pinned by sha256, and the same inputs giving the same files."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(ROOT / "bench"))

from build_support_data import LABELS, SPLITS, build, split_of  # noqa: E402


@pytest.fixture
def halueval_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "halueval"
    folder.mkdir()
    for task, sample in (
        ("dialogue", "halueval_dialogue_sample"),
        ("summarization", "halueval_summarization_sample"),
        ("qa", "halueval_sample"),
    ):
        shutil.copy(DATA / f"{sample}.jsonl", folder / f"dataset_halueval_{task}.jsonl")
    return folder


def _read(folder: Path, split: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_training_set_keeps_items_apart_and_builds_its_rule_pairs(tmp_path: Path, halueval_dir: Path) -> None:
    out = tmp_path / "out"
    manifest = build(
        halueval_dir=halueval_dir,
        hotpot=DATA / "hotpot_sample.json",
        attribution=DATA / "attributionbench_sample.jsonl",
        out=out,
    )
    rows = {split: _read(out, split) for split in SPLITS}
    everything = [r for split in SPLITS for r in rows[split]]
    assert everything and {r["label"] for r in everything} <= set(LABELS)
    where: dict[str, set[str]] = {}
    for r in everything:
        where.setdefault(r["item"], set()).add(r["split"])
    assert all(len(s) == 1 for s in where.values())  # an item never straddles two splits
    # the dialogue sample's "30 days" becomes "a month" and stays supported; some claim is made to contradict
    assert any(r["source"] == "built:equivalent" and "a month" in r["claim"] and r["label"] == "supported" for r in everything)
    assert any(r["source"].startswith("built:") and r["label"] == "contradicted" for r in everything)
    # the evaluation's test half of AttributionBench and HotpotQA is this set's test split, nothing else
    from citegraph.eval.support import is_dev

    for r in everything:
        if r["source"] in ("attributionbench", "hotpotqa"):
            group = int(r["item"].split(":")[1])
            assert (r["split"] == "test") == (not is_dev(group))
    for entry in manifest["inputs"]:
        path = next(
            p
            for p in [*halueval_dir.iterdir(), DATA / "hotpot_sample.json", DATA / "attributionbench_sample.jsonl"]
            if p.name == entry["file"]
        )
        assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert manifest["teacher_labels"] == 0 and sum(manifest["counts"][s]["pairs"] for s in SPLITS) == len(everything)

    again = build(
        halueval_dir=halueval_dir,
        hotpot=DATA / "hotpot_sample.json",
        attribution=DATA / "attributionbench_sample.jsonl",
        out=tmp_path / "again",
    )
    assert again["outputs"] == manifest["outputs"]  # byte for byte


def test_the_evaluations_test_half_and_length_shortcuts_stay_out_of_training(tmp_path: Path, halueval_dir: Path) -> None:
    from citegraph.eval.support import is_dev

    qa = [json.loads(line) for line in (halueval_dir / "dataset_halueval_qa.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = [i for i, q in enumerate(qa) if abs(len(q["right_answer"].split()) - len(q["hallucinated_answer"].split())) <= 1]
    assert 0 < len(kept) < len(qa)  # the sample has both kinds
    out = tmp_path / "out"
    build(halueval_dir=halueval_dir, hotpot=None, attribution=None, out=out)
    rows = [r for s in SPLITS for r in _read(out, s) if r["source"] == "halueval_qa"]
    assert {r["item"] for r in rows} == {f"halueval_qa:{i}" for i in kept}  # the length-matched lines, and only they
    for r in rows:  # a line the evaluation tests on is test here, never trained on
        assert (r["split"] == "test") == (not is_dev(int(r["item"].split(":")[1])))
    assert split_of("x") == split_of("x") and {split_of(str(i)) for i in range(200)} == set(SPLITS)


def test_sentences_in_their_passage_give_every_label_and_the_reprobes_framings_are_test_only(tmp_path: Path, halueval_dir: Path) -> None:
    from build_support_data import TEST_FRAMES, TRAIN_FRAMES

    out = tmp_path / "out"
    manifest = build(halueval_dir=halueval_dir, hotpot=None, attribution=None, out=out)
    rows = [r for s in SPLITS for r in _read(out, s)]
    sentence = [r for r in rows if r["source"] == "built:sentence"]
    assert sentence and all(r["label"] == "supported" and r["claim"] in r["premise"] for r in sentence)
    context = [r for r in rows if r["source"] == "built:context"]
    assert context and all(r["label"] == "neither" and r["claim"] not in r["premise"] for r in context)
    alone = [r for r in rows if r["source"] == "built:sentence:alone"]
    assert alone and all(r["premise"] == r["claim"] for r in alone)  # the cited sentence alone, as citegraph cites
    assert {r["source"] for r in rows} >= {"built:context:alone", "built:frame:alone"}
    framed = [r for r in rows if r["source"] == "built:frame"]
    assert framed and {r["label"] for r in framed} <= {"neither", "contradicted"}
    test_heads = [t.split("{")[0] for t, _ in TEST_FRAMES]
    assert not any(r["premise"].startswith(head) or f" {head}" in r["premise"] for r in rows for head in test_heads if len(head) > 5)
    assert not {t for t, _ in TRAIN_FRAMES} & {t for t, _ in TEST_FRAMES}
    framings = [json.loads(line) for line in (out / "framings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(r["split"] == "framings" for r in framings)
    assert {r["item"] for r in framings} <= {r["item"] for r in rows if r["split"] == "test"}
    assert "framings.jsonl" in manifest["outputs"]


@pytest.mark.parametrize(
    ("sentence", "moved"),
    [
        ("Snapshot exports remain available for 30 days after cancellation.", "Snapshot exports remain available until cancellation."),
        ("Refunds are issued within 14 days of purchase.", "Refunds are issued at purchase."),
        ("Exports are removed at cancellation.", "Exports are removed 30 days after cancellation."),
        ("The sky is blue.", None),
    ],
)
def test_a_moment_moved_is_a_contradiction_rule(sentence: str, moved: str | None) -> None:
    from build_support_data import _EVENTS
    from citegraph.eval.makers import moved_moment

    assert moved_moment(sentence, _EVENTS, "30 days") == moved


def test_digits_said_as_words_and_frames_filled() -> None:
    from build_support_data import _fill
    from citegraph.eval.makers import word_number

    assert word_number("He had 3 children and 12 dogs.") == "He had three children and 12 dogs."
    assert word_number("It cost $5 in 2019.") is None
    assert _fill("Suppose that {lc}", "Exports stay for 30 days.") == "Suppose that exports stay for 30 days."
    assert _fill("Suppose that {lc}", "NASA launched it.") == "Suppose that NASA launched it."
    assert _fill('"{s_comma}" he lied.', "Exports stay.") == '"Exports stay," he lied.'


def test_behaviour_families_train_in_their_documents_split_and_the_test_framings_stay_out(tmp_path: Path, halueval_dir: Path) -> None:
    from build_support_data import HELD_OUT_FAMILIES

    build(halueval_dir=halueval_dir, hotpot=None, attribution=None, out=tmp_path / "out")
    rows = {s: _read(tmp_path / "out", s) for s in SPLITS}
    family = [r for s in SPLITS for r in rows[s] if r["source"].startswith("family:")]
    names = {r["source"].removeprefix("family:") for r in family}
    assert {"identity", "negation", "name_swap"} <= names and not names & HELD_OUT_FAMILIES
    assert all(r["label"] == "supported" for r in family if r["source"] == "family:identity")
    assert all(r["label"] == "contradicted" for r in family if r["source"] in {"family:negation", "family:name_swap"})
    assert all(r["split"] == split_of(r["item"]) for r in family)  # in its document's split (build refuses an item in two)
