import json, sys
def auc(pos, neg):
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
def ba_best(pos, neg):
    best = 0
    for t in sorted(set(pos + neg)):
        best = max(best, (sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2)
    return best
OUT = sys.argv[1]
for name in sys.argv[2:]:
    rows = []
    for f in (f"{OUT}/{name}.both.jsonl", f"{OUT}/{name}.jsonl"):
        try:
            rows += [json.loads(l) for l in open(f)]
        except FileNotFoundError:
            pass
    rows = [r for r in rows if "error" not in r]
    for key in ("shipped_run_score", "new_support"):
        pos = [r[key] for r in rows if r["supported"]]; neg = [r[key] for r in rows if not r["supported"]]
        print(f"{name} n={len(rows)} {key}: AUROC {auc(pos, neg):.3f} BA(best) {ba_best(pos, neg):.3f}")
    s = [r["new_support_s"] for r in rows]; c = [r["new_contra_s"] for r in rows]
    print(f"  new support s {sum(s)/len(s):.2f}  new contra s (prefix reused) {sum(c)/len(c):.2f}")
    both = [r for r in rows if "old_contra_s" in r]
    if both:
        print(f"  same-process pairs {len(both)}: old support {sum(r['old_support_s'] for r in both)/len(both):.2f} old contra {sum(r['old_contra_s'] for r in both)/len(both):.2f} new support {sum(r['new_support_s'] for r in both)/len(both):.2f} new contra {sum(r['new_contra_s'] for r in both)/len(both):.2f}")
    # contradiction agreement: how often P(contra)>=0.5 among unsupported by each
    nc = [r["new_contra"] for r in rows]
    print(f"  new contra >=0.5 on supported {sum(r['new_contra']>=0.5 for r in rows if r['supported'])}/{sum(r['supported'] for r in rows)}, on unsupported {sum(r['new_contra']>=0.5 for r in rows if not r['supported'])}/{sum(not r['supported'] for r in rows)}")
