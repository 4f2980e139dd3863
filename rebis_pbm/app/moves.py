"""A move entering a game: a move file read, checked (form, game, sender, signature), submitted.

:func:`submit_move` is the one way a move enters a game, for every transport.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace as dc_replace
from typing import Any, NamedTuple, cast

from rebis_pbm.app.create import with_lang
from rebis_pbm.app.games import Game, check_player, open_game, read_record, require_record
from rebis_pbm.app.views import check_views_dir, check_writable, make_views_dir, views_after_record
from rebis_pbm.engine import Event, IllegalMove, Move, State, apply_move
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import ExitCode, InputError, RebisError, Refused, UsageError, one_line
from rebis_pbm.files.atomic import PathLike, read_input, write_atomic
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import ENCRYPTED, default_views_dir, move_file_name
from rebis_pbm.formats.yaml_reader import clip, load_yaml
from rebis_pbm.present import views as views_mod
from rebis_pbm.record import BEFORE_V3, FAIR_DEAL, Join, Record, Replay, SealedMove, dump_record


class Submitted(NamedTuple):
    """What :func:`submit_move` did.

    Attributes:
        record, replay: the game after the move (as before it when ``duplicate``).
        move: the move submitted.
        events: the move's events (``()`` when ``duplicate``).
        duplicate: the move was already in the record (see :meth:`Record.holds`).
        repaired: when ``duplicate``, how many stale view files were rewritten (an earlier
            ``apply`` interrupted after writing the record); normally 0: nothing changed.
        views_dir: where the views are.
    """

    record: Record
    replay: Replay
    move: Move | JoinMove
    events: tuple[Event, ...]
    duplicate: bool
    repaired: int = 0
    views_dir: str = ""

    @property
    def finished(self) -> bool:
        """Whether this move ended the game (the record now reveals its seed)."""
        return not self.duplicate and self.replay.state is not None and self.replay.state.finished


def already_applied(record: Record, move: Move | JoinMove, repaired: int = 0,
                    views_dir: PathLike | None = None, lang: str | None = None) -> str:
    """What to say when ``move`` is already in ``record`` (see :meth:`Record.holds`), or a join
    (:class:`JoinMove`, which has no turn) already among its joins; ``repaired`` view files
    were rewritten in ``views_dir`` (see :class:`Submitted`). In ``lang`` for a player
    (default English)."""
    from rebis_pbm.present.i18n import gettext_for, ngettext_for
    _ = gettext_for(lang)
    if isinstance(move, JoinMove):
        return _("{player} has joined already, with exactly this join; nothing changed.").format(
            player=move.player)
    entry = record.moves[move.turn - 1]
    # A sealed card is not compared (Record.holds), so say only what was compared.
    what = (_(": a closing play on {owner}'s shelf, like this one (its card is sealed in the "
              "record, so the card sent is not compared)").format(owner=entry.owner)
            if isinstance(entry, SealedMove) else _(" with exactly this move"))
    n_ = ngettext_for(lang)
    extra = (n_(" (rewrote {count} stale view file in {folder}/)",
                " (rewrote {count} stale view files in {folder}/)", repaired).format(
        count=repaired, folder=os.fspath(views_dir or "")) if repaired else _("; nothing changed"))
    return _("Turn {turn} by {player} was already applied{what}{extra}.").format(
        turn=move.turn, player=move.player, what=what, extra=extra)


def author_player(record: Record, author: str) -> str | None:
    """The player ``author`` stands for: a player's name, or an address registered with
    ``new`` (None when no player registered that address).

    Raises:
        UsageError: a name that is not a player's (option ``--as``).
    """
    if "<" in author and author.rstrip().endswith(">"):  # 'Ana <ana@example.org>', as git prints
        from email.utils import parseaddr

        address = parseaddr(author)[1]
        if address:
            author = address
    if "@" in author:  # player names cannot contain '@' (move schema), so this is an address
        return record.player_at(author)
    check_player(record, author, "--as")
    return author


def check_sender(record: Record, author: str, player: str, source: str) -> None:
    """Refuse a move for ``player`` sent by ``author`` (a player's name, or an address as
    :func:`author_player` takes it) unless ``author`` is that player. A ``player`` that is no
    player's is left to the rules, which say so and list the players.

    Raises:
        Refused: ``author`` is no player's address, or another player's (exit 1).
        UsageError: ``author`` is a name that is not a player's (option ``--as``).
    """
    sender = author_player(record, author)
    if sender is None:
        raise Refused(f"{source}: {one_line(clip(author))} is not the address of any player "
                      f"of game {record.game}; a player's address is registered when the "
                      f"game is created")
    if sender != player and player in record.players:
        who = author if sender == author else f"{one_line(clip(author))} ({sender})"
        raise Refused(phrase=Phrase(N_("{source}: this move is for {player}, but it comes "
                                       "from {who}; a player can only send their own moves"),
                                    {"source": source, "player": player, "who": who}))


def read_move(record: Record, game: PathLike, data: bytes, source: str, *,
              author: str | None = None, file_name: str | None = None) -> Move | JoinMove:
    """The move in a move file, checked for everything that needs no seed: the strict loader
    and the move schema, the game id, the file's name (``file_name``, when given, must be
    :func:`move_file_name` of the move's turn and player) and the sender (``author``, when
    given: a player's name or registered address, see :func:`author_player`). Not the rules.

    Raises:
        Refused: unreadable, schema-invalid, for another game or misnamed (exit 2); not from
            its player, or from an address no player registered (exit 1).
        UsageError: ``author`` is a name that is not a player's.
    """
    return read_move_after(record, game, data, source, author=author, file_name=file_name)[0]


def read_move_after(record: Record, game: PathLike, data: bytes, source: str, *,
                    author: str | None = None,
                    file_name: str | None = None) -> tuple[Move | JoinMove, str | None]:
    """:func:`read_move`, with the move file's ``after`` (the chain digest of the history it
    answers, rebis-pbm/4: :func:`check_after`), None when it names none. Raises as
    :func:`read_move`."""
    doc = move_document(data, source)
    after = None if doc.get("after") is None else str(doc["after"])
    joining = "join" in doc or "commitment" in doc
    if doc["game"] != record.game:
        raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
            "{source}: this move is for game {other}, but {record} is game {game}"),
            {"source": source, "other": doc["game"], "record": os.fspath(game),
             "game": record.game}))
    if file_name is not None and not joining:
        # A sealed move (``.age``, docs/git.md) is named as its plain move, plus ``.age``.
        expected = move_file_name(doc["turn"], doc["player"]) + (
            ENCRYPTED if file_name.endswith(ENCRYPTED) else "")
        if file_name != expected:
            raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
                "{source}: this file holds the move of turn {turn} by {player}, so it must be "
                "named {expected}; rename the file, or correct the turn and player in it"),
                {"source": source, "turn": doc["turn"], "player": doc["player"],
                 "expected": expected}))
    if author is not None:
        check_sender(record, author, doc["player"], source)
    if joining:
        return JoinMove(str(doc["player"]), str(doc.get("join", "")),
                        None if doc.get("key") is None else str(doc["key"]),
                        lang=None if doc.get("lang") is None else str(doc["lang"]).lower(),
                        header=None if doc.get("header_sha256") is None
                        else str(doc["header_sha256"]),
                        tz=None if doc.get("tz") is None else str(doc["tz"]),
                        commitment=None if doc.get("commitment") is None
                        else str(doc["commitment"]), after=after), after
    return Move.from_dict(doc), after


def check_after(record: Record, move: Move, after: str | None, signed: bool,
                source: str) -> None:
    """The history a move answers (issue 27; docs/formats.md, ``after``): a move file's
    ``after`` must be the chain digest after this record's last move or join (the header's
    before any), which the mover's view witnessed; the referee's logged actions are chained
    apart, so an extension in between does not make a move stale. In a rebis-pbm/4 game a
    player with a key (``signed``) must name it, so that their signature pins the history;
    others may leave it out. A move for another turn than the next is left to the rules.

    Raises:
        Refused: ``after`` names another history, or an older point of this one, or a signed
            mover of a rebis-pbm/4 game left it out (exit 1: the mover takes their view again).
    """
    at = len(record.moves)
    expected = record.last_digest()
    if after is None:
        if signed and record.pins_history:
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: {player} registered a key, so their move must name the "
                "history it answers: add after: {digest} (the chain_sha256 of your view's witness "
                "line, as your move template gives it) and sign the file again"),
                {"source": source, "player": move.player, "digest": expected}))
        return
    if move.turn != at + 1 or after == expected:
        return
    earlier = next((k for k in range(at) if record.prev_digest(k) == after), None)
    if earlier is not None:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: this move answers move {seen} of this game (after: "
            "{after}...), but the game is at move {now}: take your view again"),
            {"source": source, "seen": earlier, "after": after[:12], "now": at}))
    raise Refused(phrase=Phrase(N_(
        "{source}: move rejected: this move answers move {now} of another history (after: "
        "{after}...); this game's move {now} is {digest}...: take your view again"),
        {"source": source, "now": at, "after": after[:12], "digest": expected[:12]}))


def mover_of(game: PathLike, data: bytes, author: str | None = None) -> tuple[str | None, str]:
    """The player a move file (``data``, perhaps refused) comes from, and the language they
    are spoken to in (issue 18): ``author``'s player when given, else the file's ``player``
    when it names one of the game's; a join's own ``lang:`` when it gives a language
    rebis-pbm speaks, else the record's. ``(None, "en")`` when neither can be told (a file
    too broken to read, a record that cannot be read): this never raises, so that a refusal
    can always be said."""
    from rebis_pbm.present.i18n import check_language
    try:
        record = read_record(game)
    except (RebisError, OSError):
        return None, "en"
    player = None
    if author is not None:
        with contextlib.suppress(UsageError):
            player = author_player(record, author)
    try:
        doc = load_yaml(data, source="move", kind="move").data
    except InputError:
        doc = None
    if not isinstance(doc, dict):
        doc = {}
    if player is None and doc.get("player") in record.players:
        player = str(doc["player"])
    if player is None:
        return None, "en"
    chosen = doc.get("lang") if "join" in doc and doc.get("player") == player else None
    if isinstance(chosen, str):
        with contextlib.suppress(UsageError):  # not a language: the record's is used
            return player, check_language(chosen)
    return player, record.lang(player)


def _check_join_zone(record: Record, zone: str, source: str) -> None:
    """A join's ``tz:`` (rebis-pbm/4): refused in an older record, or naming no time zone this
    system knows."""
    from rebis_pbm.record import BEFORE_V4
    from rebis_pbm.record.deadlines import check_zone
    if record.format in BEFORE_V4:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} is a {format} "
                                       "record, which keeps no time zone; remove tz:"),
                                    {"source": source, "game": record.game,
                                     "format": record.format}))
    try:
        check_zone(zone)
    except UsageError:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: tz: {zone} is not a time zone; "
                                       "write an IANA name such as Europe/Lisbon or UTC"),
                                    {"source": source, "zone": zone})) from None


class JoinMove(NamedTuple):
    """A join move as sent (rebis-pbm/2 fair deal, docs/shuffle.md): ``player``, their
    ``entropy`` and, optionally, the text of their SSH public ``key``, the ``lang`` they are
    to be spoken to in (rebis-pbm/3) and the game's ``header`` digest (its ``header_sha256``,
    which binds a signed join to this game, its seat order and its ruleset). ``turn`` is 0: a
    join comes before turn 1."""

    player: str
    entropy: str
    key: str | None = None
    turn: int = 0
    lang: str | None = None
    header: str | None = None
    tz: str | None = None  # rebis-pbm/4 (absences): the time zone the player reads times in
    commitment: str | None = None  # rebis-pbm/5, round 1 (then ``entropy`` is "")
    after: str | None = None  # rebis-pbm/5, round 2: the last commitment's chain digest


def check_signature(record: Record, move: Move | JoinMove, data: bytes, signature: bytes | None,
                    source: str) -> tuple[bytes, str] | None:
    """The signature of a move file (docs/audit.md, "Signed moves"): required when the mover
    registered a key, and then valid over ``data`` (the file's exact bytes) by that key, in
    namespace ``rebis-pbm``. Returns ``(data, armoured signature)`` for the record, or None for
    a player without a key (a signature is then ignored).

    Raises:
        Refused: no signature, or one that does not check (exit 1).
    """
    from rebis_pbm.crypto.signatures import parse_keys
    from rebis_pbm.record.commitments import join_phase_keys
    keys = () if move.player not in record.players else join_phase_keys(
        record, move.player) if isinstance(move, JoinMove) else record.player_keys(move.player)
    if not keys and isinstance(move, JoinMove) and move.key is not None:
        try:  # a join that registers a key proves it holds the key by signing with it
            keys = parse_keys(move.key, f"{source}: key")
        except ValueError as exc:
            raise Refused(str(exc), ExitCode.INPUT) from None
        if len(keys) != 1:
            raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
                "{source}: key: give one public key line"), {"source": source}))
    if not keys:
        return None
    return data, signed_with(keys, move.player, data, signature, source)


def signed_with(keys: tuple[str, ...], player: str, data: bytes, signature: bytes | None,
                source: str) -> str:
    """The armoured signature of a move file of ``player``, who registered ``keys``: required,
    and valid over ``data`` (the file's exact bytes) by one of them in namespace ``rebis-pbm``.
    The one check of :func:`check_signature` (``apply``) and ``check --view``. Returns the
    signature as checked and as the record keeps it
    (:func:`~rebis_pbm.crypto.sshsig_form.recorded_armour`: a mail's CRLF line ends as LF).

    Raises:
        Refused: no signature, or one that does not check (exit 1).
    """
    from rebis_pbm.crypto.signatures import signed_by
    from rebis_pbm.crypto.sshsig_form import recorded_armour
    if signature is None:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: {player} registered a key, so their moves must be signed "
            "(ssh-keygen -Y sign -f KEY -n rebis-pbm FILE writes FILE.sig); no signature came "
            "with it"), {"source": source, "player": player}))
    # The record keeps the very text checked: a mail's CRLF line ends read as LF, nothing else.
    text = recorded_armour(signature)
    if text is None or not signed_by(data, text, keys):
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: its signature does not check against {player}'s key over "
            "this exact file (sign the file as sent, with ssh-keygen -Y sign -n rebis-pbm)"),
            {"source": source, "player": player}))
    return text


def move_document(data: bytes, source: str, *, joins: bool = True) -> dict[str, Any]:
    """A move file's document: read by the strict loader, named when it is another of
    rebis-pbm's files (:func:`not_a_move`), and valid against the move schema (a join move's
    form too, unless ``joins`` is false).

    Raises:
        Refused: unreadable, another kind of file, or schema-invalid (exit 2), in one sentence
            naming ``source``.
    """
    from rebis_pbm.formats.filekinds import wrong_kind
    from rebis_pbm.formats.schemas import validate
    try:
        loaded = load_yaml(data, source=source, kind="move")
        misfiled = wrong_kind(loaded.data, "move")  # another of rebis-pbm's files, sent as a move
        if misfiled:
            raise InputError(misfiled, source=source)
        joining = joins and isinstance(loaded.data, dict) and (
            "join" in loaded.data or "commitment" in loaded.data)
        validate(loaded, {"$ref": "move.schema.json#/$defs/join_move"} if joining else "move")
    except InputError as exc:
        raise Refused(str(exc), ExitCode.INPUT) from None
    return cast("dict[str, Any]", loaded.data)  # the schema holds


def submit_move(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                views_dir: PathLike | None = None, dry_run: bool = False,
                file_name: str | None = None, signature: bytes | None = None,
                now: str | None = None, referee_key: PathLike | None = None) -> Submitted:
    """The one way a move enters a game, for every transport: check it, append it to the
    record, write the views. Takes the record's lock for the whole of it.

    ``data`` is the move file's bytes and ``source`` its name in messages. In order: what
    :func:`read_move` checks (the strict loader and the move schema, the game id, the file's
    name when ``file_name`` is given, the sender when ``author`` is given), a resubmission of an
    already recorded move (``duplicate``: only existing view files that are out of date are
    rewritten, normally none), an abandoned game, the rules (R6-R12). Unless ``dry_run``, the
    record (the move with its chain link; the seed revealed when the move ends the game,
    docs/audit.md), then the views (in ``views_dir``, default beside GAME) are written.

    ``signature``: the armoured SSH signature over ``data`` (``MOVE.yaml.sig``, a mail's
    ``.sig`` attachment or armoured block, the git job's committed ``.sig``), required when the
    mover registered a key (:func:`check_signature`); the record keeps it. ``referee_key``: the
    referee's key file (else ``$REBIS_PBM_REFEREE_KEY``), which a game with a referee key
    needs to sign the new witness (:func:`rebis_pbm.app.signing.signed_record`). A join move
    (``join:``) enters a fair deal's join phase the same way; the last join deals.

    Raises:
        Refused: the move is unreadable, schema-invalid, for another game, misnamed (exit 2),
            not from its player, or against the rules, stale, late or for an abandoned game
            (exit 1). Nothing is written.
        Failed: the views folder cannot be created (exit 2, nothing written), or the record was
            written but a view could not be (exit 4; the same call again repairs the views).
        InputError, SeedError, CorruptRecord, Busy, OSError: the record or its seed is at fault
            (a record failing verification included), another command holds the record, or
            the record cannot be written.
    """
    require_record(game)
    with locked(game):
        return submit_locked(game, data, source, author=author, views_dir=views_dir,
                       dry_run=dry_run, file_name=file_name, signature=signature,
                       now=now, referee_key=referee_key)


def _stamp(record: Record, now: str | None, **fields: str) -> dict[str, Any]:
    """A move entry's rebis-pbm/2 fields: ``at`` in a game with a deadline or when ``now`` is
    given (a game without one stays free of the clock), and ``fields`` (``by``, ``reason``,
    ``bot``) for a move the referee made."""
    if record.format == "rebis-pbm/1":
        return {}
    stamp: dict[str, Any] = {}
    if now is not None or record.header_extra.get("deadline"):
        from rebis_pbm.record.deadlines import check_forward, now_text
        stamp["at"] = now_text(now)
        check_forward(record, stamp["at"])
    return {**stamp, **fields}


def submit_locked(game: PathLike, data: bytes, source: str, *, author: str | None,
            views_dir: PathLike | None, dry_run: bool, file_name: str | None,
            signature: bytes | None = None, now: str | None = None,
            stand_in: dict[str, str] | None = None, opened: Game | None = None,
            referee_key: PathLike | None = None) -> Submitted:
    # opened: the game as the caller read it under the same lock (tick), else read here.
    record, replay, seed = opened if opened is not None else open_game(game)
    move, after = read_move_after(record, game, data, source, author=author,
                                  file_name=file_name)
    views_dir = os.fspath(views_dir or default_views_dir(game))
    check_views_dir(views_dir, record.game, game, record.players)
    # The referee's move for a player is signed by the referee's key, not the player's
    # (rebis-pbm/4; the caller refuses one in a signed game without a referee key).
    signed = (None if stand_in is not None and record.referee_key is not None
              else check_signature(record, move, data, signature, source))
    if isinstance(move, JoinMove):
        return _join(game, record, replay, seed, move, signed, source, views_dir, dry_run,
                     referee_key, now)
    if record.joining():
        raise Refused(phrase=Phrase(N_("{source}: move rejected: the deal waits for joins by "
                                       "{players}; no turn can be played before"),
                                    {"source": source, "players": ", ".join(record.waiting_for())}))
    if record.holds(move):
        stamp = record.stamps[move.turn - 1] if move.turn <= len(record.stamps) else {}
        if stand_in is None and stamp.get("by") == "referee":
            # the referee played that turn for the player: never "already applied" as theirs
            raise Refused(phrase=Phrase(N_(
                "{source}: move rejected: the referee moved for {player} at turn {turn} before "
                "this move came (every view and verify say so); nothing changed"),
                {"source": source, "turn": move.turn, "player": move.player}))
        _same_closing(record, replay, move, source)
        # A mail delivered twice. Existing view files are rewritten only where they are stale
        # (an earlier apply interrupted after the record was written): normally none.
        repaired = 0 if dry_run else views_after_record(game, views_dir, record, replay,
                                                         stale_only=True)
        return Submitted(record, replay, move, (), duplicate=True, repaired=repaired,
                         views_dir=views_dir)
    if record.abandoned(replay.state):
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was abandoned (its "
                                       "seed was revealed with rebis-pbm reveal); no more moves "
                                       "can be played"), {"source": source, "game": record.game}))
    check_after(record, move, after, signed is not None, source)
    try:
        # A move signed by its player's key comes from them: the hand is told first.
        state, events = apply_move(replay.state, move, hand_first=signed is not None)
    except IllegalMove as exc:
        raise Refused(reason=exc.code, phrase=Phrase(N_("{source}: move rejected: {reason}"), {
            "source": source, "reason": exc.phrase or exc.message})) from None
    # The seed also seals the card of a closing play in the public record (R8.1).
    new_record = record.with_move(move, state, seed, events,
                                  _stamp(record, now, **(stand_in or {})), signed)
    if state.finished:  # the game is over: the record reveals the seed (docs/audit.md)
        new_record = new_record.revealed(seed)
    new_replay = Replay(state, replay.setup_events, replay.history + ((move, events),))
    if not dry_run:
        from rebis_pbm.app.signing import signed_record
        new_record = signed_record(new_record, referee_key)  # rebis-pbm/4: witness and act
        check_writable(game)
        make_views_dir(views_dir)  # fail before the record changes
        write_atomic(game, dump_record(new_record, state, seed))
        views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, events, duplicate=False, views_dir=views_dir)


def _join(game: PathLike, record: Record, replay: Replay, seed: str, move: JoinMove,
          signed: tuple[bytes, str] | None, source: str, views_dir: str,
          dry_run: bool, referee_key: PathLike | None = None,
          now: str | None = None) -> Submitted:
    """A join move entering the join phase; the last join deals (docs/shuffle.md). In a
    rebis-pbm/5 game with a deadline each entry keeps when it was recorded (``at``): the join
    phase's deadlines count from it (docs/deadlines.md)."""
    from rebis_pbm.engine import setup
    from rebis_pbm.record import Proof

    if move.player not in record.players:
        raise Refused(phrase=Phrase(N_("{source}: {player} is not a player of game {game} "
                                       "(players: {players})"),
                                    {"source": source, "player": clip(move.player),
                                     "game": record.game, "players": ", ".join(record.players)}))
    if record.deal != FAIR_DEAL:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was dealt by the "
                                       "referee (new --referee-deal): there is nothing to join"),
                                    {"source": source, "game": record.game}))
    if record.abandoned(replay.state):
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was abandoned"),
                                    {"source": source, "game": record.game}))
    # another game's header first: a copy of its entry is no duplicate of this game's
    if move.header is not None and move.header != record.header_sha256:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: this join names another game's "
                                       "header (header_sha256: {given}), not game {game}'s "
                                       "({header}): it was written for another game of the same "
                                       "name, or before its players, seats or rules changed; "
                                       "write your join from this game's template"),
                                    {"source": source, "given": move.header,
                                     "game": record.game, "header": record.header_sha256}))
    from rebis_pbm.app.deal_rounds import check_round, same_entry
    if record.two_rounds or move.commitment is not None:  # rebis-pbm/5: two rounds
        if same_entry(record, move, _key_line(move.key)):
            return Submitted(record, replay, move, (), duplicate=True, views_dir=views_dir)
        check_round(record, move, signed is not None, source)
    for join in () if record.two_rounds else record.joins:
        if join.player == move.player:
            if join.entropy == move.entropy and join.key == _key_line(move.key):
                return Submitted(record, replay, move, (), duplicate=True, views_dir=views_dir)
            raise Refused(phrase=Phrase(N_("{source}: move rejected: {player} has joined "
                                           "already; a player joins once"),
                                        {"source": source, "player": move.player}))
    if move.after is not None and (move.commitment is not None or not record.two_rounds):
        # only a second-round join answers a history (the commitments'): a commitment and a
        # one-round join name the header, which verify holds them to (join_bound)
        raise Refused(phrase=Phrase(N_("{source}: move rejected: a commitment, or a join of a "
                                       "one-round deal, names this game's header "
                                       "(header_sha256: {header}), not after: remove after: "
                                       "and sign the file again"),
                                    {"source": source, "header": record.header_sha256}))
    if (move.header is None and signed is not None and record.pins_history
            and move.after is None):
        # rebis-pbm/4: a signed join pins the game's header as a signed move pins its history
        raise Refused(phrase=Phrase(N_("{source}: move rejected: {player} registered a key, so "
                                       "their join must name this game's header: add "
                                       "header_sha256: {header} (as the join template gives it) "
                                       "and sign the file again"),
                                    {"source": source, "player": move.player,
                                     "header": record.header_sha256}))
    if move.commitment is None and views_mod.is_join_placeholder(move.entropy):
        raise Refused(phrase=Phrase(N_("{source}: move rejected: the join still holds the "
                                       "template's words; replace them with any text of your "
                                       "own that nobody could guess: the deal is fair only if "
                                       "the referee could not have guessed what you wrote"),
                                    {"source": source}))
    if move.lang is not None and record.format in BEFORE_V3:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} is a {format} "
                                       "record, which keeps no language; remove lang:"),
                                    {"source": source, "game": record.game,
                                     "format": record.format}))
    if move.tz is not None:  # rebis-pbm/4 (absences)
        _check_join_zone(record, move.tz, source)
    if record.views_encrypted:
        _join_brings_a_key(record, move, source)
    proof = None if signed is None else Proof(signed[1], signed[0].decode("utf-8"))
    at = _stamp(record, now).get("at") if record.two_rounds else None
    new_record = record.with_join(Join(move.player, move.entropy, _key_line(move.key), proof,
                                       commitment=move.commitment, after=move.after, at=at))
    if move.lang is not None:
        new_record = dc_replace(new_record, langs=with_lang(new_record.langs, move.player,
                                                            move.lang))
    if move.tz is not None:
        new_record = dc_replace(new_record, time_zones={**new_record.time_zones,
                                                        move.player: move.tz})
    new_replay = Replay(cast(State, None), ())  # the join phase: no state until the deal
    if not new_record.joining():
        state, setup_events = setup(record.ruleset, record.players, new_record.deal_seed(seed))
        new_replay = Replay(state, setup_events)
    if not dry_run:
        from rebis_pbm.app.signing import signed_record
        new_record = signed_record(new_record, referee_key)  # rebis-pbm/4: the witness signed
        make_views_dir(views_dir)
        write_atomic(game, dump_record(new_record, new_replay.state, seed))
        views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, (), duplicate=False, views_dir=views_dir)


