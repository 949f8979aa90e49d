"""The language-model judge: does the cited text (premise) fully support the claim (hypothesis)?

It reads the answer's first-token log-probabilities: ``P(yes) / (P(yes) + P(no))``, summing case and
spacing variants of each word. The prompt starts with the fixed instructions and then the premise, so
consecutive checks of one span share a prefix that llama.cpp keeps in its KV cache, and only one
token is generated. Ollama's ``bespoke-minicheck`` is used through the same interface with its own
document/claim prompt. The judge is the last stage of the cascade (:mod:`citegraph.verify.cascade`).
"""

from __future__ import annotations

import math

from citegraph.errors import ModelOutputError
from citegraph.llm.base import ChatModel, Message
from citegraph.prompts import load_prompt, render
from citegraph.verify.calibration import prompt_version

__all__ = ["LLMJudge", "p_yes"]


def p_yes(first_token_logprobs: dict[str, float]) -> float:
    """``P(yes) / (P(yes) + P(no))`` over case and spacing variants; ModelOutputError if neither is there."""
    yes = sum(math.exp(lp) for tok, lp in first_token_logprobs.items() if tok.strip().lower() == "yes")
    no = sum(math.exp(lp) for tok, lp in first_token_logprobs.items() if tok.strip().lower() == "no")
    if yes + no == 0:
        raise ModelOutputError(f"neither yes nor no among the first-token candidates {sorted(first_token_logprobs)[:10]}")
    return yes / (yes + no)


class LLMJudge:
    def __init__(self, model: ChatModel, *, top_logprobs: int = 10) -> None:
        self.model = model
        self.top_logprobs = top_logprobs
        self.minicheck = "minicheck" in model.name.lower()
        self.name = model.name

    @property
    def prompt(self) -> str:
        """The version of the support prompt (a calibration record applies to one version)."""
        return prompt_version(("minicheck_user",) if self.minicheck else ("judge_system", "judge_user"))

    def messages(self, claim: str, premise: str) -> list[Message]:
        if self.minicheck:  # bespoke-minicheck's own format: no system prompt
            return [Message("user", render("minicheck_user", premise=premise, claim=claim).strip())]
        return [
            Message("system", load_prompt("judge_system").strip()),
            Message("user", render("judge_user", premise=premise, claim=claim).strip()),
        ]

    def score(self, claim: str, premise: str) -> float:
        result = self.model.chat(self.messages(claim, premise), max_tokens=1, top_logprobs=self.top_logprobs)
        return p_yes(result.first_token_logprobs)

    def contradiction(self, claim: str, premise: str) -> float | None:
        """P(the premise contradicts the claim); None for checkers that only answer support (MiniCheck)."""
        if self.minicheck:
            return None
        messages = [
            Message("system", load_prompt("contradiction_system").strip()),
            Message("user", render("contradiction_user", premise=premise, claim=claim).strip()),
        ]
        result = self.model.chat(messages, max_tokens=1, top_logprobs=self.top_logprobs)
        return p_yes(result.first_token_logprobs)
