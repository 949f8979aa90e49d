"""The documents people keep, read as their formats mean (issue 35, item 6): each chat message one
unit with its speaker and time, in every chat format (timestamped lines, WhatsApp's two exports,
Zoom's saved chat, IRC logs, Slack, Teams, Telegram and Discord JSON); a PDF's headings apart from the
sentence after them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citegraph.errors import InputFileError, UnsupportedFile
from citegraph.ingest.messages import read_chat_json
from citegraph.pipeline import CiteGraph
from citegraph.sentences import SentenceSplitter, is_line_document, message_speaker, split_blocks
from tests.pdfs import pdf_pages

CHATS = {
    "plain.txt": "2025-03-04 10:12 Rhea Lind: Who takes the pager after Tomas this week?\n"
    "2025-03-04 10:14 Oskar Vale: Me until Sunday, then Ilona takes over.\n"
    "2025-03-04 10:15 Rhea Lind: Thanks, noted. I will update the rota.\n",
    "whatsapp-ios.txt": "[04/03/2025, 10:12:05] Rhea Lind: Who takes the pager after Tomas this week?\n"
    "[04/03/2025, 10:14:40] Oskar Vale: Me until Sunday, then Ilona takes over.\n"
    "[04/03/2025, 10:15:02] Rhea Lind: Thanks, noted. I will update the rota.\n",
    "whatsapp-android.txt": "04/03/2025, 10:12 - Rhea Lind: Who takes the pager after Tomas this week?\n"
    "04/03/2025, 10:14 - Oskar Vale: Me until Sunday, then Ilona takes over.\n"
    "04/03/2025, 10:15 - Rhea Lind: Thanks, noted. I will update the rota.\n",
    "zoom-chat.txt": "10:12:05 From Rhea Lind to Everyone: Who takes the pager after Tomas this week?\n"
    "10:14:40 From Oskar Vale to Everyone: Me until Sunday, then Ilona takes over.\n"
    "10:15:02 From Rhea Lind to Oskar Vale: Thanks, noted. I will update the rota.\n",
    "irc.log": "[10:12] <Rhea_Lind> Who takes the pager after Tomas this week?\n"
    "[10:14] <Oskar_Vale> Me until Sunday, then Ilona takes over.\n"
    "[10:15] <Rhea_Lind> Thanks, noted. I will update the rota.\n",
    "iso-zoned.txt": "2025-03-04T10:12:00Z Rhea Lind: Who takes the pager after Tomas this week?\n"
    "2025-03-04T10:14:00Z Oskar Vale: Me until Sunday, then Ilona takes over.\n"
    "2025-03-04T10:15:00Z Rhea Lind: Thanks, noted. I will update the rota.\n",
}
SLACK = [
    {"type": "message", "subtype": "channel_join", "user": "U1", "text": "<@U1> has joined the channel", "ts": "1741082000.0001"},
    {
        "type": "message",
        "user": "U1",
        "user_profile": {"real_name": "Rhea Lind"},
        "text": "Who takes the pager after Tomas?",
        "ts": "1741083120.0001",
    },
    {
        "type": "message",
        "user": "U2",
        "user_profile": {"real_name": "Oskar Vale"},
        "text": "Me until Sunday, then <@U1> takes over.\nSee <https://wiki.example/rota|the rota>.",
        "ts": "1741083240.0002",
    },
]
TEAMS = {
    "messages": [
        {
            "from": {"user": {"displayName": "Oskar Vale"}},
            "body": {"content": "Me until Sunday."},
            "createdDateTime": "2025-03-04T10:14:00Z",
        }
    ]
}


@pytest.mark.parametrize("name", sorted(CHATS))
def test_each_chat_line_is_one_unit_with_its_speaker_and_time(name: str, splitter: SentenceSplitter) -> None:
    text = CHATS[name]
    assert is_line_document(text)
    units = [s.span.text for s in splitter.split("chat", "v", text)]
    assert len(units) == 3 and all(line.strip() in units for line in text.splitlines())  # never joined, never cut
    reply = next(u for u in units if "Me until Sunday" in u)
    assert ("Oskar Vale" in reply or "Oskar_Vale" in reply) and "10:14" in reply
    assert message_speaker(reply) in {"Oskar Vale", "Oskar_Vale"} and message_speaker(units[0]) in {"Rhea Lind", "Rhea_Lind"}


def test_a_chat_pasted_into_markdown_notes_names_its_speakers_without_the_markup(splitter: SentenceSplitter) -> None:
    text = "- **Rhea Lind**: Who takes the pager after Tomas this week?\n- **Oskar Vale**: Me until Sunday.\n- Rhea Lind: Thanks, noted.\n"
    assert is_line_document(text)
    units = [s.span.text for s in splitter.split("notes.md", "v", text)]
    assert [message_speaker(u) for u in units] == ["Rhea Lind", "Oskar Vale", "Rhea Lind"]
    assert message_speaker("__Ana__: hi") == "Ana" and message_speaker("* Ana: hi") == "Ana"


def test_a_line_that_opens_with_a_tag_is_no_irc_message() -> None:
    assert message_speaker("[10:12] <rhea> on it") == "rhea"
    assert message_speaker("<br> Opening hours are below.") is None  # a tag, with no time before it
    assert not is_line_document("<p> First.\n<p> Second.\n<p> Third.\n")


def test_a_slack_export_is_read_as_one_line_per_message_with_names_and_times() -> None:
    text, meta = read_chat_json("general/2025-03-04.json", json.dumps(SLACK).encode())
    lines = text.splitlines()
    assert lines == [
        "2025-03-04 10:12 Rhea Lind: Who takes the pager after Tomas?",
        "2025-03-04 10:14 Oskar Vale: Me until Sunday, then @Rhea Lind takes over. See the rota.",
    ]  # the join notice is not a message; a mention is the user's name; a link keeps its text
    assert is_line_document(text) and meta.dated is None  # two messages, each with its time: a chat of two lines


def test_a_chat_of_two_timed_messages_is_two_units_and_two_untimed_lines_are_not_a_chat(splitter: SentenceSplitter) -> None:
    text = "2025-03-04 10:12 Priya Raman: the van is back from the garage\n2025-03-04 10:14 Tom Baxter: It runs fine now, I drove it round the block\n"
    assert is_line_document(text)
    units = [s.span.text for s in splitter.split("ops.txt", "v", text)]
    assert units == text.splitlines()  # the second speaker's name is never glued to the first line
    assert not is_line_document("Title: Opening hours\nAuthor: Fiona Grant\n")  # a title and an author, not a chat


def test_a_conversation_of_one_message_after_its_time_line_is_a_chat(splitter: SentenceSplitter) -> None:
    """LiHua-World's delivery notes: a session's time line and one message of several sentences. Read
    as prose, the time was glued to the message's first sentence and the message cut in two."""
    text = "Time: 20260529_08:30\nAlice: I am Alice from Hailey's bakery. Your bread has been delivered, please pick it up. Have a good day : )"
    assert is_line_document(text)
    units = [s.span.text for s in splitter.split("bakery/20260529.txt", "v", text)]
    assert units == text.splitlines()  # the time line and the message, each one unit, the speaker kept
    assert not is_line_document("Time: 20260529_08:30\nThe bread was delivered before nine.")  # no one speaks


