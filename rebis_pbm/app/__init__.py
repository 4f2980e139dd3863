"""The application layer: each use case of a referee, a player or an auditor, once.

Every shell calls only this module: the command line (:mod:`rebis_pbm.cli`), the mail transport
(:mod:`rebis_pbm.transports.mail.jobs`), the git job and the bots' command. It reads and writes
files (records, secrets, views) and raises the project's errors (:mod:`rebis_pbm.errors`), each
carrying its exit code; it never prints and never imports click. The rules are the engine's
(:mod:`rebis_pbm.engine`), the record's form and checks :mod:`rebis_pbm.record`'s, what a viewer
may know :mod:`rebis_pbm.present.views`'s.

The use cases: :func:`create_game`, :func:`submit_move` (the one way a move enters a game, for
every transport), :func:`check_move_file`, :func:`player_view`, :func:`legal_moves_listing`,
:func:`score`, :func:`verify`, :func:`reveal`, :func:`bot_move`. A program may call them as they
are (docs/api.md):

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> game = os.path.join(folder, "game.yaml")
>>> created = create_game(game, ["ann", "ben"], seed="doctest seed", game_id="doc",
...                       insecure_seed=True)
>>> created.record.players, created.state.player_to_move
(('ann', 'ben'), 'ann')
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from rebis_pbm.engine import (
    IllegalMove,
    Move,
    Ruleset,
    State,
    apply_move,
    burdens,
    check_move,
    score_table,
    winners,
)
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import (
    ExitCode,
    Failed,
    InputError,
    RebisError,
    Refused,
    SeedError,
    UsageError,
    one_line,
)
from rebis_pbm.files.atomic import (
    PathLike,
    explain_os_error,
    make_folder,
    read_input,
    write_atomic,
)
from rebis_pbm.files.lock import locked
from rebis_pbm.files.names import DEFAULT_GAME as DEFAULT_GAME
from rebis_pbm.files.names import ENCRYPTED as ENCRYPTED
from rebis_pbm.files.names import (
    QUEUE_SUFFIX,
    RECORD_SUFFIX,
    SECRET_SUFFIX,
    SIGNATURE,
    VIEWS_SUFFIX,
    default_views_dir,
    move_file_name,
    secret_path,
)
from rebis_pbm.formats.yaml_reader import clip, load_yaml, top_level_text
from rebis_pbm.present import views as views_mod
from rebis_pbm.record import (
    BEFORE_V3,
    FAIR_DEAL,
    FORMAT,
    HEADER,
    REFEREE_DEAL,
    CorruptRecord,
    Join,
    Record,
    Replay,
    SealedMove,
    ascii_lower,
    commitment,
    dump_record,
    dump_secret,
    find_seed,
    parse_record,
    read_game,
    salted,
)

if TYPE_CHECKING:  # imported where used: only their commands pay for them
    from rebis_pbm.present.infoset import ViewState
    from rebis_pbm.present.site import PublicGame
    from rebis_pbm.record.audit import Report
__all__ = [
    "Created",
    "Game",
    "Revealed",
    "Submitted",
    "already_applied",
    "bot_move",
    "check_against_view",
    "check_move_file",
    "check_sender",
    "create_game",
    "default_views_dir",
    "for_mover",
    "legal_moves_from_view",
    "legal_moves_listing",
    "move_file_name",
    "mover_of",
    "open_game",
    "player_view",
    "public_game",
    "read_move",
    "read_record",
    "read_view",
    "record_paths",
    "require_record",
    "reveal",
    "ruleset_from",
    "score",
    "secret_path",
    "submit_move",
    "verify",
    "verify_many",
    "write_encrypted_views",
    "write_site",
    "write_views",
]


# --- reading a game --------------------------------------------------------------------------

class Game(NamedTuple):
    """A game read from its record and replayed from its seed.

    Attributes:
        record: the record as read (:class:`~rebis_pbm.record.Record`).
        replay: the replayed game: the state after the last move, the setup's events, and each
            move with its events.
        seed: the game's seed (secret until the game ends: never show it to a player).
    """

    record: Record
    replay: Replay
    seed: str

    @property
    def state(self) -> State:
        """The state after the record's last move."""
        return self.replay.state


def require_record(game: PathLike) -> None:
    """Refuse a GAME that is not an existing file before anything else happens (before its
    lock is taken).

    Raises:
        InputError: a missing path or a folder (exit 2).
    """
    if os.path.isdir(game):
        raise InputError("this is a folder, not a game record; give the path of the record "
                         "(e.g. game.yaml) inside it", source=os.fspath(game))
    if not os.path.exists(game):
        raise InputError("there is no such game record; check the name and the folder "
                         "(`rebis-pbm new` creates a game)", source=os.fspath(game))


def read_record(record_path: PathLike) -> Record:
    """Read and validate a record without its seed and without replaying it: what anyone can
    know of a game (its id, players, addresses, the moves as recorded).

    Raises:
        InputError: the record cannot be read or is not a valid record (exit 2).
        CorruptRecord: a record rebis-pbm wrote that is now damaged (see :func:`damaged_record`).
    """
    return _record_of(*read_input(os.fspath(record_path), kind="record"))


def _record_of(data: bytes, source: str) -> Record:
    """:func:`read_record` of bytes already read."""
    known = _opened.get(data)
    if known is not None:  # these very bytes were read, validated and replayed in this process
        return known.record
    try:
        return parse_record(data, source)
    except InputError as exc:
        raise damaged_record(exc, data, source) from None


def open_game(record_path: PathLike) -> Game:
    """Read and validate a record, find its seed (revealed, ``REBIS_PBM_SEED`` or the secret
    file) and replay it, checking every digest on the way (docs/audit.md).

    Raises:
        InputError, SeedError: the record or its seed cannot be read (exit 2).
        CorruptRecord: the record fails verification (exit 3); the message names the turn.
    """
    data, source = read_input(os.fspath(record_path), kind="record")
    seed_for = lambda record: find_seed(record_path, record)  # noqa: E731
    known = _opened.get(data)
    if known is not None and _same_seed(known, seed_for):
        return known
    try:
        game = Game(*read_game(data, source, seed_for))
    except InputError as exc:
        raise damaged_record(exc, data, source) from None
    except CorruptRecord as exc:
        raise CorruptRecord(f"{source} fails verification at {exc}; nothing was written "
                            f"(rebis-pbm verify {source} tells more)", exc.problem) from None
    _opened[data] = game
    while len(_opened) > _OPENED_MAX:
        del _opened[next(iter(_opened))]  # the oldest
    return game


# Games read in this process, by the record's exact bytes: reading the same bytes with the same
# seed gives the same game, so a second read of an unchanged record in one process (the sender
# check of `mail in`, then submit_move) replays nothing. A few games at most: a process handling
# many games reads each once.
_opened: dict[bytes, Game] = {}
_OPENED_MAX = 4
KEPT_MAX = 256  # games_kept's bound: about 50 MB of games of 30 moves


@contextlib.contextmanager
def games_kept(count: int) -> Iterator[None]:
    """Within it, :func:`open_game` keeps up to ``count`` games read (at most
    :data:`KEPT_MAX`, at least the usual 4): a process that handles a folder of games (``mail
    in`` of a league) reads each game once for its routing, and its later reads of the same
    unchanged bytes replay nothing."""
    global _OPENED_MAX
    before = _OPENED_MAX
    _OPENED_MAX = max(before, min(count, KEPT_MAX))
    try:
        yield
    finally:
        _OPENED_MAX = before
        while len(_opened) > _OPENED_MAX:
            del _opened[next(iter(_opened))]  # the oldest


def _same_seed(game: Game, seed_for: Callable[[Record], str]) -> bool:
    """Does ``seed_for`` still give ``game``'s seed? Any failure sends the record down the whole
    read again, which raises it as a first read would."""
    try:
        return bool(seed_for(game.record) == game.seed)
    except Exception:
        return False


def damaged_record(exc: InputError, data: bytes, source: str) -> Exception:
    """What to raise when a record's bytes ``data`` do not read as a record (``exc``).

    A file that starts with the header rebis-pbm writes on every record (:data:`HEADER`), or
    with part of it, and no longer reads as YAML, or lacks its ``status`` or has it broken
    (the writer writes it last), was damaged since: cut short, or merged badly. It fails
    verification (exit 3), worded as ``verify`` words it (docs/audit.md), since the schema's
    advice ("add it") would invite editing the record by hand. Anything else keeps ``exc``
    (exit 2): a file that is no record at all (a move or secret file given as the record), or
    a field edited by hand, such as the players' addresses, which the referee may correct
    (docs/mail.md).
    """
    header = HEADER.encode()
    if not (data.startswith(header) or (data and header.startswith(data))):
        return exc
    from rebis_pbm.record.audit import verify as run_verify  # only a damaged record needs it

    problem = run_verify(data, source).problem
    cut_short = problem is not None and (  # no status, or a broken one (verify's code "status")
        (problem.code == "schema" and b"\nstatus:" not in data)
        or (problem.code == "status" and exc.path[:1] == ("status",)))
    if problem is None or not (problem.code == "unreadable" or cut_short):
        return exc
    return CorruptRecord(f"{source} fails verification at {problem.sentence()}; nothing was "
                         f"written (rebis-pbm verify {source} tells more)", problem)


def check_player(record: Record, player: str, option: str = "--player") -> None:
    """Raises UsageError (exit 2) unless ``player`` is one of ``record``'s players."""
    if player not in record.players:
        close = [name for name in record.players if name.casefold() == player.casefold()]
        hint = f"; did you mean {close[0]}?" if close else ""
        raise UsageError(f"no player {clip(player)!r} in game {record.game} (players: "
                         f"{', '.join(record.players)}){hint}", option)


