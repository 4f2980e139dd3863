"""A record's repr says which game and how far, in one short line: the generated repr of its
every field would print the whole game, digests and all (and cost its compile at every start)."""

from __future__ import annotations

import re

from clitools import EXAMPLES
from rebis_pbm import app as referee


def test_a_record_s_repr_names_the_game_and_counts_its_moves():
    record = referee.open_game(EXAMPLES / "game.yaml").record
    shown = repr(record)
    assert shown == (f"Record(game={record.game!r}, format={record.format!r}, "
                     f"players={record.players!r}, moves={len(record.moves)})")
    assert len(record.moves) > 0 and not re.search(r"[0-9a-f]{64}", shown)
