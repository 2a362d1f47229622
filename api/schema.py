"""The GraphQL schema: one Query and one Mutation merged from each concern."""

from __future__ import annotations

from strawberry.tools import merge_types

from api.auth import AccessRules
from api.common import SCALARS
from api.errors import GraphmemErrors
from api.execution import GraphmemSchema, PreparedOnce
from api.health import HealthQuery
from api.limits import RequestLimits
from api.meta import MetaMutation, MetaQuery
from api.observe import OperationObserver
from api.props import PropsMutation, PropsQuery
from api.segments import SegmentMutation, SegmentQuery
from api.series import SeriesMutation, SeriesQuery
from api.spaces import SpaceMutation, SpaceQuery
from api.timeline import TimelineMutation, TimelineQuery

Query = merge_types(
    "Query",
    (HealthQuery, SeriesQuery, SegmentQuery, MetaQuery, PropsQuery, TimelineQuery, SpaceQuery),
)
Mutation = merge_types(
    "Mutation",
    (SeriesMutation, SegmentMutation, MetaMutation, PropsMutation, TimelineMutation, SpaceMutation),
)

# merge_types returns a strawberry type, which mypy sees as a plain `type`
Query.__strawberry_definition__.description = "Reads: series, segments, memories, propositions"  # type: ignore[attr-defined]
Mutation.__strawberry_definition__.description = "Writes: points, meta-segments, documents, events"  # type: ignore[attr-defined]

schema = GraphmemSchema(
    query=Query,
    mutation=Mutation,
    scalar_overrides=SCALARS,
    # PreparedOnce before RequestLimits: a document found valid clears the errors on_validate
    # sets, so the limits' refusals must come after; parse options are set on_operation
    extensions=[GraphmemErrors, AccessRules, OperationObserver, PreparedOnce, RequestLimits],
)
