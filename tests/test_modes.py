"""retrieve/modes: every mode ranks sentences with their routes; PageRank, the bridge and the
passage modes find the second hop; a passage is about what its title names; a long document is
ranked by its sections, whose headings are never evidence."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from citegraph.eval.retrieval import load
from citegraph.models import Evidence
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.retrieve.days import calendar_name
from citegraph.retrieve.modes import MODES, Bridge
from citegraph.retrieve.modes.replies import keep_replies

HOTPOT = Path(__file__).parent / "data" / "hotpot_sample.json"


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_ranks_spans_with_their_routes(graph: CiteGraph, mode: str) -> None:
    data = load(HOTPOT)
    graph.ingest_texts([TextInput(t, text) for t, text in data.passages.items()])
    retrieval = graph.retriever.retrieve("In which city was the company that makes Larkspur founded?", ["public"], mode=mode)
    assert retrieval.evidence
    scores = [e.score for e in retrieval.evidence]
    if mode not in {"notebook", "dense-passage", "ppr", "bridge", "bridge-embedded"}:  # by passage or reach, then sentence
        assert scores == sorted(scores, reverse=True)
    for e in retrieval.evidence:
        assert e.route == () or e.route[-1].target == e.entity  # a route ends at the entity that brought the span in
        assert len(e.span.text.split()) >= 3


def test_ppr_reaches_the_second_hop_passage_through_a_bridge_entity(minilm_graph: CiteGraph) -> None:
    """'Quillon Labs' names no city the question asks about; its passage is reached through the
    entity the Larkspur passage and it share, and carries the route that found it."""
    data = load(HOTPOT)
    graph = minilm_graph
    graph.ingest_texts([TextInput(t, text) for t, text in data.passages.items()])
    retrieval = graph.retriever.retrieve("In which city was the company that makes Larkspur founded?", ["public"], mode="ppr")
    documents = list(dict.fromkeys(e.span.document for e in retrieval.evidence))
    assert {"Larkspur", "Quillon Labs"} <= set(documents[:3])
    quillon = next(e for e in retrieval.evidence if e.span.document == "Quillon Labs")
    assert quillon.found_by == "ppr" and quillon.entity is not None


def test_a_passage_is_about_what_its_title_names(graph: CiteGraph) -> None:
    """A passage that does not open with its subject is still found as the passage about it, by its title."""
    from citegraph.retrieve.names import title_key

    assert title_key("Patti LaBelle (album)") == "patti labelle"
    assert title_key("policies/retention-policy.md") == "retention policy"
    assert title_key("The Gospel According to Patti LaBelle") == "gospel according to patti labelle"
    assert title_key("Quillon Labs (2)") == "quillon labs"
    graph.ingest_texts(
        [
            TextInput("Quillon Labs", "The firm was founded in Tallinn in 2014. Quillon Labs makes Larkspur for small teams."),
            TextInput("company-history", "The firm was founded in Tallinn in 2014. Quillon Labs opened a Lisbon office."),
            TextInput("Larkspur", "Larkspur is a project tracker made by Quillon Labs."),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    about = view.topic_passages.get(view.index["quillon labs"], [])
    # "Larkspur" by its first sentence; "Quillon Labs" by its title (its first sentence names only Tallinn);
    # "company-history" neither
    assert sorted(view.passages[d][0] for d in about) == ["Larkspur", "Quillon Labs"]


def test_passage_vectors_are_made_at_ingest_and_read_with_the_callers_graph(graph: CiteGraph) -> None:
    """Each passage's vector is embedded at ingest with the sentences (a long document's on its last
    part, one per passage it is cut into) and read back with the graph, so a passage mode embeds
    nothing; a view embeds only a version stored without them (a store from before schema 5)."""
    from citegraph.sentences import section_texts

    graph.ingester.indexer.chunk_chars = 60  # the long one is made in several parts
    short = "Larkspur is a project tracker. It is made by Quillon Labs."
    long = "\n\n".join(f"Paragraph {i} says that Quillon Labs opened office {i} in Tallinn." for i in range(24))
    graph.ingest_texts([TextInput("short", short), TextInput("long", long)], access=("public",))
    view = graph.retriever.view(["public"])
    texts: dict[str, list[str]] = {}
    for doc in ("short", "long"):
        spans = sorted(
            (int(view.columns.span_start[i]), int(view.columns.span_end[i]), view.columns.span_text[i])
            for i in range(view.n_spans)
            if view.passages[int(view.span_doc[i])][0] == doc
        )
        texts[doc] = section_texts(spans, doc)
    # 24 paragraphs of ~65 characters: passages of at most SECTION_CHARS, closed at paragraph breaks
    assert len(texts["short"]) == 1 and len(texts["long"]) >= 3
    assert texts["long"][0].startswith("long: Paragraph 0 says") and "office 23" in texts["long"][-1]
    assert all(len(t) <= 1_000 for t in texts["long"])
    assert [doc for doc, _v in view.passages] == ["long"] * len(texts["long"]) + ["short"]
    expected = graph.embedder.embed([*texts["long"], *texts["short"]])
    asked: list[list[str]] = []

    def embed(batch: Sequence[str]) -> np.ndarray:
        asked.append(list(batch))
        return graph.embedder.embed(batch)

    assert view.columns.passage_vectors is not None
    np.testing.assert_allclose(view.passage_vectors(embed), expected, atol=1e-5)
    assert asked == []
    # A version stored before the store kept them: the view embeds that one's passages, and only those.
    with graph.store._writing():
        graph.store._execute("UPDATE documents SET passage_vector = NULL WHERE doc_id = 'long'")
    graph.retriever.clear_cache()
    view = graph.retriever.view(["public"])
    np.testing.assert_allclose(view.passage_vectors(embed), expected, atol=1e-5)
    assert asked == [texts["long"]]


def test_names_as_written_find_titles_and_keys_the_parser_misses(graph: CiteGraph) -> None:
    """A capitalised run of words is a name as written: a title ("The Woman in the Window"), a key
    with its possessive ("Patti LaBelle's"), never a lower-case word ("what time"); the passages whose
    title the question names are found by it, and only those."""
    from citegraph.retrieve.names import named_ngrams

    known = {"woman in the window", "patti labelle", "time", "arthur's magazine", "first for women"}.__contains__
    assert named_ngrams("Who directed The Woman in the Window?", known) == ["woman in the window"]
    assert named_ngrams("Is Patti LaBelle's album older?", known) == ["patti labelle"]
    assert named_ngrams("What time does it open?", known) == []
    assert named_ngrams("Which came first, Arthur's Magazine or First for Women?", known) == ["arthur's magazine", "first for women"]
    graph.ingest_texts(
        [
            TextInput("The Woman in the Window (film)", "It is a 1944 film noir directed by Fritz Lang."),
            TextInput("Fritz Lang", "Fritz Lang was an Austrian film director."),
            TextInput("Window cleaning", "Window cleaning is the washing of glass."),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    assert [view.passages[d][0] for d in view.titled("Who directed The Woman in the Window?")] == ["The Woman in the Window (film)"]
    assert view.titled("who cleans a window?") == []


def test_the_relation_a_question_names_is_followed_from_the_first_passage(graph: CiteGraph) -> None:
    """ "the director of" and "directed by" share a stem; the entities a relation of that type joins
    in a passage are what the walk may follow (off by default: it did not help on either dev set)."""
    from citegraph.retrieve.modes import Bridge
    from citegraph.retrieve.names import relation_stems

    assert {"dire", "born"} <= relation_stems("Where was the director of Metropolis born?")
    assert "dire" in relation_stems("directed by") and not relation_stems("Which of these is it?")
    graph.ingest_texts([TextInput("Metropolis (film)", "Metropolis is a 1927 film directed by Fritz Lang.")], access=("public",))
    view = graph.retriever.view(["public"])
    (d,) = range(len(view.passages))
    related = {view.keys[e] for e in view.related(d, relation_stems("Who is the director of Metropolis?")).tolist()}
    assert related and all(k in {"metropolis", "fritz lang", "1927 film", "film"} for k in related)
    assert view.related(d, relation_stems("Who wrote Metropolis?")).size == 0
    assert Bridge().relations == 0.0


def test_a_title_written_a_little_differently_and_an_alias_are_still_names(graph: CiteGraph) -> None:
    """Case, accents and punctuation do not keep a question's name from its page ("Beyonce",
    "Guns N Roses"); a name the documents write an entity by links it when its key differs."""
    from citegraph.retrieve.names import loose_key

    assert loose_key("Beyoncé") == "beyonce" and loose_key("Guns N' Roses") == loose_key("guns n roses")
    graph.ingest_texts(
        [
            TextInput("Beyoncé", "Beyoncé Knowles is an American singer."),
            TextInput("Guns N' Roses", "Guns N' Roses is an American hard rock band."),
            TextInput("Exports", "Exports are kept for thirty days."),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    titled = {view.passages[d][0] for d in view.titled("Is Beyonce older than the singer of Guns N Roses?")}
    assert titled == {"Beyoncé", "Guns N' Roses"}
    assert view.title_shared(view.titled("Who is Beyonce?")[0]) == 1
    aliased = {name: keys for name, keys in view.aliases.items() if name == "exports"}
    assert aliased == {"exports": ["export"]}
    assert "export" in graph.retriever.link("How long are Exports kept?", view)


def test_a_long_handbook_is_ranked_by_its_sections_and_its_headings_are_never_evidence(graph: CiteGraph) -> None:
    """A handbook is several passages, one per section; the default mode takes more than one sentence of
    the best one (the answer need not be its best-matching sentence) and never a heading."""
    sections = {
        "Vacation": "Paid vacation days for full-time employees are booked per year in Pebble. Everyone on a permanent contract gets 25 days.",
        "Expenses": "Expenses are claimed in Spendbook within 60 days. Receipts over ten pounds are photographed.",
        "Security": "Laptops lock after five minutes. Lost devices are reported within one hour.",
        "Offices": "The Leeds office opens at 07:30. The Lisbon office closes at 19:00.",
    }
    handbook = "# Handbook\n\n" + "\n\n".join(
        f"## {title}\n\n{body} " + "Ask in #ask-people for anything else about this. " * 8 for title, body in sections.items()
    )
    # other documents that match the question's words better than the answer does
    others = [TextInput(f"team-{i}.md", f"Team {i} keeps a shared calendar of paid vacation.") for i in range(12)]
    graph.ingest_texts([TextInput("handbook.md", handbook, media_type="text/markdown"), *others], access=("public",))
    view = graph.retriever.view(["public"])
    assert sum(doc == "handbook.md" for doc, _v in view.passages) >= 4
    evidence = graph.retriever.retrieve("How many days of paid vacation do full-time employees get per year?", ["public"]).evidence
    texts = [e.span.text for e in evidence[: graph.settings.context_size]]
    assert "Everyone on a permanent contract gets 25 days." in texts
    assert not {"Handbook", *sections} & {e.span.text for e in evidence}


HANDBOOK = """# Engineering handbook

