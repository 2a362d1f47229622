"""Spaces: which exist, which one a request uses (X-Graphmem-Space), deleting one."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.context import Info
from graphmem.errors import Forbidden
from graphmem.spaces import checked_space


@strawberry.type(description="A space deleted with every memory in it")
class DeletedSpace:
    name: str = strawberry.field(description="The space's name")
    nodes: int = strawberry.field(description="How many nodes (memories, segments...) went")


def _spaces(info: Info) -> list[str]:
    grant = info.context.grant
    found = info.context.store.spaces()
    return [name for name in found if grant is None or grant.allows(name)]


@strawberry.type
class SpaceQuery:
    @strawberry.field(description="The space this request reads and writes (X-Graphmem-Space)")
    def space(self, info: Info) -> str:
        return info.context.space

    @strawberry.field(
        description="The spaces holding memories, sorted; only those the token is bound to"
    )
    def spaces(self, info: Info) -> list[str]:
        return _spaces(info)


@strawberry.type
class SpaceMutation:
    @strawberry.mutation(
        description="Delete a space: every memory in it, with its edges and index files"
    )
    def delete_space(
        self, info: Info, name: Annotated[str, strawberry.argument(description="The space")]
    ) -> DeletedSpace:
        space = checked_space(name, "name")
        grant = info.context.grant
        if grant is not None and not grant.allows(space):
            raise Forbidden(f"name: the token {grant.name!r} is not bound to the space {space!r}")
        return DeletedSpace(name=space, nodes=info.context.services.delete_space(space))
