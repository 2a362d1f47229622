"""The keyword (BM25) index of one label: words and numbers of each node's text, as-of search.

Why not a library index (bm25s, tantivy): graphmem adds propositions a batch at a time and
searches between batches, and those indexes are built once over a whole corpus (bm25s) or
need a commit and a reader reload per change (tantivy); rebuilding 10^5 documents after every
batch costs seconds. This one is incremental: postings of new documents go to a tail that is
merged into the term-sorted base once it holds a sixteenth as many postings (at least
TAIL_MIN), so adding stays cheap (a merge re-sorts every posting, ~50 ms at 10^5 documents,
once per ~6,000 added) and a search reads the base only at the query's terms and scans a
small tail (~0.2 ms).

Text → terms: NFKC, case-folded; words and numbers (`\\w+` with decimal or thousands parts:
"1,131" and "1131" are one term, "4.2" one term); English stopwords and one-letter words
dropped; words Snowball-stemmed (PyStemmer: "sites", "site" → "site"), numbers kept as they are.
Score: Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5))) over the
live documents; only documents with ts <= as_of take part. Ties go to the newer document.

Removal marks a slot dead and recounts document frequencies; once COMPACT_RATIO of the slots
are dead the index is rebuilt without them. Saved as one checksummed `<label>.npz` in the
`keywords` directory (graphmem/vectors/persist.py write_arrays): a damaged or missing file is
rebuilt from the graph, like the vector files. graphmem/vectors/keywordstore.py keeps one
per label in step with the graph.
"""

from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import Stemmer

from graphmem.errors import InvalidInput
from graphmem.vectors.checks import _checked_ids, _checked_ints, _held_vids
from graphmem.vectors.model import _MAX_VID, Clock, DamagedIndexFile, VectorIndexError, vector_id
from graphmem.vectors.persist import read_arrays, write_arrays
from graphmem.vectors.rwlock import ReadWriteLock

TOKENIZER = 1  # bump when terms change: saved indexes of another version are rebuilt
K1, B = 1.2, 0.75
TAIL_MIN = 20_000  # tail postings merged into the base at this size (or TAIL_SHARE of the base)
TAIL_SHARE = 16
COMPACT_RATIO = 0.2  # share of dead slots that triggers a rebuild without them
ARRAYS = ("vids", "ts", "alive", "lengths", "node_ids", "vocab", "terms", "slots", "tf")