## Teams

Product engineering is split into two teams, each with its own engineering manager. The Integrations team
builds the importers, the calendar integrations and the reporting exports, and is managed by Callum Reid,
who works from Leeds. The Platform team looks after the sync engine, the public API and our
infrastructure, and is managed by Sofia Almeida, who works from Lisbon. Both teams share one on-call
rotation and one backlog of support escalations, which they triage together every Monday morning.

## Releases

We release every second Tuesday. A release that includes a database migration needs a second reviewer,
and every migration must be safe to run while the application is serving traffic. Release notes are
written by the engineer who ran the release and published in the changelog the same day.

## Offices

Our offices are in Leeds, Lisbon and Toronto. Each office has an office manager who keeps it running,
books meeting rooms and looks after visitors. Desks are not assigned, so please clear yours at the end
of each day and leave the kitchen as you found it.
"""


def _context_holding(graph: CiteGraph, question: str, words: str) -> Evidence:
    """The evidence in the default context for ``question`` (public) whose sentence holds ``words``."""
    evidence = graph.retriever.retrieve(question, ["public"]).evidence[: graph.settings.context_size]
    return next(e for e in evidence if words in e.span.text)


def test_the_second_hop_is_found_where_a_long_document_mentions_the_name(minilm_graph: CiteGraph, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sentence that answers the second hop sits in the middle of a handbook section, where no
    passage is *about* the name: the mention hop reaches it from the name the first hop gives."""
    graph = minilm_graph
    graph.ingest_texts(
        [
            TextInput("planning.md", "# Planning 5.0\n\nSofia Almeida will lead the Gantt rewrite, with Hannah as the main engineer.\n"),
            TextInput("handbook.md", HANDBOOK),
            TextInput("gantt.md", "# Gantt view\n\nThe current Gantt view was built in 2021 and renders every task separately.\n"),
            *(
                TextInput(
                    f"{city.lower()}.md",
                    f"# {city}\n\nThe {city} office is {where}. The {city} team is based in {city}; visitors sign in at reception.\n",
                )
                for city, where in (
                    ("Leeds", "on the third floor of Calder House"),
                    ("Toronto", "near Union Station"),
                    ("Porto", "where the retreat is held"),
                    ("Berlin", "a shared desk for sales"),
                    ("Dublin", "opening next spring"),
                )
            ),
            TextInput("roadmap.md", "# Roadmap\n\nThe Gantt rewrite ships in 5.0. The rewrite adds dependencies and a critical path.\n"),
        ],
        access=("public",),
    )
    question = "Which city is the person leading the Gantt rewrite based in?"
    hop = _context_holding(graph, question, "who works from Lisbon")
    assert hop.found_by == "bridge" and hop.entity == "sofia almeida"
    assert "Sofia Almeida will lead the Gantt rewrite" in hop.route[-1].span.text
    answer = graph.ask(question, labels=["public"])
    assert "who works from Lisbon" in answer.text and "Sofia Almeida will lead the Gantt rewrite" in answer.text
    # a name more sentences give than the cap is not followed (at a million sentences a hub's
    # hundred thousand mentions were each read for every question: 0.5 s a question)
    monkeypatch.setattr(Bridge, "mention_cap", 1)
    evidence = graph.retriever.retrieve(question, ["public"]).evidence[: graph.settings.context_size]
    assert not any(e.entity == "sofia almeida" and "who works from Lisbon" in e.span.text for e in evidence)


