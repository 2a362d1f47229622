"""AsyncMemory: Memory for asyncio, each call the same sync call run on a bounded thread pool."""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

from graphmem.config import Settings
from graphmem.errors import InvalidInput, StoreUnavailable
from graphmem.memory.core import Memory
from graphmem.memory.propositions import Propositions
from graphmem.memory.series import Series
from graphmem.memory.timeline import Timeline

if TYPE_CHECKING:
    from graphmem.vectors.reembed import Progress, Reembedded

P = ParamSpec("P")
T = TypeVar("T")
S = TypeVar("S")
MAX_WORKERS = 64


class AsyncMemory:
    """`Memory` for asyncio: `series`, `propositions` and `timeline` with the same methods,
    awaitable, each running the sync call on a pool of `max_workers` threads (so at most that
    many run at once; the event loop never waits for the store, the model or an LLM).

    Opens like Memory: nothing at construction, the store at `await AsyncMemory.open(...)`, on
    `async with`, or at the first call. `await close()` waits for the calls under way, then
    saves the vector indexes and closes the store. A cancelled call still runs to its end on
    its thread. `memory` is the sync Memory underneath, sharing the same store and indexes.
    """

    def __init__(
        self,
        store_url: str | None = None,
        *,
        settings: Settings | None = None,
        max_workers: int = 4,
        space: str | None = None,
    ) -> None:
        if isinstance(max_workers, bool) or not isinstance(max_workers, int):
            raise InvalidInput("max_workers", f"must be an integer from 1 to {MAX_WORKERS}")
        if not 1 <= max_workers <= MAX_WORKERS:
            raise InvalidInput("max_workers", f"must be an integer from 1 to {MAX_WORKERS}")
        self.memory = Memory(store_url, settings=settings, space=space)
        self._pool = ThreadPoolExecutor(max_workers, thread_name_prefix="graphmem-async")
        self._closed = False
        self.series = AsyncSeries(self._run, self.memory.series)
        self.propositions = AsyncPropositions(self._run, self.memory.propositions)
        self.timeline = AsyncTimeline(self._run, self.memory.timeline)

    @classmethod
    async def open(
        cls,
        store_url: str | None = None,
        *,
        settings: Settings | None = None,
        max_workers: int = 4,
        space: str | None = None,
    ) -> AsyncMemory:
        """An AsyncMemory with its store open now."""
        memory = cls(store_url, settings=settings, max_workers=max_workers, space=space)
        await memory._run(memory.memory.services)
        return memory

    @property
    def settings(self) -> Settings:
        return self.memory.settings

    @property
    def space(self) -> str:
        """The space every call reads and writes (docs/spaces.md)."""
        return self.memory.space

    async def spaces(self) -> list[str]:
        """Every space holding memories in the store, sorted."""
        return await self._run(self.memory.spaces)

    async def delete_space(self, space: str) -> int:
        """Delete every memory of `space` and its index files; how many nodes went."""
        return await self._run(self.memory.delete_space, space)

    async def reembed(
        self,
        labels: Sequence[str] | None = None,
        *,
        batch: int | None = None,
        force: bool = False,
        progress: Progress | None = None,
    ) -> list[Reembedded]:
        """Memory.reembed off the event loop: re-embed this space's stored vectors with the
        configured embedder and rebuild its vector indexes (docs/embeddings.md)."""
        reembed = functools.partial(self.memory.reembed, batch=batch, force=force)
        return await self._run(reembed, labels, progress=progress)

    async def warm_up(self) -> None:
        """Open now what the first calls would: the model, every vector index, the memories."""
        await self._run(self.memory.warm_up)

    async def close(self) -> None:
        """Wait for the calls under way, then save the vector indexes and close the store."""
        if self._closed:
            return
        self._closed = True
        await asyncio.to_thread(self._shut_down)

    def _shut_down(self) -> None:
        self._pool.shutdown(wait=True)
        self.memory.close()

    async def __aenter__(self) -> AsyncMemory:
        await self._run(self.memory.services)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"Async{self.memory!r}"

    async def _run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args, **kwargs)` on the pool, in a copy of the caller's context."""
        call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
        try:
            if self._closed:
                raise RuntimeError("closed")
            future = asyncio.get_running_loop().run_in_executor(self._pool, call)
        except RuntimeError:  # closed, or the pool shut down since the check
            raise StoreUnavailable("this AsyncMemory is closed; open a new one") from None
        return await future


Runner = Callable[..., Coroutine[Any, Any, Any]]


class AsyncPart(Generic[S]):
    """A memory of an AsyncMemory: the sync part's methods, awaitable (see `twin`)."""

    def __init__(self, run: Runner, part: S) -> None:
        self._run = run
        self._part = part


def twin(
    method: Callable[Concatenate[S, P], T],
) -> Callable[Concatenate[AsyncPart[S], P], Coroutine[Any, Any, T]]:
    """The async twin of a sync part's method: same arguments, docs and result, awaited."""

    @functools.wraps(method)
    async def call(self: AsyncPart[S], /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(method, self._part, *args, **kwargs)

    return call


class AsyncSeries(AsyncPart[Series]):
    """`Memory.series`, awaitable."""

    create = twin(Series.create)
    ensure = twin(Series.ensure)
    get = twin(Series.get)
    list = twin(Series.list)
    delete = twin(Series.delete)
    append = twin(Series.append)
    append_all = twin(Series.append_all)
    segments = twin(Series.segments)
    segment = twin(Series.segment)
    bounds = twin(Series.bounds)
    meta_by_range = twin(Series.meta_by_range)
    meta_by_filter = twin(Series.meta_by_filter)
    meta_from_members = twin(Series.meta_from_members)
    meta = twin(Series.meta)
    metas = twin(Series.metas)
    members = twin(Series.members)
    tool_schemas = twin(Series.tool_schemas)
    run_tool = twin(Series.run_tool)
    ask = twin(Series.ask)
    plot = twin(Series.plot)


class AsyncPropositions(AsyncPart[Propositions]):
    """`Memory.propositions`, awaitable."""

    add_document = twin(Propositions.add_document)
    add_documents = twin(Propositions.add_documents)
    add = twin(Propositions.add)
    update = twin(Propositions.update)
    delete = twin(Propositions.delete)
    delete_document = twin(Propositions.delete_document)
    subgraph = twin(Propositions.subgraph)
    context = twin(Propositions.context)
    get = twin(Propositions.get)
    relations = twin(Propositions.relations)
    counts = twin(Propositions.counts)
    refine = twin(Propositions.refine)


class AsyncTimeline(AsyncPart[Timeline]):
    """`Memory.timeline`, awaitable."""

    add_event = twin(Timeline.add_event)
    add_events = twin(Timeline.add_events)
    delete_event = twin(Timeline.delete_event)
    recall = twin(Timeline.recall)
    reinforce = twin(Timeline.reinforce)
    stats = twin(Timeline.stats)
    items = twin(Timeline.items)
    plot = twin(Timeline.plot)
