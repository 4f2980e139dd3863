"""The project's documented shuffle (docs/shuffle.md): Fisher-Yates driven by SHA-256.

It depends neither on Python's ``random`` module nor on the Python version, so that any
implementation in any language deals the same cards from the same seed (R5).

Byte stream: block ``i`` (i = 0, 1, 2, ...) is
``SHA-256(domain || uint32be(len(seed)) || seed || uint64be(i))`` where ``seed`` is the seed's UTF-8
bytes and ``domain`` an ASCII label (``rebis-pbm/shuffle/v1`` for the deck, ``rebis-pbm/seats/v1``
for a seat order drawn from the seed). The blocks are concatenated and read as big-endian unsigned
32-bit words. ``uniform(n)`` takes words until one is below ``2**32 - 2**32 % n`` (rejection
sampling: no index is favoured) and returns it modulo ``n``. Durstenfeld's Fisher-Yates then runs
``for i from n-1 down to 1: j = uniform(i + 1); swap(a[i], a[j])``.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

DECK_DOMAIN = b"rebis-pbm/shuffle/v1"
SEATS_DOMAIN = b"rebis-pbm/seats/v1"


_BLOCK_WORDS = struct.Struct(">8I")  # one SHA-256 block = eight big-endian uint32 words


def _words(domain: bytes, seed: str) -> Iterator[int]:
    key = seed.encode("utf-8")
    prefix = domain + len(key).to_bytes(4, "big") + key
    counter = 0
    while True:
        yield from _BLOCK_WORDS.unpack(hashlib.sha256(prefix + counter.to_bytes(8, "big")).digest())
        counter += 1


def shuffled(items: Sequence[T], seed: str, domain: bytes = DECK_DOMAIN) -> tuple[T, ...]:
    """Return ``items`` shuffled by the documented algorithm; index 0 is the top of the deck.

    Args:
        items: the sequence in its starting order (for the deck: cards sorted by number).
        seed: the game's seed, any text.
        domain: which stream to use (deck or seats); different domains give unrelated orders.

    >>> shuffled(range(10), "example")
    (0, 3, 5, 2, 7, 4, 9, 8, 1, 6)
    """
    words = _words(domain, seed)
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        n = i + 1
        bound = 2**32 - 2**32 % n
        word = next(words)
        while word >= bound:
            word = next(words)
        j = word % n
        result[i], result[j] = result[j], result[i]
    return tuple(result)


def seat_order(players: Sequence[str], seed: str) -> tuple[str, ...]:
    """A seat order drawn from the seed, for a creator who asks for one (R5)."""
    return shuffled(players, seed, SEATS_DOMAIN)


FAIR_DEAL_DOMAIN = "rebis-pbm/fair-deal/v2"


def fair_deal_seed(seed: str, entropy: Sequence[tuple[str, str]]) -> str:
    """The text a fair deal shuffles from (docs/shuffle.md, "Fair deal"): lower-case hex
    SHA-256 of the UTF-8 JSON text ``{"domain":"rebis-pbm/fair-deal/v2","players":[[NAME,
    ENTROPY], ...],"seed":SEED}`` (keys sorted, no whitespace, non-ASCII as is), the players in
    seat order with the entropy of their join; SEED is the referee's whole secret (``SALT:SEED``
    in a rebis-pbm/2 record). The referee committed to it before any join, and no player knows
    it: nobody can steer the deal alone.

    >>> fair_deal_seed("s", [("ann", "a"), ("ben", "b")])[:16]
    '7753c169f853c206'
    """
    import json

    text = json.dumps({"domain": FAIR_DEAL_DOMAIN, "players": [list(p) for p in entropy],
                       "seed": seed}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
