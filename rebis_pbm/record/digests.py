"""The record's digests: canonical form, header digest, chain digests, keyed state digests.

Everything here is specified in docs/audit.md, precisely enough for another implementation to
recompute it, with test vectors that the tests read from that page.

* :func:`canonical` turns plain data into bytes: JSON with keys sorted (by UTF-16 code units, as
  RFC 8785 sorts them), no whitespace, UTF-8, integers only (the RFC 8785 form, restricted to the
  data a record holds).
* :func:`header_digest`: SHA-256 of the canonical header (format, game id, ruleset, players in
  seat order, seed commitment). It is the chain's first link, stored as ``header_sha256``.
* :func:`chain_digest`: SHA-256 of ``{"entry": ENTRY, "prev": PREVIOUS}``; ``ENTRY`` is the move's
  entry as the record holds it, keyed state digest included, without its own ``chain_sha256``.
* :func:`record_digest`: ``record_hmac`` of a rebis-pbm/3 record, HMAC-SHA256 keyed by the seed
  over the canonical :func:`record_document`: the header digest, the heads of the chains (joins and
  moves; the referee's actions) and the fields no chain covers (addresses, public_addresses,
  langs). Anyone can recompute the unkeyed digests after rewriting a record; only the seed's
  holder can recompute this one.
* :func:`seed_commitment` and :func:`seal_card`: the seed's commitment and the seal of a closing
  play's card.
* :func:`state_digest`: HMAC-SHA256 keyed by the seed over the canonical :func:`state_document`
  (every hidden card included). Without the seed nobody can compute it, so it tells players
  nothing about hands or the deck; a plain hash of the state would let them try every hand.

Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping

from rebis_pbm.engine import Ruleset, State
from rebis_pbm.engine.cards import Shelf
from rebis_pbm.engine.enums import TokenKind
from rebis_pbm.formats.yaml_reader import YamlValue

# RFC 8785 writes numbers as IEEE doubles; integers in this range print the same in both.
MAX_SAFE_INTEGER = 2**53 - 1


def canonical(value: object) -> bytes:
    """The canonical serialisation of ``value`` (docs/audit.md, "Canonical form").

    ``value`` is made of dicts with text keys, lists or tuples, text, integers
    (|n| <= 2**53 - 1), booleans and None. Output: UTF-8 JSON, object keys sorted by their UTF-16
    code units (RFC 8785, section 3.2.3; for ASCII keys the same order as their bytes), no
    whitespace, text escaped as RFC 8785 does (only ``"``, ``\\`` and control characters). Keys
    are taken as they are, not normalised (player names, the only non-ASCII keys, are NFC).

    Raises:
        ValueError: a float, a non-text key, an integer out of range, another type, or text or a
            key that is not valid Unicode (a lone surrogate).

    >>> canonical({"b": [1, True, None], "a": "é"})
    b'{"a":"\\xc3\\xa9","b":[1,true,null]}'
    >>> canonical({"\uff61": 1, "\U0001f600": 2})  # U+1F600 is D83D DE00 in UTF-16: first
    b'{"\\xf0\\x9f\\x98\\x80":2,"\\xef\\xbd\\xa1":1}'
    """
    if _check(value):
        value = _utf16_ordered(value)
        return _encode(value, sort_keys=False)
    return _encode(value)


def _encode(value: object, sort_keys: bool = True) -> bytes:
    """The JSON text of :func:`canonical`, for a value already known to be of the allowed types;
    ``sort_keys=False`` for a value whose objects :func:`_utf16_ordered` has already ordered."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=(",", ":"),
                      allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("canonical form: text must be valid Unicode (no lone "
                         "surrogates)") from None


def utf16_key(key: str) -> bytes:
    """The sort key of an object key in the canonical form: its UTF-16 code units, big-endian,
    so that comparing the bytes compares the code units one by one (RFC 8785, section 3.2.3).
    It differs from code-point order only for characters above U+FFFF against U+E000..U+FFFF."""
    return key.encode("utf-16-be")


def _utf16_ordered(value: object) -> object:
    """``value`` with the items of every object in :func:`utf16_key` order (a copy of what
    changes), for a value :func:`_check` has accepted."""
    if isinstance(value, dict):
        return {key: _utf16_ordered(value[key]) for key in sorted(value, key=utf16_key)}
    if isinstance(value, (list, tuple)):
        return [_utf16_ordered(item) for item in value]
    return value


def _check(value: object) -> bool:
    """Check ``value`` holds only the types :func:`canonical` writes; True when some object key
    is not ASCII (its objects are then ordered by :func:`_utf16_ordered`, not by ``json``'s
    code-point order)."""
    # Iterative walk: records are shallow, but no input should reach the recursion limit. The
    # exact built-in types are tested first (a state document has hundreds of values per move);
    # anything else, subclasses included, takes the general isinstance path below.
    wide = False  # a non-ASCII key was seen
    stack: list[YamlValue] = [value]  # the values still to check, of any type
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list or kind is tuple:
            if kind is dict:
                try:  # all keys text and ASCII, tested in one pass (join refuses non-text keys)
                    keys_ok = "".join(item).isascii()
                except TypeError:
                    keys_ok = False
                if not keys_ok:
                    for key in item:
                        wide = _check_key(key) or wide
            for sub in item.values() if kind is dict else item:
                if type(sub) is int:
                    if -MAX_SAFE_INTEGER <= sub <= MAX_SAFE_INTEGER:
                        continue
                elif sub is None or type(sub) is str or type(sub) is bool:
                    continue
                stack.append(sub)
        elif item is None or isinstance(item, (bool, str)):
            continue
        elif isinstance(item, int):
            if abs(item) > MAX_SAFE_INTEGER:
                raise ValueError(f"canonical form: integer {item} is out of range "
                                 "(at most 2**53-1)")
        elif isinstance(item, dict):
            for key in item:
                wide = _check_key(key) or wide
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            raise ValueError(f"canonical form: {type(item).__name__} values are not allowed "
                             f"(only objects, lists, text, integers, true, false and null)")
    return wide


def _check_key(key: object) -> bool:
    """Check an object key is text and valid Unicode; True when it is not ASCII."""
    if not isinstance(key, str):
        raise ValueError(f"canonical form: object key {key!r} is not text")
    if key.isascii():
        return False
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"canonical form: object key {key!r} is not valid Unicode (a lone "
                         "surrogate)") from None
    return True


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def header_document(fmt: str, game: str, ruleset: Ruleset, players: Iterable[str],
                    seed_sha256: str,
                    extra: Mapping[str, object] | None = None) -> dict[str, object]:
    """The record's header as the header digest covers it: the same fields and values as the
    record's ``format``, ``game``, ``ruleset``, ``players`` and ``seed_sha256``, plus ``extra``:
    the optional header fields of a ``rebis-pbm/2`` record that are present, each under its own
    name (``created``, ``deadline``, ``missed``, ``deal``, ``keys``). A rebis-pbm/1 header has
    none."""
    return {"format": fmt, "game": game, "ruleset": ruleset.as_dict(), "players": list(players),
            "seed_sha256": seed_sha256, **(extra or {})}


