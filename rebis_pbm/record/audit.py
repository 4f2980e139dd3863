"""Audits of a game record: is it the game that was played, by the rules, unedited?

:func:`verify` reads a record's bytes, checks its form, runs the walk
(:func:`rebis_pbm.record.verify.walk`: the header digest, the revealed seed against its commitment,
then for each move its turn number, its seat order, its chain digest and, when the seed is known,
its sealed card (opened), its legality (the engine replays it), its keyed state digest and
whether exactly the closing plays are sealed), checks the status
(:func:`rebis_pbm.record.verify.check_status`) and returns a :class:`Report` (what was checked, what
could not be, the first problem). The walk and the status check live with the record, since
every read of a record runs them; this module is what only ``verify`` needs.
docs/audit.md says what each digest covers and what each check proves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rebis_pbm.crypto.signatures import fingerprint as fingerprint  # where verify names a key
from rebis_pbm.engine.state import FINISHED, RED_TOKEN
from rebis_pbm.errors import InputError, one_line
from rebis_pbm.formats.yaml_reader import FieldPath, YamlValue, load_yaml, simple_data
from rebis_pbm.record.keys import unreadable_key
from rebis_pbm.record.model import BEFORE_V3, FAIR_DEAL, Document, Record, Replay
from rebis_pbm.record.pins import INSECURE_SEED, NO_REFEREE_KEY, insecure
from rebis_pbm.record.verify import Problem, Walk, _read_as_written, check_status, join_bound, walk
from rebis_pbm.record.versions import BEFORE_V4
from rebis_pbm.record.wording import counted, is_join_placeholder, winners_line

if TYPE_CHECKING:
    from rebis_pbm.record.witness import Witness

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
        deal_from: the parties whose entropy went into the deal, ``["referee"]`` then the
            joined players in seat order (a rebis-pbm/1 or referee deal: ``["referee"]``); once
            dealt, without those in ``blank_joins``.
        blank_joins: the players whose join kept the join template's words (in any language):
            the referee wrote them, so they add nothing to the deal it could not know.
        unsigned_joins: the players in ``deal_from`` (of a fair deal) whose join is not signed by
            a key the header registered (``new --key``): unsigned, or signed only by the key the
            join itself brings, it could have been written by the referee, so the deal is fair
            only as far as each of them confirms that the join in the record is the one they
            sent. Their entropy is in the deal all the same.
        referee: lines saying what the referee did (moves made for a player, logged actions).
        keys: player -> the SHA256 fingerprints (as ``ssh-keygen -l`` prints them) of the keys
            in force for their next move: each player checks that theirs is the key they hold,
            an auditor that they are the keys the players published.
        key_changes: player -> the keys their moves were signed by, in order, for each player
            whose key a ``replace_player`` action changed: ``{"from_move": N, "keys": [...],
            "by": B}``, B ``"new"`` (registered at ``new``), ``"join"`` (brought by their join),
            ``"none"`` (no key before) or ``"replace-player"`` (a key the referee logged: only the
            player can confirm it is theirs; docs/audit.md, "Who can do what").
        deal_pending: a fair deal still waiting for joins (``deal_from`` is who joined so far).
        two_rounds: a rebis-pbm/5 fair deal (a commitment, then a join, each signed by a key
            registered at ``new`` for the player to count as confirmed).
        referee_recipient: the age recipient players seal their moves to (rebis-pbm/3
            ``new --referee-recipient``), or None.
        encrypt_views: the game's private views are written only encrypted (rebis-pbm/3).
    """

    source: str
    game: str | None = None
    moves: int = 0
    seed: str | None = None
    problem: Problem | None = None
    checked: list[str] = field(default_factory=list)
    not_checked: list[str] = field(default_factory=list)
    status: Document | None = None
    deal_from: list[str] = field(default_factory=list)
    blank_joins: list[str] = field(default_factory=list)
    unsigned_joins: list[str] = field(default_factory=list)
    referee: list[str] = field(default_factory=list)
    keys: dict[str, list[str]] = field(default_factory=dict)
    key_changes: dict[str, list[Document]] = field(default_factory=dict)
    deal_pending: bool = False
    referee_recipient: str | None = None
    encrypt_views: bool = False
    two_rounds: bool = False  # rebis-pbm/5: a commitment, then a join (its shorter deal lines)
    referee_format: bool = False  # rebis-pbm/4 and later: a referee key may sign the record
    referee_key: str | None = None  # the fingerprint of the record's referee key (rebis-pbm/4)
    insecure_seed: bool = False  # the revealed salt is the seed's own: new --insecure-seed
    deal_signers: dict[str, list[str]] = field(default_factory=dict)  # rebis-pbm/5

    @property
    def verified(self) -> bool:
        return self.problem is None

    @property
    def complete(self) -> bool:
        """Verified, and nothing was left unchecked."""
        return self.verified and not self.not_checked

    def as_dict(self) -> Document:
        return {"file": self.source, "game": self.game, "verified": self.verified,
                "complete": self.complete, "moves": self.moves, "seed": self.seed,
                "checked": list(self.checked), "not_checked": list(self.not_checked),
                "problem": None if self.problem is None else self.problem.as_dict(),
                "status": self.status, "deal_from": list(self.deal_from),
                **({"blank_joins": list(self.blank_joins)} if self.blank_joins else {}),
                **({"unsigned_joins": list(self.unsigned_joins)} if self.unsigned_joins else {}),
                "deal_pending": self.deal_pending,
                "keys": {p: list(k) for p, k in self.keys.items()},
                **({"key_changes": {p: [dict(c) for c in changes]
                                    for p, changes in self.key_changes.items()}}
                   if self.key_changes else {}),
                # rebis-pbm/3's settings, only when set: an older record's report is unchanged.
                **({"referee_recipient": self.referee_recipient}
                   if self.referee_recipient else {}),
                **({"encrypt_views": True} if self.encrypt_views else {}),
                **({"deal_signers": {p: list(k) for p, k in self.deal_signers.items()}}
                   if self.deal_signers else {}),
                # rebis-pbm/4 and later: the referee key's fingerprint, or null (none signed)
                **({"referee_key": self.referee_key} if self.referee_format else {}),
                **({"insecure_seed": True} if self.insecure_seed else {})}

    def render_text(self) -> str:
        lines = []
        if self.problem is not None:
            p = self.problem
            # Each on its line: the record's own text (its game id, a player, a value quoted
            # from a field) may hold line breaks or control characters; none passes for a line.
            game = f"game {self.game} ({self.source})" if self.game else self.source
            end = "" if p.message.endswith((".", "?", "!")) else "."
            lines.append(one_line(f"FAILED: {game} at {p.where}: {p.message}{end}"))
            if p.expected is not None:
                lines.append(one_line(f"  expected: {p.expected}"))
            if p.found is not None:
                lines.append(one_line(f"  found:    {p.found}"))
            if self.checked:
                lines.append("Checked before this problem: " + "; ".join(self.checked) + ".")
            return "\n".join(lines) + "\n"
        head = "Verified" if self.complete else "Verified as far as possible without the seed"
        lines.append(f"{head}: game {self.game} ({self.source}), {counted(self.moves, 'move')}, "
                     f"{_status_words(self.status)}.")
        lines.append("Checked: " + "; ".join(self.checked) + ".")
        if self.two_rounds:
            lines.extend(_two_round_lines(self))
        elif self.deal_pending:
            lines.append("Deal: not dealt yet, waiting for joins (joined so far: "
                         + (", ".join(self.deal_from[1:]) or "nobody") + ").")
        elif self.deal_from == ["referee"]:
            lines.append("Deal from: referee (the referee's seed alone: the referee could have "
                         "chosen the deal).")
        elif self.deal_from and not self.unsigned_joins:
            lines.append("Deal from: " + ", ".join(self.deal_from)
                         + " (a fair deal: nobody could choose it alone; in this one-round format "
                         "the last to join could, with the seed's holder).")
        elif self.deal_from:
            lines.append("Deal from: " + ", ".join(self.deal_from) + " (a fair deal only as far "
                         "as " + _unsigned_words(self.unsigned_joins) + ").")
        if self.deal_pending and self.unsigned_joins:
            lines.append("Once dealt, the deal will be fair only as far as "
                         + _unsigned_words(self.unsigned_joins) + ".")
        if self.blank_joins:
            lines.append("The join of " + " and ".join(self.blank_joins) + " kept the join "
                         "template's words: it adds nothing the referee did not know"
                         + ("." if self.deal_pending else ", so it does not count in the deal "
                            "above."))
        for player, prints in self.keys.items():
            if player in self.key_changes:
                lines.append(_key_change_line(player, self.key_changes[player]))
            elif len(prints) == 1:
                lines.append(f"Key of {player}: {prints[0]} (check it is the key you hold, or "
                             f"the one {player} published).")
            else:  # any one of them signs for the player: one not theirs is somebody else's pen
                lines.append(f"Keys of {player}: {', '.join(prints)} (each signs for {player}: "
                             f"check that every one is a key {player} holds or published).")
        if self.referee_key is not None:
            lines.append(f"Referee key: {self.referee_key} (check it is the one the referee "
                         f"published; verify --referee-pub FILE checks it for you).")
        elif self.referee_format:
            lines.append(NO_REFEREE_KEY)
        if self.insecure_seed:
            lines.append(INSECURE_SEED)
        if self.referee_recipient:
            lines.append(f"Referee's recipient: {self.referee_recipient} (players seal their "
                         f"moves to it; check it is the one the referee published).")
        if self.encrypt_views:
            lines.append("Views: each player's written only encrypted to their key.")
        lines.extend(self.referee)
        if self.not_checked:
            lines.append("Not checked (needs the seed, revealed in the record when the game ends; "
                         "the referee keeps it until then): " + "; ".join(self.not_checked) + ".")
        status = self.status or {}
        if status.get("phase") == FINISHED:
            scores = status.get("scores", {})
            lines.append("Final score: " + ", ".join(f"{p} {s}" for p, s in scores.items()) + ".")
            lines.append(winners_line(status.get("winners", [])) + ".")
        return "\n".join(lines) + "\n"


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


