import sys
from pathlib import Path
import numpy as np
from citegraph.eval.retrieval import Ranked, load, prepare, summarise
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import Bridge, Query, _eligible
from citegraph.models import Evidence

class Merged(Bridge):
    def __init__(self, lam=0.3, **kw):
        super().__init__(**kw); self.lam = lam
    def rank(self, query, view, limit):
        scores = self._scores(query, view)
        sims = query.sims(view)
        eligible = _eligible(view, query)
        dense = self._dense(view, query, scores, limit)
        f = {d: float(scores[d]) for d in dense}
        via = {}
        frontier = [(d, 0) for d in dense[: self.first_hops]]
        expanded = set()
        while frontier:
            d, level = frontier.pop(0)
            if level >= self.depth or d in expanded: continue
            expanded.add(d)
            best = self._best_bridge(view, d, scores, sims, {d})
            if best is None: continue
            b, c, e = best
            # a bridge's key: its bridge score, discounted, but never above the passage that named it
            key = min(b - self.lam, f[d] - 1e-6) if self.cap else b - self.lam
            if key > f.get(c, -9):
                f[c] = key; via[c] = (d, e)
            frontier.append((c, level + 1))
        order = sorted(f, key=lambda d: (-f[d], d))
        picked, rest = [], []
        bridge_entity = {nb: e for _c, (nb, e) in via.items()}
        for d in order:
            in_passage = view.spans_in(d)
            local = dict(zip(in_passage.tolist(), np.asarray(sims[in_passage]).tolist()))
            spans = [i for i in local if eligible[i]]
            spans.sort(key=lambda i: (-local[i], i))
            lead = []
            if d in via:
                fs = int(view.first_spans[d])
                if eligible[fs]: lead.append(fs)
            elif d in bridge_entity:
                lead += [i for i in spans if bridge_entity[d] in view.entities_of(i)][:1]
            lead += [i for i in spans if i not in lead]
            picked += lead[: self.per_passage]; rest += lead[self.per_passage:]
            if len(picked) >= limit: break
        ranked = (picked + rest)[:limit]
        return [Evidence(view.span(i), float(sims[i]), float(sims[i]), "passage") for i in ranked], []

split = sys.argv[1] if len(sys.argv) > 1 else "dev"
data = load(Path("/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json"))
questions = [q for q in data.questions if q.split == split]
variants = {"bridge": Bridge(), "bridge-emb": Bridge(embedded=True)}
for cap in (False, True):
    for lam in (0.0, 0.2, 0.4, 0.6, 0.8):
        for emb in (False, True):
            m = Merged(lam=lam, embedded=emb); m.cap = cap
            variants[f"merged{lam}{'-cap' if cap else ''}{'-emb' if emb else ''}"] = m
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
