"""How hard a seed is to guess: a seed given with ``new --seed`` must not be guessable (about
128 bits by the documented estimate of docs/audit.md, "Seed commitment"), unless
``--insecure-seed``.

* :func:`seed_bits`: the estimate of a seed's entropy in bits.
* :func:`check_seed_strength`: refuses a guessable seed (the seed's commitment in the record is
  checked by :func:`rebis_pbm.record.model.check_seed`).
"""

from __future__ import annotations

import math
import string
from typing import Final

from rebis_pbm.errors import UsageError

__all__ = ["MIN_SEED_BITS", "check_seed_strength", "seed_bits"]

MIN_SEED_BITS: Final = 128

_CLASSES = ((string.ascii_lowercase, 26), (string.ascii_uppercase, 26), (string.digits, 10),
            (string.punctuation + " ", 33))


def seed_bits(seed: str) -> float:
    """The documented estimate of a seed's entropy in bits (docs/audit.md, "Seed commitment"):
    its length times log2 of the alphabet made of the character classes it uses (lower-case
    letters 26, upper-case 26, digits 10, ASCII punctuation and space 33, anything else 1000);
    0 for digits alone (a number), for letters alone (words) and for fewer than 10 different
    characters, which people choose rather than draw.

    >>> round(seed_bits("0123456789abcdef" * 2))  # 32 hex digits, as new draws them
    165
    >>> seed_bits("42"), seed_bits("correcthorsebatterystaple")
    (0, 0)
    """
    if not seed or seed.isdigit() or seed.isalpha() or len(set(seed)) < 10:
        return 0
    alphabet = sum(size for chars, size in _CLASSES if any(c in chars for c in seed))
    if any(not c.isascii() for c in seed):
        alphabet += 1000
    return len(seed) * math.log2(alphabet)


def check_seed_strength(seed: str, insecure: bool) -> None:
    """Refuse a guessable seed unless ``insecure``.

    Raises:
        UsageError: the seed is empty, or :func:`seed_bits` gives under 128 bits and not
            ``insecure`` (option ``--seed``, exit 2).
    """
    if seed == "":
        raise UsageError("the seed cannot be empty", "--seed")
    if not insecure and seed_bits(seed) < MIN_SEED_BITS:
        raise UsageError(f"this seed can be guessed (about {seed_bits(seed):.0f} bits by the "
                         f"estimate of docs/audit.md, {MIN_SEED_BITS} needed), and whoever "
                         f"guesses it knows every hand; leave --seed out for a random one, or "
                         f"add --insecure-seed for a test or an example", "--seed")