def test_a_chat_export_of_one_message_is_one_unit_with_its_speaker(splitter: SentenceSplitter) -> None:
    """One Slack or Teams message of several sentences, alone in its export: read as prose, it was cut
    into sentences and only the first kept the speaker."""
    text = "2025-03-04 10:14 Oskar Vale: Me until Sunday. Then Rhea takes the pager. Ping me before 9.\n"
    assert is_line_document(text)
    units = [s.span.text for s in splitter.split("ops/2025-03-04.json", "v", text)]
    assert units == [text.strip()]
    for prose in ("[Draft] Policy: Staff must lock screens. Visitors sign in.", "Policy: Staff must lock screens. Visitors sign in."):
        assert not is_line_document(prose), prose  # a label, no time: one line of prose
        assert len(splitter.split("policy.txt", "v", prose)) == 2


def test_a_teams_export_and_a_json_that_is_no_chat() -> None:
    text, _meta = read_chat_json("teams.json", json.dumps(TEAMS).encode())
    assert text == "2025-03-04 10:14 Oskar Vale: Me until Sunday.\n"
    with pytest.raises(UnsupportedFile, match=r"package\.json: JSON that is not a chat export"):
        read_chat_json("package.json", b'{"name": "x", "version": "1"}')
    with pytest.raises(InputFileError, match=r"broken.json: not valid JSON \(line 1"):
        read_chat_json("broken.json", b"[{")


def test_telegram_and_discord_exports_keep_each_speaker_and_skip_what_has_no_text() -> None:
    """Telegram writes a formatted message as a list of parts and its notices as "service" messages;
    DiscordChatExporter writes the author as an object; a shared file has no text to read."""
    telegram = {
        "name": "Van rota",
        "messages": [
            {"id": 1, "type": "service", "date": "2025-03-04T10:10:00", "actor": "Rhea Lind", "action": "create_group", "text": ""},
            {"id": 2, "type": "message", "date": "2025-03-04T10:12:00", "from": "Rhea Lind", "text": "Who takes the pager after Tomas?"},
            {
                "id": 3,
                "type": "message",
                "date": "2025-03-04T10:14:00",
                "from": "Oskar Vale",
                "text": ["Me until ", {"type": "bold", "text": "Sunday"}, ", then Rhea."],
            },
            {"id": 4, "type": "message", "date": "2025-03-04T10:15:00", "from": "Oskar Vale", "photo": "photos/1.jpg", "text": ""},
        ],
    }
    text, _meta = read_chat_json("telegram/result.json", json.dumps(telegram).encode())
    assert text.splitlines() == [
        "2025-03-04 10:12 Rhea Lind: Who takes the pager after Tomas?",
        "2025-03-04 10:14 Oskar Vale: Me until Sunday, then Rhea.",
    ]
    discord = {
        "channel": {"name": "on-call"},
        "messages": [
            {"timestamp": "2025-03-04T10:12:00+00:00", "author": {"name": "rhea", "nickname": "Rhea Lind"}, "content": "Pager?"},
            {"timestamp": "2025-03-04T10:14:00+00:00", "author": {"name": "oskar"}, "content": "Me until Sunday.", "attachments": []},
            {"timestamp": "2025-03-04T10:15:00+00:00", "author": {"name": "oskar"}, "attachments": [{"fileName": "rota.pdf"}]},
        ],
    }
    text, _meta = read_chat_json("discord/on-call.json", json.dumps(discord).encode())
    assert text.splitlines() == ["2025-03-04 10:12 Rhea Lind: Pager?", "2025-03-04 10:14 oskar: Me until Sunday."]
    # text in a layout it does not know is not dropped quietly: the file says why it is not read
    with pytest.raises(UnsupportedFile, match=r"odd\.json: a JSON message whose text is in a layout"):
        read_chat_json("odd.json", json.dumps({"messages": [{"from": "Rhea", "text": {"html": "<b>Pager?</b>"}}]}).encode())