def header_digest(fmt: str, game: str, ruleset: Ruleset, players: Iterable[str],
                  seed_sha256: str, extra: Mapping[str, object] | None = None) -> str:
    """``header_sha256``: SHA-256 (hex) of the canonical :func:`header_document`; the chain's
    first link (the ``prev`` of the first move)."""
    return sha256_hex(canonical(header_document(fmt, game, ruleset, players, seed_sha256, extra)))


def chain_digest(prev: str, entry: Mapping[str, object]) -> str:
    """``chain_sha256`` of one move: SHA-256 (hex) of ``canonical({"entry": entry, "prev": prev})``.

    Args:
        prev: the previous move's ``chain_sha256``, or ``header_sha256`` for the first move.
        entry: the move's record entry without ``chain_sha256`` (``state_hmac`` included).
    """
    return sha256_hex(canonical({"entry": entry, "prev": prev}))


def state_document(state: State) -> dict[str, object]:
    """The full engine state as the keyed digest covers it (docs/audit.md, "State document").

    Hidden cards included: the deck still to draw (top first), every hand, face-down cards. Players
    are named; seats are their order in ``players``.
    """
    seats = state.players

    def name(seat: int | None) -> str | None:
        return None if seat is None or seat < 0 else seats[seat]

    players: list[dict[str, object]] = []
    for seat, player in enumerate(seats):
        players.append({
            "name": player,
            "hand": list(state.hands[seat]),
            "reserve": state.reserves[seat],
            "shelves": [{"cards": [{"number": c.number, "sign": c.factor,
                                    "placed_by": name(c.placed_by)}
                                   for c in shelf.cards],
                         "tokens": list(shelf.tokens)} for shelf in state.shelves[seat]],
        })
    return {
        "ruleset": state.ruleset.as_dict(),
        "deck": list(state.deck),
        "players": players,
        "supply": {"golden_dust": state.supply.golden_dust, "gold": state.supply.gold,
                   "red": state.supply.red},
        "turn": state.turn,
        "phase": state.phase,
        "to_move": name(state.to_move),
        "drawn": state.drawn,
        "last_mover": name(state.last_mover),
        "end": state.end_reason,
    }


