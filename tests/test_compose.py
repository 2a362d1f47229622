"""docker-compose.yml, read as the neo4j:5 image and compose will (no Docker engine needed)."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_neo4j_gets_no_env_it_would_take_for_config() -> None:
    # the image turns NEO4J_* variables into neo4j.conf settings and refuses unknown ones
    env = COMPOSE["services"]["neo4j"]["environment"]
    assert [key for key in env if key.startswith("NEO4J_")] == ["NEO4J_AUTH"]
    assert env["NEO4J_AUTH"].startswith("neo4j/${NEO4J_PASSWORD:?")


def test_healthcheck_uses_the_compose_time_password() -> None:
    test = COMPOSE["services"]["neo4j"]["healthcheck"]["test"]
    assert test[0] == "CMD" and "cypher-shell" in test
    assert test[test.index("-u") + 1] == "neo4j"
    assert test[test.index("-p") + 1] == "${NEO4J_PASSWORD}"
    assert not any("$$" in part for part in test), "no container-time variables"


def test_api_waits_for_a_healthy_neo4j_and_uses_its_credentials() -> None:
    api = COMPOSE["services"]["api"]
    assert api["depends_on"]["neo4j"]["condition"] == "service_healthy"
    env = api["environment"]
    assert env["GRAPHMEM_STORE"] == "bolt://neo4j:7687"
    assert env["NEO4J_USER"] == "neo4j" and env["NEO4J_PASSWORD"] == "${NEO4J_PASSWORD}"


def test_api_image_installs_cpu_torch() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu" in dockerfile


def test_api_without_a_token_is_published_on_the_hosts_loopback_only() -> None:
    """`--insecure` serves 0.0.0.0 without a token: only through a port on 127.0.0.1."""
    api = COMPOSE["services"]["api"]
    assert "--insecure" in api["command"]
    assert api["ports"] == ["127.0.0.1:8000:8000"]
    hosts = api["environment"]["GRAPHMEM_ALLOWED_HOSTS"].split(",")
    assert {"localhost", "api"} <= set(hosts)
