"""Regenerate examples/: a complete 3-player game (Zero off) played through the CLI.

Moves are chosen by a simple one-ply heuristic (own score gain minus the others' gain); each is
written as a move file in examples/moves/ and applied with `rebis-pbm apply`, exactly as a referee
would. Run from the repository root: python scripts/make-example.py
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rebis_pbm.cli import load_game
from rebis_pbm.engine import apply_move, legal_moves, score_table
from rebis_pbm.yamlio import dump_yaml

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SEED = "rebis-pbm example game"
PLAYERS = ("alice", "bob", "carol")


def choose(state, mover):
    def gain(move):
        after, _ = apply_move(state, move)
        totals = [p.total for p in score_table(after)]
        return 2 * totals[mover] - sum(totals)
    return max(legal_moves(state), key=gain)


def main() -> None:
    game = EXAMPLES / "game.yaml"
    for path in (game, EXAMPLES / "game.secret.yaml"):
        path.unlink(missing_ok=True)
    shutil.rmtree(EXAMPLES / "game.views", ignore_errors=True)
    shutil.rmtree(EXAMPLES / "moves", ignore_errors=True)
    (EXAMPLES / "moves").mkdir()
    cli = [sys.executable, "-m", "rebis_pbm.cli"]
    args = [a for p in PLAYERS for a in ("--player", p)]
    subprocess.run([*cli, "new", str(game), *args, "--seed", SEED, "--game-id", "example"],
                   check=True)
    while True:
        record, replay = load_game(game)
        state = replay.state
        if state.finished:
            break
        move = choose(state, state.to_move)
        path = EXAMPLES / "moves" / f"turn-{move.turn:03d}-{move.player}.yaml"
        path.write_text(dump_yaml({"game": record.game, **move.as_dict()}))
        subprocess.run([*cli, "apply", str(game), str(path)], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*cli, "score", str(game)], check=True)


if __name__ == "__main__":
    main()
