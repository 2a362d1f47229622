"""One error root for graphmem; other libraries' errors are translated into these."""

from __future__ import annotations

MAX_PROBLEM = 500  # characters kept of a message that may quote what the caller sent


def clipped(text: str, limit: int = MAX_PROBLEM) -> str:
    """`text` cut to `limit` characters, saying how many were left out.

    For messages quoting the caller's values, which may be huge (a 1 MB id comes back short).
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


class GraphmemError(Exception):
    """Base of every error graphmem raises on purpose."""

    code = "INTERNAL"

    def details(self) -> dict[str, object]:
        """What the error's GraphQL `extensions` carry besides its code."""
        return {}


class InvalidInput(GraphmemError):
    """A user-supplied value is wrong; names the field and the problem."""

    code = "BAD_INPUT"

    def __init__(self, field: str, problem: str) -> None:
        problem = clipped(problem)
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem

    def details(self) -> dict[str, object]:
        return {"field": self.field}


class LimitExceeded(InvalidInput):
    """A value is larger than the service allows (GRAPHMEM_MAX_*): names it, the limit, its size."""

    code = "LIMIT_EXCEEDED"

    def __init__(self, field: str, problem: str, maximum: int, found: int) -> None:
        super().__init__(field, problem)
        self.maximum = maximum
        self.found = found

    def details(self) -> dict[str, object]:
        return {"field": self.field, "max": self.maximum, "found": self.found}


class OperationTimeout(GraphmemError):
    """The operation ran past its time limit; the statement it was running was undone."""

    code = "TIMEOUT"


class NotFound(GraphmemError):
    """The requested item does not exist."""

    code = "NOT_FOUND"

    def __init__(self, message: str) -> None:
        super().__init__(clipped(message))  # it quotes the id asked for


class AlreadyExists(GraphmemError):
    """An item with the same identity is already stored."""

    code = "ALREADY_EXISTS"

    def __init__(self, message: str) -> None:
        super().__init__(clipped(message))  # it may quote the value sent


class Unauthenticated(GraphmemError):
    """A request to the API carried no token, or one it does not know."""

    code = "UNAUTHENTICATED"


class Forbidden(GraphmemError):
    """The caller's token does not allow what was asked (a read-only token and a mutation)."""

    code = "FORBIDDEN"


class StoreError(GraphmemError):
    """The graph store failed to run a statement."""

    code = "STORE_ERROR"


class StoreUnavailable(StoreError):
    """The graph store cannot be reached or started."""

    code = "STORE_UNAVAILABLE"


class StoreAuthError(StoreError):
    """The graph store refused the credentials, or the user may not do what was asked."""

    code = "STORE_AUTH"


class ReadOnlyViolation(StoreError):
    """A write was sent through the read-only path."""

    code = "READ_ONLY"


class CypherLoadError(GraphmemError):
    """The cypher/ statement files are malformed, or a statement name is unknown."""

    code = "CYPHER_LOAD"


class LLMError(GraphmemError):
    """The configured LLM endpoint failed or answered badly."""

    code = "LLM_ERROR"


class LLMNotConfigured(LLMError):
    """An operation needs an LLM and none is configured."""

    code = "LLM_NOT_CONFIGURED"
