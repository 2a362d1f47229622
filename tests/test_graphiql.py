"""GraphiQL comes entirely from the package: the page and everything it loads are served by the
app, and nothing in them would fetch from another host. (tools/graphiql/browser-check shows
the same in a real browser; this needs none.)"""

from __future__ import annotations

import hashlib
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from starlette.testclient import TestClient

from api.app import create_app
from api.graphiql import STATIC
from graphmem.config import Settings

VENDOR = STATIC / "vendor"
BASE = "http://localhost"
MAX_FILE = 2 * 1024 * 1024
FETCHING_ATTRIBUTES = {"src", "href", "srcset", "action", "formaction", "poster", "data"}

# An absolute (or protocol-relative) URL in quotes or url(...): what a browser would fetch
# from another host. Strings that are only text (licence comments, links in warnings and docs,
# XML namespaces, <a href> a user may click) are not fetches and are not matched.
ABSOLUTE = r"""(?:(?:https?|wss?):)?//[^\s"'`)]+"""
QUOTE = r"""["'`]"""
FETCHES = [
    re.compile(rf"\bimport\s*\(\s*{QUOTE}({ABSOLUTE})"),  # import("https://…")
    re.compile(rf"\bimport\b[^;\"'`]*?\bfrom\s*{QUOTE}({ABSOLUTE})"),  # import x from "…"
    re.compile(rf"\bimport\s*{QUOTE}({ABSOLUTE})"),  # import "…"
    re.compile(rf"\b(?:fetch|importScripts|sendBeacon)\s*\(\s*{QUOTE}({ABSOLUTE})"),
    re.compile(rf"\bnew\s+(?:Shared)?Worker\s*\(\s*{QUOTE}({ABSOLUTE})"),
    re.compile(rf"\bnew\s+(?:WebSocket|EventSource)\s*\(\s*{QUOTE}({ABSOLUTE})"),
    re.compile(rf"\.open\s*\(\s*{QUOTE}[A-Za-z]+{QUOTE}\s*,\s*{QUOTE}({ABSOLUTE})"),  # XHR
    re.compile(rf"\.(?:src|srcset)\s*=\s*{QUOTE}({ABSOLUTE})"),  # element.src = "…"
    re.compile(rf"setAttribute\(\s*{QUOTE}(?:src|srcset|href){QUOTE}\s*,\s*{QUOTE}({ABSOLUTE})"),
    re.compile(  # React: createElement("img", {src: "…"}) and the like
        rf"createElement\(\s*{QUOTE}(?:script|link|img|iframe|source|video|audio|embed|object)"
        rf"{QUOTE}\s*,\s*\{{[^}}]*?\b(?:src|srcSet|href)\s*:\s*{QUOTE}({ABSOLUTE})"
    ),
    re.compile(rf"\burl\(\s*[\"']?({ABSOLUTE})"),  # CSS, also inside JS strings
    re.compile(rf"@import\s+(?:url\(\s*)?[\"']?({ABSOLUTE})"),
]


def fetched_urls(text: str) -> list[str]:
    """The absolute URLs a script or style sheet would fetch."""
    return [match.group(1) for pattern in FETCHES for match in pattern.finditer(text)]


@pytest.mark.parametrize(
    "code",
    [
        'import("https://cdn.example/x.js")',
        "import {a} from 'https://cdn.example/a.mjs'",
        'import "//cdn.example/side-effect.js"',
        "fetch(`https://api.example/q`)",
        "importScripts('https://cdn.example/w.js')",
        'new Worker("https://cdn.example/w.js")',
        'new WebSocket("wss://push.example/")',
        'x.open("GET", "https://api.example/")',
        'img.src = "https://img.example/p.png"',
        'el.setAttribute("src", "//cdn.example/a.js")',
        'React.createElement("script", {async: true, src: "https://cdn.example/s.js"})',
        'h("link",1);React.createElement("link", {rel: "stylesheet", href: "https://c.example/c.css"})',
        ".a{background:url(https://img.example/bg.png)}",
        '.b{background:url( "//img.example/bg.png" )}',
        '@import url("https://fonts.example/css");',
        "@import 'https://fonts.example/css';",
    ],
)
def test_the_scan_finds_fetches(code: str) -> None:
    assert fetched_urls(code), code


