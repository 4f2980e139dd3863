"""Benchmarks of rebis-pbm: `make bench` (not part of `make test`). Prints, in one run:

1. the import floor: wall time and peak RSS of ``python -c "import yaml, jsonschema, click"``;
2. wall time and peak RSS of ``apply``, ``view``, ``moves`` and ``verify`` (when this version
   has it) on a 4-player game played to its end by bots, as ratios to the floor;
3. ``apply`` and ``verify`` against the record's length (10, 50, 100, 200 recorded moves), with
   their growth per recorded move;
4. the same game with every player's address: ``apply``, ``view``, ``moves``, ``mail in`` of one
   message (with the pictures, the default, and without); the git job's work for one move;
5. with ``--many N``: N moves to N games through ``referee.submit_move`` in one process and
   through one ``mail in`` of the folder of games (with the pictures and without), against N
   ``apply`` commands; N records in one ``verify`` against N ``verify`` commands (issue 16's
   figures, each a ratio measured in the same run); 20 moves to a git shard of 20 games by
   one ``git apply --games`` against one ``git apply`` in each game's own repository; and in a
   git shard of N games, one waiting move against a one-game repository's job and N waiting
   moves against N one-game jobs (issue 31's targets: <= 1.3 x and <= 0.30 x);
6. engine speed: turns per second of games whose every move is drawn uniformly from the legal
   moves, on one core, and the same through ``rebis-pbm simulate``.

Only public tools: ``time.perf_counter`` for wall time, ``os.wait4`` for the child's own CPU
time (user + system) and peak RSS (``ru_maxrss``). Each command runs ``--repeat`` times (default
15) after one warm-up run; medians are reported, with the fastest wall time beside it. Ratios
are given for wall time and for CPU time: on a shared machine, other processes stretch wall
times, while CPU times stay put. With ``--instructions`` (valgrind installed) each command also
runs once under callgrind: its instruction count, which no load changes, backs the CPU ratios.
With ``--pairs`` each run of a command follows a run of the floor, and the median of the CPU
ratios of those pairs is printed too (issue 16's measure: both runs of a pair see the same load).
Run with the Python of the environment to measure (``make bench`` uses .venv/bin/python, where
rebis-pbm is installed).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from daily import signed_figures, view_check_figures
from timing import FLOOR, PLAYERS, rebis_pbm, run_once

from rebis_pbm.bots import make_bot
from rebis_pbm.engine import Ruleset, apply_move, information_set, legal_moves, setup
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record import Record, dump_record, dump_secret
from rebis_pbm.record.digests import commitment, insecure_salt, salted
from rebis_pbm.record.model import FORMAT

LONG_RULESET = Ruleset(deck=tuple((n, 40) for n in range(1, 10)), golden_dust=99, gold=99)


# --instructions: also count each command's instructions once (see instructions()).
COUNT_INSTRUCTIONS = False
# --pairs: run the floor before each run of a command, and give the median of the CPU ratios of
# those pairs (issue 16's measure), which a load that changes between figures moves less.
PAIRS = False


def instructions(cmd: list[str], cwd: Path) -> int | None:
    """The instructions one run of ``cmd`` executes, counted by valgrind's callgrind: the same
    count at every run whatever else the machine is doing (with PYTHONHASHSEED fixed), where CPU
    times on a shared machine move by 10 % or more. None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                         cwd=cwd, env={**os.environ, "PYTHONHASHSEED": "0"},
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"Collected : (\d+)", out.stderr)
    return int(found.group(1)) if found else None


