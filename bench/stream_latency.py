"""How soon a streamed answer's first token reaches the client, against the model's own first token.

Issue 38, item 2: "first token within the model's own first-token time plus 100 ms". A live server
(uvicorn on 127.0.0.1) over the bundled Larkspur handbook answers with an in-process GGUF model
(default: SmolLM2-135M, `citegraph models pull smollm2-135m`); for each question this times, over
HTTP, from the ``stage: answering`` event (retrieval and the answerability check done, the model
asked) to the first ``token`` event, and, in the same process right after, the model's own time to
its first piece on the same prompt (``ChatModel.stream`` called directly). Prints both and the
overhead (their difference), per question and as medians.

    python bench/stream_latency.py [--model gguf:smollm2-135m] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import tempfile
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

import httpx

from citegraph.llm.base import Message

QUESTIONS = (
    "How long do exports stay available after cancellation?",
    "Who approves exports?",
    "What happens to billing when I cancel?",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="gguf:smollm2-135m")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import uvicorn

    from citegraph.answer.llm_answerer import LLMAnswerer
    from citegraph.components import GraphSpec
    from citegraph.pipeline import CiteGraph
    from citegraph.serve.app import create_app
    from citegraph.serve.tokens import TokenStore

    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("citegraph.demo") / "larkspur") as handbook:
        db = Path(tmp) / "bench.db"
        graph = CiteGraph.from_spec(GraphSpec(db=str(db), generator=args.model, verifier="checker"))
        graph.ingest([handbook])
        answerer = graph.answerer
        assert isinstance(answerer, LLMAnswerer), "the generator must be a language model"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = uvicorn.Server(uvicorn.Config(create_app(graph, TokenStore(db)), host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        rows = []
        with httpx.Client(timeout=300) as client:
            for question in QUESTIONS * args.repeat:
                # the model alone, on the prompt the answerer will send, from a cache that holds none of it
                # (llama.cpp reuses the longest prefix it evaluated last: both timings start after an unrelated prompt)
                messages = answerer.messages(question, graph.ask(question, answer_text="").context)
                _reset(answerer)
                start = time.perf_counter()
                next(iter(answerer.model.stream(messages, max_tokens=answerer.max_tokens)))
                alone = time.perf_counter() - start
                _reset(answerer)
                asked = first = None
                with client.stream("POST", f"http://127.0.0.1:{port}/ask/stream", json={"question": question}) as response:
                    kind = None
                    for line in response.iter_lines():
                        if line.startswith("event: "):
                            kind = line[7:]
                        elif line.startswith("data: ") and kind is not None:
                            now = time.perf_counter()
                            if kind == "stage" and json.loads(line[6:]) == "answering":
                                asked = now
                            elif kind == "token" and first is None:
                                first = now
                if asked is None or first is None:
                    print(f"{question!r}: no model answer (not found, or nothing streamed)")
                    continue
                rows.append((question, first - asked, alone))
                print(f"{question[:50]:50}  served {1000 * (first - asked):7.1f} ms  model alone {1000 * alone:7.1f} ms")
        server.should_exit = True
        thread.join(10)
        graph.close()
    if rows:
        served = statistics.median(r[1] for r in rows)
        alone = statistics.median(r[2] for r in rows)
        print(
            f"median: first token served {1000 * served:.1f} ms, the model's own {1000 * alone:.1f} ms, overhead {1000 * (served - alone):.1f} ms"
        )


def _reset(answerer: Any) -> None:
    """Evaluate an unrelated prompt, so that the next one shares no cached prefix with the last."""
    answerer.model.chat([Message("user", "Count from one to three.")], max_tokens=1)


if __name__ == "__main__":
    main()
