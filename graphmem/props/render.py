"""A subgraph as prompt context: propositions in date order with their relations in words.

Each proposition is a block

    [P3]
    Date: 2021-09-01
    Statement: ...
    Relations: This statement updates the following earlier propositions: P2 (2020-01-02).

P-numbers follow ascending date, then id, over the propositions shown. Relation sentences
come in a fixed order (updates, is updated by, contradicts, is contradicted by, supports,
is supported by); each lists the nearest propositions first (earlier ones by descending
P-number, later ones ascending). "Relations: none" when there are none.

Token budget. Tokens are estimated as ceil(characters / 4), the usual rule of thumb for
English with GPT-style tokenisers; it is deterministic and needs no tokenizer. Over budget,
whole propositions are dropped (never part of one): neighbours first, least similar to the
question first (neighbours too far down the search to be scored go first, oldest first), then
anchors the same way; references to dropped propositions disappear
from the Relations lines. The same subgraph and budget always give the same text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.errors import InvalidInput
from graphmem.props.retrieve import Node, Subgraph

CHARS_PER_TOKEN = 4

# (edge kind, outgoing?) → sentence head; the order is the order of the sentences
_SENTENCES = (
    ("updates", True, "This statement updates the following earlier propositions"),
    ("updates", False, "This statement is updated by the following later propositions"),
    ("contradicts", True, "This statement contradicts the following earlier propositions"),
    ("contradicts", False, "This statement is contradicted by the following later propositions"),
    ("supports", True, "This statement supports the following earlier propositions"),
    ("supports", False, "This statement is supported by the following later propositions"),
)


@dataclass(frozen=True)
class Rendered:
    """Rendered context and what it holds."""

    text: str
    labels: dict[str, str]  # proposition id → "P<n>" for the propositions shown
    dropped: tuple[str, ...]  # proposition ids left out to fit the budget, in drop order
    tokens: int  # estimated tokens of `text`


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): deterministic and close enough for budgeting English text."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def render(graph: Subgraph, max_tokens: int | None = None) -> str:
    """The subgraph as text within `max_tokens` (estimated); see the module docstring."""
    return render_detail(graph, max_tokens).text


def render_detail(graph: Subgraph, max_tokens: int | None = None) -> Rendered:
    """`render` plus the P-labels, the dropped propositions and the token estimate."""
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0
    ):
        raise InvalidInput("max_tokens", "must be a non-negative integer or null")
    kept = list(graph.nodes)
    dropped: list[str] = []
    drop_order = sorted(graph.nodes, key=_keep_priority)
    text, labels = _render(graph, kept)
    while max_tokens is not None and estimate_tokens(text) > max_tokens and kept:
        victim = drop_order[len(dropped)]
        kept.remove(victim)
        dropped.append(victim.prop.id)
        text, labels = _render(graph, kept)
    return Rendered(text, labels, tuple(dropped), estimate_tokens(text))


def _keep_priority(node: Node) -> tuple:
    # sorts the first to drop first: neighbours before anchors, then the least similar; an
    # unscored neighbour (outside the search pool) is less similar than any scored one, and
    # among those the oldest goes first
    score = -math.inf if node.score is None else node.score
    return (node.is_anchor, score, node.prop.date, node.prop.id)


def _render(graph: Subgraph, nodes: Sequence[Node]) -> tuple[str, dict[str, str]]:
    ordered = sorted(nodes, key=lambda n: (n.prop.date, n.prop.id))
    number = {n.prop.id: i for i, n in enumerate(ordered, start=1)}
    dates = {n.prop.id: n.prop.date for n in ordered}
    blocks = []
    for node in ordered:
        pid = node.prop.id
        sentences = []
        for kind, outgoing, head in _SENTENCES:
            if outgoing:
                others = [e.dst for e in graph.edges if e.src == pid and e.kind == kind]
            else:
                others = [e.src for e in graph.edges if e.dst == pid and e.kind == kind]
            shown = sorted((o for o in others if o in number), key=number.get,
                           reverse=outgoing)  # fmt: skip
            if shown:
                refs = ", ".join(f"P{number[o]} ({dates[o]})" for o in shown)
                sentences.append(f"{head}: {refs}.")
        relations = " ".join(sentences) if sentences else "none"
        blocks.append(
            f"[P{number[pid]}]\nDate: {node.prop.date}\nStatement: {node.prop.text}\n"
            f"Relations: {relations}"
        )
    return "\n\n".join(blocks), {pid: f"P{n}" for pid, n in number.items()}
