"""Dev-only experiments on bridge variants."""
import sys, itertools
from pathlib import Path
import numpy as np
sys.path.insert(0, "/work/main/bench")
from citegraph.eval.retrieval import Ranked, load, prepare, summarise
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import Bridge, Query, DensePassage

class Linked(Bridge):
    def __init__(self, linked=0.3, **kw):
        super().__init__(**kw); self.linked = linked
    def passage_scores(self, query, view):
        s = super().passage_scores(query, view)
        ids = [view.index[k] for k in query.linked_keys() if k in view.index]
        if ids and self.linked:
            ids = np.asarray(sorted(set(ids)))
            pointers, about = view.topic
            from citegraph.retrieve.arrays import gather
            cand, _o = gather(pointers, about, ids)
            bonus = np.zeros(len(s)); bonus[np.unique(cand)] = self.linked
            subj = np.isin(view.subjects, ids)
            s = s + bonus.astype(np.float32) + self.linked * subj.astype(np.float32)
        return s

split = sys.argv[1] if len(sys.argv) > 1 else "dev"
data = load(Path("/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json"))
questions = [q for q in data.questions if q.split == split]
variants = {"bridge": Bridge()}
for w in (0.1, 0.2, 0.3, 0.5):
    variants[f"linked{w}"] = Linked(linked=w)
    variants[f"linked{w}-emb"] = Linked(linked=w, embedded=True)
with CiteGraph.open(Path("/tmp/ev/hotpotqa_distractor_sample100.db"), "minilm") as graph:
    prepare(data, graph)
    r = graph.retriever
    view = r.view(["public"])
    vectors = graph.embedder.embed([q.text for q in questions])
    links = [r.link(q.text, view) for q in questions]
    print(split, len(questions))
    for name, mode in variants.items():
        ranked = []
        for q, v, l in zip(questions, vectors, links):
            query = Query(q.text, v, l, min_words=r.min_evidence_words, embed=graph.embedder.embed)
            ev, _ = mode.rank(query, view, 200)
            ranked.append(Ranked(q, [(e.span.document, e.span.start, e.span.end) for e in ev], 0.0))
        m = summarise(ranked, 8)
        print(f"{name:22s} ag@2 {m['all_gold'][2]:.3f} @5 {m['all_gold'][5]:.3f} @8 {m['all_gold'][8]:.3f} @10 {m['all_gold'][10]:.3f} ctx {m['context']['all_gold']:.3f} sR10 {m['sentence_recall'][10]:.3f}", flush=True)
