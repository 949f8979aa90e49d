"""The claim given as the answer alone (issue 10, item 3), dev only: the shipped judge prompt with the
hypothesis "A" instead of 'The answer to "Q" is: A', on the dev pairs the 1.5B and 0.5B runs both
scored; compared with the shipped claim form's scores from the 1.5B run.

    python run.py eval-results/judge-0.5b eval-results/full OUT halueval_qa hotpotqa
"""
import json, sys, time
from citegraph.components import make_verifier

SMALL_RUN, FULL_RUN, OUT = sys.argv[1:4]
names = sys.argv[4:] or ["halueval_qa", "hotpotqa"]
judge = make_verifier("gguf:qwen2.5-coder-1.5b").judge


def load(d, name):
    return {(r["claim"], r["premise"]): r for r in (json.loads(l) for l in open(f"{d}/{name}.pairs.jsonl"))}


def auc(pos, neg):
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def ba_best(pos, neg):
    return max((sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2 for t in set(pos + neg))


summary = {}
for name in names:
    small, big = load(SMALL_RUN, name), load(FULL_RUN, name)
    rows = [big[k] for k in small if k in big and small[k]["split"] == "dev"]
    scored, start = [], time.perf_counter()
    for r in rows:
        premise = " ".join(r["premise"].split())
        scored.append((judge.score(r["answer"], premise), r["score"], r["supported"]))
    seconds = (time.perf_counter() - start) / len(rows)
    result = {"pairs": len(rows), "seconds_per_pair": round(seconds, 2)}
    for i, label in ((0, "answer_alone"), (1, "shipped_claim")):
        pos = [s[i] for s in scored if s[2]]
        neg = [s[i] for s in scored if not s[2]]
        result[label] = {"auroc": round(auc(pos, neg), 3), "ba_best": round(ba_best(pos, neg), 3)}
    summary[name] = result
    print(name, result, flush=True)
json.dump(summary, open(f"{OUT}/summary.json", "w"), indent=1)