_KEY_FROM = {"new": "registered at new", "join": "brought by their join",
             "replace-player": "logged by the referee (replace-player)"}


def _key_change_line(player: str, changes: list[Document]) -> str:
    """The key line of a player whose key the referee replaced: each key and the move from
    which it signs, and that a key the referee gave is the player's only on their word."""
    parts = []
    for change in changes:
        prints = ", ".join(change["keys"]) or "none"
        words = _KEY_FROM.get(str(change["by"]), "registered at new")
        given = change["by"] == "replace-player" or change["from_move"] != 1
        parts.append(f"from move {change['from_move']}: {prints} {words}" if given
                     else f"{prints} {words}")
    return (f"Key of {player}: " + "; ".join(parts) + f": moves from then on are signed by a key "
            f"the referee gave, which only {player} can confirm is theirs (check it is the key "
            f"you hold, or the one {player} published).")


def key_changes(record: Record) -> dict[str, list[Document]]:
    """For each player whose key a ``replace_player`` action changed, the keys their moves are
    signed by, in order (:attr:`Report.key_changes`)."""
    found: dict[str, list[Document]] = {}
    for action in record.actions:
        if action.get("action") != "replace_player" or "key" not in action:
            continue
        player = str(action.get("player"))
        if player not in found:
            first = record.player_keys(player, before=-1)  # before any action
            by = "new" if record.keys.get(player) else "join" if first else "none"
            found[player] = [{"from_move": 1, "keys": [fingerprint(k) for k in first],
                              "by": by}]
        found[player].append({"from_move": int(action.get("after", 0)) + 1,
                              "keys": [fingerprint(str(action["key"]))],
                              "by": "replace-player"})
    return found


