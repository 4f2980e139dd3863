"""A season of a league (issue 28, "Done when"): three players, each with an SSH key (signed
moves and commands), play three games, one by mail, one through a private git repository, one
in a public repository, to the end, the greedy bot choosing each move from what its player may
know. On the way: commands by mail answered in French, Portuguese and English, a command file
answered by the git job, an absence that stops the mail game's deadline, a late notice then a
stand-in move (`tick`), a webhook post for each turn to a server on 127.0.0.1; at the end
`rebis-pbm league` over the three finished records, whose standings must match what the
records' results say, computed here on their own.

Deals are the referee's (`new --referee-deal --key` for each player)."""

from __future__ import annotations

import json
import mailbox
import os
import shutil
import subprocess
from email.message import EmailMessage
from fractions import Fraction
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from test_git_job import git as bare_git
from test_public_game import GAME_ID as PUBLIC_ID
from test_public_game import Table, my_view, send, set_up, status
from test_webhook import Hook

from rebis_pbm import app as referee
from rebis_pbm.bots import GreedyBot
from rebis_pbm.cli import cli
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.deadlines import deadline_of, parse_time
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.policy import parse_message
from sshkeys import ssh_key, ssh_sign
from transport_support import PLAYERS, REFEREE, SMALL_RULES, exe, secret_key

pytestmark = pytest.mark.skipif(not (shutil.which("git") and shutil.which("ssh-keygen")),
                                reason="needs git and ssh-keygen")
LANGS = {"alice": "fr", "bob": "pt", "carol": "en"}
T0 = "2030-03-01T12:00:00Z"  # the mail game's clock: ahead of the machine's, so the test sets it
HELP = {"fr": "les commandes", "pt": "os comandos", "en": "the commands"}


def invoke(*args: object, env: dict | None = None):
    result = CliRunner(env=env).invoke(cli, [str(a) for a in args])
    return result


def hours(text: str, count: float) -> str:
    from datetime import timedelta
    return (parse_time(text) + timedelta(hours=count)).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the mail game ------------------------------------------------------------------------------

class MailGame:
    """The mail game: its record, the referee's Maildir, and what `mail in` and `tick` queued."""

    def __init__(self, root: Path, keys: dict[str, Path], referee_key: Path, hook: Hook) -> None:
        root.mkdir()
        self.game = root / "game.yaml"
        self.keys = keys
        self.box = root / "Maildir"
        mailbox.Maildir(self.box, create=True)
        self.seen: set[str] = set()
        self.count = 0
        made = invoke("new", self.game, "--insecure-seed", "--referee-deal", "--seed",
                      "season mail", "--game-id", "mail", *SMALL_RULES, "--deadline", "72h",
                      "--grace", "24h", "--absence", "14d/3", "--referee-key", referee_key,
                      "--now", T0,
                      *(a for p, address in PLAYERS.items()
                        for a in ("--player", f"{p}={address}", "--key", f"{p}={keys[p]}.pub",
                                  "--lang", f"{p}={LANGS[p]}")))
        assert made.exit_code == 0, made.output
        assert invoke("notify", "add", self.game, f"json:{hook.url('/mail')}").exit_code == 0

    def send(self, sender: str, subject: str, body: str = "", attachments=()) -> str:
        self.count += 1
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = PLAYERS[sender], REFEREE, subject
        msg["Message-ID"] = f"<season{self.count}@example.org>"
        msg.set_content(body or "Hello.\n")
        for name, data in attachments:
            msg.add_attachment(data, maintype="application", subtype="octet-stream",
                               filename=name)
        mailbox.Maildir(self.box, create=False).add(msg.as_bytes())
        done = invoke("mail", "in", self.game, self.box, "--referee", REFEREE, "--no-pictures")
        assert done.exit_code == 0, done.output
        return done.output

    def command(self, sender: str, line: str) -> str:
        """``sender`` sends a signed command line (naming the game, as a signed one must)."""
        return self.send(sender, line, "", [("c.txt.sig",
                                              ssh_sign(self.keys[sender], (line + "\n").encode()))])

    def point(self, player: str) -> str:
        """The end of ``player``'s signed commands that change the game, as their own view
        gives it (``command_point``: the point of the history they answer, issue 27)."""
        view = yaml.safe_load((self.game.with_name("game.views") / f"{player}.yaml").read_text())
        return str(view["command_point"])

    def move(self) -> str:
        """The player to move sends the greedy bot's choice, signed, by mail."""
        state = referee.open_game(self.game).replay.state
        player = state.player_to_move
        record, chosen = referee.bot_move(self.game, player, "greedy", seed="season")
        data = dump_yaml({"game": "mail", "after": record.last_digest(),
                          **chosen.as_dict()}).encode()
        return self.send(player, "my move", "Signed.\n",
                         [("move.yaml", data), ("move.yaml.sig", ssh_sign(self.keys[player],
                                                                          data))])

    def new(self) -> list:
        queue = self.game.with_name("game.mailq")
        if not (queue / "new").is_dir():
            return []
        fresh = [p for p in maildir_new(queue) if p.name not in self.seen]
        self.seen.update(p.name for p in fresh)
        return [parse_message(p.read_bytes()) for p in fresh]

    def state(self):
        return referee.open_game(self.game).replay.state


