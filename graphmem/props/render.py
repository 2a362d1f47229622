"""A subgraph as prompt context: propositions in date order with their status and relations.

Each proposition is a short block

    [P3] 2021-09-01
    Source: orrin-gazette
    Heading: Orrin Gazette › Business
    Statement: Alpha costs 7 dollars.
    Status: updated by P5: no longer current.
    This statement updates P2. This statement is supported by P4.

P-numbers follow ascending date, then id, over the propositions shown; a reference is its
P-number alone (the block it names carries the date). `Source:` is left out when the
proposition has none, `Heading:` (the headings it sits under in its document that its text
does not say: Proposition.about) when it has none; each is one line (names hold no line
breaks: graphmem.strings.checked_name; older stores' line separators are shown as spaces),
and `Statement:` keeps a statement that reads like a field ("Status: Resolved", from a
ticket) apart from the block's own lines. `Status:` is the node's status as of the
subgraph's date (graphmem/props/status.py), the same value the API returns as `status` /
`updatedBy` / `contradictedBy`: "current.", "updated by ...: no longer current.",
"contradicted by ...: not current." or "updated by ... and contradicted by ...: no longer
current."; propositions not shown are counted ("1 later proposition not shown"), those beyond
the status's list too (Status.updated_unlisted: "updated by P3 and 49 later ..."). Edges that
do not count because their source is itself refuted are named ("P4 does not count: it is
itself contradicted.").

The last line says the node's other relations in plain sentences, in a fixed order (updates,
is updated by, contradicts, is contradicted by, supports, is supported by), each list nearest
first (earlier propositions by descending P-number, later ones ascending); there is no such
line when there are none. What updates or contradicts the node and counts is said there only
when its Status line does not name it (a status reads at most retrieve.INCOMING edges of each
kind); one that does not count is, marked "(itself contradicted: not counted)", so the kind of
every edge shows in both blocks it joins. The updates and contradictions of a refuted
proposition are followed by "(not counted: this statement is contradicted)". Round 29 made the
blocks this short: the earlier layout (a line for the date and for relations, each reference
with its date, the incoming updates said twice, "Relations: none") spent 3,067 tokens on a
news subgraph that holds 428 tokens of statements.

Token budget. Tokens are estimated by graphmem.tokens.estimate_tokens, which splits text the
way GPT-4-family BPE tokenisers do (characters / 4 would undercount numbers and dates by
about half); it is deterministic and needs no tokenizer. Over budget,
whole propositions are dropped (never part of one): neighbours first, least similar to the
question first (neighbours too far down the search to be scored go first, oldest first), then
anchors the same way; a neighbour that updates or contradicts an anchor, and the statement an
anchor's document brought, are kept until just before that anchor goes; references to dropped
propositions disappear from the relation sentences (the Status line counts them as not
shown). The same subgraph and budget always give the same text.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass

from graphmem.errors import InvalidInput
from graphmem.props.retrieve import Node, Subgraph
from graphmem.props.status import Status
from graphmem.tokens import estimate_tokens

CHARS_PER_TOKEN = 4

_VOID = " (itself contradicted: not counted)"
# (edge kind, outgoing?) → verb; the order is the order of the sentences
_SENTENCES = (
    ("updates", True, "updates"),
    ("updates", False, "is updated by"),
    ("contradicts", True, "contradicts"),
    ("contradicts", False, "is contradicted by"),
    ("supports", True, "supports"),
    ("supports", False, "is supported by"),
)


@dataclass(frozen=True)
class Rendered:
    """Rendered context and what it holds."""

    text: str
    labels: dict[str, str]  # proposition id → "P<n>" for the propositions shown
    dropped: tuple[str, ...]  # proposition ids left out to fit the budget, in drop order
    tokens: int  # estimated tokens of `text`


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
    drop_order = sorted(graph.nodes, key=_keep_priority(graph.nodes))
    text, labels = _render(graph, kept)
    while max_tokens is not None and estimate_tokens(text) > max_tokens and kept:
        victim = drop_order[len(dropped)]
        kept.remove(victim)
        dropped.append(victim.prop.id)
        text, labels = _render(graph, kept)
    return Rendered(text, labels, tuple(dropped), estimate_tokens(text))


def _keep_priority(nodes: Sequence[Node]) -> Callable[[Node], tuple]:
    """The sort key that puts the first to drop first: neighbours before anchors, then the
    least similar; an unscored neighbour (outside the search pool) is less similar than any
    scored one, and among those the oldest goes first. What updates or contradicts an anchor
    is kept as long as that anchor, and goes just before it: an anchor shown "no longer
    current" without what replaced it would leave the question unanswered. So is the
    statement an anchor's document brought: it says what the anchor lacks (the chief
    executive of "the company" the anchor names), though it is less like the question."""
    score = {n.prop.id: -math.inf if n.score is None else n.score for n in nodes}
    by_id = {n.prop.id: n for n in nodes}
    lasts = {n.prop.id: score[n.prop.id] for n in nodes if n.is_anchor}
    brought: dict[str, list[str]] = {}
    for n in nodes:
        if n.anchor is not None:
            brought.setdefault(n.anchor, []).append(n.prop.id)
    todo = list(lasts)
    while todo:  # down the chains: what replaces what replaces an anchor stays as long too
        node = by_id[todo.pop()]
        kin = brought.get(node.prop.id, ())
        for pid in (*node.status.updated_by, *node.status.contradicted_by, *kin):
            if pid in score and lasts.get(pid, -math.inf) < lasts[node.prop.id]:
                lasts[pid] = lasts[node.prop.id]
                todo.append(pid)

    def key(node: Node) -> tuple:
        pid = node.prop.id
        if pid not in lasts:  # a neighbour that replaces no anchor
            return (False, score[pid], False, score[pid], node.prop.date, pid)
        own = node.is_anchor and lasts[pid] == score[pid]
        return (True, lasts[pid], own, score[pid], node.prop.date, pid)

    return key


@dataclass(frozen=True)
class _Labels:
    """P-numbers of the propositions shown."""

    number: dict[str, int]

    def refs(
        self,
        ids: Sequence[str],
        descending: bool = False,
        void: Set[str] = frozenset(),
        unlisted: int = 0,
    ) -> str:
        """'P3, P5 and 1 later proposition not shown' (those not shown are all later ones,
        `unlisted` more of them beside `ids`); those in `void` marked as not counted."""
        shown = [
            f"P{self.number[i]}{_VOID if i in void else ''}"
            for i in sorted(
                (i for i in ids if i in self.number),
                key=self.number.__getitem__,
                reverse=descending,
            )
        ]
        hidden = sum(i not in self.number for i in ids) + unlisted
        if hidden:
            shown.append(f"{hidden} later proposition{'s' if hidden > 1 else ''} not shown")
        return " and ".join([", ".join(shown[:-1]), shown[-1]] if len(shown) > 1 else shown)


def _render(graph: Subgraph, nodes: Sequence[Node]) -> tuple[str, dict[str, str]]:
    ordered = sorted(nodes, key=lambda n: (n.prop.date, n.prop.id))
    labels = _Labels({n.prop.id: i for i, n in enumerate(ordered, start=1)})
    refuted = {n.prop.id for n in ordered if n.status.refuted}
    blocks = []
    for node in ordered:
        prop = node.prop
        source = f"Source: {_one_line(prop.source)}\n" if prop.source else ""
        about = f"Heading: {_one_line(prop.about)}\n" if prop.about else ""
        relations = _relations(graph, node, labels, refuted)
        blocks.append(
            f"[P{labels.number[prop.id]}] {prop.date}\n{source}{about}Statement: {prop.text}\n"
            f"Status: {status_text(node.status, labels)}" + (f"\n{relations}" if relations else "")
        )
    return "\n\n".join(blocks), {pid: f"P{n}" for pid, n in labels.number.items()}


def _one_line(name: str) -> str:
    """A stored name on one line: names refuse line and paragraph separators since round 29,
    but a store written before may hold them."""
    return name.replace("\u2028", " ").replace("\u2029", " ")


def status_text(status: Status, labels: _Labels) -> str:
    """The Status line's sentence for a node's status."""
    parts = []
    if status.updated_by:
        refs = labels.refs(status.updated_by, unlisted=status.updated_unlisted)
        parts.append(f"updated by {refs}")
    if status.contradicted_by:
        refs = labels.refs(status.contradicted_by, unlisted=status.contradicted_unlisted)
        parts.append(f"contradicted by {refs}")
    if not parts:
        text = "current."
    else:
        text = " and ".join(parts) + (
            ": no longer current." if status.updated_by else ": not current."
        )
    if status.discounted:  # named first: "it" must not read as this statement
        many = len(status.discounted) > 1
        text += (
            f" {labels.refs(status.discounted)} {'do' if many else 'does'} not count: "
            f"{'each is' if many else 'it is'} itself contradicted."
        )
    return text


def _relations(graph: Subgraph, node: Node, labels: _Labels, refuted: set[str]) -> str:
    """The node's relations to the propositions shown, in plain sentences ("" if none).
    What updates or contradicts it is left out where its Status line names it already (the
    status reads a capped number of edges of each kind: a hot statement's Status may not
    name them all)."""
    pid = node.prop.id
    named = {*node.status.updated_by, *node.status.contradicted_by}
    void = set(node.status.discounted)
    sentences: list[str] = []
    for kind, outgoing, verb in _SENTENCES:
        if outgoing:
            others = [e.dst for e in graph.edges if e.src == pid and e.kind == kind]
        else:
            others = [e.src for e in graph.edges if e.dst == pid and e.kind == kind]
            others = [o for o in others if kind == "supports" or o not in named]
        shown = [o for o in others if o in labels.number]
        if not shown:
            continue
        after = ""
        if outgoing and pid in refuted and kind in ("updates", "contradicts"):
            after = " (not counted: this statement is contradicted)"
        refs = labels.refs(shown, descending=outgoing, void=set() if outgoing else void)
        # "This statement" each time: an "It" could be read as the proposition just named
        sentences.append(f"This statement {verb} {refs}{after}.")
    return " ".join(sentences)