def confirmed_joins(record: Record) -> set[str]:
    """The players of a rebis-pbm/5 fair deal whose commitment and join are both signed by a
    key the header registered (``new --key``), each over a file naming what it answers (the
    header digest, the last commitment's digest). A key a join brought or ``replace-player
    --key`` logged may be the referee's: such a player's deal is not confirmed (docs/audit.md).
    """
    from rebis_pbm.crypto.signatures import signed_by
    found: dict[str, int] = {}
    for join in record.joins:
        keys = tuple(record.keys.get(join.player, ()))
        proof = join.proof
        if (keys and proof is not None and proof.signed is not None
                and signed_by(proof.signed.encode("utf-8"), proof.signature, keys)
                and join_bound(record, join)):
            found[join.player] = found.get(join.player, 0) + 1
    return {p for p, n in found.items() if n == 2}


def _two_round_lines(report: Report) -> list[str]:
    """The deal's lines of a rebis-pbm/5 fair deal: short, as a newcomer reads them."""
    lines = []
    status = report.status or {}
    if report.deal_pending and status.get("abandoned"):
        return ["Deal: none (the game ended before the deal; nobody saw a card)."]
    if report.deal_pending:
        lines.append(f"Deal: not dealt yet, round {status.get('round', 1)} of 2, waiting for "
                     + ("commitments" if status.get("round", 1) == 1 else "joins") + " by "
                     + ", ".join(status.get("waiting", [])) + ".")
    unconfirmed = ", ".join(report.unsigned_joins)
    if report.deal_pending and unconfirmed:
        lines.append(f"Once dealt, the deal will not be confirmed for {unconfirmed} (unsigned "
                     f"or keys registered later).")
    elif unconfirmed:
        lines.append(f"Deal: not confirmed for {unconfirmed} (unsigned or keys registered "
                     f"later): they must check their joins in the record.")
    elif not report.deal_pending:
        lines.append("Deal: fair (two rounds, every join signed by a key registered at new).")
    if report.deal_signers:
        lines.append("Signed by (each player checks the key is theirs):")
        lines += [f"  {p}'s commitment and join: key {', '.join(fps)}"
                  for p, fps in report.deal_signers.items()]
    if report.blank_joins:
        lines.append("The join of " + " and ".join(report.blank_joins) + " kept the join "
                     "template's words: it adds nothing the referee did not know.")
    return lines


