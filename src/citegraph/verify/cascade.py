"""The cascade of checks behind every verdict: guards, near-quotes, the checker or the screen, the judge.

:class:`CheckingVerifier` is a cascade; the first stage that can settle a citation does, and the
verdict names it (``Support.stage``):

1. **guards** (:mod:`citegraph.verify.guards`), model or not: a proven *conflict* (the cited text
   states another number, date, moment or polarity for the same thing: "no longer opens" against
   "opens"), or a text *unrelated* to a claim that states a number, is ``contradicted`` (or
   ``not_supported``), and no model is asked; then, in English, the parse's proofs
   (:mod:`citegraph.verify.roles`): another *name* in the claim's place, or agent and patient
   *swapped*. A proof settles the verdict: no score comes after it. The other guards are signals:
   listed in the notes, weighed by the screen.
2. **quote**: a claim that *is* a cited sentence, or whole clauses of one with a subject and a verb
   ("Marta Ilves designed the engine" of "Marta Ilves designed the engine, and it entered service in
   2021"), or one with its attribution moved whole ("X, the report said." of "The report said that
   X."), word for word, is ``supported`` before any model is asked, unless the sentence frames it
   (reports, hedges, denies, asks, instructs, or scopes it with a word the claim drops:
   :mod:`citegraph.verify.assertion`). With neither a checker nor a judge, a *near*-quote (every
   content word, in order) of a sentence that asserts it is ``supported`` too; with one, the model
   decides near-quotes, and the frame is still noted.
3. **checker** (:mod:`citegraph.verify.crossencoder`), the default: citegraph's trained
   cross-encoder gives P(supported), P(contradicted), P(neither), calibrated on dev. Alone, it decides
   every pair (``supported`` at P(supported) >= the threshold, else ``contradicted`` when
   P(contradicted) >= 0.5, else ``not_supported``); before a judge, it settles only what it is sure
   of (the card's ``settle`` thresholds, chosen on dev, or those the judge's head was tuned with)
   and leaves the rest to the judge. It weighs
   framing itself (trained on framed sentences), and never settles ``supported`` for a near-quote of
   a sentence the assertion rules find framed (hearsay, hedge, denial...).
   Without the checker (``guards``), the **screen** (:mod:`citegraph.verify.screen`), a small
   lexical classifier, settles the clear cases and abstains on the rest.
4. **judge** (:mod:`citegraph.verify.judge`): the language model, for what remains. In-process
   with a shipped head, its score is the head's P(supported) from the model's hidden state
   (``calibrated: true``, at the head's threshold); else P(yes), calibrated when a calibration
   record (:mod:`citegraph.verify.calibration`) is configured for it (``calibrated: true``), else
   raw (``calibrated: false``). A claim the judge does not find supported is asked
   about once more, with its own prompt: does the premise contradict it? ``P(yes) >= 0.5`` labels
   it ``contradicted`` (the score stays P(supported)).

Before all of them, a cited span whose document does not assert it (its structure: a code block,
struck-through text, a section headed as myths or deprecated, text a preceding sentence frames; read
at ingest and kept with the span, :mod:`citegraph.ingest.structure`) is left out of the premise, and
named in the notes; a claim that cites only such spans is ``not_supported`` (stage ``guards``).

Without a judge, what no stage settles stays ``unverified``. A claim or cited text that is not in
English (:mod:`citegraph.verify.language`) is never settled by the quote rules or the checker, which
know English only: the judge decides it, or it stays ``unverified``. Pairs of an answer's claims are
checked against each other (:meth:`CheckingVerifier.contradictions`) by the judge's contradiction
prompt, or by the checker's P(contradicted) when there is no judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from citegraph.errors import ModelOutputError, ModelUnavailable
from citegraph.models import Span, Stage, Support, Verdict
from citegraph.verify.assertion import NOT_ASSERTED, drops_restriction, drops_scope, frame_notes, unkept_frames
from citegraph.verify.base import PairCheck, Verifier
from citegraph.verify.calibration import Calibration, registered
from citegraph.verify.crossencoder import CrossEncoder, default_cross_encoder
from citegraph.verify.guards import (
    NOT_PROVEN_FALSE,
    check_guards,
    is_attributed_quote,
    is_clause_quote,
    is_moved_attribution,
    is_near_quote,
    is_whole_quote,
)
from citegraph.verify.judge import LLMJudge
from citegraph.verify.language import language_of
from citegraph.verify.roles import name_conflict, role_swap, states, substituted_name
from citegraph.verify.screen import Screen
from citegraph.verify.text import content_words, in_premise_units, in_same_figures, money_kept

__all__ = ["CheckingVerifier"]


def _premise(spans: Sequence[Span]) -> str:
    return " ".join(" ".join(s.text.split()) for s in spans)


def _foreign(*texts: str) -> str:
    """The first language other than English found among ``texts``, or ``""``."""
    for text in texts:
        lang = language_of(text)
        if lang not in (None, "en"):
            return lang
    return ""


class CheckingVerifier(Verifier):
    """Guards, then the near-quote check (no checker, no judge), then the checker (or the screen),
    then the judge (when there is one).

    ``checker``: True for the shipped cross-encoder, False for none, or a :class:`CrossEncoder`; with
    a checker the screen is not used. ``screen``: True for the shipped screen, False for none, or a
    :class:`Screen`. ``calibration``:
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
        checker: CrossEncoder | bool = False,
    ) -> None:
        self.judge = judge
        self.threshold = threshold
        self.contradiction = contradiction
        self._checker = checker
        self._checker_error = ""
        self.screen: Screen | None = None if checker else Screen() if screen is True else screen or None
        self._screen_error = ""
        self.calibration: Calibration | None = None
        self.calibration_note = ""
        if judge is not None and judge.head is not None:
            self.threshold = judge.head.threshold  # the head's score is P(supported): its own calibration
        elif judge is not None:
            record = registered(judge.name) if calibration is True else calibration or None
            if record is not None and (record.judge, record.prompt) != (judge.name, judge.prompt):
                self.calibration_note = (
                    f"the calibration record is for {record.judge} with prompt {record.prompt}, not {judge.name} with {judge.prompt}"
                )
            elif record is not None:
                self.calibration = record
            else:
                self.calibration_note = f"no calibration record for {judge.name}: scores are its raw P(yes)"
        base = "checker" if checker else "guards"
        self.name = f"llm:{judge.name}+{base}" if judge else base if checker else "guards+quote"

    def close(self) -> None:
        if self.judge is not None:
            self.judge.model.close()

    @property
    def checker(self) -> CrossEncoder | None:
        """The cross-encoder, loaded on first use; None when off or unavailable (``_checker_error`` says why)."""
        if self._checker is True:
            try:
                self._checker = default_cross_encoder()
            except ModelUnavailable as exc:
                self._checker, self._checker_error = False, f"checker unavailable: {exc}"
        return self._checker if isinstance(self._checker, CrossEncoder) else None

    def _checked(self, claim: str, premise: str, framed: bool) -> tuple[Support | None, str]:
        """The checker's verdict when it settles the pair; else None and why not (empty: no checker)."""
        checker = self.checker
        if checker is None:
            return None, self._checker_error
        # quantities the normaliser proves equal are said the premise's way ("a month" -> "30 days")
        p_sup, p_con = (float(v) for v in checker.scores([(premise, in_same_figures(in_premise_units(claim, premise), premise))])[0])
        head = self.judge.head if self.judge is not None else None
        settle = head.settle if head is not None and head.settle else checker.card.settle
        if self.judge is not None:  # settle only what it is sure of; the judge takes the rest
            if p_sup >= settle["supported"] and not framed:
                label = Verdict.SUPPORTED
            elif p_con >= settle["contradicted"]:
                label = Verdict.CONTRADICTED
            elif p_sup <= settle["not_supported"]:
                label = Verdict.NOT_SUPPORTED
            else:
                return None, f"checker: not sure (P(supported) {p_sup:.2f})"
        elif p_sup >= self.threshold:
            if framed:  # the rules find the cited sentence framed: the checker's "supported" is not enough
                return None, f"checker: P(supported) {p_sup:.2f}, but the quote leaves out what frames or scopes its sentence"
            label = Verdict.SUPPORTED
        else:
            label = Verdict.CONTRADICTED if p_con >= 0.5 else Verdict.NOT_SUPPORTED
        return Support(label, p_sup, checker.name, (), Stage.CHECKER, True), ""

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
        framed = tuple(f"not asserted: {s.frame}" for s in spans if s.frame)
        if framed:  # the document's structure does not assert these (kept at ingest): they support nothing
            spans = [s for s in spans if not s.frame]
            if not spans or not content_words(claim) & content_words(_premise(spans)):
                # nothing left, or nothing left about the claim: its support was the framed text
                return Support(Verdict.NOT_SUPPORTED, None, self.name, framed, Stage.GUARDS)
        support = self._verify(claim, spans)
        return replace(support, guards=(*framed, *support.guards)) if framed else support

    def _verify(self, claim: str, spans: Sequence[Span]) -> Support:
        premise = _premise(spans)
        fired = check_guards(claim, premise)
        notes = tuple(str(g) for g in fired)
        if any(g.overrules for g in fired):
            # A proven conflict (another number, date or polarity for the same thing) is a contradiction:
            # on built contradictions it was right every time it fired (bench/contradictions.py).
            proven = any(g.overrules and g.code not in NOT_PROVEN_FALSE for g in fired)
            return Support(Verdict.CONTRADICTED if proven else Verdict.NOT_SUPPORTED, None, self.name, notes, Stage.GUARDS)
        texts = [s.text for s in spans]
        foreign = _foreign(claim, premise)
        if foreign:  # the quote rules and the checker know English only
            notes = (*notes, f"language: {foreign}, not English: the quote rules and the checker cannot settle it")
        else:
            proof = substituted_name(claim, premise) or name_conflict(claim, premise) or role_swap(claim, premise)
            if proof is not None:  # a parse's proof overrules any score, as the guards' conflicts do
                return Support(Verdict.CONTRADICTED, None, self.name, (str(proof), *notes), Stage.GUARDS)
            whole = is_whole_quote(claim, premise) or is_moved_attribution(claim, premise) or is_attributed_quote(claim, premise)
            if (
                (whole or is_clause_quote(claim, premise))
                and not unkept_frames(claim, texts)
                and (whole or states(claim))
                and money_kept(claim, premise)
            ):
                # the cited sentence itself, or whole clauses of it that state something (a subject and its
                # verb: not "Dick Van Dyke, David Tomlinson."), asserted and unframed: no score can add to that
                return Support(Verdict.SUPPORTED, None, "quote", ("exact_quote", *notes), Stage.QUOTE)
        quote = is_near_quote(claim, premise) and not foreign
        checking = self._checker is not False and not foreign
        unkept = unkept_frames(claim, texts) if quote or self.judge is not None else ()
        if self.judge is None and quote and not unkept and not checking:
            return Support(Verdict.SUPPORTED, None, "quote", ("near_quote", *notes), Stage.QUOTE)
        screen_note = ""
        if checking:
            # the rules' frames veto a quote only: the checker weighs framing itself (it was trained on it),
            # and reported speech is how news and minutes state their facts
            # and a trimmed quote that drops the word scoping its sentence ("Only full-time employees…" quoted
            # as "Employees…", "…every three years, except for engineers" as "…every three years") says more
            # than its sentence: the checker read the near-identity as support (5 of 5 such probes)
            # and so does one that drops what restricts its subject to a named place or group ("Staff can
            # park for free." of "Staff in the Leeds office can park…": 6 of 6 such probes supported)
            restricted = drops_restriction(premise, claim) if quote else None
            if restricted is not None:
                notes = (*notes, f"condition dropped: the cited sentence says it of those {restricted!r} only")
            quote_framed = quote and (
                any(f.kind in NOT_ASSERTED or drops_scope(f, premise, claim) for f in unkept) or restricted is not None
            )
            checked, screen_note = self._checked(claim, premise, quote_framed)
            if checked is not None:
                more = (*(("near_quote",) if quote else ()), *frame_notes([f for f in unkept if f.kind in NOT_ASSERTED]))
                return Support(checked.label, checked.score, checked.verifier, (*notes, *more), Stage.CHECKER, True)
        if not (quote and unkept) and not foreign and self.checker is None:
            # a framed quote is the assertion check's finding: the screen cannot see past it
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
        calibrated = self.calibration is not None or self.judge.head is not None
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

    def contradictions(self, pairs: Sequence[tuple[str, str]], *, fast: bool = False) -> list[PairCheck]:
        """The judge's contradiction prompt on each ``(first, second)`` pair of claims, concurrently where the
        backend allows; without a judge that answers it (or when ``fast``), the checker's P(contradicted),
        the larger of the two directions; ``PairCheck(None)`` for every pair when there is neither."""
        if not self.contradiction or not pairs:
            return super().contradictions(pairs)
        if fast or self.judge is None or self.judge.minicheck:
            checker = self.checker
            if checker is None:
                return super().contradictions(pairs)
            both = checker.probabilities([*pairs, *((b, a) for a, b in pairs)])[:, 1]
            return [PairCheck(float(max(both[i], both[i + len(pairs)])), by="checker") for i in range(len(pairs))]
        judge: LLMJudge = self.judge

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
