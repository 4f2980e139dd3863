"""Regenerate examples/: a complete 3-player game (Zero off) played through the CLI.

Moves are chosen by the greedy bot (rebis_pbm.bots: one ply, own score minus the others'), from
each mover's information set; each is written as a move file in examples/moves/ and applied
with `rebis-pbm apply`, exactly as a referee would. Run from the repository root:
python scripts/make-example.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rebis_pbm.app import open_game
from rebis_pbm.bots import GreedyBot
from rebis_pbm.engine import information_set
from rebis_pbm.formats.yaml_writer import dump_yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SEED = "rebis-pbm example game"
PLAYERS = ("alice", "bob", "carol")


def main() -> None:
    game = EXAMPLES / "game.yaml"
    # .game.yaml.lock: left by earlier versions, which kept the lock file (now deleted after use).
    for path in (game, EXAMPLES / "game.secret.yaml", EXAMPLES / ".game.yaml.lock"):
        path.unlink(missing_ok=True)
    shutil.rmtree(EXAMPLES / "game.views", ignore_errors=True)
    shutil.rmtree(EXAMPLES / "moves", ignore_errors=True)
    (EXAMPLES / "moves").mkdir()
    cli = [sys.executable, "-m", "rebis_pbm.cli"]
    args = [a for p in PLAYERS for a in ("--player", p)]
    subprocess.run([*cli, "new", str(game), *args, "--seed", SEED, "--game-id", "example"],
                   check=True)
    while True:
        record, replay, _ = open_game(game)
        state = replay.state
        if state.finished:
            break
        move = GreedyBot().choose(information_set(state, state.to_move))
        path = EXAMPLES / "moves" / f"turn-{move.turn:03d}-{move.player}.yaml"
        path.write_text(dump_yaml({"game": record.game, **move.as_dict()}))
        subprocess.run([*cli, "apply", str(game), str(path)], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*cli, "score", str(game)], check=True)


if __name__ == "__main__":
    main()
