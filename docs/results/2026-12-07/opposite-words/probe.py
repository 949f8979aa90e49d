import sys, json, re, random, glob
sys.path.insert(0, "/work/main/src")
from citegraph.verify.cascade import CheckingVerifier
from citegraph.models import Span
from citegraph.sentences import SentenceSplitter
PAIRS = [("before","after"),("minimum","maximum"),("increase","decrease"),("increased","decreased"),("open","closed"),
 ("more","less"),("higher","lower"),("earliest","latest"),("first","last"),("start","end"),("includes","excludes"),
 ("required","optional"),("mandatory","optional"),("public","private"),("inside","outside"),("above","below"),("early","late"),
 ("always","never"),("all","no"),("allowed","forbidden"),("permitted","prohibited"),("larger","smaller"),("largest","smallest"),
 ("won","lost"),("older","younger"),("oldest","youngest"),("north","south"),("east","west"),("arrive","leave"),("buy","sell"),
 ("bought","sold"),("accepted","rejected"),("accept","refuse"),("approved","rejected"),("full","empty"),("free","paid"),
 ("cheaper","more expensive"),("longer","shorter"),("up","down"),("under","over"),("at least","at most"),("faster","slower")]
swap = {}
for a,b in PAIRS: swap[a]=b; swap[b]=a
texts = []
src = sys.argv[1]
if src == "corpora":
    for f in glob.glob("/work/main/corpora/*/docs/*"):
        if f.endswith((".md",".txt",".html")): texts.append(open(f, errors="ignore").read())
elif src == "hotpot":
    for row in json.load(open("/work/shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json")):
        for title, sents in row["context"]: texts.append(" ".join(sents))
elif src == "lihua":
    for f in glob.glob("/tmp/lhw/LiHua-World/week1*/*.txt"): texts.append(open(f).read())
sp = SentenceSplitter()
sents = [s.span.text for doc in sp.split_many([("t","v",t,"text/plain") for t in texts[:400]]) for s in doc]
rng = random.Random(3)
cases = []
for s in sents:
    if not (6 <= len(s.split()) <= 40): continue
    words = re.findall(r"\b[\w]+\b", s)
    cands = [w for w in words if w.lower() in swap]
    if not cands: continue
    w = rng.choice(cands)
    rep = swap[w.lower()]
    rep = rep.capitalize() if w[0].isupper() else rep
    claim = re.sub(rf"\b{re.escape(w)}\b", rep, s, count=1)
    cases.append((s, claim, w, rep))
rng.shuffle(cases)
cases = cases[:int(sys.argv[2]) if len(sys.argv) > 2 else 60]
v = CheckingVerifier(checker=True)
from collections import Counter
c = Counter()
for s, claim, w, rep in cases:
    sup = v.verify(claim, [Span("d","v",0,len(s),s)])
    c[sup.label] += 1
    if sup.label == "supported":
        print(f"SUPPORTED [{w}->{rep}] stage={sup.stage} score={sup.score}\n   P: {s[:160]}\n   C: {claim[:160]}")
print(src, len(cases), dict(c))
