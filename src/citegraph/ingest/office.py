"""Loaders for what office software saves: Word documents (``.docx``), Excel workbooks (``.xlsx``),
PowerPoint decks (``.pptx``) and tables as CSV or TSV.

Written as the HTML and PDF loaders write their text (:mod:`citegraph.ingest.loaders`), so that the
sentence splitter, the structure reader and the passages read them alike: each paragraph, heading
and list item a block of its own (a blank line between them), a table's row one sentence with each
cell after its column's heading ("Office: Leeds; Room: Kelp; Seats: 4.", :func:`table_rows`), struck
through text between ``~~`` as Markdown writes it (not asserted: :mod:`citegraph.ingest.structure`).
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from citegraph.errors import InputFileError
from citegraph.ingest.loaders import Metadata, decode, table_rows

__all__ = ["DOCX_MEDIA_TYPE", "PPTX_MEDIA_TYPE", "XLSX_MEDIA_TYPE", "read_csv", "read_docx", "read_pptx", "read_xlsx"]

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


def read_docx(path: str, data: bytes) -> tuple[str, Metadata]:
    """A Word document's body in reading order (paragraphs and tables; headers, footers and comments
    left out) and the date its properties give (last modified, else created)."""
    return _read(path, data, _docx, "Word document", "check that the file is a .docx saved by Word or LibreOffice")


def _read(path: str, data: bytes, read: Any, what: str, fix: str) -> tuple[str, Metadata]:
    """``read(data)``, with whatever its library raises on a damaged or mislabelled file (a zip that
    is no Office file, XML cut short, a missing part) reported as this file's reason, so that one bad
    file never stops the others' ingest."""
    try:
        return read(data)  # type: ignore[no-any-return]
    except InputFileError:
        raise
    except Exception as exc:  # the readers' errors are many and undocumented: each is this file's problem
        raise InputFileError(path, f"cannot read the {what}: {_reason(exc)}", fix) from exc


def _docx(data: bytes) -> tuple[str, Metadata]:
    import docx

    document = docx.Document(io.BytesIO(data))
    blocks: list[str] = []
    for item in document.iter_inner_content():
        if isinstance(item, docx.table.Table):
            blocks.extend(_table(item))
        else:
            text = _paragraph(item)
            if text:
                blocks.append(text)
    return "\n\n".join(blocks) + "\n", _saved(document.core_properties)


def _saved(properties: Any) -> Metadata:
    """The day an Office file says it was last saved (else created): its document properties."""
    when = properties.modified or properties.created
    return Metadata(when.date().isoformat() if when else None)


def _under_header(rows: list[list[str]], header: bool) -> list[str]:
    """A table's rows as :func:`table_rows` writes them: under its first row where ``header`` and
    there are more rows, else each row alone."""
    return table_rows(rows[0], rows[1:]) if header and len(rows) > 1 else table_rows(None, rows)


def _reason(exc: Exception) -> str:
    """A reader's error without the in-memory file it names ("file '<_io.BytesIO object at 0x…>' is
    not a Word file" -> "it is not a Word file"): the report names the file."""
    return re.sub(r"file '<_io\.BytesIO object at 0x[0-9a-f]+>'", "it", str(exc))


def _paragraph(paragraph: Any) -> str:
    """A paragraph's text on one line, struck-through runs between ``~~``."""
    parts = []
    for run in paragraph.runs:
        text = run.text
        if text.strip() and _struck(run):
            text = f"~~{text.strip()}~~"
        parts.append(text)
    text = "".join(parts) if paragraph.runs else paragraph.text  # a paragraph of hyperlinks only has no runs of its own
    return " ".join(text.split())


def _struck(run: Any) -> bool:
    """Whether a run is struck through: Word's font says so; PowerPoint's keeps it in the run's
    properties (``strike="sngStrike"`` or ``"dblStrike"``)."""
    font = run.font
    if hasattr(font, "strike"):
        return bool(font.strike or font.double_strike)
    properties = getattr(run._r, "rPr", None)
    return properties is not None and properties.get("strike", "noStrike") != "noStrike"


def _table(table: Any) -> list[str]:
    """A table's rows as :func:`table_rows` writes them. The first row is the header where the table
    has more rows and every cell of that row says something; for a table of two columns only where
    that row is also set in bold (a two-column table without one is a list of "key: value" pairs,
    "Owner | People team", which a header would garble). A merged cell repeats its text across the
    cells it spans: it is read once."""
    rows, bold = [], []
    for row in table.rows:
        cells: list[str] = []
        strong = True
        seen: set[int] = set()
        for cell in row.cells:
            if id(cell._tc) in seen:  # a merged cell, met again
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
            runs = [run for paragraph in cell.paragraphs for run in paragraph.runs if run.text.strip()]
            strong = strong and bool(runs) and all(run.bold for run in runs)
        if any(cells):
            rows.append(cells)
            bold.append(strong)
    return _under_header(rows, bool(rows) and all(rows[0]) and (len(rows[0]) != 2 or bold[0]))