def _join_brings_a_key(record: Record, move: JoinMove, source: str) -> None:
    """In a game whose views are encrypted (``new --encrypt-views``), the joining player must
    have a key age encrypts to, registered with ``new --key`` or brought in the join: their
    views are written encrypted to it from the deal on.

    Raises:
        Refused: no key, or one of another kind than ssh-ed25519 or ssh-rsa (exit 2).
    """
    from rebis_pbm.crypto.age import encryptable_key
    line = (record.player_keys(move.player) or (_key_line(move.key),))[0]
    if line is None:
        raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
            "{source}: join rejected: game {game} writes each player's view encrypted to their "
            "SSH key (new --encrypt-views), and {player} has none; add key: with your public key "
            "(ssh-ed25519 or ssh-rsa) to the join and sign it"),
            {"source": source, "game": record.game, "player": move.player}))
    try:
        encryptable_key(line, f"{source}: key")
    except InputError as exc:
        raise Refused(f"{exc} (game {record.game} encrypts {move.player}'s views to it)",
                      ExitCode.INPUT) from None


def _key_line(text: str | None) -> str | None:
    if text is None:
        return None
    from rebis_pbm.crypto.signatures import parse_keys
    return parse_keys(text, "key")[0]


def _same_closing(record: Record, replay: Replay, move: Move, source: str) -> None:
    """A resent closing play (R8.1) whose card could not have closed the shelf is another move,
    not the one recorded: the closed shelf's weight is public, so saying so opens no seal.

    Raises:
        Refused: the card sent would not have closed that shelf (exit 1).
    """
    entry = record.moves[move.turn - 1]
    if not isinstance(entry, SealedMove):
        return
    from rebis_pbm.engine import events as ev

    closed = next((e for e in replay.history[move.turn - 1][1] if isinstance(e, ev.Closed)), None)
    if closed is None:
        return
    seat = replay.state.players.index(closed.owner)
    weight = replay.state.shelves[seat][closed.shelf - 1].weight
    limit = record.ruleset.shelf_limit
    assert move.play is not None  # a closing play (R8.1)
    card = move.play.cards[0]
    if weight + card <= limit:
        raise Refused(reason="stale_turn", phrase=Phrase(N_(
            "{source}: move rejected: turn {turn} was played by {player}, closing {owner}'s shelf "
            "{shelf} (weight {weight}, limit {limit}); a {card} would not have closed it, so this "
            "is a different move, and turn {turn} has already been played"),
            {"source": source, "turn": move.turn, "player": entry.player, "owner": closed.owner,
             "shelf": closed.shelf, "weight": weight, "limit": limit, "card": card}))


