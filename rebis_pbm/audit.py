"""Audits of a game record: is it the game that was played, by the rules, unedited?

:func:`walk` goes through a record once, in order, and stops at the first problem: the header
digest, the revealed seed against its commitment, then for each move its turn number, its seat
order, its chain digest and, when the seed is known, its sealed card (opened), its legality (the
engine replays it), its keyed state digest and whether exactly the closing plays are sealed. :func:`verify` reads a record's bytes, runs the walk, checks the status and
returns a :class:`Report` (what was checked, what could not be, the first problem).
docs/audit.md says what each digest covers and what each check proves.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Callable

from .digests import chain_digest, state_digest
from .engine import IllegalMove, apply_move, setup
from .engine.state import FINISHED, PLAY, RED_TOKEN
from .record import Record, Replay, SealedMove, closes_shelf, seed_commitment
from .views import counted
from .yamlio import InputError, load_yaml

# Stable problem codes (Problem.code), in the order the checks run.
CODES = (
    "unreadable",      # the file is not a YAML mapping (cut short, damaged)
    "schema",          # the document is not a valid record (field missing, wrong form)
    "header_digest",   # game id, ruleset, players or seed commitment edited
    "seed_mismatch",   # the seed revealed in the record is not the committed one
    "wrong_seed",      # the seed given from outside (secret file, env) is not the committed one
    "setup",           # the ruleset cannot deal this game
    "after_end",       # a move after the red token, the game's last move (R12)
    "turn_order",      # a move missing, repeated or out of order
    "seat_order",      # a turn played by the wrong seat (R5, R6)
    "chain_digest",    # the entry, or one before it, edited
    "seal",            # a closing play's sealed card opens to no card of the deck (R8.1)
    "illegal_move",    # the move breaks the rules at its point (R6-R12)
    "state_digest",    # the state after the move is not the one the referee recorded
    "sealing",         # a closing play shows its card, or a play that does not close is sealed
    "not_revealed",    # the game is over but the record does not reveal its seed
    "status",          # the status does not follow from the moves
)


@dataclass(frozen=True)
class Problem:
    """The first thing wrong with a record.

    Attributes:
        code: one of :data:`CODES`.
        message: what is wrong, in plain words (no hidden card: hands and the deck never appear).
        turn: the move the problem is at (its place in the record: move N is turn N), or None for
            the header; for the status, the last move.
        player: the player the entry there names (None for the header or the status).
        expected: what the record should hold there; found: what it holds.
    """

    code: str
    message: str
    turn: int | None = None
    player: str | None = None
    expected: str | None = None
    found: str | None = None

    @property
    def where(self) -> str:
        """``turn 7 (alice)``, ``the status after turn 37`` or ``the record's header``."""
        if self.code in ("status", "not_revealed"):
            return "the status" + (f" after turn {self.turn}" if self.turn else "")
        if self.turn is None:
            return "the record's header"
        return f"turn {self.turn}" + (f" ({self.player})" if self.player else "")

    def sentence(self) -> str:
        """One sentence: where, what, expected and found."""
        text = f"{self.where}: {self.message}"
        if self.expected is not None or self.found is not None:
            text += f" (expected {self.expected}; found {self.found})"
        return text

    def as_dict(self) -> dict:
        return {"code": self.code, "turn": self.turn, "player": self.player,
                "message": self.message, "expected": self.expected, "found": self.found}


@dataclass(frozen=True)
class Walk:
    """The result of :func:`walk`.

    Attributes:
        problem: the first problem, or None.
        replay: the replayed game when the seed was known and every move passed; else None.
        moves: how many moves passed every check before the problem (all of them if none).
    """

    problem: Problem | None
    replay: Replay | None
    moves: int


def _short(move) -> str:
    """A move in one line, as the record writes it (no hidden card: only what the mover played)."""
    return json.dumps(move.as_dict(), separators=(", ", ": "))


def _places_red_token(entry) -> bool:
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
        "created", expected=f"header_sha256 {record.header_sha256}",
        found=f"header_sha256 {record.computed_header_sha256()}")


