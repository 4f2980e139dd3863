"""Add to the record archive tests/records/ games in the record format rebis-pbm/2, written by
the version that writes that format, before a later format appears.

The companion of scripts/make-record-archive.py (the rebis-pbm/1 games), whose helpers it uses
and whose rules hold: run ONCE, by the version that writes the format; never regenerate. It
refuses to write into a folder that already holds any of its files (it adds its lines to the
folder's SHA256SUMS, which must exist unless the folder is new); give another folder to see how
the archive was made:

    .venv/bin/python scripts/make-record-archive-v2.py                      # adds to tests/records/
    .venv/bin/python scripts/make-record-archive-v2.py --out /tmp/records   # a copy, to compare

A second run does not write the same bytes: `new` draws each game's secret salt at random
(docs/audit.md, "Seed commitment, salted") and has no option to fix it, so the commitments,
digests and witnesses differ; the games (cards, moves, scores) are the same.

Everything goes through the installed console script `rebis-pbm` (beside this Python, or on
PATH), never through the package's modules, and the real `ssh-keygen` (openssh-client):

- `new` with the strong fixed `--seed "rebis-pbm record archive: NAME"` (accepted without
  `--insecure-seed`: it is test data, revealed in every finished record) and `--game-id
  archive-NAME`, and the options each game is about;
- in a fair deal, each player's join move written with the fixed entropy `archive NAME PLAYER`
  (`moves` in the join phase would draw fresh random entropy), in seat order;
- each move chosen by `rebis-pbm bot --strategy greedy --seed NAME/N` for the player the record's
  status names, and applied with `rebis-pbm apply GAME MOVE.yaml --as PLAYER`; a player with a
  key signs the move file (or join) with `ssh-keygen -Y sign -f keys/PLAYER -n rebis-pbm` first;
- in a game with a deadline, every command given its time with `--now` (a fixed clock that
  moves one hour per move), and in v2-deadline `tick`, `move-for`, `extend` and
  `replace-player` at chosen turns; the time of a logged action in a game without a deadline is
  given with `--now` too, so that no record holds the clock of the day it was made.

The players' SSH keys are test data in tests/records/keys/ (ed25519, made once by
`ssh-keygen -t ed25519 -N "" -C PLAYER@archive.example -f keys/PLAYER`, private keys included,
no passphrase): this script makes them when the folder does not hold them yet.

For each game NAME it writes NAME.yaml, NAME.secret.yaml for a game still in play, and
NAME.expected.json (as the rebis-pbm/1 games, plus verify's `deal_from`, `deal_pending` and
`keys`: tests/records/README.md), and adds their lines to SHA256SUMS.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "records"

_spec = importlib.util.spec_from_file_location("make_record_archive",
                                               Path(__file__).with_name("make-record-archive.py"))
v1 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(v1)

START = datetime(2026, 1, 5, 18, 0, 0, tzinfo=timezone.utc)  # the clock of the deadline game
KEYED = ("alice", "bob", "carol", "bob-new")

# name -> (players, options of `new`, how far to play: "end" or a number of moves).
# "@key:P": register P's key with `new --key`; "@joinkey:P": P sends their key in their join;
# "@rekey:P": `replace-player --player P --key` with P's second key (keys/P-new) before P's
# third move; "@addresses": NAME=ADDRESS players; "@clock": times given with --now.
GAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...], object]] = {
    "v2-fair-deal": (("alice", "bob", "carol"), (), "end"),
    "v2-referee-deal": (("alice", "bob"), ("--referee-deal", "@addresses", "--public-addresses"),
                        "end"),
    "v2-signed": (("alice", "bob", "carol"),
                  ("@key:alice", "@key:bob", "@joinkey:carol", "@rekey:bob"), "end"),
    "v2-unfinished": (("alice", "bob", "carol"), ("@clock", "--deadline", "2d"), 10),
    "v2-deadline": (("alice", "bob", "carol"),
                    ("@addresses", "@clock", "--deadline", "72h", "--missed", "2"), "end"),
    "v2-ended": (("alice", "bob"), ("@clock", "--referee-deal", "--deadline", "3d"), 7),
}


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def keygen(keys: Path) -> None:
    """The players' ed25519 keys, made once by the real ssh-keygen."""
    keys.mkdir(parents=True, exist_ok=True)
    for player in KEYED:
        if not (keys / player).exists():
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C",
                            f"{player}@archive.example", "-f", str(keys / player)], check=True)


