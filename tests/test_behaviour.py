"""Behaviour families of the support check (citegraph.eval.behaviour), CheckList-style: made by
rule from the texts in tests/data/behaviour_texts.json (handbook, encyclopedia, news, dialogue and,
kept out of any training, chat), each family checked through the product's path (the default
verifier: guards and proofs, the quote stage, the trained checker) against its target; and the
framings a document's structure gives, through ingest and an answer that cites them."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from citegraph.embed import HashingEmbedder
from citegraph.eval.behaviour import FAMILIES, Case, make_cases
from citegraph.eval.support import load_pairs, premise_spans
from citegraph.models import Stage, Verdict
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter, load_spacy
from citegraph.store import SQLiteStore
from citegraph.verify.cascade import CheckingVerifier

TEXTS = Path(__file__).parent / "data" / "behaviour_texts.json"

#: the issue's targets: the share of a family's cases labelled as the family expects
TARGETS = {
    "identity": 1.0,
    "clause": 0.97,
    "in_passage": 0.97,
    "number": 0.97,
    "date": 0.97,
    "duration": 0.97,
    "negation": 0.97,
    "name_swap": 0.95,
    "role_swap": 0.85,
    "opposite": 0.9,
    "passive": 0.85,
    "equivalent_quantity": 0.85,
    "pronoun": 0.85,
    "reported": 0.85,
    **{family: 1.0 for family in FAMILIES if family.startswith("framing_")},
}


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    nlp = load_spacy()
    texts = json.loads(TEXTS.read_text(encoding="utf-8"))
    return [case for kind, passages in texts.items() if not kind.startswith("_") for case in make_cases(kind, passages, nlp)]


@pytest.fixture(scope="module")
def results(cases: list[Case]) -> dict[str, list[tuple[Case, str]]]:
    verifier = CheckingVerifier(checker=True)
    out: dict[str, list[tuple[Case, str]]] = defaultdict(list)
    for case in cases:
        out[case.family].append((case, verifier.verify(case.claim, premise_spans(case.premise)).label))
    return out


def test_every_family_has_cases_from_several_kinds_of_text(cases: list[Case]) -> None:
    by_family = Counter(c.family for c in cases)
    assert set(by_family) == set(FAMILIES) and min(by_family.values()) >= 5, by_family
    assert {c.kind for c in cases if c.family == "identity"} == {"handbook", "encyclopedia", "news", "dialogue", "chat"}
    assert all(c.supported == FAMILIES[c.family] for c in cases)


@pytest.mark.parametrize("family", sorted(TARGETS))
def test_each_family_meets_its_target(results: dict[str, list[tuple[Case, str]]], family: str) -> None:
    rows = results[family]
    right = [c for c, label in rows if (label == Verdict.SUPPORTED) == c.supported]
    wrong = [(c.claim, c.premise, label) for c, label in rows if (label == Verdict.SUPPORTED) != c.supported]
    assert len(right) / len(rows) >= TARGETS[family], wrong[:3]


def test_the_held_out_kind_meets_the_targets_too(results: dict[str, list[tuple[Case, str]]]) -> None:
    """Chat lines, a kind no rule was written from and the checker never trained on."""
    for family, rows in results.items():
        chat = [(c, label) for c, label in rows if c.kind == "chat"]
        if len(chat) >= 3:
            share = sum((label == Verdict.SUPPORTED) == c.supported for c, label in chat) / len(chat)
            assert share >= min(TARGETS[family], 0.8), (family, [(c.claim, label) for c, label in chat])


def test_eval_support_reads_behaviour_cases_and_reports_each_family(tmp_path: Path, cases: list[Case]) -> None:
    from citegraph.eval.support import evaluate, report

    data = tmp_path / "cases.jsonl"
    picked = [c for c in cases if c.kind == "handbook"][:60]
    data.write_text("".join(json.dumps(c.to_json()) + "\n" for c in picked), encoding="utf-8")
    name, pairs = load_pairs(data, limit=10**6)
    assert name == "behaviour" and len(pairs) == len(picked) and {p.source for p in pairs} == {c.family for c in picked}
    summary = report(name, "checker", evaluate(pairs, None), tmp_path)
    assert set(summary["by_source"]) == {c.family for c in picked}
    assert all(0 <= v["accuracy"] <= 1 for v in summary["by_source"].values())
    assert "By family" in (tmp_path / "behaviour.md").read_text(encoding="utf-8")


# -- the cascade's order, on the issue's own cases ------------------------------------------------------------
@pytest.fixture(scope="module")
def checker() -> CheckingVerifier:
    return CheckingVerifier(checker=True)


def _span(text: str) -> list:  # type: ignore[type-arg]
    return premise_spans(text)


def test_a_verbatim_quote_is_settled_by_the_quote_stage_before_the_checker(checker: CheckingVerifier) -> None:
    sentence = "The Quillon engine was designed by Marta Ilves in 2019."
    support = checker.verify(sentence, _span(sentence))
    assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE)
    both = "Marta Ilves designed the Quillon engine in 2019, and it entered service in 2021."
    clause = checker.verify("Marta Ilves designed the Quillon engine in 2019.", _span(both))
    assert (clause.label, clause.stage) == (Verdict.SUPPORTED, Stage.QUOTE)
    # a clause that drops a condition, or a sentence that frames what it says, is not a quote
    assert checker.verify("Exports are free.", _span("Exports are free, unless the workspace was cancelled.")).stage != Stage.QUOTE
    assert (
        checker.verify("The store opens on Sundays.", _span("A rumour claimed that the store opens on Sundays.")).label != Verdict.SUPPORTED
    )


def test_a_whole_chat_message_of_a_cited_exchange_is_a_quote(checker: CheckingVerifier) -> None:
    # each message ends in emoji, so its last sentence has no full stop before the next speaker
    exchange = (
        'WolfgangSchulz: How about we also throw in "Let It Be"? A classic that we can\'t go wrong with. 🎵✨ '
        'YurikoYamamoto: That sounds great! "Let It Be" has such a nice vibe. I\'m super excited for our practice session! 🎶 '
        "YurikoYamamoto: If anyone has a mood to explore, just let me know!"
    )
    message = 'YurikoYamamoto: That sounds great! "Let It Be" has such a nice vibe. I\'m super excited for our practice session! 🎶'
    support = checker.verify(message, _span(exchange))
    assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE)
    # a run of sentences cut inside one is no whole quote
    assert checker.verify('"Let It Be" has such a nice vibe. I\'m super excited.', _span(exchange)).stage != Stage.QUOTE


def test_a_frame_opening_the_quoted_sentence_is_the_quotes_frame(checker: CheckingVerifier) -> None:
    for quoted in ("LiHua: Will do! I'm really looking forward to the market on Sunday!", "The store opens at 9 on Sundays."):
        support = checker.verify(quoted, _span(f"Old FAQ (obsolete): {quoted}"))
        assert support.label != Verdict.SUPPORTED, quoted


def test_a_hedge_in_a_later_contrasting_clause_is_that_clauses_own(checker: CheckingVerifier) -> None:
    sentence = "It is not unique to Asia, but it might seem more pronounced if you live there."
    support = checker.verify("It is not unique to Asia.", _span(sentence))
    assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE)
    # a qualifier, an "unless", or a hedge after "and" (no contrast) still keeps the clause from a quote
    for claim, premise in (
        ("Refunds are issued.", "Refunds are issued, but only if the item is unused."),
        ("Refunds are issued.", "Refunds are issued, but unless you pay a fee they are credited."),
        ("Prices rose.", "Prices rose, and they might fall."),
    ):
        assert checker.verify(claim, _span(premise)).stage != Stage.QUOTE, premise


def test_the_clause_family_takes_clauses_that_state_something_unattributed() -> None:
    nlp = load_spacy()
    made = make_cases(
        "encyclopedia",
        [
            ["Dick Van Dyke, David Tomlinson, and Glynis Johns are featured in supporting roles."],
            ["Two men were arrested on Sunday night, and both were charged, according to police."],
            ["The bridge was finished in 1932, and it carried trams until 1961."],
        ],
        nlp,
    )
    assert [c.claim for c in made if c.family == "clause"] == ["The bridge was finished in 1932."]


def test_a_guards_proof_is_never_overruled_by_a_score(checker: CheckingVerifier) -> None:
    support = checker.verify("The store opens on Sundays.", _span("The store no longer opens on Sundays."))
    assert (support.label, support.stage) == (Verdict.CONTRADICTED, Stage.GUARDS) and support.score is None
    swapped = checker.verify("Tomas Berg designed the Quillon engine in 2019.", _span("Marta Ilves designed the Quillon engine in 2019."))
    assert (swapped.label, swapped.stage) == (Verdict.CONTRADICTED, Stage.GUARDS) and "name conflict" in swapped.guards[0]
    roles = checker.verify("The Quillon engine designed Marta Ilves.", _span("Marta Ilves designed the Quillon engine."))
    assert (roles.label, roles.stage) == (Verdict.CONTRADICTED, Stage.GUARDS) and "roles swapped" in roles.guards[0]


@pytest.mark.parametrize(
    "claim",
    [
        pytest.param(
            "They get 40 days.",
            marks=pytest.mark.xfail(
                strict=True,
                reason="the checker says supported 0.52 and no guard proves the conflict (the claim's subject is a pronoun); "
                "vetoing the checker's supported whenever a claim's number or month is not in the cited text caught it but "
                "cost 0.926 -> 0.814 on HaluEval summarization and 0.735 -> 0.721 on dialogue (test halves): not kept "
                "(docs/results/2026-12-04/number-words/README.md)",
            ),
        ),
        "Staff get 40 days off.",
        "Holidays are booked in March.",
    ],
)
def test_a_value_the_cited_text_does_not_state_is_not_supported(claim: str, checker: CheckingVerifier) -> None:
    """No proof here (the claim's subject is not the sentence's, so no conflict is proven), but the
    claim states a number or a month the cited text never gives, in any unit."""
    premise = "Full-time employees receive 25 days of paid holiday a year, plus the public holidays of their country."
    support = checker.verify(claim, _span(premise))
    assert support.label is not Verdict.SUPPORTED, support.guards


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("They receive twenty-five days of paid holiday.", "Full-time employees receive 25 days of paid holiday a year."),
        ("The Lisbon office has thirty-two desks.", "The Lisbon office has 32 desks."),
    ],
)
def test_a_number_written_in_words_is_the_same_number(claim: str, premise: str, checker: CheckingVerifier) -> None:
    """ "twenty-five" is 25, not a 5 after a 20 (which read as a proven conflict: "the claim says 5 days")."""
    support = checker.verify(claim, _span(premise))
    assert support.label is Verdict.SUPPORTED and not any("conflict" in g for g in support.guards), support.guards


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Commonwealth Sisson (born 1890) was a basketball player.", "Rufus Sisson (born 1890) was a basketball player."),
        ("Aisha Bello: Me until Sunday, then Ilona takes over.", "Oskar Vale: Me until Sunday, then Ilona takes over."),
        ("Reuters's Sanjay Gupta reported the study.", "CNN's Sanjay Gupta reported the study."),
        ("LiHua: I will bring the tools.", "JennyMoore: I will bring the tools."),
    ],
)
def test_a_name_swapped_where_the_sentence_opens_is_proven(claim: str, premise: str, checker: CheckingVerifier) -> None:
    swapped = checker.verify(claim, _span(premise))
    assert (swapped.label, swapped.stage) == (Verdict.CONTRADICTED, Stage.GUARDS) and "name conflict" in swapped.guards[0]


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Staff get 25 days of paid leave.", "Employees get 25 days of paid leave."),
        ("All exports stay available for 30 days.", "Snapshot exports stay available for 30 days."),
    ],
)
def test_a_common_word_where_the_sentence_opens_is_no_name(claim: str, premise: str, checker: CheckingVerifier) -> None:
    assert checker.verify(claim, _span(premise)).stage != Stage.GUARDS


@pytest.mark.parametrize(
    ("claim", "premise"),
    [  # HaluEval dialogue replies the name rule once read as one long name put in another's place
        ("You're welcome. I also have The Life and Death of Peter Sellers.", "J.K. Simmons starred in Young Adult."),
        ("It stars Joe Morton and Ed Harris, and the genre is country rock.", "Derek Jacobi starred in Unforgivable Blackness"),
    ],
)
def test_another_sentence_altogether_is_no_name_put_in_anothers_place(claim: str, premise: str, checker: CheckingVerifier) -> None:
    support = checker.verify(claim, _span(premise))
    assert not any("name conflict" in note for note in support.guards), support.guards


def test_a_name_the_text_calls_she_and_a_passive_are_no_conflict(checker: CheckingVerifier) -> None:
    assert checker.verify("Priya Nair hired four engineers in 2023.", _span("She hired four engineers in 2023.")).stage != Stage.GUARDS
    passive = checker.verify("The Quillon engine was designed by Marta Ilves.", _span("Marta Ilves designed the Quillon engine."))
    assert passive.stage != Stage.GUARDS


# -- structure kept at ingest --------------------------------------------------------------------------------
def test_framed_sentences_are_framed_in_the_store_and_support_nothing(tmp_path: Path, splitter: SentenceSplitter) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(
        "# Store hours\n\nThe store opens at nine on weekdays.\n\n"
        "```\nThe store opens on Sundays.\n```\n\n"
        "~~The warehouse ships on Saturdays.~~\n\n"
        "# Debunked claims\n\nThe cafe serves free lunch.\n\n"
        "# Parking\n\nThe following rumour is false. The garage charges 40 euros a day.\n",
        encoding="utf-8",
    )
    (docs / "page.html").write_text("<html><body><p><del>Deliveries arrive within 2 hours.</del></p></body></html>", encoding="utf-8")
    with CiteGraph(SQLiteStore(tmp_path / "s.db"), HashingEmbedder(), splitter=splitter, verifier=CheckingVerifier(checker=True)) as graph:
        graph.ingest([docs])
        framed = {
            text: frame
            for text, frame in graph.store.db.execute("SELECT text, frame FROM spans")  # type: ignore[attr-defined]
        }
        assert framed["The store opens at nine on weekdays."] == ""
        assert framed["The store opens on Sundays."] == "a code block"
        assert framed["~~The warehouse ships on Saturdays.~~"] == "struck through"
        assert framed["The cafe serves free lunch."] == "under the heading 'Debunked claims'"
        assert framed["The garage charges 40 euros a day."].startswith("framed by 'The following rumour is false.'")
        assert framed["~~Deliveries arrive within 2 hours.~~"] == "struck through"
        for question, claim in (
            ("Does the store open on Sundays?", "The store opens on Sundays"),
            ("Does the cafe serve free lunch?", "The cafe serves free lunch"),
            ("How much does the garage charge?", "The garage charges 40 euros a day"),
        ):
            context = graph.ask(question, labels=None, answer_text="x").context
            marker = next(item.marker for item in context if claim in item.span.text)
            answer = graph.ask(question, labels=None, answer_text=f"{claim} [{marker}].")
            (checked,) = answer.claims
            assert checked.status != "supported" and any("not asserted" in g for g in checked.citations[0].support.guards)
            assert answer.status not in ("verified", "quoted")
        plain = graph.ask("When does the store open on weekdays?", labels=None, answer_text="x").context
        marker = next(item.marker for item in plain if "nine on weekdays" in item.span.text)
        answer = graph.ask(
            "When does the store open on weekdays?", labels=None, answer_text=f"The store opens at nine on weekdays [{marker}]."
        )
        assert answer.claims[0].status == "supported"


def test_an_attribution_moved_whole_is_a_quote_and_one_negator_apart_is_a_contradiction(checker: CheckingVerifier) -> None:
    for claim, premise in (
        ("He admired the movies of Ralph Bakshi, the report said.", "The report said that he admired the movies of Ralph Bakshi."),
        ("According to police, two men were arrested on Sunday.", "Two men were arrested on Sunday, according to police."),
    ):
        support = checker.verify(claim, _span(premise))
        assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE), claim
    # the attribution dropped, or another verb, is no quote
    assert (
        checker.verify("He admired the movies of Ralph Bakshi.", _span("The report said that he admired the movies of Ralph Bakshi.")).stage
        != Stage.QUOTE
    )
    assert (
        checker.verify(
            "He hated the movies of Ralph Bakshi, the report said.", _span("The report said that he admired the movies of Ralph Bakshi.")
        ).label
        != Verdict.SUPPORTED
    )
    flipped = checker.verify(
        "It is just the low cost of posting online that attracts dissidence.",
        _span("It is not just the low cost of posting online that attracts dissidence."),
    )
    assert (flipped.label, flipped.stage) == (Verdict.CONTRADICTED, Stage.GUARDS)


def test_a_chat_messages_statement_is_quoted_without_the_question_before_it(checker: CheckingVerifier) -> None:
    line = "[02/04/2025, 08:30] Priya Raman: who is sorting out the Toronto flights? they'll need to fly on the 16th"
    support = checker.verify("they'll need to fly on the 16th.", _span(line))
    assert (support.label, support.stage) == (Verdict.SUPPORTED, Stage.QUOTE)
    assert checker.verify("Priya Raman: who is sorting out the Toronto flights?", _span(line)).label != Verdict.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Millbrook Branch is our largest branch.", "Millbrook Branch, on The Green in Millbrook village, is our smallest branch."),
        (
            "Before five years of continuous service, you can take a paid sabbatical.",
            "After five years of continuous service, you can take a paid sabbatical.",
        ),
        ("Your accounts are open at 17:00 on your last day.", "Your accounts are closed at 17:00 on your last day."),
        (
            "Jonas rejected the budget for the SSO project.",
            "Jonas approved the budget for the SSO project, and the vendor signed the contract.",
        ),
        (
            "It is performed on a square platform, usually 12 yards by 6 yards.",
            "It is performed on a square platform, usually 6 yards by 6 yards.",
        ),
        ("Staff may wear their badges at all times.", "Staff must wear their badges at all times."),  # a possibility is no obligation
    ],
)
def test_a_sentence_with_one_word_put_for_its_opposite_or_one_number_for_another_is_proven(
    claim: str, premise: str, checker: CheckingVerifier
) -> None:
    """Word for word but one: the trained checker reads the near-identity (it called 53 of 60 such swaps
    in the development corpora supported); the guard proves the conflict, and no score overrules it."""
    support = checker.verify(claim, _span(premise))
    assert support.label == Verdict.CONTRADICTED and support.stage == Stage.GUARDS, support
    assert any(g.startswith(("opposite conflict", "number conflict")) for g in support.guards), support.guards


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Millbrook Branch is our smallest branch.", "Millbrook Branch, on The Green in Millbrook village, is our smallest branch."),
        ("Full-time staff get 25 days of holiday.", "Full-time staff get twenty-five days of holiday."),  # the same number in words
        ("It was released in 2008.", "It was released in 20082008."),  # a number printed twice is a glitch, not another value
        ("Open late.", "Closed late."),  # too short to be the same sentence
    ],
)
def test_the_same_words_or_too_few_prove_no_opposite(claim: str, premise: str) -> None:
    from citegraph.verify.guards import conflicts

    assert not [g for g in conflicts(claim, premise) if g.detail.endswith(("the opposite word", "another number"))]


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        ("According to the travel guide, full-time employees get 25 days of paid vacation per year.", True),
        ("As the handbook says, full-time employees get 25 days of paid vacation per year.", True),
        ("Full-time employees get 25 days of paid vacation per year, the handbook says.", True),
        ("According to Sarah Whitfield, full-time employees get 25 days of paid vacation per year.", False),
        ("Full-time employees get 25 days of paid vacation per year, Sarah Whitfield said.", False),
        ("According to the travel guide, full-time employees get 30 days of paid vacation per year.", False),
    ],
)
def test_a_cited_sentence_attributed_to_its_source_is_a_quote_and_to_a_stranger_is_not(
    claim: str, supported: bool, checker: CheckingVerifier
) -> None:
    """An answer's own way of citing ("According to the travel guide, …") around the sentence it cites
    is still that sentence (the checker had called it not supported); a person the text never names
    did not say it."""
    support = checker.verify(claim, _span("Full-time employees get 25 days of paid vacation per year."))
    assert (support.label == Verdict.SUPPORTED) is supported, support


def test_a_name_put_in_the_place_of_another_the_text_names_is_not_supported(checker: CheckingVerifier) -> None:
    """ "Colin Hart chairs the Board" of "Helen Okafor chairs the Board; Colin Hart is its treasurer": both
    names are in the text, so no name is new, and the checker reads the near-identity as supported. Not
    supported (not contradicted: "Hardwicke directed Twilight" is not contradicted by "Hardwicke directed
    Red Riding Hood"); a name spelled wrong is no other name."""
    premise = "Helen Okafor chairs the Board; Colin Hart is its treasurer."
    support = checker.verify("Colin Hart chairs the Board.", _span(premise))
    assert support.label == Verdict.NOT_SUPPORTED and support.stage == Stage.GUARDS, support
    assert support.guards[0].startswith("other_name"), support.guards
    assert checker.verify("Helen Okafor chairs the Board.", _span(premise)).label == Verdict.SUPPORTED
    from citegraph.verify.guards import conflicts

    assert not conflicts("Seasmus Heaney wrote the new Beowulf translation.", "Seamus Heaney wrote the new Beowulf translation.")


@pytest.mark.parametrize(
    ("claim", "premise", "supported"),
    [
        ("Employees receive private medical insurance.", "Only full-time employees receive private medical insurance.", False),
        (
            "Laptops are replaced every three years.",
            "Laptops are replaced every three years, except for engineers, whose laptops are replaced every two years.",
            False,
        ),
        ("Parking at the Leeds office is free for staff.", "Until March 2024, parking at the Leeds office was free for staff.", False),
        ("Refunds are issued within 14 days.", "Refunds are issued within 14 days, but only for annual plans.", False),
        # the scoped part kept, or a clause the qualifier is not in: supported as before
        ("Full-time employees receive private medical insurance.", "Only full-time employees receive private medical insurance.", True),
        ("The café is open on weekdays.", "The café is only open on weekdays.", True),
        ("Maria Lopez joined the company in 2015.", "Maria Lopez joined the company in 2015 and only later led the design team.", True),
        ("Good sleep matters for health and mood.", "Good sleep matters not only for health but also for mood.", True),
    ],
)
def test_a_trimmed_quote_that_drops_what_scopes_its_sentence_is_no_support(
    claim: str, premise: str, supported: bool, checker: CheckingVerifier
) -> None:
    """A near-quote that leaves out "only", "except" or "until" with what it scopes says more than its
    sentence; the checker read all such probes as supported. It is not shown as supported (the checker
    is asked as for a framed quote, and says so)."""
    support = checker.verify(claim, _span(premise))
    assert (support.label == Verdict.SUPPORTED) is supported, support


@pytest.mark.parametrize(
    ("claim", "premise", "supported"),
    [
        ("Staff can park for free.", "Staff in the Leeds office can park for free.", False),
        ("Members can borrow up to 20 items at a time.", "Members of Riverside Libraries can borrow up to 20 items at a time.", False),
        ("The team meets every Monday at 10:00.", "The team in Toronto meets every Monday at 10:00.", False),
        # the restriction kept, something else left out, or a name's own phrase: supported as before
        ("Staff in the Leeds office can park for free.", "Staff in the Leeds office can park for free in the basement car park.", True),
        ("The Kestrel Room seats 40 people.", "The Kestrel Room at Central seats 40 people and has a projector.", True),
        ("Volunteers must be at least 14 years old.", "All volunteers must be at least 14 years old.", True),
    ],
)
def test_a_trimmed_quote_that_drops_what_restricts_its_subject_is_no_support(
    claim: str, premise: str, supported: bool, checker: CheckingVerifier
) -> None:
    """A near-quote that keeps a sentence's subject but leaves out the phrase restricting it to a named
    place or group ("Staff can park for free." of "Staff in the Leeds office can…") says it of everyone:
    the checker read all six such probes as supported. It is asked as for a framed quote, and the note
    names what was left out."""
    support = checker.verify(claim, _span(premise))
    assert (support.label == Verdict.SUPPORTED) is supported, support
    if not supported:
        assert any(g.startswith("condition dropped: the cited sentence says it of those") for g in support.guards), support


def test_not_possible_to_do_something_negates_doing_it(checker: CheckingVerifier) -> None:
    """ "It is not possible to renew items reserved by someone else." denies "You can renew items reserved
    by someone else." (the checker called it supported): "not possible to", "not allowed to", "not able to"
    negate the verb after them."""
    support = checker.verify(
        "You can renew items reserved by someone else.", _span("It is not possible to renew items reserved by someone else.")
    )
    assert (support.label, support.stage) == (Verdict.CONTRADICTED, Stage.GUARDS), support
    assert (
        checker.verify(
            "Items reserved by someone else cannot be renewed.", _span("It is not possible to renew items reserved by someone else.")
        ).label
        != Verdict.CONTRADICTED
    )


@pytest.mark.parametrize(
    ("claim", "premise", "supported"),
    [
        ("A replacement card costs 5 pounds.", "A replacement card costs £5.", True),
        ("The budget is £1000 per person.", "The budget is £1,000 per person.", True),
        ("The hotel limit is €160 per night.", "The hotel limit is EUR 160 per night.", True),
        ("The review is on 4 January 2025.", "The review is on 4 Jan 2025.", True),
        # another currency is another sum, however alike the words: no quote
        ("A replacement card costs $5.", "A replacement card costs £5.", False),
        ("A replacement card costs 6 pounds.", "A replacement card costs £5.", False),
    ],
)
def test_the_same_sum_or_date_written_another_way_is_supported(
    claim: str, premise: str, supported: bool, checker: CheckingVerifier
) -> None:
    """ "5 pounds" for "£5", "£1000" for "£1,000", "€160" for "EUR 160": the checker called each
    contradicted; they reach it written as the cited text writes them. "January" for "Jan" is no other
    name. And "$5" for "£5" was a quote (a symbol is no word): the quote stage now keeps currencies."""
    support = checker.verify(claim, _span(premise))
    assert (support.label == Verdict.SUPPORTED) is supported, support


@pytest.mark.parametrize(
    ("claim", "premise", "supported"),
    [
        # a day inside a run of days, or a word for several, is a day the text says
        ("The branch is open on Wednesday.", "The branch is open Monday to Friday 9:00–17:00.", True),
        ("Northgate is open on Thursdays.", "Northgate is open Tuesday to Saturday.", True),
        ("Leeds staff are in the office on Tuesdays.", "Leeds staff are in the office Monday–Thursday.", True),
        ("The helpdesk answers on Fridays.", "The helpdesk answers from Monday through Friday.", True),
        ("The branch is open on Saturday.", "The branch is open at weekends.", True),
        # and one outside it is not
        ("The Workshop is open on Mondays from 14:00.", "The Workshop is open Tuesday to Friday 14:00-20:00.", False),
        ("The Workshop is open on Sundays from 14:00.", "The Workshop is open on weekdays from 14:00.", False),
        ("Book returns are emptied on Tuesdays.", "Book returns are emptied at weekends.", False),
        (
            "Leeds staff work from the office on Wednesdays and Thursdays.",
            "Leeds staff work from the office on Tuesdays and Thursdays.",
            False,
        ),
        (
            "Storytime is every Saturday at 10:30 in the children's library.",
            "Storytime is every Friday at 10:30 in the children's library.",
            False,
        ),
    ],
)
def test_a_day_inside_a_run_of_days_is_said_and_one_outside_it_is_not(
    claim: str, premise: str, supported: bool, checker: CheckingVerifier
) -> None:
    """ "Monday to Friday" says every day from Monday to Friday: a claim's "Wednesday" was contradicted
    (the date guard read only the run's two ends, the name guard "Fridays" as another name for "Monday
    through Friday"; 6 of 7 hand probes). "weekdays" and "weekends" are their days."""
    support = checker.verify(claim, _span(premise))
    assert (support.label == Verdict.SUPPORTED) is supported, support
    if not supported:
        assert support.label == Verdict.CONTRADICTED and support.stage == Stage.GUARDS, support


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Anyone can book the Kestrel Room.", "Only members can book the Kestrel Room."),
        ("Everyone may use the side entrance.", "Only staff may use the side entrance."),
        ("All employees receive private medical insurance.", "Only full-time employees receive private medical insurance."),
    ],
)
def test_what_the_text_says_of_only_some_said_of_all_is_a_contradiction(claim: str, premise: str, checker: CheckingVerifier) -> None:
    """The sentence but for its "only …" put as "anyone", "everyone", "all …": the checker called each
    supported; the one-word-apart proof reads it (``widened``). The scoped part kept is still a quote."""
    support = checker.verify(claim, _span(premise))
    assert support.label == Verdict.CONTRADICTED and any(g.startswith("widened conflict") for g in support.guards), support
    kept = checker.verify("Members can book the Kestrel Room.", _span("Only members can book the Kestrel Room."))
    assert kept.label == Verdict.SUPPORTED


