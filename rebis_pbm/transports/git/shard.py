"""A shard: a folder of games in one repository (``--games DIR``), listed once, each game
checked against being taken for another, and only games with a waiting move opened.

A shard's job costs what its waiting moves cost: one ``git ls-tree -r`` lists every game's
files, one ``git cat-file --batch`` reads every record's first lines and its count of moves
(:func:`recorded_moves`, without building the record), and only a game that holds a move file
for its next turn or later, a file the push changed, a file that is no move's, or a committed
seed is opened and replayed (docs/git.md, "A shard of games in one repository").
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from rebis_pbm.errors import Failed, RebisError, Refused, UsageError, one_line
from rebis_pbm.files.names import DEFAULT_GAME
from rebis_pbm.transports.git.game import Changes, Outcome, apply_round
from rebis_pbm.transports.git.movefiles import (
    KEEP,
    NAME_CHARS,
    SAFE_NAME,
    GameFiles,
    Say,
    last_commits,
)
from rebis_pbm.transports.git.privacy import Privacy
from rebis_pbm.transports.git.repository import REGULAR, Git, Listing, secret_of

RECORD = DEFAULT_GAME  # a shard's record in each of its games' folders


def shard_folder(games: str) -> str:
    """The folder of a shard's games as ``--games`` gives it, relative to the repository's top
    (``games`` or ``games/``), as the job uses it: ``games/``.

    Raises:
        UsageError: an absolute path, one going up (``..``), or a name with a space or another
            character outside letters, digits, ``.``, ``_`` and ``-`` (option ``--games``).
    """
    parts = games.replace(os.sep, "/").strip("/").split("/")
    if os.path.isabs(games) or not games.strip("/") or any(
            p in ("", ".", "..") or not SAFE_NAME.fullmatch(p) for p in parts):
        raise UsageError(f"{games!r}: give the folder of the shard's games relative to the "
                         f"repository's top, e.g. games (each game in games/NAME/game.yaml), "
                         f"its names of letters, digits, '.', '_' and '-' only", "--games")
    return "/".join(parts) + "/"


def shard_games(tree: Listing, commit: str, games: str) -> list[GameFiles]:
    """The games of the shard in the folder ``games`` at ``commit`` (``tree``: its files,
    :meth:`Git.listing`), in the order of their names: every ``games/NAME/`` holding
    ``game.yaml``, its move files in ``games/NAME/moves/`` and its refusals in
    ``games/NAME/refusals/`` (docs/git.md, "A shard of games in one repository").

    Raises:
        UsageError: ``games`` is not a folder name (:func:`shard_folder`), or it holds no game
            at ``commit`` (option ``--games``).
    """
    folder = shard_folder(games)
    found = [path[:-len(RECORD)] for path in tree
             if path.startswith(folder) and path.endswith("/" + RECORD)
             and path.count("/") == folder.count("/") + 1]
    if not found:
        raise UsageError(f"{folder} holds no game at commit {commit[:12]}: a shard's games are "
                         f"{folder}NAME/{RECORD}, each with its move files in "
                         f"{folder}NAME/moves/", "--games")
    return [GameFiles(f"{top}{RECORD}", f"{top}moves/", f"{top}refusals/", f"{top}commands/",
                      f"{top}answers/") for top in sorted(found)]


def folder_of(files: GameFiles) -> str:
    """A shard's game as messages name it: its folder, ``games/NAME/``."""
    return files.record.rpartition("/")[0] + "/"


class RecordHead(NamedTuple):
    """What the job knows of a shard's record before opening it: its ``mode`` (as ``git
    ls-tree`` gives it), its game id (None when not read as one) and how many moves it records
    (None when not counted: the game is then opened)."""

    mode: str
    game_id: str | None
    moves: int | None


def recorded_moves(data: bytes) -> int | None:
    """How many moves the record ``data`` holds, counted without building it: the items of its
    top-level ``moves:`` list, which the record's writer puts at the line's start (``- turn:
    N``), every line inside an item indented. None when the text is not laid out so (a record
    written by hand): the caller then opens the game."""
    at = data.find(b"\nmoves:")
    if at < 0 or data.find(b"\nmoves:", at + 1) >= 0:
        return None
    end = data.find(b"\n", at + 1)
    rest = data[at + 7:end if end >= 0 else len(data)].strip()
    if rest == b"[]":
        return 0
    if rest or end < 0:
        return None
    after = _TOP_LEVEL.search(data, end + 1)  # the next top-level line: the list's end
    stop = after.start() if after else len(data)
    return data.count(b"\n- ", end, stop)


_TOP_LEVEL = re.compile(rb"\n(?![ \n-]|$)")  # a line starting with anything but an item's text