def sign(keys: Path, key: str, move: Path) -> None:
    """MOVE.yaml.sig, as a player makes it (a private key must be mode 0600 for ssh-keygen)."""
    private = move.parent / f".{key}.key"
    shutil.copyfile(keys / key, private)
    private.chmod(0o600)
    move.with_name(move.name + ".sig").unlink(missing_ok=True)
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(private), "-n", "rebis-pbm",
                    str(move)], check=True, capture_output=True)
    private.unlink()


def play(script: str, name: str, players, options, until, work: Path, keys: Path) -> None:
    record = f"{name}.yaml"
    clock = "@clock" in options
    views = ["--views-dir", f"{name}.views"]
    args = ["new", record, "--seed", f"rebis-pbm record archive: {name}",
            "--game-id", f"archive-{name}", *views]
    for player in players:
        entry = f"{player}={v1.ADDRESSES[player]}" if "@addresses" in options else player
        args += ["--player", entry]
    key_of = {}  # player -> the key file they sign with
    for option in options:
        if option.startswith("@key:"):
            player = option[len("@key:"):]
            shutil.copyfile(keys / f"{player}.pub", work / f"{player}.pub")
            args += ["--key", f"{player}={player}.pub"]
            key_of[player] = player
    args += [o for o in options if not o.startswith("@")]
    hours = 0.0
    if clock:
        args += ["--now", at(hours)]
    v1.run(script, *args, cwd=work)

    def now() -> list[str]:
        return ["--now", at(hours)] if clock else []

    def send(player: str, text: str, number: int) -> None:
        move = work / f"move-{number:03d}-{player}.yaml"
        move.write_text(text, encoding="utf-8")
        if player in key_of:
            sign(keys, key_of[player], move)
        v1.run(script, "apply", record, move.name, "--as", player, *views, *now(), cwd=work)

    if v1.status(work / record)["phase"] == "join":
        for player in players:
            join = {"game": f"archive-{name}", "player": player,
                    "join": f"archive {name} {player}"}
            if f"@joinkey:{player}" in options:
                join["key"] = (keys / f"{player}.pub").read_text(encoding="utf-8").strip()
                key_of[player] = player
            send(player, yaml.safe_dump(join, sort_keys=False), 0)
    moves = 0
    while True:
        state = v1.status(work / record)
        if state["phase"] == "finished":
            assert until == "end", (name, until)
            break
        if until == moves:
            break
        player = state["player"]
        hours += 1
        jump = None
        if name == "v2-deadline":
            jump = deadline_script(script, record, work, views, state["turn"], player, hours)
        if jump is not None:
            hours += jump
            moves = len(yaml.safe_load((work / record).read_text(encoding="utf-8"))["moves"])
            continue
        if f"@rekey:{player}" in options and state["turn"] == 8:
            shutil.copyfile(keys / f"{player}-new.pub", work / f"{player}-new.pub")
            v1.run(script, "replace-player", record, "--player", player, "--key",
                   f"{player}-new.pub", "--reason", f"{player} lost their key",
                   "--now", at(hours), cwd=work)
            key_of[player] = f"{player}-new"
        bot = v1.run(script, "bot", record, "--player", player, "--strategy", "greedy",
                     "--seed", f"{name}/{moves + 1}", cwd=work)
        send(player, bot.stdout, moves + 1)
        moves += 1
    if name == "v2-ended":
        hours += 1
        v1.run(script, "end-game", record, "--yes", "--reason", "the players stopped answering",
               *now(), cwd=work)
    assert not [p for p in work.glob("*.key")], "a private key was left behind"


