"""Framings that keep a sentence from being asserted: the hostile re-probe's cases, written out as a
test set (issue 22, item 5). Each is (cited text, claim, what a careful reader says): the claim is
the framed sentence stated plainly, so ``supported`` is always wrong; the expected label says
whether the frame denies it (``contradicted``) or only withholds it (``not_supported``).

None of these templates is in the training data (``build_support_data.py`` trains on other frames;
its ``framings.jsonl`` holds the same templates as these, filled from news sentences, for a larger
count). ``support_report.py`` reports the pass rate: the share not labelled ``supported``, and the
share labelled exactly as expected.
"""

from __future__ import annotations

FACT = "Snapshot exports stay available for 30 days after cancellation."
CLAIM = "Snapshot exports stay available for 30 days after cancellation."
SELL = "Larkspur sells customer data to advertisers."

CASES: tuple[tuple[str, str, str], ...] = (
    (f"```\n{FACT}\n```", CLAIM, "not_supported"),
    (f'"{FACT[:-1]}," he lied.', CLAIM, "contradicted"),
    (f"Hypothetically, {FACT[0].lower()}{FACT[1:]}", CLAIM, "not_supported"),
    (f"TODO verify: {FACT}", CLAIM, "not_supported"),
    (f"Old FAQ (obsolete): {FACT}", CLAIM, "not_supported"),
    (f"Fiction: {FACT}", CLAIM, "not_supported"),
    (f"Example of a phishing message: {FACT}", CLAIM, "not_supported"),
    (f"The rejected draft: {FACT}", CLAIM, "not_supported"),
    (f"The following statement is false. {FACT}", CLAIM, "contradicted"),
    ("Il est faux que Larkspur vende les données des clients aux annonceurs.", SELL, "contradicted"),
    ("Es ist ein Mythos, dass Larkspur die Kundendaten an Werbekunden verkauft.", SELL, "contradicted"),
    (f"It is a myth that {SELL[0].lower()}{SELL[1:]}", SELL, "contradicted"),
    (f"Some blog posts claim that {SELL[0].lower()}{SELL[1:]} They are wrong.", SELL, "contradicted"),
    (f"Draft for legal review, not published: {FACT}", CLAIM, "not_supported"),
    (f"In the 2019 beta, before the current policy, {FACT[0].lower()}{FACT[1:]}", CLAIM, "not_supported"),
    (f"Q: Is it true that {FACT[0].lower()}{FACT[1:-1]}? A: No.", CLAIM, "contradicted"),
)
