"""A GGUF model run in-process by llama-cpp-python: no server at all."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

from citegraph.errors import MissingExtra, ModelOutputError, ModelUnavailable
from citegraph.llm.base import ChatModel, ChatResult, Message, wire
from citegraph.llm.openai_compat import parse_completion
from citegraph.llm.registry import find_model

__all__ = ["GGUFChat"]


@lru_cache(maxsize=2)
def _load(path: str, n_ctx: int, threads: int) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise MissingExtra("a local GGUF model", "llama-cpp-python", "llm", "compiles llama.cpp, a few minutes") from exc
    try:
        # logits_all stays off: only the last token's logits are needed, and all of them cost n_ctx x vocab floats.
        # llama-cpp-python's defaults (half the cores for generation, all for the prompt) are kept unless
        # CITEGRAPH_THREADS says otherwise: with OpenMP, all cores on a machine that is busy with anything
        # else was measured 7x slower, not faster.
        return Llama(
            model_path=path,
            n_ctx=n_ctx,
            n_threads=threads or None,
            n_threads_batch=threads or None,
            verbose=False,
            seed=0,
            logits_all=False,
        )
    except (ValueError, RuntimeError) as exc:
        raise ModelUnavailable(f"gguf: cannot load {path}: {exc}") from exc


class GGUFChat(ChatModel):
    exposes_state = True

    def __init__(self, model: str, *, n_ctx: int = 4096, threads: int = 0) -> None:
        self.path = find_model(model)
        self.name = f"gguf:{model}"
        self.llm = _load(str(self.path), n_ctx, threads or int(os.environ.get("CITEGRAPH_THREADS", "0")))

    def chat(
        self, messages: Sequence[Message], *, schema: dict[str, Any] | None = None, max_tokens: int = 512, top_logprobs: int = 0
    ) -> ChatResult:
        if top_logprobs and max_tokens == 1 and schema is None:
            return self._first_token(messages, top_logprobs)
        kwargs: dict[str, Any] = {}
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        if top_logprobs:
            # llama-cpp-python only reports logprobs with logits_all=True (n_ctx x vocab floats); the one
            # case citegraph needs them, a one-token answer, is served by _first_token instead.
            raise ModelOutputError(f"{self.name}: token logprobs are only available for one-token answers in-process")
        try:
            data = self._complete(messages, max_tokens, **kwargs)
        except ValueError as exc:  # e.g. the prompt is longer than the context window
            raise ModelOutputError(f"{self.name}: {exc}") from exc
        return parse_completion(data, self.name)

    def stream(self, messages: Sequence[Message], *, max_tokens: int = 512) -> Iterator[str]:
        """llama.cpp's completion token by token (``stream=True``): each chunk's delta."""
        try:
            for chunk in self._complete(messages, max_tokens, stream=True):
                piece = chunk["choices"][0]["delta"].get("content") or ""  # type: ignore[index,union-attr]
                if piece:
                    yield piece
        except ValueError as exc:  # e.g. the prompt is longer than the context window
            raise ModelOutputError(f"{self.name}: {exc}") from exc

    def _complete(self, messages: Sequence[Message], max_tokens: int, **extra: Any) -> Any:
        """llama.cpp's chat completion at temperature 0 with a fixed seed (whole, or ``stream=True``)."""
        return self.llm.create_chat_completion(
            messages=wire(messages),  # type: ignore[arg-type]
            temperature=0.0,
            max_tokens=max_tokens,
            seed=0,
            **extra,
        )

    def first_token(self, messages: Sequence[Message], *, top_logprobs: int = 10, state: bool = False) -> ChatResult:
        return self._first_token(messages, top_logprobs, state=state)

    def _eval_all_outputs(self, tokens: Sequence[int]) -> None:
        """``Llama.eval`` with every position marked as an output, as llama.cpp needs with embeddings on
        (it would mark them itself, with a warning on stderr at every call)."""
        llm = self.llm
        llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
        for i in range(0, len(tokens), llm.n_batch):
            batch = list(tokens[i : i + llm.n_batch])
            n_past = llm.n_tokens
            llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=True)
            llm._ctx.decode(llm._batch)
            llm.input_ids[n_past : n_past + len(batch)] = batch
            llm.n_tokens += len(batch)

    def _prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        llm = self.llm
        template = llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelUnavailable(f"{self.name}: the GGUF file has no chat template")
        eos, bos = llm.token_eos(), llm.token_bos()
        formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=llm._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llm._model.token_get_text(bos) if bos != -1 else "",
        )
        result = formatter(messages=wire(messages))  # type: ignore[arg-type]
        return list(llm.tokenize(result.prompt.encode("utf-8"), add_bos=not result.added_special, special=True))

    def _first_token(self, messages: Sequence[Message], k: int, *, state: bool = False) -> ChatResult:
        """Log-probabilities of the first answer token, from the last position's logits only, and with
        ``state`` the last position's hidden state (llama.cpp's embeddings output: after the final norm).

        The evaluated prefix shared with the previous call (the instructions, often the premise too)
        is kept in llama.cpp's KV cache and not evaluated again. Embeddings are switched on for this
        call only: with them on, llama.cpp outputs every position of the batch (about 15% slower).
        """
        import llama_cpp
        import numpy as np

        llm = self.llm
        tokens = self._prompt_tokens(messages)
        if len(tokens) >= llm.n_ctx():
            raise ModelOutputError(f"{self.name}: prompt of {len(tokens)} tokens exceeds the context of {llm.n_ctx()}")
        common = 0
        for held, new in zip(llm.input_ids[: llm.n_tokens], tokens[:-1], strict=False):
            if held != new:
                break
            common += 1
        llm.n_tokens = common
        if state:
            llama_cpp.llama_set_embeddings(llm._ctx.ctx, True)
        try:
            if state:
                self._eval_all_outputs(tokens[common:])
            else:
                llm.eval(tokens[common:])
            hidden = (
                tuple(float(v) for v in np.ctypeslib.as_array(llama_cpp.llama_get_embeddings_ith(llm._ctx.ctx, -1), shape=(llm.n_embd(),)))
                if state
                else None
            )
        finally:
            if state:
                llama_cpp.llama_set_embeddings(llm._ctx.ctx, False)
        logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),)).astype(np.float64)
        logprobs = logits - (logits.max() + np.log(np.exp(logits - logits.max()).sum()))
        top = np.argsort(-logprobs)[:k]
        first: dict[str, float] = {}
        for token_id in top:
            text = llm.detokenize([int(token_id)]).decode("utf-8", errors="replace")
            first[text] = max(first.get(text, float("-inf")), float(logprobs[token_id]))
        best = llm.detokenize([int(top[0])]).decode("utf-8", errors="replace")
        return ChatResult(best, first, hidden)
