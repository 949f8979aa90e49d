"""The cascade of checks behind every verdict: guards, near-quotes, the screen, the judge.

:class:`CheckingVerifier` is a cascade; the first stage that can settle a citation does, and the
verdict names it (``Support.stage``):

1. **guards** (:mod:`citegraph.verify.guards`), model or not: a proven *conflict* (the cited text
   states another number, date or polarity for the same thing), or a text *unrelated* to a claim that
   states a number, is ``not_supported``, and no model is asked. The other guards are signals:
   listed in the notes, weighed by the screen.
2. **quote**, without a judge: a near-quote of a sentence that *asserts* it is ``supported``. A quote
   of what the source reports, hedges, denies, asks or instructs (:mod:`citegraph.verify.assertion`)
   is not support, and its frame is named in the notes. (With a judge, the judge decides quotes too,
   and the frame is still noted.)
3. **screen** (:mod:`citegraph.verify.screen`): a small classifier that settles the clear cases and
   abstains on the rest; its probability is the score.
4. **judge** (:mod:`citegraph.verify.judge`): the language model, for what remains. Its score is calibrated when a calibration
   record (:mod:`citegraph.verify.calibration`) is configured for it (``calibrated: true``), else
   it is the raw P(yes) (``calibrated: false``). A claim the judge does not find supported is asked
   about once more, with its own prompt: does the premise contradict it? ``P(yes) >= 0.5`` labels
   it ``contradicted`` (the score stays P(supported)).

Without a judge, what no stage settles stays ``unverified``. The same contradiction prompt checks
pairs of an answer's claims against each other (:meth:`CheckingVerifier.contradictions`).
"""

from __future__ import annotations

from collections.abc import Sequence

from citegraph.errors import ModelOutputError, ModelUnavailable
from citegraph.models import Span, Stage, Support, Verdict
from citegraph.verify.assertion import NOT_ASSERTED, frame_notes, unkept_frames
from citegraph.verify.base import PairCheck, Verifier
from citegraph.verify.calibration import Calibration, registered
from citegraph.verify.guards import check_guards, is_near_quote
from citegraph.verify.judge import LLMJudge
from citegraph.verify.screen import Screen

__all__ = ["CheckingVerifier"]


def _premise(spans: Sequence[Span]) -> str:
    return " ".join(" ".join(s.text.split()) for s in spans)


class CheckingVerifier(Verifier):
    """Guards, then the near-quote check (no judge), then the screen, then the judge (when there is one).

    ``screen``: True for the shipped screen, False for none, or a :class:`Screen`. ``calibration``:
    True for the record the model registry carries for the judge (if any), False for none, or a
    :class:`Calibration`; a record fitted for another judge or prompt version is not used.
    """

    def __init__(
        self,
        judge: LLMJudge | None = None,
        *,
        threshold: float = 0.5,
        contradiction: bool = True,
        screen: Screen | bool = True,
        calibration: Calibration | bool = True,
    ) -> None:
        self.judge = judge
        self.threshold = threshold
        self.contradiction = contradiction
        self.screen: Screen | None = Screen() if screen is True else screen or None
        self._screen_error = ""
        self.calibration: Calibration | None = None
        self.calibration_note = ""
        if judge is not None:
            record = registered(judge.name) if calibration is True else calibration or None
            if record is not None and (record.judge, record.prompt) != (judge.name, judge.prompt):
                self.calibration_note = (
                    f"the calibration record is for {record.judge} with prompt {record.prompt}, not {judge.name} with {judge.prompt}"
                )
            elif record is not None:
                self.calibration = record
            else:
                self.calibration_note = f"no calibration record for {judge.name}: scores are its raw P(yes)"
        self.name = f"llm:{judge.name}+guards" if judge else "guards+quote"

    def close(self) -> None:
        if self.judge is not None:
            self.judge.model.close()

    def _screened(self, claim: str, premise: str) -> tuple[Support | None, str]:
        """The screen's verdict when it settles the pair; else None and, if it could not run or held back, why."""
        if self.screen is None or self._screen_error:
            return None, self._screen_error
        try:
            result = self.screen.assess(claim, premise)
        except ModelUnavailable as exc:  # the weights or the embedder are missing: go on without it, and say so
            self._screen_error = f"screen unavailable: {exc}"
            return None, self._screen_error
        if result.decision is None:
            return None, f"screen: not settled as supported: {result.held}" if result.held else ""
        label = Verdict.SUPPORTED if result.decision else Verdict.NOT_SUPPORTED
        return Support(label, result.probability, "screen", (), Stage.SCREEN, True), ""

    def verify(self, claim: str, spans: Sequence[Span]) -> Support:
        premise = _premise(spans)
        fired = check_guards(claim, premise)
        notes = tuple(str(g) for g in fired)
        if any(g.overrules for g in fired):
            # A proven conflict (another number, date or polarity for the same thing) is a contradiction:
            # on built contradictions it was right every time it fired (bench/contradictions.py).
            proven = any(g.overrules and g.code != "unrelated" for g in fired)
            return Support(Verdict.CONTRADICTED if proven else Verdict.NOT_SUPPORTED, None, self.name, notes, Stage.GUARDS)
        texts = [s.text for s in spans]
        quote = is_near_quote(claim, premise)
        unkept = unkept_frames(claim, texts) if quote or self.judge is not None else ()
        if self.judge is None and quote and not unkept:
            return Support(Verdict.SUPPORTED, None, "quote", ("near_quote", *notes), Stage.QUOTE)
        screen_note = ""
        if not (quote and unkept):  # a framed quote is the assertion check's finding: the screen cannot see past it
            screened, screen_note = self._screened(claim, premise)
            if screened is not None:
                return Support(screened.label, screened.score, screened.verifier, notes, Stage.SCREEN, screened.calibrated)
        extra = (screen_note,) if screen_note else ()
        if self.judge is None:
            return Support(Verdict.UNVERIFIED, None, self.name, (*notes, *frame_notes(unkept), *extra, "no model: cannot settle"))
        try:
            raw = self.judge.score(claim, premise)
        except ModelOutputError as exc:
            return Support(Verdict.UNVERIFIED, None, self.name, (*notes, *extra, f"judge: {exc}"))
        score = self.calibration(raw) if self.calibration is not None else raw
        calibrated = self.calibration is not None
        # The judge decides; a frame the claim drops (hearsay, hedge, denial, instruction) is said beside it.
        framed = (*notes, *frame_notes([f for f in unkept if f.kind in NOT_ASSERTED]), *extra)
        if score >= self.threshold:
            return Support(Verdict.SUPPORTED, score, self.name, framed, Stage.JUDGE, calibrated)
        label, more = self._unsupported_label(claim, premise)
        return Support(label, score, self.name, (*framed, *more), Stage.JUDGE, calibrated)

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

    def _unsupported_label(self, claim: str, premise: str) -> tuple[Verdict, tuple[str, ...]]:
        """``contradicted`` or ``not_supported``, and a note when the contradiction check itself failed."""
        if self.judge is None or not self.contradiction:
            return Verdict.NOT_SUPPORTED, ()
        try:
            p = self.judge.contradiction(claim, premise)
        except ModelOutputError as exc:  # the claim is still not supported; the failed check is said
            return Verdict.NOT_SUPPORTED, (f"contradiction check: {exc}",)
        return (Verdict.CONTRADICTED if p is not None and p >= 0.5 else Verdict.NOT_SUPPORTED), ()