# A record as its writer begins it: comment lines, `format: ...`, then `game: ID` with a plain
# ID that YAML reads as text (what top_level_text would give, without parsing: a fast path).
_PLAIN_ID = re.compile(rb"(?:#[ -~]*\n)*format: [A-Za-z0-9/._-]+\n"
                       rb"game: ([A-Za-z_][A-Za-z0-9_-]*)\n")
_NOT_TEXT = {b"yes", b"no", b"true", b"false", b"on", b"off", b"null"}  # YAML 1.1 words


def shard_records(git: Git, tree: Listing, shard: list[GameFiles]) -> dict[str, RecordHead]:
    """Each game's record in ``tree``, by its path (:class:`RecordHead`): read by the job's one
    ``git cat-file --batch``, the id from each regular file's first lines only
    (:func:`rebis_pbm.formats.yaml_reader.top_level_text`)."""
    from rebis_pbm.formats.yaml_reader import top_level_text
    entries = {files.record: tree.get(files.record) for files in shard}
    regular = {r: entry.oid for r, entry in entries.items()
               if entry is not None and entry.mode in REGULAR}
    blobs = dict(zip(regular, git.blobs(list(regular.values())), strict=True))
    records: dict[str, RecordHead] = {}
    for record, entry in entries.items():
        blob = blobs.get(record)
        if entry is None or blob is None:
            records[record] = RecordHead(entry.mode if entry is not None else "", None, None)
            continue
        match = _PLAIN_ID.match(blob)
        game_id = match.group(1).decode() if match and match.group(1).lower() not in \
            _NOT_TEXT else top_level_text(blob, "game")
        records[record] = RecordHead(entry.mode, game_id, recorded_moves(blob))
    return records


def same_ids(records: dict[str, RecordHead]) -> dict[str, list[str]]:
    """The records of :func:`shard_records` by their game id (those read as one)."""
    found: dict[str, list[str]] = {}
    for record, head in records.items():
        if head.game_id is not None:
            found.setdefault(head.game_id, []).append(record)
    return found


def check_shard_game(files: GameFiles, records: dict[str, RecordHead],
                     ids: dict[str, list[str]]) -> None:
    """Refuses a shard's game that could be taken for another: a folder name git could read as
    a pattern (:func:`check_folder`), a record committed as a symbolic link (it would be read,
    and written, through the link: another game's record), or a game id another folder's
    record holds too (a move could be applied to either copy: the game would fork).
    ``records``: :func:`shard_records` of the shard; ``ids``: :func:`same_ids` of them.

    Raises:
        Failed: one of those (exit 2); the game's moves are not judged.
    """
    check_folder(files)
    mode, game_id, _ = records[files.record]
    if mode not in REGULAR:
        raise Failed(f"{files.record} is committed as a symbolic link or another thing than a "
                     f"file; a game's record is a file of its own: commit it in a new commit; "
                     f"no move of this game was judged")
    twins = [folder_of(GameFiles(r)) for r in ids.get(game_id or "", [])
             if game_id is not None and r != files.record]
    if twins:
        raise Failed(f"{folder_of(files)} holds game {one_line(str(game_id))}, as "
                     f"{', '.join(twins)} does: a move could be applied to either copy; keep "
                     f"one folder per game id; no move of this game was judged")


def check_folder(files: GameFiles) -> None:
    """Refuses a shard's game whose folder's name git could read as a pattern (``*``...).

    Raises:
        Failed: the name holds another character than letters, digits, ``.``, ``_``, ``-``.
    """
    if not SAFE_NAME.fullmatch(folder_of(files).rstrip("/").rpartition("/")[2]):
        raise Failed(f"{folder_of(files)}: a game's folder name holds a space or another "
                     f"character outside letters, digits, '.', '_' and '-'; rename it in a new "
                     f"commit; no move of this game was judged")


def strays(paths: list[str], folder: str, shard: list[GameFiles]) -> list[str]:
    """The files of ``paths`` (what a push added or changed) in a ``moves/`` folder under the
    shard's ``folder`` that is no game's (a misspelt game name, a game whose record is gone)."""
    games = tuple(files.moves for files in shard)
    return [p for p in paths if p.startswith(folder) and "/moves/" in p[len(folder):]
            and not p.startswith(games)]


def by_game(tree: Listing, folder: str) -> dict[str, list[str]]:
    """The paths of ``tree`` under the shard's ``folder``, by the game folder holding them
    (``games/NAME/``): one pass over the listing."""
    found: dict[str, list[str]] = {}
    for path in tree:
        name, slash, _ = path[len(folder):].partition("/")
        if slash and path.startswith(folder):
            found.setdefault(f"{folder}{name}/", []).append(path)
    return found


