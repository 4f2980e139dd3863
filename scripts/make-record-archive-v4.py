"""Add to the record archive tests/records/ a game in the record format rebis-pbm/4, written by
the version that writes that format, before a later format appears.

The companion of scripts/make-record-archive.py and make-record-archive-v2.py, whose helpers
it uses and whose rules hold: run ONCE, by the version that writes the format; never
regenerate. It refuses to write into a folder that already holds any of its files; give
another folder to see how the archive was made:

    .venv/bin/python scripts/make-record-archive-v4.py                      # adds to tests/records/
    .venv/bin/python scripts/make-record-archive-v4.py --out /tmp/records   # a copy, to compare

A second run does not write the same bytes: `new` draws the game's secret salt at random, and
ssh-keygen's signatures of the referee's witnesses and acts are its own; the game (cards,
moves, scores) is the same.

`v4-signed`, through the installed console script `rebis-pbm` only and the real `ssh-keygen`:
`new --referee-deal` (rebis-pbm/4: the referee deal shuffles from the salted seed) with the
strong fixed `--seed "rebis-pbm record archive: v4-signed"` and `--game-id archive-v4-signed`,
`--referee-key keys/referee` (the referee signs every witness and act), every player's key
registered with `new --key` (keys/alice, bob, carol), `--deadline 72h --grace 24h --absence
14d/3 --tz alice=Europe/Lisbon`, every time given with `--now` (a clock that moves one hour a
move). Each move is chosen by `rebis-pbm bot --strategy greedy --seed v4-signed/N` (whose move
file names the history it answers, `after:`), signed by its player with `ssh-keygen -Y sign -n
rebis-pbm` and applied with `apply --as PLAYER`. Before turn 4 `away --player bob` for two days
and `back` after turn 5; at turn 7 carol misses her deadline and its grace, and `tick` moves for
her (a stand-in move the referee signs); the game is played to its end.

The referee's key is test data in tests/records/keys/referee (ed25519, made by `ssh-keygen -t
ed25519 -N "" -C referee@archive.example`, private key included, no passphrase), as the
players' keys are.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "records"


def _load(name: str, file: str):
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(file))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


v1 = _load("make_record_archive", "make-record-archive.py")
v2 = _load("make_record_archive_v2", "make-record-archive-v2.py")

NAME = "v4-signed"
PLAYERS = ("alice", "bob", "carol")
START = datetime(2026, 3, 2, 18, 0, 0, tzinfo=timezone.utc)


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def run(script: str, *args: str, cwd: Path, key: Path) -> subprocess.CompletedProcess:
    """``rebis-pbm ARGS`` with the referee's key given as CI gives it (REBIS_PBM_REFEREE_KEY),
    and no other REBIS_PBM_ variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REBIS_PBM_")}
    env["REBIS_PBM_REFEREE_KEY"] = str(key)
    proc = subprocess.run([script, *args], cwd=cwd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"rebis-pbm {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return proc


def play(script: str, work: Path, keys: Path) -> None:
    record = f"{NAME}.yaml"
    referee = work / ".referee.key"  # a private key must be mode 0600 for ssh-keygen
    shutil.copyfile(keys / "referee", referee)
    referee.chmod(0o600)
    views = ["--views-dir", f"{NAME}.views"]
    args = ["new", record, "--seed", f"rebis-pbm record archive: {NAME}",
            "--game-id", f"archive-{NAME}", *views, "--referee-deal",
            "--referee-key", referee.name, "--deadline", "72h", "--grace", "24h",
            "--absence", "14d/3", "--tz", "alice=Europe/Lisbon", "--now", at(0)]
    for player in PLAYERS:
        shutil.copyfile(keys / f"{player}.pub", work / f"{player}.pub")
        args += ["--player", player, "--key", f"{player}={player}.pub"]
    run(script, *args, cwd=work, key=referee)
    hours = 0.0
    moves = 0
    while True:
        state = v1.status(work / record)
        if state["phase"] == "finished":
            break
        player, turn = state["player"], state["turn"]
        hours += 1
        if turn == 4 and player == "alice" and "away" not in (work / record).read_text():
            run(script, "away", record, "--player", "bob", "--from", at(hours), "--to",
                at(hours + 48), "--reason", "bob is travelling", "--now", at(hours), *views,
                cwd=work, key=referee)
        if turn == 6:
            text = (work / record).read_text()
            if text.count("action: back") == 0 and "action: away" in text:
                run(script, "back", record, "--player", "bob", "--now", at(hours), *views,
                    cwd=work, key=referee)
        if turn == 7:  # carol misses her deadline and its grace: tick moves for her
            hours += 72 + 24 + 1
            run(script, "tick", record, "--now", at(hours), *views, cwd=work, key=referee)
            moves = len(yaml.safe_load((work / record).read_text(encoding="utf-8"))["moves"])
            continue
        bot = run(script, "bot", record, "--player", player, "--strategy", "greedy",
                  "--seed", f"{NAME}/{moves + 1}", cwd=work, key=referee)
        move = work / f"move-{moves + 1:03d}-{player}.yaml"
        move.write_text(bot.stdout, encoding="utf-8")
        v2.sign(keys, player, move)
        run(script, "apply", record, move.name, "--as", player, *views, "--now", at(hours),
            cwd=work, key=referee)
        moves += 1
    referee.unlink()
    assert not [p for p in work.glob("*.key")], "a private key was left behind"


def expected(script: str, work: Path) -> dict:
    """v2's expected outcome, plus the fingerprint of the referee's key that verify reports
    having checked the referee's signatures with (``referee_key``, beside ``verify``)."""
    result = v2.expected(script, NAME, work)
    result["referee_key"] = referee_key(script, NAME, work)
    result["about"] = result["about"].replace("rebis-pbm/2", "rebis-pbm/4")
    return result


def referee_key(script: str, name: str, work: Path) -> str:
    """The fingerprint of the referee's key with which `verify` says it checked game ``name``'s
    referee signatures (also used by scripts/make-record-archive-v6.py)."""
    text = v1.run(script, "verify", f"{name}.yaml", cwd=work).stdout
    found = re.search(r"the referee's signatures \(key (SHA256:[A-Za-z0-9+/]+)\)", text)
    assert found, text
    return found.group(1)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder to write into (default: tests/records)")
    out = parser.parse_args().out
    script = v1.console_script()
    if not shutil.which("ssh-keygen"):
        sys.exit("ssh-keygen is not installed (Debian: openssh-client)")
    out.mkdir(parents=True, exist_ok=True)
    clash = [p.name for p in out.glob(f"{NAME}.*")]
    if clash:
        sys.exit(f"{out} already holds archive files ({', '.join(clash)}): the archive is "
                 "written once and never regenerated; give another --out")
    sums_file = out / "SHA256SUMS"
    if not sums_file.exists() and any(out.glob("*.yaml")):
        sys.exit(f"{out} holds records but no SHA256SUMS")
    keys = out / "keys"
    v2.keygen(keys)
    if not (keys / "referee").exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                        "referee@archive.example", "-f", str(keys / "referee")], check=True)
    sums = sums_file.read_text(encoding="utf-8").splitlines(keepends=True) \
        if sums_file.exists() else []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / NAME
        work.mkdir()
        play(script, work, keys)
        sums += v1.archived(NAME, [f"{NAME}.yaml"], work, out, Path(tmp) / f"{NAME}-check",
                            lambda check: expected(script, check))
    sums_file.write_text("".join(sorted(sums, key=lambda s: s.split()[1])), encoding="utf-8")


if __name__ == "__main__":
    main()