def keyed_digest(seed: str, document: object) -> str:
    """HMAC-SHA256 (hex) keyed by the seed's UTF-8 bytes over ``canonical(document)``."""
    return hmac.new(seed.encode("utf-8"), canonical(document), hashlib.sha256).hexdigest()


RECORD_DOMAIN = "rebis-pbm/record-digest/v1"


def record_document(header_sha256: str, chain_sha256: str, actions_sha256: str | None,
                    addresses: Mapping[str, str], public_addresses: bool,
                    langs: Mapping[str, str],
                    time_zones: Mapping[str, str] | None = None) -> dict[str, object]:
    """What ``record_hmac`` covers (docs/audit.md, "The keyed record digest"):
    ``{"domain": "rebis-pbm/record-digest/v1", "header_sha256": ..., "chain_sha256": the last
    chain digest of the joins and moves (the header's when there is none), "actions_sha256":
    the last logged action's chain digest (null when none), "addresses": {player: address},
    "public_addresses": true|false, "langs": {player: code}}``, and ``"time_zones": {player:
    zone}`` when a rebis-pbm/4 record has any (an older record's document is unchanged)."""
    document: dict[str, object] = {
        "domain": RECORD_DOMAIN, "header_sha256": header_sha256, "chain_sha256": chain_sha256,
        "actions_sha256": actions_sha256, "addresses": dict(addresses),
        "public_addresses": bool(public_addresses), "langs": dict(langs)}
    if time_zones:  # rebis-pbm/4 (absences)
        document["time_zones"] = dict(time_zones)
    return document


def record_digest(seed: str, document: Mapping[str, object]) -> str:
    """``record_hmac`` (rebis-pbm/3): the keyed digest (:func:`keyed_digest`, the key of
    ``state_hmac``) of a :func:`record_document`.

    Raises:
        ValueError: as :func:`canonical` (an address or language that is not valid Unicode).
    """
    return keyed_digest(seed, document)


def state_digest(state: State, seed: str) -> str:
    """``state_hmac``: the keyed digest of :func:`state_document` of ``state``."""
    # The same bytes as keyed_digest(seed, state_document(state)), without walking the document
    # to check its types: state_document builds it from the engine's numbers, names and None
    # (every record read computes this once per move, so the walk was most of a replay's time).
    return hmac.new(seed.encode("utf-8"), state_bytes(state), hashlib.sha256).hexdigest()