def walk(record: Record, seed: str | None = None) -> Walk:
    """Check ``record`` from its header to its last move; stop at the first problem.

    Without a seed (none given and none revealed): header digest, turn numbers, seat order and
    chain digests. With one (``seed``, else the record's revealed seed): also the seed against the
    commitment, each sealed card (it must open), each move's legality by replaying it (R5-R12),
    each keyed state digest, and that a move's card is sealed exactly when it closes a shelf
    (R8.1, docs/views.md).

    Returns:
        a :class:`Walk`. Never raises for a bad record; the problem says what is wrong.
    """
    problem = check_header(record)
    if problem is not None:
        return Walk(problem, None, 0)
    if record.seed is not None and seed_commitment(record.seed) != record.seed_sha256:
        return Walk(Problem(
            "seed_mismatch", "the seed revealed in the record does not match the commitment made "
            "when the game was created (seed_sha256): it does not deal the game that was played",
            expected=f"a seed whose SHA-256 is {record.seed_sha256}",
            found=f"a seed whose SHA-256 is {seed_commitment(record.seed)}"), None, 0)
    if seed is not None and seed != record.seed and seed_commitment(seed) != record.seed_sha256:
        return Walk(Problem(
            "wrong_seed", "the seed given does not match the record's commitment (seed_sha256): "
            "it is another game's seed, or the record's commitment was replaced",
            expected=f"a seed whose SHA-256 is {record.seed_sha256}",
            found=f"a seed whose SHA-256 is {seed_commitment(seed)}"), None, 0)
    key = seed if seed is not None else record.seed
    state = setup_events = None
    history = []
    if key is not None:
        try:
            state, setup_events = setup(record.ruleset, record.players, key)
        except ValueError as exc:
            return Walk(Problem("setup", f"the game cannot be dealt: {exc}"), None, 0)
    n = len(record.players)
    for index, entry in enumerate(record.moves):
        turn = index + 1
        at = {"turn": turn, "player": entry.player}
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
                expected=f"chain_sha256 {record.links[index].chain_sha256}",
                found=f"chain_sha256 {computed}", **at), None, index)
        if key is None:
            continue
        sealed = isinstance(entry, SealedMove)
        move = entry.opened(key, record.game, record.ruleset) if sealed else entry
        if move is None:
            return Walk(Problem(
                "seal", "the sealed card of this closing play opens to no card of the deck: the "
                "entry was edited", expected="the seal of one of the deck's numbers (R8.1)",
                found=f"sealed {entry.seal}", **at), None, index)
        try:
            state, events = apply_move(state, move)
        except IllegalMove as exc:
            # The entry as written, not the opened move: a problem report names no hidden card.
            return Walk(Problem(
                "illegal_move", f"the move breaks the rules: {exc.message}",
                expected="a legal move", found=_short(entry), **at), None, index)
        computed = state_digest(state, key)
        if computed != record.links[index].state_hmac:
            return Walk(Problem(
                "state_digest", "the state after this move is not the one the referee recorded "
                "(keyed digest state_hmac): the deal or a move differs from the game played",
                expected=f"state_hmac {record.links[index].state_hmac}",
                found=f"state_hmac {computed}", **at), None, index)
        if closes_shelf(events) != sealed:
            return Walk(Problem(
                "sealing", "this play closes a shelf but the record shows its card, which lies "
                "face down (R8.1)" if not sealed else "this play is sealed but does not close a "
                "shelf; only a closing play's card is sealed (R8.1)",
                expected="play.sealed" if not sealed else "play.cards",
                found="play.cards" if not sealed else "play.sealed", **at), None, index)
        history.append((move, events))
    replay = None if key is None else Replay(state, setup_events, tuple(history))
    return Walk(None, replay, len(record.moves))


# ------------------------------------------------------------------------------- the status

_STATUS_FIELDS = ("phase", "turn", "player", "end", "scores", "winners", "abandoned")
_ABSENT = object()  # a status field that is not there (None is a value: no player to move)


def _differs(expected: dict, found: dict) -> tuple[str, str, str] | None:
    """The first field where two statuses differ: (field, expected text, found text)."""
    def show(value):
        return "absent" if value is _ABSENT else json.dumps(value, separators=(", ", ": "))

    keys = [k for k in _STATUS_FIELDS if k in expected or k in found]
    keys += sorted(k for k in set(expected) | set(found) if k not in _STATUS_FIELDS)
    for key in keys:
        want, have = expected.get(key, _ABSENT), found.get(key, _ABSENT)
        if isinstance(want, dict) and isinstance(have, dict) and want != have:
            for sub in list(want) + [k for k in have if k not in want]:
                if want.get(sub, _ABSENT) != have.get(sub, _ABSENT):
                    return f"{key}.{sub}", show(want.get(sub, _ABSENT)), show(have.get(sub, _ABSENT))
        if want != have:
            return key, show(want), show(have)
    return None