def for_mover(game: PathLike, player: str) -> tuple[Record, State]:
    """:func:`open_game` for a use case that acts for ``player``, who must be the one to move.

    Raises:
        UsageError: ``player`` is not in the game (exit 2).
        Refused: it is not ``player``'s move, or the game is over or abandoned (exit 1).
    """
    record, replay, _ = open_game(game)
    state = replay.state
    check_player(record, player)
    if record.joining() and not record.abandoned(state):
        if player in record.waiting_for():
            raise Refused(phrase=Phrase(N_("{player} has no move to make: the deal waits for "
                                           "{player}'s join"), {"player": player}))
        raise Refused(phrase=Phrase(N_("{player} has no move to make: {player} has joined; the "
                                       "deal waits for {players}"),
                                    {"player": player, "players": ", ".join(record.waiting_for())}))
    if record.abandoned(state):
        raise Refused(phrase=_abandoned_no_move(player, record.game))
    if state.player_to_move != player:
        raise Refused(phrase=_no_move_to_make(player, state))
    return record, state


def _abandoned_no_move(player: str, game: str) -> Phrase:
    return Phrase(N_("{player} has no move to make: game {game} was abandoned (its seed was "
                     "revealed with rebis-pbm reveal)"), {"player": player, "game": game})


def _no_move_to_make(player: str, state: State) -> Phrase:
    """Why ``player``, not the one to move in ``state``, has no move to make (a phrase)."""
    if state.finished:
        return Phrase(N_("{player} has no move to make: the game is over"), {"player": player})
    return Phrase(N_("{player} has no move to make: turn {turn} is {to_move}'s"),
                  {"player": player, "turn": state.turn, "to_move": state.player_to_move})


# --- views -----------------------------------------------------------------------------------

def record_view(record: Record, replay: Replay, viewer: str | None,
                lang: str | None = None) -> dict[str, Any]:
    """``views.build_view`` for a game: every card once the record reveals its seed, the
    addresses when the game made them public, the deadline when there is one;
    ``views.join_view`` in the join phase. Every view carries the record's witness (docs/audit.md,
    "Witnesses"). ``lang``: the language of its sentences (for a text view; default English,
    as YAML and JSON views always are)."""
    if record.joining():
        view = views_mod.join_view(record.game, record.players, record.waiting_for(), viewer,
                                   lang, record.header_sha256)
        if record.seed is not None:
            view["abandoned"] = True
            view.pop("move_template", None)
    else:
        view = views_mod.build_view(record.game, replay, viewer, revealed=record.seed is not None,
                                    abandoned=record.abandoned(replay.state),
                                    addresses=record.shown_addresses(), lang=lang,
                                    stand_ins=stand_ins(record))
        if record.header_extra.get("deadline") is not None and "to_move" in view:
            from rebis_pbm.record.deadlines import (
                deadline_of,  # only games with deadlines pay for the import
            )

            deadline = deadline_of(record)
            if deadline is not None:
                view["deadline"] = deadline  # docs/deadlines.md
    if viewer is not None and record.lang(viewer) != "en":
        # The viewer's language, in their own view only, after their name: their tools answer
        # in it (check --view, moves --view; docs/views.md "Languages").
        items = list(view.items())
        at = [key for key, _ in items].index("viewer") + 1
        view = dict([*items[:at], ("lang", record.lang(viewer)), *items[at:]])
    if record.referee_recipient:  # public: what players seal their moves to (rebis-pbm/3)
        view["referee_recipient"] = record.referee_recipient
    view["witness"] = {"game": record.game, "move": len(record.moves),
                       "chain_sha256": record.last_digest()}
    return view


def stand_ins(record: Record) -> dict[int, str]:
    """The moves the referee made for a player (``by: referee`` in the record: ``tick`` after a
    missed deadline, ``move-for``), as ``{turn: reason}`` (the reason as the record words it,
    e.g. ``missed deadline``)."""
    return {turn: str(stamp.get("reason", "")) for turn, stamp in enumerate(record.stamps, 1)
            if stamp.get("by") == "referee"}


def stand_in_reason(record: Record, turn: int) -> str | None:
    """Why the referee made the move of ``turn`` for its player (see :func:`stand_ins`), or
    None when the player made it."""
    return stand_ins(record).get(turn)


def player_view(game: PathLike, player: str | None) -> dict[str, Any]:
    """The view of ``player`` (None: the spectator view) of the game in ``game``, as a dict
    that :func:`rebis_pbm.present.views.render` turns into text, YAML or JSON (docs/views.md).

    Raises:
        UsageError: ``player`` is not in the game; as :func:`open_game` otherwise.
    """
    if player is None:
        record, replay = public_game_state(game)
        return record_view(record, replay, None)
    record, replay, _ = open_game(game)
    check_player(record, player)
    return record_view(record, replay, player)


def rendered_view(game: PathLike, player: str | None, fmt: str,
                  lang: str | None = None) -> str:
    """The view of ``player`` (None: the spectator view) rendered as ``fmt`` (``text``,
    ``yaml``, ``json``, ``svg``: :func:`rebis_pbm.present.views.render`). The text and the picture's
    words are in ``lang`` (``en``, ``fr``, ``pt``), by default the player's own language as the
    record keeps it (``Record.lang``; the spectator view's is English); YAML and JSON are
    English (data).

    Raises:
        UsageError: ``player`` is not in the game, or ``lang`` is not a supported language
            (option ``--lang``), or ``svg`` before the deal (a fair deal's join phase, no table
            to draw; option ``--format``); as :func:`open_game` otherwise.
    """
    if lang is not None:
        from rebis_pbm.present.i18n import check_language
        lang = check_language(lang)
    if player is None:
        record, replay = public_game_state(game)
    else:
        record, replay, _ = open_game(game)
        check_player(record, player)
    if fmt == "svg" and record.joining():
        raise UsageError(f"game {record.game} waits for joins by "
                         f"{', '.join(record.waiting_for())}: before the deal there is no table "
                         f"to draw; use --format text, yaml or json", "--format")
    if fmt not in ("text", "svg"):
        lang = None
    elif lang is None:
        lang = record.lang(player)
    if fmt == "svg":
        return picture(record, replay, player, lang)
    return views_mod.render(record_view(record, replay, player, lang), fmt, lang)


def picture(record: Record, replay: Replay, viewer: str | None, lang: str | None = None) -> str:
    """The picture of ``viewer``'s view (None: the spectator's) as a standalone SVG document
    (:func:`rebis_pbm.present.svg.render_svg`), its words in ``lang`` (default English), as the mail
    draws it: from the English view (the picture finds the last move's shelves in its English
    account) with the last move told as the view built in ``lang`` tells it. Same information
    set as the view. Raises nothing of its own."""
    from rebis_pbm.present.svg import render_svg, told_last_move  # here: only a picture needs them

    last_move = None
    if lang not in (None, "en"):
        last_move = told_last_move(record_view(record, replay, viewer, lang))
    return render_svg(record_view(record, replay, viewer), lang=lang, last_move=last_move)


def _seed_at_hand(game: PathLike) -> bool:
    """Whether the seed is at hand outside the record: ``REBIS_PBM_SEED``, or the secret file."""
    from rebis_pbm.record import SEED_ENV

    return bool(os.environ.get(SEED_ENV)) or os.path.exists(secret_path(game))


def public_game_state(game: PathLike) -> tuple[Record, Replay]:
    """The game as a spectator may know it: :func:`open_game` when the seed is at hand (every
    digest checked), else, from the public record alone, the record's chain checked without the
    seed (docs/audit.md) and the moves replayed on public information
    (:func:`rebis_pbm.record.public.public_replay`): face-down cards count 0 and are never
    needed for the public view or the score.

    Raises:
        InputError: the record cannot be read (exit 2).
        CorruptRecord: the record fails verification (exit 3).
    """
    record, replay, _ = _public_state(game)
    return record, replay


def _public_state(game: PathLike, states: list[State] | None = None
                  ) -> tuple[Record, Replay, Any]:
    """:func:`public_game_state`, and ``verify``'s report on the record alone (under its file
    name only) when it was read without the seed, else None; ``states`` (a list) receives the
    public table after the deal and after every move on that path (``public_replay``)."""
    # A seed at hand is used (every digest checked), and a wrong one refused (SeedError) as
    # everywhere; the record is read without it only when there is none.
    if _seed_at_hand(game):
        record, replay, _ = open_game(game)
        return record, replay, None
    data, source = read_input(os.fspath(game), kind="record")
    record = _record_of(data, source)  # read once: the bytes serve every check below
    if record.seed is not None:
        record, replay, _ = open_game(game)
        return record, replay, None
    from rebis_pbm.record.audit import verify as run_verify
    from rebis_pbm.record.public import public_replay

    # Under its file name only: no folder of the referee's in a page built from it.
    report = run_verify(data, os.path.basename(os.fspath(game)))
    if report.problem is not None:
        raise CorruptRecord(f"{source} fails verification at {report.problem.sentence()}; "
                            f"rebis-pbm verify {source} tells more", report.problem)
    try:
        return record, public_replay(record, states), report
    except IllegalMove as exc:  # a chain that holds but a move the rules refuse: edited
        raise CorruptRecord(f"{source} fails verification: {exc.message}") from None


def write_views(views_dir: PathLike, record: Record, replay: Replay, *,
                stale_only: bool = False, keys: dict[str, str] | None = None) -> int:
    """One view per player (YAML and text, mode 0600) and the public view (mode 0644).

    A view file that already holds exactly the right bytes and mode is left alone, so writing the
    views of an unchanged game changes nothing on disk. With ``stale_only``, only view files that
    exist but are out of date are rewritten (what an ``apply`` interrupted after writing the
    record leaves); no file or folder is created. Returns how many files were written.

    With ``keys`` (player -> SSH public key line), the private views are written only encrypted
    to their player: :func:`write_encrypted_views` (a game in a public repository). A record
    created with ``new --encrypt-views`` (rebis-pbm/3, :attr:`Record.views_encrypted`) is
    written so always, to the keys its players registered (:func:`registered_view_keys`), without
    ``keys``: no command can write its private views in plain text.

    Raises:
        OSError: a :class:`~rebis_pbm.files.atomic.FileError`, worded for people, when the folder or
            a file cannot be written.
        Failed, InputError: with ``keys``, a player has no usable key (see
            :func:`write_encrypted_views`).
    """
    if keys is None and record.views_encrypted:  # new --encrypt-views (rebis-pbm/3)
        keys = registered_view_keys(record)
    if keys is not None:
        if stale_only:  # an encrypted view cannot be compared: written again in full
            return 0 if not os.path.isdir(views_dir) else \
                write_encrypted_views(views_dir, record, replay, keys)
        return write_encrypted_views(views_dir, record, replay, keys)
    if not os.path.isdir(views_dir):
        if stale_only:
            return 0
        make_folder(views_dir, what="the views folder")  # its parent must exist
    written = 0
    for viewer in (*record.players, None):
        name = viewer or views_mod.PUBLIC
        mode = 0o644 if viewer is None else 0o600
        for fmt, suffix in (("yaml", ".yaml"), ("text", ".txt")):
            path = os.path.join(views_dir, f"{name}{suffix}")
            if stale_only and not os.path.exists(path):
                continue
            data = kept_rendering(record, replay, viewer, fmt).encode("utf-8")
            if not _holds(path, data, mode):
                # Views are derived from the record and rewritten on every apply: atomic, but
                # not fsynced (the record is).
                write_atomic(path, data, mode=mode, durable=False)
                written += 1
    return written


