"""Rebuild examples/game.yaml and examples/game.views/ in today's record format, from the
example's own moves (examples/moves/) and secret (examples/game.secret.yaml: its seed and salt).

`scripts/make-example.py` plays a new example game (a new salt, new moves); this keeps the game
and rewrites what a format change changes (the commitment, the digests, the views' witnesses).
The record is built as `apply` builds it, move by move. Run from the repository root with the
package installed: python scripts/rebuild-example.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

from rebis_pbm import app as referee
from rebis_pbm.engine import Move, Ruleset, apply_move, setup
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.record import FORMAT, Record, commitment, dump_record, salted

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLAYERS = ("alice", "bob", "carol")


def main() -> None:
    secret = load_yaml((EXAMPLES / "game.secret.yaml").read_bytes(), source="game.secret.yaml",
                       kind="secret").data
    key = salted(secret["seed"], secret["salt"])
    moves = [Move.from_dict(load_yaml(f.read_bytes(), source=str(f), kind="move").data)
             for f in sorted((EXAMPLES / "moves").glob("turn-*.yaml"))]
    record = Record(secret["game"], Ruleset(), PLAYERS, commitment(FORMAT, key), format=FORMAT)
    state, _ = setup(record.ruleset, PLAYERS, secret["seed"])
    for move in moves:
        state, events = apply_move(state, move)
        record = record.with_move(move, state, key, events)
        if state.finished:
            record = record.revealed(key)
    game = EXAMPLES / "game.yaml"
    game.write_text(dump_record(record, state, key), encoding="utf-8")
    shutil.rmtree(EXAMPLES / "game.views")
    game_read = referee.open_game(game)
    referee.write_views(EXAMPLES / "game.views", game_read.record, game_read.replay)


if __name__ == "__main__":
    main()
