"""One game's round of the referee's job: its waiting move files judged in turn order, each
applied move committed with the record and the public view (docs/git.md)."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rebis_pbm import app as referee
from rebis_pbm.errors import ExitCode, Failed, InputError, RebisError, Refused, SeedError, one_line
from rebis_pbm.transports.git.movefiles import (
    KEEP,
    GameFiles,
    Last,
    Say,
    file_turn,
    last_commits,
    nfc,
    players_version,
    precheck,
    restore,
    signature_name,
    turn_of,
)
from rebis_pbm.transports.git.privacy import (
    NO_PRIVACY,
    Privacy,
    plain,
    plain_in_public,
    refused_in_public,
    remove_plain,
    signature_of,
    takes_sealed_only,
)
from rebis_pbm.transports.git.repository import Git, Listing, refuse_secret

if TYPE_CHECKING:
    from rebis_pbm.app.moves import JoinMove
    from rebis_pbm.record import Record


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
    asked: tuple[tuple[str, str], ...] = ()  # (record, player): a view asked for by command


class Changes(NamedTuple):
    """The files a push's range (``REVISIONS``) adds or changes: ``span`` as git log takes it
    (``BASE..NEW`` or ``NEW``) and the ``paths`` (signatures included)."""

    span: str
    paths: list[str]


def shown(path: Path) -> Path:
    """``path`` as messages show it: relative to the working folder (the repository's top in
    CI: ``game.yaml``) when it is inside it, never the runner's absolute path there."""
    rel = os.path.relpath(path)
    return Path(rel) if not rel.startswith("..") else path


def move_at_fault(exc: RebisError, path: str) -> bool:
    """Is ``exc``, raised while ``path`` was judged, the move file's fault (a refusal for its
    mover) rather than the referee's set-up (the seed, the identity, the record)?"""
    if isinstance(exc, Refused):
        return True
    plain_path = path[:-len(referee.ENCRYPTED)] if path.endswith(referee.ENCRYPTED) else path
    return isinstance(exc, InputError) and exc.source.startswith(plain_path)


def apply_round(git: Git, tip: str, tree: Listing, changes: Changes | None, files: GameFiles,
                say: Say, privacy: Privacy = NO_PRIVACY, known: Last | None = None
                ) -> tuple[Outcome, RebisError | None]:
    """One round of one game (``files``) on ``tip``: (what was applied, the error that stopped
    it or None). ``tree``: the files ``tip`` holds (:meth:`Git.listing`), the game's among
    them; ``changes``: what the push's range added or changed, or None; ``known``: the last
    commits of the files judged (:func:`rebis_pbm.transports.git.movefiles.last_commits`; by
    default found here, for this game's files, in one walk).

    A move file whose turn is after the record's next turn waits (it is neither judged nor
    refused until its turn comes). In a public repository (``privacy.public_repo``) a refused
    move file is removed by the job in the commit of its refusal, so that it is judged once and
    never applied later, and the round goes on with the other files; elsewhere the round stops
    at the first refused file, which stays for its player to correct.

    Private views that a referee's clone keeps beside the record (``NAME.yaml``, ``NAME.txt``,
    written by ``new`` and never committed) are refreshed after the round, as ``apply``
    refreshes them (:func:`refresh_private_views`), so that a view the referee hands a player
    is the game as it stands; none is created.

    Raises:
        Failed: the game's seed file is committed, or a file in its moves/ is no move file's
            name (nothing of the game applied; exit 2).
    """
    outcome, stop = _round(git, tip, tree, changes, files, say, privacy, known)
    if outcome.applied or outcome.refusals or outcome.asked:
        refresh_private_views(git.top / files.record, privacy, say)
    return outcome, stop


def _join_said(record: Record, move: JoinMove) -> str:
    """What the job says of a fair deal's join (or rebis-pbm/5 commitment) it applied, as
    ``apply`` does: in a two-round deal, the round it waits in; when the last commitment is
    in, that round 2 (the joins) has begun."""
    waiting = record.waiting_for()
    if not waiting:
        return (f"{move.player} joined the deal: every player has joined, the cards are "
                f"dealt")
    committed = move.commitment is not None
    did = "sent their commitment" if committed else "joined the deal"
    if not record.two_rounds:
        return f"{move.player} {did}; it waits for {', '.join(waiting)}"
    round_ = record.join_round()
    if committed and round_ == 2:
        return (f"{move.player} {did}; every commitment is in: round 2 of 2, the deal waits "
                f"for the joins of {', '.join(waiting)}")
    kind = "commitments" if round_ == 1 else "joins"
    return f"{move.player} {did}; round {round_} of 2, the deal waits for the {kind} of " \
           f"{', '.join(waiting)}"


