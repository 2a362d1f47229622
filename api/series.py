"""GraphQL types, queries and mutations for Series."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import strawberry

from api.common import LIMIT, Limit, Offset, Page, at
from api.context import Info
from graphmem.errors import NotFound
from graphmem.series import catalog


@strawberry.type(description="A named numeric time series, cut into segments as points arrive")
class Series:
    id: strawberry.ID = strawberry.field(description="The series' id")
    name: str = strawberry.field(description="Its unique name")
    unit: str | None = strawberry.field(description="The unit of its values, if given")
    description: str | None = strawberry.field(description="What it measures, if given")
    created_at: dt.datetime = strawberry.field(description="When it was created")

    @classmethod
    def of(cls, info: catalog.SeriesInfo) -> Series:
        return cls(
            id=strawberry.ID(info.id),
            name=info.name,
            unit=info.unit,
            description=info.description,
            created_at=at(info.created_at),
        )


def series(info: Info, limit: Limit = LIMIT, offset: Offset = 0) -> Page[Series]:
    store = info.context.store
    found = [Series.of(s) for s in catalog.list_series(store, limit, offset)]
    return Page(items=found, total=catalog.count_series(store), limit=limit, offset=offset)


SeriesRef = Annotated[strawberry.ID, strawberry.argument(description="The series' id (or name)")]


def series_by_id(info: Info, id: SeriesRef) -> Series | None:  # noqa: A002 - GraphQL name
    try:
        return Series.of(catalog.get_series(info.context.store, str(id), field="id"))
    except NotFound:
        return None


@strawberry.type
class SeriesQuery:
    series: Page[Series] = strawberry.field(resolver=series, description="Series by name")
    series_by_id: Series | None = strawberry.field(
        resolver=series_by_id, description="A series by id (or name); null if there is none"
    )


@strawberry.type
class SeriesMutation:
    @strawberry.mutation(description="Create a series; names are unique")
    def create_series(
        self,
        info: Info,
        name: Annotated[str, strawberry.argument(description="A name no other series has")],
        unit: Annotated[str | None, strawberry.argument(description="Unit of the values")] = None,
        description: Annotated[
            str | None, strawberry.argument(description="What the series measures")
        ] = None,
    ) -> Series:
        return Series.of(catalog.create_series(info.context.store, name, unit, description))

    @strawberry.mutation(description="Delete a series and everything hanging off it")
    def delete_series(self, info: Info, id: SeriesRef) -> Series:  # noqa: A002
        return Series.of(catalog.delete_series(info.context.store, str(id), field="id"))