def test_a_first_name_in_one_document_is_the_full_name_of_another_for_the_mention_hop(minilm_graph: CiteGraph) -> None:
    """A chat or a plan says "Sofia", the handbook "Sofia Almeida": the mention hop follows the one
    name to the sentences giving the other (and a chat's "@Sofia Almeida" is the same name). A first
    name two full names share stands for neither."""
    from citegraph.retrieve.names import name_run, same_names

    names = ["Sofia", "Sofia Almeida", "@Sofia Almeida", "Hannah thanks", "Hannah", "Hannah Lindqvist", "Hannah Berg", "Leeds", "tidepool"]
    # "Hannah" has two full names here, and a name with a word in lower case is short for nothing
    assert same_names(names) == {0: (1, 2), 1: (0, 2), 2: (0, 1)}
    assert (name_run("@Hannah Lindqvist"), name_run("Hannah thanks"), name_run("Vaishnava temple")) == ("Hannah Lindqvist", "", "")

    graph = minilm_graph
    planning = TextInput("planning.md", "# Planning 5.0\n\nSofia will lead the Gantt rewrite, with Hannah as the main engineer.\n")
    others = [
        TextInput("handbook.md", HANDBOOK),
        TextInput("gantt.md", "# Gantt view\n\nThe current Gantt view was built in 2021 and renders every task separately.\n"),
        *(
            TextInput(f"{city.lower()}.md", f"# {city}\n\nThe {city} office is {where}. The {city} team is based in {city}.\n")
            for city, where in (
                ("Leeds", "on the third floor of Calder House"),
                ("Toronto", "near Union Station"),
                ("Porto", "by the river"),
            )
        ),
    ]
    graph.ingest_texts([planning, *others], access=("public",))
    question = "Which city is the person leading the Gantt rewrite based in?"
    hop = _context_holding(graph, question, "who works from Lisbon")
    assert hop.found_by == "bridge" and "Sofia will lead the Gantt rewrite" in hop.route[-1].span.text
    # another Sofia with a full name in a document the public cannot read changes nothing for them
    graph.ingest_texts([TextInput("people.md", "# People\n\nSofia Costa runs the Porto office.\n")], access=("staff",))
    assert _context_holding(graph, question, "who works from Lisbon").found_by == "bridge"
    # where it can be read, "Sofia" names neither of them
    graph.ingest_texts([TextInput("porto.txt", "Sofia Costa runs the Porto office.\n")], access=("public",))
    evidence = graph.retriever.retrieve(question, ["public"]).evidence[: graph.settings.context_size]
    assert not any(e.found_by == "bridge" and "who works from Lisbon" in e.span.text for e in evidence)


