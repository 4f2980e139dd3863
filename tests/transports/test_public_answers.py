"""The answers to command files in a public repository (the thirteenth tester's finding 1;
docs/git.md, "Commands"; docs/formats.md, "Padding of encrypted files"): the answer to
``moves`` was the listing of the player's legal moves, encrypted but padded only to a multiple
of 16 KiB, and the listing's length grows with how many distinct and closing cards the hand
holds, so that a spectator measuring the public ``answers/NAME-*.txt.age`` learned about the
hand. The attack is performed on a real public game (bare origin, each player's clone, the
referee's job as CI runs it): every player asks for ``moves``, ``view``, ``help`` and
``history`` at two turns (other hands), one command is refused; the spectator measures every
answer file as the tester did. Every answer of the game has one length; ``moves`` answers with
how to list the moves from one's own view, never with the listing."""

from __future__ import annotations

import shutil

import pytest
from test_git_commands import commit_command
from test_git_job import git
from test_padding import body_length, plaintext_length
from test_public_game import GAME_ID, job, my_view, send, set_up, status

from rebis_pbm.bots import GreedyBot
from rebis_pbm.crypto import age as encryption
from sshkeys import ssh_sign
from transport_support import PLAYERS, run

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("ssh-keygen")),
                                reason="needs git and ssh-keygen (Debian: git, openssh-client)")


def ask(table, name: str, words: str, line: str, signed: bool = True) -> str:
    """``name`` commits the command file ``commands/NAME-WORDS.txt`` holding ``line`` (signed
    with their key unless not ``signed``) from their clone and pushes; returns the answer's
    path."""
    clone = table.clone(name)
    git(clone, "pull", "--quiet", "--ff-only", "origin", "main")
    signature = ssh_sign(table.keys[name], (line + "\n").encode()) if signed else None
    commit_command(clone, f"{name}-{words}.txt", line, name, signature)
    git(clone, "push", "--quiet", "origin", "main")
    return f"answers/{name}-{words}.txt.age"


def test_every_answer_of_a_public_game_has_one_length_whatever_the_hand_and_the_command(
        tmp_path):
    table = set_up(tmp_path)
    asked: dict[str, tuple[str, str]] = {}  # answer path -> (player, command)
    listings: list[int] = []  # the length of each mover's listing (positive control)
    for turn in (1, 2):
        mover = status(table, "alice")["player"]
        seen = table.private(mover) / "view.yaml"
        my_view(table, mover)  # (writes the mover's decrypted view there)
        listed = run("moves", "--view", seen)
        assert listed.returncode == 0, listed.stderr
        listings.append(len(listed.stdout))
        for name in PLAYERS:
            for command in ("moves", "view"):
                path = ask(table, name, f"{command}-{turn}", f"{command} {GAME_ID}")
                asked[path] = (name, command)
        for command in ("help", "history"):
            asked[ask(table, "alice", f"{command}-{turn}", f"{command} {GAME_ID}")] = (
                "alice", command)
        asked[ask(table, "carol", f"refused-{turn}", f"history {GAME_ID}", signed=False)] = (
            "carol", "refusal")
        done = job(table)
        assert done.returncode == 1, done.stdout + done.stderr  # (the one refusal)
        assert "1 command file(s) refused" in done.stderr
        move = {"game": GAME_ID, **GreedyBot().choose(my_view(table, mover).state).as_dict()}
        send(table, mover, move)
        assert job(table).returncode == 0
    assert len(set(listings)) > 1  # the listings tell hands apart: a listing-sized answer would
    spectator = tmp_path / "spectator"
    git(tmp_path, "clone", "--quiet", str(table.origin), str(spectator))
    answers = sorted(p.relative_to(spectator).as_posix()
                     for p in (spectator / "answers").iterdir())
    assert answers == sorted(asked)  # every answer encrypted, none in plain text
    sizes = {path: body_length((spectator / path).read_bytes()) for path in answers}
    assert len(set(sizes.values())) == 1, sizes  # the length attack learns nothing
    assert {plaintext_length((spectator / p).read_bytes()) for p in answers} == {16 * 1024}
    for path, (name, command) in asked.items():
        text = encryption.decrypt((spectator / path).read_bytes(), table.keys[name]).decode()
        if command == "moves":  # never the listing: how to list them from one's view
            assert text.startswith("your legal moves\n\nYour legal moves are not listed here")
            assert "rebis-pbm play VIEW" in text and "play:" not in text
        elif command == "view":  # the positive control: the answer does hold the hand
            assert text.startswith("your view\n\n") and "Your hand: " in text
        elif command == "refusal":
            assert "must be signed" in text
