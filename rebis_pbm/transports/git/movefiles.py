"""Move files as a commit holds them: their names, their authors, their content and signatures.

A game's move files are ``moves/turn-NNN-PLAYER.yaml`` (``.yaml.age`` sealed), each with its
signature beside it (``.yaml.sig``, ``.yaml.sig.age``); any other name in the folder stops the
game's job (docs/git.md). The author of a move is the author address of the file's last commit.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rebis_pbm import app as referee
from rebis_pbm.errors import ExitCode, Failed, Refused, one_line
from rebis_pbm.files.names import COMPANION, DEFAULT_GAME, MOVE_NAME, PLAYERS_FOLDERS, SIGNATURE
from rebis_pbm.transports.git.repository import SYMLINK, Git, Listing, changed_files

if TYPE_CHECKING:
    from rebis_pbm.record import Record

# rebis_pbm.files.names.PLAYERS_FOLDERS, each with its slash. REFUSALS: in a public repository,
# each refusal's reason, encrypted to its mover; COMMANDS: players' commands, NAME-WORDS.txt
# (docs/git.md, "Commands"); ANSWERS: the job's answers to them.
MOVES, COMMANDS, REFUSALS, ANSWERS = (f"{folder}/" for folder in PLAYERS_FOLDERS)
# The characters a move file's name may hold (its form: rebis_pbm.files.names.MOVE_NAME): the
# schema's player names' (schemas/move.schema.json, $defs/player: Latin letters with accents,
# precomposed, so turn-001-José.yaml in NFC; tests/transports check the two agree) and '.'.
NAME_CHARS = r"A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01bf\u01c4-\u024f\u1e00-\u1eff0-9_.-"
SAFE_NAME = re.compile(f"[{NAME_CHARS}]+")
KEEP = ".gitkeep"  # an empty folder's placeholder, never a move

Say = Callable[[str, bool], None]  # (line, for the referee's attention: standard error)


def say_print(line: str, notice: bool = False) -> None:
    """A :data:`Say` that prints every line on standard output."""
    print(line)


@dataclass(frozen=True)
class GameFiles:
    """Where one game's files are, relative to the repository's top: its ``record``, the folder
    of its move files (``moves``), in a public repository of its refusals (``refusals``), and
    of the players' commands and their answers (``commands``, ``answers``), each folder ending
    in ``/``. One game per repository: ``game.yaml``, ``moves/``, ``refusals/``,
    ``commands/``, ``answers/``; a shard's game ``NAME`` in ``DIR``: ``DIR/NAME/game.yaml``,
    ``DIR/NAME/moves/`` and so on (:func:`rebis_pbm.transports.git.shard.shard_games`)."""

    record: str = DEFAULT_GAME
    moves: str = MOVES
    refusals: str = REFUSALS
    commands: str = COMMANDS
    answers: str = ANSWERS


def refuse_name(git: Git, path: str, why: str, span: str, moves: str = MOVES) -> Failed:
    """The error that stops a game for a file in ``moves`` that is no move file: one sentence
    naming the file, the commit that changed it last and its author."""
    shown = "".join(c if c.isprintable() else "?" for c in path)
    by = git.run("--literal-pathspecs", "log", "-1", "--format=%h by %ae", span, "--", path,
                 check=False).stdout.strip() or "?"
    return Failed(f"{shown} (commit {by}): {why}; only move files go in {moves}, each named "
                  f"{moves}turn-NNN-PLAYER.yaml after its turn and player (e.g. "
                  f"{moves}turn-007-alice.yaml). Rename or remove it in a new commit; no move "
                  f"{'of this game ' if moves != MOVES else ''}was applied")


def is_signature(path: str, moves: str = MOVES) -> bool:
    """Whether ``path`` is a move file's signature committed beside it in the folder ``moves``
    (docs/git.md): ``turn-NNN-PLAYER.yaml.sig``, or ``.sig.age`` sealed with a sealed move."""
    return path.startswith(moves) and bool(COMPANION.fullmatch(path[len(moves):]))


def name_fault(name: str, moves: str = MOVES) -> str | None:
    """Why ``name`` (a path inside the folder ``moves``, without it) is no move file's name or
    signature's, or None when it is one. The name is taken in Unicode NFC (:func:`nfc`)."""
    name = nfc(name)
    if "/" in name:
        return f"it is in a folder inside {moves}"
    if not SAFE_NAME.fullmatch(name):
        return "its name holds a space or another character no move file has"
    if not MOVE_NAME.fullmatch(name) and not COMPANION.fullmatch(name):
        return "this is not a move file's name"
    return None


