"""Offline extraction of formatted documents: round 24's sentence splitting of the flattened
text against the reading of the layout (graphmem/props/layout.py, since round 25), with and
without the headings each statement sits under (its `about`, round 27), in one process.

Corpora: tests/fixtures/formatted_docs/<corpus>/set*.jsonl (documents {text, date, source}),
with key*.json beside a set where there is one: "questions" [{question, as_of, answer}] and
"junk_examples" (text that is no statement: greetings, signatures, headers, quoted text).
`trial25` was written by a new user's trial before the layout rules and is what they were
developed on (tuned); `trial26` was written by another helper, blind to the rules, held back
in round 25 and tuned on since round 26 (its tickets and letters); `trial27` and `trial28`
were written by two more helpers, blind to the rules, in round 26: trial27 was scored once
when the tickets' and letters' rules were done, then tuned on (forwarded and quoted
messages, WhatsApp lines, forum posts); trial28 was held back, scored once at the end of
round 26, and tuned on since (round 27's `about`). `trial29` and `trial30` were written by
two more helpers in round 27, blind to the rules and with sources as a pipeline has them (file
paths, URLs): trial29 was scored once when `about` was done, then its junk tuned on (code
blocks, link definitions, footers, list headers); trial30 is held back, scored once at the
end of round 27.

Rows: the extraction's statements stored by add_propositions (no documents: no document
expansion, and the classifier does not know which document states what), and, last, the
shipped pipeline: each document stored by add_document.

For each set and each extraction, the statements are stored offline (the offline
classifier relates them) and each dated question is asked: is the answer string in the
rendered context with k = 3 and no expansion, with the defaults (k = 10, expanded), and in
a statement shown current there? Also counted: statements, their mean tokens, statements
with layout debris (Markdown marks, table pipes, e-mail headers, quoted lines) and
statements holding a junk example.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import temp_store  # noqa: E402

from graphmem.config import Settings  # noqa: E402
from graphmem.props import add_document, add_propositions, counts, render, subgraph  # noqa: E402
from graphmem.props.extract import split_into_propositions  # noqa: E402
from graphmem.props.model import clean_text  # noqa: E402
from graphmem.props.sentences import MAX_JOINED, _depends, split_sentences  # noqa: E402
from graphmem.services import open_props  # noqa: E402
from graphmem.tokens import estimate_tokens  # noqa: E402

HELD_BACK = {"trial30"}
BUDGET = 300  # tokens: a context cut to what a small prompt affords
CORPORA = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "formatted_docs"
DEBRIS = re.compile(
    r"(^|\s)#{1,6}\s|\|\s*-{3,}|^\s*\||(^|\s)(From|To|Cc|Sent|Subject):\s|(^|\s)>\s|wrote:"
    r"|Original Message|Forwarded message"
)


def round_24(text: str, date: str) -> list[dict[str, str]]:
    """Round 24's offline extraction: the text flattened (as documents were stored), cut
    into sentences, one that cannot stand alone kept with the one before."""
    out: list[str] = []
    for sentence in split_sentences(clean_text(text)):
        joined = f"{out[-1]} {sentence}" if out else ""
        if joined and len(joined) <= MAX_JOINED and _depends(sentence):
            out[-1] = joined
        else:
            out.append(sentence)
    return [{"text": s, "date": date} for s in out]


def without_about(text: str, date: str) -> list[dict[str, str]]:
    """The layout's statements without the headings they sit under (as in round 26)."""
    return [
        {k: v for k, v in p.items() if k != "about"} for p in split_into_propositions(text, date)
    ]


EXTRACTIONS: dict[str, Callable[[str, str], list[dict[str, str]]]] = {
    "round 24 (flattened sentences)": round_24,
    "layout, headings not kept": without_about,
    "layout with headings": split_into_propositions,
    # what `graphmem ingest-docs` does: the same statements, and the offline classifier
    # knows which document states each (one document's statements on one date are apart)
    "round 27: add_document": split_into_propositions,
}
AS_DOCUMENTS = {"round 27: add_document"}


