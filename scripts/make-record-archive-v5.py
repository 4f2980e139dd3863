"""Add to the record archive tests/records/ a game in the record format rebis-pbm/5 (the fair
deal in two rounds), written by the version that writes that format, before a later one appears.

The companion of scripts/make-record-archive-v2.py, whose helpers (and rules) it uses: run ONCE,
by the version that writes the format; never regenerate. It refuses to write into a folder that
already holds its files:

    .venv/bin/python scripts/make-record-archive-v5.py                      # adds to tests/records/
    .venv/bin/python scripts/make-record-archive-v5.py --out /tmp/records   # a copy, to compare

v5-fair-deal: alice, bob and carol, each with the key of tests/records/keys/ registered at `new`
(`--key`); round 1: each player's commitment to the fixed join text `archive v5-fair-deal
PLAYER` (SHA-256 of 'rebis-pbm-commitment', game id, name and text, one a line), naming the
header digest, signed; round 2: each join text, naming the last commitment's chain digest
(`after:`), signed; then every move chosen by `rebis-pbm bot --strategy greedy --seed NAME/N`,
signed and applied with `--as PLAYER`, to the end. Everything through the installed console
script and the real `ssh-keygen`.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "records"
_spec = importlib.util.spec_from_file_location(
    "make_record_archive_v2", Path(__file__).with_name("make-record-archive-v2.py"))
v2 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(v2)
v1 = v2.v1

NAME = "v5-fair-deal"
PLAYERS = ("alice", "bob", "carol")


def commitment(game: str, player: str, text: str) -> str:
    """docs/shuffle.md, "Two rounds": the commitment's documented encoding."""
    return hashlib.sha256("\n".join(("rebis-pbm-commitment", game, player, text))
                          .encode("utf-8")).hexdigest()


def play(script: str, work: Path, keys: Path, name: str = NAME, options: tuple[str, ...] = (),
         run=None, now=lambda: [], act=None) -> None:
    """Game ``name`` in ``work``, as this docstring says. For a later format's game (v6):
    ``options`` are more options of `new`; ``run(*args)`` runs rebis-pbm in ``work`` (default:
    v1.run, no referee key); ``now()`` gives each command writing the record its ``--now``
    arguments (default none); ``act(turn, player)``, before each move, logs the referee's acts
    and returns True when the referee moved for the player. Their defaults play v5-fair-deal."""
    if run is None:
        def run(*args: str) -> subprocess.CompletedProcess:
            return v1.run(script, *args, cwd=work)
    record, game = f"{name}.yaml", f"archive-{name}"
    views = ["--views-dir", f"{name}.views"]
    args = ["new", record, "--seed", f"rebis-pbm record archive: {name}", "--game-id", game,
            *views]
    for player in PLAYERS:
        shutil.copyfile(keys / f"{player}.pub", work / f"{player}.pub")
        args += ["--player", player, "--key", f"{player}={player}.pub"]
    run(*args, *options, *now())

    def send(player: str, doc: dict, label: str) -> None:
        move = work / f"{label}-{player}.yaml"
        move.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        v2.sign(keys, player, move)
        run("apply", record, move.name, "--as", player, *views, *now())

    header = yaml.safe_load((work / record).read_text(encoding="utf-8"))["header_sha256"]
    for player in PLAYERS:
        send(player, {"game": game, "player": player, "header_sha256": header,
                      "commitment": commitment(game, player, f"archive {name} {player}")},
             "commitment")
    after = yaml.safe_load((work / record).read_text(encoding="utf-8"))["joins"][-1][
        "chain_sha256"]
    for player in PLAYERS:
        send(player, {"game": game, "player": player, "after": after,
                      "join": f"archive {name} {player}"}, "join")
    moves = 0
    while (state := v1.status(work / record))["phase"] != "finished":
        player = state["player"]
        if act is not None and act(state["turn"], player):
            moves += 1
            continue
        bot = run("bot", record, "--player", player, "--strategy", "greedy",
                  "--seed", f"{name}/{moves + 1}")
        move = work / f"move-{moves + 1:03d}-{player}.yaml"
        move.write_text(bot.stdout, encoding="utf-8")
        v2.sign(keys, player, move)
        run("apply", record, move.name, "--as", player, *views, *now())
        moves += 1


def expected(script: str, work: Path, name: str = NAME, form: str = "rebis-pbm/5") -> dict:
    """v2's expected outcome of game ``name``, written in the record format ``form``."""
    result = v2.expected(script, name, work)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                            capture_output=True).stdout.strip() or "unknown"
    result["about"] = (f"What rebis-pbm {v1.version(script)} (the version that writes "
                       f"{form}, git commit {commit}) said about {name}.yaml when it was "
                       "written; checked by tests/record/test_record_archive.py. Never "
                       "regenerate this file (tests/records/README.md).")
    return result


def main(name: str = NAME, game=play, expected_of=expected, doc: str | None = __doc__) -> None:
    """Write game ``name`` into the archive: ``game(script, work, keys)`` plays it in ``work``,
    ``expected_of(script, check)`` says what this version says of it (v6's script passes its
    own; the defaults write v5-fair-deal)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="folder to write into (default: tests/records)")
    out = parser.parse_args().out
    script = v1.console_script()
    if not shutil.which("ssh-keygen"):
        sys.exit("ssh-keygen is not installed (Debian: openssh-client)")
    out.mkdir(parents=True, exist_ok=True)
    if list(out.glob(f"{name}.*")):
        sys.exit(f"{out} already holds {name}: the archive is written once; give another --out")
    keys = DEFAULT_OUT / "keys"
    sums_file = out / "SHA256SUMS"
    sums = sums_file.read_text(encoding="utf-8").splitlines(keepends=True) \
        if sums_file.exists() else []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / name
        work.mkdir()
        game(script, work, keys)
        sums += v1.archived(name, [f"{name}.yaml"], work, out, Path(tmp) / f"{name}-check",
                            lambda check: expected_of(script, check))
    sums_file.write_text("".join(sorted(sums, key=lambda s: s.split()[1])), encoding="utf-8")
    print(json.dumps({"written": name, "out": str(out)}))


if __name__ == "__main__":
    main()
