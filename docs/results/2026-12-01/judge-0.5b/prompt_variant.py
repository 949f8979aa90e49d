import json, sys, time
from citegraph.pipeline import make_verifier
from citegraph.llm.base import Message
from citegraph.verify.judge import p_yes
SYSTEM = "You are a fact checker. Answer only yes or no."
USER = "Document: {premise}\n\nClaim: {claim}\n\nIs the claim supported by the document? Answer only yes or no."
v = make_verifier('gguf:qwen2.5-coder-1.5b'); j = v.judge
out = {}
for name in ("halueval_qa", "hotpotqa", "attributionbench"):
    small = {(r["claim"], r["premise"]) for r in (json.loads(l) for l in open(f"/tmp/j05/out/{name}.pairs.jsonl")) if r["split"] == "dev"}
    big = [json.loads(l) for l in open(f"/tmp/cal/out/{name}.pairs.jsonl")]
    rows = [r for r in big if (r["claim"], r["premise"]) in small and r["split"] == "dev"]
    scored = []
    t0 = time.perf_counter()
    for r in rows:
        premise = " ".join(r["premise"].split())
        res = j.model.chat([Message("system", SYSTEM), Message("user", USER.format(premise=premise, claim=r["claim"]))], max_tokens=1, top_logprobs=j.top_logprobs)
        try:
            scored.append((p_yes(res.first_token_logprobs), r["score"], r["supported"]))
        except Exception:
            pass
    out[name] = scored
    def auc(idx):
        pos = [s[idx] for s in scored if s[2] and s[idx] is not None]; neg = [s[idx] for s in scored if not s[2] and s[idx] is not None]
        return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    def ba(idx):
        vals = sorted({s[idx] for s in scored if s[idx] is not None}); best = 0
        pos = [s[idx] for s in scored if s[2] and s[idx] is not None]; neg = [s[idx] for s in scored if not s[2] and s[idx] is not None]
        for t in vals:
            best = max(best, (sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2)
        return best
    print(f"{name}: n={len(scored)} variant AUROC {auc(0):.3f} BA {ba(0):.3f} | current AUROC {auc(1):.3f} BA {ba(1):.3f} | {(time.perf_counter()-t0)/max(len(rows),1):.2f}s/pair", flush=True)
json.dump({k: v for k, v in out.items()}, open("/tmp/exp/variant.json", "w"))
