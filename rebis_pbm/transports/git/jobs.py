"""Play through a git repository: the referee's CI job as use cases around
:mod:`rebis_pbm.app` (docs/git.md). ``rebis-pbm git apply`` and ``rebis-pbm git check``
(:mod:`rebis_pbm.cli.git`) are their shells.

:func:`check_moves` is a pull request's check: without the seed, each move file the pull request
adds or changes is checked for its name, form, game and author (``referee.check_move_file``).
:func:`apply_moves` is the referee's job: it fetches the protected branch, works on its current
tip (never on the commit whose push started the job, which may be behind), enters every move
file not yet in the record through :func:`rebis_pbm.app.submit_move` in turn order, with the
author of the file's last commit as the move's author, commits the record and the public view
after each, and pushes; a push refused because the branch moved meanwhile starts the whole
round again from the new tip (a bounded number of times). So jobs may start in any order, or
overlap: whichever runs first applies every waiting move, the others find nothing left to do.

Git is the machine's own ``git``, run as a subprocess with the referee's identity in the
environment (a runner needs no ``git config``). Move files are read with ``git cat-file`` as
data, never checked out or run.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from rebis_pbm import app as referee
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
from rebis_pbm.files.names import (
    COMPANION,
    DEFAULT_GAME,
    MOVE_NAME,
    SECRET_SUFFIX,
    SIGNATURE,
    secret_path,
)

ZERO = "0" * 40   # what CI gives as the "before" of a branch's first push
MOVES = "moves/"
# The characters a move file's name may hold (its form: rebis_pbm.files.names.MOVE_NAME).
SAFE_NAME = re.compile(r"[A-Za-z0-9_.-]+")
REFUSALS = "refusals/"  # in a public repository: each refusal's reason, encrypted to its mover
SYMLINK = "120000"  # git's mode of a symbolic link
PUSH_ATTEMPTS = 10  # rounds of fetch, apply, push before giving up (each refusal = a new tip)

Say = Callable[[str, bool], None]  # (line, for the referee's attention: standard error)


def _print(line: str, notice: bool = False) -> None:
    print(line)


@dataclass(frozen=True)
class Identity:
    """Who commits the record: ``name`` and ``email`` (the referee's)."""

    name: str = "Rebis referee"
    email: str = "referee@localhost"


@dataclass(frozen=True)
class GameFiles:
    """Where one game's files are, relative to the repository's top: its ``record``, the folder
    of its move files (``moves``) and, in a public repository, of its refusals (``refusals``),
    each folder ending in ``/``. One game per repository: ``game.yaml``, ``moves/``,
    ``refusals/``; a shard's game ``NAME`` in ``DIR``: ``DIR/NAME/game.yaml``,
    ``DIR/NAME/moves/``, ``DIR/NAME/refusals/`` (:func:`shard_games`)."""

    record: str = DEFAULT_GAME
    moves: str = MOVES
    refusals: str = REFUSALS


@dataclass(frozen=True)
class Outcome:
    """What a job did: ``applied`` moves (their turns, in order), ``repeated`` files already in
    the record, ``checked`` files (a check), ``pushed``: the new tip was pushed."""

    applied: tuple[int, ...] = ()
    repeated: int = 0
    checked: int = 0
    pushed: bool = False
    refusals: int = 0   # commits of refusals: reasons and removed files (a public repository)
    stopped: tuple[str, ...] = ()  # a shard's games (their folders) whose moves stopped
    games: tuple[str, ...] = ()    # a shard's games (their records) where a move was applied


class Git:
    """The machine's ``git`` in the repository ``top``, committing as ``identity``."""

    def __init__(self, top: Path, identity: Identity = Identity()):
        self.top = top
        self.env = {**os.environ, "GIT_AUTHOR_NAME": identity.name,
                    "GIT_AUTHOR_EMAIL": identity.email, "GIT_COMMITTER_NAME": identity.name,
                    "GIT_COMMITTER_EMAIL": identity.email, "GIT_TERMINAL_PROMPT": "0"}

    def run(self, *args: str, check: bool = True, binary: bool = False
            ) -> subprocess.CompletedProcess:
        done = subprocess.run(["git", *args], cwd=self.top, env=self.env, capture_output=True,
                              text=not binary)
        if check and done.returncode != 0:
            err = done.stderr if isinstance(done.stderr, str) else \
                done.stderr.decode("utf-8", "replace")
            raise Failed(f"git {args[0]} failed in {self.top}: "
                         f"{err.strip().splitlines()[-1] if err.strip() else 'no reason given'}")
        return done

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.strip()

    def commit_of(self, revision: str) -> str | None:
        done = self.run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
        return done.stdout.strip() if done.returncode == 0 else None


def repository(start: str | os.PathLike[str] = ".") -> Path:
    """The top folder of the git repository holding ``start``.

    Raises:
        Failed: ``start`` is not inside a git repository, or git is not installed (exit 2).
    """
    try:
        done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start,
                              capture_output=True, text=True)
    except FileNotFoundError:
        raise Failed("git is not installed on this machine; the git job needs it") from None
    if done.returncode != 0:
        raise Failed(f"{os.path.abspath(start)} is not inside a git repository; run the job in "
                     f"the game's clone")
    return Path(done.stdout.strip())


def _deepen(git: Git, remote: str | None) -> None:
    """A shallow clone (GitLab's default, ``fetch-depth: 1``) lacks the commits that tell who
    wrote each move file: fetch the whole history first."""
    if git.out("rev-parse", "--is-shallow-repository") != "true":
        return
    remotes = git.out("remote").split()
    name = remote or (remotes[0] if remotes else None)
    if name is None:
        raise Failed(f"{git.top} is a shallow clone with no remote to fetch its history from; "
                     f"clone it whole")
    git.run("fetch", "--quiet", "--unshallow", name)


