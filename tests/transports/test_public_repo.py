"""A game in a public repository (docs/git.md, "A public repository"), on a real bare origin
with the job run as CI runs it: a sealed move is applied with the referee's age identity, the
private views are committed only encrypted to their players, and a refused move's reason is
never in the job's output, a commit message or a plain committed file: only in
refusals/turn-NNN-PLAYER.txt.age, which its mover alone decrypts."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_git_job import bare_env, git, job_clone
from test_git_job import key as secret_in  # the game's SALT:SEED, as the CI secret holds it

from rebis_pbm import app as referee
from rebis_pbm.crypto import age as encryption
from rebis_pbm.formats.yaml_writer import dump_yaml
from sshkeys import ssh_key
from transport_support import PLAYERS, illegal_card, pick_move, run

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("ssh-keygen")),
                                reason="needs git and ssh-keygen (Debian: openssh-client)")


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("keys")
    return {p: ssh_key(folder, p) for p in PLAYERS}


def state_of(clone: Path):
    os.environ["REBIS_PBM_SEED"] = secret_in(clone.parent)
    try:
        return referee.open_game(clone / "game.yaml")[1].state
    finally:
        del os.environ["REBIS_PBM_SEED"]


def job(clone: Path, keys: dict[str, Path], identity: Path) -> subprocess.CompletedProcess:
    args = ["git", "apply", "--remote", "origin", "--branch", "main", "--email",
            "referee@example.org", "--public-repo", "--encrypt-views",
            *(a for p, k in keys.items() for a in ("--key", f"{p}={k}.pub"))]
    env = {**bare_env(clone.parent / "home"), "REBIS_PBM_SEED": secret_in(clone.parent),
           "REBIS_PBM_AGE_IDENTITY": str(identity)}
    done = run(*args, cwd=clone, env=env)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(),
                                       done.stderr.decode())


def push_sealed_first_move(tmp_path: Path, origin: Path, player: Path, recipient: str,
                           alice_key: Path) -> Path:
    """alice writes turn 1 in ``player`` (a clone of ``origin``), seals and signs it with
    ``rebis-pbm seal``, commits only the sealed files under moves/ and pushes; returns a clone
    checked out at that push, as the CI job would run in."""
    plain = player / "turn-001-alice.yaml"
    plain.write_text(dump_yaml({"game": "gitjob", **pick_move(state_of(player)).as_dict()}))
    sealed = run("seal", plain, "--to", recipient, "--key", alice_key)
    assert sealed.returncode == 0, sealed.stderr
    (player / "moves").mkdir(exist_ok=True)
    for suffix in (".age", ".sig.age"):
        shutil.copy(f"{plain}{suffix}", player / "moves" / f"turn-001-alice.yaml{suffix}")
    git(player, "add", "moves")
    git(player, "commit", "--quiet", "-m", "turn 1", author="alice")
    git(player, "push", "--quiet", "origin", "main")
    return job_clone(tmp_path, origin, git(player, "rev-parse", "HEAD"), "job")


def test_a_public_game_seals_moves_encrypts_views_and_hides_a_refusals_reason(
        tmp_path, origin, keys):
    identity = tmp_path / "referee.key"
    identity.write_text(encryption.new_identity()[0])
    recipient = encryption.recipient_of(identity)
    player = tmp_path / "player"
    git(tmp_path, "clone", "--quiet", str(origin), str(player))
    # alice seals her first move; the job opens it and commits encrypted views.
    clone = push_sealed_first_move(tmp_path, origin, player, recipient, keys["alice"])
    done = job(clone, keys, identity)
    assert done.returncode == 0, done.stdout + done.stderr
    git(player, "pull", "--quiet", "origin", "main")
    views = player / "game.views"
    assert not any((views / f"{p}{s}").exists() for p in PLAYERS for s in (".yaml", ".txt"))
    for p, key in keys.items():
        mine = encryption.decrypt((views / f"{p}.yaml.age").read_bytes(), key)
        assert f"viewer: {p}\n".encode() in mine
        other = next(o for o in PLAYERS if o != p)
        with pytest.raises(Exception, match="not encrypted to"):
            encryption.decrypt((views / f"{other}.yaml.age").read_bytes(), key)
    # bob plays a card he does not hold: refused, and the reason reaches bob only.
    state = state_of(player)
    assert state.player_to_move == "bob"
    legal = pick_move(state)
    doc = {"game": "gitjob", **legal.as_dict()}
    doc["play"] = {**doc["play"], "cards": illegal_card(state)}
    (player / "moves" / "turn-002-bob.yaml").write_text(dump_yaml(doc))
    reason = run("apply", player / "game.yaml", player / "moves" / "turn-002-bob.yaml",
                 "--dry-run", env={"REBIS_PBM_SEED": secret_in(tmp_path)}).stderr.decode()
    sentence = reason.split("move rejected: ", 1)[1].strip()
    assert sentence, reason
    git(player, "add", "moves")
    git(player, "commit", "--quiet", "-m", "turn 2", author="bob")
    git(player, "push", "--quiet", "origin", "main")
    refused = job(clone, keys, identity)
    assert refused.returncode == 1
    output = refused.stdout + refused.stderr
    assert "turn 2 by bob was refused; the reason is in refusals/turn-002-bob.txt.age" in output
    assert sentence not in output and "move rejected" not in output
    # The refused file was removed in the refusal's commit: the next job does not judge it
    # again (no second refusal, no red job for another player's push).
    again = job(clone, keys, identity)
    assert again.returncode == 0 and "0 move(s) applied" in again.stdout, again.stderr
    final = tmp_path / "final"
    git(tmp_path, "clone", "--quiet", str(origin), str(final))
    log = git(final, "log", "--format=%B")
    assert sentence not in log
    assert log.count("Refusal of moves/turn-002-bob.yaml") == 1
    assert not (final / "moves" / "turn-002-bob.yaml").exists()
    for path in final.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert sentence.encode() not in path.read_bytes(), path
    note = final / "refusals" / "turn-002-bob.txt.age"
    assert sentence.encode() in encryption.decrypt(note.read_bytes(), keys["bob"])
    with pytest.raises(Exception, match="not encrypted to"):
        encryption.decrypt(note.read_bytes(), keys["carol"])


def test_the_job_encrypts_views_to_the_keys_registered_in_the_record(tmp_path, origin, keys):
    """Without --key, git apply takes each player's key from the record (here registered with
    replace-player --key): the views are committed encrypted to them, each opened by its player
    alone; a game where a player has no registered key is refused before any move."""
    identity = tmp_path / "referee.key"
    identity.write_text(encryption.new_identity()[0])
    player = tmp_path / "player"
    git(tmp_path, "clone", "--quiet", str(origin), str(player))
    seed = {"REBIS_PBM_SEED": secret_in(tmp_path)}
    nobody = job_clone(tmp_path, origin, git(player, "rev-parse", "HEAD"), "nobody")
    refused = job(nobody, {}, identity)
    assert refused.returncode == 2 and "has none registered in the record" in refused.stderr
    for p, key in keys.items():
        done = run("replace-player", player / "game.yaml", "--player", p, "--key", f"{key}.pub",
                   env=seed)
        assert done.returncode == 0, done.stderr
    git(player, "add", "game.yaml")
    # The referee's change; the test's repository knows only players' identities.
    git(player, "commit", "--quiet", "-m", "the players' keys", author="alice")
    git(player, "push", "--quiet", "origin", "main")
    clone = push_sealed_first_move(tmp_path, origin, player,
                                   encryption.recipient_of(identity), keys["alice"])
    done = job(clone, {}, identity)
    assert done.returncode == 0, done.stdout + done.stderr
    git(player, "pull", "--quiet", "origin", "main")
    views = player / "game.views"
    for p, key in keys.items():
        assert f"viewer: {p}\n".encode() in encryption.decrypt(
            (views / f"{p}.yaml.age").read_bytes(), key)
