"""Documents → propositions: through the LLM when one is configured, else by sentence splitting.

With an LLM, the document is cut at sentence boundaries into pieces of at most CHUNK_CHARS
characters and each piece is turned into self-contained statements with references resolved
and a YYYY-MM-DD date each. Without one, every sentence becomes a proposition dated with the
document's date; a sentence that cannot stand alone ("It has 340 members.", "The correct figure is
12,400.") stays with the one before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.llm import LLM
from graphmem.props.ingest import (
    DocumentRow,
    IngestReport,
    Progress,
    add_propositions,
    store_propositions,
)
from graphmem.props.layout import blocks, lead
from graphmem.props.llmjson import Malformed, ask_json
from graphmem.props.memory import PropsMemory
from graphmem.props.model import (
    Proposition,
    checked_date,
    checked_source,
    checked_text,
    clean_lines,
    document_id,
    make_proposition,
)
from graphmem.props.sentences import Statement, dated_statements, split_sentences

__all__ = ["add_document", "add_propositions", "extract_with_llm", "split_into_propositions"]

CHUNK_CHARS = 6000
MAX_DOCUMENT = 1_000_000  # characters: about 170 LLM calls of CHUNK_CHARS each

EXTRACT_PROMPT = """\
You turn a document into propositions: short, self-contained factual statements.
Rules:
- Each proposition states one fact and can be understood on its own: replace pronouns and \
references ("he", "the company", "last year") by the names and dates they refer to.
- Keep claims as claims: "X said that Y" or "a report claimed Y", not "Y".
- Give each proposition the date (YYYY-MM-DD) on which it was true or stated: the document \
date unless the text says the fact dates from another day.
- Do not invent facts that the text does not state.
Answer with JSON only, in this form:
{"propositions": [{"text": "Quillon Dynamics named Idris Okonjo chief executive.", \
"date": "2019-03-18"}]}"""


def _messages(text: str, date: str, source: str | None) -> list[dict[str, str]]:
    header = f"Document date: {date}\nSource: {source or 'unknown'}\n\n"
    return [
        {"role": "system", "content": EXTRACT_PROMPT},
        {"role": "user", "content": header + text},
    ]


def parse_extraction(answer: Any) -> list[dict[str, str]]:
    """Validated [{text, date}] from the LLM's JSON answer; Malformed says what is wrong."""
    if not isinstance(answer, Mapping) or not isinstance(answer.get("propositions"), list):
        raise Malformed('expected an object with a "propositions" list')
    out = []
    for i, item in enumerate(answer["propositions"]):
        if not isinstance(item, Mapping):
            raise Malformed(f"propositions[{i}] is not an object")
        try:
            text = checked_text(item.get("text"), f"propositions[{i}].text")
            date, _ = checked_date(item.get("date"), f"propositions[{i}].date")
        except InvalidInput as error:
            raise Malformed(str(error)) from None
        out.append({"text": text, "date": date})
    return out


def chunks(text: str, limit: int = CHUNK_CHARS, date: str | None = None) -> list[str]:
    """The text as its layout reads (layout.blocks: headers and signatures left out, an
    earlier message under the date it was sent; a list item or table row with its context),
    a block a line, cut between blocks, or between sentences of a long one, into pieces of
    at most `limit` characters. A single sentence longer than the limit stays whole: cutting
    it would lose its meaning. `date`: the document's (what was stated on another, earlier,
    day is under a "# Stated on YYYY-MM-DD:" line)."""
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for line in _lines(text, limit, date):
        if current and size + len(line) + 1 > limit:
            pieces.append("\n".join(current))
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        pieces.append("\n".join(current))
    return pieces


def _lines(text: str, limit: int, date: str | None) -> list[str]:
    """A line for each block (a heading's line where the heading changes, a date's where
    what follows was stated on another day than what precedes it); a block longer than
    `limit` split into its sentences."""
    out: list[str] = []
    heading, stated = "", date
    for block in blocks(text):
        on = _stated_on(block.date, date)
        if on != stated and on is not None:
            out.append(f"# Stated on {on}:")  # an earlier message, a dated heading
        stated = on
        if not block.led and block.context != heading:
            heading = block.context
            out += [f"# {heading}"] if heading else []
        line = lead(block.context, block.text) if block.led else block.text
        out += split_sentences(line) if len(line) > limit else [line]
    return out