def check_status(record: Record, found: dict, replay: Replay | None) -> Problem | None:
    """Check the record's status (``found``, as written) against the moves.

    With the replay: the whole status must be the one the final state gives (phase, turn and
    player to move, or end, scores and winners; ``abandoned`` when the seed was revealed early),
    and a finished game must reveal its seed. Without: a game whose record does not reveal its
    seed cannot be over, and the turn (and, in phase play, the player to move) must follow from the
    number of moves and the seat order.
    """
    last = len(record.moves) or None
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


# ------------------------------------------------------------------------------- the report

@dataclass
class Report:
    """What ``verify`` found.

    Attributes:
        source: the record's file name as given.
        game: the game id (None if the file could not be read as a record).
        moves: the number of moves in the record.
        seed: where the seed came from ("revealed in the record", a secret file's name,
            "REBIS_PBM_SEED"), or None when it was not known.
        problem: the first problem, or None when everything checked is right.
        checked: what was checked, in plain words (up to the problem).
        not_checked: what could not be checked without the seed.
        status: the record's status as written (None if unreadable).
    """

    source: str
    game: str | None = None
    moves: int = 0
    seed: str | None = None
    problem: Problem | None = None
    checked: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    status: dict | None = None

    @property
    def verified(self) -> bool:
        return self.problem is None

    @property
    def complete(self) -> bool:
        """Verified, and nothing was left unchecked."""
        return self.verified and not self.not_checked

    def as_dict(self) -> dict:
        return {"file": self.source, "game": self.game, "verified": self.verified,
                "complete": self.complete, "moves": self.moves, "seed": self.seed,
                "checked": list(self.checked), "not_checked": list(self.not_checked),
                "problem": None if self.problem is None else self.problem.as_dict(),
                "status": self.status}

    def render_text(self) -> str:
        lines = []
        if self.problem is not None:
            p = self.problem
            game = f"game {self.game} ({self.source})" if self.game else self.source
            lines.append(f"FAILED: {game} at {p.where}: {p.message}.")
            if p.expected is not None:
                lines.append(f"  expected: {p.expected}")
            if p.found is not None:
                lines.append(f"  found:    {p.found}")
            if self.checked:
                lines.append("Checked before this problem: " + "; ".join(self.checked) + ".")
            return "\n".join(lines) + "\n"
        head = "Verified" if self.complete else "Verified as far as possible without the seed"
        lines.append(f"{head}: game {self.game} ({self.source}), {counted(self.moves, 'move')}, "
                     f"{_status_words(self.status)}.")
        lines.append("Checked: " + "; ".join(self.checked) + ".")
        if self.not_checked:
            lines.append("Not checked (needs the seed, revealed in the record when the game ends; "
                         "the referee keeps it until then): " + "; ".join(self.not_checked) + ".")
        status = self.status or {}
        if status.get("phase") == FINISHED:
            scores = status.get("scores", {})
            lines.append("Final score: " + ", ".join(f"{p} {s}" for p, s in scores.items()) + ".")
            won = status.get("winners", [])
            lines.append(("Winner: " if len(won) == 1 else "Shared win: ") + " and ".join(won) + ".")
        return "\n".join(lines) + "\n"


def _status_words(status: dict | None) -> str:
    status = status or {}
    phase = status.get("phase")
    if phase == FINISHED:
        return f"finished ({status.get('end', '?').replace('_', ' ')})"
    if phase == RED_TOKEN:
        return f"game ended, {status.get('player')} to place the red token (turn {status.get('turn')})"
    words = f"turn {status.get('turn')}, {status.get('player')} to move"
    return words + (", abandoned (seed revealed)" if status.get("abandoned") else "")


_ENTRY_START = re.compile(r"^- ")


def _turn_at_line(text: str, line: int | None) -> int | None:
    """The move whose entry holds ``line`` in a record written by rebis-pbm (entries start with
    ``- `` at the left margin under ``moves:``); None when the line is in the header."""
    if line is None:
        return None
    rows = text.splitlines()
    try:
        start = rows.index("moves:")
    except ValueError:
        return None
    if line - 1 <= start:
        return None
    count = sum(1 for row in rows[start + 1:line] if _ENTRY_START.match(row) or row == "-")
    return count or None


