import json, sys, numpy as np
sys.path.insert(0, "/work/main/bench")
from citegraph import CiteGraph
out = {}
def dump(db, name, questions):
    g = CiteGraph.open(db, create=False)
    views = {}
    for q in questions:
        key = tuple(sorted(q["caller"]))
        if key not in views:
            v = g.retriever.view(key)
            views[key] = v
    # union of spans by (doc, start)
    spans = {}
    for key, v in views.items():
        for i in range(v.n_spans):
            s = v.span(i)
            spans.setdefault((s.document, s.start), [s.text, set()])[1].add(key)
    items = sorted(spans.items())
    texts = [t for (_k, (t, _l)) in items]
    docs = [k[0] for (k, _v) in items]
    vis = [[",".join(l) for l in sorted(v[1])] for (_k, v) in items]
    emb = g.embedder.embed(texts)
    qv = g.embedder.embed([q["question"] for q in questions])
    np.save(f"/tmp/mp/{name}-minilm-spans.npy", np.asarray(emb, dtype=np.float32))
    np.save(f"/tmp/mp/{name}-minilm-q.npy", np.asarray(qv, dtype=np.float32))
    json.dump({"texts": texts, "docs": docs, "vis": vis, "questions": questions}, open(f"/tmp/mp/{name}.json", "w"))
    print(name, len(texts), len(questions))
for c in ["brightwave", "riverside-libraries"]:
    qs = [q for q in json.load(open(f"/work/main/corpora/{c}/corpus.json"))["questions"] if (q.get("answers") or q.get("required")) and q["kind"] != "summary"]
    dump(f"/tmp/base/co/answers-{c}.db", c, qs)
lh = json.load(open("/work/shared/data/lihua_world_dev/query_set_dev.json"))
qs = [dict(q, id=k, caller=["public"], split="dev") for k, q in lh.items() if q["type"].lower() != "null"]
dump("/tmp/lihua.db", "lihua", qs)
