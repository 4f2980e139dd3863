"""What lets players trust nobody (docs/audit.md, "What you must trust, and what you need not"):
the seed's strength, the join moves of a fair deal, and witnesses.

* :func:`seed_bits` and :func:`check_seed`: a seed given with ``new --seed`` must not be
  guessable (about 128 bits by the documented estimate), unless ``--insecure-seed``.
* :func:`join_listing`: the join move ``moves --player P`` offers in the join phase.
* :func:`read_witness` and :func:`check_witness`: a saved view or mail holds the record's chain
  digest after its last move; ``verify --witness`` checks that the record still holds it.

Pure functions apart from reading a witness file.
"""

from __future__ import annotations

import math
import re
import string
from typing import NamedTuple

from rebis_pbm.errors import InputError, UsageError

MIN_SEED_BITS = 128

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


def check_seed(seed: str, insecure: bool) -> None:
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


# --- joins -----------------------------------------------------------------------------------

def join_listing(game: str, player: str, fmt: str = "yaml", lang: str | None = None,
                 header_sha256: str | None = None) -> str:
    """``player``'s join move, with 128 bits of fresh random entropy, as a move file naming the
    game's ``header_sha256`` when given; its comments in ``lang`` (the
    player's, default English), saying they may choose their language with ``lang:`` (en, fr or
    pt)."""
    import json
    import secrets

    from rebis_pbm.present.i18n import N_, gettext_for
    entropy = secrets.token_hex(16)
    bound = {} if header_sha256 is None else {"header_sha256": header_sha256}
    if fmt == "json":
        return json.dumps([{"game": game, "player": player, **bound, "join": entropy}],
                          indent=2) + "\n"
    comments = gettext_for(lang)(N_(
        "Your join: the deal mixes your entropy with the referee's seed and the other\n"
        "players' (docs/shuffle.md). This one was drawn at random; you may write your own\n"
        "text instead. Add  key: <your ssh public key line>  to require signed moves.\n"
        "Add  lang: en, fr or pt  to be spoken to in English, French or Portuguese."))
    return ("".join(f"# {line}\n" for line in comments.splitlines())
            + f"game: {game}\nplayer: {player}\n"
            + "".join(f"header_sha256: {h}\n" for h in bound.values()) + f"join: {entropy}\n")


# --- witnesses -------------------------------------------------------------------------------

class Witness(NamedTuple):
    """What a saved view or mail witnessed: game ``game`` had ``move`` moves recorded and its
    chain digest after the last entry was ``chain_sha256``; ``source`` names the file."""

    game: str
    move: int
    chain_sha256: str
    source: str


# in each language a text view is written in (present/text.py): English, French, Portuguese
WITNESS_LINE = re.compile(
    r"(?:Witness|T\u00e9moin\u00a0?|Testemunha): (?:game|partie|jogo) "
    r"(?P<game>[A-Za-z0-9][A-Za-z0-9_.-]{0,63}), (?:move|coup|lance) (?P<move>\d{1,6}), "
    r"chain_sha256 (?P<digest>[0-9a-f]{64})")


def read_witness(path: str) -> Witness:
    """The witness in a saved view (YAML, JSON or text) or a saved mail (.eml).

    Raises:
        InputError: the file cannot be read or holds no witness (exit 2).
    """
    from rebis_pbm.files.atomic import read_input
    from rebis_pbm.formats.yaml_reader import load_yaml
    data, source = read_input(path, kind="witness")
    texts = [data]
    if re.match(rb"^[A-Za-z-]+: ", data) and b"\n\n" in data.replace(b"\r\n", b"\n"):
        import email
        from email import policy

        message = email.message_from_bytes(data, policy=policy.default)
        for part in message.walk():
            if part.get_content_maintype() == "text" or part.get_filename():
                payload = part.get_payload(decode=True)
                if payload:
                    texts.append(payload)
    for text in texts:
        try:
            doc = load_yaml(text, source=source, kind="view").data
            w = doc.get("witness") if isinstance(doc, dict) else None
            if isinstance(w, dict) and {"game", "move", "chain_sha256"} <= set(w):
                return Witness(str(w["game"]), int(w["move"]), str(w["chain_sha256"]), source)
        except Exception:
            pass
        found = WITNESS_LINE.search(text.decode("utf-8", "replace"))
        if found:
            return Witness(found["game"], int(found["move"]), found["digest"], source)
    raise InputError("holds no witness: give a view saved from rebis-pbm (YAML or text) or a "
                     "mail from the referee, which carry a line 'Witness: game ..., move ..., "
                     "chain_sha256 ...'", source=source)


def check_witness(record, witness: Witness) -> str | None:
    """None when ``record`` holds ``witness`` (its digest at its move), else one sentence."""
    if witness.game != record.game:
        return (f"{witness.source} is a witness of game {witness.game}, not of game "
                f"{record.game}")
    if witness.move == 0:
        held = {record.header_sha256} | {j.chain_sha256 for j in record.joins}
        ok = witness.chain_sha256 in held
    elif witness.move <= len(record.moves):
        ok = record.links[witness.move - 1].chain_sha256 == witness.chain_sha256
    else:
        return (f"{witness.source} saw game {record.game} at move {witness.move}, but the record "
                f"holds only {len(record.moves)} moves: it was cut short")
    if ok:
        return None
    return (f"{witness.source} saw chain digest {witness.chain_sha256} at move {witness.move}, "
            f"but the record holds another there: the record was rewritten since")
