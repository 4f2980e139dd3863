"""Players' commands as files in git: ``commands/NAME-*.txt`` in the game's folder, answered by
the job in ``answers/`` (docs/git.md, "Commands").

A command file holds one command line (``help``, ``view``, ``moves``, ``history``, ``away FROM
TO``, ``back``, ``resign``), the one :mod:`rebis_pbm.app.commands` reads and carries out for
every transport. The author of the file's last commit must be the address the player named by
the file registered, and a player with a key commits the signature beside it
(``NAME-*.txt.sig``). Each file is judged once: the job removes it (and its signature) in the
commit of its answer, ``answers/NAME-*.txt``, in the player's language. An answer that shows the
player's hand (``view``) is committed only encrypted to their key (``answers/NAME-*.txt.age``),
and without a key it says where to find it instead; in a game whose views are encrypted (a
public repository) every answer is encrypted so. Every encrypted answer of a game is padded to
one size, that of the longest ``view`` answer any player could get (:func:`answer_size`), so
that its length tells nothing of a hand; ``moves``, whose listing's length would, answers with
how to list the moves from one's own view (:func:`rebis_pbm.app.commands.moves_elsewhere`). A
``view`` is also mailed to its player by ``git apply --queue``, as every view of the game is
after a move.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm import app as referee
from rebis_pbm.engine.phrases import N_, Phrase
from rebis_pbm.errors import RebisError, Refused, one_line
from rebis_pbm.files.names import COMMAND_SUFFIX, ENCRYPTED, SIGNATURE
from rebis_pbm.transports.git.movefiles import (
    KEEP,
    SAFE_NAME,
    GameFiles,
    Say,
    history,
    last_commits,
    nfc,
)
from rebis_pbm.transports.git.privacy import Privacy
from rebis_pbm.transports.git.repository import Git, Listing

if TYPE_CHECKING:
    from rebis_pbm.record import Record

COMMAND_MAX_BYTES = 4096  # a command line, and room for a comment: never a whole file's worth
HAND = ("view",)  # the answers that show the player's hand (moves: never listed in git)


class Judged(NamedTuple):
    """What the job did with one game's command files: ``commits`` made, ``refused`` (the
    refusals, each answered), whether a command changed the record (``changed``: away, back,
    resign), and the players who asked for their view (``views``: ``git apply --queue`` then
    mails it to them, as ``mail views --player`` does)."""

    commits: int
    refused: list[RebisError]
    changed: bool
    views: list[str]


def command_files(tree: Listing, files: GameFiles) -> list[str]:
    """The command files of the game ``files`` in ``tree``, in the order of their names (not
    their signatures, nor the folder's ``.gitkeep``)."""
    folder = files.commands
    return sorted(p for p in tree if p.startswith(folder) and p != folder + KEEP
                  and not p.endswith(SIGNATURE))


def player_of(name: str, players: tuple[str, ...]) -> str | None:
    """The player a command file's name (``NAME-WORDS.txt``, without its folder) is for: the
    longest player name it starts with, followed by ``-`` (None: no player's). The name is
    taken in Unicode NFC, as the players' names are (:func:`nfc`: macOS commits NFD)."""
    name = nfc(name)
    if not name.endswith(COMMAND_SUFFIX) or "/" in name or not SAFE_NAME.fullmatch(name):
        return None
    found = [p for p in players if name.startswith(p + "-")]
    return max(found, key=len) if found else None


def answer_commands(git: Git, tip: str, tree: Listing, files: GameFiles, record_path: Path,
                    say: Say, privacy: Privacy) -> Judged:
    """Answer the game's command files (:func:`command_files`) at ``tip``, each in a commit of
    the job's that removes it and its signature and adds its answer (docs/git.md,
    "Commands"). A command that changes the record (``away``, ``back``, ``resign``) commits the
    record and the public view with its answer (private views never in plain text: encrypted
    ones in a game that commits them). A refused command (not the author's name, no signature
    where the player has a key, a bad line) is answered with the reason and changes nothing.

    Raises:
        RebisError: the referee's set-up (the record, the seed) is at fault; what was answered
            before stays committed.
    """
    paths = command_files(tree, files)
    if not paths:
        return Judged(0, [], False, [])
    known = last_commits(git, tip, [*paths, *(p + SIGNATURE for p in paths)])
    commits, changed = 0, False
    refused: list[RebisError] = []
    asked: list[str] = []
    for path in paths:
        record = referee.open_game(record_path).record
        entry = tree.get(path)
        sig_entry = tree.get(path + SIGNATURE)
        if path not in known:  # a name last_commits leaves out: its own git log
            last = history(git, tip, path, last_only=True)
            known[path] = last[0][:3] if last else ("", "", "?")
        _, author, short = known[path]
        data = git.blob(entry.oid) if entry is not None else None
        signature = git.blob(sig_entry.oid) if sig_entry is not None else None
        named = player_of(path[len(files.commands):], record.players)
        owner = record.player_at(author) if "@" in author else None
        gone = [path] + ([path + SIGNATURE] if sig_entry is not None else [])
        with tempfile.TemporaryDirectory() as work:
            views = Path(work) / "views"
            views.mkdir()  # (a change writes the views only into a folder that exists)
            try:
                player, answer = _carry_out(record_path, record, path, named, author, data,
                                            signature, views)
            except Refused as exc:
                refused.append(exc)
                said = _answer_refusal(git, files, path, owner, exc, record, privacy,
                                       data or b"")
                say(one_line(f"rebis-pbm git: {path} (commit {short}): the command was "
                             f"refused{said}; the job removed it: each command file is "
                             f"judged once"), True)
                git.run("--literal-pathspecs", "rm", "--quiet", "--", *gone)
                git.commit(f"Refusal of {path}", one_line(f"The command was refused{said}."))
                commits += 1
                continue
            rel = _write_answer(git, files, path, player, answer.text, record_path, privacy,
                                hand=answer.hand)
            added = [rel]
            if answer.name == "view":
                asked.append(player)
            if answer.changed:
                changed = True
                added += _commit_views(git, files, record_path, views, privacy)
            git.run("--literal-pathspecs", "rm", "--quiet", "--", *gone)
            git.run("add", "--force", "--", *added)
            say(f"{path} ({short}, {one_line(author)}): command {answer.name} ({player}); "
                f"answered in {rel}", False)
            git.commit(f"Answer {path} from {one_line(author)}",
                       f"Command {answer.name} of {player}; the answer is in {rel}.")
            commits += 1
    return Judged(commits, refused, changed, asked)


class GitAnswer(NamedTuple):
    """A command carried out: its ``name``, the answer's ``text`` (in the player's language),
    whether it shows the player's ``hand``, and whether the record ``changed``."""

    name: str
    text: str
    hand: bool
    changed: bool


def _carry_out(record_path: Path, record: Record, path: str, named: str | None,
               author: str, data: bytes | None, signature: bytes | None, views: Path
               ) -> tuple[str, GitAnswer]:
    """Check the command file ``path`` and carry it out: (its player, the answer).

    Raises:
        Refused: a file that is not one, named for no player, not committed by that player's
            address, not a command line, or without the signature the player's key asks for;
            as :func:`rebis_pbm.app.commands.carry_out`.
    """
    from rebis_pbm.app import commands
    if data is None:
        raise Refused(f"{path} is not a file: commit the command file itself")
    if named is None:
        raise Refused(phrase=Phrase(N_(
            "{path}: a command file is named commands/NAME-WORDS.txt after a player of game "
            "{game} (players: {players})"),
            {"path": path, "game": record.game, "players": ", ".join(record.players)}))
    if "@" not in author:  # git lets a commit have an empty author address ('x <>')
        raise Refused(f"{path}: the commit that added it has no author address; commit it with "
                      f"your registered address as git user.email")
    sender = record.player_at(author)
    if sender is not None and sender != named:  # (check_sender's words are a move's)
        raise Refused(phrase=Phrase(N_(
            "{source}: this command is for {player}, but it comes from {who}; a player can "
            "only send their own commands"),
            {"source": path, "player": named, "who": f"{one_line(author)} ({sender})"}))
    referee.check_sender(record, author, named, path)
    line = _first_line(data)
    command = commands.parse_command(line) if line is not None else None
    if command is None:
        raise Refused(f"{path}: its first line is no command: write one of "
                      f"{', '.join(commands.COMMANDS)} (docs/git.md, \"Commands\")")
    commands.command_signature(record, named, command, signature)
    lang = record.lang(named)
    before = record_path.read_bytes()  # (an action leaves the chain of moves as it was)
    answer = commands.carry_out(record_path, named, command, lang, views_dir=views,
                                measured=True)
    body = _answer_text(referee.open_game(record_path), named, answer.title,
                        None if answer.view else answer.text)
    return named, GitAnswer(command.name, body, command.name in HAND,
                            record_path.read_bytes() != before)


def _answer_text(game: referee.Game, player: str, title: str, text: str | None) -> str:
    """An answer's text as committed, of the opened ``game``: ``title``, ``text`` (None: the
    player's text view), then where the game stands, in the player's language."""
    from rebis_pbm.app import commands
    from rebis_pbm.present.views import render
    lang = game.record.lang(player)
    if text is None:
        text = render(referee.record_view(game.record, game.replay, player, lang), "text", lang)
    status = commands.standing_line(game.record, game.replay, lang, player)
    return f"{title}\n\n{text.rstrip()}\n\n{status}\n"


def answer_size(record_path: Path, length: int) -> int:
    """The size in bytes every encrypted answer of the game is padded to, ``length`` (an
    answer's, in UTF-8) being one of them: the smallest multiple of
    :data:`~rebis_pbm.crypto.age.VIEW_PAD` (16 KiB) that holds it and the ``view`` answer of
    every player (docs/formats.md, "Padding of encrypted files"). Whatever a player's hand and
    whichever command they sent, their answer has that size; only an answer longer than every
    view answer (a long game's history, which the public record tells anyway) takes more."""
    from rebis_pbm.app import commands
    from rebis_pbm.crypto.age import VIEW_PAD, bucket
    game = referee.open_game(record_path)  # once: every player's view answer is of it
    view = commands.COMMANDS["view"].handler
    views = [len(_answer_text(game, p, view(commands.Request(record_path, p,
                                                             game.record.lang(p))).title,
                              None).encode("utf-8")) for p in game.record.players]
    return bucket([length, *views], VIEW_PAD)


def _first_line(data: bytes) -> str | None:
    """The first line of a command file that is not empty nor a comment (``#``), or None."""
    if len(data) > COMMAND_MAX_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return next((line for line in text.splitlines()
                 if line.strip() and not line.lstrip().startswith("#")), None)


def answer_path(files: GameFiles, path: str, player: str, sealed: bool) -> str:
    """Where the answer to the command file ``path`` goes: ``answers/`` beside it, named after
    the player the referee judged it for and the file's own words (``.age``: encrypted)."""
    name = path[len(files.commands):]
    words = name[name.index("-") + 1:] if "-" in name else name
    return f"{files.answers}{player}-{words}" + (ENCRYPTED if sealed else "")


def _write_answer(git: Git, files: GameFiles, path: str, player: str, text: str,
                  record_path: Path, privacy: Privacy, *, hand: bool) -> str:
    """Write the answer to ``path`` for ``player``: encrypted to their key when it shows their
    hand or the game's views are encrypted; plain otherwise; without a key, the text under the
    title line (``text``'s first) becomes where to find it. Returns the answer's path
    (relative to the repository's top)."""
    from rebis_pbm.crypto.age import encrypt_to_ssh_keys, padded
    record = referee.open_game(record_path).record
    key = (privacy.keys or {}).get(player) or referee.registered_view_keys(record).get(player)
    sealed = hand or privacy.encrypt_views or privacy.public_repo
    if sealed and key is None:  # the title line stays (docs/git.md): only the text goes
        text = text.split("\n", 1)[0] + "\n\n" + _no_key(record, player, hand)
        sealed = False
    rel = answer_path(files, path, player, sealed)
    target = git.top / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    if sealed:
        assert key is not None  # one size for every answer: age does not hide a length
        data = encrypt_to_ssh_keys(padded(data, answer_size(record_path, len(data))), [key],
                                   source=f"{player}'s key")
    target.write_bytes(data)
    return rel


def _no_key(record: Record, player: str, hand: bool) -> str:
    """The answer that replaces one that must be encrypted, for a player without a key."""
    from rebis_pbm.present.i18n import gettext_for
    _ = gettext_for(record.lang(player))
    if hand:
        return _("This answer shows your hand, and a repository is no place for it in plain "
                 "text: register an SSH key with the referee (replace-player --key) to have it "
                 "committed encrypted to you. Your view comes by e-mail after each move; "
                 "rebis-pbm moves --view VIEW lists your legal moves from it.") + "\n"
    return _("The answers of this game are committed encrypted to each player's key, and you "
             "have none: ask the referee.") + "\n"


def _answer_refusal(git: Git, files: GameFiles, path: str, owner: str | None,
                    exc: RebisError, record: Record, privacy: Privacy, data: bytes) -> str:
    """Commit the refusal's reason for ``owner`` (the player whose address committed the file;
    None: no player's, and the reason is said nowhere but the log of a private repository) and
    stage it, under it in a game with a referee key the referee's signed statement over the
    command file's bytes ``data``, as a refused move's; returns where the reason is, for the
    log."""
    from rebis_pbm.present.i18n import gettext_for, refusal
    public = privacy.public_repo or privacy.encrypt_views
    if owner is None:
        return "" if public else f" ({one_line(str(exc))})"
    lang = record.lang(owner)
    _ = gettext_for(lang)
    reason = one_line(refusal(exc, lang, owner, command=True))
    statement = referee.signed_refusal(record, data, owner, exc.exit_code, reason)
    text = (_("your command was not carried out") + "\n\n" + reason
            + "\n\n" + _("Nothing in the game changed.") + "\n"
            + (f"\n{statement}\n" if statement else ""))
    rel = _write_answer(git, files, path, owner, text, Path(git.top / files.record),
                        privacy, hand=False)
    git.run("add", "--force", "--", rel)
    return f"; the reason is in {rel}"


def _commit_views(git: Git, files: GameFiles, record_path: Path, views: Path,
                  privacy: Privacy) -> list[str]:
    """After a command changed the record: the public view (and, in a game that commits them,
    the encrypted private views) beside the record; returns the paths to add."""
    views_dir = Path(referee.default_views_dir(record_path))
    rel_views = (Path(files.record).parent / views_dir.name).as_posix()
    views_dir.mkdir(parents=True, exist_ok=True)
    added = [files.record]
    for view in ("public.yaml", "public.txt"):
        if (views / view).exists():
            (views_dir / view).write_bytes((views / view).read_bytes())
            added.append(f"{rel_views}/{view}")
    if privacy.encrypt_views:
        game = referee.open_game(record_path)
        keys = privacy.keys or referee.registered_view_keys(game.record)
        referee.write_encrypted_views(views_dir, game.record, game.replay, keys)
        added += [f"{rel_views}/{p}{suffix}{ENCRYPTED}" for p in game.record.players
                  if keys.get(p) for suffix in (".yaml", ".txt")]
    return [os.fspath(p) for p in added]
