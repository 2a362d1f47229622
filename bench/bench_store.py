"""Store benchmark on the embedded FalkorDB: 100k-row UNWIND MERGE and lookup by id."""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import percentiles_ms, temp_store, timed  # noqa: E402

from graphmem.cypher import load_dir  # noqa: E402
from graphmem.store.base import params_of  # noqa: E402
from graphmem.store.falkordb_engine import literal  # noqa: E402

Q = load_dir(Path(__file__).parent / "cypher")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=2000)
    args = parser.parse_args()
    rows = [
        {"id": f"ev-{i}", "text": f"event number {i}", "ts": 1_600_000_000 + i}
        for i in range(args.rows)
    ]
    t = time.perf_counter()
    header = literal(params_of({"rows": rows})["rows"])  # what each write does before sending
    prepare_s = time.perf_counter() - t
    with temp_store() as store:
        t = time.perf_counter()
        written = store.write_batch(Q["store_bench.merge_rows"], rows)[0]["written"]
        create_s = time.perf_counter() - t
        t = time.perf_counter()
        store.write_batch(Q["store_bench.merge_rows"], rows)
        update_s = time.perf_counter() - t
        ids = [f"ev-{random.randrange(args.rows)}" for _ in range(args.lookups)]
        it = iter(ids)
        lookups = timed(lambda: store.read(Q["store_bench.get"], id=next(it)), args.lookups)
    print(
        f"UNWIND MERGE of {written} new rows in one statement: {written / create_s:,.0f} rows/s "
        f"({create_s:.2f} s)"
    )
    print(
        f"UNWIND MERGE of the same {written} rows again (all matches): "
        f"{written / update_s:,.0f} rows/s ({update_s:.2f} s)"
    )
    print(
        f"of which checking and serialising the {len(rows)} rows' parameters: {prepare_s:.2f} s "
        f"({len(header) / 1e6:.1f} MB of query text)"
    )
    print(f"lookup by id over {args.rows} nodes, {args.lookups} queries: {percentiles_ms(lookups)}")


if __name__ == "__main__":
    main()
