"""The canonical form and the digests against the test vectors of docs/audit.md.

The vectors are read from the page itself, so the page and the code cannot drift apart. Each
vector's digest is also recomputed here with hashlib/hmac from the page's canonical text, which
checks the page on its own (its digests were computed with sha256sum and openssl).
"""

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest

from rebis_pbm.engine import DEALT, Phase, Ruleset, Shelf, ShelfCard, State, Supply
from rebis_pbm.record import seed_commitment
from rebis_pbm.record.digests import (
    canonical,
    chain_digest,
    header_digest,
    header_document,
    state_digest,
    state_document,
)

FORMAT = "rebis-pbm/1"  # these tests check the rebis-pbm/1 digests (tests/test_trust.py: /2)

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit.md"
BLOCK = re.compile(r"^```(json|text) ([a-z0-9-]+)\n(.*?)\n```$", re.M | re.S)


def vectors() -> dict[str, dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    found = {}
    for section in re.split(r"^### Vector ", text, flags=re.M)[1:]:
        name = section.split("\n", 1)[0].strip()
        found[name] = {label: body for _, label, body in BLOCK.findall(section)}
    return found


VECTORS = vectors()


def test_the_page_has_the_vectors_the_tests_expect():
    assert set(VECTORS) == {"canonical-move", "canonical-text", "header", "state", "chain"}
    for name, blocks in VECTORS.items():
        assert {"value", "canonical"} <= set(blocks), name
        assert ("sha256" in blocks) != ("hmac-sha256" in blocks), name


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_canonical_form_of_each_vector(name):
    blocks = VECTORS[name]
    assert canonical(json.loads(blocks["value"])) == blocks["canonical"].encode("utf-8")


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_each_vector_digest_matches_its_canonical_text(name):
    blocks = VECTORS[name]
    data = blocks["canonical"].encode("utf-8")
    if "sha256" in blocks:
        assert hashlib.sha256(data).hexdigest() == blocks["sha256"]
    else:
        key = blocks["key"].encode("utf-8")
        assert hmac.new(key, data, hashlib.sha256).hexdigest() == blocks["hmac-sha256"]


def test_header_vector():
    value = json.loads(VECTORS["header"]["value"])
    assert value["seed_sha256"] == seed_commitment("vector seed")
    args = ("rebis-pbm/1",  # the vectors are of a rebis-pbm/1 header (docs/audit.md)
             "vec-1", Ruleset(), ("ann", "ben"), seed_commitment("vector seed"))
    assert header_document(*args) == value
    assert header_digest(*args) == VECTORS["header"]["sha256"]


def vector_state(phase: str = "play") -> State:
    """The state the page describes, built field by field from its prose."""
    ruleset = Ruleset(deck=((1, 3), (2, 2), (3, 2)), golden_dust=1, gold=1, red=1, hand_size=1)
    return State(
        ruleset=ruleset,
        players=("ann", "ben"),
        order=(3, 1, 2, 2, 1, 3, 1),
        deck_pos=6,
        hands=((1,), (2, 3)),
        shelves=((Shelf((ShelfCard(3, 0, DEALT), ShelfCard(2, 1, 0))),),
                 (Shelf((ShelfCard(1, 0, DEALT),)),)),
        reserves=(0, 0),
        supply=Supply(1, 1, 1),
        turn=2, phase=phase, to_move=1, drawn=3, last_mover=0, end_reason=None,
    )


@pytest.mark.parametrize("phase", ["play", Phase.PLAY], ids=["text", "enum"])
def test_state_vector(phase):
    """The engine's phase is an enum member equal to its word: the same document, same digest."""
    blocks = VECTORS["state"]
    assert blocks["key"] == "vector seed"
    assert state_document(vector_state(phase)) == json.loads(blocks["value"])
    assert state_digest(vector_state(phase), "vector seed") == blocks["hmac-sha256"]


def test_state_digest_is_keyed_not_a_plain_hash():
    data = VECTORS["state"]["canonical"].encode("utf-8")
    keyed = state_digest(vector_state(), "vector seed")
    assert keyed != hashlib.sha256(data).hexdigest()
    assert keyed != state_digest(vector_state(), "another seed")


def test_chain_vector():
    value = json.loads(VECTORS["chain"]["value"])
    assert value["prev"] == VECTORS["header"]["sha256"]
    assert value["entry"]["state_hmac"] == VECTORS["state"]["hmac-sha256"]
    assert chain_digest(value["prev"], value["entry"]) == VECTORS["chain"]["sha256"]


@pytest.mark.parametrize("value", [
    1.5, {"a": 0.0}, [float("nan")], {1: "x"}, {"é": 1}, 2**53, -(2**53), {"a": {1, 2}}, b"x",
    "\ud800",
])
def test_canonical_refuses_what_it_cannot_write_one_way(value):
    with pytest.raises(ValueError):
        canonical(value)


def test_canonical_accepts_the_integer_bounds_and_tuples():
    assert canonical([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"
    assert canonical((1, (2,))) == b"[1,[2]]"