def _stated_on(block: str | None, document: str | None) -> str | None:
    """The day a block was stated: its own date, if not later than the document's."""
    if block is None or document is not None and block > document:
        return document
    return block


def extract_with_llm(
    llm: LLM, text: str, date: str, source: str | None = None, progress: Progress | None = None
) -> list[dict[str, str]]:
    """Propositions [{text, date}] of a document, one LLM call per chunk (one retry each)."""
    pieces = chunks(text, date=date)
    out: list[dict[str, str]] = []
    for i, piece in enumerate(pieces):
        out += ask_json(
            llm,
            _messages(piece, date, source),
            parse_extraction,
            what=f"extracting propositions (part {i + 1} of {len(pieces)})",
        )
        if progress is not None:
            progress("extract", i + 1, len(pieces))
    return out


def split_into_propositions(text: str, date: str) -> list[dict[str, str]]:
    """The offline extraction: one proposition per sentence (a sentence that cannot stand alone
    kept with the one before it, list items and table rows with their context:
    sentences.dated_statements), dated with the document's date or, under a dated heading
    ("## [2.4.0] - 2023-08-02"), a reply's header or in an earlier message (its "Sent:"
    line), with that date when it is not later."""
    return [
        {"text": s.text, "date": s.date or date, **({"about": s.about} if s.about else {})}
        for s in offline_statements(text, date)
    ]


def offline_statements(text: str, date: str) -> list[Statement]:
    """split_into_propositions' statements, each dated (with the document's `date` where
    nothing dates it, never later) and with the message and post of the document it is in."""
    return [
        replace(s, date=s.date if s.date is not None and s.date <= date else date)
        for s in dated_statements(text)
    ]


def add_document(
    ctx: PropsMemory,
    text: str,
    date: str,
    source: str | None = None,
    *,
    relate: bool = True,
    progress: Progress | None = None,
) -> IngestReport:
    """Store a document and the propositions it states (LLM extraction, or sentences offline).

    Re-adding the same document (same text, date and source) changes nothing and costs no
    LLM call: the Document node is written last, so once it exists the work is done.
    """
    doc = checked_document(text, date, source)
    stored = ctx.store.read("props.document", id=doc.id)
    if stored:  # written with its last batch, so complete: no extraction, no LLM call
        ids = tuple(stored[0]["props"])
        return IngestReport(doc.id, ids, added=0, existing=len(ids), relations=0)
    props = extracted(ctx, doc, progress)
    report = store_propositions(ctx, props, [doc], relate, progress)
    return replace(report, document_id=doc.id)


def checked_document(text: Any, date: Any, source: Any, field: str = "") -> DocumentRow:
    """A validated document with its id; errors name `field`.text (or text when no field)."""
    where = f"{field}." if field else ""
    clean = checked_text(text, f"{where}text", MAX_DOCUMENT)
    day, ts = checked_date(date, f"{where}date")
    src = checked_source(source, f"{where}source")
    # the id is the wording's (as before lines were kept: a document stored earlier is the
    # same document); the text keeps its lines, which the extraction reads
    return DocumentRow(document_id(clean, day, src), clean_lines(text), day, ts, src)


def extracted(
    ctx: PropsMemory, doc: DocumentRow, progress: Progress | None = None, field: str = "text"
) -> list[Proposition]:
    """The propositions a document states: through the LLM if there is one, else its sentences."""
    if ctx.llm is not None:
        found = extract_with_llm(ctx.llm, doc.text, doc.date, doc.source, progress)
        said = [Statement(p["text"], p["date"]) for p in found]
    else:
        said = offline_statements(doc.text, doc.date)
    try:
        return [
            replace(
                make_proposition(
                    s.text, s.date, doc.source, doc.id, f"propositions[{i}]", s.about or None
                ),
                part=s.part,
            )
            for i, s in enumerate(said)
        ]
    except InvalidInput as error:  # found in the document: the caller sent its text
        raise InvalidInput(field, f"{error.field} found in it: {error.problem}") from None
