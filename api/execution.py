"""graphmem's strawberry Schema: operations run off the event loop; expected errors not logged."""

from __future__ import annotations

import asyncio
import contextvars
import functools
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.types import ExecutionContext, ExecutionResult

from api.errors import error_extensions


class GraphmemSchema(strawberry.Schema):
    """A strawberry Schema whose resolvers (all synchronous) run on the app's worker thread."""

    async def execute(
        self, query: str | None, variable_values: Any = None, context_value: Any = None,
        *args: Any, **kwargs: Any,
    ) -> ExecutionResult:  # fmt: skip
        state = getattr(context_value, "state", None)
        if state is None:  # not served by api.app (e.g. a bare schema.execute in a script)
            return await super().execute(query, variable_values, context_value, *args, **kwargs)
        # store and model calls block: run the whole operation where they cannot stall the
        # event loop, so /healthz and other requests are answered meanwhile
        run = functools.partial(
            self.execute_sync, query, variable_values, context_value, *args, **kwargs
        )
        # in a copy of the request's context: its request id and metrics sink (api/observe.py)
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(state.worker(), context.run, run)

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log only unexpected errors: bad input, not found and the like are the caller's."""
        unexpected = [e for e in errors if error_extensions(e)["code"] == "INTERNAL"]
        super().process_errors(unexpected, execution_context)
