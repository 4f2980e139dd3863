"""A pull request's check, ``rebis-pbm git check``: each move file a range adds or changes is
checked for its name, form, game, author and signature, without the seed; nothing is written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rebis_pbm import app as referee
from rebis_pbm.engine import Move
from rebis_pbm.errors import ExitCode, Failed, RebisError, Refused, one_line
from rebis_pbm.files.names import DEFAULT_GAME
from rebis_pbm.record import Record
from rebis_pbm.transports.git.game import Outcome
from rebis_pbm.transports.git.movefiles import (
    GameFiles,
    MoveFile,
    Say,
    move_file,
    only_moves,
    precheck,
    say_print,
    turn_of,
)
from rebis_pbm.transports.git.privacy import Privacy, plain, plain_in_public, takes_sealed_only
from rebis_pbm.transports.git.repository import (
    Git,
    Listing,
    changed_files,
    deepen,
    refuse_secret,
    repository,
    secret_of,
    span,
)
from rebis_pbm.transports.git.shard import (
    RECORD,
    check_shard_game,
    folder_of,
    same_ids,
    shard_folder,
    shard_games,
    shard_records,
    shard_stop,
    strays,
)


def check_moves(start: str | os.PathLike[str], revisions: str, game: str = DEFAULT_GAME,
                say: Say = say_print, *, games: str | None = None) -> Outcome:
    """A pull request's check, without the seed: each move file ``revisions`` (``BASE..HEAD``
    or one commit) adds or changes is checked for its name, form, game and author; nothing is
    written or committed. ``say`` gets a line per file. With ``games`` (a folder relative to
    the repository's top), every game of that shard
    (:func:`rebis_pbm.transports.git.shard.shard_games`) whose move files changed is checked in
    turn, instead of ``game``; a game that fails stops only its own check, said as it comes,
    and the error is raised once every game is checked. A shard is listed once (one ``git
    ls-tree``), and only the games whose move files changed are read.

    Raises:
        Failed: the seed is in the environment (a check must never see it), a seed file is
            committed, or a file under moves/ is not named as a move file (exit 2).
        UsageError: ``revisions`` is not a commit or range of this repository, or ``games`` is
            not a folder of games (exit 2).
        Refused: the first file that would be refused (exit 1 or 2); with ``games``, one
            sentence naming each game that failed (exit: its first failure's).
    """
    from rebis_pbm.record.secret import SEED_ENV

    if os.environ.get(SEED_ENV):
        raise Failed(f"a check runs without the seed, but {SEED_ENV} is set: a pull request's "
                     f"check must never see it (docs/git.md); remove it from that job")
    git = Git(repository(start))
    try:
        deepen(git, None)
        base, new = span(git, revisions)
        where = f"{base}..{new}" if base else new
        if games is None:
            files = GameFiles(game)
            tree = git.listing(new, files.moves, secret_of(game))
            paths = changed_files(git, base, new, files.moves)
            return Outcome(checked=_check_game(git, new, tree, paths, where, files, say))
        folder = shard_folder(games)
        tree = git.listing(new, folder)
        shard = shard_games(tree, new, games)
        paths = changed_files(git, base, new, folder)
        checked = 0
        stopped: list[tuple[GameFiles, RebisError]] = []
        records = shard_records(git, tree, shard)
        ids = same_ids(records)
        for files in shard:
            try:
                check_shard_game(files, records, ids)
                checked += _check_game(git, new, tree, paths, where, files, say,
                                       changed_only=True)
            except RebisError as exc:
                stopped.append((files, exc))
                say(one_line(f"rebis-pbm git: {folder_of(files)}: {exc}"), True)
        for path in strays(paths, folder, shard):
            stray = Failed(f"{one_line(path)}: no game of the shard has this moves/ folder: a "
                           f"game is {folder}NAME/{RECORD}, its move files in "
                           f"{folder}NAME/moves/; move the file to its game's folder in a new "
                           f"commit")
            stopped.append((GameFiles(path.partition("/moves/")[0] + "/" + RECORD), stray))
            say(f"rebis-pbm git: {stray}", True)
        if stopped:
            raise shard_stop(stopped, "every other game's move files were checked")
        return Outcome(checked=checked)
    finally:
        git.close()


def _check_game(git: Git, new: str, tree: Listing, changed: list[str], where: str,
                files: GameFiles, say: Say, changed_only: bool = False) -> int:
    """:func:`check_moves` for one game (``files``): how many move files were checked;
    ``tree``: the files of ``new``; ``changed``: the files the range adds or changes. With
    ``changed_only``, a game none of whose move files changed is not read (0)."""
    game, moves = files.record, files.moves
    refuse_secret(tree, game)
    paths = only_moves(changed, moves)
    if changed_only and not paths:
        return 0
    turns = {p: t for p in paths if (t := turn_of(git, p, where, moves)) >= 0}
    checked = 0
    with tempfile.TemporaryDirectory() as work:
        record_path = Path(work) / game.rsplit("/", 1)[-1]
        data = git.blob(f"{new}:{game}")
        if data is None:
            raise Failed(f"{game} is not a file at commit {new[:12]}: there is no game to check "
                         f"the move files against")
        record_path.write_bytes(data)
        record = referee.read_record(record_path)
        if takes_sealed_only(record, Privacy()):  # a plain signature is refused too
            plains = [p for p in only_moves(changed, moves, signatures=True) if plain(p, moves)]
            if plains:
                raise Refused(plain_in_public(plains[0], moves), ExitCode.INPUT)
        for path in sorted(turns, key=lambda p: (turns[p], p)):
            move = move_file(git, tree, path, turns[path], where, moves)
            precheck(record, move)
            if move.sealed:  # only the referee's identity opens it; its name is public
                referee.check_sender(record, move.author, move.player, path)
                _check_signed(record, move, None)
                say(f"{path} ({move.short}, {move.shown_author}): a sealed move of turn "
                    f"{move.turn}; it is opened and checked once it is merged", False)
                checked += 1
                continue
            try:
                # The record's path in the repository, never the check's temporary copy.
                parsed = referee.read_move(record, game, move.data, path, author=move.author,
                                           file_name=os.path.basename(path))
                _check_signed(record, move, parsed)
            except Refused:
                say(f"rebis-pbm git: {move.label} would be refused", True)
                raise
            say(f"{path} ({move.short}, {move.shown_author}): a well-formed move of turn "
                f"{move.turn}; the rules are checked once it is merged", False)
            checked += 1
    return checked


def _check_signed(record: Record, move: MoveFile, parsed: Move | referee.JoinMove | None
                  ) -> None:
    """The signature as ``apply`` checks it: a player who registered a key must sign their
    moves (the signature beside the file: ``.sig``, or ``.sig.age`` beside a sealed move, which
    only the referee opens: its presence is checked here), and a plain move's signature must be
    theirs over the file's exact bytes (:func:`rebis_pbm.app.check_signature`). ``parsed``: the
    plain move as read, None for a sealed one.

    Raises:
        Refused: no signature from a player with a key, or one that is not theirs (exit 1).
    """
    if parsed is not None:
        referee.check_signature(record, parsed, move.data, move.signature, move.path)
    elif move.signature is None and move.player in record.players \
            and record.player_keys(move.player):
        raise Refused(f"{move.path}: move rejected: {move.player} registered a key, so their "
                      f"moves must be signed (the sealed signature {move.path[:-4]}.sig.age "
                      f"beside it, from rebis-pbm seal --key); no signature came with it")
