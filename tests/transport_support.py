"""Helpers shared by the transport tests (mail and git): the console script, a small game, and
a player who picks legal moves (with the seed: the tests act as every player in turn)."""

from __future__ import annotations

import atexit
import functools
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rebis_pbm.engine import apply_move, legal_moves
from rebis_pbm.engine import events as ev

REPO = Path(__file__).resolve().parent.parent
PLAYERS = {"alice": "alice@example.org", "bob": "bob@example.org", "carol": "carol@example.org"}
REFEREE = "referee@example.org"
# A short but complete game: small shelves and few tokens, so that three closings end it (R11)
# and the red token is placed (R12): 10 turns with the seeds below and pick_move.
SMALL_RULES = ("--rule", "shelf_limit=5", "--rule", "golden_dust=2", "--rule", "gold=1")


@functools.cache
def exe() -> str:
    """The installed console script ``rebis-pbm`` (beside this Python first, then on PATH).

    In a checkout where it is not installed (``python -m pytest`` without ``make test``), a
    stand-in script of that name runs ``python -m rebis_pbm`` from this checkout, so that the
    subprocess tests, and the git job script that calls ``rebis-pbm``, still run.
    """
    here = Path(sys.executable).with_name("rebis-pbm")
    found = str(here) if here.exists() else shutil.which("rebis-pbm")
    if found:
        return found
    folder = Path(tempfile.mkdtemp(prefix="rebis-pbm-bin-"))
    atexit.register(shutil.rmtree, folder, True)
    script = folder / "rebis-pbm"
    script.write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(REPO))}'
                      '${PYTHONPATH:+:$PYTHONPATH} '
                      f'exec {shlex.quote(sys.executable)} -m rebis_pbm "$@"\n')
    script.chmod(0o755)
    return str(script)


def run(*args, cwd=None, env=None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run ``rebis-pbm ARGS`` as a user would; output as text."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([exe(), *map(str, args)], cwd=cwd, env=full_env, input=stdin,
                          capture_output=True, timeout=120)


def secret_key(secret_file: Path) -> str:
    """What ``REBIS_PBM_SEED`` holds for the game of ``secret_file``: its secret, ``SALT:SEED``
    for a rebis-pbm/2 game (the seed alone for rebis-pbm/1)."""
    from rebis_pbm.formats.yaml_reader import load_yaml
    from rebis_pbm.record import salted
    doc = load_yaml(secret_file.read_bytes(), source=str(secret_file), kind="secret").data
    return salted(doc["seed"], doc["salt"]) if "salt" in doc else doc["seed"]


def new_args(game: Path, seed: str, game_id: str, players=PLAYERS) -> list:
    """``rebis-pbm new`` arguments for a small game of ``players`` (name -> address or None)."""
    args = ["new", game, "--insecure-seed", "--referee-deal", "--seed", seed, "--game-id", game_id,
            *SMALL_RULES]
    for name, address in players.items():
        args += ["--player", f"{name}={address}" if address else name]
    return args


def closes(state, move) -> bool:
    _, events = apply_move(state, move)
    return any(isinstance(e, ev.Closed) for e in events)


def pick_move(state):
    """A legal move that closes a shelf every third turn and otherwise does not (when it can),
    so that games are short but long enough for each player to move several times."""
    moves = legal_moves(state)
    want = state.turn % 3 == 0
    return next((m for m in moves if closes(state, m) == want), moves[0])


def illegal_card(state) -> int:
    """A card number the player to move does not hold (so playing it breaks R7/R8)."""
    hand = state.hands[state.to_move]
    return next(n for n in range(9, 0, -1) if n not in hand)