def nfc(name: str) -> str:
    """``name`` in Unicode NFC, the form of the players' names: macOS commits José as "e" and
    a combining accent (NFD), and such a file is still José's."""
    return unicodedata.normalize("NFC", name)


def turn_of(git: Git, path: str, span: str, moves: str = MOVES) -> int:
    """The turn in a move file's name (-1: a signature beside its move).

    Raises:
        Failed: any other name in the folder ``moves`` (:func:`refuse_name`; exit 2).
    """
    name = path[len(moves):]
    why = name_fault(name, moves)
    if why is not None:
        raise refuse_name(git, path, why, span, moves)
    match = MOVE_NAME.fullmatch(nfc(name))
    return int(match.group(1)) if match else -1


def file_turn(path: str, moves: str = MOVES) -> int:
    """The turn in the name of a move file or of its signature (-1: neither)."""
    match = re.match(r"turn-([0-9]+)-", path[len(moves):])
    return int(match.group(1)) if match else -1


def changed(git: Git, base: str | None, new: str, signatures: bool = False,
            moves: str = MOVES) -> list[str]:
    """The files in the folder ``moves`` that ``new`` adds or changes since ``base`` (with
    ``signatures``, the signatures committed beside moves too)."""
    return only_moves(changed_files(git, base, new, moves), moves, signatures)


def only_moves(paths: list[str], moves: str, signatures: bool = False) -> list[str]:
    """The paths in the folder ``moves`` that may be moves (with ``signatures``, their
    signatures too): not its ``.gitkeep``."""
    return [p for p in paths if p.startswith(moves) and p != moves + KEEP
            and (signatures or not is_signature(p, moves))]


@dataclass(frozen=True)
class MoveFile:
    """A move file as the job judges it."""

    path: str      # moves/turn-NNN-PLAYER.yaml
    turn: int      # from its name
    author: str    # the author address of the last commit that changed it
    short: str     # that commit, abbreviated
    data: bytes    # its content at the commit judged
    signature: bytes | None = None  # the signature committed beside it, if any
    signature_name: str = ""        # its path: turn-NNN-PLAYER.yaml.sig, or .sig.age (sealed)
    symlink: bool = False           # committed as a symbolic link (never read as a move)
    overwritten: str = ""           # a later change by another author, not taken: who made it

    @property
    def shown_author(self) -> str:
        """The author address as printed: invisible characters (a zero-width space...) shown
        escaped, so that two different addresses never look the same."""
        return one_line(self.author) if self.author else "no address"

    @property
    def label(self) -> str:
        return f"{self.path} (commit {self.short} by {self.shown_author})"

    @property
    def sealed(self) -> bool:
        return self.path.endswith(referee.ENCRYPTED)

    @property
    def player(self) -> str:
        """The player its name is for (``turn-NNN-PLAYER.yaml[.age]``)."""
        # The name after its folder (moves/ or a shard's DIR/NAME/moves/), which holds no other.
        match = MOVE_NAME.fullmatch(nfc(self.path.rpartition("/")[2]))
        return match.group(2) if match else "?"


