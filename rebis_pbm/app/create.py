"""Creating a game: players and settings checked; the record, its secret seed, the first views."""

from __future__ import annotations

import contextlib
import os
import unicodedata
from collections.abc import Sequence
from typing import Any, NamedTuple, cast

from rebis_pbm.app.views import check_views_dir, make_views_dir, write_views
from rebis_pbm.engine import Ruleset, State
from rebis_pbm.errors import Failed, InputError, UsageError
from rebis_pbm.files.atomic import PathLike, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import default_views_dir
from rebis_pbm.formats.yaml_reader import clip
from rebis_pbm.present import views as views_mod
from rebis_pbm.record import (
    FAIR_DEAL,
    FORMAT,
    FORMATS,
    REFEREE_DEAL,
    Record,
    Replay,
    ascii_lower,
    commitment,
    dump_record,
    dump_secret,
    salted,
    secret_path,
)
from rebis_pbm.record.model import ASCII_NAMES


def same_name_key(name: str) -> str:
    """What two names that count as the same share: ``name`` without its accents, case-folded
    (José, jose and JOSÉ are one name: they would be one view file on many disks, and one
    player to a reader).

    >>> same_name_key("José") == same_name_key("JOSE"), same_name_key("Zoë")
    (True, 'zoe')
    """
    bare = "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))
    return bare.casefold()


def _foreign_letter(name: str) -> str | None:
    """The first letter of ``name`` that is not of the Latin script (a Cyrillic "\\u0430" that looks
    like a Latin "a"), by its Unicode name; None when every letter is Latin."""
    for c in name:
        if c.isalpha() and not unicodedata.name(c, "").startswith("LATIN "):
            return unicodedata.name(c, f"U+{ord(c):04X}")
    return None


def check_players(players: Sequence[str], addresses: dict[str, str],
                  record_format: str = FORMAT) -> None:
    """Refuse players a game cannot have: not 2 to 4, a name outside the schema's form (letters
    of the Latin script with their accents, in NFC, digits, '_', '-'), a letter of another
    script (a Cyrillic "\\u0430" in a Latin name), the spectator view's name, two names that differ
    only in case or accents, an address shared by two.

    ``record_format``: the format of the record to be written; a format before rebis-pbm/4
    (:data:`~rebis_pbm.record.model.ASCII_NAMES`) holds names in ASCII letters only.

    Raises:
        UsageError: one sentence naming the fault (option ``--player``).
    """
    from rebis_pbm.formats.schemas import defined_pattern
    if not 2 <= len(players) <= 4:
        raise UsageError(f"Rebis is played by 2 to 4 players; give --player 2 to 4 times (got "
                         f"{len(players)})", "--player")
    pattern = defined_pattern("move", "player")
    for name in players:
        foreign = _foreign_letter(name)
        if foreign is not None:
            raise UsageError(f"{clip(name)!r} is not a valid name: it has a letter of another "
                             f"script than the Latin one ({foreign}), which could pass for a "
                             f"Latin letter; write names in Latin letters only", "--player")
        if not pattern.fullmatch(unicodedata.normalize("NFC", name)):
            raise UsageError(f"{clip(name)!r} is not a valid name: a letter, then letters, "
                             f"digits, '_' or '-', at most 32 characters (Latin letters, "
                             f"accents allowed)", "--player")
        if name.casefold() == views_mod.PUBLIC:
            raise UsageError("'public' is the spectator view's name; choose another", "--player")
        if record_format in ASCII_NAMES and not name.isascii():
            raise UsageError(f"{clip(name)!r} is not a valid name in a {record_format} record: "
                             f"names with accents need the record format rebis-pbm/4; write "
                             f"it without accents", "--player")
    if len({same_name_key(name) for name in players}) != len(players):
        # Names become view file names: alice.txt and Alice.txt are one file on many disks.
        raise UsageError("each player needs a different name, and names that differ only in "
                         "upper/lower case or accents count as the same", "--player")
    taken: dict[str, str] = {}
    for name, address in addresses.items():
        if ascii_lower(address) in taken:
            raise UsageError(f"{taken[ascii_lower(address)]} and {name} have the same address "
                             f"{address}; each player needs their own, so that a move's sender "
                             f"tells who sent it", "--player")
        taken[ascii_lower(address)] = name