def test_the_mention_hop_prefers_a_sentence_holding_what_the_question_asks_for() -> None:
    """Reached through "Makerspace Coordinator", the minutes' action row ("Makerspace Coordinator |
    17 September 2025 |") names no one but the role; "Leo Marchetti is the Makerspace Coordinator."
    names the person a "who" question asks for. The name the hop came through is no answer, a chat
    line is never ruled out by the parse, and a question asking for no type rules nothing out."""
    pytest.importorskip("spacy")
    from citegraph.retrieve.modes.bridge import _holding_type

    role = "Makerspace Coordinator"
    texts = [
        ("Makerspace Coordinator | 17 September 2025 |", role),
        ("Leo Marchetti is the Makerspace Coordinator.", role),
        ("2025-06-20 09:12 Priya Raman: I'll take it to the Board", role),
    ]
    assert _holding_type("Who will present the safety review to the Board?", texts) == [False, True, True]
    assert _holding_type("When is the safety review due?", texts[:2]) == [True, False]
    assert _holding_type("Summarise the safety review", texts) == [True, True, True]


def test_the_sentence_that_goes_on_from_the_first_ranked_one_is_read_after_it(minilm_graph: CiteGraph) -> None:
    """A passage's best sentence often introduces what the next one says: "Millbrook Branch has one
    step at the entrance." and, in the same paragraph, "A portable ramp is available…". Across a
    paragraph break, or in a chat log, the next sentence is no continuation."""
    graph = minilm_graph
    graph.ingest_texts(
        [
            TextInput(
                "access.md",
                "# Getting into our branches\n\nEastbank Branch is on one level with step-free access. Millbrook Branch has one step at "
                "the entrance. A portable ramp is available: ring the bell beside the door and a member of staff will put it out.\n\n"
                "Assistance dogs are welcome.\n",
            ),
            TextInput(
                "branches.md",
                "# Branches\n\nMillbrook Branch, on The Green, is our smallest branch. Millbrook is open on Tuesdays and Saturdays.\n",
            ),
        ],
        access=("public",),
    )
    question = "Is there a step at the entrance of Millbrook Branch?"
    graph.retriever.context_size = 2  # a context of two sentences: the continuation takes the second place
    texts = [e.span.text for e in graph.retriever.retrieve(question, ["public"]).evidence]
    assert texts[0] == "Millbrook Branch has one step at the entrance."
    assert texts[1].startswith("A portable ramp is available")
    view = graph.retriever.view(["public"])
    by_text = {view.columns.span_text[i]: i for i in range(view.n_spans)}
    eligible = np.ones(view.n_spans, dtype=bool)
    # after a paragraph break the next sentence is another paragraph's
    ramp = by_text["A portable ramp is available: ring the bell beside the door and a member of staff will put it out."]
    dogs = by_text["Assistance dogs are welcome."]
    assert Bridge._continued(view, [ramp, dogs], eligible, 8) == [ramp, dogs]
    assert Bridge._continued(view, [ramp], eligible, 8) == [ramp]