def play_mail(game: MailGame) -> dict:
    """The mail game's season: commands in three languages, an absence, a late notice and a
    stand-in move, the rest moves by mail. Returns what was seen on the way."""
    seen: dict = {}
    game.new()
    for player in PLAYERS:  # help, in each player's language, to that player alone
        assert f"command help ({player}); answer queued" in game.command(player, "help mail")
        [answer] = game.new()
        assert answer["To"].addresses[0].addr_spec == PLAYERS[player]
        assert answer["Subject"] == f"[Rebis mail] {HELP[LANGS[player]]}"
    game.move()  # turn 1
    game.new()
    # an absence: alice is away for three days from an hour on; the deadline moves with it
    before = deadline_of(referee.open_game(game.game).record)
    start, end = hours(T0, 1), hours(T0, 73)
    said = game.command("alice", f"away {start} {end} mail {game.point('alice')}")
    assert "command away (alice); answer queued" in said
    [answer] = game.new()
    assert answer["Subject"] == "[Rebis mail] absence enregistrée"
    later = deadline_of(referee.open_game(game.game).record)
    assert parse_time(later) > parse_time(before)
    seen["absence"] = (before, later)
    # past the old deadline and its grace: nobody is late, the game waits for alice
    waiting = invoke("tick", game.game, "--now", hours(before, 25), "--referee", REFEREE)
    assert waiting.exit_code == 0 and "moved for" not in waiting.output, waiting.output
    assert "late" not in waiting.output
    said = game.command("alice", f"back mail {game.point('alice')}")
    assert "command back (alice); answer queued" in said
    assert game.new()[0]["Subject"] == "[Rebis mail] tu es de retour"
    # a late notice, then the stand-in move once the grace period is over
    game.move()  # turn 2
    game.new()
    late_player = game.state().player_to_move
    deadline = deadline_of(referee.open_game(game.game).record)
    notice = invoke("tick", game.game, "--now", hours(deadline, 1), "--referee", REFEREE)
    assert f"{late_player} is late" in notice.output, notice.output
    notices = game.new()
    to_late = [m for m in notices if m["To"].addresses[0].addr_spec == PLAYERS[late_player]]
    assert len(notices) == 3 and len(to_late) == 1
    stand_in = invoke("tick", game.game, "--now", hours(deadline, 26), "--referee", REFEREE)
    assert f"the referee moved for {late_player} (missed deadline)" in stand_in.output, \
        stand_in.output
    seen["stand_in"] = late_player
    while not game.state().finished:
        game.move()
    return seen


# --- the git game (a private repository, the job run by hand) ------------------------------------