def test_a_folder_with_a_chat_export_and_other_json_ingests_the_chat_and_skips_the_rest(graph: CiteGraph, tmp_path: Path) -> None:
    (tmp_path / "oncall.json").write_text(json.dumps(SLACK), encoding="utf-8")
    (tmp_path / "package.json").write_text('{"name": "x"}', encoding="utf-8")
    report = graph.ingest([tmp_path])
    status = {d.id: d.status.value for d in report.documents}
    assert status["package.json"] == "skipped" and status["oncall.json"] != "skipped"
    reason = next(d.reason for d in report.documents if d.id == "package.json")
    assert "chat export" in reason  # the skip says what citegraph reads
    answer = graph.ask("Who has the pager until Sunday?")
    assert any("Oskar Vale: Me until Sunday" in item.span.text for item in answer.context)


PDF_TEXT = (
    "Travel Guide\n"
    "Questions: finance@example.com or #ask-finance\n"
    "1. Who this guide is for\n"
    "This  guide  applies  to  everyone  who  travels  on  behalf  of  the  company,  including\n"
    "contractors and candidates.\n"
    "4. Hotels and meals\n"
    "The hotel limit is EUR 160 per night in most cities, including taxes and breakfast, and it\n"
    "is a ceiling, not a per diem.\n"
    "Our offices\n"
    "The Lisbon office is at Rua Augusta 12.\n"
)


def test_a_pdf_heading_is_a_block_of_its_own_without_its_number(splitter: SentenceSplitter) -> None:
    units = [s.span.text for s in splitter.split("guide.pdf", "v", PDF_TEXT, "application/pdf")]
    assert "Who this guide is for" in units and "Hotels and meals" in units and "Our offices" in units
    assert "The Lisbon office is at Rua Augusta 12." in units  # not "Our offices The Lisbon office..."
    assert any(u.startswith("The hotel limit is EUR 160") and u.endswith("per diem.") for u in units)  # a wrapped sentence stays whole
    assert not any(u.strip() in {"1.", "4."} for u in units)
    # the same lines as plain text keep today's reading (a paragraph per blank-line block)
    assert len(split_blocks(PDF_TEXT, "text/plain")) == 1


def test_a_table_row_is_one_unit_with_its_cells_in_html_and_markdown() -> None:
    from citegraph.ingest.loaders import read_html
    from citegraph.sentences import is_heading

    html = (
        b"<p>The table below gives the retention period.</p><table><tr><th>Data</th><th>Retention period</th></tr>"
        b"<tr><td>Customer workspace data after the customer cancels</td><td>Deleted 30 days after cancellation</td></tr></table>"
    )
    text, _meta = read_html("policy.html", html)
    row = "Data: Customer workspace data after the customer cancels; Retention period: Deleted 30 days after cancellation."
    assert row in text.splitlines() and "Data | Retention period" not in text  # each cell after its column's heading
    assert [s.span.text for s in SentenceSplitter().split("policy.html", "v", text, "text/html")][-1] == row
    headless = b"<table><tr><td>Backups</td><td>35 days</td><td>Platform</td></tr></table>"
    # no header row: the cells as Markdown writes them
    assert "Backups | 35 days | Platform" in read_html("policy.html", headless)[0].splitlines()
    markdown = "Bands:\n\n| Role | Leeds |\n|---|---|\n| Support Engineer | £32,000–£40,000 |\n| Software Engineer | £48,000–£60,000 |\n"
    blocks = [markdown[s:e] for s, e in split_blocks(markdown, "text/markdown")]
    # the header row names the columns and states nothing: no unit, never a quote
    assert blocks == ["Bands:", "| Support Engineer | £32,000–£40,000 |", "| Software Engineer | £48,000–£60,000 |"]
    spans = [s.span.text for s in SentenceSplitter().split("bands.md", "v", markdown, "text/markdown")]
    assert "| Support Engineer | £32,000–£40,000 |" in spans
    assert not is_heading("| Role | Leeds |")  # a row gives values: never a title kept from evidence


def _text(x: float, y: float, text: str, font: str = "F1") -> str:
    return f"BT /{font} 10 Tf {x} {y} Td ({text}) Tj ET\n"


def _ruled_table(rows: list[list[str]], top: float, widths: tuple[float, ...] = (120, 90, 90)) -> str:
    """A table drawn as a PDF writer draws one: every cell's border stroked, the first row bold."""
    ops = []
    for r, row in enumerate(rows):
        y = top - 20 * (r + 1)
        x = 72.0
        for cell, width in zip(row, widths, strict=True):
            ops.append(f"{x} {y} {width} 20 re S\n")
            ops.append(_text(x + 4, y + 6, cell, "F2" if r == 0 else "F1"))
            x += width
    return "".join(ops)