def _unsigned_words(players: list[str]) -> str:
    """Who must confirm their join for the deal to be fair, and why, as a clause."""
    if len(players) == 1:
        return (f"{players[0]} confirms their join: it is not signed, with a key registered "
                "when the game was created, over a join naming this game's header (its id, "
                "seats, rules and seed commitment), so the referee could have written it, or "
                f"taken it from another game; {players[0]} can check that the join text in the "
                "record is the one they sent for this game")
    return (" and ".join([", ".join(players[:-1]), players[-1]]) + " confirm their joins: they "
            "are not signed, with a key registered when the game was created, over a join "
            "naming this game's header (its id, seats, rules and seed commitment), so the "
            "referee could have written them, or taken them from another game; each can check "
            "that the join text in the record is the one they sent for this game")


def _status_words(status: Document | None) -> str:
    status = status or {}
    phase = status.get("phase")
    # a field the status lacks (a hand-edited record, read without the seed) is said as "?"
    player, turn = status.get("player") or "?", status.get("turn") or "?"
    if phase == "join":
        return "waiting for joins: " + ", ".join(status.get("waiting", []))
    if phase == FINISHED:
        return f"finished ({status.get('end', '?').replace('_', ' ')})"
    if phase == RED_TOKEN:
        return f"game ended, {player} to place the red token (turn {turn})"
    words = f"turn {turn}, {player} to move"
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


def _turn_at_path(data: object, path: FieldPath) -> int | None:
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


def _player_at(data: YamlValue, turn: int | None) -> str | None:
    if turn is None:
        return None  # as data["moves"][None - 1] did: a TypeError
    try:
        player = data["moves"][turn - 1]["player"]
    except (TypeError, KeyError, IndexError):
        return None
    return player if isinstance(player, str) else None


SeedFinder = Callable[[Record], "tuple[str, str] | None"]


def _as_written(data: bytes, source: str, loaded: object, find_seed: SeedFinder | None
                ) -> tuple[Record, Replay, str | None, list[str]] | None:
    """``(record, replay, seed, where the seed came from)`` when the record is exactly as
    rebis-pbm writes it and its seed is known (the fast read of every command,
    :func:`rebis_pbm.record.verify.read_game`: then the walk and the status check find
    nothing, and jsonschema is not needed; :func:`verify` still checks the schema, with its
    compiled check); None otherwise, and whenever ``find_seed`` raises: the checked path then
    says what it says."""
    sources: list[str] = []

    def seed_for(record: Record) -> str:
        found = None if find_seed is None else find_seed(record)
        if record.seed is not None:
            sources.append("revealed in the record")
        if found is not None:
            sources.append(found[1])
            return found[0]
        if record.seed is None:
            raise LookupError("no seed: only the checked path can verify this record")
        return record.seed

    read = _read_as_written(data, source, seed_for, loaded)
    if read is None:
        return None
    record, replay, _ = read
    # walk() replays with the seed given from outside when there is one, else the record's own.
    return record, replay, (None if len(sources) == 1 and record.seed is not None
                            else read[2]), sources