class Created(NamedTuple):
    """What :func:`create_game` wrote.

    Attributes:
        record: the new record (no move yet).
        state: the state awaiting turn 1.
        record_path, secret_path, views_dir: where the record, the seed and the views are.
    """

    record: Record
    state: State | None
    record_path: str
    secret_path: str
    views_dir: str


def with_lang(langs: dict[str, str], player: str, lang: str) -> dict[str, str]:
    """``langs`` (a record's) with ``player`` spoken to in ``lang``: English is the default,
    so it is not kept."""
    changed = {p: code for p, code in langs.items() if p != player}
    if lang != "en":
        changed[player] = lang
    return changed


def create_game(game: PathLike, players: Sequence[str], *, addresses: dict[str, str] | None = None,
                public_addresses: bool = False, seed: str | None = None,
                ruleset: Ruleset | None = None, game_id: str | None = None,
                random_seats: bool = False, views_dir: PathLike | None = None,
                insecure_seed: bool = False, referee_deal: bool = True,
                keys: dict[str, str] | None = None, deadline: int | None = None,
                missed: str = "bot", now: str | None = None,
                langs: dict[str, str] | None = None, encrypt_views: bool = False,
                referee_recipient: str | None = None, absence: tuple[int, int] | None = None,
                grace: int | None = None, time_zones: dict[str, str] | None = None,
                record_format: str = FORMAT, referee_key: PathLike | None = None) -> Created:
    """Create a game: write the record ``game``, its secret seed beside it, and the first views.

    Args:
        game: the record's path (``game.yaml``); its folder must exist.
        players: 2 to 4 names in seat order (R5); the first plays first.
        addresses: player name -> e-mail address, for play by e-mail (docs/mail.md).
        public_addresses: show the addresses in every view.
        seed: the seed to shuffle from (default: 128 random bits). A guessable seed lets anyone
            compute every hand: refused unless ``insecure_seed``
            (:func:`rebis_pbm.record.seed_strength.check_seed_strength`). The secret adds 128
            random bits of salt, which a rebis-pbm/4 referee deal shuffles in
            (docs/shuffle.md); with ``insecure_seed`` the salt is derived from the seed and the
            deal is the seed's alone (:func:`rebis_pbm.record.digests.insecure_salt`): reproducible.
        ruleset: the game's parameters (default: the rulings', R1-R4).
        game_id: the game's id (default: 40 random bits; it tells nothing of the seed).
        referee_deal: deal at once from the seed alone; False: a fair deal, the game waits for
            every player's join (docs/shuffle.md). The command line's default is the fair deal.
        keys: player -> the text of an OpenSSH public key file (one key or several, one a line):
            that player's moves must be signed (docs/audit.md, "Signed moves").
        random_seats: draw the seat order from the seed (R5).
        views_dir: where the views go (default: :func:`default_views_dir`).
        deadline: seconds each turn has (docs/deadlines.md); None: no deadline.
        missed: the missed-move policy (:func:`rebis_pbm.record.deadlines.parse_policy`).
        now: the creation time (ISO 8601; default the clock), recorded with a deadline.
        langs: player -> language code (``en``, ``fr``, ``pt``;
        :data:`rebis_pbm.present.i18n.LANGUAGES`)
            for what is addressed to that player; default English (docs/views.md, "Languages").
        encrypt_views: every private view is written only encrypted with age to its player's
            key, from the first views on (a game in a public repository, docs/git.md): with the
            referee's deal every player needs a key in ``keys``; in a fair deal, a player
            without one must bring one in their join.
        referee_recipient: the referee's age recipient ``age1...`` (``keygen-referee``), which
            players seal their moves to; recorded in the header, public.
        record_format: the record's format, :data:`~rebis_pbm.record.FORMAT` by default; an
            older salted one (``rebis-pbm/2``, ``rebis-pbm/3``) for tests and archives of how
            such games behave (no command line option: a new game takes today's format).
        referee_key: the referee's OpenSSH private key file (``new --referee-key``): its public
            key is recorded in the header (rebis-pbm/4), and it signs every witness and act of
            the referee's from the first views on (:mod:`rebis_pbm.app.signing`).

    Raises:
        UsageError: bad players, an empty or guessable seed, a malformed game id, a key for no
            player or a key file that holds no key, a language for no player or one that is not
            supported, a recipient that is not an age recipient, or ``encrypt_views`` with a
            player without a key age encrypts to (exit 2).
        Failed: the folder does not exist, or the record or its secret already exists (exit 2).
        OSError: a file cannot be written (nothing is left behind).
    """
    from rebis_pbm.engine import seat_order, setup
    from rebis_pbm.formats.schemas import defined_pattern
    def nfc(name: str) -> str:  # names are kept precomposed (NFC): one spelling on every disk
        return unicodedata.normalize("NFC", name)
    players = [nfc(name) for name in players]
    addresses = {nfc(name): address for name, address in (addresses or {}).items()}
    keys = None if keys is None else {nfc(name): text for name, text in keys.items()}
    langs = None if langs is None else {nfc(name): code for name, code in langs.items()}
    check_players(players, addresses)
    ruleset = ruleset or Ruleset()
    game = os.fspath(game)
    secret_file = secret_path(game)
    folder = os.path.dirname(game) or "."
    if not os.path.isdir(folder):
        raise Failed(f"{folder}: there is no such folder; create it first (nothing was written)")
    import secrets

    from rebis_pbm.crypto.signatures import parse_keys
    from rebis_pbm.record.seed_strength import check_seed_strength
    given_seed = seed is not None
    if seed is None:
        seed = secrets.token_hex(16)
    else:
        check_seed_strength(seed, insecure_seed)
    parsed_keys: dict[str, tuple[str, ...]] = {}
    for name, text in (keys or {}).items():
        if name not in players:
            raise UsageError(f"--key {clip(name)}=FILE: {clip(name)} is not a player (players: "
                             f"{', '.join(players)})", "--key")
        try:
            parsed_keys[name] = parse_keys(text, f"the key file of {name}")
        except ValueError as exc:
            raise UsageError(str(exc), "--key") from None
    encryption = _encryption_settings(players, parsed_keys, referee_deal, encrypt_views,
                                      referee_recipient)
    secret = salted(seed, secrets.token_hex(16))  # the salt: 128 secret random bits
    if insecure_seed and given_seed:
        # A guessable seed deals guessable hands anyway: its salt is derived from it, and a
        # rebis-pbm/4 referee deal is then shuffled from the seed alone, as before (issue 27;
        # Record.deal_seed), so that tests, the demo and the examples stay reproducible.
        from rebis_pbm.record.digests import insecure_salt
        secret = salted(seed, insecure_salt(seed))
    if game_id is None:
        game_id = f"rebis-{secrets.token_hex(5)}"  # random: it tells nothing of the seed
    elif not defined_pattern("move", "game").fullmatch(game_id):
        raise UsageError("use letters, digits, '.', '_' or '-' (at most 64)", "--game-id")
    from rebis_pbm.present.i18n import check_language
    chosen: dict[str, str] = {}
    for name, code in (langs or {}).items():
        if name not in players:
            raise UsageError(f"--lang {clip(name)}={clip(code)}: {clip(name)} is not a player "
                             f"(players: {', '.join(players)})", "--lang")
        chosen = with_lang(chosen, name,
                           check_language(code, given=f"--lang {clip(name)}={clip(code)}"))
    seats = seat_order(players, seed) if random_seats else tuple(players)
    extra: dict[str, Any] = {}
    if deadline is not None:
        from rebis_pbm.record.deadlines import now_text
        extra = {"created": now_text(now), "deadline": deadline, "missed": missed}
    extra.update(encryption)
    extra.update(_absence_settings(deadline, absence, grace))  # rebis-pbm/4 (absences)
    zones = _time_zones(players, time_zones or {})
    if referee_key is not None:  # rebis-pbm/4: the referee signs what it says
        from rebis_pbm.app.signing import public_key_of
        extra["referee_key"] = public_key_of(referee_key)
    if record_format not in FORMATS[1:]:  # rebis-pbm/1 keeps no salt: not made any more
        raise UsageError(f"{record_format!r} is not a record format a new game can take "
                         f"({', '.join(FORMATS[1:])})", "record_format")
    try:
        record = Record(game_id, ruleset, seats, commitment(record_format, secret),
                        addresses=addresses, public_addresses=public_addresses,
                        deal=REFEREE_DEAL if referee_deal else FAIR_DEAL, keys=parsed_keys,
                        header_extra=extra, langs=chosen, time_zones=zones, format=record_format)
    except ValueError as exc:  # a setting an older format cannot hold
        raise UsageError(str(exc), "record_format") from None
    state: State | None = None
    setup_events: tuple[Any, ...] = ()
    try:
        # A rebis-pbm/4 referee deal shuffles the whole secret (Record.deal_seed), as every
        # later read replays it: the first views must show that deal.
        state, setup_events = setup(ruleset, seats,
                                    record.deal_seed(secret) if referee_deal else "check")
    except ValueError as exc:
        raise Failed(str(exc)) from None
    if not referee_deal:
        state, setup_events = None, ()
    if referee_key is not None:
        from rebis_pbm.app.signing import signed_record
        record = signed_record(record, referee_key)  # the first witness, before anything is written
    views_dir = os.fspath(views_dir or default_views_dir(game))
    # Under the record's lock, so that two `new` for the same file name cannot both write; a
    # failed `new` removes what it wrote.
    with locked(game):
        for path in (game, secret_file):
            if os.path.exists(path):
                raise Failed(f"{path} already exists; choose another file name (nothing was "
                             f"written)")
        check_views_dir(views_dir, game_id, game, players)
        made = make_views_dir(views_dir)  # before the record: a bad views folder writes nothing
        try:
            write_atomic(secret_file, dump_secret(game_id, secret, record_format), mode=0o600)
            write_atomic(game, dump_record(record, state, secret))
            # In the join phase there is no state yet (Replay.state None, record.joining()).
            write_views(views_dir, record, Replay(cast(State, state), setup_events))
        except BaseException:
            for path in (game, secret_file):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
            if made:
                import shutil

                shutil.rmtree(views_dir, ignore_errors=True)  # made by this call just now
            raise
    return Created(record, state, game, secret_file, views_dir)


