"""Benchmarks of rebis-pbm: `make bench` (not part of `make test`). Prints, in one run:

1. the import floor: wall time and peak RSS of ``python -c "import yaml, jsonschema, click"``;
2. wall time and peak RSS of ``apply``, ``view``, ``moves`` and ``verify`` (when this version
   has it) on a 4-player game played to its end by bots, as ratios to the floor;
3. ``apply`` wall time against the record's length (10, 50, 100, 200 recorded moves);
4. engine speed: turns per second of games whose every move is drawn uniformly from the legal
   moves, on one core, and the same through ``rebis-pbm simulate``.

Only public tools: ``time.perf_counter`` for wall time, ``os.wait4`` for the child's own CPU
time (user + system) and peak RSS (``ru_maxrss``). Each command runs ``--repeat`` times (default
15) after one warm-up run; medians are reported, with the fastest wall time beside it. Ratios
are given for wall time and for CPU time: on a shared machine, other processes stretch wall
times, while CPU times stay put. Run with the Python of the
environment to measure (``make bench`` uses .venv/bin/python, where rebis-pbm is installed).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rebis_pbm.bots import make_bot
from rebis_pbm.engine import Ruleset, apply_move, information_set, legal_moves, setup
from rebis_pbm.record import Record, dump_record, dump_secret, seed_commitment
from rebis_pbm.yamlio import dump_yaml

FLOOR = [sys.executable, "-c", "import yaml, jsonschema, click"]
PLAYERS = ("alice", "bob", "carol", "dave")
LONG_RULESET = Ruleset(deck=tuple((n, 40) for n in range(1, 10)), golden_dust=99, gold=99)


def rebis_pbm() -> list[str]:
    found = Path(sys.executable).with_name("rebis-pbm")
    if found.exists():
        return [str(found)]
    return [shutil.which("rebis-pbm") or sys.exit("rebis-pbm is not installed beside "
                                                  f"{sys.executable}: run `make bench`")]


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, peak RSS in KiB, exit code) of one run of ``cmd``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


def measure(cmd: list[str], cwd: Path, repeat: int, prepare=None) -> dict:
    """Median and fastest wall time and the largest peak RSS over ``repeat`` runs (+1 warm-up).
    ``prepare()`` runs before each run, outside the timing (e.g. restore a record)."""
    walls, cpus, rss, codes = [], [], [], set()
    for i in range(repeat + 1):
        if prepare:
            prepare()
        wall, cpu, peak, code = run_once(cmd, cwd)
        codes.add(code)
        if i:
            walls.append(wall)
            cpus.append(cpu)
            rss.append(peak)
    return {"median": statistics.median(walls), "min": min(walls), "rss": max(rss),
            "cpu": statistics.median(cpus), "exit": sorted(codes)}


def figures(m: dict, floor: dict) -> str:
    """One command's figures: wall median (fastest) x ratio, CPU median x ratio."""
    wall = f"{m['median'] * 1000:6.1f} ms ({m['min'] * 1000:5.1f}) x{m['median'] / floor['median']:.2f}"
    return f"{wall}  cpu {m['cpu'] * 1000:6.1f} ms x{m['cpu'] / floor['cpu']:.2f}"


def bot_game(ruleset: Ruleset, seed: str, stop: int | None = None):
    """Moves of a 4-player game between a greedy and three random bots (``stop`` moves at most)."""
    state, _ = setup(ruleset, PLAYERS, seed)
    bots = [make_bot("greedy" if seat == 0 else "random", f"{seed}/{seat}") for seat in range(4)]
    moves = []
    while not state.finished and (stop is None or len(moves) < stop):
        move = bots[state.to_move].choose(information_set(state, state.to_move))
        state, _ = apply_move(state, move)
        moves.append(move)
    return moves


