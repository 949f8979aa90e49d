"""The language-model judge: does the cited text (premise) fully support the claim (hypothesis)?

It reads the answer's first-token log-probabilities: ``P(yes) / (P(yes) + P(no))``, summing case and
spacing variants of each word. The prompt starts with the fixed instructions and then the premise, so
consecutive checks of one span share a prefix that llama.cpp keeps in its KV cache, and only one
token is generated. Ollama's ``bespoke-minicheck`` is used through the same interface with its own
document/claim prompt. The judge is the last stage of the cascade (:mod:`citegraph.verify.cascade`).

Where the model runs in-process and a head is shipped for it (:class:`~citegraph.verify.calibration.JudgeHead`),
the score is the head's P(supported) from the hidden state that predicts that token, read in the same
forward pass; else it is P(yes).
"""

from __future__ import annotations

import math

from citegraph.errors import ModelOutputError
from citegraph.llm.base import ChatModel, Message
from citegraph.prompts import load_prompt, render
from citegraph.verify.calibration import JudgeHead, prompt_version, registered_head

__all__ = ["LLMJudge", "p_yes"]


def p_yes(first_token_logprobs: dict[str, float]) -> float:
    """``P(yes) / (P(yes) + P(no))`` over case and spacing variants; ModelOutputError if neither is there."""
    yes = sum(math.exp(lp) for tok, lp in first_token_logprobs.items() if tok.strip().lower() == "yes")
    no = sum(math.exp(lp) for tok, lp in first_token_logprobs.items() if tok.strip().lower() == "no")
    if yes + no == 0:
        raise ModelOutputError(f"neither yes nor no among the first-token candidates {sorted(first_token_logprobs)[:10]}")
    return yes / (yes + no)


class LLMJudge:
    def __init__(self, model: ChatModel, *, top_logprobs: int = 10, head: JudgeHead | bool = True) -> None:
        """``head``: True for the head shipped for this model (if any, and if the backend exposes its
        hidden state), False for none (P(yes)), or a :class:`JudgeHead`; one trained for another
        model or prompt version is refused."""
        self.model = model
        self.top_logprobs = top_logprobs
        self.minicheck = "minicheck" in model.name.lower()
        self.name = model.name
        chosen = registered_head(model.name) if head is True else head or None
        if chosen is not None and (chosen.judge, chosen.prompt) != (model.name, self.prompt):
            if head is not True:
                raise ValueError(f"the head is for {chosen.judge} with prompt {chosen.prompt}, not {model.name} with {self.prompt}")
            chosen = None
        #: the trained head on the hidden state, when used; its score is a measured P(supported)
        self.head: JudgeHead | None = chosen if chosen is not None and model.exposes_state and not self.minicheck else None

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
        """The head's P(supported) when there is a head, else P(yes)."""
        result = self.model.first_token(self.messages(claim, premise), top_logprobs=self.top_logprobs, state=self.head is not None)
        if self.head is None:
            return p_yes(result.first_token_logprobs)
        if result.state is None:
            raise ModelOutputError(f"{self.name} returned no hidden state for the judge's head")
        return self.head(result.state, p_yes(result.first_token_logprobs))

    def contradiction(self, claim: str, premise: str) -> float | None:
        """P(the premise contradicts the claim); None for checkers that only answer support (MiniCheck)."""
        if self.minicheck:
            return None
        messages = [
            Message("system", load_prompt("contradiction_system").strip()),
            Message("user", render("contradiction_user", premise=premise, claim=claim).strip()),
        ]
        return p_yes(self.model.first_token(messages, top_logprobs=self.top_logprobs).first_token_logprobs)