def _turn_at_path(data, path: tuple) -> int | None:
    """The move a schema problem is in: its place in ``moves`` (1-based), or the last move for a
    problem with the top level or the status, or None in the header."""
    if not isinstance(data, dict) or not isinstance(data.get("moves"), list):
        return None
    if len(path) >= 2 and path[0] == "moves" and isinstance(path[1], int):
        return path[1] + 1
    header_complete = all(key in data for key in _HEADER_FIELDS)
    if (not path and header_complete) or path[:1] == ("status",):
        return len(data["moves"]) or None  # the status, or a file cut after its last move
    return None


_HEADER_FIELDS = ("format", "game", "ruleset", "players", "seed_sha256", "header_sha256")


def _player_at(data, turn: int | None) -> str | None:
    try:
        player = data["moves"][turn - 1]["player"]
    except (TypeError, KeyError, IndexError):
        return None
    return player if isinstance(player, str) else None


SeedFinder = Callable[[Record], "tuple[str, str] | None"]


def verify(data: bytes, source: str, find_seed: SeedFinder | None = None) -> Report:
    """Verify a record's bytes: its form, then :func:`walk`, then :func:`check_status`.

    Args:
        data: the record file's content.
        source: its name, for the report.
        find_seed: called with the parsed record; returns ``(seed, where it came from)`` or
            None (a record that reveals its seed needs none). What it raises passes through.

    Returns:
        a :class:`Report`; ``report.verified`` is False, with ``report.problem`` set, when anything
        is wrong, a file cut short or damaged included (the problem names the move it breaks off
        in). Nothing else raises.
    """
    from .schemas import validate

    report = Report(source)
    try:
        loaded = load_yaml(data, source=source, kind="record")
    except InputError as exc:
        turn = _turn_at_line(data.decode("utf-8", errors="replace"), exc.line)
        report.problem = Problem("unreadable", "the file is not a complete game record (cut "
                                 f"short, or damaged), so it cannot be read: {exc}", turn=turn)
        return report
    try:
        validate(loaded, "record")
        record = Record.from_dict(loaded.data)
    except ValueError as exc:  # InputError (schema) or a ruleset out of range
        path = exc.path if isinstance(exc, InputError) else ("ruleset",)
        turn = _turn_at_path(loaded.data, path)
        data = loaded.data
        if isinstance(data, dict) and isinstance(data.get("game"), str):
            report.game = data["game"]
        if isinstance(data, dict) and isinstance(data.get("moves"), list) and "status" not in data:
            what = (f"the file stops in or after turn {turn}" if turn else "the file stops before "
                    "the first move") + " without the status that ends every record: it was cut short"
        else:
            what = ("the file is not a game record as rebis-pbm writes it (edited by hand, or cut "
                    f"short): {exc}")
        report.problem = Problem("schema", what, turn=turn, player=_player_at(data, turn))
        return report
    report.game, report.moves, report.status = record.game, len(record.moves), loaded.data["status"]
    report.checked.append("the record's form (its schema)")
    seed, sources = None, []
    if record.seed is not None:
        sources.append("revealed in the record")
    found = None if find_seed is None else find_seed(record)
    if found is not None:
        seed = found[0]
        sources.append(found[1])
    report.seed = " and ".join(sources) or None
    known = report.seed is not None
    result = walk(record, seed)
    code = result.problem.code if result.problem else None
    if code != "header_digest":
        report.checked.append("the header digest")
        if known and code not in ("seed_mismatch", "wrong_seed"):
            report.checked.append("the seed against its commitment (the deck was fixed when the "
                                  "game was created)")
    if result.moves:
        turns = "turn 1" if result.moves == 1 else f"turns 1-{result.moves}"
        report.checked.append(f"{turns}: turn numbers, seat order, chain digests"
                              + (", sealed cards, legality by replay, keyed state digests" if known
                                 else ""))
    report.problem = result.problem or check_status(record, loaded.data["status"], result.replay)
    if report.problem is not None:
        return report
    finished = loaded.data["status"].get("phase") == FINISHED
    report.checked.append("the status and final score" if finished else "the status")
    if not known:
        n = len(record.moves)
        report.not_checked += [
            "that the seed matches its commitment (the deck fixed when the game was created)",
            f"that each of the {n} moves was legal",
            f"the {n} keyed state digests",
            "the status beyond its turn and player to move",
        ]
    return report