def state_bytes(state: State) -> bytes:
    """``canonical(state_document(state))``, written directly: the same bytes (tested against
    :func:`canonical` on every state of many games and on every archived record), without
    building the document and sorting its keys. Every record read computes it once per move, over
    the whole state, deck included, so its cost is most of a read's growth with the record.

    The state is the engine's: its numbers are ``int`` (never ``bool``), its words text.

    Raises:
        ValueError: a name that is not valid Unicode (a lone surrogate), as :func:`canonical`.
    """
    global _SHELVES, _PLAYERS
    text = _text_of
    seats = state.players
    names = [text(name) for name in seats]
    cards: dict[tuple[int, int, int], str] = {}  # (number, factor, placed_by) -> its text
    tokens: dict[TokenKind, str] = {}
    players: list[str] = []
    known = _SHELVES
    if len(known) > 4096:
        known = _SHELVES = {}
    held = _PLAYERS
    if len(held) > 4096:
        held = _PLAYERS = {}
    for seat, name in enumerate(names):
        # A seat no move touched keeps its row of shelves and its hand (the same objects in the
        # next state): its whole text is kept, so a state costs what its move changed.
        row, hand, reserve = state.shelves[seat], state.hands[seat], state.reserves[seat]
        kept_player = held.get(id(row))
        if kept_player is not None and kept_player[0] is row and kept_player[1] is hand \
                and kept_player[2] == reserve and kept_player[3] == seats:
            players.append(kept_player[4])
            continue
        shelves: list[str] = []
        for shelf in row:
            # A shelf no move touched is the same object in the next state: its text is kept.
            kept = known.get(id(shelf))
            if kept is not None and kept[0] is shelf and kept[1] == seats:
                shelves.append(kept[2])
                continue
            shelf_cards: list[str] = []
            for c in shelf.cards:
                key = (c.number, c.factor, c.placed_by)
                card = cards.get(key)
                if card is None:
                    by = c.placed_by
                    card = cards[key] = (f'{{"number":{c.number:d},"placed_by":'
                                         f'{"null" if by is None or by < 0 else names[by]},'
                                         f'"sign":{c.factor:d}}}')
                shelf_cards.append(card)
            kinds: list[str] = []
            for kind in shelf.tokens:
                token = tokens.get(kind)
                if token is None:
                    token = tokens[kind] = text(kind)
                kinds.append(token)
            shelf_text = f'{{"cards":[{",".join(shelf_cards)}],"tokens":[{",".join(kinds)}]}}'
            known[id(shelf)] = (shelf, seats, shelf_text)  # the shelf is held: its id stays its own
            shelves.append(shelf_text)
        player = (f'{{"hand":[{",".join(map(_INT, hand))}],"name":{name},'
                  f'"reserve":{reserve:d},"shelves":[{",".join(shelves)}]}}')
        held[id(row)] = (row, hand, reserve, seats, player)  # held: the ids stay theirs
        players.append(player)
    supply = state.supply
    doc = (f'{{"deck":[{_deck_text(state.order, state.deck_pos)}],"drawn":{_opt_int(state.drawn)},'
           f'"end":{"null" if state.end_reason is None else text(state.end_reason)},'
           f'"last_mover":{_seat_name(state.last_mover, names)},"phase":{text(state.phase)},'
           f'"players":[{",".join(players)}],"ruleset":{_ruleset_text(state.ruleset)},'
           f'"supply":{{"gold":{supply.gold:d},"golden_dust":{supply.golden_dust:d},'
           f'"red":{supply.red:d}}},"to_move":{_seat_name(state.to_move, names)},'
           f'"turn":{state.turn:d}}}')
    try:
        return doc.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("canonical form: text must be valid Unicode "
                         "(no lone surrogates)") from None


_TEXTS: dict[str, str] = {}