def measure(cmd: list[str], cwd: Path, repeat: int, prepare=None) -> dict:
    """Median and fastest wall time and the largest peak RSS over ``repeat`` runs (+1 warm-up),
    and with ``--instructions`` the instructions of one more run. ``prepare()`` runs before each
    run, outside the timing (e.g. restore a record)."""
    walls, cpus, rss, codes, ratios = [], [], [], set(), []
    paired = PAIRS and cmd != FLOOR
    for i in range(repeat + 1):
        if paired:  # the floor just before: both runs see the same load
            floor_cpu = run_once(FLOOR, cwd)[1]
        if prepare:
            prepare()
        wall, cpu, peak, code = run_once(cmd, cwd)
        codes.add(code)
        if i:
            walls.append(wall)
            cpus.append(cpu)
            rss.append(peak)
            if paired:
                ratios.append(cpu / floor_cpu)
    found = {"median": statistics.median(walls), "min": min(walls), "rss": max(rss),
             "cpu": statistics.median(cpus), "exit": sorted(codes)}
    if ratios:
        found["paired"] = statistics.median(ratios)
    if COUNT_INSTRUCTIONS:
        if prepare:
            prepare()
        found["instructions"] = instructions(cmd, cwd)
    return found


def figures(m: dict, floor: dict) -> str:
    """One command's figures: wall median (fastest) x ratio, CPU median x ratio, with
    ``--pairs`` the median CPU ratio of the pairs, and with ``--instructions`` the instruction
    count x ratio."""
    wall = (f"{m['median'] * 1000:6.1f} ms ({m['min'] * 1000:5.1f}) "
            f"x{m['median'] / floor['median']:.2f}")
    text = f"{wall}  cpu {m['cpu'] * 1000:6.1f} ms x{m['cpu'] / floor['cpu']:.2f}"
    if m.get("paired"):
        text += f"  paired cpu x{m['paired']:.3f}"
    if m.get("instructions") and floor.get("instructions"):
        text += (f"  instr {m['instructions'] / 1e6:6.1f} M "
                 f"x{m['instructions'] / floor['instructions']:.3f}")
    return text


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


def write_game(folder: Path, ruleset: Ruleset, seed: str, moves, game_id: str,
               addresses: dict | None = None, fmt: str | None = None) -> Path:
    """A record of ``moves`` with its seed sidecar and views, as `new` + `apply` leave them;
    ``addresses``: the players' e-mail addresses, as a mail or git game has them; ``fmt``: the
    record format (default: that of new games; compare.py writes the oldest, which every
    version reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "game.yaml"
    fmt = fmt or FORMAT
    # rebis-pbm/2 keys its digests with SALT:SEED and deals from the seed; the salt here is the
    # one `new --seed S --insecure-seed` derives from the seed, with which a rebis-pbm/4 referee
    # deal is the seed's alone too (docs/shuffle.md, section 8): the moves were chosen for it.
    secret = seed if fmt == "rebis-pbm/1" else salted(seed, insecure_salt(seed))
    state, _ = setup(ruleset, PLAYERS, seed)
    record = Record(game_id, ruleset, PLAYERS, commitment(fmt, secret), addresses=addresses or {},
                    format=fmt)
    for move in moves:  # as apply does: digests, seals, and the seed revealed at the end
        state, events = apply_move(state, move)
        record = record.with_move(move, state, secret, events)
    if state.finished:
        record = record.revealed(secret)
    path.write_text(dump_record(record, state, secret))
    (folder / "game.secret.yaml").write_text(dump_secret(game_id, secret, fmt))
    return path


def write_views(path: Path) -> None:
    """The views of the record ``path``, as `new` and every `apply` leave them beside it."""
    from rebis_pbm import app as referee
    game = referee.open_game(path)
    referee.write_views(referee.default_views_dir(path), game.record, game.replay)


def move_file(folder: Path, game_id: str, move) -> Path:
    path = folder / "move.yaml"
    path.write_text(dump_yaml({"game": game_id, **move.as_dict()}))
    return path


ADDRESSES = {player: f"{player}@example.org" for player in PLAYERS}


def addresses(game: int) -> dict[str, str]:
    """The players' addresses in the many-games figures' game ``game``: each game its own
    players, as in a league, so that no mail header of one game is another's."""
    return {player: f"{player}.{game}@example.org" for player in PLAYERS}
