"""GraphQL types, queries and mutations for Series."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated

import strawberry

from api.common import LIMIT, Limit, Offset, Page
from api.context import Info
from api.derive import derived
from graphmem.errors import NotFound
from graphmem.series import catalog

if TYPE_CHECKING:  # resolvers return the library's objects; the schema reads the derived type
    from graphmem.series.catalog import SeriesInfo as Series
else:
    Series = derived(
        catalog.SeriesInfo,
        "A named numeric time series, cut into segments as points arrive",
        {
            "id": "The series' id",
            "name": "Its unique name",
            "unit": "The unit of its values, if given",
            "description": "What it measures, if given",
            "created_at": "When it was created",
        },
        name="Series",
        types={"id": strawberry.ID, "created_at": dt.datetime},
        hidden=("t0",),  # the origin of segment time sums, internal
    )


def series(info: Info, limit: Limit = LIMIT, offset: Offset = 0) -> Page[Series]:
    store = info.context.store
    found = catalog.list_series(store, limit, offset)
    return Page(items=found, total=catalog.count_series(store), limit=limit, offset=offset)


SeriesRef = Annotated[strawberry.ID, strawberry.argument(description="The series' id (or name)")]


def series_by_id(info: Info, id: SeriesRef) -> Series | None:  # noqa: A002 - GraphQL name
    try:
        return catalog.get_series(info.context.store, str(id), field="id")
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
        return catalog.create_series(info.context.store, name, unit, description)

    @strawberry.mutation(description="Delete a series and everything hanging off it")
    def delete_series(self, info: Info, id: SeriesRef) -> Series:  # noqa: A002
        services = info.context.services
        return catalog.delete_series(
            services.store, str(id), field="id", data_dir=services.settings.home
        )