def registered_view_keys(record: Record) -> dict[str, str]:
    """Player -> the SSH public key their views are encrypted to: the first key they registered
    (``new --key``, their join, ``replace-player --key``); players without one are left out."""
    registered = {p: record.player_keys(p) for p in record.players}
    return {p: k[0] for p, k in registered.items() if k}


def _holds(path: str, data: bytes, mode: int) -> bool:
    """Does ``path`` already hold exactly ``data`` with permission bits ``mode``?"""
    try:
        found = os.stat(path)
        if (found.st_mode & 0o7777) != mode or found.st_size != len(data):
            return False  # after a move most views change length: nothing to read
        with open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def kept_rendering(record: Record, replay: Replay, viewer: str | None, fmt: str) -> str:
    """``views.render`` of ``record_view(record, replay, viewer)`` as ``fmt``, a text view in
    its player's language (``Record.lang``; YAML and JSON are English data), kept for the last
    game rendered (the same ``record`` and ``replay`` objects): the view files an ``apply``
    writes and the messages ``mail in`` builds for the same move are rendered once.

    Raises:
        as :func:`rebis_pbm.present.views.render` (an unknown ``fmt``: ValueError).
    """
    texts = _kept(record, replay)
    lang = record.lang(viewer) if fmt == "text" else "en"
    key = (viewer, fmt, lang)
    text = texts.get(key)
    if text is None:
        chosen = None if lang == "en" else lang
        text = texts[key] = views_mod.render(kept_view(record, replay, viewer, chosen), fmt,
                                             chosen)
    return text


def kept_view(record: Record, replay: Replay, viewer: str | None,
              lang: str | None = None) -> dict[str, Any]:
    """:func:`record_view`, kept like :func:`kept_rendering`'s texts: a move's views are built
    once for its view files and its messages. The dict is shared: read it, do not change it."""
    texts = _kept(record, replay)
    key = (viewer, "view", lang or "en")
    view = texts.get(key)
    if view is None:
        view = texts[key] = record_view(record, replay, viewer, lang)
    return cast("dict[str, Any]", view)


def _kept(record: Record, replay: Replay) -> dict[tuple[str | None, str, str], Any]:
    global _rendered
    kept_record, kept_replay, texts = _rendered
    if kept_record is not record or kept_replay is not replay:
        texts = {}
        _rendered = (record, replay, texts)
    return texts


# The game whose views were built and rendered last: its views by (viewer, "view", language)
# and its texts by (viewer, format, language).
_rendered: tuple[Any, Any, dict[tuple[str | None, str, str], Any]] = (None, None, {})


def check_views_dir(views_dir: PathLike, game_id: str) -> None:
    """Refuse a views folder that holds another game's views (each view names its game), so
    that ``--views-dir`` pointed at the wrong folder overwrites nothing.

    Raises:
        UsageError: a view in the folder is of another game (option ``--views-dir``, exit 2).
    """
    path = os.path.join(os.fspath(views_dir), views_mod.PUBLIC + ".yaml")
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return  # no views yet (or none readable): nothing to overwrite by mistake
    # Only the view's top-level `game` is read: parsing the whole view grew with the game.
    other = top_level_text(data, "game")
    if other is not None and other != game_id:
        raise UsageError(f"{os.fspath(views_dir)} holds the views of game {other}, not of "
                         f"game {game_id}; give this game's views folder (nothing was written)",
                         "--views-dir")


def check_writable(game: PathLike) -> None:
    """Refuse to replace a record whose file is read-only (no write permission for anyone):
    whoever made it so meant it to stay (an archived game); the rename that writes a record
    would replace it regardless.

    Raises:
        Failed: the record is read-only (exit 2); nothing is written.
    """
    try:
        mode = os.stat(game).st_mode
    except OSError:
        return
    if not mode & 0o222:
        raise Failed(f"{os.fspath(game)} is read-only, so it was left as it is and nothing was "
                     f"written; make it writable (chmod u+w) to go on with the game")


def make_views_dir(views_dir: PathLike) -> bool:
    """Create the views folder unless it exists (its parent must: a typo must not create a
    tree); True when it was created here.

    Raises:
        Failed: it cannot be created (exit 2), said before anything is written.
    """
    try:
        return make_folder(views_dir, what="the views folder")
    except OSError as exc:
        said = explain_os_error(exc)
        raise Failed(f"{said.where}: {said.problem}, so nothing was written; {said.fix}") from None


def _views_after_record(game: PathLike, views_dir: PathLike, record: Record, replay: Replay, *,
                        stale_only: bool = False) -> int:
    """Write the views once the record holds the move; a failure here must not read as "nothing
    changed", so it says what happened and how to repair it (exit 4: the disk, not the input)."""
    try:
        return write_views(views_dir, record, replay, stale_only=stale_only)
    except OSError as exc:
        said = explain_os_error(exc)
        what = f"{said.where}: {said.problem}" if said.where else said.problem
        raise Failed(f"the move was recorded in {game}, but the views could not be written "
                     f"({what}); {said.fix}, then run the same apply again to rewrite them",
                     ExitCode.BUG) from None


# --- creating a game -------------------------------------------------------------------------

def name_value(item: str, option: str, form: str, example: str) -> tuple[str, str]:
    """``"ann=fr"`` -> ``("ann", "fr")``: one item of a repeatable ``NAME=VALUE`` option
    (``new --key NAME=FILE``, ``--lang NAME=CODE``, ``--rule``, ``--player NAME=ADDRESS``, ``git
    apply --key``), split at its first ``=``. The one reading of such an item, and its sentence.

    >>> name_value("ann=ann.pub", "--key", "NAME=FILE", "ann=ann.pub")
    ('ann', 'ann.pub')

    Raises:
        UsageError: no ``=``, or nothing before or after it (option ``option``), e.g.
            ``'ann': write NAME=FILE, e.g. ann=ann.pub`` (``form`` and ``example`` as given).
    """
    name, sep, value = item.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"{clip(item)!r}: write {form}, e.g. {example}", option)
    return name, value


SETTABLE_RULES = ("golden_dust", "gold", "red", "shelf_limit", "hand_size", "multiplier")


def ruleset_from(zero: bool = False, rules: Iterable[str] = ()) -> Ruleset:
    """The ruleset of a new game: the rulings' defaults (R1-R4), the Zero option (R2), and
    ``rules`` as ``NAME=VALUE`` texts (NAME one of :data:`SETTABLE_RULES`).

    >>> ruleset_from(True, ["shelf_limit=20"]).shelf_limit
    20

    Raises:
        UsageError: a text that is not ``NAME=VALUE``, an unknown NAME, a value that is not a
            whole number where one is needed, or a value out of its range (option ``--rule``).
    """
    values: dict[str, object] = {"zero": zero}
    for item in rules:
        name, text = name_value(item, "--rule", "NAME=VALUE", "shelf_limit=20")
        if name not in SETTABLE_RULES:
            raise UsageError(f"{clip(item)!r}: write NAME=VALUE with NAME one of "
                             f"{', '.join(SETTABLE_RULES)}", "--rule")
        if name == "multiplier":
            values[name] = text
        else:
            try:
                values[name] = int(text)
            except ValueError:
                raise UsageError(f"{name} must be a whole number, not {clip(text)!r}",
                                 "--rule") from None
    try:
        ruleset = Ruleset(**values)  # type: ignore[arg-type]  # checked by Ruleset itself
    except ValueError as exc:
        raise UsageError(str(exc), "--rule") from None
    if ruleset.golden_dust + ruleset.gold == 0:
        raise UsageError("with golden_dust=0 and gold=0 the supply has no token from the start, "
                         "so the game would end after its first turn (R11); give golden_dust or "
                         "gold at least 1", "--rule")
    return ruleset


