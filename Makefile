# One-command set-up: every target creates .venv/ first if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_MODEL  := qwen2.5-coder-1.5b
SMALL_MODEL := smollm2-135m

.PHONY: setup demo test lint bench clean

# llama-cpp-python compiles llama.cpp from source (no wheel is served): a few minutes the first time.
# On a CPU with AMX, llama.cpp's AMX kernels (chosen for Q4_1/Q4_K weights) crashed every batched
# decode on a virtual machine here (segmentation fault; the same build with its extra buffer types
# off ran): there it is built for the native CPU without AMX.
NO_AMX := $(if $(shell grep -qs amx_tile /proc/cpuinfo && echo yes),-mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
LLAMA_CMAKE_ARGS := $(if $(NO_AMX),-DCMAKE_C_FLAGS="$(NO_AMX)" -DCMAKE_CXX_FLAGS="$(NO_AMX)")

$(STAMP): pyproject.toml constraints.txt Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# Built here, never taken from pip's wheel cache: a wheel cached by an earlier build may hold other CPU flags.
	CMAKE_ARGS='$(LLAMA_CMAKE_ARGS)' CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install -q --no-cache-dir -c constraints.txt 'llama-cpp-python[server]'
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,llm,serve,postgres,pgvector,ray,integrations]'
	touch $(STAMP)

setup: $(STAMP)

# The demo answers with the local Qwen model; if it cannot be pulled, the demo says so and quotes evidence instead.
demo: setup
	-$(BIN)/citegraph models pull $(DEMO_MODEL)
	$(BIN)/citegraph demo

test: setup
	$(BIN)/citegraph models pull $(SMALL_MODEL)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: setup
	$(BIN)/python bench/ingest.py --data ../shared/data/hotpotqa_distractor_sample100/hotpotqa_distractor_sample100.json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