def _refuse_secret(git: Git, commit: str, game: str) -> None:
    secret = secret_path(game)
    if git.out("ls-tree", "--name-only", commit, "--", secret):
        raise Failed(f"{secret} is committed: every player can read the seed and so every hand; "
                     f"start a new game and keep the seed in a CI secret only")


def _keep_secrets(git: Git, target: str) -> None:
    """Refuses to check out ``target`` when it, or the commit checked out now, tracks a secret
    file that this checkout holds (a shard's seeds are files beside their records, written by
    the workflow and never committed): ``checkout --force`` would overwrite the seed with the
    committed file, or delete it when the next commit removes that file.

    Raises:
        Failed: such a file; nothing was checked out (exit 2).
    """
    here = git.run("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    committed = {path for commit in filter(None, (target, here))
                 for path in _names(git, ["ls-tree", "-r", "-z", "--name-only", commit])
                 if path.endswith(SECRET_SUFFIX) and os.path.lexists(git.top / path)}
    for path in sorted(committed):
        # the checkout's own file: untracked (ignored), or a tracked one written over
        if git.run("status", "--porcelain", "--ignored", "--", path).stdout.strip():
            shown = one_line(path)
            raise Failed(f"{shown} is committed where this checkout keeps a game's seed; "
                         f"nothing was checked out, so the seed is kept: remove {shown} from "
                         f"the branch in a new commit (if it holds the real seed, every "
                         f"player can read it: start a new game)")


def _span(git: Git, revisions: str) -> tuple[str | None, str]:
    """``OLD..NEW`` or ``NEW`` -> (base, new): the commit the new files are compared with (None:
    everything ``new`` holds is new) and the new commit."""
    def bad() -> UsageError:  # (a shallow clone was deepened before: _deepen)
        return UsageError(f"{revisions}: give a commit, or a range OLD..NEW of this repository "
                          f"(OLD may be {ZERO}: every commit of NEW)", "REVISIONS")

    if ".." in revisions:
        old, _, new_rev = revisions.partition("..")
        new = git.commit_of(new_rev)
        if new is None:
            raise bad()
        if old == ZERO:
            return None, new
        old_commit = git.commit_of(old)
        if old_commit is None:
            raise bad()
        base = git.run("merge-base", old_commit, new, check=False).stdout.strip()
        if not base:
            raise bad()
        return base, new
    new = git.commit_of(revisions)
    if new is None:
        raise bad()
    return git.commit_of(f"{new}^"), new


def _names(git: Git, args: list[str]) -> list[str]:
    """Paths from a git command run with ``-z`` (NUL-separated: no name split or quoted)."""
    out = git.run(*args, binary=True).stdout
    return [n.decode("utf-8", "surrogateescape") for n in out.split(b"\0") if n]


def _refuse_name(git: Git, path: str, why: str, span: str, moves: str = MOVES) -> Failed:
    shown = "".join(c if c.isprintable() else "?" for c in path)
    by = git.run("--literal-pathspecs", "log", "-1", "--format=%h by %ae", span, "--", path,
                 check=False).stdout.strip() or "?"
    return Failed(f"{shown} (commit {by}): {why}; only move files go in {moves}, each named "
                  f"{moves}turn-NNN-PLAYER.yaml after its turn and player (e.g. "
                  f"{moves}turn-007-alice.yaml). Rename or remove it in a new commit; no move "
                  f"{'of this game ' if moves != MOVES else ''}was applied")


def _is_signature(path: str, moves: str = MOVES) -> bool:
    """Whether ``path`` is a move file's signature committed beside it in the folder ``moves``
    (docs/git.md): ``turn-NNN-PLAYER.yaml.sig``, or ``.sig.age`` sealed with a sealed move."""
    return path.startswith(moves) and bool(COMPANION.fullmatch(path[len(moves):]))


def _turn_of(git: Git, path: str, span: str, moves: str = MOVES) -> int:
    """The turn in a move file's name; refuses any other name in the folder ``moves``."""
    name = path[len(moves):]
    if "/" in name:
        raise _refuse_name(git, path, f"it is in a folder inside {moves}", span, moves)
    if not SAFE_NAME.fullmatch(name):
        raise _refuse_name(git, path, "its name holds a space or another character no move "
                           "file has", span, moves)
    match = MOVE_NAME.fullmatch(name)
    if not match and COMPANION.fullmatch(name):
        return -1  # a sealed move's signature: not a move of its own
    if not match:
        raise _refuse_name(git, path, "this is not a move file's name", span, moves)
    return int(match.group(1))


def _changed(git: Git, base: str | None, new: str, signatures: bool = False,
             moves: str = MOVES) -> list[str]:
    """The files in the folder ``moves`` that ``new`` adds or changes since ``base`` (with
    ``signatures``, the signatures committed beside moves too)."""
    empty = git.out("hash-object", "-t", "tree", "/dev/null")
    return [p for p in _names(git, ["diff-tree", "-r", "-z", "--name-only", "--diff-filter=AMT",
                                    base or empty, new, "--", moves])
            if p != moves + ".gitkeep" and (signatures or not _is_signature(p, moves))]


@dataclass(frozen=True)
class MoveFile:
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
        match = MOVE_NAME.fullmatch(self.path.rpartition("/")[2])
        return match.group(2) if match else "?"


def _move_file(git: Git, commit: str, path: str, turn: int, span: str, moves: str = MOVES
               ) -> MoveFile:
    found = git.run("--literal-pathspecs", "log", "-1", "--format=%ae%x00%h", span, "--", path)
    author, _, short = found.stdout.strip().partition("\0")
    blob = git.run("cat-file", "blob", f"{commit}:{path}", check=False, binary=True)
    if blob.returncode != 0:
        raise _refuse_name(git, path, "it is not a file", span, moves)
    mode = git.run("--literal-pathspecs", "ls-tree", commit, "--", path).stdout.split(" ", 1)[0]
    # A sealed move's signature is sealed too (.sig.age), a plain move's plain (.sig): never
    # the one of the other kind, which a plain file beside a sealed one would otherwise give.
    sealed = path.endswith(referee.ENCRYPTED)
    plain = path[:-len(referee.ENCRYPTED)] if sealed else path
    name = plain + SIGNATURE + (referee.ENCRYPTED if sealed else "")
    sig = git.run("cat-file", "blob", f"{commit}:{name}", check=False, binary=True)
    if sig.returncode == 0:
        return MoveFile(path, turn, author, short, blob.stdout, sig.stdout, name,
                        symlink=mode == SYMLINK)
    return MoveFile(path, turn, author, short, blob.stdout, symlink=mode == SYMLINK)