REFEREE = "referee@example.org"


def mail_message(path: Path, sender: str, move_path: Path) -> Path:
    """A plain-text message from ``sender`` whose body is the move file (docs/mail.md)."""
    path.write_bytes(f"From: {sender}\nTo: {REFEREE}\nSubject: my move\n"
                     f"Message-ID: <{path.stem}@example.org>\n\n".encode() + move_path.read_bytes())
    return path


def cpu_of(cmd: list[str], cwd: Path, rounds: int, prepare) -> float:
    """Median CPU seconds of ``cmd`` over ``rounds`` runs, each after ``prepare()``."""
    times = []
    for _ in range(rounds):
        prepare()
        _, cpu, _, code = run_once(cmd, cwd)
        if code != 0:
            sys.exit(f"{' '.join(cmd[:3])} ... failed (exit {code})")
        times.append(cpu)
    return statistics.median(times)


def mailed_queue(game: Path, keep: Path) -> Path:
    """Give ``game`` the mail queue a game played by mail has between two moves (its views
    queued by ``mail views``, or by the last ``mail in``, then sent by ``mail out``, which
    moves them to ``cur/``), and keep a copy of it in ``keep``: a move's ``mail in`` is measured
    on such a game, not on the first mail a game ever gets (creating its queue's folders and
    noting its first turn, which a season of games does once per game). Returns ``keep``."""
    queue = game.with_name("game.mailq")
    try:
        from rebis_pbm.transports.mail.outbox import queue_views
    except ImportError:  # a version before the mail transport: no queue to give
        keep.mkdir(parents=True)
        return keep
    queue_views(game, REFEREE, pictures=False)
    for sent in (queue / "new").iterdir():
        sent.rename(queue / "cur" / f"{sent.name}:2,S")
    shutil.copytree(queue, keep)
    shutil.rmtree(queue)
    return keep


def restore_queue(kept: Path, queue: Path) -> None:
    """The queue ``queue`` as :func:`mailed_queue` kept it in ``kept``."""
    shutil.rmtree(queue, ignore_errors=True)
    if any(kept.iterdir()):
        shutil.copytree(kept, queue)


def addresses_figures(exe: list[str], root: Path, moves, floor: dict, repeat: int) -> None:
    """apply, view, moves and mail in on the bench game with every player's address."""
    finished = write_game(root / "mail-finished", Ruleset(), "bench", moves, "bench", ADDRESSES)
    before = write_game(root / "mail-before", Ruleset(), "bench", moves[:-1], "bench", ADDRESSES)
    saved = before.read_bytes()
    last = move_file(root / "mail-before", "bench", moves[-1])
    to_move = moves[-1].player
    message = mail_message(root / "message.eml", ADDRESSES[to_move], last)
    queue = before.with_name("game.mailq")
    kept_queue = mailed_queue(before, root / "mail-before.mailq")

    def restore() -> None:
        before.write_bytes(saved)
        restore_queue(kept_queue, queue)

    rows = [
        ("apply (last move)", [*exe, "apply", str(before), str(last)]),
        ("view --player alice", [*exe, "view", str(finished), "--player", "alice"]),
        (f"moves --player {to_move}", [*exe, "moves", str(before), "--player", to_move]),
        ("mail in (one message: the last move)",
         [*exe, "mail", "in", str(before), str(message), "--referee", REFEREE]),
        ("mail in --no-pictures (the same message)",
         [*exe, "mail", "in", str(before), str(message), "--referee", REFEREE, "--no-pictures"]),
    ]
    print("\nThe same game with every player's e-mail address (a mail or git game):")
    for label, cmd in rows:
        m = measure(cmd, root, repeat, restore)
        status = "" if m["exit"] == [0] else f"  (exit {m['exit']})"
        print(f"  {label:44s} {figures(m, floor)}{status}")