def signature_name(path: str) -> str:
    """The signature beside the move file ``path``: a sealed move's is sealed too (``.sig.age``),
    a plain move's plain (``.sig``): never the one of the other kind, which a plain file beside a
    sealed one would otherwise give."""
    sealed = path.endswith(referee.ENCRYPTED)
    plain = path[:-len(referee.ENCRYPTED)] if sealed else path
    return plain + SIGNATURE + (referee.ENCRYPTED if sealed else "")


class History(list[tuple[str, str, str, str]]):
    """A file's commits, newest first, as ``git log -- PATH`` walks them: (commit, author
    address, abbreviated commit, status letter: ``A`` added, ``M`` changed...)."""


def history(git: Git, span: str, path: str, last_only: bool = False) -> History:
    """The commits of ``span`` that changed ``path`` (:class:`History`): one ``git log``."""
    out = git.run("--literal-pathspecs", "log", *(["-1"] if last_only else []),
                  "--format=@%H%x00%ae%x00%h", "--name-status", span, "--", path,
                  check=False).stdout
    found = History()
    for line in out.splitlines():
        if line.startswith("@"):
            commit, author, short = (line[1:].split("\0") + ["", ""])[:3]
            found.append((commit, author, short, ""))
        elif "\t" in line and found and not found[-1][3]:
            found[-1] = (*found[-1][:3], line[:1])
    return found


Last = dict[str, tuple[str, str, str]]  # path -> its last commit: (commit, author, abbreviated)