def _text_of(value: str) -> str:
    """A text as the canonical form writes it (the JSON encoder's own escaping), kept for the
    few texts a game repeats (names, phases, token kinds)."""
    found = _TEXTS.get(value)
    if found is None:
        if len(_TEXTS) > 4096:
            _TEXTS.clear()
        found = _TEXTS[value] = json.dumps(value, ensure_ascii=False)
    return found


_INT = int.__repr__  # an integer as the JSON encoder writes it

# Shelves' texts by id: (the shelf, the players' names its seats stand for, its text). A shelf
# holds its id while it is here; emptied when it holds 4096.
_SHELVES: dict[int, tuple[Shelf, tuple[str, ...], str]] = {}

# Each seat's text by the id of its row of shelves: (the row, the hand, the reserve, the players'
# names, its text). Emptied when it holds 4096.
_PLAYERS: dict[int, tuple[tuple[Shelf, ...], tuple[int, ...], int, tuple[str, ...], str]] = {}

# The last shuffled deck seen (``State.order``, shared by every state of a game), its numbers'
# texts joined by commas, and where each number's text starts: the deck of a state is a suffix.
_DECK: tuple[tuple[int, ...] | None, str, list[int]] = (None, "", [0])


def _deck_text(order: tuple[int, ...], pos: int) -> str:
    """The numbers of ``order[pos:]`` as the canonical form writes a list's items."""
    global _DECK
    cached, text, starts = _DECK
    if cached is not order:
        parts = list(map(_INT, order))
        text = ",".join(parts)
        starts = [0]
        for part in parts:
            starts.append(starts[-1] + len(part) + 1)
        _DECK = (order, text, starts)
    return text[starts[pos]:] if pos < len(order) else ""


def _opt_int(value: int | None) -> str:
    return "null" if value is None else f"{value:d}"


def _seat_name(seat: int | None, names: list[str]) -> str:
    return "null" if seat is None or seat < 0 else names[seat]


_RULESET_TEXT: dict[Ruleset, str] = {}


def _ruleset_text(ruleset: Ruleset) -> str:
    """The canonical text of ``ruleset.as_dict()``, kept for the rulesets seen (few per process)."""
    found = _RULESET_TEXT.get(ruleset)
    if found is None:
        if len(_RULESET_TEXT) > 64:
            _RULESET_TEXT.clear()
        found = _RULESET_TEXT[ruleset] = canonical(ruleset.as_dict()).decode("utf-8")
    return found


def seed_commitment(seed: str) -> str:
    """SHA-256 (lower-case hex) of the seed's UTF-8 bytes: the record's ``seed_sha256``.

    >>> seed_commitment("example")[:16]
    '50d858e0985ecc7f'
    """
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


COMMITMENT_DOMAIN = "rebis-pbm/seed-commitment/v2"
SALT_HEX = 32  # a rebis-pbm/2 salt: 128 random bits, 32 lower-case hex digits


def salted(seed: str, salt: str) -> str:
    """A rebis-pbm/2 game's secret as one text, ``SALT:SEED`` (the salt is 32 lower-case hex
    digits): what keys the state digests and seals, and what ``REBIS_PBM_SEED`` holds for such a
    game. Records and secret files keep ``seed`` and ``salt`` as two fields."""
    return f"{salt}:{seed}"


def unsalted(secret: str) -> tuple[str, str]:
    """``(seed, salt)`` of a :func:`salted` secret.

    Raises:
        ValueError: ``secret`` is not ``SALT:SEED`` with a 32-hex-digit salt.
    """
    salt, sep, seed = secret.partition(":")
    if (not sep or len(salt) != SALT_HEX or not seed
            or any(c not in "0123456789abcdef" for c in salt)):
        raise ValueError("a rebis-pbm/2 game's secret is SALT:SEED, the salt 32 lower-case hex "
                         "digits")
    return seed, salt


