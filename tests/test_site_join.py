"""The game page before the deal (issue 28, the faults: ``site`` exited 4, internal error, in a
fair deal's join phase, so the example workflow's pages job failed on every push of it): the
page shows who joined, whom the deal waits for and the deadline, in en, fr and pt, from the
record alone (the pages job has no seed), and no secret."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from transport_support import exe, run

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "git" / ".github" / "workflows" / "rebis-referee.yml"
PAGES = {"en": ("Sent their commitment: ana.", "The deal waits for: bob, cy.",
                "Deadline for the joins: ", "Round 1 of 2"),
         "fr": ("Engagement envoyé\u00a0: ana.", "La distribution attend\u00a0: bob, cy.",
                "Échéance des inscriptions\u00a0: ", "Tour 1 sur 2"),
         "pt": ("Compromisso enviado: ana.", "A distribuição aguarda: bob, cy.",
                "Prazo das inscrições: ", "Ronda 1 de 2")}


def send(game: Path, player: str, text: str) -> None:
    join_file = game.parent / f"join-{player}.yaml"
    join_file.write_text(text)
    applied = run("apply", game, join_file, "--as", player)
    assert applied.returncode == 0, applied.stderr
    join_file.unlink()


def commit(game: Path, player: str) -> None:
    """``player``'s round-1 commitment (rebis-pbm/5, docs/shuffle.md "Two rounds"), made the
    plain way: SHA-256 of the documented encoding of their join text."""
    from rebis_pbm.record.commitments import commitment_of

    send(game, player, f"game: fairjoin\nplayer: {player}\n"
                       f"commitment: {commitment_of('fairjoin', player, player + ' words')}\n")


def join(game: Path, player: str) -> None:
    """``player``'s round-2 join: the text they committed to (unsigned, so ``after:`` may be
    left out)."""
    send(game, player, f"game: fairjoin\nplayer: {player}\njoin: {player} words\n")


def pages_step() -> str:
    """The command of the example workflow's pages job that writes the page."""
    flow = yaml.safe_load(WORKFLOW.read_text())
    [step] = [s for s in flow["jobs"]["pages"]["steps"] if s.get("name") == "Write the game page"]
    return step["run"]


@pytest.fixture
def joining(tmp_path) -> Path:
    """A fair deal of three with a deadline, ana joined, bob and cy awaited; the secret file
    moved away (the pages job has no seed)."""
    game = tmp_path / "repo" / "game.yaml"
    game.parent.mkdir()
    made = run("new", game, "--game-id", "fairjoin", "--player", "ana", "--player", "bob",
               "--player", "cy", "--deadline", "72h")
    assert made.returncode == 0, made.stderr
    commit(game, "ana")
    shutil.move(game.parent / "game.secret.yaml", tmp_path / "referee-only.secret.yaml")
    return game


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_the_pages_job_on_a_join_phase_writes_the_join_page_and_no_secret(joining, lang):
    command = pages_step() + ("" if lang == "en" else f" --lang {lang}")
    env_path = f"{Path(exe()).parent}:/usr/bin:/bin"
    done = subprocess.run(["sh", "-c", command], cwd=joining.parent, capture_output=True,
                          text=True, env={"PATH": env_path, "HOME": str(joining.parent)},
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    written = sorted(p.name for p in (joining.parent / "site").iterdir())
    assert written == ["index.html"]
    page = (joining.parent / "site" / "index.html").read_text()
    joined, waiting, deadline, round_ = PAGES[lang]
    assert joined in page and waiting in page and deadline in page and round_ in page
    assert "Verified as far as possible without the seed" in page  # verify speaks English
    secret = yaml.safe_load((joining.parent.parent / "referee-only.secret.yaml").read_text())
    for value in secret.values():
        if isinstance(value, str) and len(value) > 8:
            assert value not in page


def test_the_page_after_the_deal_is_the_game_page(joining):
    shutil.copy(joining.parent.parent / "referee-only.secret.yaml",
                joining.parent / "game.secret.yaml")
    commit(joining, "bob")
    commit(joining, "cy")
    join(joining, "ana")
    done = run("site", joining, "--out", joining.parent / "site")
    assert done.returncode == 0, done.stderr
    page = (joining.parent / "site" / "index.html").read_text()
    assert "Round 2 of 2" in page and "Joined: ana." in page
    assert "The deal waits for: bob, cy." in page
    join(joining, "bob")
    join(joining, "cy")
    done = run("site", joining, "--out", joining.parent / "site")
    assert done.returncode == 0, done.stderr
    assert (joining.parent / "site" / "turn-000.svg").exists()
