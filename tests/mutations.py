"""Mutations of move documents, shared by the fuzz tests of `apply` (test_cli_fuzz.py) and the
agreement tests of the two schema validators (test_schemas_fast.py)."""

from __future__ import annotations

import copy

from hypothesis import strategies as st

WORDS = ["alice", "bob", "carol", "zed", "positive", "negative", "-", "+", "no", "yes", "off",
         "010", "0x1F", "2024-05-01", "1:30", "~", "", " ", "fuzz", "é", "\t", "*a", "&a", "!!str",
         "[", "{", "---", "\ufeff", "1e3", ".inf"]
VALUES = st.one_of(
    st.integers(min_value=-3, max_value=15),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
    st.sampled_from(WORDS),
    st.text(max_size=8),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.lists(st.integers(min_value=0, max_value=12), max_size=3),
    st.dictionaries(st.sampled_from(["player", "shelf", "cards", "sign", "x"]),
                    st.integers(min_value=0, max_value=12), max_size=3),
)
# Fields a mutation may add: real ones (so that a document gains a second form) and misspelt ones.
ADDED_FIELDS = ["turn", "tunr", "golden_dust", "gold_token", "red_token", "play", "extra"]


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _paths(value, prefix + (index,))


def _get(doc, path):
    for part in path:
        doc = doc[part]
    return doc


def mutate(draw, doc: dict, values=VALUES) -> dict:
    """A deep copy of ``doc`` with one to three values set (to a draw of ``values``), deleted or
    added, at any depth (``draw``: a hypothesis ``st.composite`` draw)."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = [p for p in _paths(doc) if p]
        action = draw(st.sampled_from(["set", "set", "delete", "add"]))
        if not paths or not isinstance(doc, dict):
            break
        path = draw(st.sampled_from(paths))
        parent = _get(doc, path[:-1])
        if action == "set":
            parent[path[-1]] = draw(values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(ADDED_FIELDS))] = draw(values)
    return doc
