"""docs/python.md: every example runs as written, in order, on an empty data dir, and twice."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[1] / "docs" / "python.md"


def run_examples() -> list[str]:
    """What each ```python block of the page prints, run in page order."""
    outputs = []
    for code in re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, str(DOC), "exec"), {"__name__": "docs_python"})  # noqa: S102
        outputs.append(printed.getvalue())
    return outputs


def test_the_python_page_examples_run(monkeypatch: pytest.MonkeyPatch, short_tmp: Path) -> None:
    monkeypatch.chdir(short_tmp)
    monkeypatch.setenv("GRAPHMEM_HOME", str(short_tmp / "docs-python"))
    for name in ("GRAPHMEM_STORE", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    first = run_examples()
    opening, series, facts, timeline, aio = first
    assert opening == "[]\n"
    assert series.endswith("[('2024-01', 102.8), ('2024-02', 142.9)]\n")
    assert "This statement updates P1." in facts
    assert facts.endswith("[('2018-03-02', 'updated'), ('2021-09-01', 'current')]\n")
    notice, forecast = timeline.splitlines()
    assert "n=4 The ward asked" in notice and "n=0 A forecast" in forecast
    assert aio == ("['Opened the new library.', 'The library opened in March 2024.'] ['shop']\n")
    again = run_examples()  # the same examples again: nothing new is stored
    assert again[1:3] == first[1:3] and again[4] == first[4]