def git(repo: Path, *args: str, author: str | None = None) -> str:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": author or "Referee",
           "GIT_AUTHOR_EMAIL": PLAYERS[author] if author else "referee@example.org"}
    env.update(GIT_COMMITTER_NAME=env["GIT_AUTHOR_NAME"],
               GIT_COMMITTER_EMAIL=env["GIT_AUTHOR_EMAIL"])
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def git_job(repo: Path, secret: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(repo.parent), "GIT_CONFIG_NOSYSTEM": "1",
           "REBIS_PBM_SEED": secret, "REBIS_REFEREE_EMAIL": "referee@example.org",
           "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([exe(), "git", "apply", "HEAD"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120)


def play_git(root: Path, keys: dict[str, Path], hook: Hook) -> Path:
    """The git game: signed move files and a signed command file, the job after each commit."""
    from rebis_pbm.app import open_game
    repo = root / "repo"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "git", repo)
    git(repo, "init", "--quiet", "--initial-branch=main")
    made = invoke("new", repo / "game.yaml", "--insecure-seed", "--referee-deal", "--seed",
                  "season git", "--game-id", "gitgame", *SMALL_RULES,
                  *(a for p, address in PLAYERS.items()
                    for a in ("--player", f"{p}={address}", "--key", f"{p}={keys[p]}.pub",
                              "--lang", f"{p}={LANGS[p]}")))
    assert made.exit_code == 0, made.output
    secret = secret_key(repo / "game.secret.yaml")
    shutil.move(repo / "game.secret.yaml", root / "referee-only.secret.yaml")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Start the game")
    # the referee's webhooks, beside the record in the job's checkout (never committed)
    assert invoke("notify", "add", repo / "game.yaml", f"json:{hook.url('/git')}").exit_code == 0
    os.environ["REBIS_PBM_SEED"] = secret
    try:
        # bob asks for the history, signed, as a command file; answered in Portuguese
        line = "history gitgame"
        (repo / "commands").mkdir()
        (repo / "commands" / "bob-1.txt").write_text(line + "\n")
        (repo / "commands" / "bob-1.txt.sig").write_bytes(ssh_sign(keys["bob"],
                                                                   (line + "\n").encode()))
        git(repo, "add", "commands")
        git(repo, "commit", "--quiet", "-m", "history", author="bob")
        done = git_job(repo, secret)
        assert done.returncode == 0, done.stderr
        assert (repo / "answers" / "bob-1.txt").read_text().startswith("os lances até agora\n")
        while not (state := open_game(repo / "game.yaml").replay.state).finished:
            player = state.player_to_move
            record, chosen = referee.bot_move(repo / "game.yaml", player, "greedy", seed="g")
            path = repo / "moves" / f"turn-{chosen.turn:03d}-{player}.yaml"
            data = dump_yaml({"game": "gitgame", "after": record.last_digest(),
                              **chosen.as_dict()}).encode()
            path.write_bytes(data)
            Path(f"{path}.sig").write_bytes(ssh_sign(keys[player], data))
            git(repo, "add", "moves")
            git(repo, "commit", "--quiet", "-m", f"turn {chosen.turn}", author=player)
            done = git_job(repo, secret)
            assert done.returncode == 0, done.stderr
    finally:
        del os.environ["REBIS_PBM_SEED"]
    return repo / "game.yaml"


# --- the public repository ----------------------------------------------------------------------

def public_job(table: Table, settings: Path) -> subprocess.CompletedProcess:
    """The referee's job as CI runs it (test_public_game.job), with the webhooks' settings
    written into the fresh checkout from a secret, as the seed is given."""
    from test_git_job import bare_env
    table.jobs += 1
    where = table.root / "jobs" / str(table.jobs)
    where.parent.mkdir(exist_ok=True)
    bare_git(where.parent, "clone", "--quiet", f"file://{table.origin}", str(where))
    shutil.copy(settings, where / "game.notify.yaml")
    env = {**bare_env(where.parent / "home"), "REBIS_PBM_SEED": table.secret,
           "REBIS_PBM_AGE_IDENTITY": table.identity}
    done = subprocess.run([exe(), "git", "apply", "--remote", "origin", "--branch", "main",
                           "--email", "referee@example.org"], cwd=where, env=env,
                          capture_output=True, text=True, timeout=120)
    shutil.rmtree(where)
    return done


def play_public(root: Path, hook: Hook) -> tuple[Table, Path]:
    root.mkdir()
    table = set_up(root)
    settings = root / "public.notify.yaml"
    scratch = root / "scratch"
    scratch.mkdir()
    shutil.copy(table.clone("alice") / "game.yaml", scratch / "game.yaml")
    assert invoke("notify", "add", scratch / "game.yaml", f"json:{hook.url('/public')}"
                  ).exit_code == 0
    shutil.copy(scratch / "game.notify.yaml", settings)
    while (now := status(table, "alice"))["phase"] != "finished":
        mover = now["player"]
        seen = my_view(table, mover)
        send(table, mover, {"game": PUBLIC_ID, **GreedyBot().choose(seen.state).as_dict()})
        done = public_job(table, settings)
        assert done.returncode == 0, done.stdout + done.stderr
    final = root / "final"
    bare_git(root, "clone", "--quiet", str(table.origin), str(final))
    return table, final / "game.yaml"