@pytest.mark.parametrize(
    ("claim", "premise", "supported"),
    [
        ("Eastbank Branch closes at 17:30.", "Eastbank Branch is open Monday to Saturday 9:30–17:30.", True),
        ("The last sailing leaves Kelso Quay at 9:15pm.", "The last sailing leaves Kelso Quay at 21:15.", True),
        ("The café opens at 12:00.", "The café opens at noon.", True),
        ("Ring the bell between 9:00 and 17:00.", "Ring the bell between 9am and 5pm.", True),
        ("The desk is staffed at 12:00.", "The desk is staffed from 9:00 to 17:00.", True),  # inside the span of time
        ("Eastbank Branch closes at 18:00.", "Eastbank Branch is open Monday to Saturday 9:30–17:30.", False),
        ("Eastbank Branch opens at 9:00.", "Eastbank Branch is open Monday to Saturday 9:30–17:30.", False),
        ("The last sailing leaves Kelso Quay at 8:15pm.", "The last sailing leaves Kelso Quay at 21:15.", False),
        # "a quarter of an hour" is 15 minutes, not an hour
        (
            "Staff on an opening shift arrive a quarter of an hour before the branch opens.",
            "Staff on an opening shift arrive 15 minutes before the branch opens.",
            True,
        ),
    ],
)
def test_a_time_of_day_the_text_does_not_give_is_proven_and_one_inside_its_span_is_said(
    claim: str, premise: str, supported: bool, checker: CheckingVerifier
) -> None:
    """A time of day is a value: "closes at 18:00" of "9:30–17:30" was supported by the checker (as
    were 9:00 and 21:00 outside their spans: 3 of 3 probes); now the guard proves it (``time``), with
    the same time written another way ("9:15pm", "noon") and a time inside a span left to the checker."""
    support = checker.verify(claim, _span(premise))
    assert (support.label == Verdict.SUPPORTED) is supported, support
    if not supported:
        assert support.stage == Stage.GUARDS and any(g.startswith("time conflict") for g in support.guards), support


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("Version 4.12.2 fixed the sync delays.", "Version 4.12.1 fixed the sync delays."),
        ("Tidepool 4.12.2 fixed the SAML certificate rotation bug.", "The SAML certificate rotation bug was fixed in 4.12.0."),
    ],
)
def test_another_release_number_is_proven(claim: str, premise: str, checker: CheckingVerifier) -> None:
    """A release number ("4.12.1") is no number to the number reader, and the checker called "4.12.2"
    for it supported; a release the cited text never names, where it names another, is proven."""
    support = checker.verify(claim, _span(premise))
    assert support.label == Verdict.CONTRADICTED and support.stage == Stage.GUARDS, support
    same = checker.verify("Tidepool 5.0.0 adds a Gantt view.", _span("Tidepool v5.0.0 adds a Gantt view."))
    assert same.label == Verdict.SUPPORTED