def _players_version(git: Git, tip: str, move: MoveFile, record) -> MoveFile:
    """The move file and its signature as its player last committed them, when a later commit
    by another author changed either (another player overwriting a pending move): the commits
    since the file was last added are searched, newest first, for one by an address registered
    for the player its name is for; that version is judged, and the job restores it. Without
    such a commit, ``move`` as it is (a move committed by another author is then refused as not
    theirs)."""
    if move.player not in record.players:
        return move
    own = _own_version(git, tip, move.path, move.player, record)
    if own is None:
        return move
    data, author, short, by = own
    signature, overwritten = move.signature, by
    if move.signature_name:
        sig = _own_version(git, tip, move.signature_name, move.player, record)
        if sig is not None:
            signature, overwritten = sig[0], overwritten or sig[3]
    if not overwritten:
        return move
    return replace(move, author=author, short=short, data=data, signature=signature,
                   overwritten=overwritten)


def _own_version(git: Git, tip: str, path: str, player: str, record
                 ) -> tuple[bytes, str, str, str] | None:
    """(content, author, commit) of ``path`` at the last commit by ``player`` since it was last
    added, and who changed it after them ("" when no one did); None without such a commit."""
    added = git.run("--literal-pathspecs", "log", "-1", "--diff-filter=A", "--format=%H", tip,
                    "--", path, check=False).stdout.strip()
    history = git.run("--literal-pathspecs", "log", "--format=%H%x00%ae%x00%h", tip, "--",
                      path, check=False).stdout.splitlines()
    later = ""
    for line in history:
        commit, author, short = (line.split("\0") + ["", ""])[:3]
        if record.player_at(author) == player:
            blob = git.run("cat-file", "blob", f"{commit}:{path}", check=False, binary=True)
            if blob.returncode != 0:
                return None
            return blob.stdout, author, short, later
        if not later:
            later = f"commit {short} by {one_line(author) or 'no address'}"
        if commit == added:
            break
    return None


def _restore(git: Git, move: MoveFile) -> list[str]:
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


def _precheck(record, move: MoveFile) -> None:
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


def plain_in_public(path: str, moves: str = MOVES) -> str:
    """The refusal of a plain move file or signature committed in a game played in a public
    repository, which takes only sealed moves (docs/git.md); ``moves``: the game's folder of
    move files."""
    name = path[len(moves):] if path.startswith(moves) else path
    move = name[:-len(SIGNATURE)] if name.endswith(SIGNATURE) else name
    return (f"{path}: this game is played in a public repository: seal the move (rebis-pbm seal "
            f"{move} --key KEY, outside your clone) and commit only {move}{referee.ENCRYPTED} "
            f"and its {SIGNATURE}{referee.ENCRYPTED}; never commit the plain move or its "
            f"signature")


def _takes_sealed_only(record, privacy: Privacy) -> bool:
    """Does the job take sealed moves only (a plain move file is refused unread)? In a game
    played in a public repository whose record names the referee's recipient for sealed moves:
    it says ``encrypt_views: true``, or ``--public-repo`` and a ``referee_recipient`` (an older
    game played by ``--public-repo`` without one takes plain moves)."""
    return bool(record.views_encrypted or (privacy.public_repo and record.referee_recipient))


def _signature_of(move: MoveFile, identity) -> bytes | None:
    """The move's signature as the referee checks it: a sealed one (``.sig.age``) opened with
    the referee's age identity.

    Raises:
        UsageError, InputError: as :func:`rebis_pbm.app.open_sealed_move`.
    """
    if move.signature is None:
        return None
    return referee.open_sealed_move(move.signature, move.signature_name, identity)[0]


