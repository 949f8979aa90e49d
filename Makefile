# One-command set-up: every target creates .venv/ first if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_MODEL  := qwen2.5-coder-1.5b
SMALL_MODEL := smollm2-135m

.PHONY: setup demo test lint bench clean

# llama-cpp-python compiles llama.cpp from source (no wheel is served): a few minutes the first time.
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,llm,serve,postgres,pgvector,ray]'
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