def read_csv(path: str, data: bytes) -> tuple[str, Metadata]:
    """A CSV (or TSV) table: its first row is the header, each further row one sentence with every
    cell after its column's name (a file of one column: one sentence per line, after the header),
    as a CSV file is written with a header row. The delimiter is the one the text uses (comma,
    semicolon, tab or bar)."""
    text = decode(path, data)
    sample = text[:8192]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:  # one column, or too irregular to tell: commas, as most files are
        dialect = csv.excel_tab if path.lower().endswith(".tsv") else csv.excel
    try:
        rows = [[" ".join(cell.split()) for cell in row] for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as exc:
        raise InputFileError(
            path, f"cannot read the table: {exc}", "save it as CSV (comma- or semicolon-separated) with one header row"
        ) from exc
    rows = [row for row in rows if any(row)]
    if not rows:
        return "", Metadata(None)
    return "\n\n".join(_under_header(rows, header=True)) + "\n", Metadata(None)


def read_xlsx(path: str, data: bytes) -> tuple[str, Metadata]:
    """An Excel workbook: each sheet that holds anything under its name (a heading), its first row
    with values the header, each further row one sentence with every cell after its column's name;
    the values as the sheet last computed them (not the formulas), dates as ISO days."""
    return _read(path, data, _xlsx, "workbook", "check that the file is an .xlsx saved by Excel or LibreOffice")


def _xlsx(data: bytes) -> tuple[str, Metadata]:
    import openpyxl

    workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    blocks: list[str] = []
    try:
        for sheet in workbook.worksheets:
            rows = [[_cell(value) for value in row] for row in sheet.iter_rows(values_only=True)]
            rows = [row for row in rows if any(row)]
            if not rows:
                continue
            width = max(max((i + 1 for i, cell in enumerate(row) if cell), default=0) for row in rows)
            rows = [row[:width] + [""] * (width - len(row)) for row in rows]
            if len(workbook.worksheets) > 1 or sheet.title.casefold() not in {"sheet1", "sheet", "feuil1", "tabelle1", "hoja1"}:
                blocks.append(sheet.title)
            blocks.extend(_under_header(rows, header=True))
        saved = _saved(workbook.properties)
    finally:
        workbook.close()
    return "\n\n".join(blocks) + "\n", saved


def _cell(value: Any) -> str:
    """A cell's value as a person reads it: 4 not 4.0, a day as 2025-03-04, a time of day kept."""
    import datetime as dt

    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ", timespec="minutes")
    if isinstance(value, dt.date):
        return value.isoformat()
    return " ".join(str(value).split())


def read_pptx(path: str, data: bytes) -> tuple[str, Metadata]:
    """A PowerPoint deck, slide by slide: its title (a heading), the text of its shapes paragraph by
    paragraph in the order they are placed (top to bottom, left to right), its tables row by row,
    and its speaker notes; the date it was last saved."""
    return _read(path, data, _pptx, "presentation", "check that the file is a .pptx saved by PowerPoint or LibreOffice")


def _pptx(data: bytes) -> tuple[str, Metadata]:
    import pptx

    deck = pptx.Presentation(io.BytesIO(data))
    blocks: list[str] = []
    for slide in deck.slides:
        title = slide.shapes.title
        if title is not None and title.has_text_frame and title.text_frame.text.strip():
            blocks.append(" ".join(title.text_frame.text.split()))
        titled = None if title is None else title.shape_id  # each access to a shape makes a new proxy: compare ids
        placed = sorted((s for s in slide.shapes if s.shape_id != titled), key=lambda s: (s.top or 0, s.left or 0))
        for shape in placed:
            if shape.has_text_frame:
                blocks.extend(t for p in shape.text_frame.paragraphs if (t := _paragraph(p)))
            elif getattr(shape, "has_table", False):
                rows = [[" ".join(cell.text.split()) for cell in row.cells] for row in shape.table.rows]
                rows = [row for row in rows if any(row)]
                blocks.extend(_under_header(rows, bool(rows) and all(rows[0])))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None:
                blocks.extend(t for p in notes.paragraphs if (t := _paragraph(p)))
    return "\n\n".join(blocks) + "\n", _saved(deck.core_properties)
