import json, sys, time, numpy as np, torch
from transformers import AutoTokenizer, AutoModel
torch.set_num_threads(2)
P = "/tmp/mp/model/all-mpnet-base-v2"
tok = AutoTokenizer.from_pretrained(P); m = AutoModel.from_pretrained(P).eval()
def embed(texts, bs=32):
    out = []
    order = np.argsort([len(t) for t in texts])
    for i in range(0, len(texts), bs):
        idx = order[i:i+bs]
        b = tok([texts[j] for j in idx], padding=True, truncation=True, max_length=384, return_tensors="pt")
        with torch.no_grad():
            h = m(**b).last_hidden_state
        mask = b["attention_mask"].unsqueeze(-1).float()
        v = (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        v = torch.nn.functional.normalize(v, dim=-1).numpy()
        out.append((idx, v))
    res = np.zeros((len(texts), 768), dtype=np.float32)
    for idx, v in out: res[idx] = v
    return res
for name in sys.argv[1:]:
    t = time.time()
    d = json.load(open(f"/tmp/mp/{name}.json"))
    np.save(f"/tmp/mp/{name}-mpnet-spans.npy", embed(d["texts"]))
    np.save(f"/tmp/mp/{name}-mpnet-q.npy", embed([q["question"] for q in d["questions"]]))
    print(name, round(time.time() - t, 1), "s", flush=True)
