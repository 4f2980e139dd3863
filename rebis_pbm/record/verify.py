"""Every read of a record checks it: the walk, the status check and the two read paths.

:func:`walk` goes through a record once, in order, checking every digest and replaying every
move, and stops at the first :class:`Problem`; :func:`check_status` compares its written status
with the one the moves give. :func:`read_game` is the one way a record is read with its seed:
it decides once between the fast path (a record exactly as rebis-pbm writes it) and the checked
path (schema first, then the same checks). ``verify`` (:mod:`rebis_pbm.record.audit`) reports
the same checks to people.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple, cast

from rebis_pbm.engine import IllegalMove, Move, State, apply_move, setup
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN
from rebis_pbm.errors import CorruptRecord
from rebis_pbm.formats.yaml_reader import Loaded, YamlValue, load_yaml, simple_data
from rebis_pbm.record.codec import moves_read, parse_record, same_data
from rebis_pbm.record.commitments import join_phase_keys
from rebis_pbm.record.deadlines import BEFORE_V4
from rebis_pbm.record.digests import chain_digest, commitment, state_digest
from rebis_pbm.record.model import (
    BEFORE_V3,
    FAIR_DEAL,
    Document,
    Join,
    Record,
    Replay,
    SealedMove,
    check_seed,
    closes_shelf,
    join_status,
)
from rebis_pbm.record.problems import CODES as CODES
from rebis_pbm.record.problems import At as _At
from rebis_pbm.record.problems import Problem as Problem
from rebis_pbm.record.problems import ProblemCode as ProblemCode
from rebis_pbm.record.referee_checks import (
    check_acts,
    check_end_acts,
    check_referee_acts,
    check_referee_move,
    check_stand_in_bot,
    check_stand_in_claim,
    check_stand_in_time,
)

# ------------------------------------------------------------------------- the walk

# Given the record, the game's seed (``SALT:SEED``): what reading a game asks its caller.
SeedFor = Callable[[Record], str]


class Walk(NamedTuple):
    """The result of :func:`walk`.

    Attributes:
        problem: the first problem, or None.
        replay: the replayed game when the seed was known and every move passed; else None.
        moves: how many moves passed every check before the problem (all of them if none).
    """

    problem: Problem | None
    replay: Replay | None
    moves: int


# A keyed digest's recomputed value is never printed: before the reveal only the seed's holder can
# compute it, and a report (a public CI log) would hand it to whoever edited the record.
_NOT_SHOWN = "the {} the seed gives (not shown: it would let whoever changed the record forge it)"


def _short(move: Move | SealedMove) -> str:
    """A move in one line, as the record writes it (no hidden card: only what the mover played)."""
    return json.dumps(move.as_dict(), separators=(", ", ": "))


def _places_red_token(entry: Move | SealedMove) -> bool:
    """Whether a record entry is the red token's placement (R12); every other entry is a turn's
    play, whose mover follows the seat order."""
    return getattr(entry, "red_token", None) is not None


def check_header(record: Record) -> Problem | None:
    """The header digest (the chain's first link) against the header as it now is: an edited game
    id, ruleset, seat order or seed commitment shows here, before anything relies on them."""
    if record.computed_header_sha256() == record.header_sha256:
        return None
    return Problem(
        "header_digest", "the header (game id, ruleset, players in seat order, seed "
        "commitment) does not match its header_sha256: it was edited after the game was "
        "created", expected=f"header_sha256 {record.computed_header_sha256()}",
        found=f"header_sha256 {record.header_sha256}")


def check_record_digest(record: Record, key: str) -> Problem | None:
    """The keyed record digest ``record_hmac`` of a rebis-pbm/3 record against the record as it
    now is, keyed by ``key`` (the seed, known to match the commitment): the players' keys, the
    addresses, languages and settings, and the heads of the chains, bound to the seed. The
    unkeyed header and chain digests can be recomputed by anyone who rewrites a record; this one
    only by the seed's holder. None for an older format (it has none)."""
    if record.format in BEFORE_V3:
        return None
    try:
        computed = record.computed_record_hmac(key)
    except ValueError:  # text that is not valid Unicode: no digest can match it
        computed = "none"
    if record.record_hmac is not None and hmac.compare_digest(computed, record.record_hmac):
        return None
    return Problem(
        "record_digest", "its players' keys, addresses, languages or settings, or an entry, do "
        "not match the keyed digest record_hmac: they were changed outside rebis-pbm",
        expected=_NOT_SHOWN.format("record_hmac"),
        found="no record_hmac" if record.record_hmac is None
        else f"record_hmac {record.record_hmac}")


def _check_actions(record: Record, state: State | None) -> Problem | None:
    """The referee's logged actions: their chain digests, then its signatures (rebis-pbm/4),
    then the acts at the game's end (``state`` after the last move, if known)."""
    broken = record.broken_action()
    if broken is not None:
        action = record.actions[broken]
        return Problem(
            "chain_digest", f"the referee's logged action {broken + 1} ({action.get('action')}, "
            f"after move {action.get('after')}) does not match its chain digest: it, or an action "
            f"before it, was edited", expected=f"chain_sha256 {record.action_digest(broken)}",
            found=f"chain_sha256 {action.get('chain_sha256')}")
    # rebis-pbm/4: the referee's signed word, and acts its commands could have logged
    return check_referee_acts(record) or check_acts(record) or check_end_acts(record, state)


def walk(record: Record, seed: str | None = None, *, signatures: bool = True) -> Walk:
    """Check ``record`` from its header to its last move; stop at the first problem.

    Without a seed (none given and none revealed): header digest, turn numbers, seat order and
    chain digests. With one (``seed``, else the record's revealed seed): also the seed against the
    commitment, each sealed card (it must open), each move's legality by replaying it (R5-R12),
    each keyed state digest, that a move's card is sealed exactly when it closes a shelf
    (R8.1, docs/views.md) and, last, a rebis-pbm/3 record's keyed record digest
    (:func:`check_record_digest`). While the record reveals no seed, a move the rules refuse and
    a wrongly sealed play are reported as the state digest's problem, in its words: which of
    them it is would tell a hand or a face-down card (docs/audit.md).

    ``signatures=False``: the referee's own read of its record with the seed (every command but
    ``verify``): when the keyed record digest ``record_hmac`` holds, which only the seed's
    holder can compute and which covers every entry, the players' signatures are not checked
    again (each was checked when its move entered); without it, or when it fails, they are.

    Returns:
        a :class:`Walk`. Never raises for a bad record; the problem says what is wrong.
    """
    problem = check_header(record)
    if problem is not None:
        return Walk(problem, None, 0)
    fmt = record.format
    if record.seed is not None and commitment(fmt, record.seed) != record.seed_sha256:
        return Walk(Problem(
            "seed_mismatch", "the seed revealed in the record does not match the commitment made "
            "when the game was created (seed_sha256): it does not deal the game that was played",
            expected=f"seed_sha256 {commitment(fmt, record.seed)} (the commitment of the "
            "revealed seed)",
            found=f"seed_sha256 {record.seed_sha256}"), None, 0)
    if seed is not None and seed != record.seed and commitment(fmt, seed) != record.seed_sha256:
        return Walk(Problem(
            "wrong_seed", "the seed given does not match the record's commitment (seed_sha256): "
            "it is another game's seed, or the record's commitment was replaced",
            expected=f"seed_sha256 {commitment(fmt, seed)} (the commitment of the seed given)",
            found=f"seed_sha256 {record.seed_sha256}"), None, 0)
    key = seed if seed is not None else record.seed
    # The keyed record digest, when it holds, covers every signature the referee once checked.
    hmac_holds = not signatures and key is not None and record.format not in BEFORE_V3 \
        and check_record_digest(record, key) is None
    problem = check_joins(record, signatures=not hmac_holds)
    if problem is not None:
        return Walk(problem, None, 0)
    if record.joining():
        if record.moves:
            return Walk(Problem("join", "a move is recorded before every player has joined the "
                                "fair deal", turn=1, player=record.moves[0].player,
                                expected="joins by " + ", ".join(record.waiting_for()),
                                found=_short(record.moves[0])), None, 0)
        problem = _check_actions(record, None)
        if problem is None and key is not None:
            problem = check_record_digest(record, key)
        if problem is not None:
            return Walk(problem, None, 0)
        # The join phase: nothing dealt yet, so the replay holds no state (as the app writes it).
        return Walk(None, None if key is None else Replay(cast(State, None), ()), 0)
    state: State | None = None
    setup_events: tuple[ev.Event, ...] = ()
    history: list[tuple[Move, tuple[ev.Event, ...]]] = []
    if key is not None:
        try:
            state, setup_events = setup(record.ruleset, record.players, record.deal_seed(key))
        except ValueError as exc:
            return Walk(Problem("setup", f"the game cannot be dealt: {exc}"), None, 0)
    n = len(record.players)
    for index, entry in enumerate(record.moves):
        turn = index + 1
        at: _At = {"turn": turn, "player": entry.player}
        if index and _places_red_token(record.moves[index - 1]):
            return Walk(Problem(
                "after_end", "a move follows the red token, which is the game's last move (R12)",
                expected="no move after the red token", found=_short(entry), **at), None, index)
        if entry.turn != turn:
            return Walk(Problem(
                "turn_order", f"move {turn} of the record says turn {entry.turn}: a move is "
                "missing, repeated or out of order", expected=f"turn {turn}",
                found=f"turn {entry.turn}", **at), None, index)
        if not _places_red_token(entry) and entry.player != record.players[index % n]:
            return Walk(Problem(
                "seat_order", "this turn is not played in seat order (R5, R6)",
                expected=f"{record.players[index % n]} to play turn {turn}",
                found=f"{entry.player} playing it", **at), None, index)
        computed = chain_digest(record.prev_digest(index), record.entry(index))
        if computed != record.links[index].chain_sha256:
            return Walk(Problem(
                "chain_digest", "the entry does not match its chain digest: it, or an entry "
                "before it, was edited after it was recorded",
                expected=f"chain_sha256 {computed}",
                found=f"chain_sha256 {record.links[index].chain_sha256}", **at), None, index)
        problem = (None if hmac_holds else check_signature(record, index, key)) \
            or check_referee_move(record, index) or check_stand_in_claim(record, index) \
            or check_stand_in_time(record, index)
        if problem is not None:
            return Walk(problem, None, index)
        if key is None:
            continue
        sealed = isinstance(entry, SealedMove)
        if isinstance(entry, SealedMove):
            opened = entry.opened(key, record.game, record.ruleset)
            if opened is None:
                return Walk(Problem(
                    "seal", "the sealed card of this closing play opens to no card of the deck: "
                    "the entry was edited", expected="the seal of one of the deck's numbers "
                    "(R8.1)", found=f"sealed {entry.seal}", **at), None, index)
            move = opened
        else:
            move = entry
        assert state is not None  # dealt above: the seed is known
        problem = check_stand_in_bot(record, index, state, move)
        if problem is not None:
            return Walk(problem, None, index)
        try:
            state, events = apply_move(state, move)
        except IllegalMove as exc:
            if record.seed is None:
                # While the seed is secret, the rules' reason ("you have no 2 in your hand"),
                # or only that the move broke them, would answer whoever edited the move: a
                # player's hand, one guess a report. Reported as a state that differs.
                return Walk(_state_differs(record, index, at), None, index)
            # The entry as written, not the opened move: a problem report names no hidden card.
            return Walk(Problem(
                "illegal_move", f"the move breaks the rules: {exc.message}",
                expected="a legal move", found=_short(entry), **at), None, index)
        computed = state_digest(state, key)
        if computed != record.links[index].state_hmac:
            return Walk(_state_differs(record, index, at), None, index)
        if closes_shelf(events) != sealed:
            if record.seed is None:
                # A closing play shown with its real card replays to the recorded state: saying
                # "sealing" then, and "state" for every other card, tells the face-down card.
                return Walk(_state_differs(record, index, at), None, index)
            return Walk(Problem(
                "sealing", "this play closes a shelf but the record shows its card, which lies "
                "face down (R8.1)" if not sealed else "this play is sealed but does not close a "
                "shelf; only a closing play's card is sealed (R8.1)",
                expected="play.sealed" if not sealed else "play.cards",
                found="play.cards" if not sealed else "play.sealed", **at), None, index)
        history.append((move, events))
    problem = _check_actions(record, state)
    if problem is None and key is not None and not hmac_holds:
        problem = check_record_digest(record, key)
    if problem is not None:  # last, so that an edited move is reported at its turn
        return Walk(problem, None, len(record.moves))
    replay = None if key is None or state is None else Replay(state, setup_events, tuple(history))
    return Walk(None, replay, len(record.moves))


def _state_differs(record: Record, index: int, at: _At) -> Problem:
    """Move ``index`` does not replay to the game the referee recorded: its keyed state digest
    differs, or (said alike while the seed is secret) the rules refuse it, or its card shows
    where the play closed a shelf (R8.1)."""
    return Problem(
        "state_digest", "this move does not replay to the game the referee recorded (its keyed "
        "state digest state_hmac, or the sealing of a closing play's card): the deal or a move "
        "differs from the game played",
        expected=_NOT_SHOWN.format("state_hmac"),
        found=f"state_hmac {record.links[index].state_hmac}", **at)


def check_joins(record: Record, *, signatures: bool = True) -> Problem | None:
    """A fair deal's join entries (rebis-pbm/2): each by a player of the game, once, chained
    after the header, signed by the player's ``new --key`` key when they registered one (a key
    in the join itself is the player's from then on: the join is its own registration).
    ``signatures=False``: the signatures are covered by a keyed record digest that holds
    (:func:`walk`) and are not checked again."""
    if record.joins and record.deal != FAIR_DEAL:
        return Problem("join", "join entries in a game dealt by the referee alone",
                       expected="no joins", found=f"{len(record.joins)} join(s)")
    seen: set[tuple[str, bool]] = set()
    for index, join in enumerate(record.joins):
        kind = join.commitment is not None
        if join.player not in record.players or (join.player, kind) in seen:
            return Problem("join", "a join by someone who is not a player, or a second join by "
                           "the same player", player=join.player,
                           expected="one join per player", found=f"join by {join.player}")
        seen.add((join.player, kind))
        problem = _check_round(record, index, join)
        if problem is not None:
            return problem
        computed = chain_digest(record.join_prev(index), join.entry())
        if computed != join.chain_sha256:
            return Problem("chain_digest", f"{join.player}'s join does not match its chain digest: "
                           "it, or an entry before it, was edited after it was recorded",
                           player=join.player, expected=f"chain_sha256 {computed}",
                           found=f"chain_sha256 {join.chain_sha256}")
        keys = join_phase_keys(record, join.player)  # as apply judged it
        if signatures and (keys or join.proof is not None):
            from rebis_pbm.crypto.signatures import signed_by
            proof = join.proof
            if proof is None or proof.signed is None or not signed_by(
                    proof.signed.encode("utf-8"), proof.signature, keys):
                return Problem("signature", f"{join.player}'s join has no valid signature by "
                               "their registered key", player=join.player,
                               expected="a signature by " + ", ".join(k[:24] + "..." for k in keys),
                               found="none" if proof is None else "a signature that does not check")
            if not _signed_join_is(record, join):
                # A signature proves only the signed text: any file the player once signed (a
                # move, another game's join) beside join words of the referee's choosing.
                return Problem("signature", f"the signed file of {join.player}'s join does not "
                               "hold the join recorded (its game, player, join text or key)",
                               player=join.player, expected="the recorded join",
                               found="another file in the signed text")
            if record.format not in BEFORE_V4 and not join_bound(record, join):
                # rebis-pbm/4 (issue 27): a signed join names the header it joins, so that it
                # cannot be carried into a game of another header
                return Problem("signature", f"the signed file of {join.player}'s join does not "
                               "name this game's header digest: it was signed for another game",
                               player=join.player,
                               expected=f"header_sha256 {record.header_sha256}",
                               found="another header digest, or none")
    return None


def _check_round(record: Record, index: int, join: Join) -> Problem | None:
    """A join entry where its round puts it (rebis-pbm/5, docs/shuffle.md): one-round games
    hold no commitment; in two rounds every commitment comes before every join, and each join
    names the last commitment's chain digest and hashes to its player's commitment."""
    if not record.two_rounds:
        if join.commitment is None and join.after is None:
            return None
        return Problem("join", f"{join.player}'s entry is a commitment of two rounds, in a "
                       f"{record.format} record whose fair deal takes one",
                       player=join.player, expected="a join", found="a commitment")
    from rebis_pbm.record.commitments import commitment_of, commitments
    committed = commitments(record.joins[:index])
    if join.commitment is not None:
        if len(committed) < index:
            return Problem("join", f"{join.player}'s commitment comes after a join: the second "
                           "round opens only when every commitment is recorded",
                           player=join.player, expected="every commitment before any join",
                           found=f"a commitment at entry {index + 1}")
        return None
    if len(committed) < len(record.players):
        return Problem("join", f"{join.player}'s join comes before every commitment was "
                       "recorded", player=join.player, expected="every commitment first",
                       found=f"a join at entry {index + 1}")
    last = record.joins[len(record.players) - 1].chain_sha256
    if join.after is not None and join.after != last:
        return Problem("join", f"{join.player}'s join answers another history than this "
                       "game's commitments", player=join.player, expected=f"after {last}",
                       found=f"after {join.after}")
    if commitment_of(record.game, join.player, join.entropy) != committed[join.player].commitment:
        return Problem("join", f"{join.player}'s join does not match their commitment",
                       player=join.player,
                       expected=f"commitment {committed[join.player].commitment}",
                       found=f"join {join.entropy}")
    return None


def _signed_join(join: Join) -> Document | None:
    """``join``'s signed text as a mapping, None when it has none or it is not one."""
    if join.proof is None or join.proof.signed is None:
        return None
    try:
        doc = load_yaml(join.proof.signed.encode("utf-8"), source="the signed join",
                        kind="move").data
    except ValueError:  # not YAML (InputError), or not valid Unicode: not the join recorded
        return None
    return doc if isinstance(doc, dict) else None


def _signed_join_is(record: Record, join: Join) -> bool:
    """Whether ``join``'s signed text is a join of this game by its player, with its join text
    and key (the key as :func:`~rebis_pbm.crypto.signatures.parse_keys` keeps it), naming this
    game's header digest if it names one."""
    from rebis_pbm.crypto.signatures import parse_keys
    doc = _signed_join(join)
    if doc is None:
        return False
    try:
        given = doc.get("key")
        key = None if given is None else parse_keys(str(given), "key")[0]
    except ValueError:  # not a key: not the join recorded
        return False
    if join.commitment is not None:  # rebis-pbm/5, round 1
        said = "commitment" in doc and str(doc["commitment"]) == join.commitment
    else:
        # a join's signed text names the after: its entry records, or none (a rebis-pbm/5
        # record relabelled older, its joins' after: dropped, still shows in the signed text)
        said = ("join" in doc and str(doc["join"]) == join.entropy
                and doc.get("after") == join.after)
    return (doc.get("game") == record.game and doc.get("player") == join.player
            and said and key == join.key
            and doc.get("header_sha256", record.header_sha256) == record.header_sha256)


def join_bound(record: Record, join: Join) -> bool:
    """Whether ``join``'s signed text names this game's header digest (``header_sha256``: the
    game id, the players in seat order, the ruleset, the keys and the seed commitment): only
    then can the signature not have been taken to another game of the same id, seats or rules
    remade from the same seed, whose deal the referee preferred (docs/shuffle.md)."""
    doc = _signed_join(join)
    if (doc is not None and join.commitment is None and record.two_rounds
            and len(record.joins) >= len(record.players)):
        # rebis-pbm/5: a join names the last commitment's digest, which chains from the header
        return doc.get("after") == record.joins[len(record.players) - 1].chain_sha256
    return doc is not None and doc.get("header_sha256") == record.header_sha256


def check_signature(record: Record, index: int, key: str | None) -> Problem | None:
    """Move ``index``'s signature (rebis-pbm/2): a player with a registered key must have signed
    the exact bytes of the move file, and those bytes must hold the move recorded. A closing
    play's bytes are sealed: checked once the seed is known (``key``), skipped before."""
    entry = record.moves[index]
    keys = record.player_keys(entry.player, index)
    proof = record.proofs[index]
    at: _At = {"turn": index + 1, "player": entry.player}
    if proof is None and record.referee_key is not None and record.stamps[index].get("by"):
        return None  # the referee's move for its player: its own signature is checked instead
    if not keys:
        if proof is None:
            return None
        return Problem("signature", "this move carries a signature, but its player registered no "
                       "key", expected="no signature", found="a signature", **at)
    if proof is None:
        return Problem("signature", f"{entry.player} registered a key, but this move is not "
                       "signed: only the holder of the key can have sent it",
                       expected="the move file's signature by the player's key",
                       found="no signature", **at)
    from rebis_pbm.crypto.signatures import open_signed, signed_by
    signature = proof.signature
    if proof.sealed is not None and not isinstance(entry, SealedMove):
        # only a closing play's signed file is sealed (its card lies face down, R8.1): a sealed
        # "signature" on a move in the clear would go unchecked until the seed is revealed
        return Problem("signature", "this move's signed file is sealed, but the move is no "
                       "closing play: only a closing play's file is kept sealed, so its "
                       "signature cannot be the player's", expected="the signed move file in "
                       "the clear (signature and signed)", found="a sealed signed file", **at)
    if proof.sealed is not None:
        if key is None:
            return None  # checked once the seed is revealed
        opened = open_signed(key, record.game, index + 1, proof.sealed)
        data, signature = opened if opened is not None else (None, "")
    else:
        data = proof.signed.encode("utf-8") if proof.signed is not None else None
    if data is None or not signed_by(data, signature, keys):
        return Problem("signature", "the signature does not check against the player's key over "
                       "the signed move file: the move, or its signature, was forged or edited",
                       expected="a valid signature by the player's key",
                       found="a signature that does not check", **at)
    doc: YamlValue = None
    signed_move: Move | None
    try:
        doc = load_yaml(data, source="the signed move", kind="move").data
        signed_move = Move.from_dict(doc)
    except Exception:
        signed_move = None
    if isinstance(doc, dict) and doc.get("game") != record.game:
        same = False  # the player's move of another game, at the same turn
    elif isinstance(entry, SealedMove):
        same = (signed_move is not None and key is not None and signed_move.play is not None
                and entry.opened(key, record.game, record.ruleset) == signed_move)
    else:
        same = signed_move == entry
    if not same:
        if proof.sealed is not None and record.seed is None:
            # The sealed file holds the face-down card: "not the move recorded" for every card
            # but the real one would tell it, one guess a report (as the replay's checks would).
            return _state_differs(record, index, at)
        return Problem("signature", "the signed move file does not hold the move recorded",
                       expected="the recorded move", found="another move in the signed file", **at)
    return _signed_history(record, index, doc, at)


def _signed_history(record: Record, index: int, doc: object, at: _At) -> Problem | None:
    """rebis-pbm/4 (issue 27): the signed file of move ``index`` names as ``after`` the chain
    digest of the entry before it (the header's for the first move), so the player's signature
    holds only in this history: replayed into a record of another header, or after other moves,
    it answers a history this record does not hold. In an older record ``after`` may be left
    out, but if named it names this history (a newer record relabelled older is refused)."""
    expected = record.prev_digest(index)
    after = doc.get("after") if isinstance(doc, dict) else None
    # before rebis-pbm/4 a move may leave after: out, but one that names a history names this
    # one (apply refuses any other in every format): a rebis-pbm/4-or-later record relabelled
    # older still shows in its players' signed files
    if after == expected or (after is None and record.format in BEFORE_V4):
        return None
    return Problem("signature", f"the signed move file answers another history than this "
                   f"record's (its after: names the chain digest its player saw, and this "
                   f"record's move {index} is another): the signature was carried from another "
                   f"game or history, so the record was forged",
                   expected=f"after {expected}",
                   found="no after" if after is None else f"after {after}", **at)


# ------------------------------------------------------------------------------- the status

_STATUS_FIELDS = ("phase", "turn", "player", "end", "scores", "winners", "abandoned")
_ABSENT = object()  # a status field that is not there (None is a value: no player to move)


def _differs(expected: Document, found: Document) -> tuple[str, str, str] | None:
    """The first field where two statuses differ: (field, expected text, found text)."""
    def show(value: object) -> str:
        return "absent" if value is _ABSENT else json.dumps(value, separators=(", ", ": "))

    keys = [k for k in _STATUS_FIELDS if k in expected or k in found]
    keys += sorted(k for k in set(expected) | set(found) if k not in _STATUS_FIELDS)
    for key in keys:
        want, have = expected.get(key, _ABSENT), found.get(key, _ABSENT)
        if isinstance(want, dict) and isinstance(have, dict) and want != have:
            for sub in list(want) + [k for k in have if k not in want]:
                if want.get(sub, _ABSENT) != have.get(sub, _ABSENT):
                    return (f"{key}.{sub}", show(want.get(sub, _ABSENT)),
                            show(have.get(sub, _ABSENT)))
        if want != have:
            return key, show(want), show(have)
    return None


def check_status(record: Record, found: Document, replay: Replay | None) -> Problem | None:
    """Check the record's status (``found``, as written) against the moves.

    With the replay: the whole status must be the one the final state gives (phase, turn and
    player to move, or end, scores and winners; ``abandoned`` when the seed was revealed early),
    and a finished game must reveal its seed. Without: a game whose record does not reveal its
    seed cannot be over, and the turn (and, in phase play, the player to move) must follow from the
    number of moves and the seat order.
    """
    last = len(record.moves) or None
    if record.joining():
        diff = _differs(join_status(record) | ({"abandoned": True} if record.seed else {}), found)
        if diff is None:
            return None
        name, want, have = diff
        return Problem("status", f"the status does not follow from the joins (field "
                       f"status.{name})", expected=want, found=have)
    if replay is not None:
        if replay.state.phase == FINISHED and record.seed is None:
            return Problem("not_revealed", "the game is over but the record does not reveal its "
                           "seed (the last move's apply writes it)", turn=last,
                           expected="seed: the game's seed", found="no seed")
        expected = record.status(replay.state)
    else:
        ended = bool(record.moves) and _places_red_token(record.moves[-1])  # R12: the last move
        if found.get("phase") == FINISHED or ended:
            return Problem("not_revealed", "the status says the game is over, but the record does "
                           "not reveal its seed (the last move's apply writes it)", turn=last,
                           expected="seed: the game's seed", found="no seed")
        count = len(record.moves)
        expected = {"phase": found.get("phase"), "turn": count + 1}
        if found.get("phase") == PLAY:
            expected["player"] = record.players[count % len(record.players)]
        elif found.get("phase") == RED_TOKEN and found.get("player") in record.players:
            expected["player"] = found["player"]  # the holder depends on hidden hands (R12)
    diff = _differs(expected, found)
    if diff is None:
        return None
    name, want, have = diff
    return Problem("status", f"the status does not follow from the moves (field status.{name})",
                   turn=last, expected=want, found=have)


def replay_record(record: Record, seed: str, *, signatures: bool = True) -> Replay:
    """Deal from ``seed`` and play every recorded move, checking each move's digests as it goes
    (the whole check is :func:`walk`; ``signatures`` as there).

    Raises:
        SeedError: ``seed`` does not match the record's commitment.
        CorruptRecord: the header or a move fails its digests, a move is out of turn or illegal at
            its point, a seal opens to no card, a closing play shows its card (the message names
            the turn), or a revealed seed is not the committed one.
    """
    result = walk(record, seed, signatures=signatures)
    if result.problem is not None:
        if result.problem.code == "wrong_seed":
            check_seed(record, seed)  # raises SeedError: the seed belongs to another game
        raise CorruptRecord(result.problem.sentence(), result.problem)
    assert result.replay is not None  # the seed given, and no problem: replayed
    return result.replay


def read_game(data: bytes, source: str, seed_for: SeedFor) -> tuple[Record, Replay, str]:
    """Parse, check and replay a record's bytes: ``(record, replay, seed)``. ``seed_for(record)``
    returns the seed (e.g. ``lambda r: find_seed(path, r)``).

    A record as rebis-pbm writes it is accepted without the JSON Schema, whose import and checks
    cost more than all the rest of a command: when the strict YAML reader reads it, its integers
    are plainly spelled, its e-mail addresses have the schema's form
    (:func:`rebis_pbm.formats.schemas.address_accepted`; no digest covers them), the game id and
    every
    name have the schema's form, the record replays
    (:func:`replay_record`: every digest and every move checked) and its data is exactly, types
    included, what the writer gives for it (:meth:`Record.to_dict` of the replayed state), then
    the schema holds too (and so does the written status). Anything else goes through
    :func:`parse_record` (the schema, with a positioned message), the header digest before the
    seed is looked up, :func:`replay_record`, and the written status against the one the moves
    give: the outcome is the same.

    Raises:
        InputError, SeedError, CorruptRecord: as :func:`parse_record`, ``seed_for`` and
            :func:`replay_record`; CorruptRecord also for an edited header or status.
    """
    # The referee's read: signatures already checked are covered by record_hmac (walk).
    found = _read_as_written(data, source, seed_for, signatures=False, keep_text=True)
    return found if found is not None else read_checked(data, source, seed_for, signatures=False)


def read_checked(data: bytes, source: str, seed_for: SeedFor, *,
                 signatures: bool = True) -> tuple[Record, Replay, str]:
    """The checked path of :func:`read_game`, for any record: the schema, the header digest
    before ``seed_for`` relies on the game id, the replay with every digest, and the written
    status against the one the moves give.

    Raises:
        InputError, SeedError, CorruptRecord: as :func:`read_game`.
    """
    record = parse_record(data, source)
    problem = check_header(record)  # before seed_for relies on the game id
    if problem is None:
        seed = seed_for(record)
        replay = replay_record(record, seed, signatures=signatures)
        assert record.written_status is not None  # the schema requires the status
        problem = check_status(record, record.written_status, replay)
        if problem is None:
            return record, replay, seed
    raise CorruptRecord(problem.sentence(), problem)


def _read_as_written(data: bytes, source: str, seed_for: SeedFor, loaded: object = None, *,
                     signatures: bool = True, keep_text: bool = False
                     ) -> tuple[Record, Replay, str] | None:
    """The fast path of :func:`read_game`; None sends the record down the checked path.
    ``loaded``: ``data`` already read, by the strict loader (a ``yamlio.Loaded``) or as
    :func:`rebis_pbm.formats.yaml_reader.simple_data` gives it (a dict); None: read here, by
    ``simple_data`` when it can (no positions kept: a record rebis-pbm wrote needs none),
    else by the strict loader. ``keep_text``: the record keeps its moves' text
    (:attr:`Record.moves_read`), for a command that writes it again."""
    from rebis_pbm.formats.schemas import address_accepted, check_integer_spelling, defined_pattern
    try:
        if loaded is None:
            loaded = simple_data(data, kind="record")
            if loaded is None:
                loaded = load_yaml(data, source=source, kind="record")
        doc: YamlValue
        if type(loaded) is dict:
            doc = loaded  # integers plainly spelled: simple_data reads no other
        else:
            assert isinstance(loaded, Loaded)  # else: the checked path
            check_integer_spelling(loaded)
            doc = loaded.data
        addresses = doc.get("addresses", {})
        if not all(address_accepted(address) for address in addresses.values()):
            return None  # no digest covers the addresses: only their form is checked
        record = Record.from_dict(doc)
        if not defined_pattern("move", "game").fullmatch(record.game):
            return None
        player = defined_pattern("move", "player")
        if not all(player.fullmatch(name) for name in record.players):
            return None  # names become file names: never trust them unchecked
        seed = seed_for(record)
        replay = replay_record(record, seed, signatures=signatures)
        if not same_data(doc, record.to_dict(replay.state)):
            return None  # 1 is not true nor "1", and the keys keep their order
    except Exception:  # whatever is wrong, the checked path finds it and words it
        return None
    # the writer copies the moves' text instead of writing each again (issue 31)
    read = moves_read(data.decode("utf-8"), doc) if keep_text else None
    return (record if read is None else replace(record, moves_read=read)), replay, seed
