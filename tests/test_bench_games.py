"""The benchmarks' games are real games: bench/run.py and bench/compare.py write records as
`new` and `apply` leave them, in every format this version reads, and the commands they time
read them. No timing here (docs/performance.md): this only keeps the benchmarks runnable, which
they stopped being once when the record format changed under them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rebis_pbm import app as referee
from rebis_pbm.engine import Ruleset
from rebis_pbm.record import FORMATS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import run as bench  # bench/ is not a package: its folder is on sys.path (above)


@pytest.fixture(scope="module")
def moves():
    return bench.bot_game(Ruleset(), "bench")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_bench_game_reads_and_replays_in_every_format(tmp_path, moves, fmt):
    path = bench.write_game(tmp_path, Ruleset(), "bench", moves, "bench", bench.ADDRESSES, fmt)
    game = referee.open_game(path)
    assert game.record.format == fmt
    assert len(game.record.moves) == len(moves)
    assert game.replay.state.finished
    assert game.record.seed is not None  # a finished game reveals its seed


def test_the_bench_game_before_its_last_move_takes_that_move(tmp_path, moves):
    path = bench.write_game(tmp_path, Ruleset(), "bench", moves[:-1], "bench", bench.ADDRESSES)
    move = bench.move_file(tmp_path, "bench", moves[-1])
    submitted = referee.submit_move(path, move.read_bytes(), str(move))
    assert not submitted.duplicate and submitted.move == moves[-1]
    assert len(referee.open_game(path).record.moves) == len(moves)
    assert referee.open_game(path).replay.state.finished
