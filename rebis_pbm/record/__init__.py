"""The game record and its secret: what a game is on disk (docs/formats.md, docs/audit.md).

One module per concern:

* :mod:`.model`: the record in memory (:class:`Record`, its entries, :class:`Replay`);
* :mod:`.digests`: the canonical form and every digest, the seed's commitment, the seals;
* :mod:`.codec`: the record's text, written (:func:`dump_record`) and read (:func:`parse_record`);
* :mod:`.verify`: the checks every read runs (:func:`walk`, :func:`check_status`) and the one
  read path with the seed (:func:`read_game`);
* :mod:`.secret`: where the seed is kept until the end (the secret file, ``REBIS_PBM_SEED``);
* :mod:`.audit`: ``verify``'s report for people (imported on demand).
"""

from rebis_pbm.errors import CorruptRecord, SeedError
from rebis_pbm.files.names import secret_path
from rebis_pbm.record.codec import HEADER, dump_record, parse_record
from rebis_pbm.record.digests import (
    SEAL_DOMAIN,
    commitment,
    salted,
    seal_card,
    seed_commitment,
    unsalted,
)
from rebis_pbm.record.model import (
    BEFORE_V3,
    FAIR_DEAL,
    FORMAT,
    FORMATS,
    REFEREE_DEAL,
    Join,
    Link,
    Proof,
    Record,
    Replay,
    SealedMove,
    ascii_lower,
    check_seed,
    closes_shelf,
    entry_from_dict,
    status,
)
from rebis_pbm.record.secret import SEED_ENV, dump_secret, find_seed, read_secret
from rebis_pbm.record.verify import (
    CODES,
    Problem,
    ProblemCode,
    Walk,
    check_header,
    check_status,
    read_checked,
    read_game,
    replay_record,
    walk,
)

__all__ = [
    "BEFORE_V3",
    "CODES",
    "FAIR_DEAL",
    "FORMAT",
    "FORMATS",
    "HEADER",
    "REFEREE_DEAL",
    "SEAL_DOMAIN",
    "SEED_ENV",
    "CorruptRecord",
    "Join",
    "Link",
    "Problem",
    "ProblemCode",
    "Proof",
    "Record",
    "Replay",
    "SealedMove",
    "SeedError",
    "Walk",
    "ascii_lower",
    "check_header",
    "check_seed",
    "check_status",
    "closes_shelf",
    "commitment",
    "dump_record",
    "dump_secret",
    "entry_from_dict",
    "find_seed",
    "parse_record",
    "read_checked",
    "read_game",
    "read_secret",
    "replay_record",
    "salted",
    "seal_card",
    "secret_path",
    "seed_commitment",
    "status",
    "unsalted",
    "walk",
]
