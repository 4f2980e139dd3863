"""Figures of a league's daily paths (issue 31), printed by ``bench/run.py`` as ratios to the
import floor measured in the same run:

- a signed ``apply`` (every player registered a key, each move signed with the real
  ``ssh-keygen``): what it costs beyond the same ``apply`` in an unsigned game, at move 4 and at
  move 30 (target: no more at 30 than at 4, within 0.03 x the floor), and the growth per
  recorded move of each (target: signed no more than unsigned);
- a player's own check, ``check MOVE --view VIEW``, beside ``moves --view VIEW`` (target:
  ``check --view`` at most 0.80 x the floor).

CPU times are taken in turns (each round the floor, then every command once), so that the
machine's drift between two series does not count.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
from pathlib import Path

from timing import FLOOR, PLAYERS, run_once

from rebis_pbm import app
from rebis_pbm.bots import make_bot
from rebis_pbm.engine import information_set
from rebis_pbm.formats.yaml_writer import dump_yaml

SIGNED_AT = (4, 30)  # recorded moves of the signed and unsigned records compared
ADDED_TARGET = 0.03  # issue 31: signed apply's extra cost at 30 no more than at 4 + this


def _sign(key: Path, data: bytes) -> bytes:
    done = subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-f", str(key), "-n", "rebis-pbm"],
                          input=data, capture_output=True, check=True)
    return done.stdout


def _played(folder: Path, signed: bool, moves: int) -> dict[int, tuple[Path, Path]]:
    """A 4-player game played by bots through ``app.submit_move`` (each move signed by its
    player's key when ``signed``); for each length of SIGNED_AT, a copy of the game's folder with
    that many moves recorded and the next move's file (with its ``.sig``) beside it."""
    folder.mkdir(parents=True)
    keys: dict[str, Path] = {}
    if signed:
        for player in PLAYERS:
            keys[player] = folder / player
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", player, "-f",
                            str(keys[player])], check=True)
    game = folder / "game" / "game.yaml"
    game.parent.mkdir()
    app.create_game(game, list(PLAYERS), seed="daily paths bench", insecure_seed=True,
                    game_id="daily", keys={p: k.with_suffix(".pub").read_text()
                                           for p, k in keys.items()} or None)
    bots = {p: make_bot("greedy", f"daily/{p}") for p in PLAYERS}
    kept: dict[int, tuple[Path, Path]] = {}
    for played in range(moves + 1):
        record, replay, _ = app.open_game(game)
        state = replay.state
        move = bots[state.player_to_move].choose(information_set(state, state.to_move))
        # rebis-pbm/4: a move names the history it answers (its view's witness)
        data = dump_yaml({"game": "daily", "after": record.last_digest(),
                          **move.as_dict()}).encode()
        signature = _sign(keys[move.player], data) if signed else None
        if played in SIGNED_AT:
            copy = folder / f"at{played}"
            shutil.copytree(game.parent, copy)
            move_path = copy / "move.yaml"
            move_path.write_bytes(data)
            if signature is not None:
                move_path.with_name("move.yaml.sig").write_bytes(signature)
            kept[played] = copy / "game.yaml", move_path
        app.submit_move(game, data, "move.yaml", signature=signature)
    return kept


def signed_figures(exe: list[str], root: Path, repeat: int) -> None:
    """Signed against unsigned ``apply`` at SIGNED_AT recorded moves (see the module)."""
    if shutil.which("ssh-keygen") is None:
        print("\nSigned games: ssh-keygen is not installed; skipped.")
        return
    games = {"signed": _played(root / "signed", True, max(SIGNED_AT)),
             "unsigned": _played(root / "unsigned", False, max(SIGNED_AT))}
    saved = {(kind, n): path.read_bytes() for kind, at in games.items()
             for n, (path, _) in at.items()}
    times: dict[object, list[float]] = {"floor": []}
    for round_ in range(repeat + 1):
        floor = run_once(FLOOR, root)[1]
        for kind, at in games.items():
            for n, (path, move) in at.items():
                path.write_bytes(saved[kind, n])
                cpu = run_once([*exe, "apply", str(path), str(move)], path.parent)[1]
                if round_:
                    times.setdefault((kind, n), []).append(cpu)
        if round_:
            times["floor"].append(floor)
    floor_cpu = statistics.median(times["floor"])

    def ratio(kind: str, n: int) -> float:
        return statistics.median(times[kind, n]) / floor_cpu

    low, high = SIGNED_AT
    print(f"\nA signed game (every move signed, ssh-keygen) against an unsigned one, apply's CPU "
          f"in turns, x the floor ({floor_cpu * 1000:.1f} ms):")
    for n in SIGNED_AT:
        extra = ratio("signed", n) - ratio("unsigned", n)
        print(f"  apply at move {n:2d}: signed x{ratio('signed', n):.3f}, unsigned "
              f"x{ratio('unsigned', n):.3f}, signing adds x{extra:+.3f}")
    added = {n: ratio("signed", n) - ratio("unsigned", n) for n in SIGNED_AT}
    met = added[high] <= added[low] + ADDED_TARGET
    print(f"  what signing adds at move {high} against move {low}: "
          f"x{added[high] - added[low]:+.3f} (target: at most x{ADDED_TARGET:+.2f}): "
          f"{'met' if met else 'NOT met'}")
    growth = {k: (ratio(k, high) - ratio(k, low)) / (high - low) * 1000 for k in games}
    print(f"  growth per recorded move: signed {growth['signed']:.2f}, unsigned "
          f"{growth['unsigned']:.2f} thousandths of the floor (target: signed no more than "
          f"unsigned, within the noise): "
          f"{'met' if growth['signed'] <= growth['unsigned'] + 0.5 else 'NOT met'}")


def view_check_figures(exe: list[str], root: Path, repeat: int) -> None:
    """A player's own tools on their YAML view: ``moves --view`` and ``check MOVE --view``."""
    folder = root / "own-check"
    folder.mkdir()
    game = folder / "game.yaml"
    app.create_game(game, list(PLAYERS), seed="own check bench", insecure_seed=True,
                    game_id="own")
    view = folder / "game.views" / "alice.yaml"
    listing = subprocess.run([*exe, "moves", "--view", str(view)], capture_output=True,
                             text=True, check=True).stdout
    move = folder / "move.yaml"
    move.write_text(next(doc for doc in listing.split("---\n") if "turn:" in doc))
    commands = {"moves --view": [*exe, "moves", "--view", str(view)],
                "check MOVE --view": [*exe, "check", str(move), "--view", str(view)]}
    times: dict[str, list[float]] = {"floor": []}
    for round_ in range(repeat + 1):
        floor = run_once(FLOOR, root)[1]
        for name, cmd in commands.items():
            cpu = run_once(cmd, folder)[1]
            if round_:
                times.setdefault(name, []).append(cpu)
        if round_:
            times["floor"].append(floor)
    floor_cpu = statistics.median(times["floor"])
    print(f"\nA player's own tools on their YAML view, CPU in turns, x the floor "
          f"({floor_cpu * 1000:.1f} ms):")
    for name in commands:
        ratio = statistics.median(times[name]) / floor_cpu
        target = "  (target: at most x0.80: " + ("met)" if ratio <= 0.80 else "NOT met)") \
            if name.startswith("check") else ""
        print(f"  {name:20s} x{ratio:.3f}{target}")
