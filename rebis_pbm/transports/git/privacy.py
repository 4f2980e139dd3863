"""What a spectator must not see in a public repository: sealed moves, refusals encrypted to
their mover, plain move files removed unread (docs/git.md, "A public repository")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rebis_pbm import app as referee
from rebis_pbm.errors import RebisError, one_line
from rebis_pbm.files.names import SIGNATURE
from rebis_pbm.transports.git.movefiles import (
    MOVES,
    REFUSALS,
    MoveFile,
    Say,
    file_turn,
)
from rebis_pbm.transports.git.repository import Git

if TYPE_CHECKING:
    from rebis_pbm.record import Record


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


NO_PRIVACY = Privacy()  # a private repository: refusals said in the log, moves in plain text


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


def takes_sealed_only(record: Record, privacy: Privacy) -> bool:
    """Does the job take sealed moves only (a plain move file is refused unread)? In a game
    played in a public repository whose record names the referee's recipient for sealed moves:
    it says ``encrypt_views: true``, or ``--public-repo`` and a ``referee_recipient`` (an older
    game played by ``--public-repo`` without one takes plain moves)."""
    return bool(record.views_encrypted or (privacy.public_repo and record.referee_recipient))


def plain(path: str, moves: str = MOVES) -> bool:
    """Is ``path`` a plain move file or signature that a game taking sealed moves only refuses?
    A join move (fair deal, docs/shuffle.md) holds no secret: named for turn 0
    (``turn-000-PLAYER.yaml``), it may stay plain."""
    return not path.endswith(referee.ENCRYPTED) and file_turn(path, moves) != 0


def signature_of(move: MoveFile, identity: str | None) -> bytes | None:
    """The move's signature as the referee checks it: a sealed one (``.sig.age``) opened with
    the referee's age identity.

    Raises:
        UsageError, InputError: as :func:`rebis_pbm.app.open_sealed_move`.
    """
    if move.signature is None:
        return None
    opened: bytes = referee.open_sealed_move(move.signature, move.signature_name, identity)[0]
    return opened


def remove_plain(git: Git, paths: list[str], say: Say, moves: str = MOVES) -> None:
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
    ``DIR/NAME/refusals/``). The name is the referee's: the turn and the player are those the
    referee judged, never a name a submitter chose."""
    return f"{refusals}turn-{turn:03d}-{player}.txt.age"


def refused_in_public(git: Git, tip: str, move: MoveFile, exc: RebisError,
                      privacy: Privacy, say: Say, record: Record, *, remove: bool,
                      public: bool = False, langs: dict[str, str] | None = None,
                      refusals: str = REFUSALS) -> int:
    """A move refused in a public repository: its reason (which may speak of the mover's hand)
    is committed only encrypted to the mover's key, never printed nor in a commit message; the
    job says only where the mover finds it. A ``public`` reason (one that names nothing the file
    holds: a symbolic link, no author address, no such player) is said in the log instead. With
    ``remove``, the move file and its signature are removed in the same commit, so that the
    file is judged once (a move for this turn or later would be judged again by every job). A
    refusal already committed for this version of the move file is not written again. The
    reason is in the mover's language (``langs``: the record's, player -> language).

    The refusal file is the mover's: named by the referee after the player whose address
    committed the file (:meth:`rebis_pbm.record.Record.player_at`), encrypted to their key, never
    after the player the file's name gives; so a file committed under another player's name
    never replaces that player's refusal. Returns how many commits were made (0 or 1)."""
    from rebis_pbm.crypto.age import REFUSAL_PAD, bucket, encrypt_to_ssh_keys, padded
    from rebis_pbm.present.i18n import refusal
    player = move.player
    # The refusal is the mover's, named by the referee after who committed the file, never
    # after the name the file gives: a file committed under another player's name cannot
    # replace that player's refusal.
    owner = record.player_at(move.author) if player in record.players else None
    key = (privacy.keys or {}).get(owner) if owner is not None else None
    rel = refusal_path(move.turn, owner or player, refusals)
    wrote = False
    if public:
        where = ""
    elif player not in record.players:
        where = (f"; the reason is not published ({one_line(player)} is not a player of game "
                 f"{record.game})")
    elif owner is None:
        where = (f"; the reason is not published ({move.shown_author} is no player's "
                 f"address)")
    elif key is None:
        where = (f"; the reason is not published ({owner} has no key to encrypt it to); the "
                 f"referee can tell {owner} privately")
    else:
        where = f"; the reason is in {rel}"
        if not refusal_current(git, tip, move.path, rel):
            target = git.top / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            reason = refusal(exc, (langs or {}).get(owner), owner)
            # rebis-pbm/4 with a referee key: the referee's signed statement under the reason
            statement = referee.signed_refusal(record, move.data, owner, exc.exit_code,
                                               one_line(reason))
            text = (f"{reason}\n" + (f"\n{statement}" if statement else "")).encode()
            # padded: age does not hide a length
            text = padded(text, bucket([len(text)], REFUSAL_PAD))
            target.write_bytes(encrypt_to_ssh_keys(text, [key],
                                                   source=f"{owner}'s key"))
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
    body = ([f"The reason is in {rel}, encrypted to {owner}'s key."] if wrote else []) + \
        (["The refused file is removed: each move file is judged once."] if remove else []) + \
        ([str(exc)] if public else [])
    git.run("commit", "--quiet", "--no-verify", "-m",
            f"Refusal of {move.path} for {owner or player}",
            "-m", one_line(" ".join(body)))
    return 1


def refusal_current(git: Git, tip: str, move_path: str, rel: str) -> bool:
    """Is a refusal already committed after the last change of the move file?"""
    last = git.run("--literal-pathspecs", "log", "-1", "--format=%H", tip, "--", rel,
                   check=False).stdout.strip()
    if not last:
        return False
    moved = git.run("--literal-pathspecs", "log", "-1", "--format=%H", tip, "--", move_path,
                    check=False).stdout.strip()
    return bool(moved) and git.run("merge-base", "--is-ancestor", moved, last,
                                   check=False).returncode == 0