def check_players(players: Sequence[str], addresses: dict[str, str]) -> None:
    """Refuse players a game cannot have: not 2 to 4, a name outside the schema's form, the
    spectator view's name, two names that differ only in case, an address shared by two.

    Raises:
        UsageError: one sentence naming the fault (option ``--player``).
    """
    from rebis_pbm.formats.schemas import defined_pattern
    if not 2 <= len(players) <= 4:
        raise UsageError(f"Rebis is played by 2 to 4 players; give --player 2 to 4 times (got "
                         f"{len(players)})", "--player")
    pattern = defined_pattern("move", "player")
    for name in players:
        if not pattern.fullmatch(name):
            raise UsageError(f"{clip(name)!r} is not a valid name: a letter, then letters, "
                             f"digits, '_' or '-', at most 32 characters", "--player")
        if name.casefold() == views_mod.PUBLIC:
            raise UsageError("'public' is the spectator view's name; choose another", "--player")
    if len({name.casefold() for name in players}) != len(players):
        # Names become view file names: alice.txt and Alice.txt are one file on many disks.
        raise UsageError("each player needs a different name, and names that differ only in "
                         "upper/lower case count as the same", "--player")
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
                referee_recipient: str | None = None) -> Created:
    """Create a game: write the record ``game``, its secret seed beside it, and the first views.

    Args:
        game: the record's path (``game.yaml``); its folder must exist.
        players: 2 to 4 names in seat order (R5); the first plays first.
        addresses: player name -> e-mail address, for play by e-mail (docs/mail.md).
        public_addresses: show the addresses in every view.
        seed: the seed to shuffle from (default: 128 random bits). A guessable seed lets anyone
            compute every hand: refused unless ``insecure_seed``
            (:func:`rebis_pbm.record.seed_strength.check_seed_strength`).
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
    addresses = dict(addresses or {})
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
    record = Record(game_id, ruleset, seats, commitment(FORMAT, secret), addresses=addresses,
                    public_addresses=public_addresses,
                    deal=REFEREE_DEAL if referee_deal else FAIR_DEAL, keys=parsed_keys,
                    header_extra=extra, langs=chosen)
    state: State | None = None
    setup_events: tuple[Any, ...] = ()
    try:
        state, setup_events = setup(ruleset, seats, seed if referee_deal else "check")
    except ValueError as exc:
        raise Failed(str(exc)) from None
    if not referee_deal:
        state, setup_events = None, ()
    views_dir = os.fspath(views_dir or default_views_dir(game))
    # Under the record's lock, so that two `new` for the same file name cannot both write; a
    # failed `new` removes what it wrote.
    with locked(game):
        for path in (game, secret_file):
            if os.path.exists(path):
                raise Failed(f"{path} already exists; choose another file name (nothing was "
                             f"written)")
        check_views_dir(views_dir, game_id)
        made = make_views_dir(views_dir)  # before the record: a bad views folder writes nothing
        try:
            write_atomic(secret_file, dump_secret(game_id, secret, FORMAT), mode=0o600)
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


# --- a move entering a game ------------------------------------------------------------------

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
    events: tuple[object, ...]
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
    from rebis_pbm.present.i18n import gettext_for
    _ = gettext_for(lang)
    if isinstance(move, JoinMove):
        return _("{player} has joined already, with exactly this join; nothing changed.").format(
            player=move.player)
    entry = record.moves[move.turn - 1]
    # A sealed card is not compared (Record.holds), so say only what was compared.
    what = (_(": a closing play on {owner}'s shelf, like this one (its card is sealed in the "
              "record, so the card sent is not compared)").format(owner=entry.owner)
            if isinstance(entry, SealedMove) else _(" with exactly this move"))
    extra = (_(" (rewrote {count} stale view file(s) in {folder}/)").format(
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
    doc = move_document(data, source)
    joining = "join" in doc
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
        return JoinMove(str(doc["player"]), str(doc["join"]),
                        None if doc.get("key") is None else str(doc["key"]),
                        lang=None if doc.get("lang") is None else str(doc["lang"]).lower(),
                        header=None if doc.get("header_sha256") is None
                        else str(doc["header_sha256"]))
    return Move.from_dict(doc)


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


def check_signature(record: Record, move: Move | JoinMove, data: bytes, signature: bytes | None,
                    source: str) -> tuple[bytes, str] | None:
    """The signature of a move file (docs/audit.md, "Signed moves"): required when the mover
    registered a key, and then valid over ``data`` (the file's exact bytes) by that key, in
    namespace ``rebis-pbm``. Returns ``(data, armoured signature)`` for the record, or None for
    a player without a key (a signature is then ignored).

    Raises:
        Refused: no signature, or one that does not check (exit 1).
    """
    from rebis_pbm.crypto.signatures import parse_keys, signed_by
    keys = record.player_keys(move.player) if move.player in record.players else ()
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
    if signature is None:
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: {player} registered a key, so their moves must be signed "
            "(ssh-keygen -Y sign -f KEY -n rebis-pbm FILE writes FILE.sig); no signature came "
            "with it"), {"source": source, "player": move.player}))
    text = signature.decode("ascii", "replace")
    if not signed_by(data, text, keys):
        raise Refused(phrase=Phrase(N_(
            "{source}: move rejected: its signature does not check against {player}'s key over "
            "this exact file (sign the file as sent, with ssh-keygen -Y sign -n rebis-pbm)"),
            {"source": source, "player": move.player}))
    return data, text.strip() + "\n"


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
        joining = joins and isinstance(loaded.data, dict) and "join" in loaded.data
        validate(loaded, {"$ref": "move.schema.json#/$defs/join_move"} if joining else "move")
    except InputError as exc:
        raise Refused(str(exc), ExitCode.INPUT) from None
    return cast("dict[str, Any]", loaded.data)  # the schema holds


def submit_move(game: PathLike, data: bytes, source: str, *, author: str | None = None,
                views_dir: PathLike | None = None, dry_run: bool = False,
                file_name: str | None = None, signature: bytes | None = None,
                now: str | None = None) -> Submitted:
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
    mover registered a key (:func:`check_signature`); the record keeps it. A join move
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
        return _submit(game, data, source, author=author, views_dir=views_dir,
                       dry_run=dry_run, file_name=file_name, signature=signature,
                       now=now)


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


def _submit(game: PathLike, data: bytes, source: str, *, author: str | None,
            views_dir: PathLike | None, dry_run: bool, file_name: str | None,
            signature: bytes | None = None, now: str | None = None,
            stand_in: dict[str, str] | None = None, opened: Game | None = None) -> Submitted:
    # opened: the game as the caller read it under the same lock (tick), else read here.
    record, replay, seed = opened if opened is not None else open_game(game)
    move = read_move(record, game, data, source, author=author, file_name=file_name)
    views_dir = os.fspath(views_dir or default_views_dir(game))
    check_views_dir(views_dir, record.game)
    signed = check_signature(record, move, data, signature, source)
    if isinstance(move, JoinMove):
        return _join(game, record, replay, seed, move, signed, source, views_dir, dry_run)
    if record.joining():
        raise Refused(phrase=Phrase(N_("{source}: move rejected: the deal waits for joins by "
                                       "{players}; no turn can be played before"),
                                    {"source": source, "players": ", ".join(record.waiting_for())}))
    if record.holds(move):
        _same_closing(record, replay, move, source)
        # A mail delivered twice. Existing view files are rewritten only where they are stale
        # (an earlier apply interrupted after the record was written): normally none.
        repaired = 0 if dry_run else _views_after_record(game, views_dir, record, replay,
                                                         stale_only=True)
        return Submitted(record, replay, move, (), duplicate=True, repaired=repaired,
                         views_dir=views_dir)
    if record.abandoned(replay.state):
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was abandoned (its "
                                       "seed was revealed with rebis-pbm reveal); no more moves "
                                       "can be played"), {"source": source, "game": record.game}))
    try:
        state, events = apply_move(replay.state, move)
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
        check_writable(game)
        make_views_dir(views_dir)  # fail before the record changes
        write_atomic(game, dump_record(new_record, state, seed))
        _views_after_record(game, views_dir, new_record, new_replay)
    return Submitted(new_record, new_replay, move, events, duplicate=False, views_dir=views_dir)


def _join(game: PathLike, record: Record, replay: Replay, seed: str, move: JoinMove,
          signed: tuple[bytes, str] | None, source: str, views_dir: str,
          dry_run: bool) -> Submitted:
    """A join move entering the join phase; the last join deals (docs/shuffle.md)."""
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
    for join in record.joins:
        if join.player == move.player:
            if join.entropy == move.entropy and join.key == _key_line(move.key):
                return Submitted(record, replay, move, (), duplicate=True, views_dir=views_dir)
            raise Refused(phrase=Phrase(N_("{source}: move rejected: {player} has joined "
                                           "already; a player joins once"),
                                        {"source": source, "player": move.player}))
    if move.header is not None and move.header != record.header_sha256:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: this join names another game's "
                                       "header (header_sha256: {given}), not game {game}'s "
                                       "({header}): it was written for another game of the same "
                                       "name, or before its players, seats or rules changed; "
                                       "write your join from this game's template"),
                                    {"source": source, "given": move.header,
                                     "game": record.game, "header": record.header_sha256}))
    if views_mod.is_join_placeholder(move.entropy):
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
    if record.views_encrypted:
        _join_brings_a_key(record, move, source)
    proof = None if signed is None else Proof(signed[1], signed[0].decode("utf-8"))
    new_record = record.with_join(Join(move.player, move.entropy, _key_line(move.key), proof))
    if move.lang is not None:
        new_record = dc_replace(new_record, langs=with_lang(new_record.langs, move.player,
                                                            move.lang))
    new_replay = Replay(cast(State, None), ())  # the join phase: no state until the deal
    if not new_record.joining():
        state, setup_events = setup(record.ruleset, record.players, new_record.deal_seed(seed))
        new_replay = Replay(state, setup_events)
    if not dry_run:
        make_views_dir(views_dir)
        write_atomic(game, dump_record(new_record, new_replay.state, seed))
        _views_after_record(game, views_dir, new_record, new_replay)
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
    return record, read_move(record, game, data, source, author=author, file_name=file_name)


# --- reading a game for people ---------------------------------------------------------------

def legal_moves_listing(game: PathLike, player: str, fmt: str = "yaml") -> str:
    """Every legal move of ``player``, who must be the one to move, each a complete move file
    (YAML documents separated by ``---``, or a JSON list):
    :func:`rebis_pbm.present.views.moves_listing`.

    Raises:
        as :func:`for_mover`.
    """
    try:  # the fast read (no schema machinery), which every later read in this process reuses
        record = open_game(game).record
    except SeedError:
        record = read_record(game)  # a join needs no seed; anything else raises it again below
    check_player(record, player)
    if record.joining() and record.seed is None and player in record.waiting_for():
        from rebis_pbm.app.joins import join_listing
        return join_listing(record.game, player, fmt, record.lang(player), record.header_sha256)
    record, state = for_mover(game, player)
    return views_mod.moves_listing(record.game, state, fmt)


def score(game: PathLike) -> dict[str, Any]:
    """The score of the game shelf by shelf (R13), the burdens (R12) and, once it is over, the
    winners: ``{"game", "phase", "turn", "scores": [{"player", "total", "shelves": [{"shelf",
    "active", "value", "tokens", "multiplier", "score"}]}], "burdens": [{"player", "negative",
    "hand", "total"}], "winners": [names] or None}``.

    Raises:
        as :func:`public_game_state` (no seed is needed: face-down cards count 0).
    """
    record, replay = public_game_state(game)
    state = replay.state
    if state is None:
        raise Refused(f"game {record.game} has no score yet: the deal waits for joins by "
                      f"{', '.join(record.waiting_for())}")
    return {
        "game": record.game,
        "phase": str(state.phase),
        "turn": state.turn,
        "scores": [{"player": p.player, "total": p.total, "shelves": [
            {"shelf": s.shelf, "active": s.active, "value": s.value, "tokens": s.tokens,
             "multiplier": s.multiplier, "score": s.score} for s in p.shelves]}
            for p in score_table(state)],
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand,
                     "total": b.total} for b in burdens(state)],
        "winners": list(winners(state)) if state.finished else None,
    }


def verify(game: PathLike, seed_file: PathLike | None = None,
           witnesses: Sequence[PathLike] = ()) -> Report:
    """Check that the record in ``game`` is the game that was played, by the rules, and
    unedited (docs/audit.md). Anyone can: without the seed, the form, the header digest and
    each move's turn, seat order and chain digest; with it (revealed in the record, the secret
    file ``seed_file``, ``REBIS_PBM_SEED`` or the secret file beside the record), every move
    replayed and every keyed digest.

    ``witnesses``: saved views or mails (:func:`rebis_pbm.record.witness.read_witness`); the record
    must still hold each one's chain digest at its move, else the report fails naming it.

    Returns:
        a :class:`rebis_pbm.record.audit.Report`; ``report.verified`` says whether it passed.

    Raises:
        InputError: the record, the seed file or a witness cannot be read, or the record is
            another of rebis-pbm's files, such as a move or a secret file (exit 2).
        SeedError: the seed file is another game's.
    """
    from rebis_pbm.record import SEED_ENV, read_secret
    from rebis_pbm.record.audit import verify as run_verify

    data, source = read_input(os.fspath(game), kind="record")

    def find(record: Record) -> tuple[str, str] | None:
        if seed_file is not None:
            return read_secret(seed_file, record), os.fspath(seed_file)
        if record.seed is not None:
            return None  # the record's own seed is the one to check
        if os.environ.get(SEED_ENV):
            return os.environ[SEED_ENV], SEED_ENV
        sidecar = secret_path(game)
        if os.path.exists(sidecar):
            return read_secret(sidecar, record), sidecar
        return None

    from rebis_pbm.record.witness import read_witness
    seen = [read_witness(os.fspath(w)) for w in witnesses]
    report = run_verify(data, source, find, seen)
    if report.problem is not None and report.problem.code == "schema":
        _refuse_other_kind(data, source)
    return report


def _refuse_other_kind(data: bytes, source: str) -> None:
    """Raise InputError (exit 2) when the record's bytes are another of rebis-pbm's files (a
    move, a view, a secret file): a file given in the wrong place is not a record that fails
    verification (see :mod:`rebis_pbm.formats.filekinds`)."""
    from rebis_pbm.formats.filekinds import wrong_kind
    try:
        doc = load_yaml(data, source=source, kind="record").data
    except InputError:
        return
    misfiled = wrong_kind(doc, "record")
    if misfiled:
        raise InputError(misfiled, source=source)


def record_paths(paths: Iterable[PathLike]) -> list[str]:
    """The records that ``paths`` name: a file as given; for a folder, every record in it and
    its subfolders (a ``.yaml`` file that starts with the header rebis-pbm writes on every
    record, :data:`~rebis_pbm.record.HEADER`), by name, leaving out views, mail queues and
    hidden folders. Each record once, in the order given.

    Raises:
        InputError: a path that does not exist, or a folder with no record (exit 2).
    """
    first_line = HEADER.splitlines(keepends=True)[0].encode()
    found: list[str] = []
    for path in (os.fspath(p) for p in paths):
        if not os.path.isdir(path):
            if not os.path.exists(path):
                raise InputError("there is no such game record or folder; check the name",
                                 source=path)
            found.append(path)
            continue
        before = len(found)
        for folder, subfolders, files in os.walk(path):
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".")
                                   and not d.endswith((VIEWS_SUFFIX, QUEUE_SUFFIX)))
            for name in sorted(files):
                if not name.endswith(RECORD_SUFFIX) or name.endswith(SECRET_SUFFIX):
                    continue
                file = os.path.join(folder, name)
                try:
                    with open(file, "rb") as f:
                        if f.read(len(first_line)) != first_line:
                            continue
                except OSError:
                    continue
                found.append(file)
        if len(found) == before:
            raise InputError("this folder holds no game record (a .yaml file written by "
                             "rebis-pbm, in it or below it)", source=path)
    unique: dict[str, str] = {}
    for file in found:  # one file named twice (a folder and a file in it) is verified once
        unique.setdefault(os.path.realpath(file), file)
    return list(unique.values())


def _verify_one(game: str) -> Report:
    """:func:`verify` of one of many records: a record that cannot be read at all is a failed
    report (code ``unreadable``), not an exception."""
    from rebis_pbm.errors import RebisError
    from rebis_pbm.record.audit import Report
    from rebis_pbm.record.verify import Problem

    try:
        return verify(game)
    except (RebisError, OSError) as exc:
        return Report(game, problem=Problem("unreadable", f"the record cannot be read: {exc}"))


def _verify_chunk(games: list[str]) -> list[Report]:
    return [_verify_one(game) for game in games]


def verify_many(paths: Iterable[PathLike], jobs: int = 1,
                progress: Callable[[int], object] | None = None) -> list[Report]:
    """:func:`verify` of every record ``paths`` name (see :func:`record_paths`), on ``jobs``
    processes, in one process each: reports in the order of the records, the same for any
    ``jobs``. Each record's seed is found as :func:`verify` finds it (revealed, else
    ``REBIS_PBM_SEED``, else its own secret file). A record that cannot be read is a failed
    report (problem code ``unreadable``). ``progress(n)`` is called as ``n`` more records are
    done.

    Returns:
        a list of :class:`rebis_pbm.record.audit.Report`.

    Raises:
        InputError: as :func:`record_paths` (exit 2), before any record is verified.
    """
    games = record_paths(paths)
    if jobs <= 1 or len(games) <= 1:
        reports = []
        for game in games:
            reports.append(_verify_one(game))
            if progress:
                progress(1)
        return reports
    from concurrent.futures import ProcessPoolExecutor

    size = max(1, min(50, len(games) // (jobs * 8)))  # small chunks: a smooth bar, little waste
    chunks = [games[i:i + size] for i in range(0, len(games), size)]
    reports = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done in pool.map(_verify_chunk, chunks):
            reports += done
            if progress:
                progress(len(done))
    return reports


class Revealed(NamedTuple):
    """What :func:`reveal` did: ``record`` and ``state`` after it; ``already`` when the record
    revealed its seed before (nothing written)."""

    record: Record
    state: State
    already: bool


def reveal(game: PathLike, *, confirm: bool, views_dir: PathLike | None = None) -> Revealed:
    """Write the seed of an abandoned game into its record, so that anyone can verify it; the
    game ends for good (``apply`` refuses every further move) and the views show every card.

    Raises:
        Failed: ``confirm`` is false: nothing written, the sentence says what it would do
            (exit 2).
        as :func:`open_game`, and Failed when the views folder cannot be made.
    """
    require_record(game)
    with locked(game):
        record, replay, seed = open_game(game)
        state = replay.state
        if record.seed is not None:
            return Revealed(record, state, True)
        if not confirm:
            raise Failed(f"this would write the seed of game {record.game} into "
                         f"{os.fspath(game)}: every hand, the deck and every face-down card "
                         f"become known and the game ends for good at turn {state.turn} "
                         f"({state.player_to_move} to move); nothing was written. Run again "
                         f"with --yes to do it")
        revealed = record.revealed(seed)
        views_dir = views_dir or default_views_dir(game)
        check_views_dir(views_dir, record.game)
        check_writable(game)
        make_views_dir(views_dir)  # a bad views folder is refused before the record changes
        write_atomic(game, dump_record(revealed, state, seed))
        write_views(views_dir, revealed, replay)  # "abandoned", every card shown
    return Revealed(revealed, state, False)


def public_game(game: PathLike) -> PublicGame:
    """What a spectator may know of the game in ``game``, for its web page
    (:mod:`rebis_pbm.present.site`): the public table after every move, the public view, the score,
    and ``verify``'s verdict on the record alone. Read with the seed when it is at hand, else
    from the public record alone (:func:`public_game_state`), so a spectator or a CI job
    without the seed can build it; only public information is kept either way.

    Raises:
        as :func:`public_game_state`.
    """
    from rebis_pbm.engine import setup
    from rebis_pbm.present.site import PublicGame, public_frames, score_data
    from rebis_pbm.record.audit import verify as run_verify
    states: list[State] = []
    record, replay, report = _public_state(game, states)
    if report is not None:  # the public record alone: its report is the one to show
        frames = public_frames(record.game, states[0], replay.setup_events, replay.history,
                               states)
    else:
        seed = open_game(game).seed
        start, setup_events = setup(record.ruleset, record.players, record.deal_seed(seed))
        frames = public_frames(record.game, start, setup_events, replay.history)
        data, _ = read_input(os.fspath(game), kind="record")
        # The record alone, under its file name only: never the secret file, whose report
        # could name a mover's cards, and no folder of the referee's.
        report = run_verify(data, os.path.basename(os.fspath(game)))
    return PublicGame(record.game, frames, record_view(record, replay, None),
                      score_data(replay.state), report.verified, report.render_text(),
                      record.seed, record.seed_sha256)


def write_site(game: PathLike, out_dir: PathLike) -> list[str]:
    """Write the spectators' web page of the game in ``game`` into ``out_dir`` (see
    :func:`public_game` and :func:`rebis_pbm.present.site.write_site`); returns the files written,
    the page first.

    Raises:
        as :func:`open_game`; OSError when ``out_dir`` cannot be written.
    """
    from rebis_pbm.present import site
    require_record(game)
    return site.write_site(out_dir, public_game(game))


def bot_move(game: PathLike, player: str, strategy: str = "random",
             seed: str | None = None) -> tuple[Record, Move]:
    """A legal move for ``player`` (who must be the one to move) chosen by a bot that sees only
    ``player``'s information set (docs/bots.md).

    Raises:
        as :func:`for_mover`.
    """
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set

    record, state = for_mover(game, player)
    if seed is None:
        import secrets

        seed = secrets.token_hex(16)
    move = make_bot(strategy, seed).choose(information_set(state, state.to_move))
    return record, move


# --- a player's own tools: their view, no seed ------------------------------------------------

def view_language(view_path: PathLike) -> str:
    """The language a player's YAML view names for its viewer (``lang:``, docs/views.md
    "Languages"), ``en`` when it names none or cannot be read: what that player's tools answer
    in. Reads only the view's top-level ``lang`` (not the whole view: :func:`read_view` did)."""
    try:
        data, _ = read_input(os.fspath(view_path), kind="view")
    except RebisError:
        return "en"
    return top_level_text(data, "lang") or "en"


