"""GraphQL types, queries and mutations for Series."""

from __future__ import annotations

import strawberry

from api.context import Info
from graphmem.errors import NotFound
from graphmem.series import catalog
from graphmem.timeutil import iso


@strawberry.type
class Series:
    id: strawberry.ID
    name: str
    unit: str | None
    description: str | None
    created_at: int = strawberry.field(description="Epoch seconds")
    created_at_iso: str

    @classmethod
    def of(cls, info: catalog.SeriesInfo) -> Series:
        return cls(
            id=strawberry.ID(info.id),
            name=info.name,
            unit=info.unit,
            description=info.description,
            created_at=info.created_at,
            created_at_iso=iso(info.created_at),
        )


def series(info: Info, limit: int = 100, offset: int = 0) -> list[Series]:
    return [Series.of(s) for s in catalog.list_series(info.context.store, limit, offset)]


def series_by_id(info: Info, id: strawberry.ID) -> Series | None:  # noqa: A002 - GraphQL name
    try:
        return Series.of(catalog.get_series(info.context.store, str(id), field="id"))
    except NotFound:
        return None


@strawberry.type
class SeriesQuery:
    series: list[Series] = strawberry.field(resolver=series, description="Series by name")
    series_by_id: Series | None = strawberry.field(
        resolver=series_by_id, description="A series by id (or name)"
    )


@strawberry.type
class SeriesMutation:
    @strawberry.mutation(description="Create a series; names are unique")
    def create_series(
        self, info: Info, name: str, unit: str | None = None, description: str | None = None
    ) -> Series:
        return Series.of(catalog.create_series(info.context.store, name, unit, description))

    @strawberry.mutation(description="Delete a series and everything hanging off it")
    def delete_series(self, info: Info, id: strawberry.ID) -> Series:  # noqa: A002
        return Series.of(catalog.delete_series(info.context.store, str(id), field="id"))