def has_work(files: GameFiles, paths: list[str], head: RecordHead, changed: list[str]) -> bool:
    """Does the game ``files`` need opening: a committed seed file, a file in its moves/ that
    is no move file's name (either stops it), a command file in its commands/, a move file or
    signature the push changed (``changed``), or one whose turn is the record's next or later
    (``head``)? ``paths``: the game's files (:func:`by_game`). A game whose moves are not
    counted is opened."""
    moves = files.moves
    if head.moves is None or secret_of(files.record) in paths:
        return True
    if any(p.startswith(files.commands) and p != files.commands + KEEP for p in paths):
        return True  # a player's command to answer (docs/git.md, "Commands")
    if any(p.startswith(moves) and p != moves + KEEP for p in changed):
        return True
    for path in paths:
        if not path.startswith(moves) or path == moves + KEEP:
            continue
        match = _MOVE_OR_SIGNATURE.fullmatch(path, len(moves))
        if match is None:  # (a name that stops the game: name_fault says why, when opened)
            return True
        # (a signature's turn, too: a plain one in a game of sealed moves is removed unread)
        if int(match.group(1)) > head.moves:
            return True
    return False


def _due(path: str, moves: str, recorded: int | None) -> bool:
    """Is ``path`` a move file or signature in ``moves`` for the turn after ``recorded``?"""
    match = _MOVE_OR_SIGNATURE.fullmatch(path, len(moves)) if path.startswith(moves) else None
    return match is not None and recorded is not None and int(match.group(1)) == recorded + 1


# A move file's or signature's name (MOVE_NAME or COMPANION, of SAFE_NAME's characters only).
_MOVE_OR_SIGNATURE = re.compile(rf"turn-([0-9]+)-[{NAME_CHARS}]+\.yaml(?:\.sig)?(?:\.age)?")


def shard_stop(stopped: list[tuple[GameFiles, RebisError]], rest: str) -> RebisError:
    """The error a shard's job ends with when some of its games ended with a refusal or an
    error, each said above: one sentence naming them and what was done for the others
    (``rest``); its exit code is the first one's (1: a move refused by the rules)."""
    names = ", ".join(folder_of(f) for f, _ in stopped)
    return Refused(f"{len(stopped)} game(s) of the shard ended with a refusal or an error, each "
                   f"said above: {names}; {rest}", stopped[0][1].exit_code)


def apply_shard(git: Git, tip: str, tree: Listing, changes: Changes | None, folder: str,
                shard: list[GameFiles], say: Say, privacy: Privacy, pushed: bool
                ) -> tuple[Outcome, RebisError | None]:
    """One round of every game of a shard on ``tip`` (:func:`apply_round` for each game that
    has work, :func:`has_work`): (what was applied in all, the error naming the games that
    stopped, or None). ``tree``: the files at ``tip`` of the shard's ``folder``
    (:func:`shard_folder`); ``changes``: what the push's range changed. A game's refusal or
    error is said as it comes and stops that game only."""
    applied: list[int] = []
    repeated = refusals = 0
    stopped: list[tuple[GameFiles, RebisError]] = []
    games: list[str] = []
    asked: list[tuple[str, str]] = []
    records = shard_records(git, tree, shard)
    ids = same_ids(records)
    changed = changes.paths if changes is not None else []
    games_files = by_game(tree, folder)
    ready: dict[str, RebisError | None] = {}  # the games to open: None, or what stops them
    due: list[str] = []  # their files for the next turn, whose last commits are found at once
    for files in shard:
        try:
            check_shard_game(files, records, ids)
        except RebisError as exc:
            ready[files.record] = exc
            continue
        mine = games_files.get(folder_of(files), [])
        head = records[files.record]
        theirs = [p for p in changed if p.startswith(files.moves)]
        if has_work(files, mine, head, theirs):
            ready[files.record] = None
            due += theirs + [p for p in mine if _due(p, files.moves, head.moves)]
    known = last_commits(git, tip, due)
    for files in shard:
        if files.record not in ready:
            continue
        try:
            failed = ready[files.record]
            if failed is not None:
                raise failed
            done, stop = apply_round(git, tip, tree, changes, files, say, privacy, known)
        except RebisError as exc:  # this game only: its commits so far stay (none, mostly)
            done, stop = Outcome(), exc
            git.run("reset", "--quiet")  # nothing of it staged for the next game's commit
        applied += done.applied
        games += [files.record] if done.applied else []
        repeated += done.repeated
        refusals += done.refusals
        asked += done.asked
        if stop is not None:
            stopped.append((files, stop))
            say(one_line(f"rebis-pbm git: {folder_of(files)}: {stop}"), True)
    rest = "every other game's moves were applied" + (" and pushed" if pushed else "")
    return (Outcome(tuple(applied), repeated, refusals=refusals,
                    stopped=tuple(folder_of(f) for f, _ in stopped), games=tuple(games),
                    asked=tuple(asked)),
            shard_stop(stopped, rest) if stopped else None)