def read_view(view_path: PathLike) -> ViewState:
    """Read a player's YAML (or JSON) view file and rebuild their information set from it
    (:func:`rebis_pbm.present.infoset.infoset_from_view`): what a player's tools judge moves on,
    without the record or the seed.

    Raises:
        InputError: the file cannot be read, is not a view, is a view of an older format
            (``rebis-pbm/view/1`` lacks the ruleset) or contradicts itself (exit 2).
        Refused: a view of a fair deal's join phase (exit 1): nobody has cards, there is no
            move to list or check before the deal; the sentence says what the viewer is to
            send instead (their join, which the view's ``move_template`` holds).
    """
    from rebis_pbm.formats.filekinds import wrong_kind
    from rebis_pbm.formats.schemas import validate
    from rebis_pbm.present.infoset import check_view_format, infoset_from_view
    data, source = read_input(os.fspath(view_path), kind="view")
    loaded = load_yaml(data, source=source, kind="view")
    misfiled = wrong_kind(loaded.data, "view")
    if misfiled:
        raise InputError(misfiled, source=source)
    check_view_format(loaded.data, source)
    validate(loaded, "view")
    _refuse_join_phase(cast("dict[str, Any]", loaded.data), source)
    return infoset_from_view(cast("dict[str, Any]", loaded.data), source)