def test_a_pdf_table_is_read_row_by_row_under_its_header_and_the_running_footer_is_left_out(splitter: SentenceSplitter) -> None:
    from citegraph.ingest.loaders import read_pdf

    footer = _text(72, 40, "Acme - Office Guide, April 2025 Page {}")
    rooms = [["Office", "Room", "Seats"], ["Leeds", "Kelp", "4"], ["Lisbon", "Onda", "10"]]
    first = _text(72, 720, "Meeting rooms") + _text(72, 700, "Book rooms through the shared calendars.") + _ruled_table(rooms, 680)
    second = _text(72, 720, "Fire safety") + _text(72, 700, "Leave by the nearest exit and do not use the lifts.")
    text, _meta = read_pdf("guide.pdf", pdf_pages([first + footer.format(1), second + footer.format(2)]))
    lines = text.splitlines()
    assert "Office: Leeds; Room: Kelp; Seats: 4." in lines and "Office: Lisbon; Room: Onda; Seats: 10." in lines
    assert (
        lines.index("Book rooms through the shared calendars.")
        < lines.index("Office: Leeds; Room: Kelp; Seats: 4.")
        < lines.index("Fire safety")
    )
    assert "Office Room Seats" not in text and "Leeds Kelp 4" not in text  # the cells are not read again as plain text
    assert "Page 1" not in text and "Page 2" not in text  # the footer every page repeats is not evidence
    units = [s.span.text for s in splitter.split("guide.pdf", "v", text, "application/pdf")]
    assert "Office: Leeds; Room: Kelp; Seats: 4." in units  # a row is one unit, never glued to the next
    one_page, _meta = read_pdf("guide.pdf", pdf_pages([first + footer.format(1)]))
    assert "Acme - Office Guide, April 2025 Page 1" in one_page  # one page: nothing repeats, nothing is left out


def test_a_two_column_table_without_a_bold_header_reads_as_key_and_value() -> None:
    from citegraph.ingest.loaders import table_rows

    assert table_rows(None, [["Owner", "Priya Raman"], ["Updated", "7 April 2025"]]) == ["Owner: Priya Raman.", "Updated: 7 April 2025."]
    assert table_rows(["Office", "Seats"], [["Leeds", ""], ["", ""]]) == ["Office: Leeds."]  # an empty cell is left out