_TOKEN = re.compile(r"\w+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_STOP = """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves"""
STOPWORDS = frozenset(_STOP.split())
_stemmer = Stemmer.Stemmer("english")
_stem_lock = threading.Lock()  # a PyStemmer object is not safe across threads
# word → its term ("" for a stopword or a one-letter word): a corpus repeats a few ten thousand
# words, so each is stemmed once; cleared when it grows past _WORDS_MAX
_WORDS: dict[str, str] = {}
_WORDS_MAX = 500_000


def terms(text: str) -> list[str]:
    """The index terms of a text, in order (repeats kept)."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    out: list[str] = []
    for token in _TOKEN.findall(text.casefold()):
        if token[0].isdigit():
            if _THOUSANDS.fullmatch(token):
                token = token.replace(",", "")
            out.extend(token.split(",") if "," in token else (token,))
            continue
        term = _WORDS.get(token)
        if term is None:
            term = _term_of(token)
        if term:
            out.append(term)
    return out


def _term_of(word: str) -> str:
    if len(word) < 2 or word in STOPWORDS:
        term = ""
    else:
        with _stem_lock:
            term = _stemmer.stemWord(word)
    if len(_WORDS) >= _WORDS_MAX:
        _WORDS.clear()
    _WORDS[word] = term
    return term


@dataclass(frozen=True)
class KeywordHit:
    """One keyword search result."""

    node_id: str
    vid: int
    score: float  # BM25
    ts: int


class KeywordIndex:
    """The BM25 index of one label, with each item's vid, node id and ts."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.dirty = False
        self.synced = Clock()  # a loaded index: the vector clock it was saved at
        # searches share it; adds, removals and saves (which may merge the tail) hold it alone
        self._lock = ReadWriteLock()
        self._vocab: dict[str, int] = {}
        self._words: list[str] = []  # term id → term
        self._vids = np.empty(0, dtype=np.int64)
        self._ts = np.empty(0, dtype=np.int64)
        self._alive = np.empty(0, dtype=bool)
        self._lengths = np.empty(0, dtype=np.int32)
        self._node_ids: list[str] = []
        self._pos: dict[int, int] = {}
        # base postings sorted by term, with each term's start; tail postings in add order
        self._terms = np.empty(0, dtype=np.int32)
        self._slots = np.empty(0, dtype=np.int32)
        self._tf = np.empty(0, dtype=np.float32)
        self._starts = np.zeros(1, dtype=np.int64)
        self._tail: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._tail_size = 0
        self._df = np.empty(0, dtype=np.int64)  # live documents holding each term
        self._total = 0  # terms in live documents

    def __len__(self) -> int:
        return len(self._pos)

    def __contains__(self, vid: object) -> bool:
        return vid in self._pos

    def vids(self) -> set[int]:
        """The vids of every live item."""
        with self._lock.shared():
            return set(self._pos)

    # --- adding and removing ---------------------------------------------------------------

    def add(
        self,
        node_ids: Sequence[str],
        vids: Sequence[int] | np.ndarray,
        ts: Sequence[int] | np.ndarray,
        texts: Sequence[str],
    ) -> int:
        """Index items whose vids are not yet indexed (others are skipped); return how many."""
        n = len(_checked_ids(node_ids))
        vid_arr = _checked_ints("vids", vids, n, 0, _MAX_VID)
        ts_arr = _checked_ints("ts", ts, n, -(1 << 63), _MAX_VID)
        if isinstance(texts, str) or len(texts) != n:
            raise InvalidInput("texts", f"must be a list of {n} strings")
        for i, (node_id, vid, text) in enumerate(
            zip(node_ids, vid_arr.tolist(), texts, strict=True)
        ):
            if vector_id(node_id) != vid:
                raise InvalidInput(f"vids[{i}]", f"is not vector_id({node_id!r})")
            if not isinstance(text, str):
                raise InvalidInput(f"texts[{i}]", "must be a string")
        with self._lock.exclusive():
            first: dict[int, int] = {}  # each new vid's first row, in row order
            for i, v in enumerate(vid_arr.tolist()):
                if v not in self._pos:
                    first.setdefault(v, i)
            keep = list(first.values())
            if not keep:
                return 0
            self._append(
                [node_ids[i] for i in keep],
                vid_arr[keep],
                ts_arr[keep],
                [terms(texts[i]) for i in keep],
            )
            return len(keep)

    def _append(
        self, node_ids: list[str], vids: np.ndarray, ts: np.ndarray, docs: list[list[str]]
    ) -> None:
        start = len(self._vids)
        lengths = np.fromiter((len(d) for d in docs), np.int32, len(docs))
        term_of = self._term_id
        flat = np.fromiter((term_of(w) for doc in docs for w in doc), np.int64, int(lengths.sum()))
        # one posting per (document, term), its count the term frequency
        width = max(len(self._words), 1)
        pairs, tf = np.unique(
            np.repeat(np.arange(len(docs)), lengths) * width + flat, return_counts=True
        )
        chunk = (
            (pairs % width).astype(np.int32),
            (start + pairs // width).astype(np.int32),
            tf.astype(np.float32),
        )
        self._vids = np.concatenate([self._vids, vids])
        self._ts = np.concatenate([self._ts, ts])
        self._alive = np.concatenate([self._alive, np.ones(len(docs), dtype=bool)])
        self._lengths = np.concatenate([self._lengths, lengths])
        self._node_ids += node_ids
        for i, vid in enumerate(vids.tolist()):
            self._pos[vid] = start + i
        self._df = _grown(self._df, len(self._words))
        self._df += np.bincount(chunk[0], minlength=len(self._words))
        self._total += int(lengths.sum())
        self._tail.append(chunk)
        self._tail_size += len(chunk[0])
        if self._tail_size >= max(TAIL_MIN, len(self._terms) // TAIL_SHARE):
            self._merge()
        self.dirty = True

    def _term_id(self, word: str) -> int:
        found = self._vocab.get(word)
        if found is None:
            found = self._vocab[word] = len(self._words)
            self._words.append(word)
        return found

    def _postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Base and tail postings together, in no particular order."""
        parts = [(self._terms, self._slots, self._tf), *self._tail]
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))  # type: ignore[return-value]

    def _merge(self) -> None:
        """Fold the tail into the term-sorted base."""
        all_terms, all_slots, all_tf = self._postings()
        order = np.argsort(all_terms, kind="stable")
        self._terms, self._slots, self._tf = all_terms[order], all_slots[order], all_tf[order]
        self._starts = np.searchsorted(self._terms, np.arange(len(self._words) + 1))
        self._tail, self._tail_size = [], 0

    def remove(self, vids: Sequence[int] | np.ndarray) -> int:
        """Drop the items with these vids (unknown vids are ignored); return how many."""
        with self._lock.exclusive():
            gone = _held_vids(vids, self._pos)
            if not gone:
                return 0
            for vid in gone:
                self._alive[self._pos.pop(vid)] = False
            if 1 - len(self._pos) / len(self._alive) > COMPACT_RATIO:
                self._compact()
            else:
                self._recount()
            self.dirty = True
            return len(gone)

    def _recount(self) -> None:
        """Document frequencies and total length over the live documents."""
        all_terms, all_slots, _ = self._postings()
        live = self._alive[all_slots]
        self._df = np.bincount(all_terms[live], minlength=len(self._words)).astype(np.int64)
        self._total = int(self._lengths[self._alive].sum())

    def _compact(self) -> None:
        """Rebuild without the dead slots (term ids are kept)."""
        all_terms, all_slots, all_tf = self._postings()
        keep = np.flatnonzero(self._alive)
        renumber = np.full(len(self._alive), -1, dtype=np.int64)
        renumber[keep] = np.arange(len(keep))
        live = self._alive[all_slots]
        self._terms, self._tf = all_terms[live], all_tf[live]
        self._slots = renumber[all_slots[live]].astype(np.int32)
        self._tail, self._tail_size = [], 0
        self._vids, self._ts, self._lengths = self._vids[keep], self._ts[keep], self._lengths[keep]
        self._node_ids = [self._node_ids[i] for i in keep]
        self._alive = np.ones(len(keep), dtype=bool)
        self._pos = {int(v): i for i, v in enumerate(self._vids.tolist())}
        self._merge()
        self._recount()

    # --- searching -------------------------------------------------------------------------

    def search(self, query: str, k: int, as_of_ts: int | None = None) -> list[KeywordHit]:
        """The k items that score best for the query's terms, among those with ts <= as_of_ts."""
        if not isinstance(query, str):
            raise InvalidInput("query", "must be a string")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInput("k", "must be a positive integer")
        with self._lock.shared():
            wanted = sorted({t for t in map(self._vocab.get, terms(query)) if t is not None})
            if not wanted or not self._pos:
                return []
            slots, scores = self._scores(np.asarray(wanted, dtype=np.int64))
            keep = self._alive[slots]
            if as_of_ts is not None:
                keep &= self._ts[slots] <= as_of_ts
            slots, scores = slots[keep], scores[keep]
            if len(slots) > k:
                front = np.argpartition(-scores, k - 1)[:k]
                cut = scores[front].min()
                front = np.flatnonzero(scores >= cut)  # ties with the k-th stay in the running
                slots, scores = slots[front], scores[front]
            order = np.lexsort((-self._ts[slots], -scores))[:k]
            return [
                KeywordHit(
                    self._node_ids[s], int(self._vids[s]), float(scores[i]), int(self._ts[s])
                )
                for i, s in ((i, int(slots[i])) for i in order.tolist())
            ]

    def _scores(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(slots, BM25 scores) of every document holding one of the term ids `wanted`."""
        n = max(len(self._pos), 1)
        avgdl = max(self._total / n, 1.0)
        df = self._df[wanted]
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        parts_s, parts_w = [], []
        base = [
            np.arange(self._starts[t], self._starts[t + 1])
            for t in wanted.tolist()
            if t + 1 < len(self._starts)
        ]
        picks = [(self._terms, self._slots, self._tf, np.concatenate(base))] if base else []
        if self._tail:
            tail_terms, tail_slots, tail_tf = (
                np.concatenate([c[i] for c in self._tail]) for i in range(3)
            )
            picks.append(
                (tail_terms, tail_slots, tail_tf, np.flatnonzero(np.isin(tail_terms, wanted)))
            )
        for term_arr, slot_arr, tf_arr, at in picks:
            slot, tf = slot_arr[at], tf_arr[at]
            weight = idf[np.searchsorted(wanted, term_arr[at])]
            norm = K1 * (1 - B + B * self._lengths[slot] / avgdl)
            parts_s.append(slot)
            parts_w.append(weight * tf * (K1 + 1) / (tf + norm))
        if not parts_s:
            return np.empty(0, dtype=np.int64), np.empty(0)
        # summed per document over a dense array: no sort of the postings (every weight is > 0)
        total = np.bincount(
            np.concatenate(parts_s), weights=np.concatenate(parts_w), minlength=len(self._alive)
        )
        slots = np.flatnonzero(total)
        return slots, total[slots]

    # --- persistence -----------------------------------------------------------------------

    def save(self, path: Path, synced_at: float | None = None, clock: Clock | None = None) -> None:
        """Write the index to `path` atomically, checksummed (see persist.write_arrays)."""
        clock = clock or Clock()
        with self._lock.exclusive():
            if self._tail:
                self._merge()
            arrays = {
                "vids": self._vids,
                "ts": self._ts,
                "alive": self._alive,
                "lengths": self._lengths,
                "node_ids": np.array(self._node_ids, dtype=np.str_),
                "vocab": np.array(self._words, dtype=np.str_),
                "terms": self._terms,
                "slots": self._slots,
                "tf": self._tf,
            }
            meta = {
                "label": self.label,
                "tokenizer": TOKENIZER,
                "count": len(self._pos),
                "saved_at": int(time.time()),
                "synced_at": synced_at,
                "rev": clock.rev,
                "epoch": clock.epoch,
            }
            write_arrays(path, arrays, meta)
            self.dirty = False

    @classmethod
    def load(cls, path: Path, label: str) -> KeywordIndex:
        """The index saved at `path`; VectorIndexError says why it cannot be used."""
        meta, arrays = read_arrays(path, ARRAYS)
        if meta.get("label") != label:
            raise VectorIndexError(f"saved keyword index {path} holds label {meta.get('label')!r}")
        if meta.get("tokenizer") != TOKENIZER:
            raise VectorIndexError(
                f"{path} was made by tokenizer {meta.get('tokenizer')!r}, not {TOKENIZER}"
            )
        index = cls(label)
        index._adopt(path, meta, arrays)
        return index

    def _adopt(self, path: Path, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        vids, terms_ = arrays["vids"].astype(np.int64), arrays["terms"].astype(np.int32)
        slots, words = arrays["slots"].astype(np.int32), arrays["vocab"].tolist()
        n = len(vids)
        same = {
            n,
            len(arrays["ts"]),
            len(arrays["alive"]),
            len(arrays["lengths"]),
            len(arrays["node_ids"]),
        }
        # the checksum passed, so a disagreement means a file written by something else
        if (
            len(same) != 1
            or len({len(terms_), len(slots), len(arrays["tf"])}) != 1
            or (len(slots) and (slots.min() < 0 or slots.max() >= n))
            or (len(terms_) and (terms_.min() < 0 or terms_.max() >= len(words)))
            or np.any(np.diff(terms_) < 0)
        ):
            raise DamagedIndexFile(path, "its arrays do not agree with each other")
        self._vids, self._ts = vids, arrays["ts"].astype(np.int64)
        self._alive, self._lengths = (
            arrays["alive"].astype(bool),
            arrays["lengths"].astype(np.int32),
        )
        self._node_ids, self._words = arrays["node_ids"].tolist(), words
        self._vocab = {w: i for i, w in enumerate(words)}
        self._terms, self._slots, self._tf = terms_, slots, arrays["tf"].astype(np.float32)
        self._starts = np.searchsorted(self._terms, np.arange(len(words) + 1))
        self._pos = {int(v): i for i, v in enumerate(vids.tolist()) if self._alive[i]}
        self._recount()
        rev, epoch = meta.get("rev"), meta.get("epoch")
        if isinstance(rev, int) and not isinstance(rev, bool) and isinstance(epoch, str):
            self.synced = Clock(rev, epoch)
        self.dirty = False


def _grown(arr: np.ndarray, size: int) -> np.ndarray:
    """`arr` padded with zeros to `size`."""
    return arr if len(arr) >= size else np.concatenate([arr, np.zeros(size - len(arr), arr.dtype)])
