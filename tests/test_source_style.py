"""The layout is ruff format's: no source file opts out of it (issue 18)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPT_OUTS = ("# fmt: skip", "# fmt: off")


def test_no_file_opts_out_of_the_formatter() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("graphmem", "api", "tests", "bench", "tools")
        for path in (ROOT / folder).rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith(OPT_OUTS) and path != Path(__file__).resolve()
    ]
    assert found == []
