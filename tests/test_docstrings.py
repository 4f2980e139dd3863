"""The examples in public docstrings are run, so that they cannot drift from the code."""

import doctest
import importlib
import pkgutil

import pytest

import rebis_pbm

MODULES = sorted(m.name for m in pkgutil.walk_packages(rebis_pbm.__path__, "rebis_pbm."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed"


def test_the_engine_docstrings_have_examples():
    # Guards the test above against collecting nothing.
    examples = sum(doctest.testmod(importlib.import_module(n)).attempted for n in MODULES)
    assert examples >= 8