def last_commits(git: Git, tip: str, paths: list[str]) -> Last:
    """The last commit of ``tip``'s history that changed each of ``paths`` (those of
    :data:`SAFE_NAME`'s characters; the others are left to :func:`history`), found by one walk
    of the history for them all (``git log``, stopped once every path is found), where a
    ``git log -1`` a file walks the history once for each file."""
    wanted = {p for p in paths if all(SAFE_NAME.fullmatch(part) for part in p.split("/"))}
    found: Last = {}
    if not wanted:
        return found
    walk = subprocess.Popen(git.argv("--literal-pathspecs", "log", "--format=@%H%x00%ae%x00%h",
                                     "--name-only", tip, "--", *sorted(wanted)), cwd=git.top,
                            env=git.env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert walk.stdout is not None
    try:
        commit: tuple[str, str, str] | None = None
        for raw in walk.stdout:
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            if line.startswith("@"):
                parts = (line[1:].split("\0") + ["", ""])[:3]
                commit = (parts[0], parts[1], parts[2])
            elif line in wanted and commit is not None and line not in found:
                found[line] = commit
                if len(found) == len(wanted):
                    break
    finally:
        walk.kill()
        walk.stdout.close()
        walk.wait()
    return found


def move_file(git: Git, tree: Listing, path: str, turn: int, span: str,
              moves: str = MOVES, commits: History | None = None) -> MoveFile:
    """The move file ``path`` of the listed commit (``tree``), with its signature beside it and
    the author of ``span``'s last commit that changed it (from ``commits`` when given).

    Raises:
        Failed: ``path`` is not a file (exit 2).
    """
    commits = commits if commits is not None else history(git, span, path, last_only=True)
    author, short = (commits[0][1], commits[0][2]) if commits else ("", "")
    entry = tree.get(path)
    data = git.blob(entry.oid) if entry is not None else None
    if entry is None or data is None:
        raise refuse_name(git, path, "it is not a file", span, moves)
    name = signature_name(path)
    sig_entry = tree.get(name)
    sig = git.blob(sig_entry.oid) if sig_entry is not None else None
    if sig is not None:
        return MoveFile(path, turn, author, short, data, sig, name,
                        symlink=entry.mode == SYMLINK)
    return MoveFile(path, turn, author, short, data, symlink=entry.mode == SYMLINK)


def players_version(git: Git, tip: str, tree: Listing, path: str, turn: int,
                    record: Record, moves: str = MOVES, known: Last | None = None) -> MoveFile:
    """The move file ``path`` at ``tip``, as its player last committed it when a later commit
    by another author changed it or its signature (another player overwriting a pending move):
    the commits since the file was last added are searched, newest first, for one by an
    address registered for the player its name is for; that version is judged, and the job
    restores it (:func:`restore`). Without such a commit, the file as it is (a move committed
    by another author is then refused as not theirs). ``known``: the last commits of files,
    found before (:func:`last_commits`).

    Raises:
        Failed: ``path`` is not a file (exit 2).
    """
    last = _last(git, tip, path, known)
    move = move_file(git, tree, path, turn, tip, moves, last)
    if move.player not in record.players:
        return move
    # (the common case, the player's own last commit, needs no walk of the file's history)
    commits = last if _by(record, last, move.player) else history(git, tip, path)
    own = _own_version(git, commits, path, move.player, record)
    if own is None:
        return move
    data, author, short, by = own
    signature, overwritten = move.signature, by
    if move.signature_name:
        last = _last(git, tip, move.signature_name, known)
        sig = _own_version(git, last if _by(record, last, move.player) else
                           history(git, tip, move.signature_name), move.signature_name,
                           move.player, record)
        if sig is not None:
            signature, overwritten = sig[0], overwritten or sig[3]
    if not overwritten:
        return move
    return replace(move, author=author, short=short, data=data, signature=signature,
                   overwritten=overwritten)


def _last(git: Git, tip: str, path: str, known: Last | None) -> History:
    """The last commit that changed ``path`` (:func:`history`, one entry), from ``known``."""
    if known is not None and path in known:
        return History([(*known[path], "")])
    return history(git, tip, path, last_only=True)


def _by(record: Record, commits: History, player: str) -> bool:
    """Is the newest of ``commits`` by an address registered for ``player``?"""
    return bool(commits) and record.player_at(commits[0][1]) == player


def _own_version(git: Git, commits: History, path: str, player: str, record: Record
                 ) -> tuple[bytes, str, str, str] | None:
    """(content, author, commit) of ``path`` at the last commit by ``player`` since it was last
    added (``commits``: its :func:`history`), and who changed it after them ("" when no one
    did); None without such a commit."""
    added = next((c for c, _, _, status in commits if status == "A"), "")
    later = ""
    for commit, author, short, _ in commits:
        if record.player_at(author) == player:
            blob = git.blob(f"{commit}:{path}")
            if blob is None:
                return None
            return blob, author, short, later
        if not later:
            later = f"commit {short} by {one_line(author) or 'no address'}"
        if commit == added:
            break
    return None


def restore(git: Git, move: MoveFile) -> list[str]:
    """Write back the player's version of an overwritten move file (and its signature);
    returns the paths to add."""
    if not move.overwritten:
        return []
    (git.top / move.path).write_bytes(move.data)
    paths = [move.path]
    if move.signature is not None and move.signature_name:
        (git.top / move.signature_name).write_bytes(move.signature)
        paths.append(move.signature_name)
    return paths


def precheck(record: Record, move: MoveFile) -> None:
    """What is refused before a move file is read (each sentence public: it says nothing the
    file holds): a symbolic link, a commit without an author address, a sealed move named for
    no player.

    Raises:
        Refused: one sentence naming the file (exit 2; 1 for the author).
    """
    if move.symlink:
        raise Refused(f"{move.label}: this is a symbolic link, not a move file; commit the move "
                      f"file itself", ExitCode.INPUT)
    if "@" not in move.author:  # git lets a commit have an empty author address ('x <>')
        what = ("no author address" if not move.author else
                f"the author address {move.shown_author!r}, which is not an e-mail address")
        raise Refused(f"{move.path}: commit {move.short}, which changed it last, has {what}; "
                      f"commit the move with your registered address as git user.email")
    if move.sealed and move.player not in record.players:
        raise Refused(f"{move.path}: {one_line(move.player)} is not a player of game "
                      f"{record.game} (players: {', '.join(record.players)}); name a sealed "
                      f"move turn-NNN-PLAYER.yaml.age after its turn and your own name",
                      ExitCode.INPUT)
