"""Chat replies in the ``bridge`` modes' context: a line that asks something, says something and then
asks ("Sounds interesting! What topics will you be covering?"), or asks the others for someone or
something ("I still need one more buddy for the Tuesday slot", "I wanted to ask your opinion about…"),
brings the line after it, its reply, in
no slot of its own (:func:`bring_replies`), and the reply is never cut from the context its question
is in (:func:`keep_replies`)."""

from __future__ import annotations

import re

import numpy as np

from citegraph.retrieve.view import GraphView
from citegraph.sentences import ends_asking, leans_on_previous, message_speaker

__all__ = ["asks_for_someone", "bring_replies", "keep_replies", "subjects_before"]

#: a chat line that asks the others for someone or something, with or without a question mark ("I still
#: need one more buddy for the Tuesday slot", "Who can take the Lisbon queue while I'm away?")
REQUESTS = re.compile(
    r"\b(?:still need|need (?:one|two|a|an|some|someone|somebody|more|cover|volunteers?|help)"
    r"|looking for (?:someone|somebody|a|an|volunteers?|cover)|(?:can|could) (?:anyone|someone|somebody)"
    r"|anyone (?:free|able|around|available|up for)|who can|volunteers? wanted"
    r"|(?:want|wanted|like|wanna) to (?:ask|know|hear)|(?:ask|asking) (?:you|your)|wondering|curious (?:about|what|if|how|whether))\b",
    re.IGNORECASE,
)


def asks_for_someone(text: str) -> bool:
    """``text`` is a chat line (:func:`~citegraph.sentences.message_speaker`) that asks for someone or
    something (:data:`REQUESTS`): the line after it, by someone else, is its reply."""
    return message_speaker(text) is not None and REQUESTS.search(text) is not None


def keep_replies(ranked: list[int], replying: dict[int, int], size: int) -> list[int]:
    """``ranked`` with each reply whose question or request is in the first ``size`` (the context)
    moved to right after it, when the cut would leave it out: the reply takes the place of the
    context's last sentence ("Can anyone swap Saturday the 8th with me?" ranked eighth keeps
    "I'll take your Saturday" ninth, outside the context, otherwise)."""
    out = list(ranked)
    for at in range(min(size, len(out))):
        asked = out[at]
        late = next((j for j in out[size:] if replying.get(j) == asked), None)
        if late is None:
            continue
        out.remove(late)
        out.insert(at + 1, late)
        # the question closes the context: it and its reply take its last two places
        if at + 1 >= size and at >= 1 and replying.get(out[at - 1]) is None:
            out.insert(at + 1, out.pop(at - 1))
    return out


def bring_replies(view: GraphView, lead: list[int], eligible: np.ndarray, replying: dict[int, int], taken: set[int]) -> list[int]:
    """``lead`` with each question in it (an FAQ's "How long is data kept?") standing for the
    sentence after it in its document, its answer, and each line that asks something on the way
    ("who's doing the Thursday dinner? the venue only does lunch") or asks the others for someone
    (:func:`asks_for_someone`: "I still need one more buddy for the Tuesday slot", answered by
    another speaker) followed by the line after it, its reply (recorded in ``replying``), where
    that one is evidence, no question itself, and not taken yet."""
    out: list[int] = []
    for i in lead:
        if i in taken:
            continue
        question = view.asks(i)
        text = view.columns.span_text[i]
        # a chat line that asks for someone, or says something and closes asking ("…What topics will
        # you be covering?"): its reply is another speaker's next line
        wants = not question and (asks_for_someone(text) or (message_speaker(text) is not None and ends_asking(text)))
        j = view.next_span(i) if question or wants or ("?" in text and not ends_asking(text)) else None
        if wants and j is not None and message_speaker(view.columns.span_text[j]) in (None, message_speaker(text)):
            j = None  # a request's reply is another speaker's line
        if not question and i not in out:
            out.append(i)
        if j is not None and eligible[j] and not view.asks(j) and j not in taken and j not in out:
            replying[j] = i
            out.append(j)  # moved up, when the passage's order had it later
        elif question and i not in out:
            out.append(i)
    return out


def subjects_before(view: GraphView, ranked: list[int], eligible: np.ndarray, size: int) -> dict[int, int]:
    """For each of the first ``size`` of ``ranked`` (the context) that opens with a pronoun
    (:func:`~citegraph.sentences.leans_on_previous`: "It is closed on Sundays and Mondays.", "She
    carries 320 passengers and 40 cars."), the sentence before it in its passage, which names what the
    pronoun stands for ("Northgate Branch, 58 Northgate Road, is open …", "MV Solan enters service on
    1 September 2025."), where that one is evidence, asks nothing and is not in the context already:
    ``{pronoun's sentence: its subject's}``. The subject is read with it, in no slot of the context's
    own (its evidence is found by :data:`~citegraph.models.SUBJECT`), so that no one reading the answer
    takes the pronoun for the question's subject. Not in a chat log, where the line before is someone
    else's."""
    inside = set(ranked[:size])
    out: dict[int, int] = {}
    for i in ranked[:size]:
        text = view.columns.span_text[i]
        if not leans_on_previous(text) or message_speaker(text) is not None:
            continue
        j = view.previous_span(i)
        if j is not None and eligible[j] and j not in inside and j not in out.values() and not view.asks(j):
            out[i] = j
    return out