# --- the season ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def season(tmp_path_factory):
    root = tmp_path_factory.mktemp("season")
    hook = Hook()
    try:
        table, public_record = play_public(root / "public", hook)
        keys = table.keys  # the same three players, the same keys, in every game
        referee_key = ssh_key(root, "referee_key")
        mail = MailGame(root / "mail", keys, referee_key, hook)
        old = os.environ.get("REBIS_PBM_REFEREE_KEY")
        os.environ["REBIS_PBM_REFEREE_KEY"] = str(referee_key)
        try:
            seen = play_mail(mail)
        finally:
            if old is None:
                del os.environ["REBIS_PBM_REFEREE_KEY"]
            else:
                os.environ["REBIS_PBM_REFEREE_KEY"] = old
        git_record = play_git(root / "git", keys, hook)
        league = root / "league"
        for name, record in (("mail", mail.game), ("git", git_record),
                             ("public", public_record)):
            (league / name).mkdir(parents=True)
            shutil.copy(record, league / name / "game.yaml")
        yield league, hook, seen
    finally:
        hook.close()


def test_every_game_of_the_season_is_over_and_verifies(season):
    league, _, _ = season
    for name in ("mail", "git", "public"):
        record = league / name / "game.yaml"
        assert yaml.safe_load(record.read_text())["status"]["phase"] == "finished"
        assert invoke("verify", record).exit_code == 0, name


def test_a_webhook_post_for_each_turn_of_each_game(season):
    league, hook, _ = season
    for path, name in (("/mail", "mail"), ("/git", "git"), ("/public", "public")):
        doc = yaml.safe_load((league / name / "game.yaml").read_text())
        turns = [json.loads(body)["turn"] for _, where, _, body in hook.requests
                 if where == path]
        # every turn that began after the first move, once (the last move ends the game)
        assert turns == list(range(2, len(doc["moves"]) + 1)), (name, turns)


def test_the_absence_stopped_the_clock_and_the_late_player_was_replaced(season):
    league, _, seen = season
    before, later = seen["absence"]
    assert parse_time(later) > parse_time(before)
    doc = yaml.safe_load((league / "mail" / "game.yaml").read_text())
    stand_ins = [m for m in doc["moves"] if m.get("by") == "referee"]
    assert [(m["player"], m["reason"]) for m in stand_ins] == [(seen["stand_in"],
                                                                "missed deadline")]


def expected_standings(league: Path) -> dict[str, dict]:
    """Each player's line, from the records alone: a win is a point shared by a game's
    winners (docs/league.md), the score the sum of final scores, the stand-in moves the
    referee's moves for them, the missed turns those of a missed deadline."""
    table: dict[str, dict] = {}
    for record in sorted(league.glob("*/game.yaml")):
        doc = yaml.safe_load(record.read_text())
        result = doc["status"]
        for player in doc["players"]:
            line = table.setdefault(player, {"games": 0, "finished": 0, "wins": 0,
                                             "shared_wins": 0, "points": Fraction(0),
                                             "score": 0, "missed_turns": 0, "stand_ins": 0})
            line["games"] += 1
            theirs = [m for m in doc["moves"]
                      if m["player"] == player and m.get("by") == "referee"]
            line["stand_ins"] += len(theirs)
            line["missed_turns"] += sum(m.get("reason") == "missed deadline" for m in theirs)
            line["finished"] += 1
            line["score"] += result["scores"][player]
            if player in result["winners"]:
                line["wins" if len(result["winners"]) == 1 else "shared_wins"] += 1
                line["points"] += Fraction(1, len(result["winners"]))
    return table


def test_the_league_standings_match_the_finished_records(season):
    league, _, _ = season
    done = invoke("league", league, "--format", "json")
    assert done.exit_code == 0, done.output
    table = json.loads(done.output)
    assert table["not_counted"] == [] and table["in_progress"] == []
    found = {line["player"]: {**{k: line[k] for k in ("games", "finished", "wins",
                                                         "shared_wins", "score",
                                                         "missed_turns", "stand_ins")},
                              "points": Fraction(str(line["points"]))}
             for line in table["standings"]}
    assert found == expected_standings(league)
    assert sum(line["missed_turns"] for line in found.values()) == 1