def _refuse_join_phase(view: dict[str, Any], source: str) -> None:
    """Refused (exit 1) for a view of the join phase: no turn is played before the deal."""
    if view.get("phase") != "join":
        return
    viewer = view["viewer"]
    if viewer in view["waiting"]:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: {viewer} has "
                      "no move to make yet, but a join to send: save the view's move_template "
                      "as a file (join: any text of your choosing) and send it to the referee")
    elif viewer == views_mod.PUBLIC:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: the "
                      "spectator view has no move to make")
    else:
        template = N_("{source} is a view of game {game} before the deal (the deal waits for "
                      "joins by {waiting}), when there is no move to list or check: {viewer} has "
                      "joined and has nothing to send until the deal")
    raise Refused(phrase=Phrase(template, {"source": source, "game": view["game"],
                                           "waiting": ", ".join(view["waiting"]),
                                           "viewer": viewer}))


def _viewer_to_move(seen: ViewState, source: str) -> str:
    """The viewer of ``seen`` (a :class:`~rebis_pbm.present.infoset.ViewState`), who must be the
    one to move; Refused (exit 1) or InputError (exit 2, a spectator view) otherwise."""
    if seen.viewer is None:
        raise InputError("this is the spectator view, which shows no hand; use your own view "
                         "(rebis-pbm view GAME --player NAME --format yaml)", source=source)
    state = seen.state
    if seen.abandoned:
        raise Refused(phrase=_abandoned_no_move(seen.viewer, seen.game))
    if state.player_to_move != seen.viewer:
        raise Refused(phrase=_no_move_to_make(seen.viewer, state))
    return seen.viewer


def legal_moves_from_view(view_path: PathLike, fmt: str = "yaml") -> str:
    """Every legal move of the view's viewer, from their view file alone: the same listing as
    :func:`legal_moves_listing` gives the referee on the same position.

    Raises:
        as :func:`read_view`; Refused (exit 1) when it is not the viewer's move; InputError for
        a spectator view.
    """
    seen = read_view(view_path)
    _viewer_to_move(seen, os.fspath(view_path))
    return views_mod.moves_listing(seen.game, seen.state, fmt)


def check_against_view(view_path: PathLike, data: bytes, source: str) -> Move:
    """Check a move file against the rules as the referee will, from the mover's own view
    file: the move's form (as :func:`read_move`), its game, then the rules (R6-R12) on the
    information set the view holds. ``apply --dry-run`` gives the same verdict on the same
    position for the view's viewer (a move already applied aside: the referee accepts it again
    as "already applied", the view, being newer, calls it stale).

    Returns:
        the move, legal now.

    Raises:
        InputError: the view cannot be read (exit 2), or the move is another player's (a view
            can judge only its viewer's moves).
        Refused: the move is unreadable, schema-invalid or for another game (exit 2); against
            the rules, with the referee's sentence (exit 1).
    """
    seen = read_view(view_path)
    doc = move_document(data, source, joins=False)
    if doc["game"] != seen.game:
        raise Refused(None, ExitCode.INPUT, phrase=Phrase(N_(
            "{source}: this move is for game {other}, but {view} is a view of game {game}"),
            {"source": source, "other": doc["game"], "view": os.fspath(view_path),
             "game": seen.game}))
    move = Move.from_dict(doc)
    if seen.viewer is None:
        _viewer_to_move(seen, os.fspath(view_path))
    if move.player != seen.viewer and move.player in seen.state.players \
            and move.player == seen.state.player_to_move:
        raise InputError(f"this view is {seen.viewer}'s, so it can judge only {seen.viewer}'s "
                         f"moves, not {move.player}'s; check the move with {move.player}'s view",
                         source=os.fspath(view_path))
    if seen.abandoned:
        raise Refused(phrase=Phrase(N_("{source}: move rejected: game {game} was abandoned (its "
                                       "seed was revealed with rebis-pbm reveal); no more moves "
                                       "can be played"), {"source": source, "game": seen.game}))
    try:
        check_move(seen.state, move)
    except IllegalMove as exc:
        raise Refused(reason=exc.code, phrase=Phrase(N_("{source}: move rejected: {reason}"), {
            "source": source, "reason": exc.phrase or exc.message})) from None
    return move


# --- deadlines, missed moves and the referee's logged actions (docs/deadlines.md) ------------

class Ticked(NamedTuple):
    """What :func:`tick` did: the moves the referee made (``(turn, player, reason)``), and
    the player a reminder is due for (None: none)."""

    moved: list[tuple[int, str, str]]
    remind: str | None


def _move_for(game: PathLike, opened: Game, player: str, bot: str, reason: str,
              now: str | None, views_dir: PathLike | None) -> Submitted:
    """The bot ``bot`` moves for ``player`` (who must be to move in ``opened``, the game as
    read under the lock held), seeing only their information set; the move is recorded as
    the referee's with ``reason`` and the bot."""
    from rebis_pbm.bots import make_bot
    from rebis_pbm.engine import information_set
    from rebis_pbm.formats.yaml_writer import dump_yaml
    record, replay, _ = opened
    state = replay.state
    # The bot's own randomness is drawn from the turn and player: the same position gives the
    # same stand-in move (a replay reads the move from the record anyway).
    move = make_bot(bot, f"{record.game}/{state.turn}/{player}").choose(
        information_set(state, state.to_move))
    data = dump_yaml({"game": record.game, **move.as_dict()}).encode()
    return _submit(game, data, f"the referee's move for {player}", author=None,
                   views_dir=views_dir, dry_run=False, file_name=None, now=now,
                   stand_in={"by": "referee", "reason": reason, "bot": bot}, opened=opened)


def move_for(game: PathLike, player: str, *, bot: str = "greedy", now: str | None = None,
             views_dir: PathLike | None = None) -> Submitted:
    """The referee moves for ``player`` at their request: the bot chooses from their
    information set; the record says so (``by: referee``, the reason and the bot).

    Raises:
        as :func:`for_mover` and :func:`submit_move`; Failed for a rebis-pbm/1 record.
    """
    from rebis_pbm.record.deadlines import ON_REQUEST
    require_record(game)
    with locked(game):
        record, _ = for_mover(game, player)
        _require_v2(record, game)
        return _move_for(game, open_game(game), player, bot, ON_REQUEST, now, views_dir)


def _require_v2(record: Record, game: PathLike) -> None:
    if record.format == "rebis-pbm/1":
        raise Failed(f"{os.fspath(game)} is a rebis-pbm/1 record, which cannot log the "
                     f"referee's actions or moves; they came with rebis-pbm/2 (games created "
                     f"since); nothing was written")


def tick(game: PathLike, *, now: str | None = None, views_dir: PathLike | None = None) -> Ticked:
    """Apply the game's missed-move policy (docs/deadlines.md): while the player to move is
    past their deadline (``now``, ISO 8601, default the clock), or has missed as many turns as
    the policy ``N`` allows, the bot moves for them (greedy; random with policy ``random``),
    recorded as the referee's move. Then says whether a reminder is due for the player to move
    (within 24 h or a quarter of the deadline).

    Raises:
        as :func:`open_game`; Failed when the game has no deadline.
    """
    from rebis_pbm.record.deadlines import (
        MISSED,
        REPLACED,
        deadline_of,
        missed_turns,
        now_text,
        parse_time,
        reminder_due,
    )

    require_record(game)
    now = now_text(now)
    moved: list[tuple[int, str, str]] = []
    with locked(game):
        opened = open_game(game)  # read and replayed once; each move goes on from the last
        while True:
            record, replay, seed = opened
            state = replay.state
            if "deadline" not in record.header_extra:
                raise Failed(f"game {record.game} has no deadline (new --deadline gives one); "
                             f"nothing to do")
            if state is None:  # the join phase: no turn yet, so no deadline missed
                return Ticked(moved, None)
            if state.finished or record.abandoned(state):
                if not moved:
                    raise Refused(f"game {record.game} is over; no deadline runs any more "
                                  f"(nothing was written)")
                return Ticked(moved, None)
            player = state.player_to_move
            assert player is not None  # a game in play has a player to move
            policy = record.header_extra.get("missed", "bot")
            bot = "random" if policy == "random" else "greedy"
            if policy.isdigit() and missed_turns(record, player) >= int(policy):
                reason = REPLACED
            elif parse_time(now) > parse_time(deadline_of(record) or now):
                reason = MISSED
            else:
                return Ticked(moved, player if reminder_due(record, now) else None)
            done = _move_for(game, opened, player, bot, reason, now, views_dir)
            moved.append((done.move.turn, player, reason))
            opened = Game(done.record, done.replay, seed)


