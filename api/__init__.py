"""graphmem's GraphQL API: strawberry schema and the ASGI app served by uvicorn."""
