"""Players' commands as files in git (issue 28, item 1; docs/git.md, "Commands"): a player
commits ``commands/NAME-*.txt`` holding one command line, the job answers it in
``answers/NAME-*.txt`` (its player's language) and removes the file in the same commit; a file
committed by another player's address, or a keyed player's without its signature, is refused
and answered to the committer; an answer that shows the hand is committed only encrypted to the
player's key. Real repositories, the machine's git, ssh-keygen and age through the package."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_git_transport import (  # noqa: F401
    PLAYERS,
    REFEREE,
    git,
    job,
    repo,
    signed_game,
    tracked,
)

from rebis_pbm.app import decrypt_file
from transport_support import run

pytestmark = pytest.mark.skipif(not shutil.which("git"), reason="these tests need git")


def commit_command(top: Path, name: str, line: str, by: str, signature: bytes | None = None
                   ) -> None:
    path = top / "commands" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(line + "\n")
    if signature is not None:
        Path(f"{path}.sig").write_bytes(signature)
    git(top, "add", "commands")
    git(top, "commit", "--quiet", "-m", f"command {name}", author=(by, PLAYERS[by]))


def test_a_command_file_is_answered_in_answers_and_removed_in_the_same_commit(repo):  # noqa: F811
    before = (repo / "game.yaml").read_bytes()
    commit_command(repo, "alice-1.txt", "history", "alice")
    commit_command(repo, "bob-help.txt", "help", "bob")
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stderr
    assert "command history (alice); answered in answers/alice-1.txt" in done.stdout
    files = tracked(repo)
    assert "answers/alice-1.txt" in files and "answers/bob-help.txt" in files
    assert not any(p.startswith("commands/") for p in files)  # consumed, once
    history = (repo / "answers" / "alice-1.txt").read_text()
    assert history.startswith("the moves so far\n\nThe deal: ") and "turn 1" in history
    assert (repo / "answers" / "bob-help.txt").read_text().startswith("the commands\n")
    assert (repo / "game.yaml").read_bytes() == before  # no command changed the record
    log = git(repo, "log", "--format=%s", "-2").splitlines()
    assert log == ["Answer commands/bob-help.txt from bob@example.org",
                   "Answer commands/alice-1.txt from alice@example.org"]
    again = job(repo, "HEAD")  # judged once: nothing left to answer
    assert again.returncode == 0 and "command" not in again.stdout


def test_a_command_in_another_players_name_is_refused_and_answered_to_its_committer(repo):  # noqa: F811
    commit_command(repo, "alice-x.txt", "resign", "bob")
    before = (repo / "game.yaml").read_bytes()
    done = job(repo, "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "command file(s) refused, each answered in answers/" in done.stderr
    files = tracked(repo)
    assert "commands/alice-x.txt" not in files and "answers/bob-x.txt" in files
    assert "answers/alice-x.txt" not in files  # alice's answers are never bob's to write
    answer = (repo / "answers" / "bob-x.txt").read_text()
    assert answer.startswith("your command was not carried out")
    assert "Nothing in the game changed." in answer
    assert (repo / "game.yaml").read_bytes() == before


def test_a_bad_line_is_refused_like_a_bad_move(repo):  # noqa: F811
    commit_command(repo, "carol-1.txt", "turn: 3", "carol")
    done = job(repo, "HEAD")
    assert done.returncode == 1
    assert "its first line is no command" in (repo / "answers" / "carol-1.txt").read_text()


def test_moves_without_a_key_never_commits_the_hand(repo):  # noqa: F811
    commit_command(repo, "alice-m.txt", "moves", "alice")
    done = job(repo, "HEAD")
    assert done.returncode == 0, done.stderr
    answer = (repo / "answers" / "alice-m.txt").read_text()
    assert "This answer shows your hand" in answer and "play:" not in answer
    commit_command(repo, "alice-v.txt", "view", "alice")
    assert job(repo, "HEAD").returncode == 0
    view = (repo / "answers" / "alice-v.txt").read_text()
    assert "This answer shows your hand" in view and "Your hand" not in view


def test_a_keyed_players_command_is_signed_and_the_hand_encrypted_to_them(tmp_path):
    repo, key_file, keygen, _state = signed_game(tmp_path)  # noqa: F811

    def sign(line: str) -> bytes:
        return subprocess.run([keygen, "-q", "-Y", "sign", "-f", str(key_file), "-n",
                               "rebis-pbm"], input=(line + "\n").encode(), capture_output=True,
                              check=True).stdout

    commit_command(repo, "alice-1.txt", "moves gitgame", "alice")  # no signature
    unsigned = job(repo, "HEAD")
    assert unsigned.returncode == 1
    assert "registered a key, so their commands must be signed" in \
        (repo / "answers" / "alice-1.txt").read_text()
    commit_command(repo, "alice-2.txt", "moves gitgame", "alice", sign("moves gitgame"))
    signed = job(repo, "HEAD")
    assert signed.returncode == 0, signed.stderr
    files = tracked(repo)
    assert "answers/alice-2.txt.age" in files and "answers/alice-2.txt" not in files
    assert "commands/alice-2.txt.sig" not in files  # its signature goes with it
    plain = decrypt_file(repo / "answers" / "alice-2.txt.age", key_file).decode()
    assert plain.startswith("your legal moves\n\nYour legal moves: ")
    assert run("verify", repo / "game.yaml").returncode == 0
