"""Write behaviour cases (citegraph.eval.behaviour) from text of one or more kinds, for
`citegraph eval support --data CASES.jsonl`.

    python bench/build_behaviour.py --texts tests/data/behaviour_texts.json --out cases.jsonl
    python bench/build_behaviour.py --halueval-summarization FILE --lihua-zip ../shared/data/lihua_world_dev/LiHuaWorld.zip \
        --hotpot ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json --per-kind 40 --out held-out.jsonl

--texts reads {kind: [[sentence, ...], ...]} (the suite's own texts). The other sources are text the
project does not ship: HaluEval summarization's CNN/DailyMail documents (news), LiHua-World's chat
logs (chat), HotpotQA paragraphs (encyclopedia); --per-kind passages of each are sampled with a
fixed seed. Sentences are cut by the product's splitter. ``--news-split test`` keeps only the news
documents in the test split of ``build_support_data.py`` (the checker's third training round learnt
behaviour families from news documents of the train split; chat and encyclopedia text never).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import sys
import zipfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from citegraph.eval.behaviour import make_cases
from citegraph.sentences import SentenceSplitter, load_spacy


def _passages(texts: list[str], splitter: SentenceSplitter, size: int = 4) -> list[list[str]]:
    """Each text cut into sentences by the product's splitter, in runs of ``size`` (sentences of 4 to 40 words)."""
    out = []
    for sentences in splitter.split_many([("t", "v", text, "text/plain") for text in texts]):
        found = [s.span.text for s in sentences if 4 <= len(s.span.text.split()) <= 40]
        out += [found[at : at + size] for at in range(0, len(found), size)]
    return [p for p in out if p]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=Path, help="{kind: [[sentence, ...], ...]}")
    parser.add_argument("--halueval-summarization", type=Path, help="HaluEval summarization JSON lines (its documents: news)")
    parser.add_argument("--lihua-zip", type=Path, help="LiHuaWorld.zip (its chat logs: chat)")
    parser.add_argument("--hotpot", type=Path, help="HotpotQA distractor JSON (its paragraphs: encyclopedia)")
    parser.add_argument("--per-kind", type=int, default=40, help="passages sampled of each outside kind")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--news-split", choices=("train", "dev", "test"), help="only news documents of this split of the support data")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    splitter = SentenceSplitter()
    kinds: dict[str, list[list[str]]] = {}
    if args.texts:
        for kind, passages in json.loads(args.texts.read_text(encoding="utf-8")).items():
            if not kind.startswith("_"):
                kinds[kind] = passages
    if args.halueval_summarization:
        rows = [json.loads(line) for line in args.halueval_summarization.read_text(encoding="utf-8").splitlines() if line.strip()]
        if args.news_split:
            from build_support_data import split_of

            rows = [r for r in rows if split_of("halueval_summarization:" + " ".join(str(r["document"]).split())) == args.news_split]
        docs = [r["document"] for r in rng.sample(rows, min(args.per_kind, len(rows)))]
        kinds["news"] = _passages([" ".join(d.split()[:120]) for d in docs], splitter)[: args.per_kind]
    if args.lihua_zip:
        with zipfile.ZipFile(args.lihua_zip) as z:
            names = sorted(n for n in z.namelist() if n.endswith(".txt"))
            picked = rng.sample(names, min(args.per_kind, len(names)))
            texts = [io.TextIOWrapper(z.open(n), encoding="utf-8").read()[:1500] for n in picked]
        kinds["chat"] = _passages(texts, splitter)[: args.per_kind]
    if args.hotpot:
        rows = json.loads(args.hotpot.read_text(encoding="utf-8"))
        paragraphs = [" ".join(sentences) for row in rows for _title, sentences in zip(*row["context"].values(), strict=False)]
        kinds["encyclopedia"] = _passages(rng.sample(paragraphs, min(args.per_kind, len(paragraphs))), splitter)[: args.per_kind]
    nlp = load_spacy()
    cases = [case for kind, passages in kinds.items() for case in make_cases(kind, passages, nlp, seed=args.seed)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as handle:
        for case in cases:
            handle.write(json.dumps(case.to_json(), ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases to {args.out}: {dict(Counter(c.family for c in cases))}")


if __name__ == "__main__":
    main()