# Issue 16's growth target, in ms on the machine it was measured on, and that machine's floor
# (its apply, 141 ms, was 1.80 x the floor): the target as a ratio is their quotient.
ISSUE_GROWTH_MS = 0.15
ISSUE_FLOOR_MS = 78.3
VERIFY_GROWTH_TARGET = 1.0  # issue 31, thousandths of the floor per recorded move


def growth_figures(exe: list[str], root: Path, floor: dict, repeat: int) -> None:
    """apply and verify against the record's length, and their growth per recorded move: the
    difference between 10 and 200 recorded moves, measured in turns (each round the floor, then
    each command on each length), so that the machine's drift between two series does not
    count as growth."""
    print("\napply and verify against record length (larger deck and token supply so that a game "
          "lasts 200 moves):")
    long_moves = bot_game(LONG_RULESET, "long", stop=201)
    counted: dict = {}
    commands: dict = {}
    for length in (10, 50, 100, 200):
        folder = root / f"long{length}"
        path = write_game(folder, LONG_RULESET, "long", long_moves[:length], "long")
        nxt = move_file(folder, "long", long_moves[length])

        def restore(p: Path = path, d: bytes = path.read_bytes()) -> None:
            p.write_bytes(d)

        for name, cmd in (("apply", [*exe, "apply", str(path), str(nxt)]),
                          ("verify", [*exe, "verify", str(path)])):
            m = measure(cmd, folder, repeat, restore)
            counted[name, length] = m.get("instructions")
            commands[name, length] = cmd, folder, restore
            print(f"  {name:6s} {length:3d} recorded moves: {figures(m, floor)}")
    turns: dict = {"floor": []}
    for round_ in range(repeat + 1):
        floor_cpu = run_once(FLOOR, root)[1]
        for key in (("apply", 10), ("apply", 200), ("verify", 10), ("verify", 200)):
            cmd, folder, restore = commands[key]
            restore()
            if round_:
                turns.setdefault(key, []).append(run_once(cmd, folder)[1])
        if round_:
            turns["floor"].append(floor_cpu)
    floor_cpu = statistics.median(turns["floor"])
    # thousandths of the floor per recorded move: apply's from issue 16 (0.15 ms at a 78.3 ms
    # floor), verify's from issue 31 (back to at most 1.0)
    targets = {"apply": ISSUE_GROWTH_MS / ISSUE_FLOOR_MS * 1000, "verify": VERIFY_GROWTH_TARGET}
    for name in ("apply", "verify"):
        per_move = (statistics.median(turns[name, 200])
                    - statistics.median(turns[name, 10])) / 190
        growth = per_move / floor_cpu * 1000
        print(f"  {name} growth per recorded move (10 -> 200 moves, CPU in turns): "
              f"{per_move * 1000:.3f} ms, {growth:.2f} thousandths of the floor (target: at most "
              f"{targets[name]:.2f}: {'met' if growth <= targets[name] else 'NOT met'})")
        if counted[name, 10] and counted[name, 200]:
            print(f"  {name} growth per recorded move (10 -> 200 moves, instructions): "
                  f"{(counted[name, 200] - counted[name, 10]) / 190 / 1e6:.2f} M")


ONE_PROCESS_APPLY = """import sys
from rebis_pbm import app as referee
for game, move in zip(sys.argv[1::2], sys.argv[2::2]):
    with open(move, "rb") as f:
        referee.submit_move(game, f.read(), move)
"""
ONE_PROCESS_VERIFY = """import sys
from rebis_pbm import app as referee
assert all(referee.verify(game).verified for game in sys.argv[1:])
"""