def _word_document(path: Path) -> None:
    """A handbook as Word writes it: a title, headings, a paragraph, a list, a table with a bold header,
    a two-column table of key and value, a struck-through sentence, and the date it was last saved."""
    import datetime as dt

    import docx

    document = docx.Document()
    document.add_heading("Staff handbook", level=0)
    document.add_heading("Holidays", level=1)
    document.add_paragraph("Full-time employees get 25 days of paid holiday a year.")
    old = document.add_paragraph()
    old.add_run("Holidays carry over without limit.").font.strike = True
    document.add_paragraph("Book holidays in Peopleline.", style="List Bullet")
    document.add_heading("Offices", level=1)
    table = document.add_table(rows=3, cols=3)
    for row, cells in zip(table.rows, [["Office", "Room", "Seats"], ["Leeds", "Kelp", "4"], ["Lisbon", "Onda", "10"]], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    for cell in table.rows[0].cells:
        cell.paragraphs[0].runs[0].bold = True
    pairs = document.add_table(rows=2, cols=2)
    for row, cells in zip(pairs.rows, [["Owner", "People team"], ["Reviewed", "March 2025"]], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.core_properties.modified = dt.datetime(2025, 3, 4, 9, 30)
    document.save(str(path))


def test_a_word_document_is_read_in_order_with_its_headings_tables_and_date(splitter: SentenceSplitter, tmp_path: Path) -> None:
    from citegraph.ingest.base import load_file

    _word_document(tmp_path / "handbook.docx")
    loaded = load_file(tmp_path / "handbook.docx")
    assert loaded.dated == "2025-03-04"  # saved on the 4th, in the month its table states ("Reviewed: March 2025")
    text = loaded.text
    order = [
        "Staff handbook",
        "Holidays",
        "Full-time employees get 25 days",
        "~~Holidays carry over without limit.~~",
        "Book holidays in Peopleline.",
    ]
    assert [text.index(part) for part in order] == sorted(text.index(part) for part in order)
    units = [s.span.text for s in splitter.split("handbook.docx", "v", text, loaded.media_type)]
    assert "Office: Leeds; Room: Kelp; Seats: 4." in units and "Office: Lisbon; Room: Onda; Seats: 10." in units
    assert "Owner: People team." in units  # two columns, no bold header: key and value
    assert "Holidays" in units and not any(u.startswith("Holidays Full-time") for u in units)  # a heading is its own unit


def test_a_word_documents_struck_sentence_is_framed_and_its_table_answers(graph: CiteGraph, tmp_path: Path) -> None:
    _word_document(tmp_path / "handbook.docx")
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    report = graph.ingest([tmp_path])
    status = {d.id: d for d in report.documents}
    assert status["handbook.docx"].status.value == "ok"
    assert status["broken.docx"].status.value == "failed" and "Word document" in status["broken.docx"].reason  # and the other is kept
    answer = graph.ask("How many seats does the Onda room in Lisbon have?")
    assert any("Room: Onda; Seats: 10" in item.span.text for item in answer.context)
    framed = dict(graph.store.db.execute("SELECT text, frame FROM spans"))  # type: ignore[attr-defined]
    assert framed["~~Holidays carry over without limit.~~"] == "struck through"  # struck through in Word: not asserted
    assert framed["Full-time employees get 25 days of paid holiday a year."] == ""


@pytest.mark.parametrize(
    ("name", "table"),
    [
        ("rooms.csv", "Office,Room,Seats\nLeeds,Kelp,4\nLisbon,Onda,10\n"),
        ("rooms-semicolon.csv", "Office;Room;Seats\r\nLeeds;Kelp;4\r\nLisbon;Onda;10\r\n"),
        ("rooms.tsv", "Office\tRoom\tSeats\nLeeds\tKelp\t4\nLisbon\tOnda\t10\n"),
    ],
)
def test_a_csv_table_is_one_sentence_per_row_under_its_header(name: str, table: str, splitter: SentenceSplitter, tmp_path: Path) -> None:
    from citegraph.ingest.base import load_file

    (tmp_path / name).write_text(table, encoding="utf-8", newline="")
    loaded = load_file(tmp_path / name)
    units = [s.span.text for s in splitter.split(name, "v", loaded.text, loaded.media_type)]
    assert units == ["Office: Leeds; Room: Kelp; Seats: 4.", "Office: Lisbon; Room: Onda; Seats: 10."]


def test_a_quoted_csv_cell_with_commas_and_lines_stays_one_cell(tmp_path: Path) -> None:
    from citegraph.ingest.base import load_file

    (tmp_path / "notes.csv").write_text('Item,Note\nLaptop,"Order it, two weeks\nbefore the start"\n', encoding="utf-8")
    assert load_file(tmp_path / "notes.csv").text == "Item: Laptop; Note: Order it, two weeks before the start.\n"


def test_an_excel_workbook_is_read_sheet_by_sheet_row_by_row(splitter: SentenceSplitter, tmp_path: Path) -> None:
    import datetime as dt

    import openpyxl

    from citegraph.ingest.base import load_file

    book = openpyxl.Workbook()
    rates = book.active
    rates.title = "Travel rates"
    for row in (["City", "Hotel per night", "Meals per day"], ["Porto", "€110", 35.0], ["Toronto", "C$240", 75]):
        rates.append(row)
    dates = book.create_sheet("Deadlines")
    dates.append(["Claim", "Due"])
    dates.append(["Expenses", dt.datetime(2025, 3, 10)])
    book.save(tmp_path / "rates.xlsx")
    loaded = load_file(tmp_path / "rates.xlsx")
    units = [s.span.text for s in splitter.split("rates.xlsx", "v", loaded.text, loaded.media_type)]
    assert "City: Porto; Hotel per night: €110; Meals per day: 35." in units  # 35, not 35.0
    assert "Claim: Expenses; Due: 2025-03-10." in units  # a date as a day
    assert "Travel rates" in units and units.index("Travel rates") < units.index("City: Porto; Hotel per night: €110; Meals per day: 35.")
    assert loaded.dated is not None and dt.date.fromisoformat(loaded.dated)  # the day it was saved (openpyxl stamps it on save)


def test_a_powerpoint_deck_is_read_slide_by_slide_with_its_notes(splitter: SentenceSplitter, tmp_path: Path) -> None:
    import pptx
    from pptx.util import Inches

    from citegraph.ingest.base import load_file

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Tidepool 5.0"
    slide.placeholders[1].text_frame.text = "The Gantt view is rewritten from scratch."
    slide.notes_slide.notes_text_frame.text = "Sofia Almeida leads the Gantt rewrite."
    table = deck.slides.add_slide(deck.slide_layouts[5])
    table.shapes.title.text = "Dates"
    grid = table.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1)).table
    for (r, c), text in {(0, 0): "Milestone", (0, 1): "Day", (1, 0): "Beta", (1, 1): "2 June"}.items():
        grid.cell(r, c).text = text
    deck.save(str(tmp_path / "plan.pptx"))
    loaded = load_file(tmp_path / "plan.pptx")
    units = [s.span.text for s in splitter.split("plan.pptx", "v", loaded.text, loaded.media_type)]
    order = [
        "Tidepool 5.0",
        "The Gantt view is rewritten from scratch.",
        "Sofia Almeida leads the Gantt rewrite.",
        "Dates",
        "Milestone: Beta; Day: 2 June.",
    ]
    assert [units.index(u) for u in order] == sorted(units.index(u) for u in order)
    assert units.count("Tidepool 5.0") == 1 and units.count("Dates") == 1  # a title once, not again as one of the shapes


