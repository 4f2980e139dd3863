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
PAGES = {"en": ("Joined: ana.", "The deal waits for: bob, cy.", "Deadline for the joins: "),
         "fr": ("Inscrits\u00a0: ana.", "La distribution attend\u00a0: bob, cy.",
                "Échéance des inscriptions\u00a0: "),
         "pt": ("Inscritos: ana.", "A distribuição aguarda: bob, cy.",
                "Prazo das inscrições: ")}


def join(game: Path, player: str) -> None:
    """``player`` joins the fair deal as the guide says (the one way joins happen here):
    ``moves --player`` writes their join, ``apply`` enters it."""
    made = run("moves", game, "--player", player)
    assert made.returncode == 0, made.stderr
    join_file = game.parent / f"join-{player}.yaml"
    join_file.write_bytes(made.stdout)
    applied = run("apply", game, join_file, "--as", player)
    assert applied.returncode == 0, applied.stderr
    join_file.unlink()


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
    join(game, "ana")
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
    joined, waiting, deadline = PAGES[lang]
    assert joined in page and waiting in page and deadline in page
    assert "Verified as far as possible without the seed" in page  # verify speaks English
    secret = yaml.safe_load((joining.parent.parent / "referee-only.secret.yaml").read_text())
    for value in secret.values():
        if isinstance(value, str) and len(value) > 8:
            assert value not in page


def test_the_page_after_the_deal_is_the_game_page(joining):
    shutil.copy(joining.parent.parent / "referee-only.secret.yaml",
                joining.parent / "game.secret.yaml")
    join(joining, "bob")
    join(joining, "cy")
    done = run("site", joining, "--out", joining.parent / "site")
    assert done.returncode == 0, done.stderr
    assert (joining.parent / "site" / "turn-000.svg").exists()