def many_games_figures(exe: list[str], root: Path, count: int, rounds: int) -> None:
    """``count`` games: a move to each through referee.submit_move in one process against one
    `apply` command per game; a verify of each in one `verify` command against one per game."""
    games, pairs, saved, queues = [], [], {}, {}
    for i in range(count):
        moves = bot_game(Ruleset(), f"many{i}", stop=31)
        folder = root / "many" / f"g{i:04d}"
        path = write_game(folder, Ruleset(), f"many{i}", moves[:-1], f"many{i}", addresses(i))
        games.append(path)
        pairs.append((path, move_file(folder, f"many{i}", moves[-1])))
        saved[path] = path.read_bytes()
        write_views(path)
        queues[path] = mailed_queue(path, root / "queues" / f"g{i:04d}")

    def restore() -> None:
        for path, data in saved.items():
            path.write_bytes(data)

    def each(commands) -> float:
        restore()
        return sum(run_once(cmd, root)[1] for cmd in commands)

    singles = statistics.median(
        each([[*exe, "apply", str(g), str(m)] for g, m in pairs]) for _ in range(rounds))
    one = cpu_of([sys.executable, "-c", ONE_PROCESS_APPLY,
                  *[str(p) for pair in pairs for p in pair]], root, rounds, restore)
    print(f"\nMany games, one process ({count} games of 4 players with addresses, 30 moves "
          f"recorded; CPU, median of {rounds} rounds):")
    print(f"  {count} apply commands: {singles:6.2f} s; {count} moves through "
          f"referee.submit_move in one process: {one:6.2f} s  x{one / singles:.3f}")
    maildir = root / "many-mail"
    mail = [*exe, "mail", "in", str(root / "many"), str(maildir), "--referee", REFEREE]

    def restore_mail() -> None:
        restore()
        for path in games:
            restore_queue(queues[path], path.with_name("game.mailq"))
        shutil.rmtree(maildir, ignore_errors=True)
        for sub in ("new", "cur", "tmp"):
            (maildir / sub).mkdir(parents=True)
        for i, (_, move) in enumerate(pairs):  # one message a game, from the player to move
            player = load_yaml(move.read_bytes(), source=str(move), kind="move").data["player"]
            mail_message(maildir / "new" / f"{i:04d}.eml", addresses(i)[player], move)

    if run_once([*exe, "mail", "in", "--help"], root)[3] == 0:
        by_mail = cpu_of(mail, root, rounds, restore_mail)
        print(f"  {count} moves through one `mail in` of a folder of games (a Maildir of one "
              f"message a game): {by_mail:6.2f} s  x{by_mail / singles:.3f}")
        plain = cpu_of([*mail, "--no-pictures"], root, rounds, restore_mail)
        print(f"  the same, `mail in --no-pictures`: {plain:6.2f} s  x{plain / singles:.3f}")
    restore()
    singles = statistics.median(
        each([[*exe, "verify", str(g)] for g in games]) for _ in range(rounds))
    many = [*exe, "verify", *map(str, games)]
    if run_once(many[:len(exe) + 3], root)[3] == 0:
        label, one = "one verify command", cpu_of(many, root, rounds, restore)
    else:  # a version whose verify takes one record: the use case in one process
        label = "referee.verify in one process"
        one = cpu_of([sys.executable, "-c", ONE_PROCESS_VERIFY, *map(str, games)], root, rounds,
                     restore)
    print(f"  {count} verify commands: {singles:6.2f} s; {label}: {one:6.2f} s  "
          f"x{one / singles:.3f}")