def _values_valid(doc: object) -> bool:
    """Does a record read as written (:func:`_as_written`: its form is the model's) hold only
    values its schema allows? The header, joins, actions and status by the record's compiled
    check; the moves, whose values the replay, the digests and the stand-in checks judge, only
    for their times' form, so that the check does not grow with the game (issue 31)."""
    from rebis_pbm.formats.schemas import defined_pattern, quickly_accepted
    if not isinstance(doc, dict) or not isinstance(doc.get("moves"), list):
        return False
    time = defined_pattern("record", "time")
    return (all(not isinstance(move, dict) or "at" not in move
                or (isinstance(move["at"], str) and time.fullmatch(move["at"]) is not None)
                for move in doc["moves"])
            and quickly_accepted({**doc, "moves": []}, "record"))


def verify(data: bytes, source: str, find_seed: SeedFinder | None = None,
           witnesses: Sequence[Witness] = ()) -> Report:
    """Verify a record's bytes: its form, then :func:`walk`, then :func:`check_status`.

    Args:
        data: the record file's content.
        source: its name, for the report.
        find_seed: called with the parsed record; returns ``(seed, where it came from)`` or
            None (a record that reveals its seed needs none). What it raises passes through.
        witnesses: :class:`rebis_pbm.record.witness.Witness` es, each a chain digest at a move
            that a saved view or mail saw: the record must still hold it (problem ``witness``).

    Returns:
        a :class:`Report`; ``report.verified`` is False, with ``report.problem`` set, when anything
        is wrong, a file cut short or damaged included (the problem names the move it breaks off
        in). Nothing else raises.
    """
    from rebis_pbm.formats.schemas import load_schema, validate
    report = Report(source)
    # A record as rebis-pbm writes it is read without positions; any other is read by the
    # strict loader, whose positions its messages need.
    simple = simple_data(data, kind="record")
    fast = None if simple is None else _as_written(data, source, simple, find_seed)
    if fast is not None and not _values_valid(simple):
        # Read as written, but not valid: a referee can write (and sign) values its commands
        # never write (a negative extension); the checked path names the field.
        fast = None
    try:
        loaded = load_yaml(data, source=source, kind="record") if fast is None else None
    except InputError as exc:
        turn = _turn_at_line(data.decode("utf-8", errors="replace"), exc.line)
        report.problem = Problem("unreadable", "the file is not a complete game record (cut "
                                 f"short, or damaged), so it cannot be read: {exc}", turn=turn)
        return report
    if fast is None and simple is None:
        fast = _as_written(data, source, loaded, find_seed)
        if fast is not None and (loaded is None or not _values_valid(loaded.data)):
            fast = None
    try:
        if fast is None:
            assert loaded is not None  # read by the strict loader above
            validate(loaded, "record")
            doc = loaded.data
            assert isinstance(doc, dict)  # load_yaml reads only mappings
            record = Record.from_dict(doc)
        else:
            record = fast[0]
    except ValueError as exc:  # InputError (schema) or a ruleset out of range
        assert loaded is not None  # only the strict loader's path raises here
        path = exc.path if isinstance(exc, InputError) else ("ruleset",)
        turn = _turn_at_path(loaded.data, path)
        read = loaded.data
        if isinstance(read, dict) and isinstance(read.get("game"), str):
            report.game = read["game"]
        if (isinstance(read, dict) and isinstance(read.get("moves"), list) and "status" not in read
                and set(read) <= set(load_schema("record")["properties"])):  # else: edited
            what = (f"the file stops in or after turn {turn}" if turn else "the file stops before "
                    "the first move") + (" without the status that ends every record: it was cut "
                                         "short")
        elif path[:1] == ("status",):  # the status is no move's: no player, its own code
            report.problem = Problem("status", "the record's status is not one rebis-pbm writes "
                                     f"(edited by hand): {exc}", turn=turn)
            return report
        else:
            what = ("the file is not a game record as rebis-pbm writes it (edited by hand, or cut "
                    f"short): {exc}")
        report.problem = Problem("schema", what, turn=turn, player=_player_at(read, turn))
        return report
    written = simple if loaded is None else loaded.data
    assert isinstance(written, dict)  # a record's top level is a mapping
    report.game, report.moves, report.status = record.game, len(record.moves), written["status"]
    unreadable = unreadable_key(record)
    if unreadable is not None:  # an edited key: a failure in one sentence, never a crash
        report.problem = Problem("schema", unreadable)
        return report
    joins = ({j.player: j for j in record.joins if j.commitment is None}
             if record.deal == FAIR_DEAL else {})
    # A join that kept the template's words adds nothing the referee did not know.
    report.blank_joins = [p for p in record.players
                          if p in joins and is_join_placeholder(joins[p].entropy)]
    report.deal_pending = bool(record.waiting_for())
    report.deal_from = ["referee"] + [p for p in record.players  # seat order
                                      if p in joins and (report.deal_pending
                                                         or p not in report.blank_joins)]
    # Only a key the header registered (new --key) authenticates a join: an unsigned join, one
    # signed by the key it brings itself, or by a key a replace-player action logged (before or
    # after the join: the record does not say) could have been written by the referee; and a
    # signed join that does not name this game's header digest could be another game's of the
    # same id, or of this seed with other seats or rules (the referee keeping the one it liked).
    report.unsigned_joins = [p for p in report.deal_from[1:]
                             if p not in report.blank_joins
                             and not (record.keys.get(p) and join_bound(record, joins[p]))]
    if record.two_rounds:  # rebis-pbm/5: both entries signed by a key registered at new
        report.two_rounds = True
        confirmed = confirmed_joins(record)
        report.unsigned_joins = [p for p in report.deal_from[1:] if p not in confirmed]
        from rebis_pbm.record.commitments import entry_signer
        for join in record.joins:  # the key each entry was signed by: its player checks it
            signer = entry_signer(record, join)
            if signer is not None and fingerprint(signer) not in report.deal_signers.get(
                    join.player, []):
                report.deal_signers.setdefault(join.player, []).append(fingerprint(signer))
    keys_held = {p: record.player_keys(p) for p in record.players}
    report.keys = {p: [fingerprint(k) for k in keys] for p, keys in keys_held.items() if keys}
    report.key_changes = key_changes(record)
    report.referee_recipient = record.referee_recipient
    report.encrypt_views = record.views_encrypted
    report.referee_format = record.format not in BEFORE_V4
    report.referee_key = None if record.referee_key is None else fingerprint(record.referee_key)
    report.insecure_seed = insecure(record)
    report.checked.append("the record's form (its schema)")
    if fast is not None:
        _, replay, seed, sources = fast
    else:
        seed, sources = None, []
        if record.seed is not None:
            sources.append("revealed in the record")
        found = None if find_seed is None else find_seed(record)
        if found is not None:
            seed = found[0]
            sources.append(found[1])
    report.seed = " and ".join(sources) or None
    known = report.seed is not None
    report.referee = referee_lines(record, known)
    # The fast read replayed the record with every check of the walk, which found nothing.
    result = walk(record, seed) if fast is None else Walk(None, replay, len(record.moves))
    code = result.problem.code if result.problem else None
    keyed = record.format not in BEFORE_V3  # rebis-pbm/3: record_hmac
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
    if any(record.player_keys(p) for p in record.players):
        given = "; ".join(f"{p}'s from move {c[1]['from_move']} by a key the referee gave "
                          f"(replace-player), {p}'s only on {p}'s word"
                          for p, c in report.key_changes.items())
        report.checked.append("each move's signature by its player's key"
                              + ("" if known else " (a closing play's once the seed is revealed)")
                              + (f" ({given})" if given else ""))
    if record.referee_key is not None and code is None:  # rebis-pbm/4
        report.checked.append(f"the referee's signatures (key {fingerprint(record.referee_key)}) "
                              f"of the record's witness, of its moves for players and of its "
                              f"logged actions")
    if keyed and known and code is None:  # the walk's last check, passed
        report.checked.append(_RECORD_DIGEST)
    report.problem = result.problem or check_status(record, written["status"], result.replay)
    if report.problem is None:
        from rebis_pbm.record.witness import check_witness
        for witness in witnesses:
            wrong = check_witness(record, witness)
            if wrong is not None:
                held_digest = (record.links[witness.move - 1].chain_sha256
                               if witness.game == record.game
                               and 0 < witness.move <= len(record.moves) else None)
                report.problem = Problem("witness", wrong, turn=witness.move or None,
                                         expected=f"chain_sha256 {witness.chain_sha256} at move "
                                         f"{witness.move} (witness {witness.source})",
                                         found=None if held_digest is None
                                         else f"chain_sha256 {held_digest} at move {witness.move}")
                break
        else:
            if witnesses:
                report.checked.append("the record holds every witness ("
                                      + _witness_files(witnesses) + ")")
    if report.problem is not None:
        return report
    finished = written["status"].get("phase") == FINISHED
    report.checked.append("the status and final score" if finished else "the status")
    if not known:
        n = len(record.moves)
        report.not_checked += [
            "that the seed matches its commitment (the deck fixed when the game was created)",
            f"that each of the {n} moves was legal",
            f"the {n} keyed state digests",
            "the status beyond its turn and player to move",
        ]
        if keyed:
            report.not_checked.append(_RECORD_DIGEST)
    return report


