"""docs/api.md's examples run as written (doctest), in a fresh folder: the Python API a program
uses is the one the page shows."""

from __future__ import annotations

import doctest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_api_page_examples_hold(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("REBIS_PBM_SEED", "REBIS_PBM_LOCK_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    result = doctest.testfile(str(REPO / "docs" / "api.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS, raise_on_error=False, verbose=False)
    assert result.attempted >= 15, result  # the page's examples were found
    assert result.failed == 0, result