def git_job_figures(exe: list[str], root: Path, moves, floor: dict, repeat: int) -> None:
    """The per-move cost of the git job's work on a runner, measured here as its proxy: `apply`
    of the move file, then `git add` and `git commit` of the record and views in a local repo."""
    git = shutil.which("git")
    if git is None:
        print("\ngit job proxy: git is not installed")
        return
    folder = root / "repo"
    path = write_game(folder, Ruleset(), "bench", moves[:-1], "bench", ADDRESSES)
    move_file(folder, "bench", moves[-1])  # move.yaml, which each step applies
    env = dict(os.environ, GIT_AUTHOR_NAME="referee", GIT_AUTHOR_EMAIL=REFEREE,
               GIT_COMMITTER_NAME="referee", GIT_COMMITTER_EMAIL=REFEREE)
    quiet = dict(cwd=folder, env=env, check=True, capture_output=True)
    subprocess.run([git, "init", "-q"], **quiet)
    write_views(path)
    subprocess.run([git, "add", "-A"], **quiet)
    subprocess.run([git, "commit", "-qm", "before the last move"], **quiet)
    head = subprocess.run([git, "rev-parse", "HEAD"], **quiet, text=True).stdout.strip()
    steps = [[*exe, "apply", "game.yaml", "move.yaml"], [git, "add", "-A"],
             [git, "commit", "-qm", "turn"]]
    cpus, walls = [], []
    for i in range(repeat + 1):
        subprocess.run([git, "reset", "-q", "--hard", head], **quiet)
        wall = cpu = 0.0
        for cmd in steps:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(proc.pid, 0)
            wall += time.perf_counter() - start
            cpu += usage.ru_utime + usage.ru_stime
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"{' '.join(cmd)} failed in the git job proxy")
        if i:
            cpus.append(cpu)
            walls.append(wall)
    cpu, wall = statistics.median(cpus), statistics.median(walls)
    print(f"\ngit job proxy (apply + git add + git commit in a local repo, the work of one move "
          f"on a CI runner): wall {wall * 1000:.1f} ms, cpu {cpu * 1000:.1f} ms "
          f"x{cpu / floor['cpu']:.2f} the floor")


SHARD_GAMES = 20  # games of the git shard figure (each single-game run is a process of its own)
IGNORED = ("*.secret.yaml\n**/*.views/*\n!**/*.views/public.yaml\n!**/*.views/public.txt\n"
           "*.mailq/\n")  # as examples/git/.gitignore keeps private files out
SHARD_RECORDED = 10  # moves each shard game holds before its waiting one (their files kept)