def _absence_settings(deadline: int | None, absence: tuple[int, int] | None,
                      grace: int | None) -> dict[str, Any]:
    """The header fields ``absence`` and ``grace`` (rebis-pbm/4, docs/deadlines.md): both go
    with a deadline.

    Raises:
        UsageError: either without ``--deadline``.
    """
    fields: dict[str, Any] = {}
    for value, option in ((absence, "--absence"), (grace, "--grace")):
        if value is not None and deadline is None:
            raise UsageError(f"{option} goes with --deadline DURATION (e.g. --deadline 72h): "
                             f"without a deadline nobody is late", option)
    if absence is not None:
        fields["absence"] = {"seconds": absence[0], "slots": absence[1]}
    if grace is not None:
        fields["grace"] = grace
    return fields


def _time_zones(players: Sequence[str], zones: dict[str, str]) -> dict[str, str]:
    """``new --tz NAME=ZONE``: player -> IANA zone (rebis-pbm/4; display only).

    Raises:
        UsageError: a name that is no player's, a zone this system does not know.
    """
    from rebis_pbm.record.deadlines import check_zone
    for name, zone in zones.items():
        if name not in players:
            raise UsageError(f"--tz {clip(name)}={clip(zone)}: {clip(name)} is not a player "
                             f"(players: {', '.join(players)})", "--tz")
        check_zone(zone)
    return {p: zones[p] for p in players if p in zones}