def check_moves(start: str | os.PathLike[str], revisions: str, game: str = DEFAULT_GAME,
                say: Say = _print, *, games: str | None = None) -> Outcome:
    """A pull request's check, without the seed: each move file ``revisions`` (``BASE..HEAD``
    or one commit) adds or changes is checked for its name, form, game and author; nothing is
    written or committed. ``say`` gets a line per file. With ``games`` (a folder relative to
    the repository's top), every game of that shard (:func:`shard_games`) whose move files
    changed is checked in turn, instead of ``game``; a game that fails stops only its own
    check, said as it comes, and the error is raised once every game is checked.

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
    _deepen(git, None)
    base, new = _span(git, revisions)
    span = f"{base}..{new}" if base else new
    if games is None:
        return Outcome(checked=_check_game(git, base, new, span, GameFiles(game), say))
    checked = 0
    stopped: list[tuple[GameFiles, RebisError]] = []
    shard = shard_games(git, new, games)
    records = _shard_records(git, new, shard)
    for files in shard:
        try:
            _check_shard_game(files, records)
            checked += _check_game(git, base, new, span, files, say, changed_only=True)
        except RebisError as exc:
            stopped.append((files, exc))
            say(one_line(f"rebis-pbm git: {_folder(files)}: {exc}"), True)
    folder = shard_folder(games)
    for path in _strays(git, base, new, folder, shard):
        stray = Failed(f"{one_line(path)}: no game of the shard has this moves/ folder: a game "
                       f"is {folder}NAME/{RECORD}, its move files in {folder}NAME/moves/; "
                       f"move the file to its game's folder in a new commit")
        stopped.append((GameFiles(path.partition("/moves/")[0] + "/" + RECORD), stray))
        say(f"rebis-pbm git: {stray}", True)
    if stopped:
        raise _shard_stop(stopped, "every other game's move files were checked")
    return Outcome(checked=checked)


def _check_game(git: Git, base: str | None, new: str, span: str, files: GameFiles, say: Say,
                changed_only: bool = False) -> int:
    """:func:`check_moves` for one game (``files``): how many move files were checked; with
    ``changed_only``, a game none of whose move files changed is not read (0)."""
    game, moves = files.record, files.moves
    _refuse_secret(git, new, game)
    paths = _changed(git, base, new, moves=moves)
    if changed_only and not paths:
        return 0
    turns = {p: t for p in paths if (t := _turn_of(git, p, span, moves)) >= 0}
    checked = 0
    with tempfile.TemporaryDirectory() as work:
        record_path = Path(work) / game.rsplit("/", 1)[-1]
        record_path.write_bytes(git.run("cat-file", "blob", f"{new}:{game}", binary=True).stdout)
        record = referee.read_record(record_path)
        if _takes_sealed_only(record, Privacy()):  # a plain signature is refused too
            plain = [p for p in _changed(git, base, new, signatures=True, moves=moves)
                     if _plain(p, moves)]
            if plain:
                raise Refused(plain_in_public(plain[0], moves), ExitCode.INPUT)
        for path in sorted(turns, key=lambda p: (turns[p], p)):
            move = _move_file(git, new, path, turns[path], span, moves)
            _precheck(record, move)
            if move.sealed:  # only the referee's identity opens it; its name is public
                referee.check_sender(record, move.author, move.player, path)
                say(f"{path} ({move.short}, {move.shown_author}): a sealed move of turn "
                    f"{move.turn}; it is opened and checked once it is merged", False)
                checked += 1
                continue
            try:
                # The record's path in the repository, never the check's temporary copy.
                referee.read_move(record, game, move.data, path, author=move.author,
                                  file_name=os.path.basename(path))
            except Refused:
                say(f"rebis-pbm git: {move.label} would be refused", True)
                raise
            say(f"{path} ({move.short}, {move.shown_author}): a well-formed move of turn "
                f"{move.turn}; the rules are checked once it is merged", False)
            checked += 1
    return checked


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


def shard_games(git: Git, commit: str, games: str) -> list[GameFiles]:
    """The games of the shard in the folder ``games`` at ``commit``, in the order of their
    names: every ``games/NAME/`` holding ``game.yaml``, its move files in ``games/NAME/moves/``
    and its refusals in ``games/NAME/refusals/`` (docs/git.md, "A shard of games in one
    repository").

    Raises:
        UsageError: ``games`` is not a folder name (:func:`shard_folder`), or it holds no game
            at ``commit`` (option ``--games``).
    """
    folder = shard_folder(games)
    found = [path[:-len(RECORD)] for path in
             _names(git, ["ls-tree", "-r", "-z", "--name-only", commit, "--", folder])
             if path.endswith("/" + RECORD) and path.count("/") == folder.count("/") + 1]
    if not found:
        raise UsageError(f"{folder} holds no game at commit {commit[:12]}: a shard's games are "
                         f"{folder}NAME/{RECORD}, each with its move files in "
                         f"{folder}NAME/moves/", "--games")
    return [GameFiles(f"{top}{RECORD}", f"{top}moves/", f"{top}refusals/")
            for top in sorted(found)]


def _folder(files: GameFiles) -> str:
    """A shard's game as messages name it: its folder, ``games/NAME/``."""
    return files.record.rpartition("/")[0] + "/"


def _shard_records(git: Git, tip: str, shard: list[GameFiles]
                   ) -> dict[str, tuple[str, str | None]]:
    """Each game's record at ``tip``, by its path: (its mode, as ``git ls-tree`` gives it, and
    its game id, None when not read as one): one ``ls-tree`` for the whole shard, and the id
    from each regular file's first lines only
    (:func:`rebis_pbm.formats.yaml_reader.top_level_text`)."""
    from rebis_pbm.formats.yaml_reader import top_level_text
    listed = _names(git, ["--literal-pathspecs", "ls-tree", "-z", tip, "--",
                          *(files.record for files in shard)])
    modes = {path: head.split(" ", 1)[0] for head, _, path in
             (entry.partition("\t") for entry in listed)}
    records: dict[str, tuple[str, str | None]] = {}
    for files in shard:
        mode = modes.get(files.record, "")
        game_id = None
        if mode in REGULAR:
            blob = git.run("cat-file", "blob", f"{tip}:{files.record}", binary=True)
            game_id = top_level_text(blob.stdout, "game")
        records[files.record] = mode, game_id
    return records


REGULAR = ("100644", "100755")  # the modes of a file committed as a file (not a link)


def _check_shard_game(files: GameFiles, records: dict[str, tuple[str, str | None]]) -> None:
    """Refuses a shard's game that could be taken for another: a folder name git could read as
    a pattern (:func:`_check_folder`), a record committed as a symbolic link (it would be read,
    and written, through the link: another game's record), or a game id another folder's
    record holds too (a move could be applied to either copy: the game would fork).
    ``records``: :func:`_shard_records` of the shard.

    Raises:
        Failed: one of those (exit 2); the game's moves are not judged.
    """
    _check_folder(files)
    mode, game_id = records[files.record]
    if mode not in REGULAR:
        raise Failed(f"{files.record} is committed as a symbolic link or another thing than a "
                     f"file; a game's record is a file of its own: commit it in a new commit; "
                     f"no move of this game was judged")
    twins = [_folder(GameFiles(r)) for r, (_, i) in records.items()
             if i is not None and i == game_id and r != files.record]
    if twins:
        raise Failed(f"{_folder(files)} holds game {one_line(str(game_id))}, as "
                     f"{', '.join(twins)} does: a move could be applied to either copy; keep "
                     f"one folder per game id; no move of this game was judged")


def _strays(git: Git, base: str | None, new: str, folder: str, shard: list[GameFiles]
            ) -> list[str]:
    """Files ``new`` adds or changes since ``base`` in a ``moves/`` folder under the shard's
    ``folder`` that is no game's (a misspelt game name, a game whose record is gone)."""
    games = tuple(files.moves for files in shard)
    return [p for p in _changed(git, base, new, signatures=True, moves=folder)
            if "/moves/" in p[len(folder):] and not p.startswith(games)]


def _check_folder(files: GameFiles) -> None:
    """Refuses a shard's game whose folder's name git could read as a pattern (``*``...).

    Raises:
        Failed: the name holds another character than letters, digits, ``.``, ``_``, ``-``.
    """
    if not SAFE_NAME.fullmatch(_folder(files).rstrip("/").rpartition("/")[2]):
        raise Failed(f"{_folder(files)}: a game's folder name holds a space or another "
                     f"character outside letters, digits, '.', '_' and '-'; rename it in a new "
                     f"commit; no move of this game was judged")


def _shard_stop(stopped: list[tuple[GameFiles, RebisError]], rest: str) -> RebisError:
    """The error a shard's job ends with when some of its games ended with a refusal or an
    error, each said above: one sentence naming them and what was done for the others
    (``rest``); its exit code is the first one's (1: a move refused by the rules)."""
    names = ", ".join(_folder(f) for f, _ in stopped)
    return Refused(f"{len(stopped)} game(s) of the shard ended with a refusal or an error, each "
                   f"said above: {names}; {rest}", stopped[0][1].exit_code)


@dataclass(frozen=True)
class Privacy:
    """How the job treats what a spectator must not see (a public repository, docs/git.md).

    Attributes:
        age_identity: the referee's age identity file, which opens sealed moves
            (``turn-NNN-PLAYER.yaml.age``); None: a sealed move is refused.
        public_repo: a refusal's reason is never printed nor put in a commit: it goes, encrypted
            to the mover's key, to ``refusals/turn-NNN-PLAYER.txt.age`` (or nowhere without a key).
        keys: player -> SSH public key line; None (the default): the keys the players
            registered in the record (``new --key``, their join, ``replace-player --key``).
        encrypt_views: commit every private view encrypted to its player (needs a key for each).
    """

    age_identity: str | None = None
    public_repo: bool = False
    keys: dict[str, str] | None = None
    encrypt_views: bool = False


def apply_moves(start: str | os.PathLike[str], revisions: str | None = None, *,
                game: str = DEFAULT_GAME, remote: str | None = None, branch: str = "main",
                identity: Identity = Identity(), say: Say = _print,
                after_push: Callable[[Outcome], None] | None = None,
                privacy: Privacy = Privacy(), games: str | None = None) -> Outcome:
    """The referee's job: apply every move file not yet in the record, commit, push.

    With ``remote``, the job fetches ``branch`` from it (the whole history, if the clone is
    shallow) and works on its current tip, checked out detached (the job's own checkout:
    anything else there is discarded); then pushes to ``remote``'s ``branch``. A refused push
    (the branch moved meanwhile) starts again from the new tip, at most :data:`PUSH_ATTEMPTS`
    rounds. Without ``remote``, it works on HEAD and only commits.

    The move files taken: every file under moves/ whose name's turn is the record's next turn
    or later, and the files ``revisions`` (``OLD..NEW`` or a commit, as for a push) adds or
    changes, each as it stands at the tip, in turn order. A file for a later turn than the
    record's next waits, unjudged, until its turn. Each is entered with
    :func:`rebis_pbm.app.submit_move` with ``--check-name`` and the author address of its
    last commit; after each applied move the record and the public view are committed.
    ``after_push`` is called once what was applied is on the remote (or committed, without one).
    ``privacy`` (:class:`Privacy`) opens sealed moves, keeps refusals' reasons out of the output
    and the commits, and commits encrypted views, for a game in a public repository; there a
    refused file is removed in the commit of its refusal (judged once) and the job goes on with
    the others, and a plain move file or signature in a game that takes sealed moves only is
    removed unread (docs/git.md, "A public repository").

    With ``games`` (a folder relative to the repository's top), the repository is a shard: each
    game of :func:`shard_games` in turn, instead of ``game``, with the same rules, in one fetch,
    one round and one push. A game that ends with a refusal or an error (a move file's name, a
    refused move in a private repository, the referee's set-up) stops only itself, said as it
    comes: the moves applied before it in that game and every other game's moves are
    committed and pushed, then one :class:`Refused` naming those games is raised, with the
    first one's exit code. ``after_push`` then gets every game's applied turns together,
    ``Outcome.games`` the records of the games where a move was applied and
    ``Outcome.stopped`` the folders of those that stopped.

    Raises:
        Failed: a seed file is committed, a file under moves/ is not named as a move file (no
            move applied), git failed, or the push was refused every round (exit 2).
        UsageError: ``revisions`` is not a commit or a range; a sealed move and no identity.
        Refused: a move file refused (exit 1 or 2): the first one, in a private repository
            (the moves before it are committed and pushed first); in a public one, after every
            other move was applied and pushed, one sentence counting the refused files.
        Busy, SeedError, CorruptRecord, InputError: the referee's set-up (the record, the seed,
            the identity) is at fault: the job stops before the move it was judging, which
            waits; the moves before it are committed and pushed first.
    """
    if games is not None:  # before any git: a wrong --games changes nothing
        shard_folder(games)
        from rebis_pbm.record.secret import SEED_ENV

        if os.environ.get(SEED_ENV):
            raise UsageError(f"{SEED_ENV} holds one game's seed, but each game of a shard has "
                             f"its own: write each one's secret file beside its record "
                             f"({shard_folder(games)}NAME/game.secret.yaml, never committed) "
                             f"and unset {SEED_ENV} (docs/git.md, \"A shard of games in one "
                             f"repository\")", "--games")
    git = Git(repository(start), identity)
    _deepen(git, remote)
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        if remote is not None:
            git.run("fetch", "--quiet", remote,
                    f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}")
            _keep_secrets(git, f"{remote}/{branch}")
            git.run("checkout", "--quiet", "--force", "--detach", f"{remote}/{branch}")
        tip = git.out("rev-parse", "HEAD")
        shard = None if games is None else shard_games(git, tip, games)
        if remote is not None:
            git.run("clean", "--quiet", "-d", "--force", "--",
                    *([MOVES] if shard is None else [f.moves for f in shard]))
        if shard is None:
            outcome, stop = _apply_round(git, tip, revisions, GameFiles(game), say, privacy)
        else:
            outcome, stop = _apply_shard(git, tip, revisions, shard, say, privacy,
                                         pushed=remote is not None)
        # (a shard's game that stopped on a git error may leave commits its outcome lacks)
        if remote is None or git.out("rev-parse", "HEAD") == tip:
            break
        pushed = git.run("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False)
        if pushed.returncode == 0:
            outcome = replace(outcome, pushed=True)
            break
        say(f"rebis-pbm git: {remote}/{branch} moved while the moves were applied (the push was "
            f"refused); applying again on its new tip (round {attempt + 1})", True)
    else:
        raise Failed(f"the push to {remote}/{branch} was refused {PUSH_ATTEMPTS} times, each "
                     f"time after applying on its new tip; nothing was pushed: run the job again")
    if outcome.applied and after_push is not None:
        after_push(outcome)
    repeated = (f", {outcome.repeated} already in the record (resent: nothing changed)"
                if outcome.repeated else "")
    say(f"rebis-pbm git: {len(outcome.applied)} move(s) applied{repeated}", False)
    if stop is not None:
        raise stop
    return outcome


def _apply_shard(git: Git, tip: str, revisions: str | None, shard: list[GameFiles], say: Say,
                 privacy: Privacy, pushed: bool) -> tuple[Outcome, RebisError | None]:
    """One round of every game of a shard on ``tip`` (:func:`_apply_round` for each in turn):
    (what was applied in all, the error naming the games that stopped, or None). A game's
    refusal or error is said as it comes and stops that game only.

    Raises:
        UsageError: ``revisions`` is not a commit or a range (the whole job's, before any game).
    """
    if revisions is not None:
        _span(git, revisions)
    applied: list[int] = []
    repeated = refusals = 0
    stopped: list[tuple[GameFiles, RebisError]] = []
    games: list[str] = []
    records = _shard_records(git, tip, shard)
    for files in shard:
        try:
            _check_shard_game(files, records)
            done, stop = _apply_round(git, tip, revisions, files, say, privacy)
        except RebisError as exc:  # this game only: its commits so far stay (none, mostly)
            done, stop = Outcome(), exc
            git.run("reset", "--quiet")  # nothing of it staged for the next game's commit
        applied += done.applied
        games += [files.record] if done.applied else []
        repeated += done.repeated
        refusals += done.refusals
        if stop is not None:
            stopped.append((files, stop))
            say(one_line(f"rebis-pbm git: {_folder(files)}: {stop}"), True)
    rest = "every other game's moves were applied" + (" and pushed" if pushed else "")
    return (Outcome(tuple(applied), repeated, refusals=refusals,
                    stopped=tuple(_folder(f) for f, _ in stopped), games=tuple(games)),
            _shard_stop(stopped, rest) if stopped else None)


def _shown(path: Path) -> Path:
    """``path`` as messages show it: relative to the working folder (the repository's top in
    CI: ``game.yaml``) when it is inside it, never the runner's absolute path there."""
    rel = os.path.relpath(path)
    return Path(rel) if not rel.startswith("..") else path


def _file_turn(path: str, moves: str = MOVES) -> int:
    """The turn in the name of a move file or of its signature (-1: neither)."""
    match = re.match(r"turn-([0-9]+)-", path[len(moves):])
    return int(match.group(1)) if match else -1


def _plain(path: str, moves: str = MOVES) -> bool:
    """Is ``path`` a plain move file or signature that a game taking sealed moves only refuses?
    A join move (fair deal, docs/shuffle.md) holds no secret: named for turn 0
    (``turn-000-PLAYER.yaml``), it may stay plain."""
    return not path.endswith(referee.ENCRYPTED) and _file_turn(path, moves) != 0


def _move_at_fault(exc: RebisError, path: str) -> bool:
    """Is ``exc``, raised while ``path`` was judged, the move file's fault (a refusal for its
    mover) rather than the referee's set-up (the seed, the identity, the record)?"""
    if isinstance(exc, Refused):
        return True
    plain = path[:-len(referee.ENCRYPTED)] if path.endswith(referee.ENCRYPTED) else path
    return isinstance(exc, InputError) and exc.source.startswith(plain)


def _apply_round(git: Git, tip: str, revisions: str | None, files: GameFiles, say: Say,
                 privacy: Privacy = Privacy()) -> tuple[Outcome, RebisError | None]:
    """One round of one game (``files``) on ``tip``: (what was applied, the error that stopped
    it or None).

    A move file whose turn is after the record's next turn waits (it is neither judged nor
    refused until its turn comes). In a public repository (``privacy.public_repo``) a refused
    move file is removed by the job in the commit of its refusal, so that it is judged once and
    never applied later, and the round goes on with the other files; elsewhere the round stops
    at the first refused file, which stays for its player to correct.
    """
    from rebis_pbm.present import views
    game, moves = files.record, files.moves
    _refuse_secret(git, tip, game)
    record_path = _shown(git.top / game)
    referee.require_record(record_path)
    try:  # with the seed, the whole record is checked (record_hmac) before its keys are used
        record = referee.open_game(record_path).record
    except SeedError:  # no seed (or another game's): submit_move says so for the first move
        record = referee.read_record(record_path)
    next_turn = len(record.moves) + 1
    if record.views_encrypted:  # new --encrypt-views (rebis-pbm/3): a public game, flags or not
        privacy = replace(privacy, encrypt_views=True, public_repo=True)
    keys_in_record = privacy.keys is None
    if keys_in_record:  # the keys the players registered in the record (rebis-pbm/2)
        privacy = replace(privacy, keys=referee.registered_view_keys(record))
    referee.check_referee_identity(record, privacy.age_identity)
    waiting = record.waiting_for() if record.joining() else ()
    missing = [p for p in record.players if not (privacy.keys or {}).get(p) and p not in waiting]
    if privacy.encrypt_views and missing:
        raise Failed(f"--encrypt-views needs every player's key, and {', '.join(missing)} "
                     f"has none registered in the record (new --key, a join's key, or "
                     f"git apply --key NAME=FILE); no move was applied")
    sealed_only = _takes_sealed_only(record, privacy)
    chosen: dict[str, int] = {}
    plain: set[str] = set()  # plain files in a game that takes sealed moves only
    span = tip
    for path in _names(git, ["ls-tree", "-r", "-z", "--name-only", tip, "--", moves]):
        if path == moves + ".gitkeep":
            continue
        turn = _turn_of(git, path, span, moves)  # (-1: a signature beside its move)
        if sealed_only and _plain(path, moves):
            if _file_turn(path, moves) >= next_turn:
                plain.add(path)
        elif turn >= next_turn:
            chosen[path] = turn
    if revisions is not None:
        base, new = _span(git, revisions)
        range_span = f"{base}..{new}" if base else new
        for path in _changed(git, base, new, signatures=sealed_only, moves=moves):
            turn = _turn_of(git, path, range_span, moves)
            if git.run("cat-file", "-e", f"{tip}:{path}", check=False).returncode != 0:
                continue
            if sealed_only and _plain(path, moves):
                plain.add(path)
            elif turn >= 0:
                chosen[path] = turn
    applied: list[int] = []
    repeated = 0
    commits = 0
    refused: list[RebisError] = []
    if plain:  # never read, never applied: removed unread, the reason said in public
        _remove_plain(git, sorted(plain), say, moves)
        commits += 1
        refused.append(Refused(plain_in_public(min(plain), moves), ExitCode.INPUT))
    views_dir = Path(referee.default_views_dir(record_path))
    rel_views = (Path(game).parent / views_dir.name).as_posix()
    langs = record.langs
    for path in sorted(chosen, key=lambda p: (chosen[p], p)):
        if chosen[path] > next_turn:
            say(f"{path}: waits for turn {chosen[path]} (the record's next turn is {next_turn}); "
                f"it is judged once turn {chosen[path] - 1} is played", False)
            continue
        move = _move_file(git, tip, path, chosen[path], span, moves)
        move = _players_version(git, tip, move, record)
        if move.overwritten:
            say(one_line(f"rebis-pbm git: {path}: {move.overwritten} changed {move.player}'s "
                         f"move file or its signature; that change is not taken: the file is "
                         f"judged as {move.player} last committed it (commit {move.short}), and "
                         f"restored"), True)
        with tempfile.TemporaryDirectory() as work:
            try:
                _precheck(record, move)
            except Refused as exc:  # said in public: it names nothing the file holds
                if not privacy.public_repo:
                    say(f"rebis-pbm git: {move.label} was refused; the record is unchanged",
                        True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                commits += _refused_in_public(git, tip, move, exc, privacy, say, record,
                                              remove=move.turn >= next_turn, public=True,
                                              refusals=files.refusals)
                refused.append(exc)
                continue
            try:
                data, name = referee.open_sealed_move(move.data, path, privacy.age_identity,
                                                      record.referee_recipient)
                done = referee.submit_move(record_path, data, path, author=move.author,
                                           views_dir=Path(work) / "views",
                                           file_name=os.path.basename(path),
                                           signature=_signature_of(move, privacy.age_identity))
            except RebisError as exc:
                if exc.exit_code == ExitCode.BUSY:
                    say(f"rebis-pbm git: {move.label} was not applied: the record was busy; "
                        f"nothing changed, run the job again", True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                if not _move_at_fault(exc, path):
                    say(f"rebis-pbm git: the job stopped before judging {move.label}: the "
                        f"referee's set-up is at fault, not the move (the reason follows); "
                        f"nothing changed for it, and it waits for the next run", True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                if privacy.public_repo:
                    # Its reason may speak of the mover's hand ("you have no 2"): to them only.
                    commits += _refused_in_public(git, tip, move, exc, privacy, say, record,
                                                  remove=move.turn >= next_turn, langs=langs,
                                                  refusals=files.refusals)
                    refused.append(exc)
                    continue
                say(f"rebis-pbm git: {move.label} was refused; the record is unchanged", True)
                return Outcome(tuple(applied), repeated, refusals=commits), exc
            if done.duplicate:
                repeated += 1
                say(f"{path} ({move.short}, {move.shown_author}): "
                    f"{referee.already_applied(done.record, done.move)}", False)
                continue
            record, langs = done.record, done.record.langs
            next_turn = len(record.moves) + 1
            if isinstance(done.move, referee.JoinMove):  # a fair deal's join: no turn yet
                waiting = record.waiting_for()
                said = (f"{done.move.player} joined the deal; it waits for "
                        f"{', '.join(waiting)}" if waiting else
                        f"{done.move.player} joined the deal: every player has joined, the "
                        f"cards are dealt")
            else:
                said = f"Turn {done.move.turn}: {views.account(done.events)}"
            if done.finished:
                said += (f"\nThe game is over: {game} now reveals its seed, so anyone can check "
                         f"the whole game with: rebis-pbm verify {game}")
            views_dir.mkdir(parents=True, exist_ok=True)
            for name in ("public.yaml", "public.txt"):
                (views_dir / name).write_bytes((Path(work) / "views" / name).read_bytes())
            if privacy.encrypt_views:
                if keys_in_record:  # a join may have registered one more
                    privacy = replace(privacy,
                                      keys=referee.registered_view_keys(done.record))
                referee.write_encrypted_views(views_dir, done.record, done.replay,
                                              privacy.keys or {})
        say(f"{path} ({move.short}, {move.shown_author}): {said}", False)
        git.run("add", "--", game, f"{rel_views}/public.yaml", f"{rel_views}/public.txt",
                *_restore(git, move))
        if privacy.encrypt_views:  # forced: the example's .gitignore keeps views/* out
            git.run("add", "--force", "--", *(f"{rel_views}/{p}{suffix}{referee.ENCRYPTED}"
                                             for p in done.record.players
                                             if (privacy.keys or {}).get(p)
                                             for suffix in (".yaml", ".txt")))
        git.run("commit", "--quiet", "--no-verify", "-m",
                f"Apply {path} from {move.shown_author}", "-m", said)
        applied.append(move.turn)
    stop: RebisError | None = None
    if refused:  # each said above once; the job still fails, for the mover's push
        stop = Refused(f"{len(refused)} move file(s) refused, each said above (a reason that may "
                       f"speak of a hand is only in {files.refusals}, encrypted to its mover); "
                       f"every other move was applied", refused[0].exit_code)
    return Outcome(tuple(applied), repeated, refusals=commits), stop


def _remove_plain(git: Git, paths: list[str], say: Say, moves: str = MOVES) -> None:
    """Remove, unread, the plain move files and signatures committed in a game that takes
    sealed moves only, in one commit of the job's; each is said in public (the sentence names
    nothing the file holds)."""
    for path in paths:
        say(f"rebis-pbm git: refused unread: {plain_in_public(path, moves)}; the job removed it",
            True)
    git.run("--literal-pathspecs", "rm", "--quiet", "--", *paths)
    git.run("commit", "--quiet", "--no-verify", "-m",
            f"Remove {len(paths)} plain move file(s) unread", "-m",
            "This game is played in a public repository: it takes sealed moves only "
            "(turn-NNN-PLAYER.yaml.age and its .sig.age, docs/git.md).\n\n"
            + "\n".join(paths))


def refusal_path(turn: int, player: str, refusals: str = REFUSALS) -> str:
    """Where a refusal's reason goes in a public repository:
    ``refusals/turn-NNN-PLAYER.txt.age`` (``refusals``: the game's folder of refusals, a shard's
    ``DIR/NAME/refusals/``)."""
    return f"{refusals}turn-{turn:03d}-{player}.txt.age"


def _refused_in_public(git: Git, tip: str, move: MoveFile, exc: RebisError, privacy: Privacy,
                       say: Say, record, *, remove: bool, public: bool = False,
                       langs: dict[str, str] | None = None, refusals: str = REFUSALS) -> int:
    """A move refused in a public repository: its reason (which may speak of the mover's hand)
    is committed only encrypted to the mover's key, never printed nor in a commit message; the
    job says only where the mover finds it. A ``public`` reason (one that names nothing the file
    holds: a symbolic link, no author address, no such player) is said in the log instead. With
    ``remove``, the move file and its signature are removed in the same commit, so that the
    file is judged once (a move for this turn or later would be judged again by every job). A
    refusal already committed for this version of the move file is not written again. The
    reason is in the mover's language (``langs``: the record's, player -> language). Returns
    how many commits were made (0 or 1)."""
    from rebis_pbm.crypto.age import REFUSAL_PAD, bucket, encrypt_to_ssh_keys, padded
    from rebis_pbm.present.i18n import refusal
    player = move.player
    key = (privacy.keys or {}).get(player) if player in record.players else None
    rel = refusal_path(move.turn, player, refusals)
    wrote = False
    if public:
        where = ""
    elif player not in record.players:
        where = (f"; the reason is not published ({one_line(player)} is not a player of game "
                 f"{record.game})")
    elif key is None:
        where = (f"; the reason is not published ({player} has no key to encrypt it to); the "
                 f"referee can tell {player} privately")
    else:
        where = f"; the reason is in {rel}"
        if not _refusal_current(git, tip, move.path, rel):
            target = git.top / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            reason = refusal(exc, (langs or {}).get(player))
            plain = f"{reason}\n".encode()  # padded: age does not hide a length
            plain = padded(plain, bucket([len(plain)], REFUSAL_PAD))
            target.write_bytes(encrypt_to_ssh_keys(plain, [key],
                                                   source=f"{player}'s key"))
            git.run("add", "--", rel)
            wrote = True
    gone = ""
    if remove:
        files = [move.path] + ([move.signature_name] if move.signature_name else [])
        git.run("--literal-pathspecs", "rm", "--quiet", "--", *files)
        gone = (f"; the job removed {move.path}: a refused file is judged once (send the move "
                f"again as a new file)")
    if public:
        said = f"refused: {exc}{gone}"
    else:
        said = f"turn {move.turn} by {one_line(player)} was refused{where}{gone}"
    say(one_line(f"rebis-pbm git: {said}"), True)
    if not (wrote or remove):
        return 0
    body = ([f"The reason is in {rel}, encrypted to {player}'s key."] if wrote else []) + \
        (["The refused file is removed: each move file is judged once."] if remove else []) + \
        ([str(exc)] if public else [])
    git.run("commit", "--quiet", "--no-verify", "-m", f"Refusal of {move.path} for {player}",
            "-m", one_line(" ".join(body)))
    return 1


def _refusal_current(git: Git, tip: str, move_path: str, rel: str) -> bool:
    """Is a refusal already committed after the last change of the move file?"""
    last = git.run("--literal-pathspecs", "log", "-1", "--format=%H", tip, "--", rel,
                   check=False).stdout.strip()
    if not last:
        return False
    moved = git.run("--literal-pathspecs", "log", "-1", "--format=%H", tip, "--", move_path,
                    check=False).stdout.strip()
    return bool(moved) and git.run("merge-base", "--is-ancestor", moved, last,
                                   check=False).returncode == 0
