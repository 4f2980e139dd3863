"""Compare installed versions of rebis-pbm, run in turns: ``python bench/compare.py A B ...``
where A, B are ``rebis-pbm`` console scripts (e.g. ``/tmp/before/bin/rebis-pbm
.venv/bin/rebis-pbm``), each installed in its own virtual environment.

On the 4-player game of ``bench/run.py``, each round runs the import floor once, then ``apply``,
``view`` and ``moves`` with every version given, in alternating order from one round to the
next, so that all versions see the same load of a shared machine; then ``apply`` and ``verify``
on records of 10 and 200 moves (``run.LONG_RULESET``), for each version's growth per recorded
move. Prints the median CPU time (user + system, ``os.wait4``) of each over ``--repeat`` rounds
after one warm-up round, and its ratio to the floor's; the growth in ms and in thousandths of the
floor (the machine-independent figure: issue 16 asked for 0.15 ms where the floor took 78 ms,
1.9 thousandths). A difference of one millisecond shows with 21 rounds or more.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from run import (
    ISSUE_FLOOR_MS,
    ISSUE_GROWTH_MS,
    LONG_RULESET,
    Ruleset,
    bot_game,
    move_file,
    write_game,
)
from timing import FLOOR, run_once

LENGTHS = (10, 200)  # recorded moves of the records the growth is measured on


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scripts", nargs="+", metavar="REBIS_PBM", help="rebis-pbm scripts")
    parser.add_argument("--repeat", type=int, default=21, help="timed rounds")
    args = parser.parse_args()
    args.scripts = [os.path.abspath(exe) for exe in args.scripts]  # run from a temporary folder
    with tempfile.TemporaryDirectory(prefix="rebis-compare-") as tmp:
        root = Path(tmp)
        moves = bot_game(Ruleset(), "bench")
        # Format 1: the one every version reads.
        finished = write_game(root / "finished", Ruleset(), "bench", moves, "bench",
                              fmt="rebis-pbm/1")
        before = write_game(root / "before", Ruleset(), "bench", moves[:-1], "bench",
                            fmt="rebis-pbm/1")
        saved = before.read_bytes()
        last = move_file(root, "bench", moves[-1])
        def restore_before() -> None:  # apply plays the last move on the same record
            before.write_bytes(saved)

        commands = {
            "apply": (lambda exe: [exe, "apply", str(before), str(last)], restore_before),
            "view": (lambda exe: [exe, "view", str(finished), "--player", "alice"], None),
            "moves": (lambda exe: [exe, "moves", str(before), "--player", moves[-1].player],
                      restore_before),
        }
        long_moves = bot_game(LONG_RULESET, "long", stop=201)
        for length in LENGTHS:
            path = write_game(root / f"long{length}", LONG_RULESET, "long",
                              long_moves[:length], "long", fmt="rebis-pbm/1")
            nxt = move_file(root / f"long{length}", "long", long_moves[length])

            def restore(p: Path = path, d: bytes = path.read_bytes()) -> None:
                p.write_bytes(d)

            commands[f"apply {length}"] = (
                lambda exe, p=path, n=nxt: [exe, "apply", str(p), str(n)], restore)
            commands[f"verify {length}"] = (lambda exe, p=path: [exe, "verify", str(p)], restore)
        cpu: dict = {("floor", None): []}
        for round_ in range(args.repeat + 1):
            floor = run_once(FLOOR, root)[1]
            if round_:
                cpu[("floor", None)].append(floor)
            for name, (command, restore) in commands.items():
                for exe in args.scripts if round_ % 2 else reversed(args.scripts):
                    if restore is not None:
                        restore()
                    _, seconds, _, code = run_once(command(exe), root)
                    if code != 0:
                        sys.exit(f"{exe} {name} failed (exit {code})")
                    if round_:
                        cpu.setdefault((name, exe), []).append(seconds)
    floor = statistics.median(cpu[("floor", None)])
    print(f"CPU time, median of {args.repeat} rounds; import floor {floor * 1000:.1f} ms")
    for name in commands:
        for exe in args.scripts:
            median = statistics.median(cpu[(name, exe)])
            print(f"  {name:10s} {median * 1000:6.1f} ms x{median / floor:.3f}  {exe}")
    short, long = LENGTHS
    print(f"Growth per recorded move ({short} -> {long} moves), in ms and in thousandths of the "
          f"floor (target: at most {ISSUE_GROWTH_MS / ISSUE_FLOOR_MS * 1000:.2f} thousandths, "
          f"{ISSUE_GROWTH_MS} ms at a {ISSUE_FLOOR_MS} ms floor):")
    for name in ("apply", "verify"):
        for exe in args.scripts:
            growth = (statistics.median(cpu[(f"{name} {long}", exe)])
                      - statistics.median(cpu[(f"{name} {short}", exe)])) / (long - short)
            print(f"  {name:6s} {growth * 1000:6.3f} ms  {growth / floor * 1000:5.2f} "
                  f"thousandths  {exe}")


if __name__ == "__main__":
    main()
