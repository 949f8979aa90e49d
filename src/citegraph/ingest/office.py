"""Loaders for what office software saves: Word documents (``.docx``) and tables as CSV or TSV.

Written as the HTML and PDF loaders write their text (:mod:`citegraph.ingest.loaders`), so that the
sentence splitter, the structure reader and the passages read them alike: each paragraph, heading
and list item a block of its own (a blank line between them), a table's row one sentence with each
cell after its column's heading ("Office: Leeds; Room: Kelp; Seats: 4.", :func:`table_rows`), struck
through text between ``~~`` as Markdown writes it (not asserted: :mod:`citegraph.ingest.structure`).
"""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from citegraph.errors import InputFileError
from citegraph.ingest.loaders import Metadata, decode, table_rows

__all__ = ["DOCX_MEDIA_TYPE", "read_csv", "read_docx"]

DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def read_docx(path: str, data: bytes) -> tuple[str, Metadata]:
    """A Word document's body in reading order (paragraphs and tables; headers, footers and comments
    left out) and the date its properties give (last modified, else created)."""
    try:
        import docx
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise InputFileError(path, "python-docx is not installed", "pip install python-docx") from exc
    try:
        document = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise InputFileError(
            path, f"cannot read the Word document: {exc}", "check that the file is a .docx saved by Word or LibreOffice"
        ) from exc
    blocks: list[str] = []
    for item in document.iter_inner_content():
        if isinstance(item, docx.table.Table):
            blocks.extend(_table(item))
        else:
            text = _paragraph(item)
            if text:
                blocks.append(text)
    properties = document.core_properties
    when = properties.modified or properties.created
    return "\n\n".join(blocks) + "\n", Metadata(when.date().isoformat() if when else None)


def _paragraph(paragraph: Any) -> str:
    """A paragraph's text on one line, struck-through runs between ``~~``."""
    parts = []
    for run in paragraph.runs:
        text = run.text
        if text.strip() and (run.font.strike or run.font.double_strike):
            text = f"~~{text.strip()}~~"
        parts.append(text)
    text = "".join(parts) if paragraph.runs else paragraph.text  # a paragraph of hyperlinks only has no runs of its own
    return " ".join(text.split())


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
    if len(rows) > 1 and all(rows[0]) and (len(rows[0]) != 2 or bold[0]):
        return table_rows(rows[0], rows[1:])
    return table_rows(None, rows)


def read_csv(path: str, data: bytes) -> tuple[str, Metadata]:
    """A CSV (or TSV) table: its first row is the header, each further row one sentence with every
    cell after its column's name. The delimiter is the one the text uses (comma, semicolon, tab or
    bar); a file that is one column is read as lines."""
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
    header, body = (rows[0], rows[1:]) if len(rows) > 1 else (None, rows)
    return "\n\n".join(table_rows(header, body)) + "\n", Metadata(None)