def refresh_private_views(record_path: Path, privacy: Privacy, say: Say) -> None:
    """Rewrite the plain private views beside ``record_path`` that exist and are out of date
    (``write_views(stale_only=True)``): a referee's clone keeps those ``new`` wrote. A game
    whose views are encrypted is left alone (the round commits those), and so is a checkout
    holding no private view (a CI runner's: nothing is created). A failure is said for the
    referee's attention, never the job's: the record and its commits stand."""
    if privacy.encrypt_views:
        return
    views_dir = Path(referee.default_views_dir(record_path))
    try:  # (a look at the folder first: a runner's checkout holds the public view alone)
        private = [p for p in views_dir.iterdir() if p.suffix in (".yaml", ".txt")
                   and not p.name.startswith("public.")] if views_dir.is_dir() else []
        if not private:
            return
        game = referee.open_game(record_path)
        if not game.record.views_encrypted:
            referee.write_views(views_dir, game.record, game.replay, stale_only=True)
    except (RebisError, OSError) as exc:
        say(one_line(f"rebis-pbm git: the private views in {views_dir} were not refreshed "
                     f"({exc}); rebis-pbm view {record_path} --player NAME shows each"), True)


def _round(git: Git, tip: str, tree: Listing, changes: Changes | None, files: GameFiles,
           say: Say, privacy: Privacy, known: Last | None) -> tuple[Outcome, RebisError | None]:
    """:func:`apply_round`, without the refresh of the private views."""
    from rebis_pbm.present import views
    game, moves = files.record, files.moves
    refuse_secret(tree, game)
    record_path = shown(git.top / game)
    referee.require_record(record_path)
    try:  # with the seed, the whole record is checked (record_hmac) before its keys are used
        record = referee.open_game(record_path).record
    except SeedError:  # no seed (or another game's): submit_move says so for the first move
        record = referee.read_record(record_path)
    # In a fair deal's join phase the files of turn 0 (joins, rebis-pbm/5 commitments) are due
    # too, found in the tree as a later turn's are (one already recorded is a repeat).
    next_turn = 0 if record.joining() and record.seed is None else len(record.moves) + 1
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
    sealed_only = takes_sealed_only(record, privacy)
    chosen: dict[str, int] = {}
    plains: set[str] = set()  # plain files in a game that takes sealed moves only
    for path in sorted(p for p in tree if p.startswith(moves) and p != moves + KEEP):
        turn = turn_of(git, path, tip, moves)  # (-1: a signature beside its move)
        if sealed_only and plain(path, moves):
            if file_turn(path, moves) >= next_turn:
                plains.add(path)
        elif turn >= next_turn:
            chosen[path] = turn
    if changes is not None:
        for path in changes.paths:
            if not path.startswith(moves) or path == moves + KEEP:
                continue
            turn = turn_of(git, path, changes.span, moves)
            if path not in tree:
                continue
            if sealed_only and plain(path, moves):
                plains.add(path)
            elif turn >= 0:
                chosen[path] = turn
    applied: list[int] = []
    repeated = 0
    commits = 0
    refused: list[RebisError] = []
    if plains:  # never read, never applied: removed unread, the reason said in public
        remove_plain(git, sorted(plains), say, moves)
        commits += 1
        refused.append(Refused(plain_in_public(min(plains), moves), ExitCode.INPUT))
    if known is None:
        due = [p for p in chosen if chosen[p] == next_turn]
        known = last_commits(git, tip, [*due, *(signature_name(p) for p in due)])
    views_dir = Path(referee.default_views_dir(record_path))
    rel_views = (Path(game).parent / views_dir.name).as_posix()
    langs = record.langs
    for path in sorted(chosen, key=lambda p: (chosen[p], p)):
        if chosen[path] > next_turn:
            say(f"{path}: waits for turn {chosen[path]} (the record's next turn is {next_turn}); "
                f"it is judged once turn {chosen[path] - 1} is played", False)
            continue
        move = players_version(git, tip, tree, path, chosen[path], record, moves, known)
        if move.overwritten:
            say(one_line(f"rebis-pbm git: {path}: {move.overwritten} changed {move.player}'s "
                         f"move file or its signature; that change is not taken: the file is "
                         f"judged as {move.player} last committed it (commit {move.short}), and "
                         f"restored"), True)
        with tempfile.TemporaryDirectory() as work:
            try:
                precheck(record, move)
            except Refused as exc:  # said in public: it names nothing the file holds
                if not privacy.public_repo:
                    say(f"rebis-pbm git: {move.label} was refused; the record is unchanged",
                        True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                commits += refused_in_public(git, tip, move, exc, privacy, say, record,
                                             remove=move.turn >= next_turn, public=True,
                                             refusals=files.refusals)
                refused.append(exc)
                continue
            try:
                data, _ = referee.open_sealed_move(move.data, path, privacy.age_identity,
                                                      record.referee_recipient)
                done = referee.submit_move(record_path, data, path, author=move.author,
                                           views_dir=Path(work) / "views",
                                           file_name=nfc(os.path.basename(path)),
                                           signature=signature_of(move, privacy.age_identity))
            except RebisError as exc:
                if exc.exit_code == ExitCode.BUSY:
                    say(f"rebis-pbm git: {move.label} was not applied: the record was busy; "
                        f"nothing changed, run the job again", True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                if not move_at_fault(exc, path):
                    say(f"rebis-pbm git: the job stopped before judging {move.label}: the "
                        f"referee's set-up is at fault, not the move (the reason follows); "
                        f"nothing changed for it, and it waits for the next run", True)
                    return Outcome(tuple(applied), repeated, refusals=commits), exc
                if privacy.public_repo:
                    # Its reason may speak of the mover's hand ("you have no 2"): to them only.
                    commits += refused_in_public(git, tip, move, exc, privacy, say, record,
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
                said = _join_said(record, done.move)
            else:
                said = f"Turn {done.move.turn}: {views.account(done.events)}"
            if done.finished:
                said += (f"\nThe game is over: {game} now reveals its seed, so anyone can check "
                         f"the whole game with: rebis-pbm verify {game}")
            views_dir.mkdir(parents=True, exist_ok=True)
            for view in ("public.yaml", "public.txt"):
                (views_dir / view).write_bytes((Path(work) / "views" / view).read_bytes())
            if privacy.encrypt_views:
                if keys_in_record:  # a join may have registered one more
                    privacy = replace(privacy,
                                      keys=referee.registered_view_keys(done.record))
                referee.write_encrypted_views(views_dir, done.record, done.replay,
                                              privacy.keys or {})
        say(f"{path} ({move.short}, {move.shown_author}): {said}", False)
        git.run("add", "--", game, f"{rel_views}/public.yaml", f"{rel_views}/public.txt",
                *restore(git, move))
        if privacy.encrypt_views:  # forced: the example's .gitignore keeps views/* out
            git.run("add", "--force", "--", *(f"{rel_views}/{p}{suffix}{referee.ENCRYPTED}"
                                             for p in done.record.players
                                             if (privacy.keys or {}).get(p)
                                             for suffix in (".yaml", ".txt")))
        git.commit(f"Apply {path} from {move.shown_author}", said)
        applied.append(move.turn)
    # the players' command files, once the moves are in (docs/git.md, "Commands")
    from rebis_pbm.transports.git.commands import answer_commands
    judged = answer_commands(git, tip, tree, files, record_path, say, privacy)
    commits += judged.commits
    stop: RebisError | None = None
    if refused:  # each said above once; the job still fails, for the mover's push
        stop = Refused(f"{len(refused)} move file(s) refused, each said above (a reason that may "
                       f"speak of a hand is only in {files.refusals}, encrypted to its mover); "
                       f"every other move was applied", refused[0].exit_code)
    elif judged.refused:  # each answered in answers/: the job fails for the sender's push
        stop = Refused(f"{len(judged.refused)} command file(s) refused, each answered in "
                       f"{files.answers}; every other command and move was carried out",
                       judged.refused[0].exit_code)
    asked = tuple((game, player) for player in judged.views)
    return Outcome(tuple(applied), repeated, refusals=commits, asked=asked), stop

