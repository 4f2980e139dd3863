"""What a reader checks of a record beyond its own consistency (docs/audit.md, "Attacks and
defences"): the referee key they trust, and whether the game's seed was ever secret.

Once a game's seed is revealed, everything a record holds is public, and a record rebuilt from
it contradicts nothing in itself: what vouches for it is the referee's key, which the reader
names (``verify --referee-pub``, ``league --referee-pub``: :func:`pin_referee`). A revealed
secret whose salt is the seed's own (``new --insecure-seed``) says the hands could be computed
by whoever guessed the seed (:func:`insecure`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.record.model import BEFORE_V3, Record
from rebis_pbm.record.verify import Problem

if TYPE_CHECKING:
    from rebis_pbm.record.audit import Report

__all__ = ["INSECURE_SEED", "NO_REFEREE_KEY", "insecure", "pin_referee"]

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


def pin_referee(report: Report, expected: str) -> Report:
    """``report`` failed (code ``referee``) unless its record is signed by the referee key of
    fingerprint ``expected`` (``verify --referee-pub``, ``league --referee-pub``; docs/audit.md): a
    record with no referee key, or another, is not the referee's whom the reader trusts,
    whatever else it passes. A report that failed already is left as it is."""
    if report.problem is not None or report.referee_key == expected:
        return report
    found = report.referee_key or "none"
    report.problem = Problem(
        "referee", f"the record is not signed by the referee key you named ({expected}): "
        + ("it names no referee key, so nobody vouches for its acts and witness"
           if report.referee_key is None else f"it names another referee key ({found})"),
        expected=expected, found=found)
    return report