REASON_MAX = 200  # characters of a logged action's reason (the record schema's maxLength)


def check_reason(reason: str) -> str:
    """``reason`` as a logged action keeps it: one line of 1 to :data:`REASON_MAX` printable
    characters (``verify`` shows it among the referee's actions: a line break or a control
    character in it could pass for a line of the verdict), outer spaces removed.

    Raises:
        UsageError: an empty reason, one over the length, or one with a line break, tab or
            other control or format character (``--reason``).
    """
    text = reason.strip()
    if not text or len(text) > REASON_MAX or not text.isprintable():
        raise UsageError(f"the reason must be one line of 1 to {REASON_MAX} characters, with no "
                         f"line break, tab or other invisible character (a no-break space, a "
                         f"zero-width joiner; it is shown by verify); nothing was written",
                         "--reason")
    return text


def log_action(game: PathLike, action: str, *, now: str | None = None,
               views_dir: PathLike | None = None, **fields: str | None) -> Record:
    """Log one of the referee's actions in the record (a rebis-pbm/2 record), chained so that
    ``verify`` catches an edit: ``replace_player`` (``player``, a new ``address`` and/or a new
    public ``key``, one OpenSSH line: that player's later moves must be signed with it,
    :meth:`Record.player_keys`), ``extend_deadline`` (``seconds`` added to the current turn),
    ``end_game`` (then the seed is revealed: :func:`reveal`). ``reason`` may go with any.

    Raises:
        as :func:`open_game`; UsageError for a player not in the game, a language rebis-pbm
        does not speak (:func:`rebis_pbm.present.i18n.check_language`) or a reason that is not one
        line of text (:func:`check_reason`); Failed for a rebis-pbm/1 record or a game that is
        over.
    """
    from rebis_pbm.record.deadlines import now_text
    reason = fields.get("reason")
    if reason is not None:
        fields["reason"] = check_reason(reason)
    require_record(game)
    with locked(game):
        record, replay, seed = open_game(game)
        _require_v2(record, game)
        state = replay.state  # None in the join phase of a fair deal
        if (state is not None and state.finished) or record.abandoned(state):
            raise Refused(f"game {record.game} is over; nothing was written")
        given: dict[str, str] = {k: v for k, v in fields.items() if v is not None}
        if "player" in given:
            check_player(record, given["player"])
        if "lang" in given:
            from rebis_pbm.present.i18n import check_language
            given["lang"] = check_language(given["lang"])
            if record.format in BEFORE_V3:
                raise Failed(f"game {record.game} is a {record.format} record, which keeps no "
                             f"language (languages came with rebis-pbm/3); nothing was written")
        if action == "extend_deadline" and "deadline" not in record.header_extra:
            raise Failed(f"game {record.game} has no deadline to extend; nothing was written")
        from rebis_pbm.record.deadlines import check_forward
        at = now_text(now)
        check_forward(record, at)
        new_record = record.with_action({"action": action, "at": at, **given})
        if action == "replace_player" and "address" in given:
            addresses = {**new_record.addresses, given["player"]: given["address"]}
            new_record = dc_replace(new_record, addresses=addresses)
        if action == "replace_player" and "lang" in given:
            new_record = dc_replace(new_record, langs=with_lang(new_record.langs, given["player"],
                                                                given["lang"]))
        if action == "end_game":
            new_record = new_record.revealed(seed)
        check_writable(game)
        write_atomic(game, dump_record(new_record, state, seed))
        views_dir = views_dir or default_views_dir(game)
        if os.path.isdir(views_dir):
            check_views_dir(views_dir, record.game)
            write_views(views_dir, new_record, replay)
    return new_record


# --- encryption to the readers (a game in a public repository, docs/git.md) --------------------

def write_encrypted_views(views_dir: PathLike, record: Record, replay: Replay,
                          keys: dict[str, str]) -> int:
    """Each player's view (YAML and text) only encrypted with age to that player's SSH public
    key, as ``NAME.yaml.age`` and ``NAME.txt.age`` (mode 0644: anyone may hold them); the public
    view plain, as :func:`write_views` writes it. A plain ``NAME.yaml`` or ``NAME.txt`` left in
    the folder (from before) is removed, so the folder can be committed to a public repository.

    ``keys``: player name -> SSH public key line (``ssh-ed25519 ...`` or ``ssh-rsa ...``). In a
    fair deal's join phase, a player who has not joined yet and has no key gets no private view
    until they do (no one holds a card before the deal; the public view says who is awaited).
    Each call encrypts afresh (age output differs each time), so every view file is rewritten.
    Before it is encrypted, every private view of the call is padded to one size, the smallest
    multiple of 16 KiB that holds the longest (:func:`~rebis_pbm.crypto.age.padded`:
    a last line of spaces), since age does not hide a file's length: 16 KiB for every view of a
    game with the default ruleset (docs/formats.md, "Padding of encrypted files").
    Returns how many files were written.

    Raises:
        Failed: a player has no key (exit 2, nothing written).
        InputError: a player's key is not one age encrypts to (exit 2, nothing written).
        OSError: a :class:`~rebis_pbm.files.atomic.FileError` when a file cannot be written.
    """
    from rebis_pbm.crypto.age import VIEW_PAD, bucket, encrypt_to_ssh_keys, padded

    # In a fair deal's join phase no one holds a card yet: a player who has not joined (and so
    # registered no key) gets no private view until they do; the public view says who is awaited.
    waiting = set(record.waiting_for()) if record.joining() else set()
    missing = [p for p in record.players if not keys.get(p) and p not in waiting]
    if missing:
        raise Failed(f"game {record.game}: {', '.join(missing)} ha"
                     f"{'s' if len(missing) == 1 else 've'} no public key, so "
                     f"{'their view' if len(missing) == 1 else 'their views'} cannot be written "
                     f"encrypted; register every player's SSH key first (nothing was written)")
    files: list[tuple[str, bytes, int]] = []
    private: list[tuple[str, bytes, str]] = []  # (file name, plain view, its reader's key)
    for viewer in (*record.players, None):
        if viewer is not None and not keys.get(viewer):
            continue  # waiting for their join (and key): no view yet
        view = record_view(record, replay, viewer)
        lang = record.lang(viewer)  # the text view speaks its player's language (YAML: English)
        text_view = view if lang == "en" else record_view(record, replay, viewer, lang)
        for fmt, suffix in (("yaml", ".yaml"), ("text", ".txt")):
            data = views_mod.render(text_view if fmt == "text" else view, fmt,
                                    lang).encode("utf-8")
            if viewer is None:
                files.append((f"{views_mod.PUBLIC}{suffix}", data, 0o644))
            else:
                private.append((f"{viewer}{suffix}{ENCRYPTED}", data, keys[viewer]))
    # age does not hide a length: every private view is padded to one size (docs/formats.md)
    size = bucket((len(data) for _, data, _ in private), VIEW_PAD)
    for name, data, key in private:
        viewer = name.split(".", 1)[0]
        files.append((name, encrypt_to_ssh_keys(padded(data, size), [key],
                                                source=f"{viewer}'s key"), 0o644))
    if not os.path.isdir(views_dir):
        make_folder(views_dir, what="the views folder")
    written = 0
    for name, data, mode in files:
        path = os.path.join(views_dir, name)
        if not _holds(path, data, mode):
            write_atomic(path, data, mode=mode, durable=False)
            written += 1
    for viewer in record.players:
        for suffix in (".yaml", ".txt"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(views_dir, viewer + suffix))
    return written


def decrypt_file(path: PathLike, identity_file: PathLike) -> bytes:
    """The plain text of an age file (a view, a refusal, a sealed move) decrypted with
    ``identity_file`` (an SSH private key or an age identity file); ``-`` reads standard input.

    Raises:
        InputError: the file or the identity cannot be read, or the file is not encrypted to it.
    """
    from rebis_pbm.crypto.age import decrypt
    data, source = read_input(os.fspath(path), kind="view")  # a view's size cap
    return decrypt(data, identity_file, source)


def make_referee_identity(out: PathLike) -> str:
    """Write a fresh age identity for the referee to ``out`` (mode 0600; refuses to replace an
    existing file) and return its public recipient ``age1...``, which players seal moves to.
    The identity is a secret like the seed: in a public repository, a CI secret.

    Raises:
        Failed: ``out`` exists (exit 2, nothing written).
        OSError: it cannot be written.
    """
    from rebis_pbm.crypto.age import new_identity
    if os.path.lexists(out):
        raise Failed(f"{os.fspath(out)} exists; a new identity would lock out every move sealed "
                     f"to the old one, so nothing was written: give another file name")
    text, recipient = new_identity()
    write_atomic(out, text, mode=0o600)
    return recipient


def referee_recipient_of(game: PathLike, move_game: str | None = None) -> str:
    """The referee's age recipient as the game's public record or its YAML view shows it
    (``referee_recipient``, rebis-pbm/3 ``new --referee-recipient``). ``move_game``: the game id
    of the move to seal, which must be this game's.

    Raises:
        InputError: ``game`` cannot be read, is not a record or YAML view (a text view is
            refused, naming what to give), is of another game, or shows no referee recipient
            (exit 2).
    """
    from rebis_pbm.crypto.age import checked_recipient
    doc, source = _sealing_game(game, move_game)
    recipient = doc.get("referee_recipient")
    if not isinstance(recipient, str):
        raise InputError(f"game {clip(doc['game'])} has no referee recipient (it was created "
                         f"without new --referee-recipient); give the one the referee published "
                         f"with --to", source=source)
    return checked_recipient(recipient, source)


