"""`rebis-pbm git apply` (the seed-holding job) refuses a rebis-pbm/3 record rewritten outside
rebis-pbm (report 13, finding 1): a commit that reaches main with bob's address redirected, or
with a key registered for bob and every public digest recomputed, makes the job exit 3 before
any move is applied; the record on origin stays as it was and no view is written."""

from __future__ import annotations

import shutil

import pytest
import yaml
from test_git_job import git, job_clone, key, referee_commits, run_job

from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import HEADER, Record
from rebis_pbm.record.digests import chain_digest
from transport_support import pick_move

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="these tests need git")
MALLORY_KEY = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHujRWGMKUn5Heaxd7hMTbqP2W0VNLWbvJDFuX+slAk/")


def rechain(doc: dict) -> dict:
    """The forger's recomputation of every public digest (header and chain)."""
    doc["header_sha256"] = prev = Record.from_dict(doc).computed_header_sha256()
    for entry in doc["moves"]:
        entry.pop("chain_sha256")
        entry["chain_sha256"] = prev = chain_digest(prev, entry)
    return doc


def redirect(doc: dict) -> dict:
    doc["addresses"]["bob"] = "mallory@example.org"  # no digest to recompute
    return doc


def register_mallory(doc: dict) -> dict:
    doc["keys"] = {"bob": [MALLORY_KEY]}
    return rechain(doc)


@pytest.mark.parametrize("tamper", [redirect, register_mallory], ids=["address", "key"])
def test_the_job_refuses_a_record_rewritten_outside_rebis_pbm(tmp_path, origin, tamper):
    import os

    from rebis_pbm.app import open_game
    from rebis_pbm.record.secret import SEED_ENV
    player = tmp_path / "player"
    git(tmp_path, "clone", "--quiet", str(origin), str(player))
    start = git(player, "rev-parse", "HEAD")
    os.environ[SEED_ENV] = key(tmp_path)
    try:
        state = open_game(player / "game.yaml")[1].state
    finally:
        del os.environ[SEED_ENV]
    game = player / "game.yaml"
    game.write_text(HEADER + dump_yaml(tamper(yaml.safe_load(game.read_text()))))
    git(player, "commit", "--quiet", "-am", "an edit of the record", author="alice")
    tampered = game.read_bytes()
    move = pick_move(state)
    (player / "moves" / f"turn-001-{move.player}.yaml").write_text(
        dump_yaml({"game": "gitjob", **move.as_dict()}))
    git(player, "add", "moves")
    git(player, "commit", "--quiet", "-m", "turn 1", author=move.player)
    git(player, "push", "--quiet", "origin", "main")
    head = git(player, "rev-parse", "HEAD")
    clone = job_clone(tmp_path, origin, head, "job")
    done = run_job(clone, start, head)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "record_hmac" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    git(player, "pull", "--quiet", "origin", "main")
    assert game.read_bytes() == tampered and git(player, "rev-parse", "HEAD") == head
    assert not referee_commits(player)
