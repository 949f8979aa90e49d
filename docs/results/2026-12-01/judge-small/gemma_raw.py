"""Gemma 3 270M (base model, no chat template) as a raw-completion judge on the dev pairs both earlier runs scored."""
import json, math, sys, time
import numpy as np
from llama_cpp import Llama
llm = Llama("gemma-3-270m-q4_k_m.gguf", n_ctx=4096, n_threads=2, logits_all=False, verbose=False)
PROMPT = "Premise: {premise}\nHypothesis: {claim}\nQuestion: Is the hypothesis fully supported by the premise? Answer yes or no.\nAnswer:"
def load(d, name):
    return {(r["claim"], r["premise"]): r for r in (json.loads(l) for l in open(f"{d}/{name}.pairs.jsonl"))}
out = {}
for name in ("halueval_qa", "hotpotqa", "attributionbench"):
    small = load(sys.argv[1], name); big = load(sys.argv[2], name)  # --out folders of the 0.5B run and the 1.5B run
    rows = [big[k] for k in small if k in big and small[k]["split"] == "dev"]
    scored = []; t0 = time.perf_counter()
    for r in rows:
        premise = " ".join(r["premise"].split())
        text = PROMPT.format(premise=premise, claim=r["claim"])
        if len(llm.tokenize(text.encode())) > 4000:
            continue
        toks = llm.tokenize(text.encode(), add_bos=True)
        llm.reset(); llm.eval(toks)
        logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),)).astype(np.float64)
        lp = logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
        top = {}
        for t in np.argsort(-lp)[:20]:
            k = llm.detokenize([int(t)]).decode("utf-8", errors="replace"); top[k] = max(top.get(k, -1e9), float(lp[t]))
        yes = sum(math.exp(v) for k, v in top.items() if k.strip().lower() == "yes")
        no = sum(math.exp(v) for k, v in top.items() if k.strip().lower() == "no")
        if yes + no == 0:
            continue
        scored.append((yes / (yes + no), r["score"], r["supported"]))
    secs = (time.perf_counter() - t0) / max(len(rows), 1)
    def auc(i):
        pos = [s[i] for s in scored if s[2]]; neg = [s[i] for s in scored if not s[2]]
        return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    def ba(i):
        pos = [s[i] for s in scored if s[2]]; neg = [s[i] for s in scored if not s[2]]; best = 0
        for t in sorted({s[i] for s in scored}):
            best = max(best, (sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2)
        return best
    out[name] = {"pairs": len(rows), "scored": len(scored), "auroc": auc(0), "ba_best": ba(0), "auroc_1.5b": auc(1), "ba_best_1.5b": ba(1), "s_per_pair": secs}
    print(name, out[name], flush=True)
json.dump(out, open("gemma3-270m-raw.json", "w"), indent=1)
