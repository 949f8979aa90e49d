import json, sys
def load(d, name):
    return {(r["claim"], r["premise"]): r for r in (json.loads(l) for l in open(f"{d}/{name}.pairs.jsonl"))}
def ba_best(rows):
    # balanced accuracy of the judge alone at the best threshold on these rows (dev choice) and AUROC
    sc = [(r["score"], r["supported"]) for r in rows if r["score"] is not None]
    pos = [s for s, y in sc if y]; neg = [s for s, y in sc if not y]
    auc = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    best = (0, None)
    for t in sorted({s for s, _ in sc}):
        tpr = sum(p >= t for p in pos) / len(pos); tnr = sum(n < t for n in neg) / len(neg)
        best = max(best, ((tpr + tnr) / 2, t))
    return best, auc, len(sc)
for name in ("halueval_qa", "hotpotqa", "attributionbench"):
    small = load("/tmp/judges/smol", name); big = load(sys.argv[2], name)
    common = [k for k in small if k in big and small[k]["split"] == "dev"]
    s_rows = [small[k] for k in common]; b_rows = [big[k] for k in common]
    (bs, ts), auc_s, n = ba_best(s_rows); (bb, tb), auc_b, _ = ba_best(b_rows)
    sec_s = sum(r["seconds"] for r in s_rows) / len(s_rows); sec_b = sum(r["seconds"] for r in b_rows) / len(b_rows)
    print(f"{name}: dev pairs in both runs {n}; small BA(best thr) {bs:.3f} AUROC {auc_s:.3f} {sec_s:.2f}s/pair | 1.5B BA {bb:.3f} AUROC {auc_b:.3f} {sec_b:.2f}s/pair")
