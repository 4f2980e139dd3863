"""What verify tells a reader beyond a record's own consistency (docs/audit.md, "Attacks and
defences"): that it names no referee key, or that its seed was never secret.

Once a game's seed is revealed, everything a record holds is public, and a record rebuilt from
it contradicts nothing in itself: what vouches for it is the referee's key, which the reader
names (``verify --referee-pub``, ``league --referee-pub``:
:func:`rebis_pbm.record.audit.pin_referee`); a record without one is said so
(:data:`NO_REFEREE_KEY`). A revealed secret whose salt is the seed's own
(``new --insecure-seed``) says the hands could be computed by whoever guessed the seed
(:func:`insecure`).
"""

from __future__ import annotations

from rebis_pbm.record.model import BEFORE_V3, Record

__all__ = ["INSECURE_SEED", "NO_REFEREE_KEY", "insecure"]

# The line of a rebis-pbm/4 or later record without a referee key (issue 27: a spectator strips
# a finished game's key and entries, and rebuilds it as a game ended before the deal)
NO_REFEREE_KEY = ("Referee key: none: the referee signed nothing in this record (its acts, its "
                  "moves for players, its witness); once its seed is revealed anyone can write "
                  "such a record, so check it against the game you know, or give the referee's "
                  "published key with verify --referee-pub FILE.")


# The line of a revealed record whose salt is its seed's own (docs/shuffle.md, section 8)
INSECURE_SEED = ("Seed: given with --insecure-seed (its salt is derived from it): whoever "
                 "guessed the seed could compute every hand before the end, so this game was "
                 "not played in secret.")


def insecure(record: Record) -> bool:
    """Whether ``record`` reveals a secret whose salt is its seed's own (``new --insecure-seed``,
    :func:`~rebis_pbm.record.digests.insecure_salt`): known only once the seed is revealed."""
    from rebis_pbm.record.digests import insecure_salt, unsalted
    if record.seed is None or record.format in BEFORE_V3:
        return False
    try:
        seed, salt = unsalted(record.seed)
    except ValueError:
        return False
    return salt == insecure_salt(seed)
