# As run for README.md: for each dev question of the named corpora, the best "a context line asks, the next replies"
# pair and its similarity. Run from the repository root: python asked_lines.py brightwave riverside-libraries harbourline
# (it copies stores of an earlier `eval answers --out` run from /tmp/s18/hop1/co; change the path for yours).
import sys, json
from citegraph.pipeline import CiteGraph
from citegraph.answer.extractive import _asks, _beside
from citegraph.eval.answers import said
out=[]
def run(db, questions):
    g = CiteGraph.open(db, "minilm")
    for q in questions:
        a = g.ask(q["question"], labels=q.get("caller",["public"]))
        best=None
        for c in a.context:
            if _asks(c):
                r=_beside(a.context, c.span, {c.marker}, after=True)
                if r is not None and not _asks(r):
                    s=c.evidence.similarity
                    if best is None or s>best[0]:
                        best=(s, r.span.text[:80], c.span.text[:80])
        out.append(dict(id=q["id"], kind=q["kind"], split=q["split"], answerable=bool(q["answers"]) , status=str(a.status), best=best,
                        p=a.answerability.probability if a.answerability else None))
        print(q["id"], q["kind"], a.status, best and round(best[0],3), best and best[2][:60], "->", best and best[1][:60], flush=True)
for c in sys.argv[1:]:
    qs=[x for x in json.load(open(f"corpora/{c}/corpus.json"))["questions"] if x["split"]=="dev" and x["kind"]!="summary"]
    import shutil; shutil.copy(f"/tmp/s18/hop1/co/answers-{c}.db", f"/tmp/asked-{c}.db")
    run(f"/tmp/asked-{c}.db", qs)
json.dump(out, open("/tmp/asked.json","w"))