@pytest.mark.parametrize(
    "code",
    [
        "/*! license: MIT, see https://github.com/x/y */",
        "// docs: https://reactjs.org/link/warning-keys\nvar a = 1;",
        'warn("See https://reactjs.org/link/special-props for more")',
        'createElement("svg", {xmlns: "http://www.w3.org/2000/svg"})',
        'createElement("a", {href: "https://codemirror.net/5/doc/manual.html"}, "keymaps")',
        ".font{src:url(data:font/woff2;base64,AAAA)}",
        'url("graphiql/static/vendor/x.css")',
        'fetch(url, {method: "POST"})',
    ],
)
def test_the_scan_lets_text_be(code: str) -> None:
    assert fetched_urls(code) == [], code


class References(HTMLParser):
    """The URLs an HTML page refers to, and the text of its inline scripts and styles."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._tag: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag = tag
        for name, value in attrs:
            if name in FETCHING_ATTRIBUTES and value:
                self.urls.extend(part.split()[0] for part in value.split(",") if part.strip())
            if name == "style" and value:
                self.inline.append(value)
            if name == "http-equiv" and value and value.lower() == "refresh":
                self.inline.append("meta refresh")

    def handle_data(self, data: str) -> None:
        if self._tag in ("script", "style") and data.strip():
            self.inline.append(data)

    def handle_endtag(self, tag: str) -> None:
        self._tag = None


def is_outside(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme not in ("", "data") or bool(parts.netloc)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    settings = Settings(
        home=tmp_path_factory.mktemp("graphiql"), store_url="falkordb://127.0.0.1:1"
    )
    with TestClient(create_app(settings), base_url=BASE) as client:
        yield client


def test_the_page_refers_to_nothing_outside_and_has_no_inline_code(app: TestClient) -> None:
    page = app.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "<title>graphmem GraphiQL</title>" in page.text
    refs = References()
    refs.feed(page.text)
    assert len(refs.urls) >= 8  # 3 style sheets, 5 scripts, the icon
    assert [url for url in refs.urls if is_outside(url)] == []
    assert refs.inline == []  # the policy allows scripts from the server only


def test_the_page_keeps_the_browser_on_this_server(app: TestClient) -> None:
    policy = app.get("/graphql", headers={"Accept": "text/html"}).headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["script-src"] == "'self'"
    assert directives["connect-src"] == "'self'" and directives["frame-ancestors"] == "'none'"


def test_every_file_the_page_loads_is_served_and_fetches_nothing_outside(app: TestClient) -> None:
    page_url = f"{BASE}/graphql"
    refs = References()
    refs.feed(app.get(page_url, headers={"Accept": "text/html"}).text)
    kinds = {".js": "javascript", ".css": "text/css"}
    checked = []
    for ref in refs.urls:
        if ref.startswith("data:"):
            continue
        url = urljoin(page_url, ref)
        response = app.get(url)
        assert response.status_code == 200, url
        kind = kinds[Path(urlsplit(url).path).suffix]
        assert kind in response.headers["content-type"], url
        assert fetched_urls(response.text) == [], url
        relative = (
            re.findall(r"""url\(\s*["']?([^"')]+)""", response.text) if kind == "text/css" else []
        )
        for inner in relative:  # what a style sheet loads beside it (fonts are data: URLs)
            if not inner.startswith("data:"):
                assert app.get(urljoin(url, inner)).status_code == 200, (url, inner)
        checked.append(urlsplit(url).path)
    assert sorted(checked) == sorted(
        [
            f"/graphiql/static/vendor/{name}"
            for name in (
                "graphiql.min.css",
                "plugin-explorer.css",
                "react.production.min.js",
                "react-dom.production.min.js",
                "graphiql.min.js",
                "plugin-explorer.umd.js",
            )
        ]
        + ["/graphiql/static/start.css", "/graphiql/static/start.js"]
    )


def test_the_vendored_files_are_as_built_small_and_licensed() -> None:
    """SHA256SUMS is written by tools/graphiql/update; a hand edit would show here."""
    sums = [line.split("  ") for line in (VENDOR / "SHA256SUMS").read_text().splitlines()]
    assert {name for _, name in sums} == {p.name for p in VENDOR.iterdir()} - {"SHA256SUMS"}
    for digest, name in sums:
        data = (VENDOR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
        assert len(data) <= MAX_FILE, name
    licences = (VENDOR / "THIRD-PARTY-LICENSES.txt").read_text()
    for package in (
        "graphiql@3.8.3",
        "react@18.2.0",
        "react-dom@18.2.0",
        "@graphiql/plugin-explorer@1.0.2",
        "graphiql-explorer@0.9.0",
        "graphql@16.9.0",
        "codemirror@",
    ):
        assert f"\n  {package}" in licences, package
    assert "Permission is hereby granted, free of charge" in licences  # the MIT text itself
