"""The ONNX export the embedding tests share: made once per test session in its own cache dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.embed import DEFAULT_MODEL
from graphmem.embed.export import open_export


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache root holding the verified export of the bundled model.

    A fixed folder under the session's base temp dir: every module importing this fixture gets
    the same export (the first one builds it, the others find it).
    """
    root = tmp_path_factory.getbasetemp() / "onnx-cache"
    open_export(DEFAULT_MODEL, root).close()
    return root
