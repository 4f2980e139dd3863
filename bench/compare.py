"""Compare installed versions of rebis-pbm, run in turns: ``python bench/compare.py A B ...``
where A, B are ``rebis-pbm`` console scripts (e.g. ``/tmp/before/bin/rebis-pbm
.venv/bin/rebis-pbm``), each installed in its own virtual environment.

On the 4-player game of ``bench/run.py``, each round runs the import floor once, then ``apply``,
``view`` and ``moves`` with every version given, in alternating order from one round to the
next, so that all versions see the same load of a shared machine. Prints the median CPU time
(user + system, ``os.wait4``) of each over ``--repeat`` rounds after one warm-up round, and its
ratio to the floor's. A difference of one millisecond shows with 21 rounds or more.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from run import FLOOR, Ruleset, bot_game, move_file, run_once, write_game


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
        commands = {
            "apply": lambda exe: [exe, "apply", str(before), str(last)],
            "view": lambda exe: [exe, "view", str(finished), "--player", "alice"],
            "moves": lambda exe: [exe, "moves", str(before), "--player", moves[-1].player],
        }
        cpu: dict = {("floor", None): []}
        for round_ in range(args.repeat + 1):
            floor = run_once(FLOOR, root)[1]
            if round_:
                cpu[("floor", None)].append(floor)
            for name, command in commands.items():
                for exe in args.scripts if round_ % 2 else reversed(args.scripts):
                    before.write_bytes(saved)  # apply plays the last move on the same record
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
            print(f"  {name:6s} {median * 1000:6.1f} ms x{median / floor:.3f}  {exe}")


if __name__ == "__main__":
    main()
