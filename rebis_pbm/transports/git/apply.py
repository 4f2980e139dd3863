"""The referee's CI job, ``rebis-pbm git apply``: fetch the protected branch, apply every game's
waiting move files on its current tip, commit, push (docs/git.md).

:func:`apply_moves` fetches the protected branch, works on its current tip (never on the commit
whose push started the job, which may be behind), enters every move file not yet in the record
through :func:`rebis_pbm.app.submit_move` in turn order, with the author of the file's last
commit as the move's author (:mod:`rebis_pbm.transports.git.game`), commits the record and the
public view after each, and pushes; a push refused because the branch moved meanwhile starts the
whole round again from the new tip (a bounded number of times). So jobs may start in any order,
or overlap: whichever runs first applies every waiting move, the others find nothing left to do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from rebis_pbm.errors import Failed, RebisError, UsageError
from rebis_pbm.files.names import DEFAULT_GAME
from rebis_pbm.transports.git.game import Changes, Outcome, apply_round
from rebis_pbm.transports.git.movefiles import COMMANDS, MOVES, GameFiles, Say, say_print
from rebis_pbm.transports.git.notify import announce_turns
from rebis_pbm.transports.git.privacy import NO_PRIVACY, Privacy
from rebis_pbm.transports.git.repository import (
    REFEREE,
    Git,
    Identity,
    changed_files,
    deepen,
    keep_secrets,
    repository,
    secret_of,
    span,
)
from rebis_pbm.transports.git.shard import apply_shard, shard_folder, shard_games

PUSH_ATTEMPTS = 10  # rounds of fetch, apply, push before giving up (each refusal = a new tip)


def apply_moves(start: str | os.PathLike[str], revisions: str | None = None, *,
                game: str = DEFAULT_GAME, remote: str | None = None, branch: str = "main",
                identity: Identity = REFEREE, say: Say = say_print,
                after_push: Callable[[Outcome], None] | None = None,
                privacy: Privacy = NO_PRIVACY, games: str | None = None) -> Outcome:
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
    Each game where a move was applied then posts its chat notices
    (:func:`rebis_pbm.transports.git.notify.announce_turns`: a failed post is never the job's).
    ``after_push`` is called once the job's work is on the remote (or committed, without one),
    whether or not a move was applied this time (a job killed before it ran leaves views to
    queue: the next job's ``after_push`` finds them).
    ``privacy`` (:class:`Privacy`) opens sealed moves, keeps refusals' reasons out of the output
    and the commits, and commits encrypted views, for a game in a public repository; there a
    refused file is removed in the commit of its refusal (judged once) and the job goes on with
    the others, and a plain move file or signature in a game that takes sealed moves only is
    removed unread (docs/git.md, "A public repository").

    With ``games`` (a folder relative to the repository's top), the repository is a shard: each
    game of :func:`rebis_pbm.transports.git.shard.shard_games` that has a waiting move, instead
    of ``game``, with the same rules, in one fetch, one listing, one round and one push. A game
    that ends with a refusal or an error (a move file's name, a refused move in a private
    repository, the referee's set-up) stops only itself, said as it comes: the moves applied
    before it in that game and every other game's moves are committed and pushed, then one
    :class:`rebis_pbm.errors.Refused` naming those games is raised, with the first one's exit
    code. ``after_push`` then gets every game's applied turns together, ``Outcome.games`` the
    records of the games where a move was applied and ``Outcome.stopped`` the folders of those
    that stopped.

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
    try:
        outcome, stop = _rounds(git, revisions, game, remote, branch, say, privacy, games)
    finally:
        git.close()
    announce_turns(git.top, outcome, say, game=game)  # chat webhooks: never the job's failure
    if after_push is not None:
        after_push(outcome)
    repeated = (f", {outcome.repeated} already in the record (resent: nothing changed)"
                if outcome.repeated else "")
    say(f"rebis-pbm git: {len(outcome.applied)} move(s) applied{repeated}", False)
    if stop is not None:
        raise stop
    return outcome


def _rounds(git: Git, revisions: str | None, game: str, remote: str | None, branch: str,
            say: Say, privacy: Privacy, games: str | None
            ) -> tuple[Outcome, RebisError | None]:
    """Fetch, apply, push until the push is taken (:func:`apply_moves`): (what was applied,
    the error that stopped a game, or None).

    Raises:
        Failed: the push was refused every round; as :func:`apply_moves`.
    """
    deepen(git, remote)
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        if remote is not None:
            git.close()  # (a new cat-file process sees the fetched objects)
            git.run("fetch", "--quiet", remote,
                    f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}")
            keep_secrets(git, f"{remote}/{branch}")
            git.run("checkout", "--quiet", "--force", "--detach", f"{remote}/{branch}")
        tip = git.out("rev-parse", "HEAD")
        folder = shard_folder(games) if games is not None else None
        tree = git.listing(tip, folder) if folder is not None else \
            git.listing(tip, MOVES, COMMANDS, secret_of(game))
        shard = None if games is None else shard_games(tree, tip, games)
        changes = None
        if revisions is not None:  # (a wrong range stops the whole job, before any game)
            base, new = span(git, revisions)
            changes = Changes(f"{base}..{new}" if base else new,
                              changed_files(git, base, new, folder or MOVES))
        if remote is not None:
            git.run("clean", "--quiet", "-d", "--force", "--",
                    *([MOVES] if shard is None else [f.moves for f in shard]))
        if shard is None:
            outcome, stop = apply_round(git, tip, tree, changes, GameFiles(game), say, privacy)
        else:
            assert folder is not None
            outcome, stop = apply_shard(git, tip, tree, changes, folder, shard, say, privacy,
                                        pushed=remote is not None)
        # (a shard's game that stopped on a git error may leave commits its outcome lacks)
        if remote is None or git.out("rev-parse", "HEAD") == tip:
            return outcome, stop
        pushed = git.run("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", check=False)
        if pushed.returncode == 0:
            return replace(outcome, pushed=True), stop
        say(f"rebis-pbm git: {remote}/{branch} moved while the moves were applied (the push was "
            f"refused); applying again on its new tip (round {attempt + 1})", True)
    raise Failed(f"the push to {remote}/{branch} was refused {PUSH_ATTEMPTS} times, each "
                 f"time after applying on its new tip; nothing was pushed: run the job again")