class GitBench:
    """The repositories of the git shard figures: games of ``SHARD_RECORDED`` moves, each with
    the files of its recorded moves in its moves/ folder (as a game played through git keeps
    them), a move waiting in some, committed by its player; objects packed, as a runner's clone
    has them."""

    def __init__(self, exe: list[str], git: str):
        self.exe, self.git = exe, git
        self.job = [*exe, "git", "apply", "--email", REFEREE]

    def run_git(self, repo: Path, *args: str, author: str = REFEREE) -> str:
        env = dict(os.environ, GIT_AUTHOR_NAME=author, GIT_AUTHOR_EMAIL=author,
                   GIT_COMMITTER_NAME=author, GIT_COMMITTER_EMAIL=author)
        return subprocess.run([self.git, *args], cwd=repo, env=env, check=True,
                              capture_output=True, text=True).stdout.strip()

    def init(self, repo: Path) -> None:
        repo.mkdir(parents=True)
        self.run_git(repo, "init", "-q", "-b", "main")
        (repo / ".gitignore").write_text(IGNORED)

    def game(self, folder: Path, i: int) -> tuple:
        """A game ``shard{i}`` in ``folder`` with its recorded moves' files; (its waiting move,
        that move's file)."""
        moves = bot_game(Ruleset(), f"shard{i}", stop=SHARD_RECORDED + 1)
        path = write_game(folder, Ruleset(), f"shard{i}", moves[:-1], f"shard{i}", addresses(i))
        write_views(path)
        (folder / "moves").mkdir(exist_ok=True)
        for move in moves[:-1]:
            self.write_move(folder, i, move)
        last = moves[-1]
        return last, folder / "moves" / f"turn-{last.turn:03d}-{last.player}.yaml"

    @staticmethod
    def write_move(folder: Path, i: int, move) -> Path:
        path = folder / "moves" / f"turn-{move.turn:03d}-{move.player}.yaml"
        path.write_text(dump_yaml({"game": f"shard{i}", **move.as_dict()}))
        return path

    def commit_moves(self, repo: Path, waiting: list) -> str:
        """Each waiting move (``(i, (move, path))``) committed by its player; the tip."""
        for i, (move, path) in waiting:
            path.write_text(dump_yaml({"game": f"shard{i}", **move.as_dict()}))
            self.run_git(repo, "add", "-A")
            self.run_git(repo, "commit", "-qm", f"turn {move.turn}",
                         author=addresses(i)[move.player])
        return self.run_git(repo, "rev-parse", "HEAD")

    def pack(self, repo: Path) -> None:
        """Pack the repository's objects, as a clone (a CI runner's checkout) has them."""
        self.run_git(repo, "repack", "-adq")

    def commit_all(self, repo: Path, message: str) -> None:
        self.run_git(repo, "add", "-A")
        self.run_git(repo, "commit", "-qm", message)

    def timed(self, repo: Path, head: str, expected: int, extra: tuple[str, ...] = ()) -> float:
        """The CPU of one job in ``repo`` from ``head`` (git's own commands included), which
        must commit ``expected`` moves (else it measured nothing)."""
        subprocess.run([self.git, "reset", "-q", "--hard", head], cwd=repo, check=True)
        _, cpu, _, code = run_once([*self.job, *extra], repo)
        if code != 0:
            sys.exit(f"git apply {' '.join(extra)} failed in {repo} (exit {code})")
        made = self.run_git(repo, "rev-list", "--count", f"{head}..HEAD")
        if int(made) != expected:
            sys.exit(f"git apply in {repo} committed {made} moves, not {expected}")
        return cpu

    def singles(self, root: Path, count: int) -> list[tuple[Path, str]]:
        """``count`` one-game repositories, a move waiting in each: (repository, its tip)."""
        made = []
        for i in range(count):
            repo = root / f"g{i:04d}"
            self.init(repo)
            waiting = self.game(repo, i)
            self.commit_all(repo, "the game")
            made.append((repo, self.commit_moves(repo, [(i, waiting)])))
            self.pack(repo)
        return made

    def shard(self, repo: Path, count: int) -> tuple[str, list]:
        """A shard of ``count`` games in ``repo``/games, committed: (its tip, each game's
        ``(i, (waiting move, its file))``)."""
        self.init(repo)
        games = [(i, self.game(repo / "games" / f"g{i:04d}", i)) for i in range(count)]
        self.commit_all(repo, "the games")
        return self.run_git(repo, "rev-parse", "HEAD"), games


