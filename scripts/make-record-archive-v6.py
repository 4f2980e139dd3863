"""Add to the record archive tests/records/ a game in the record format rebis-pbm/6 (the signed
witness counts the referee's logged actions), written by the version that writes that format,
before a later one appears.

The companion of scripts/make-record-archive-v5.py, whose game it plays with more options, and
of make-record-archive-v2.py and -v4.py, whose helpers (and rules) it uses: run ONCE, by the
version that writes the format; never regenerate. It refuses to write into a folder that already
holds its files:

    .venv/bin/python scripts/make-record-archive-v6.py                      # adds to tests/records/
    .venv/bin/python scripts/make-record-archive-v6.py --out /tmp/records   # a copy, to compare

v6-referee-acts: v5-fair-deal's game (alice, bob and carol, each with their key of
tests/records/keys/ registered at `new`, a fair deal in two rounds, every commitment, join and
move signed, every move chosen by `rebis-pbm bot --strategy greedy --seed NAME/N`), plus
`--referee-key keys/referee` (given as REBIS_PBM_REFEREE_KEY afterwards: the referee signs
every witness and act) and `--deadline 72h`, every command given its time with `--now` (a clock
that moves one hour a command). Before turn 5 the referee logs `extend --by 24h` (a signed act
between moves) and on turn 8 moves for the player at their request (`move-for`, a stand-in move
the referee signs); the game is played to its end, so the record's signed witness line ends with
`, actions K`, K >= 1. Everything through the installed console script and the real ssh-keygen.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


v4 = _load("make_record_archive_v4", "make-record-archive-v4.py")
v5 = _load("make_record_archive_v5", "make-record-archive-v5.py")

NAME = "v6-referee-acts"
FORMAT = "rebis-pbm/6"
START = datetime(2026, 12, 7, 18, 0, 0, tzinfo=timezone.utc)


def play(script: str, work: Path, keys: Path) -> None:
    referee = work / ".referee.key"  # a private key must be mode 0600 for ssh-keygen
    shutil.copyfile(keys / "referee", referee)
    referee.chmod(0o600)
    record, views = f"{NAME}.yaml", ["--views-dir", f"{NAME}.views"]
    clock = [0]

    def now() -> list[str]:
        clock[0] += 1
        return ["--now", (START + timedelta(hours=clock[0])).strftime("%Y-%m-%dT%H:%M:%SZ")]

    def run(*args: str) -> subprocess.CompletedProcess:
        return v4.run(script, *args, cwd=work, key=referee)

    def act(turn: int, player: str) -> bool:
        if turn == 5 and "action: extend" not in (work / record).read_text(encoding="utf-8"):
            run("extend", record, "--by", "24h", "--reason", f"{player} is travelling", *now())
        if turn == 8:  # the player asks the referee to move for them
            run("move-for", record, "--player", player, "--strategy", "greedy", *views, *now())
            return True
        return False

    v5.play(script, work, keys, name=NAME, run=run, now=now, act=act,
            options=("--referee-key", referee.name, "--deadline", "72h"))
    referee.unlink()
    assert not [p for p in work.glob("*.key")], "a private key was left behind"


def expected(script: str, work: Path) -> dict:
    """v5's expected outcome (in rebis-pbm/6), plus the fingerprint of the referee's key that
    verify reports having checked the referee's signatures with (``referee_key``), as v4's."""
    result = v5.expected(script, work, name=NAME, form=FORMAT)
    result["referee_key"] = v4.referee_key(script, NAME, work)
    return result


if __name__ == "__main__":
    v5.main(NAME, play, expected, __doc__)
