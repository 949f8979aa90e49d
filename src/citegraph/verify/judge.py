"""Entailment checks with a local model, plus the guards and the near-quote check.

The LLM judge asks whether the cited text (premise) fully supports the claim (hypothesis) and reads
the answer's first-token log-probabilities: ``score = P(yes) / (P(yes) + P(no))``, summing case
and spacing variants of each word. The prompt starts with the fixed instructions and then the
premise, so consecutive checks of one span share a prefix that llama.cpp keeps in its KV cache, and
only one token is generated. Ollama's ``bespoke-minicheck`` is used through the same interface with
its own document/claim prompt.

:class:`CheckingVerifier` combines them: guards always run and overrule the model; with no model,
a near-quote of a sentence that *asserts* it is ``supported`` and anything else stays
``unverified``, said plainly: a quote of what the source reports, hedges, denies, asks or instructs
(:mod:`citegraph.verify.assertion`) is not support, and its frame is named in the notes (with a
judge, the judge decides and the frame is still noted). A claim the judge does not find supported
is asked about once more, with its own prompt: does the premise contradict it? ``P(yes) >= 0.5``
labels it ``contradicted`` (the score stays P(supported)). A claim a guard rejects is
``not_supported`` without that second call. The same contradiction prompt checks pairs of an
answer's claims against each other (:meth:`CheckingVerifier.contradictions`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from citegraph.errors import ModelOutputError
from citegraph.llm.base import ChatModel, Message
from citegraph.models import Span, Support
from citegraph.prompts import load_prompt, render
from citegraph.verify.assertion import NOT_ASSERTED, frame_notes, unkept_frames
from citegraph.verify.base import PairCheck, Verifier
from citegraph.verify.guards import check_guards, is_near_quote

__all__ = ["CheckingVerifier", "LLMJudge", "p_yes"]


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


def _premise(spans: Sequence[Span]) -> str:
    return " ".join(" ".join(s.text.split()) for s in spans)


class CheckingVerifier(Verifier):
    """Guards, then the near-quote check, then the judge (when there is one)."""

    def __init__(self, judge: LLMJudge | None = None, *, threshold: float = 0.5, contradiction: bool = True) -> None:
        self.judge = judge
        self.threshold = threshold
        self.contradiction = contradiction
        self.name = f"llm:{judge.name}+guards" if judge else "guards+quote"

    def close(self) -> None:
        if self.judge is not None:
            self.judge.model.close()

    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        premise = _premise(spans)
        guards = tuple(str(g) for g in check_guards(claim, premise))
        score: float | None = None
        if self.judge is not None:
            try:
                score = self.judge.score(claim, premise)
            except ModelOutputError as exc:
                return Support("unverified", None, self.name, (*guards, f"judge: {exc}"))
        if guards:
            return Support("not_supported", score, self.name, guards)
        if score is not None:
            # The judge decides; a frame the claim drops (hearsay, hedge, denial, instruction) is said beside it.
            framed = frame_notes([f for f in unkept_frames(claim, [s.text for s in spans]) if f.kind in NOT_ASSERTED])
            if score >= self.threshold:
                return Support("supported", score, self.name, framed)
            label, notes = self._unsupported_label(claim, premise)
            return Support(label, score, self.name, (*framed, *notes))
        if is_near_quote(claim, premise):
            unkept = unkept_frames(claim, [s.text for s in spans])
            if not unkept:
                return Support("supported", None, "quote", ("near_quote",))
            return Support("unverified", None, self.name, (*frame_notes(unkept), "no model: cannot settle"))
        return Support("unverified", None, self.name, ("no model: cannot settle",))

    def verify_many(self, jobs: Sequence[tuple[str, Sequence[Span]]]) -> list[Support]:
        workers = min(self.judge.model.concurrency, len(jobs)) if self.judge is not None else 1
        if workers <= 1:
            return super().verify_many(jobs)
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(lambda job: self.verify(*job), jobs))

    def contradictions(self, pairs: Sequence[tuple[str, str]]) -> list[PairCheck]:
        """The judge's contradiction prompt on each ``(first, second)`` pair of claims, concurrently where the
        backend allows; ``PairCheck(None)`` for every pair when there is no judge that answers it."""
        if self.judge is None or not self.contradiction or self.judge.minicheck:
            return super().contradictions(pairs)
        judge = self.judge

        def check(pair: tuple[str, str]) -> PairCheck:
            try:
                return PairCheck(judge.contradiction(pair[1], pair[0]))
            except ModelOutputError as exc:
                return PairCheck(None, f"contradiction check: {exc}")

        workers = min(judge.model.concurrency, len(pairs))
        if workers <= 1:
            return [check(pair) for pair in pairs]
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(check, pairs))

    def _unsupported_label(self, claim: str, premise: str) -> tuple[str, tuple[str, ...]]:
        """``contradicted`` or ``not_supported``, and a note when the contradiction check itself failed."""
        if self.judge is None or not self.contradiction:
            return "not_supported", ()
        try:
            p = self.judge.contradiction(claim, premise)
        except ModelOutputError as exc:  # the claim is still not supported; the failed check is said
            return "not_supported", (f"contradiction check: {exc}",)
        return ("contradicted" if p is not None and p >= 0.5 else "not_supported"), ()
