"""The `graphmem` command."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence

from graphmem.config import Settings
from graphmem.errors import GraphmemError, ReadOnlyViolation
from graphmem.store import Store, open_store
from graphmem.tables import render

Handler = Callable[[argparse.Namespace, Settings], int]


def _open(args: argparse.Namespace, settings: Settings) -> Store:
    return open_store(args.store, settings)


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Serve the GraphQL API with uvicorn."""
    import uvicorn

    from api.app import create_app

    if args.store:
        settings = settings.with_overrides(store_url=args.store)
    print(f"graphmem API on http://{args.host}:{args.port}/graphql (store: "
          f"{settings.resolved_store_url})")  # fmt: skip
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0


def cmd_cypher(args: argparse.Namespace, settings: Settings) -> int:
    """Run a read-only Cypher query and print the rows as a table."""
    with _open(args, settings) as store:
        try:
            rows = store.inspect(args.query)
        except ReadOnlyViolation:
            print(
                "refused: `graphmem cypher` is read-only inspection; this query writes. "
                "Change data through the API or the Python library.",
                file=sys.stderr,
            )
            return 2
        print(render(rows))
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    """Run the demo on the embedded store."""
    from graphmem.demo import run_demo

    with _open(args, settings) as store:
        run_demo(store, settings, out=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graphmem", description="Temporal graph memory for LLMs.")
    parser.add_argument(
        "--store", help="store URL (default: $GRAPHMEM_STORE or the embedded FalkorDB)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="serve the GraphQL API (GraphiQL at /graphql)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--store", dest="store", help="store URL", default=argparse.SUPPRESS)
    serve.set_defaults(handler=cmd_serve)

    cypher = sub.add_parser("cypher", help="run a read-only Cypher query, print a table")
    cypher.add_argument("query")
    cypher.set_defaults(handler=cmd_cypher)

    demo = sub.add_parser("demo", help="load the demo data and show what graphmem does")
    demo.set_defaults(handler=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING)
    try:
        settings = Settings.from_env()
        return args.handler(args, settings)
    except GraphmemError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