def swapped_arguments(exc: InputError, game: PathLike, command: str) -> InputError:
    """``exc`` (GAME could not be read as a record), or, when GAME reads as a move file, an
    InputError saying that the arguments look swapped (``rebis-pbm COMMAND GAME.yaml
    MOVE.yaml``). Anything else about the record is left as ``exc`` says it."""
    source = os.fspath(game)
    if exc.source != source:
        return exc
    try:
        doc = load_yaml(read_input(source, kind="record")[0], source=source, kind="move").data
    except InputError:
        return exc
    if isinstance(doc, dict) and "turn" in doc and "player" in doc and "moves" not in doc:
        return InputError(f"this is a move file, not a game record: the arguments look swapped; "
                          f"write rebis-pbm {command} GAME.yaml MOVE.yaml", source=source)
    return exc


def check_move_file(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                    file_name: str | None = None) -> tuple[Record, Move | JoinMove]:
    """Check a move file without the seed: what :func:`read_move` checks (its form, its game,
    its name, its sender), not the rules. Reads the record without replaying it; writes
    nothing. Anyone may run it: a player before sending, or a pull request's check.

    Raises:
        Refused, UsageError: as :func:`read_move`; InputError, CorruptRecord: the record
            (see :func:`swapped_arguments` for a move file given as the record).
    """
    require_record(game)
    record = read_record(game)
    move, after = read_move_after(record, game, data, source, author=author,
                                  file_name=file_name)
    if isinstance(move, Move):  # the history it answers needs no seed either (rebis-pbm/4)
        check_after(record, move, after, bool(record.player_keys(move.player))
                    if move.player in record.players else False, source)
    return record, move