# The domain of each format's commitment: a record's format is bound to its secret, so that a
# rebis-pbm/3 record relabelled rebis-pbm/2 (to shed record_hmac, its encryption settings and
# the rest of what /3 checks) no longer matches its commitment once the seed is known.
# rebis-pbm/5 commits in rebis-pbm/2's domain (its records exist: kept so); a /5 record
# relabelled /2 is told by its signed files instead (record.verify: a signed move's after:, a
# signed join's after:). From rebis-pbm/6 each format has its own domain again.
COMMITMENT_DOMAINS = {"rebis-pbm/2": COMMITMENT_DOMAIN,
                      "rebis-pbm/3": "rebis-pbm/seed-commitment/v3",
                      "rebis-pbm/4": "rebis-pbm/seed-commitment/v4",  # issue 27's format
                      "rebis-pbm/6": "rebis-pbm/seed-commitment/v6"}

INSECURE_SALT_DOMAIN = "rebis-pbm/insecure-salt/v4"


def insecure_salt(seed: str) -> str:
    """The salt of a game created with ``new --seed TEXT --insecure-seed`` (issue 27): the first
    32 hex digits of SHA-256 of the UTF-8 text ``rebis-pbm/insecure-salt/v4`` LF SEED. Anyone
    who knows the seed knows it, as they know the deal: a rebis-pbm/4 referee deal whose salt is
    this one is shuffled from the seed alone (docs/shuffle.md), so that tests, the demo and the
    examples deal the same cards from the same seed.

    >>> insecure_salt("example")
    '7b8b90882d2f0ba62f227d66be1478b8'
    """
    return sha256_hex(f"{INSECURE_SALT_DOMAIN}\n{seed}".encode())[:SALT_HEX]


def salted_commitment(seed: str, salt: str, domain: str = COMMITMENT_DOMAIN) -> str:
    """The salted ``seed_sha256``: SHA-256 (lower-case hex) of the canonical form of
    ``{"domain": DOMAIN, "salt": SALT, "seed": SEED}``, DOMAIN the format's
    (:data:`COMMITMENT_DOMAINS`: ``rebis-pbm/seed-commitment/v2`` for rebis-pbm/2, ``.../v3`` for
    rebis-pbm/3). The salt is 128 secret random bits revealed with the seed, so the commitment
    cannot be opened by trying seeds (docs/audit.md, "Seed commitment").

    >>> salted_commitment("example", "00" * 16)[:16]
    '1297f9a23e420f1d'
    """
    return sha256_hex(canonical({"domain": domain, "salt": salt, "seed": seed}))


def commitment(fmt: str, secret: str) -> str:
    """The commitment a record of format ``fmt`` holds for the game secret ``secret``: the
    seed's plain SHA-256 for rebis-pbm/1 (:func:`seed_commitment`), :func:`salted_commitment`
    of ``SALT:SEED`` in the format's domain for rebis-pbm/2 and /3 (a secret of the wrong form
    commits to nothing: "")."""
    if fmt == "rebis-pbm/1":
        return seed_commitment(secret)
    try:
        return salted_commitment(*unsalted(secret), COMMITMENT_DOMAINS.get(fmt, COMMITMENT_DOMAIN))
    except ValueError:
        return ""


SEAL_DOMAIN = "rebis-pbm/sealed-card/v1"


def seal_card(seed: str, game: str, turn: int, card: int) -> str:
    """The seal that stands for a closing play's card in the public record (R8.1).

    HMAC-SHA256 keyed by the seed's UTF-8 bytes, over the UTF-8 text
    ``rebis-pbm/sealed-card/v1`` LF game id LF turn LF card (numbers in decimal), as lower-case
    hex. Without the seed a seal tells nothing about its card; with the seed (the referee during the
    game, anyone once the seed is revealed) the card is the deck's number whose seal matches.

    >>> seal_card("example", "g", 3, 7)[:16]
    '4acae1ba089fe4ae'
    """
    text = f"{SEAL_DOMAIN}\n{game}\n{turn}\n{card}".encode()
    return hmac.new(seed.encode("utf-8"), text, hashlib.sha256).hexdigest()