@dataclass
class Figures:
    statements: int = 0
    tokens: float = 0.0
    debris: int = 0
    junk: int = 0
    edges: int = 0
    questions: int = 0
    at_3: int = 0
    at_10: int = 0
    current: int = 0
    budget: int = 0  # answer in the default context cut to BUDGET tokens
    context_tokens: float = 0.0  # mean tokens of the default context

    def row(self, name: str) -> str:
        q = max(self.questions, 1)
        answered = (
            f"{self.at_3}/{self.questions} ({self.at_3 / q:.0%}) | "
            f"{self.at_10}/{self.questions} ({self.at_10 / q:.0%}) | "
            f"{self.current}/{self.questions} ({self.current / q:.0%}) | "
            f"{self.budget}/{self.questions} ({self.budget / q:.0%}) | "
            f"{self.context_tokens / q:.0f}"
            if self.questions
            else "- | - | - | - | -"
        )
        return (
            f"| {name} | {self.statements} | {self.tokens:.0f} | {self.debris} | {self.junk} | "
            f"{self.edges} | {answered} |"
        )


def score(docs: Sequence[dict], key: dict, extract: Callable, documents: bool = False) -> Figures:
    """The figures of one set; `documents`: stored by add_document (else the extracted
    statements by add_propositions, with no document)."""
    items = [{**p, "source": d.get("source")} for d in docs for p in extract(d["text"], d["date"])]
    texts = [i["text"] for i in items]
    junk = [j.lower() for j in key.get("junk_examples", []) if len(j.strip()) >= 6]
    figures = Figures(
        statements=len(texts),
        tokens=sum(estimate_tokens(t) for t in texts) / max(len(texts), 1),
        debris=sum(bool(DEBRIS.search(t)) for t in texts),
        junk=sum(any(j.strip() in t.lower() for j in junk) for t in texts),
    )
    with temp_store() as store, tempfile.TemporaryDirectory(prefix="gml-") as tmp:
        ctx = open_props(Settings(home=Path(tmp)), store, llm=None)
        if documents:
            for doc in docs:
                add_document(ctx, doc["text"], doc["date"], doc.get("source"))
        else:
            add_propositions(ctx, items)
        figures.edges = counts(ctx)["relations"]
        for q in key.get("questions", []):
            answer = q["answer"].lower()
            small = subgraph(ctx, q["question"], q["as_of"], k=3, expand=False)
            full = subgraph(ctx, q["question"], q["as_of"])
            figures.questions += 1
            figures.at_3 += answer in render(small).lower()
            figures.at_10 += answer in render(full).lower()
            figures.budget += answer in render(full, BUDGET).lower()
            figures.context_tokens += estimate_tokens(render(full))
            figures.current += any(
                answer in n.prop.text.lower() and n.status.state == "current" for n in full.nodes
            )
        ctx.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--corpora",
        default="trial25,trial26,trial27,trial28,trial29,trial30",
        help="comma-separated",
    )
    args = parser.parse_args()
    print(
        "| set | extraction | statements | tokens each | with debris | junk | edges | "
        f"answer in context, k=3 no expansion | k=10 expanded | shown current | in {BUDGET} "
        "tokens | context tokens |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for corpus in args.corpora.split(","):
        role = "held back" if corpus in HELD_BACK else "tuned"
        for path in sorted((CORPORA / corpus).glob("set*.jsonl")):
            docs = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            key_path = path.with_name(path.name.replace("set", "key").replace(".jsonl", ".json"))
            key = json.loads(key_path.read_text()) if key_path.exists() else {}
            for name, extract in EXTRACTIONS.items():
                figures = score(docs, key, extract, name in AS_DOCUMENTS)
                print(figures.row(f"{corpus}/{path.stem} ({role}) | {name}"))


if __name__ == "__main__":
    main()