def _witness_files(witnesses: Sequence[Witness]) -> str:
    """The files the witnesses came from, each once, with the number of witnesses a file held
    when it held several (a refusal names two points of the history: one statement)."""
    held: dict[str, set[tuple[int, str]]] = {}
    for w in witnesses:
        held.setdefault(w.source, set()).add((w.move, w.chain_sha256))
    refusals = {w.source for w in witnesses if w.refusal}
    return ", ".join(f"{source}: {len(points)} witnesses"
                     if len(points) > 1 and source not in refusals else source
                     for source, points in held.items())


_RECORD_DIGEST = ("the keyed record digest record_hmac (the players' keys, addresses, languages "
                  "and settings bound to the seed)")

_ACTION_WORDS = {"replace_player": "the referee replaced {player}'s address",
                 "extend_deadline": "the referee extended the deadline by {seconds} s",
                 "end_game": "the referee ended the game",
                 "away": "{player} is away from {start} to {end}",  # rebis-pbm/4 (absences)
                 "back": "{player} is back",
                 "reveal": "the referee revealed the seed (the game abandoned)"}


def referee_lines(record: Record, known: bool = False) -> list[str]:
    """What the referee did in a rebis-pbm/2 record, one line each, in order: the moves made
    for a player, its reason and bot as the referee's word, then what verify checked of them
    ("turn 12: the referee moved for bob (the referee says: missed deadline, greedy bot);
    checked: the deadline had passed, the greedy bot's move"; the bot's move is checked when
    the seed is ``known``) and the logged actions ("after turn 12: the referee extended the
    deadline by 86400 s (bob asked)")."""
    from rebis_pbm.record.deadlines import BEFORE_V4, MISSED, REPLACED, RESIGNED
    lines = []
    timed = "deadline" in record.header_extra
    # rebis-pbm/4 and later: referee_checks.check_stand_in_claim checks these reasons' claims
    claims = {} if record.format in BEFORE_V4 else {
        REPLACED: "the missed turns before it", RESIGNED: "the resignation logged before it"}
    for move, stamp in zip(record.moves, record.stamps, strict=False):
        if stamp.get("by") == "referee":
            reason, bot = one_line(str(stamp.get("reason"))), stamp.get("bot")
            checked = (["the deadline had passed"] if timed and "at" in stamp
                       and stamp.get("reason") == MISSED else [])
            if stamp.get("reason") in claims:
                checked.append(claims[str(stamp.get("reason"))])
            if known and bot in ("greedy", "random"):
                checked.append(f"the {bot} bot's move")
            lines.append(f"  turn {move.turn}: the referee moved for {move.player} (the "
                         f"referee says: {reason}, {bot} bot"
                         f"{'; signed by the referee' if record.referee_key else ''}); "
                         + (f"checked: {', '.join(checked)}" if checked else "not checked"))
    for action in record.actions:
        if action.get("action") == "replace_player":
            changed = [what for field, what in (("address", "address"), ("key", "key"),
                                                ("lang", "language")) if field in action]
            words = (f"the referee replaced {action.get('player')}'s "
                     f"{' and '.join(changed) or 'address'}")
            if not changed and action.get("reason") == "resigned by mail":  # deadlines.RESIGNED
                words = f"the referee gave {action.get('player')}'s seat to the bot for good"
        else:
            kind = str(action.get("action"))
            words = _ACTION_WORDS.get(kind, kind)
            words = words.format(player=action.get("player"), seconds=action.get("seconds"),
                                 start=action.get("start"), end=action.get("end"))
        # one line whoever wrote the record: a reason must not pass for a line of the verdict
        why = f" ({one_line(str(action['reason']))})" if action.get("reason") else ""
        lines.append(f"  after turn {action.get('after')}, at {action.get('at')}: {words}{why}")
    return (["The referee's part:"] + lines) if lines else []

