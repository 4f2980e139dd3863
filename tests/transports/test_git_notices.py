"""``git apply`` posts the chat notice of each turn it begins (issue 28, item 5; docs/git.md,
docs/league.md), as ``apply``, ``mail in`` and ``tick`` do: to a real HTTP server on 127.0.0.1,
from the referee's ``game.notify.yaml`` in the job's checkout (never committed); a webhook that
is down never fails the job, and its notice stays queued."""

from __future__ import annotations

import shutil

import pytest
from test_git_transport import PLAYERS, commit_move, job, played, repo, tracked  # noqa: F401
from test_webhook import Hook, hook  # noqa: F401

from rebis_pbm.app import open_game
from transport_support import pick_move, run

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="these tests need git")


def test_git_apply_posts_the_notice_of_the_turn_it_begins(repo, hook):  # noqa: F811
    game = repo / "game.yaml"
    assert run("notify", "add", game, f"json:{hook.url('/all')}").returncode == 0
    state = open_game(game).replay.state
    commit_move(repo, state.player_to_move, pick_move(state), "turn 1")
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stderr
    after = open_game(game).replay.state
    assert [(b["notice"], b["player"], b["turn"]) for b in hook.bodies()] == \
        [("turn", after.player_to_move, 2)]
    # the URLs stay the referee's: neither the settings nor the queue is committed
    assert not any("notify" in path for path in tracked(repo))


def test_a_webhook_that_is_down_never_fails_the_job(repo):  # noqa: F811
    game = repo / "game.yaml"
    down = Hook()
    url = down.url("/down")
    down.close()  # nobody listens there any more
    assert run("notify", "add", game, f"json:{url}").returncode == 0
    state = open_game(game).replay.state
    commit_move(repo, state.player_to_move, pick_move(state), "turn 1")
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stderr
    assert "1 move(s) applied" in done.stdout
    assert len(played(game)) == 1
    queued = list((repo / "game.notifyq").rglob("*"))
    assert queued, "the notice stays queued for notify send"