def git_shard_figures(exe: list[str], root: Path, rounds: int, count: int = SHARD_GAMES,
                      big: int = 200) -> None:
    """The git shard's figures, each a ratio of CPU measured in the same run (each process with
    the git commands it ran), without a remote:

    1. ``count`` moves, one waiting in each of ``count`` games: one `git apply --games games`
       over a shard of the games in one repository, against one `git apply` in each game's own
       repository;
    2. (issue 31) one waiting move in a shard of ``big`` games against a one-game repository's
       job (target <= 1.3 x), and ``big`` waiting moves, one in each game of that shard,
       against ``big`` one-game jobs (target <= 0.30 x)."""
    git = shutil.which("git")
    shown = subprocess.run([*exe, "git", "apply", "--help"], capture_output=True, text=True)
    if git is None or "--games" not in shown.stdout:
        print("\ngit shard: git is not installed, or this version has no git apply --games")
        return
    bench = GitBench(exe, git)
    singles = bench.singles(root / "git-singles", max(count, big))
    shard = root / "git-shard"
    _, games = bench.shard(shard, count)
    shard_head = bench.commit_moves(shard, games)
    bench.pack(shard)
    alone, together = [], []
    for _ in range(rounds):
        alone.append(sum(bench.timed(repo, head, 1) for repo, head in singles[:count]))
        together.append(bench.timed(shard, shard_head, count, ("--games", "games")))
    alone_cpu, shard_cpu = statistics.median(alone), statistics.median(together)
    print(f"\nA git shard ({count} games, a move waiting in each, no remote; CPU with git's own "
          f"commands, median of {rounds} rounds):")
    print(f"  {count} single-game `git apply` runs: {alone_cpu:6.2f} s; one `git apply --games` "
          f"over the shard: {shard_cpu:6.2f} s  x{shard_cpu / alone_cpu:.3f}")
    if big <= 0:
        return
    large = root / "git-shard-big"
    big_base, big_games = bench.shard(large, big)
    one_head = bench.commit_moves(large, big_games[:1])
    subprocess.run([git, "reset", "-q", "--hard", big_base], cwd=large, check=True)
    all_head = bench.commit_moves(large, big_games)
    bench.pack(large)
    one_alone, one_shard, many_alone, many_shard = [], [], [], []
    for _ in range(rounds):
        repo, head = singles[0]
        one_alone.append(statistics.median([bench.timed(repo, head, 1) for _ in range(5)]))
        one_shard.append(bench.timed(large, one_head, 1, ("--games", "games")))
        many_alone.append(sum(bench.timed(repo, head, 1) for repo, head in singles[:big]))
        many_shard.append(bench.timed(large, all_head, big, ("--games", "games")))
    one = statistics.median(one_shard) / statistics.median(one_alone)
    many = statistics.median(many_shard) / statistics.median(many_alone)
    print(f"\nA git shard of {big} games of {SHARD_RECORDED} recorded moves each (issue 31; "
          f"CPU with git's own commands, median of {rounds} rounds):")
    print(f"  one waiting move: `git apply --games` {statistics.median(one_shard) * 1000:7.1f} ms"
          f" / a one-game repository's `git apply` {statistics.median(one_alone) * 1000:6.1f} ms"
          f"  x{one:.3f} (target <= 1.3: {'met' if one <= 1.3 else 'NOT met'})")
    print(f"  {big} waiting moves, one a game: `git apply --games` "
          f"{statistics.median(many_shard):6.2f} s / {big} one-game `git apply` runs "
          f"{statistics.median(many_alone):6.2f} s  x{many:.3f} "
          f"(target <= 0.30: {'met' if many <= 0.30 else 'NOT met'})")


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
    parser.add_argument("--many", type=int, default=200,
                        help="games of the many-games figures (0: skip them)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the many-games figures")
    parser.add_argument("--no-engine", action="store_true", help="skip the engine figures")
    parser.add_argument("--instructions", action="store_true",
                        help="also count each command's instructions once (valgrind), the "
                        "figure no load changes")
    parser.add_argument("--pairs", action="store_true",
                        help="also run the floor before each run of a command and print the "
                        "median CPU ratio of those pairs")
    args = parser.parse_args()
    global COUNT_INSTRUCTIONS, PAIRS
    COUNT_INSTRUCTIONS, PAIRS = args.instructions, args.pairs
    exe = rebis_pbm()
    print(f"rebis-pbm benchmarks: Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} cores; {args.repeat} runs per figure, median (fastest).")

    with tempfile.TemporaryDirectory(prefix="rebis-bench-") as tmp:
        root = Path(tmp)
        floor = measure(FLOOR, root, args.repeat)
        print(f"\nImport floor (python -c 'import yaml, jsonschema, click'): "
              f"wall {floor['median'] * 1000:.1f} ms ({floor['min'] * 1000:.1f}), "
              f"cpu {floor['cpu'] * 1000:.1f} ms, peak RSS {floor['rss'] / 1024:.1f} MiB"
              + (f", {floor['instructions'] / 1e6:.1f} M instructions"
                 if floor.get("instructions") else ""))

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

        addresses_figures(exe, root, moves, floor, args.repeat)
        growth_figures(exe, root, floor, args.repeat)
        git_job_figures(exe, root, moves, floor, args.repeat)
        signed_figures(exe, root, args.repeat)
        view_check_figures(exe, root, args.repeat)
        if args.many:
            many_games_figures(exe, root, args.many, args.rounds)
            git_shard_figures(exe, root, args.rounds, big=args.many)

    if args.no_engine:
        return
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
