import json, sys, time, statistics
from citegraph import CiteGraph
import citegraph.answer.reader as rd
db, corpus = sys.argv[1], sys.argv[2]
qs = [q["question"] for q in json.load(open(corpus))["questions"] if q["caller"] == ["public"]]
g = CiteGraph.open(db, create=False)
g.ask("What is this about?")
R = rd.default_reader()
orig = R.read
spent = [0.0]
def timed(*a, **k):
    t = time.perf_counter(); r = orig(*a, **k); spent[0] += time.perf_counter() - t; return r
R.read = timed
secs, out = [], []
for q in qs:
    t = time.perf_counter(); a = g.ask(q); secs.append(time.perf_counter() - t); out.append(f"{a.status.value}|{a.text}")
secs.sort()
print(f"n={len(qs)} p50={statistics.median(secs)*1000:.0f} ms p90={secs[int(0.9*len(secs))]*1000:.0f} reader total={spent[0]:.2f}s per q={spent[0]/len(qs)*1000:.0f} ms")
if len(sys.argv) > 3:
    json.dump(out, open(sys.argv[3], "w"))
