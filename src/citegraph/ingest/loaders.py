"""File loaders: bytes in, document text out. One function per format."""

from __future__ import annotations

import io

from citegraph.errors import InputFileError

__all__ = ["load_html", "load_pdf", "load_text"]


def decode(path: str, data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise InputFileError(path, "looks like a binary file (NUL bytes)", "give citegraph text, Markdown, HTML or PDF")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, f"not valid UTF-8 (byte {exc.start})", "convert it, e.g. iconv -f latin1 -t utf-8") from exc
    # One newline convention, so offsets do not depend on the platform the file was written on.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_text(path: str, data: bytes) -> str:
    """Plain text and Markdown are stored as written (Markdown block markers are skipped later)."""
    return decode(path, data)


_BLOCK_TAGS = [
    "address",
    "article",
    "aside",
    "blockquote",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "table",
    "td",
    "th",
    "tr",
    "ul",
    "title",
]


def load_html(path: str, data: bytes) -> str:
    """Strip markup with a real parser; block elements become paragraph breaks."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(decode(path, data), "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    for tag in soup.find_all(_BLOCK_TAGS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    text = soup.get_text()
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip() + "\n"


def load_pdf(path: str, data: bytes) -> str:
    """Text of each page, pages separated by a blank line."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as exc:
        raise InputFileError(path, f"cannot read PDF: {exc}", "check that the file is a valid PDF") from exc
    return "\n\n".join(p.strip() for p in pages if p.strip()) + "\n"