def write_game(folder: Path, ruleset: Ruleset, seed: str, moves, game_id: str) -> Path:
    """A record of ``moves`` with its seed sidecar and views, as `new` + `apply` leave them."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "game.yaml"
    state, _ = setup(ruleset, PLAYERS, seed)
    record = Record(game_id, ruleset, PLAYERS, seed_commitment(seed))
    for move in moves:  # as apply does: digests, seals, and the seed revealed at the end
        state, events = apply_move(state, move)
        record = record.with_move(move, state, seed, events)
    if state.finished:
        record = record.revealed(seed)
    path.write_text(dump_record(record, state))
    (folder / "game.secret.yaml").write_text(dump_secret(game_id, seed))
    return path


def move_file(folder: Path, game_id: str, move) -> Path:
    path = folder / "move.yaml"
    path.write_text(dump_yaml({"game": game_id, **move.as_dict()}))
    return path


def engine_turns_per_second(games: int, players: int, seed: int = 1) -> tuple[float, float]:
    """(turns per CPU second, turns per wall second) of uniformly random games played by the
    engine alone, in this process (one core): setup, legal_moves, a uniform choice, apply_move."""
    rng = random.Random(seed)
    ruleset = Ruleset()
    turns = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for g in range(games):
        state, _ = setup(ruleset, PLAYERS[:players], f"engine/{g}")
        while not state.finished:
            state, _ = apply_move(state, rng.choice(legal_moves(state)))
            turns += 1
    return turns / (time.process_time() - cpu), turns / (time.perf_counter() - wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per command")
    parser.add_argument("--games", type=int, default=600, help="games per engine measurement")
    args = parser.parse_args()
    exe = rebis_pbm()
    print(f"rebis-pbm benchmarks: Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores; {args.repeat} runs per figure, median (fastest).")

    with tempfile.TemporaryDirectory(prefix="rebis-bench-") as tmp:
        root = Path(tmp)
        floor = measure(FLOOR, root, args.repeat)
        print(f"\nImport floor (python -c 'import yaml, jsonschema, click'): "
              f"wall {floor['median'] * 1000:.1f} ms ({floor['min'] * 1000:.1f}), "
              f"cpu {floor['cpu'] * 1000:.1f} ms, peak RSS {floor['rss'] / 1024:.1f} MiB")

        # A finished 4-player game; apply plays its last move on the record of all the others.
        moves = bot_game(Ruleset(), "bench")
        finished = write_game(root / "finished", Ruleset(), "bench", moves, "bench")
        before = write_game(root / "before", Ruleset(), "bench", moves[:-1], "bench")
        saved = before.read_bytes()
        last = move_file(root, "bench", moves[-1])
        to_move = moves[-1].player

        def restore() -> None:
            before.write_bytes(saved)

        rows = [
            (f"apply (last move, {len(moves) - 1} recorded)",
             [*exe, "apply", str(before), str(last)], restore),
            (f"view --player alice --format text ({len(moves)} moves)",
             [*exe, "view", str(finished), "--player", "alice"], None),
            (f"moves --player {to_move} (before the last move)",
             [*exe, "moves", str(before), "--player", to_move], restore),
            ("verify", [*exe, "verify", str(finished)], None),
        ]
        print(f"\nCommands on a 4-player game of {len(moves)} moves: wall median (fastest) "
              f"x ratio to the floor, cpu median x ratio, peak RSS x ratio:")
        for label, cmd, prepare in rows:
            if cmd[len(exe)] == "verify" and subprocess.run(
                    [*exe, "verify", "--help"], capture_output=True).returncode != 0:
                print(f"  {label:48s} not in this version of rebis-pbm")
                continue
            m = measure(cmd, root, args.repeat, prepare)
            status = "" if m["exit"] == [0] else f"  (exit {m['exit']})"
            print(f"  {label:44s} {figures(m, floor)}  RSS {m['rss'] / 1024:4.1f} MiB "
                  f"x{m['rss'] / floor['rss']:.2f}{status}")

        print("\napply against record length (larger deck and token supply so that a game lasts "
              "200 moves):")
        long_moves = bot_game(LONG_RULESET, "long", stop=201)
        for length in (10, 50, 100, 200):
            folder = root / f"long{length}"
            path = write_game(folder, LONG_RULESET, "long", long_moves[:length], "long")
            data = path.read_bytes()
            nxt = move_file(folder, "long", long_moves[length])
            m = measure([*exe, "apply", str(path), str(nxt)], folder, args.repeat,
                        lambda p=path, d=data: p.write_bytes(d))
            print(f"  {length:3d} recorded moves: {figures(m, floor)}")

    print("\nEngine, uniformly random legal moves, one core (best of 3 runs of "
          f"{args.games} games):")
    for players in (2, 3, 4):
        runs = [engine_turns_per_second(args.games, players) for _ in range(3)]
        print(f"  {players} players: {max(r[0] for r in runs):9,.0f} turns per CPU second, "
              f"{max(r[1] for r in runs):9,.0f} per wall second")
    sim = subprocess.run([*exe, "simulate", "--games", str(args.games), "--players", "4",
                          "--seed", "bench", "--format", "json"], capture_output=True, text=True)
    if sim.returncode == 0:
        import json

        timing = json.loads(sim.stdout)["timing"]
        print(f"  rebis-pbm simulate --games {args.games} --players 4 (random bots, every game "
              f"checked and replayed): {timing['turns_per_second']:,.0f} turns/s, "
              f"{timing['games_per_second']:,.1f} games/s")


if __name__ == "__main__":
    main()
