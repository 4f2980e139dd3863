"""The canonical form and the digests against the test vectors of docs/audit.md.

The vectors are read from the page itself, so the page and the code cannot drift apart. Each
vector's digest is also recomputed here with hashlib/hmac from the page's canonical text, which
checks the page on its own (its digests were computed with sha256sum and openssl).
"""

import hashlib
import hmac
import json
import re
import unicodedata
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
    assert set(VECTORS) == {"canonical-move", "canonical-text", "canonical-names",
                            "canonical-utf16", "header", "state", "chain"}
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
    1.5, {"a": 0.0}, [float("nan")], {1: "x"}, 2**53, -(2**53), {"a": {1, 2}}, b"x",
    "\ud800", {"\ud800": 1}, {"é": {"a\udc00": 1}}, [{"José": "\udfff"}],
])
def test_canonical_refuses_what_it_cannot_write_one_way(value):
    with pytest.raises(ValueError):
        canonical(value)


def test_canonical_accepts_the_integer_bounds_and_tuples():
    assert canonical([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"
    assert canonical((1, (2,))) == b"[1,[2]]"


def utf16_units(key: str) -> list[int]:
    """RFC 8785's sort key, written apart from the code under test: the key's UTF-16 code units,
    a character above U+FFFF as its surrogate pair (RFC 2781, section 2.1)."""
    units = []
    for char in key:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            units += [0xD800 + (point >> 10), 0xDC00 + (point & 0x3FF)]
        else:
            units.append(point)
    return units


def canonical_apart(value) -> str:
    """The canonical text of a JSON value by a separate small writer: keys in UTF-16 order,
    text escaped as RFC 8785 does; the vectors with keys that are not ASCII are checked against
    it, not against the page's text alone."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                 "\f": "\\f", "\r": "\\r"}
        return '"' + "".join(short.get(c) or (f"\\u{ord(c):04x}" if c < " " else c)
                             for c in value) + '"'
    if isinstance(value, list):
        return "[" + ",".join(map(canonical_apart, value)) + "]"
    return "{" + ",".join(canonical_apart(key) + ":" + canonical_apart(value[key])
                          for key in sorted(value, key=utf16_units)) + "}"


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_each_vector_matches_a_separate_writer_in_utf16_order(name):
    blocks = VECTORS[name]
    assert canonical_apart(json.loads(blocks["value"])) == blocks["canonical"]


def test_the_utf16_vector_parts_from_code_point_order():
    """The vector would catch an implementation sorting by code points (Python's sort_keys)."""
    value = json.loads(VECTORS["canonical-utf16"]["value"])
    by_points = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    assert by_points != VECTORS["canonical-utf16"]["canonical"]
    assert canonical(value).decode("utf-8") == VECTORS["canonical-utf16"]["canonical"]


def test_the_names_vector_is_the_record_document_of_accented_names():
    from rebis_pbm.record.digests import record_digest, record_document
    value = json.loads(VECTORS["canonical-names"]["value"])
    assert all(unicodedata.normalize("NFC", name) == name for name in value["addresses"])
    document = record_document(value["header_sha256"], value["chain_sha256"], None,
                               value["addresses"], False, value["langs"])
    assert document == value
    assert record_digest(VECTORS["canonical-names"]["key"], document) == \
        VECTORS["canonical-names"]["hmac-sha256"]


@pytest.mark.parametrize("keys", [
    ["B", "_", "a", "a1", "a\x7f", "~", ""], ["ana", "bruno", "carl", "Ana", "ana_b-2"],
    [chr(c) for c in range(128)], [chr(a) + chr(b) for a in range(0, 128, 7) for b in range(128)],
])
def test_ascii_keys_sort_as_before(keys):
    """docs/audit.md, "Canonical form": for ASCII keys UTF-16 order is byte order, so every
    document of ASCII keys (every archived record) digests as before non-ASCII keys came."""
    ascii_keys = [key for key in keys if key.isascii()]
    assert sorted(ascii_keys, key=utf16_units) == sorted(ascii_keys, key=str.encode)
    value = {key: i for i, key in enumerate(ascii_keys)}
    assert canonical(value) == json.dumps(value, ensure_ascii=False, sort_keys=True,
                                          separators=(",", ":")).encode()