def _encryption_settings(players: Sequence[str], keys: dict[str, tuple[str, ...]],
                         referee_deal: bool, encrypt_views: bool,
                         referee_recipient: str | None) -> dict[str, Any]:
    """The header fields of a game's encryption settings (rebis-pbm/3): ``encrypt_views`` and
    ``referee_recipient``, each only when asked for; checked before anything is written.

    Raises:
        UsageError: the recipient is not an age recipient (``--referee-recipient``); with
            ``encrypt_views``, a referee's deal where a player has no key, or a player's key
            age cannot encrypt to (``--encrypt-views``, ``--key``).
    """
    from rebis_pbm.crypto.age import checked_recipient, encryptable_key
    fields: dict[str, Any] = {}
    if encrypt_views:
        missing = [p for p in players if p not in keys]
        if referee_deal and missing:
            raise UsageError(f"--encrypt-views writes each player's view encrypted to their key, "
                             f"and {', '.join(missing)} ha{'s' if len(missing) == 1 else 've'} "
                             f"none: give --key NAME=FILE for every player (nothing was "
                             f"written)", "--encrypt-views")
        for player, lines in keys.items():
            try:
                encryptable_key(lines[0], f"the key of {player}")
            except InputError as exc:
                raise UsageError(f"{exc} (--encrypt-views encrypts {player}'s views to it)",
                                 "--key") from None
        fields["encrypt_views"] = True
    if referee_recipient is not None:
        try:
            fields["referee_recipient"] = checked_recipient(referee_recipient)
        except InputError as exc:
            raise UsageError(exc.message, "--referee-recipient") from None
    return fields