def test_the_second_hop_goes_through_a_role_written_with_its_article(minilm_graph: CiteGraph) -> None:
    """ "the Building Safety Lead" is a name as "Building Safety Lead" is: the article it was written
    with does not stop the mention hop from the sentence giving the role to the one saying who holds it."""
    graph = minilm_graph
    graph.ingest_texts(
        [
            TextInput(
                "makerspace.md",
                "# Makerspace safety\n\nThe CO2 extinguisher beside the laser cutter is inspected by the Building Safety Lead "
                "on the first Monday of every month.\n\nIf the fire does not go out, use the CO2 extinguisher beside the laser cutter.\n",
            ),
            TextInput(
                "handbook.md",
                "# Staff handbook\n\n## Who does what\n\nEach branch has a manager and a deputy who share the opening shifts. "
                "Marcus Bell is the Building Safety Lead for all four branches and the person to call about alarms or contractors. "
                "The volunteer coordinator keeps the rota.\n",
            ),
            *(
                TextInput(
                    f"branch-{name.lower()}.md", f"# {name}\n\nThe {name} branch opens at nine. Its laser printer is on the first floor.\n"
                )
                for name in ("Central", "Eastbank", "Northgate", "Millbrook")
            ),
        ],
        access=("public",),
    )
    hop = _context_holding(graph, "Who checks the fire extinguisher next to the laser cutter?", "Marcus Bell")
    assert hop.found_by == "bridge" and hop.entity == "building safety lead"
    assert "inspected by the Building Safety Lead" in hop.route[-1].span.text


INCIDENT_CHAT = (
    "2025-03-04 09:20 Nadia Petrova: morning all, coffee machine on the second floor is broken again\n"
    "2025-03-04 09:24 Tom Ashby: I'll ring facilities about the coffee machine part\n"
    "2025-03-04 09:26 Nadia Petrova: the status page now warns customers about sync delays of up to two minutes\n"
    "2025-03-04 09:31 Mateus Costa: thanks\n"
)


