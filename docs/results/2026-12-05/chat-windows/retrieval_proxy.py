"""Retrieval proxy: corpora dev gold@8 and LiHua Single gold-text@8 / evidence@8."""
import json, re, sys, os, time
from pathlib import Path
sys.path.insert(0, '/work/main/bench')
from citegraph.pipeline import CiteGraph
from citegraph.eval.corpus import load_corpus
from lihua import contained
K = int(os.environ.get('K', '8'))
split = os.environ.get('SPLIT', 'dev')
out = {}
t0 = time.time()
per = []
for name, folder in [('brightwave', 'corpora/brightwave'), ('riverside-libraries', 'corpora/riverside-libraries')]:
    corpus = load_corpus(Path(folder))
    with CiteGraph.open(f'/tmp/h0/answers-{name}.db', 'minilm') as g:
        for q in corpus.questions:
            if not q.gold or q.split != split: continue
            r = g.retriever.retrieve(q.question, labels=q.caller)
            if r.summary is not None: continue
            ev = [' '.join(e.span.text.split()).lower() for e in r.evidence[:K]]
            ok = []
            for gd in q.gold:
                quote = ' '.join((gd['quote'] if isinstance(gd, dict) else gd.quote).split()).lower()[:60]
                ok.append(any(quote in t or t[:60] in quote for t in ev))
            per.append((q.id, all(ok)))
out['corpora'] = sum(x for _, x in per) / len(per)
qs = json.load(open('/work/shared/data/lihua_world_dev/query_set_dev.json'))
lh = []
with CiteGraph.open('/tmp/lihua.db', 'minilm') as g:
    stems = {Path(d.document.id).stem: d.document.id for d in g.store.documents(None)}
    for qid, q in sorted(qs.items(), key=lambda kv: int(kv[0])):
        if q['type'] != 'Single': continue
        r = g.retriever.retrieve(q['question'], labels=None)
        ev = r.evidence[:K]
        text = ' '.join(e.span.text for e in ev)
        docs = {e.span.document for e in ev}
        evid = [stems.get(e.strip().replace(':', '')) for e in q['evidence'].split('<and>')]
        lh.append((qid, contained(q['answer'], text), all(e in docs for e in evid)))
out['lihua_gold'] = sum(x[1] for x in lh) / len(lh)
out['lihua_sess'] = sum(x[2] for x in lh) / len(lh)
out['secs'] = round(time.time() - t0)
print(json.dumps(out))
tag = os.environ.get('TAG')
if tag:
    json.dump({'corpora': per, 'lihua': lh}, open(f'/tmp/exp/{tag}.json', 'w'))