def _sealing_game(game: PathLike, move_game: str | None) -> tuple[dict[str, Any], str]:
    """The document of ``game`` (a record or a YAML view) that ``seal`` reads, and its name.

    Raises:
        InputError: unreadable, a text view or anything else than a record or YAML view, or
            of another game than ``move_game`` (exit 2).
    """
    data, source = read_input(os.fspath(game), kind="record")
    wrong = ("this is neither the game's record nor its YAML view (a text view, NAME.txt, "
             "cannot be read); give the record (game.yaml) or the public YAML view "
             "(game.views/public.yaml) with --game, or the referee's recipient with --to")
    try:
        doc = load_yaml(data, source=source, kind="record").data
    except InputError:
        raise InputError(wrong, source=source) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("game"), str):
        raise InputError(wrong, source=source)
    if move_game is not None and doc["game"] != move_game:
        raise InputError(f"this is game {clip(doc['game'])}, but the move is for game "
                         f"{clip(move_game)}; give that game's record or view", source=source)
    return doc, source


def _check_sealing_key(game: PathLike, move: object, data: bytes, signature: bytes,
                       ssh_key: PathLike, move_game: str | None) -> None:
    """Refuse to seal a move signed with a key that is not its mover's: the key the record
    ``game`` registers for the move's player (or, for a join that brings a key, that key).
    ``move_game``: the move's game id, which ``game`` must be (None: any; a record of another
    game is then not checked).
    A YAML view shows no keys: nothing is checked then, nor for a player the record gives no
    key (the referee ignores their signatures). Fingerprints are said as ``ssh-keygen -l``
    prints them (``SHA256:...``).

    Raises:
        InputError: the signature's key is not the mover's, or the mover is not a player of
            the game (exit 2, naming ``ssh_key``).
    """
    from sshsig import check_signature

    from rebis_pbm.record import parse_record

    doc, source = _sealing_game(game, move_game)
    if "view" in doc or not isinstance(move, dict) or not isinstance(move.get("player"), str) \
            or doc["game"] != move.get("game"):
        return  # a view shows no keys; the referee refuses a move without a player or game
    record = parse_record(read_input(os.fspath(game), kind="record")[0], source)
    player = move["player"]
    if player not in record.players:
        raise InputError(f"this move is by {clip(player)}, who is not a player of game "
                         f"{record.game} ({', '.join(record.players)})", source=source)
    registered = record.player_keys(player)
    if not registered and isinstance(move.get("key"), str) and "join" in move:
        registered = tuple(" ".join(line.split()[:2]) for line in move["key"].splitlines()
                           if line.strip() and not line.startswith("#"))
    if not registered:
        return
    signer = check_signature(data, signature, namespace=SIGNATURE_NAMESPACE)
    if " ".join(signer.openssh_str().split()[:2]) in registered:
        return

    from rebis_pbm.record.audit import fingerprint  # as verify prints it, and ssh-keygen -l

    held = ", ".join(fingerprint(k) for k in registered)
    seat = record.players.index(player) + 1
    raise InputError(f"this key ({signer.sha256_str()}) is not {player}'s: game {record.game}'s "
                     f"record holds {held} for {player}, seat {seat}; sign {player}'s moves "
                     f"with {player}'s own key (nothing was written)", source=os.fspath(ssh_key))


def seal_move(move_path: PathLike, to: Sequence[str], ssh_key: PathLike | None = None,
              game: PathLike | None = None) -> list[str]:
    """Seal a move file for the referee. First the file is padded to 1024 bytes (a last YAML
    comment line, :func:`~rebis_pbm.crypto.age.padded_move`) and written back, so
    that every sealed move has the same length whatever it plays; with ``ssh_key``, the padded
    file is then signed with the standard ``ssh-keygen -Y sign -f KEY -n rebis-pbm`` (writing
    ``MOVE.yaml.sig``: the signature covers the padding); then the move is encrypted to ``to``
    (age recipients ``age1...`` or SSH public key lines) as ``MOVE.yaml.age``, and the
    signature as ``MOVE.yaml.sig.age`` (a signature in clear would let anyone test guesses of a
    closing play's face-down card against it). Returns the files written. The plain move and
    signature stay where they are, for the player.

    Without ``to``, the recipient is the one the game shows (:func:`referee_recipient_of`):
    ``game``, the game's public record or its YAML view (default: :data:`DEFAULT_GAME` in the
    current folder, a player's clone of the game's repository). When the record is at hand
    (``game`` or game.yaml here), the signing key must be the one it registers for the move's
    player (:func:`_check_sealing_key`).

    Raises:
        InputError: the move file is unreadable, not YAML or longer than 1024 bytes, a
            recipient is not one, (without ``to``) the game's record or view cannot be read
            or shows none, or the key is not the mover's (exit 2). Nothing is written then.
        UsageError: no ``to``, no ``game`` and no game.yaml here (option ``--to``).
        Failed: ``ssh-keygen`` is missing or refused to sign (its reason, exit 2).
    """
    import stat
    import subprocess

    from rebis_pbm.crypto.age import encrypt_to, padded_move
    path = os.fspath(move_path)
    data, source = read_input(path, kind="move")
    doc = load_yaml(data, source=source, kind="move").data  # not YAML: refused before signing
    as_read, data = data, padded_move(data, source)  # age hides no length (docs/formats.md)
    # game.yaml here, when it is of another game than a move sealed --to: its keys not checked
    other_game_ok = game is None and bool(to)
    if game is None and os.path.exists(DEFAULT_GAME):
        game = DEFAULT_GAME
    move_game = doc.get("game") if isinstance(doc, dict) else None
    move_game = move_game if isinstance(move_game, str) else None
    if not to:
        if game is None:
            raise UsageError(f"give the referee's recipient with --to, or the game's record or "
                             f"view with --game (there is no {DEFAULT_GAME} here)", "--to")
        to = [referee_recipient_of(game, move_game)]
    files = [(path, data)]
    if ssh_key is not None:
        try:
            # The move on standard input, the signature on standard output: signing a file
            # would keep a MOVE.yaml.sig left from an earlier version of the move (ssh-keygen
            # will not replace it, and says so only by asking), sealing a stale signature.
            done = subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", os.fspath(ssh_key),
                                   "-n", SIGNATURE_NAMESPACE], capture_output=True, input=data)
        except FileNotFoundError:
            raise Failed("ssh-keygen is not installed on this machine; install OpenSSH's client "
                         "to sign moves") from None
        if done.returncode != 0 or not done.stdout:
            said = done.stderr.decode("utf-8", "replace").strip()
            why = (said.splitlines() or ["no reason given"])[-1]
            raise Failed(f"ssh-keygen could not sign {path} with {os.fspath(ssh_key)}: {why}")
        if game is not None:
            _check_sealing_key(game, doc, data, done.stdout, ssh_key,
                               None if other_game_ok else move_game)
        files.append((path + SIGNATURE, done.stdout))
    sealed = [(name + ENCRYPTED, encrypt_to(content, to)) for name, content in files]
    written = []
    # The padded move (its mode kept: a closing play's card is a secret) and its signature, in
    # clear, for the player: the pair a referee checks as it checks the sealed pair.
    if data != as_read and path != "-":
        write_atomic(path, data, mode=stat.S_IMODE(os.stat(path).st_mode))
    for name, content in files[1:]:
        write_atomic(name, content, mode=0o644)
    for name, content in sealed:
        write_atomic(name, content, mode=0o644)
        written.append(name)
    return written


SIGNATURE_NAMESPACE = "rebis-pbm"  # ssh-keygen -Y sign -n: what a move's signature is for


def check_referee_identity(record: Record, identity_file: PathLike | None) -> None:
    """Refuse a referee identity that is not the game's: in a game with a referee recipient
    (rebis-pbm/3 ``new --referee-recipient``), the identity given must be the one whose
    recipient the record holds, so that every move sealed to that recipient opens and no other
    does. Nothing to check without an identity or a recipient.

    Raises:
        Failed: the identity's recipient is another (exit 2); the identity names no secret.
        InputError: the identity cannot be read.
    """
    from rebis_pbm.crypto.age import age_recipients_of, identity_name
    wanted = record.referee_recipient
    if identity_file is None or wanted is None:
        return
    found = age_recipients_of(identity_file)
    if wanted not in found:
        raise Failed(f"the referee identity ({identity_name(identity_file)}) is not game "
                     f"{record.game}'s: the record's referee_recipient is {wanted}, and "
                     f"the identity's is {', '.join(found) or 'none (it is an SSH key)'}; give "
                     f"the identity keygen-referee wrote for this game (no move was read)")


def open_sealed_move(data: bytes, source: str, identity_file: PathLike | None,
                     recipient: str | None = None) -> tuple[bytes, str]:
    """A move as sent: when ``source`` ends with ``.age`` (a sealed move), its plain text
    decrypted with the referee's identity; else ``data`` as it is. Returns (the move's bytes,
    the name its checks see: ``source`` without ``.age``).

    Raises:
        UsageError: a sealed move and no identity (option ``--identity``, exit 2).
        InputError: it cannot be decrypted with that identity (exit 2): with the game's
            ``recipient`` (rebis-pbm/3), said as a move not sealed to it.
    """
    from rebis_pbm.crypto.age import decrypt
    if not source.endswith(ENCRYPTED):
        return data, source
    if identity_file is None:
        raise UsageError(f"{source} is a sealed move; give the referee's age identity to open "
                         f"it (--identity FILE or REBIS_PBM_AGE_IDENTITY)", "--identity")
    try:
        return decrypt(data, identity_file, source), source[:-len(ENCRYPTED)]
    except InputError as exc:
        if recipient is None or not exc.message.startswith("this file is not encrypted to"):
            raise
        raise InputError(f"this sealed move is not sealed to the game's referee recipient "
                         f"{recipient}; seal the move again with rebis-pbm seal, which takes the "
                         f"recipient from the game's record", source=exc.source) from None