def deadline_script(script, record, work, views, turn, player, hours) -> float | None:
    """The deadline game's referee actions, at fixed turns (seat order alice, bob, carol; times
    are data: `--now`). When the referee moved instead of the player: the hours the clock moved
    on (past the deadline for a missed turn); else None."""
    if turn in (3, 6):  # carol misses turns 3 and 6: tick moves for her (the greedy bot); after
        # her second missed turn (--missed 2) the bot plays for her for good
        v1.run(script, "tick", record, "--now", at(hours + 72), *views, cwd=work)
        return 72
    if turn == 5:
        v1.run(script, "extend", record, "--by", "24h", "--reason", "bob is travelling",
               "--now", at(hours - 0.5), cwd=work)
    if turn == 8:
        v1.run(script, "replace-player", record, "--player", "alice", "--address",
               "alice@new.example.org", "--reason", "alice moved", "--now", at(hours - 0.5),
               cwd=work)
    if turn == 10:  # alice asks the referee to move for her
        v1.run(script, "move-for", record, "--player", player, "--strategy", "greedy",
               "--now", at(hours), cwd=work)
        return 0
    if player == "carol" and turn > 6:  # replaced by the bot: tick plays for her at once
        v1.run(script, "tick", record, "--now", at(hours), *views, cwd=work)
        return 0
    return None


def expected(script: str, name: str, work: Path) -> dict:
    """v1's expected outcome, plus what verify reports of rebis-pbm/2: the deal and the keys."""
    result = v1.expected(script, name, work)
    report = json.loads(v1.run(script, "verify", f"{name}.yaml", "--format", "json",
                               cwd=work).stdout)
    for field in ("deal_from", "deal_pending", "keys"):
        result["verify"][field] = report[field]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                            capture_output=True).stdout.strip() or "unknown"
    result["about"] = (f"What rebis-pbm {v1.version(script)} (the version that writes rebis-pbm/2,"
                       f" git commit {commit}) said about {name}.yaml when the archive's "
                       "rebis-pbm/2 games were written; checked by "
                       "tests/record/test_record_archive.py. Never regenerate this file "
                       "(tests/records/README.md).")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder to write into (default: tests/records)")
    out = parser.parse_args().out
    script = v1.console_script()
    if not shutil.which("ssh-keygen"):
        sys.exit("ssh-keygen is not installed (Debian: openssh-client)")
    out.mkdir(parents=True, exist_ok=True)
    clash = [p.name for name in GAMES for p in out.glob(f"{name}.*")]
    if clash:
        sys.exit(f"{out} already holds archive files ({', '.join(clash)}): the archive is "
                 "written once and never regenerated; give another --out")
    sums_file = out / "SHA256SUMS"
    if not sums_file.exists() and any(out.glob("*.yaml")):
        sys.exit(f"{out} holds records but no SHA256SUMS")
    keys = out / "keys"
    keygen(keys)
    sums = sums_file.read_text(encoding="utf-8").splitlines(keepends=True) \
        if sums_file.exists() else []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (players, options, until) in GAMES.items():
            work = Path(tmp) / name
            work.mkdir()
            play(script, name, players, options, until, work, keys)
            kept = [f"{name}.yaml"]
            state = v1.status(work / f"{name}.yaml")
            if state["phase"] != "finished" and not state.get("abandoned"):
                kept.append(f"{name}.secret.yaml")
            sums += v1.archived(name, kept, work, out, Path(tmp) / f"{name}-check",
                                lambda check, name=name: expected(script, name, check))
    sums_file.write_text("".join(sorted(sums, key=lambda s: s.split()[1])), encoding="utf-8")


if __name__ == "__main__":
    main()