def test_an_email_is_read_with_its_sender_day_and_subject_and_a_quoted_reply_is_framed(graph: CiteGraph, tmp_path: Path) -> None:
    (tmp_path / "rollback.eml").write_text(
        "From: Sofia Almeida <sofia@example.com>\n"
        "To: Platform <platform@example.com>\n"
        "Date: Tue, 04 Mar 2025 10:31:00 +0000\n"
        "Subject: Re: Fwd: Rollback of 4.12.1\n"
        "Content-Type: text/plain; charset=utf-8\n\n"
        "We roll back to 4.12.0 now and rebuild the index\n"
        "concurrently tonight.\n\n"
        "On Tue, 4 Mar 2025 at 10:02, Tom Ashby wrote:\n"
        "> The release is fine, no rollback needed.\n",
        encoding="utf-8",
    )
    report = graph.ingest([tmp_path])
    (doc,) = report.documents
    assert doc.status.value == "ok"
    (dated,) = graph.store.db.execute("SELECT dated FROM documents WHERE doc_id = 'rollback.eml'").fetchone()  # type: ignore[attr-defined]
    assert dated == "2025-03-04"  # the day it was sent
    framed = {" ".join(text.split()): frame for text, frame in graph.store.db.execute("SELECT text, frame FROM spans")}  # type: ignore[attr-defined]
    assert framed["From: Sofia Almeida <sofia@example.com>"] == ""  # a unit of its own
    assert "Rollback of 4.12.1" in framed  # the subject, without "Re: Fwd:": the message's title
    assert framed["We roll back to 4.12.0 now and rebuild the index concurrently tonight."] == ""  # a wrapped line is one sentence
    quoted = [frame for text, frame in framed.items() if "no rollback needed" in text]
    assert quoted and all(quoted)  # the quoted earlier message is not the sender's own words


