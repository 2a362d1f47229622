"""Write every statement graphmem can send to an engine as JSON {name: text} (for lint.mjs).

python tools/neo4j-lint/statements.py [engine] > statements.json   (engine: neo4j)
"""

from __future__ import annotations

import json
import sys

from graphmem.store.sent import sent_statements

if __name__ == "__main__":
    engine = sys.argv[1] if len(sys.argv) > 1 else "neo4j"
    json.dump(sent_statements(engine), sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