def test_a_chat_window_reached_as_a_bridge_gives_its_best_line_not_its_first(graph: CiteGraph) -> None:
    """A Wikipedia paragraph opens with its subject, so a bridge passage leads with its first
    sentence; a window of a chat log opens with whoever spoke first, about anything."""
    from citegraph.sentences import message_speaker

    assert message_speaker("2025-03-04 09:26 Nadia Petrova: the status page now warns") == "Nadia Petrova"
    assert message_speaker("[16/04/2025, 12:30] Ellen Fisher: I can do Tuesdays") == "Ellen Fisher"
    assert message_speaker("JakeWatson: For sure!") == "JakeWatson"
    assert message_speaker("We keep customer data for 30 days.") is None
    graph.ingest_texts(
        [
            TextInput("playbook.md", "# Incidents\n\nDuring an incident Nadia Petrova keeps the status page up to date for customers.\n"),
            TextInput("incident.txt", INCIDENT_CHAT),
            TextInput("office.md", "# Office\n\nThe coffee machine is serviced every Monday.\n"),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    logs = {view.passages[d][0]: view.is_log(d) for d in range(len(view.passages))}
    assert logs == {"playbook.md": False, "incident.txt": True, "office.md": False}
    evidence = graph.retriever.retrieve("What did the status page tell customers during the incident?", ["public"]).evidence
    from_chat = [e for e in evidence if e.span.document == "incident.txt"]
    assert from_chat[0].found_by == "bridge"
    assert "status page now warns customers" in from_chat[0].span.text  # not "morning all, coffee machine…"


def test_a_chat_line_whose_speaker_the_question_names_ranks_first_in_its_window(graph: CiteGraph) -> None:
    chat = (
        "2025-03-04 09:20 Nadia Petrova: morning all, the coffee machine is broken again\n"
        "2025-03-04 09:24 Tom Ashby: I'll ring facilities about a new part\n"
        "2025-03-04 09:31 Mateus Costa: thanks\n"
    )
    graph.ingest_texts([TextInput("incident.txt", chat)], access=("public",))
    question = "What did Tom say about the coffee machine?"
    plain = Bridge(embedded=True, per_passage=1, speakers=0.0)
    graph.retriever.mode = plain
    first = graph.retriever.retrieve(question, ["public"]).evidence[0]
    assert first.span.text.startswith("2025-03-04 09:20 Nadia Petrova")  # the line most like the question
    graph.retriever.mode = Bridge(embedded=True, per_passage=1, speakers=0.1)
    first = graph.retriever.retrieve(question, ["public"]).evidence[0]
    assert first.span.text.startswith("2025-03-04 09:24 Tom Ashby")  # Tom's own line
    # a speaker's first name counts only as a capitalised word past the question's first ("Will"
    # opening a question names no one); outside a chat log no line has a speaker to lift
    graph.retriever.mode = Bridge(embedded=True, per_passage=1, speakers=0.1)
    first = graph.retriever.retrieve("what did tom say about the coffee machine?", ["public"]).evidence[0]
    assert first.span.text.startswith("2025-03-04 09:20 Nadia Petrova")


def test_a_day_the_question_names_lifts_the_passages_that_name_it(graph: CiteGraph) -> None:
    """LiHua-World asks "What time does LiHua propose for dinner on 20260930?" of a year of sessions
    that each open with "Time: 20260930_16:00" in a file named by the same day; a chat export stamps
    each line "[30/09/2026, 16:02]"; prose writes "30 September". Each is the same day."""
    from citegraph.retrieve.days import days_named

    assert days_named("on 20260930?") == {"September 30"}
    assert days_named("Time: 20260930_16:00") == days_named("week40/20260930_1600.txt") == {"September 30"}
    assert days_named("[30/09/2026, 16:02] Li Hua: dinner?") == days_named("on 30 September") == {"September 30"}
    assert days_named("2025-03-04 10:31 Sofia") == days_named("March 4th") == {"March 4"}
    assert days_named("Tidepool 4.12.10, 1,930 events in 2026, call 0800 123 456") == set()
    sessions = {
        "week40/20260930_1600.txt": "Time: 20260930_16:00\nLiHua: Dinner at the noodle bar at 7 PM?\nWolfgang: Works for me!\n",
        "week41/20261007_1600.txt": "Time: 20261007_16:00\nLiHua: Dinner at the noodle bar at 8 PM?\nWolfgang: Works for me!\n",
        "week42/20261014_1600.txt": "Time: 20261014_16:00\nLiHua: Dinner at the noodle bar at 9 PM?\nWolfgang: Works for me!\n",
    }
    graph.ingest_texts([TextInput(name, text) for name, text in sessions.items()], access=("public",))
    for day, document in (("20261007", "week41/20261007_1600.txt"), ("7 October", "week41/20261007_1600.txt")):
        question = f"What time does LiHua propose for dinner on {day}?"
        graph.retriever.mode = Bridge(embedded=True, per_passage=1, dates=0.5)
        assert graph.retriever.retrieve(question, ["public"]).evidence[0].span.document == document
        graph.retriever.mode = Bridge(embedded=True, per_passage=1, dates=0.0)  # without: the sessions tie, the first wins
        assert graph.retriever.retrieve(question, ["public"]).evidence[0].span.document == "week40/20260930_1600.txt"


def test_the_walk_is_about_a_name_only_in_a_whole_document_not_a_section_that_opens_with_it(graph: CiteGraph) -> None:
    """A passage cut from the middle of a long handbook that happens to open with "Lisbon" is not the
    passage about Lisbon (it opens with whatever came next); a one-passage note that opens with it is."""
    filler = "Ask in #ask-people for anything else about this. " * 14
    handbook = "\n\n".join(
        [
            "Parking is free for staff on Saturdays. " + filler,
            "Lisbon is where lunches are ordered on Mondays. " + filler,
            "Laptops lock after five minutes. " + filler,
        ]
    )
    graph.ingest_texts(
        [
            TextInput("handbook.md", handbook, media_type="text/markdown"),
            TextInput("lisbon.md", "Lisbon is where the support team sits, on the second floor."),
            TextInput("team.md", "The support team is led by Joana Reis, who works from Lisbon."),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    whole = {}
    for d, (doc, _v) in enumerate(view.passages):
        whole.setdefault(doc, set()).add(bool(view.whole[d]))
    assert whole == {"handbook.md": {False}, "lisbon.md": {True}, "team.md": {True}}
    lisbon = view.index["lisbon"]
    about = {view.passages[d][0] for d in view.topic_passages[lisbon]}
    assert {"handbook.md", "lisbon.md"} <= about  # a cut of the handbook opens with the name: about it by its first sentence
    mode, team = Bridge(), next(d for d, (doc, _v) in enumerate(view.passages) if doc == "team.md")
    scores, sims = np.zeros(len(view.passages)), np.zeros(view.n_spans)
    found = mode._best_bridge(view, team, scores, sims, {team})
    assert found is not None and view.passages[found[1]][0] == "lisbon.md" and found[2] == lisbon
    # with the note already in the context, no cut of the handbook stands in for it
    assert mode._best_bridge(view, team, scores, sims, {team, found[1]}) is None


@pytest.mark.parametrize(("teams", "bridged"), [(3, True), (14, False)])
def test_a_name_a_tenth_of_a_store_mentions_is_no_bridge(graph: CiteGraph, teams: int, bridged: bool) -> None:
    """ "The office" in every team's note links nothing in particular; in a small store (a handful of
    passages) the same name still does."""
    notes = [TextInput(f"team-{i}.md", f"Team {i} books the office on Mondays.") for i in range(teams)]
    graph.ingest_texts([*notes, TextInput("office.md", "The office is on Quay Street, above the bakery.")], access=("public",))
    view = graph.retriever.view(["public"])
    placed = {d for d, (doc, _v) in enumerate(view.passages) if doc.startswith("team-")}  # the notes are in the context
    found = Bridge()._best_bridge(view, min(placed), np.zeros(len(view.passages)), np.zeros(view.n_spans), placed)
    assert (found is not None and view.passages[found[1]][0] == "office.md") is bridged


def test_a_day_or_a_month_is_no_bridge(graph: CiteGraph) -> None:
    """ "Saturday" links the hours of every branch and a chat's weekend plans by the calendar, not by
    what a question asks about: no bridge goes through a day, a month or a year; a name does."""
    graph.ingest_texts(
        [
            TextInput("hours.md", "Central Library is open on Saturday from 9:30, and Ruth Adeyemi runs the desk."),
            TextInput("social.md", "Saturday is the summer social in the Eastbank garden, bring a dish."),
            TextInput("ruth.md", "Ruth Adeyemi coordinates the Books on Wheels service from Eastbank."),
        ],
        access=("public",),
    )
    view = graph.retriever.view(["public"])
    assert view.calendar[view.index["saturday"]] and not view.calendar[view.index["ruth adeyemi"]]
    hours = next(d for d, (doc, _v) in enumerate(view.passages) if doc == "hours.md")
    sims = np.zeros(view.n_spans)
    found = Bridge()._best_bridge(view, hours, np.zeros(len(view.passages)), sims, {hours})
    assert found is not None and view.passages[found[1]][0] == "ruth.md"
    ruth = next(d for d, (doc, _v) in enumerate(view.passages) if doc == "ruth.md")
    assert Bridge()._best_bridge(view, hours, np.zeros(len(view.passages)), sims, {hours, ruth}) is None


@pytest.mark.parametrize(
    ("key", "calendar"),
    [("saturday", True), ("mondays", True), ("march", True), ("2025", True), ("4 march 2025", True), ("2024/25", True),
     ("summer", True), ("ruth adeyemi", False), ("march madness", False), ("tidepool 5.0", False)],
)  # fmt: skip
def test_a_name_that_is_only_a_time(key: str, calendar: bool) -> None:
    assert calendar_name(key) is calendar


def test_a_reply_is_never_cut_from_the_context_its_question_is_in() -> None:
    """ "Can anyone swap Saturday the 8th with me?" ranked eighth of eight had its reply ninth, outside
    the context: the pair now takes the last two places, and a reply ranked far below its question
    comes up to follow it."""
    with_replies = keep_replies
    last = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    assert with_replies(last, {18: 17}, 8) == [10, 11, 12, 13, 14, 15, 17, 18, 16, 19]
    middle = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert with_replies(middle, {9: 3}, 8) == [1, 2, 3, 9, 4, 5, 6, 7, 8]
    assert with_replies(middle, {4: 3}, 8) == middle  # already inside
    assert with_replies([*middle, 20], {20: 9}, 8) == [*middle, 20]  # its question is outside the context too


def test_asked_what_someone_said_the_chat_windows_with_their_lines_score_higher(graph: CiteGraph) -> None:
    """ "What did JakeWatson suggest …?": the windows of a chat holding a line of JakeWatson's score
    ``said_by`` more than without the lift, others the same; a question that does not ask what was
    said ("Who painted …") or names no speaker lifts nothing."""
    from citegraph.question import asks_what_said
    from citegraph.retrieve.modes.base import Query
    from citegraph.retrieve.retriever import question_vector
    from citegraph.sentences import speaker_named

    assert asks_what_said("What did JakeWatson suggest for the benches?") and not asks_what_said("Who painted the benches?")
    # what someone prefers, likes or plans, a chat says in their own lines
    assert asks_what_said("What type of pizza does WolfgangSchulz prefer?") and asks_what_said("What does Emily plan to cook?")
    named = speaker_named("What did Jake suggest for the benches?")
    assert named is not None and named("JakeWatson") and named("Jake Watson") and not named("Rowan")
    jake = "Time: 20260301_10:00\nJakeWatson: We could paint the garden benches green.\nRowan: Sounds good.\nJakeWatson: I can buy paint.\n"
    others = "Time: 20260302_10:00\nRowan: The garden benches need green paint.\nAurora: Green paint for the benches.\nRowan: Agreed.\n"
    graph.ingest_texts([TextInput("chat/jake.txt", jake), TextInput("chat/others.txt", others)], access=("public",))
    view = graph.retriever.view(["public"])
    by_doc = {view.passages[d][0]: d for d in range(len(view.passages))}
    assert view.is_log(by_doc["chat/jake.txt"]) and view.speakers_in(by_doc["chat/jake.txt"]) == {"JakeWatson", "Rowan"}

    def scores(question: str, said_by: float) -> np.ndarray:
        query = Query(question, question_vector(graph.embedder, question), embed=graph.embedder.embed)
        return Bridge(embedded=True, said_by=said_by).passage_scores(query, view)

    asked = "What did JakeWatson suggest for the garden benches?"
    lift = scores(asked, 0.1) - scores(asked, 0.0)
    np.testing.assert_allclose(lift[by_doc["chat/jake.txt"]], 0.1, atol=1e-6)
    assert lift[by_doc["chat/others.txt"]] == 0.0
    for question in ("Who painted the garden benches green?", "What did the council suggest for the garden benches?"):
        assert not np.any(scores(question, 0.1) - scores(question, 0.0))


def test_a_long_chat_message_holding_the_questions_words_ranks_first_in_its_window(graph: CiteGraph) -> None:
    """A message of several sentences is one line of the log, and its vector is diluted by its other
    sentences: a short line sharing two of the question's words read as more like it than the long
    message that holds all of them. In a chat window, a line ranks higher by the share of the
    question's word stems it holds."""
    chat = (
        "2025-01-28 10:12 Grace Whitfield: Escalating #4471 for Kestrel: recurring tasks are being created twice "
        "for their Auckland team. Only happens for users whose workspace time zone is Pacific/Auckland. Reproduced on "
        "staging with a test workspace. P3, they can delete the duplicates but it is annoying them a lot.\n"
        "2025-01-28 15:52 Tom Ashby: Kestrel recurring tasks, noted\n"
    )
    graph.ingest_texts([TextInput("support.txt", chat)], access=("public",))
    question = "Which recurring tasks problem did Grace escalate for Kestrel?"
    graph.retriever.mode = Bridge(embedded=True, per_passage=1, lexical=0.0)
    first = graph.retriever.retrieve(question, ["public"]).evidence[0]
    assert first.span.text.startswith("2025-01-28 15:52")  # the short line most like the question
    graph.retriever.mode = Bridge(embedded=True, per_passage=1, lexical=0.4)
    first = graph.retriever.retrieve(question, ["public"]).evidence[0]
    assert first.span.text.startswith("2025-01-28 10:12")  # the message that says what was escalated


def test_a_passage_scores_its_best_sentence_as_it_ranks_inside_it(graph: CiteGraph) -> None:
    """A passage's best sentence counts with the share of the question's word stems it holds (and, in
    a window of messages, its speaker named by the question) as it does when the passage's sentences
    are ranked: a window whose other lines are about something else rises by its one line that says
    what was asked. A checklist's ``Label: text`` items are no one's messages: no speaker lift."""
    from citegraph.retrieve.modes.base import Query
    from citegraph.retrieve.retriever import question_vector
    from citegraph.sentences import chat_speaker

    assert chat_speaker("Helios: It is a masterpiece!") == "Helios" and chat_speaker("2025-03-04 10:31 Ana de Sousa: ok") == "Ana de Sousa"
    assert chat_speaker("Tour of the branch: staff entrance, staff room") is None
    assert chat_speaker("Name: Callum Reid; Role: Duty officer; Base: Kelso Quay.") is None
    masterpiece = (
        "Time: 20260301_10:00\nAisling: Journey has lovely music.\nHelios: Red Dead Redemption 2 is a masterpiece, "
        "it makes players feel connected to the characters.\nAisling: The soundtrack of Journey is calm.\n"
    )
    music = "Time: 20260302_10:00\nRowan: Which games have great music?\nAurora: Journey has great music.\nRowan: Agreed, lovely music.\n"
    handbook = "Games night\n\nThe games night is on Fridays. Snacks are provided by the office. Players bring their own controllers.\n"
    checklist = "Volunteer checklist\n\nTour of the branch: staff entrance, staff room, kitchen.\nSigning in: the volunteer hours sheet.\n"
    docs = {"chat/a.txt": masterpiece, "chat/b.txt": music, "handbook.md": handbook, "checklist.md": checklist}
    graph.ingest_texts([TextInput(k, v) for k, v in docs.items()], access=("public",))
    view = graph.retriever.view(["public"])
    by_doc = {view.passages[d][0]: d for d in range(len(view.passages))}
    assert view.is_log(by_doc["chat/a.txt"])

    def scores(question: str, lexical: float, speakers: float = 0.0) -> np.ndarray:
        query = Query(question, question_vector(graph.embedder, question), embed=graph.embedder.embed)
        return Bridge(embedded=True, lexical=lexical, speakers=speakers).passage_scores(query, view)

    question = "Which game does Helios call a masterpiece for making players feel connected to the characters?"
    lift = scores(question, 0.4) - scores(question, 0.0)
    assert lift[by_doc["chat/a.txt"]] > 0.1  # the line holding most of the question's words
    assert lift[by_doc["chat/a.txt"]] > lift[by_doc["chat/b.txt"]] + 0.05
    assert lift[by_doc["handbook.md"]] > 0.0  # a document's best sentence counts its words the same way
    assert not np.any(lift < 0.0)
    spoken = scores(question, 0.0, speakers=0.1) - scores(question, 0.0)
    assert spoken[by_doc["chat/a.txt"]] > 0.0 and spoken[by_doc["chat/b.txt"]] == 0.0
    named = "What does Tour say about the staff room?"  # a checklist label the question happens to name
    assert (scores(named, 0.0, speakers=0.1) - scores(named, 0.0))[by_doc["checklist.md"]] == 0.0
