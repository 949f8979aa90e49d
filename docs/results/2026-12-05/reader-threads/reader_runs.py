import time, json
import numpy as np, onnxruntime as ort
from concurrent.futures import ThreadPoolExecutor
from citegraph.answer.reader import Reader, encode, readings, CARD_PATH
r = Reader()
card = json.loads(CARD_PATH.read_text())
model = str(CARD_PATH.parent / card["model_file"])
q = "How many days of paid holiday do full-time employees get a year?"
ps = ["Full-time employees in the United Kingdom and Portugal receive 25 days of paid holiday a year, plus the public holidays of the country they work in.",
      "If you are ill, tell your manager as early as you can, and before 10:00 on the first day at the latest, by message or phone."] * 8
feeds = [encode(r.tokenizer, q, [p])[0] for p in ps]
def bench(sess, workers, n=20):
    best = 1e9
    for _ in range(n):
        t = time.perf_counter()
        if workers == 1:
            outs = [sess.run(None, f) for f in feeds]
        else:
            with ThreadPoolExecutor(workers) as ex:
                outs = list(ex.map(lambda f: sess.run(None, f), feeds))
        best = min(best, time.perf_counter() - t)
    return best, outs
base, o1 = bench(r.session, 1)
so = ort.SessionOptions(); so.intra_op_num_threads = 1
s1 = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
one, o2 = bench(s1, 1)
par, o3 = bench(s1, 2)
ex = ThreadPoolExecutor(2)
def pooled(sess, n=20):
    best = 1e9
    for _ in range(n):
        t = time.perf_counter(); outs = list(ex.map(lambda f: sess.run(None, f), feeds)); best = min(best, time.perf_counter() - t)
    return best, outs
pool, o4 = pooled(s1)
same = all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(o1, o4))
print(f"16 runs: default session {base*1000:.1f} ms; 1 thread {one*1000:.1f}; 1 thread x2 parallel {par*1000:.1f}; pooled {pool*1000:.1f}; identical outputs {same}")
