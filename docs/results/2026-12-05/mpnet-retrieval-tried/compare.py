import json, sys, numpy as np, collections
sys.path.insert(0, "/work/main/bench"); sys.path.insert(0, "/work/main/src")
from citegraph.eval.answers import said
from lihua import contained
K = int(sys.argv[1]) if len(sys.argv) > 1 else 8
for name in ["brightwave", "riverside-libraries", "lihua"]:
    d = json.load(open(f"/tmp/mp/{name}.json"))
    res = {}
    for model in ["minilm", "mpnet"]:
        try:
            S = np.load(f"/tmp/mp/{name}-{model}-spans.npy"); Q = np.load(f"/tmp/mp/{name}-{model}-q.npy")
        except FileNotFoundError:
            continue
        kinds = collections.defaultdict(lambda: [0, 0])
        for qi, q in enumerate(d["questions"]):
            if q["split"] != "dev": continue
            key = ",".join(sorted(q["caller"]))
            ok_vis = np.array([key in v for v in d["vis"]])
            sims = S @ Q[qi]
            sims[~ok_vis] = -9
            top = np.argsort(-sims)[:K]
            text = " ".join(d["texts"][i] for i in top)
            if name == "lihua":
                ok = contained(q["answer"], text)
                kind = q["type"]
            else:
                ok = (not q["answers"] or said(q["answers"], text)) and all(said(g, text) for g in q.get("required") or ())
                kind = q["kind"]
            kinds[kind][0] += 1; kinds[kind][1] += ok
        tot = [sum(v[0] for v in kinds.values()), sum(v[1] for v in kinds.values())]
        res[model] = (round(tot[1] / tot[0], 3), {k: f"{v[1]}/{v[0]}" for k, v in sorted(kinds.items())})
    print(name, json.dumps(res))