def test_a_meeting_transcript_is_one_unit_per_turn_with_its_speaker_and_time(splitter: SentenceSplitter, tmp_path: Path) -> None:
    from citegraph.ingest.base import load_file
    from citegraph.sentences import message_speaker, message_stamp

    (tmp_path / "standup.vtt").write_text(
        "WEBVTT\n\nNOTE recorded by the meeting tool\n\n"
        "1\n00:00:01.000 --> 00:00:04.000\n<v Sofia Almeida>We roll back to 4.12.0 now.</v>\n\n"
        "2\n00:00:04.500 --> 00:00:06.000\n<v Sofia Almeida>I'll own it.</v>\n\n"
        "3\n00:00:40.000 --> 00:00:43.000\n<v Dev Patel>I'm secondary tonight.</v>\n\n"
        "4\n00:01:05.000 --> 00:01:07.000\n<v Tom Ashby>Rolling back.</v>\n",
        encoding="utf-8",
    )
    (tmp_path / "standup.srt").write_text(
        "1\n00:00:01,000 --> 00:00:04,000\nSofia Almeida: We roll back to 4.12.0 now.\n\n"
        "2\n00:00:40,000 --> 00:00:43,000\nDev Patel: I'm secondary tonight.\n\n"
        "3\n00:01:05,000 --> 00:01:07,000\nTom Ashby: Rolling back.\n",
        encoding="utf-8",
    )
    for name in ("standup.vtt", "standup.srt"):
        loaded = load_file(tmp_path / name)
        units = [s.span.text for s in splitter.split(name, "v", loaded.text, loaded.media_type)]
        assert units[-1] == "[00:01:05] Tom Ashby: Rolling back."
        assert message_speaker(units[0]) == "Sofia Almeida" and message_stamp(units[0]) == "[00:00:01]"
    assert "We roll back to 4.12.0 now. I'll own it." in load_file(tmp_path / "standup.vtt").text  # one turn, two cues
    (tmp_path / "empty.vtt").write_text("WEBVTT\n\nNOTE nothing said\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="no cue"):
        load_file(tmp_path / "empty.vtt")


def test_an_office_file_cut_short_fails_alone_with_its_reason(graph: CiteGraph, tmp_path: Path) -> None:
    """A .docx whose XML is cut short (a zip that opens, a part that does not parse) is this file's
    problem: reported with the reason and the fix, the other files ingested."""
    import zipfile

    _word_document(tmp_path / "whole.docx")
    source = zipfile.ZipFile(tmp_path / "whole.docx")
    with zipfile.ZipFile(tmp_path / "cut.docx", "w") as out:
        for item in source.infolist():
            part = source.read(item.filename)
            out.writestr(item, part[: len(part) // 2] if item.filename == "word/document.xml" else part)
    (tmp_path / "rooms.csv").write_text("Office,Room\nLeeds,Kelp\n", encoding="utf-8")
    (tmp_path / "whole.docx").unlink()
    report = graph.ingest([tmp_path])
    status = {d.id: d for d in report.documents}
    assert status["cut.docx"].status.value == "failed" and "cannot read the Word document" in status["cut.docx"].reason
    assert "saved by Word" in status["cut.docx"].reason
    assert status["rooms.csv"].status.value == "ok"


def test_a_question_asking_who_or_when_brings_the_emails_sender_or_day(graph: CiteGraph, tmp_path: Path) -> None:
    """A body sentence of an e-mail does not carry its sender or day the way a chat line carries its
    speaker and time: for a question asking who (when), the message's From: (Date:) line comes with
    it (numbered after the context where retrieval did not find it) and is quoted beside the sentence."""
    body = " ".join(f"Item {n} of the checklist is unchanged this week." for n in range(1, 13))
    (tmp_path / "reply.eml").write_text(
        "From: Callum Reid <callum.reid@example.com>\n"
        "To: Priya Natarajan <priya@example.com>\n"
        "Date: Fri, 13 Jun 2025 08:02:00 +0100\n"
        "Subject: Re: Drill log\n\n"
        f"The drill log template is updated and on the shared drive now. {body}\n",
        encoding="utf-8",
    )
    graph.ingest([tmp_path])
    who = graph.ask("Who updated the drill log template?")
    sender = next(c for c in who.context if c.span.text == "From: Callum Reid <callum.reid@example.com>")
    assert sender.evidence.found_by in {"sender", "passage"}
    assert sender.marker in {m for claim in who.claims for m in claim.markers}  # quoted beside the sentence
    when = graph.ask("When was the drill log template updated?")
    assert any(claim.text.startswith("Date: Fri, 13 Jun 2025") for claim in when.claims)
    where = graph.ask("Where is the drill log template?")  # asks neither who nor when
    assert not any(claim.text.startswith(("From:", "Date:")) for claim in where.claims)


def test_a_message_header_is_read_only_where_the_first_lines_give_a_sender_and_a_date() -> None:
    from citegraph.sentences import message_header

    memo = "MEMO\n\nFrom: Priya Natarajan\nTo: All crew\nSent: 12 June 2025\n\nThe drill moves to Tuesdays.\n"
    at = message_header(memo, "From")
    assert at is not None and memo[at[0] : at[1]] == "From: Priya Natarajan"
    date = message_header(memo, "Date")
    assert date is not None and memo[date[0] : date[1]] == "Sent: 12 June 2025"  # Sent: stands for Date:
    assert message_header("From: the 2023 survey, most riders travel by bike.\n\nMore text.\n", "From") is None  # no date: no header


def test_the_senders_line_is_numbered_after_the_context_where_retrieval_did_not_find_it(graph: CiteGraph, tmp_path: Path) -> None:
    from citegraph.answer.compose import _header_line, _lines_beside
    from citegraph.models import ContextItem, Evidence
    from citegraph.store.base import as_seen_in

    (tmp_path / "reply.eml").write_text(
        "From: Callum Reid <callum.reid@example.com>\nDate: Fri, 13 Jun 2025 08:02:00 +0100\nSubject: Drill log\n\n"
        "The drill log template is updated and on the shared drive now.\n",
        encoding="utf-8",
    )
    graph.ingest([tmp_path])
    document = as_seen_in(graph.store, ("public",))
    body = next(c for c in graph.ask("Where is the drill log template?").context if c.span.text.startswith("The drill log"))
    context = (ContextItem(1, Evidence(body.span, 0.5, 0.5, "passage")),)
    (sender,) = _lines_beside(context, document, _header_line("From"), "sender")
    assert (sender.marker, sender.evidence.found_by, sender.span.text) == (2, "sender", "From: Callum Reid <callum.reid@example.com>")
    (day,) = _lines_beside(context, document, _header_line("Date"), "time")
    assert day.span.text == "Date: Fri, 13 Jun 2025 08:02:00 +0100"
    assert (
        _lines_beside((ContextItem(1, Evidence(sender.span, 0.5, 0.5, "passage")),), document, _header_line("From"), "sender") == ()
    )  # the line itself


def test_slacks_escapes_channels_and_group_mentions_read_as_written_and_a_teams_html_body_as_its_words() -> None:
    """Slack writes "&", "<" and ">" as entities and channels, @here and user groups in brackets; a
    question about "Marrow & Finch" did not find "Marrow &amp; Finch"."""
    slack = [
        {
            "type": "message",
            "user": "U1",
            "user_profile": {"real_name": "Grace Whitfield"},
            "text": "Marrow &amp; Finch want 3 months &gt; 1 month. <!here> see <#C024BE7LR|support-escalations>, "
            "<!subteam^S1|@platform> &lt;3",
            "ts": "1739962938.281105",
        },
        {
            "type": "message",
            "user": "U1",
            "user_profile": {"real_name": "Grace Whitfield"},
            "text": "Call booked for <!date^1740042000^{date_short} at {time}|20 Feb 2025 at 09:00>, renewal due <!date^1743465600^{date}>.",
            "ts": "1739963000.000100",
        },
    ]
    text, _meta = read_chat_json("slack.json", json.dumps(slack).encode())
    assert text == (
        "2025-02-19 11:02 Grace Whitfield: Marrow & Finch want 3 months > 1 month. @here see #support-escalations, @platform <3\n"
        # a date token reads as its fallback text, or without one as the day it stands for
        "2025-02-19 11:03 Grace Whitfield: Call booked for 20 Feb 2025 at 09:00, renewal due 2025-04-01 00:00.\n"
    )
    teams = {
        "messages": [
            {
                "from": {"user": {"displayName": "Oskar Vale"}},
                "body": {"contentType": "html", "content": "<p>Me until <b>Sunday</b>,</p><p>then Rhea.</p>"},
                "createdDateTime": "2025-03-04T10:14:00Z",
            }
        ]
    }
    text, _meta = read_chat_json("teams.json", json.dumps(teams).encode())
    assert text == "2025-03-04 10:14 Oskar Vale: Me until Sunday, then Rhea.\n"


def test_a_pdfs_typeset_ligatures_are_read_as_their_letters(monkeypatch: pytest.MonkeyPatch) -> None:
    """A PDF whose font maps its ligature glyphs to the ligature characters gives "ﬁnance", which no
    question's "finance" matches; they are read as their letters (offsets are into the text read)."""
    from citegraph.ingest import loaders
    from tests.pdfs import pdf_pages

    monkeypatch.setattr(loaders, "_pdfplumber_pages", lambda data: [["The \ufb01nance team \ufb02ies out on the o\ufb03cial o\ufb00site."]])
    text, _meta = loaders.read_pdf("guide.pdf", pdf_pages(["BT /F1 12 Tf 72 712 Td (x) Tj ET"]))
    assert text == "The finance team flies out on the official offsite.\n"
    assert loaders.plain_ligatures("e\ufb04uent \ufb06ep") == "effluent step"


def test_an_older_slack_export_names_its_users_from_users_json(tmp_path: Path) -> None:
    """An older Slack export writes only the user's id with each message ("U2"); its users.json, at
    the export's root, names them. Without one, the ids stay (as before)."""
    day = [
        {"type": "message", "user": "U1", "text": "Who takes the pager after Tomas?", "ts": "1741083120.0001"},
        {"type": "message", "user": "U2", "text": "Me until Sunday, then <@U1> takes over.", "ts": "1741083240.0002"},
    ]
    channel = tmp_path / "export" / "platform"
    channel.mkdir(parents=True)
    (channel / "2025-03-04.json").write_text(json.dumps(day), encoding="utf-8")
    users = [{"id": "U1", "name": "rhea", "profile": {"real_name": "Rhea Lind"}}, {"id": "U2", "name": "oskar", "real_name": "Oskar Vale"}]
    (tmp_path / "export" / "users.json").write_text(json.dumps(users), encoding="utf-8")
    text, _meta = read_chat_json(str(channel / "2025-03-04.json"), json.dumps(day).encode())
    assert text.splitlines() == [
        "2025-03-04 10:12 Rhea Lind: Who takes the pager after Tomas?",
        "2025-03-04 10:14 Oskar Vale: Me until Sunday, then @Rhea Lind takes over.",
    ]
    alone, _meta = read_chat_json(str(tmp_path / "2025-03-04.json"), json.dumps(day).encode())
    assert alone.splitlines()[0] == "2025-03-04 10:12 U1: Who takes the pager after Tomas?"


@pytest.mark.parametrize(
    ("opening", "dated"),
    [
        ("# Employee guide\n\nLast updated: 2 September 2025\n\nCore hours are 10:00 to 15:00.", "2025-09-02"),
        ("# Tidepool 5.0 planning\n\n**Date:** 10 March 2025\n**Attendees:** Rhys", "2025-03-10"),
        ("# Travel policy\n\nEffective 1 July 2025.\n\nBook trains through TravelDesk.", "2025-07-01"),
        ("Policy\nRevised on Thursday, 6 March 2025\nLast reviewed 2025-04-01\n", "2025-04-01"),  # the latest it states
        ("Updated March 2024\n\nText.", "2024-03-01"),  # a month: its first day
        ("Travel and Expenses Guide\nVersion 2.3, effective 1 March 2025\nOwner: Finance", "2025-03-01"),  # after a comma
        ("Office and Facilities Guide\nLeeds, Lisbon and Toronto. Updated 7 April 2025.", "2025-04-07"),  # after a full stop
        ("The policy is effective 1 July 2025 for all staff.", None),  # said in a sentence, not stated as the document's date
        ("Signature: ______  Date: __________", None),
        ("Effective from 31 February 2025", None),  # no such day
        ("# Notes\n" + "Line of text.\n" * 12 + "Last updated: 2 September 2025\n", None),  # past the opening
    ],
)
def test_a_document_states_its_date_in_its_opening_lines(opening: str, dated: str | None) -> None:
    from citegraph.ingest.loaders import read_html, read_text

    assert read_text("notes.md", opening.encode())[1].dated == dated
    html = "".join(f"<p>{line}</p>" for line in opening.splitlines() if line.strip()).encode()
    assert read_html("notes.html", html)[1].dated == dated
    # a date the file gives in its front matter comes first
    assert read_text("notes.md", f"---\ndate: 2020-01-01\n---\n{opening}".encode())[1].dated == "2020-01-01"


def test_a_date_an_office_file_states_comes_before_the_day_it_was_saved(tmp_path: Path) -> None:
    import datetime as dt

    import docx

    from citegraph.ingest.base import load_file

    document = docx.Document()
    document.add_heading("Travel policy", level=0)
    document.add_paragraph("Version 2.3, effective 1 March 2023")
    document.add_paragraph("Hotels are capped at £150 per night.")
    document.core_properties.modified = dt.datetime(2025, 11, 20, 9, 30)  # exported long after it took effect
    document.save(str(tmp_path / "travel.docx"))
    assert load_file(tmp_path / "travel.docx").dated == "2023-03-01"


def test_an_undated_file_named_by_its_day_is_dated_by_it(tmp_path: Path) -> None:
    from citegraph.ingest.base import load_file, named_day

    assert named_day("2025-03-10-tidepool-5-planning.md") == "2025-03-10"
    assert named_day("standup_20250602.vtt") == "2025-06-02"
    # a year alone, a range of years or no such day: no date
    assert named_day("faq-2023.md") is None and named_day("annual-report-2024-25.pdf") is None and named_day("v20251399.txt") is None
    (tmp_path / "2025-03-10-notes.md").write_text("# Planning\n\nThe release is on 19 May.\n", encoding="utf-8")
    assert load_file(tmp_path / "2025-03-10-notes.md").dated == "2025-03-10"
    # the date the file gives itself comes first
    (tmp_path / "2025-03-10-minutes.md").write_text("---\ndate: 2025-03-17\n---\n# Minutes\n\nApproved.\n", encoding="utf-8")
    assert load_file(tmp_path / "2025-03-10-minutes.md").dated == "2025-03-17"
