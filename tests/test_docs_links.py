"""The README and docs/ hold together: links resolve, GraphQL examples run, CI runs the README.

A reader follows a relative link to a file (and a heading) that exists, can paste any GraphQL
example into GraphiQL without a validation error, and gets from the README's two commands what
CI checks.
"""

from __future__ import annotations

import re
from pathlib import Path

import graphql
import pytest

from api.schema import schema

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.M)


def _prose(text: str) -> str:
    """The text outside fenced code blocks (a `#` there is a comment, `](` is code)."""
    return FENCE.sub("", text)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(h) for h in HEADING.findall(_prose(page.read_text(encoding="utf-8")))}


def _relative_links(page: Path) -> list[str]:
    links = LINK.findall(_prose(page.read_text(encoding="utf-8")))
    return [link for link in links if not re.match(r"[a-z][a-z+.-]*:", link)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_point_at_files_and_headings(page: Path) -> None:
    broken = []
    for link in _relative_links(page):
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link}: no heading #{anchor} in {target.name}")
    assert not broken, f"{page.name}: " + "; ".join(broken)


def test_pages_link_at_least_somewhere() -> None:
    """Every docs page is reachable: the README or another page links to it."""
    linked = {
        (page.parent / link.partition("#")[0]).resolve()
        for page in PAGES
        for link in _relative_links(page)
        if link.partition("#")[0]
    }
    orphans = [p.name for p in PAGES[1:] if p.resolve() not in linked]
    assert not orphans, f"docs pages no page links to: {orphans}"


def _graphql_examples() -> list[tuple[str, graphql.DefinitionNode]]:
    examples = []
    for page in PAGES:
        for lang, body in FENCE.findall(page.read_text(encoding="utf-8")):
            if lang == "graphql":
                examples += [(page.name, d) for d in graphql.parse(body).definitions]
    return examples


def test_graphql_examples_validate_against_the_schema() -> None:
    served = graphql.build_schema(schema.as_str())
    examples = _graphql_examples()
    assert len(examples) >= 20  # every memory's page shows its operations
    wrong = [
        f"{name}: {error.message}"
        for name, definition in examples
        for error in graphql.validate(served, graphql.DocumentNode(definitions=(definition,)))
    ]
    assert not wrong, "\n".join(wrong)


def _readme_commands() -> list[str]:
    """The README's quick-start commands: the first line of each of its first two bash blocks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [body for lang, body in FENCE.findall(readme) if lang == "bash"]
    return [block.strip().splitlines()[0] for block in blocks[:2]]


def test_ci_runs_the_readme_commands() -> None:
    install, tests = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "graphmem demo" in install and "pytest" in tests
    assert install in ci
    assert tests in ci
