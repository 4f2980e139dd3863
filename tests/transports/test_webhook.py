"""Turn notices by webhook (issue 28, item 5; docs/league.md): posted to a real HTTP server on
127.0.0.1 in the bodies of JSON, Discord, Slack and Matrix; the public view's last line and "your
turn", never a hidden card; a failed post never fails anything, stays queued and is posted at
the next send; the URLs, secrets of the referee, stay in a file of theirs beside the record."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from rebis_pbm import app as referee
from rebis_pbm.record.deadlines import parse_duration
from rebis_pbm.transports.webhook.jobs import notify_queue, queue_turn_notice, send_notices
from rebis_pbm.transports.webhook.settings import notify_path

START = datetime(2025, 1, 1, tzinfo=timezone.utc)
TOKEN = "s3cret-t0ken"  # in every URL: it must never leave the referee's files
MATRIX = "/_matrix/client/v3/rooms/%21room%3Aexample.org/send/m.room.message"


def at(hours: float) -> str:
    return (START + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


class Hook:
    """A webhook server on 127.0.0.1: answers each request with the next of ``answers``
    (a status, or (status, headers)), then 204; keeps every request."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict, bytes]] = []
        self.answers: list = []
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hook.requests.append((self.command, self.path, dict(self.headers), body))
                status = hook.answers.pop(0) if hook.answers else 204
                status, headers = status if isinstance(status, tuple) else (status, {})
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_PUT = do_GET = answer

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def bodies(self) -> list[dict]:
        return [json.loads(body) for _, _, _, body in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook():
    server = Hook()
    yield server
    server.close()


def new_game(folder: Path, players=("ana", "bob")) -> Path:
    game = folder / "g.yaml"
    referee.create_game(game, list(players), seed="webhooks", insecure_seed=True, game_id="wh",
                        ruleset=referee.ruleset_from(False, ["golden_dust=2", "gold=1"]),
                        deadline=parse_duration("72h"), now=at(0))
    return game


def move(game: Path, hours: float) -> str | None:
    """The player to move plays (the greedy bot's choice as their own move); returns the next
    player to move (None: the game is over)."""
    state = referee.open_game(game).replay.state
    record, chosen = referee.bot_move(game, state.player_to_move, "greedy", seed="w")
    referee.submit_move(game, json.dumps({"game": record.game, **chosen.as_dict()}).encode(),
                        "move", now=at(hours))
    state = referee.open_game(game).replay.state
    return None if state.finished else state.player_to_move


def public_last_line(game: Path) -> str:
    """The last line of events of the public view file that `apply` wrote (game.views)."""
    text = (game.parent / "g.views" / "public.txt").read_text()
    events = text.split("Recent events:\n")[1].split("\n\n")[0].splitlines()
    return events[-1].strip()


def text_of(body: dict) -> str:
    return body.get("text") or body.get("content") or body["body"]


# --- posting -------------------------------------------------------------------------------------

def test_each_turn_posts_one_notice_to_each_webhook_in_its_format(cli, tmp_path, hook):
    game = new_game(tmp_path)
    done = cli("notify", "add", game, f"ana=discord:{hook.url('/ana')}?t={TOKEN}",
               f"bob=slack:{hook.url('/bob')}", f"json:{hook.url('/all')}",
               f"matrix:{hook.url(MATRIX)}?access_token={TOKEN}")
    assert done.code == 0, done.err
    assert TOKEN not in done.out
    assert cli("notify", "queue", game, "--now", at(1)).out == "Queued 3 notices.\n"
    sent = cli("notify", "send", game)
    assert sent.code == 0 and sent.out.startswith("Posted 3 notices; 0 kept"), sent.err

    first = public_last_line(game)
    call = "Rebis game wh: ana, your turn (turn 1); deadline 2025-01-04T00:00:00Z (UTC)."
    (m1, p1, h1, _), (m2, p2, _, _), (m3, p3, _, _) = hook.requests
    assert (m1, p1) == ("POST", f"/ana?t={TOKEN}") and h1["Content-Type"].startswith(
        "application/json")
    assert (m2, p2) == ("POST", "/all")
    assert m3 == "PUT" and p3.startswith(MATRIX + "/rebis-wh-1-turn-")
    assert p3.endswith(f"?access_token={TOKEN}")
    discord, whole, matrix = hook.bodies()
    assert discord == {"content": f"{first}\n{call}"}
    assert whole == {"notice": "turn", "game": "wh", "turn": 1, "player": "ana",
                     "deadline": "2025-01-04T00:00:00Z", "text": f"{first}\n{call}"}
    assert matrix == {"msgtype": "m.text", "body": f"{first}\n{call}"}

    assert move(game, 2) == "bob"
    cli("notify", "queue", game, "--now", at(2))
    cli("notify", "send", game)
    assert [p.split("?")[0][:len(MATRIX)] for _, p, _, _ in hook.requests[3:]] == \
        ["/bob", "/all", MATRIX]
    slack = hook.bodies()[3]
    assert slack == {"text": f"{public_last_line(game)}\nRebis game wh: bob, your turn (turn 2); "
                             f"deadline 2025-01-04T02:00:00Z (UTC)."}
    # nothing new: nothing queued, nothing posted
    assert cli("notify", "queue", game, "--now", at(3)).out == "Queued 0 notices.\n"
    assert cli("notify", "send", game).out.startswith("Posted 0 notices")
    assert len(hook.requests) == 6


def test_no_hidden_card_in_any_body_of_a_whole_game(tmp_path, hook):
    game = new_game(tmp_path)
    referee_url = hook.url("/all")
    assert queue_turn_notice(game) == 0  # no webhooks yet: nothing, not even a queue
    assert not notify_queue(game).exists()
    from rebis_pbm.transports.webhook.settings import Target, add_targets
    add_targets(game, ("ana", "bob"), "wh", [Target(referee_url), Target(hook.url("/ana"),
                                                                         "discord", "ana")])
    hours, lines, player = 1, [], "ana"
    while player is not None:
        assert queue_turn_notice(game, now=at(hours), post=True) >= 1
        lines.append((public_last_line(game), player, referee.player_view(game, player)))
        hours += 1
        player = move(game, hours)
    assert queue_turn_notice(game, now=at(hours), post=True) == 0  # over: no turn begins
    bodies = [text_of(b) for b in hook.bodies()]
    assert len(bodies) == sum(1 + (p == "ana") for _, p, _ in lines)
    told = iter(bodies)
    for public, player, view in lines:
        for _ in range(1 + (player == "ana")):
            text = next(told)
            assert text.splitlines()[0] == public, (text, public)
            assert f"{player}, your turn" in text
            private = [e["text"] for e in view["history"]]
            assert "you drew" not in text and "Your hand" not in text and "drew a" not in text
            assert not any(p in text for p in private if p not in public), "a private line"
            assert str(view["you"]["hand"]) not in text


# --- failures and retries ----------------------------------------------------------------------

def test_a_failed_post_never_fails_and_is_posted_at_the_next_send(cli, tmp_path, hook):
    game = new_game(tmp_path)
    assert cli("notify", "add", game, f"matrix:{hook.url(MATRIX)}?access_token={TOKEN}").code == 0
    hook.answers = [503]
    assert queue_turn_notice(game, now=at(1), post=True) == 1  # no exception: the post failed
    [kept] = notify_queue(game).glob("*.json")
    assert json.loads(kept.read_text())["attempts"] == 1
    done = cli("notify", "send", game)
    assert done.code == 0 and done.out.startswith("Posted 1 notice;"), done.err
    assert not list(notify_queue(game).glob("*.json"))
    (m1, p1, _, b1), (m2, p2, _, b2) = hook.requests
    assert (m1, p1, b1) == (m2, p2, b2)  # the same transaction: Matrix keeps one message


def test_a_webhook_that_is_down_keeps_the_notice_queued(cli, tmp_path):
    game = new_game(tmp_path)
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert cli("notify", "add", game, f"ana=http://127.0.0.1:{port}/x?k={TOKEN}").code == 0
    assert queue_turn_notice(game, now=at(1), post=True) == 1
    done = cli("notify", "send", game)
    assert done.code == 0 and "0 notices; 1 kept for the next send" in done.out
    assert "not posted for now" in done.err and TOKEN not in done.err
    assert len(list(notify_queue(game).glob("*.json"))) == 1


def test_a_webhook_that_never_answers_times_out(tmp_path):
    game = new_game(tmp_path)
    from rebis_pbm.transports.webhook.settings import Target, add_targets
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)  # accepts connections, never answers
        add_targets(game, ("ana", "bob"), "wh",
                    [Target(f"http://127.0.0.1:{silent.getsockname()[1]}/slow")])
        queue_turn_notice(game, now=at(1))
        began = time.monotonic()
        done = send_notices(game, timeout=0.5)
        assert time.monotonic() - began < 10
    assert (done.sent, done.kept, done.set_aside) == (0, 1, 0)


def test_a_refusal_for_good_is_set_aside_until_retried(cli, tmp_path, hook):
    game = new_game(tmp_path)
    cli("notify", "add", game, f"ana=slack:{hook.url('/gone')}")
    hook.answers = [404]
    queue_turn_notice(game, now=at(1))
    done = cli("notify", "send", game)
    assert done.code == 0 and "1 set aside" in done.out and "refused for good" in done.err
    failed = notify_queue(game) / "failed"
    assert len(list(failed.glob("*.json"))) == 1
    assert cli("notify", "send", game).out.startswith("Posted 0 notices")  # left aside
    done = cli("notify", "send", game, "--retry-failed")
    assert done.out.startswith("Posted 1 notice;"), done.out
    assert not list(failed.glob("*.json")) and len(hook.requests) == 2


def test_a_redirect_is_not_followed(tmp_path, hook):
    game = new_game(tmp_path)
    from rebis_pbm.transports.webhook.settings import Target, add_targets
    add_targets(game, ("ana", "bob"), "wh", [Target(hook.url("/moved"))])
    hook.answers = [(307, {"Location": hook.url("/elsewhere")})]
    queue_turn_notice(game, now=at(1))
    done = send_notices(game)
    assert done.set_aside == 1 and [p for _, p, _, _ in hook.requests] == ["/moved"]


# --- once per turn, deadlines -----------------------------------------------------------------

def test_a_deadline_notice_once_per_turn_when_it_nears(tmp_path, hook):
    game = new_game(tmp_path)
    from rebis_pbm.transports.webhook.settings import Target, add_targets
    add_targets(game, ("ana", "bob"), "wh", [Target(hook.url("/ana"), "json", "ana")])
    assert queue_turn_notice(game, now=at(1), post=True) == 1
    assert queue_turn_notice(game, now=at(30), post=True) == 0  # 42 h left: not yet near
    assert queue_turn_notice(game, now=at(60), post=True) == 1  # 12 h left
    assert queue_turn_notice(game, now=at(61), post=True) == 0  # once a turn
    turn, deadline = hook.bodies()
    assert (turn["notice"], deadline["notice"]) == ("turn", "deadline")
    assert deadline["text"].endswith("your turn (turn 1); the deadline, 2025-01-04T00:00:00Z "
                                     "(UTC), is near: after it the referee may move for you.")
    # bob's webhook hears nothing of ana's turns; the next turn's notice goes to bob alone
    assert move(game, 62) == "bob"
    assert queue_turn_notice(game, now=at(62)) == 0


# --- posted by the commands that change a game ------------------------------------------------

def test_apply_tick_and_mail_in_post_the_notice_of_the_turn_they_begin(cli, tmp_path, hook):
    """Issue 28, item 5: the commands that record a move post the next turn's notice themselves
    (no `notify queue` needed): apply and tick's stand-in move (mail in: the test below)."""
    game = new_game(tmp_path)
    assert cli("notify", "add", game, f"json:{hook.url('/all')}").code == 0
    state = referee.open_game(game).replay.state
    record, chosen = referee.bot_move(game, state.player_to_move, "greedy", seed="w")
    move_file = tmp_path / "m.yaml"
    move_file.write_text(json.dumps({"game": record.game, **chosen.as_dict()}))
    done = cli("apply", game, move_file, "--now", at(2))
    assert done.code == 0, done.err
    assert [(b["notice"], b["player"], b["turn"]) for b in hook.bodies()] == [("turn", "bob", 2)]
    done = cli("tick", game, "--now", at(2 + 73))  # bob is late: the referee moves for him
    assert done.code == 0 and "the referee moved for bob" in done.out, done.out
    assert [(b["player"], b["turn"]) for b in hook.bodies()][-1] == ("ana", 3)
    assert len(hook.bodies()) == 2


def test_mail_in_posts_the_notice_of_the_turn_it_begins(cli, tmp_path, hook):
    from email.message import EmailMessage

    game = tmp_path / "g.yaml"
    referee.create_game(game, ["ana", "bob"], seed="webhooks", insecure_seed=True, game_id="wh",
                        addresses={"ana": "ana@example.org", "bob": "bob@example.org"},
                        now=at(0))
    assert cli("notify", "add", game, f"bob=json:{hook.url('/bob')}").code == 0
    state = referee.open_game(game).replay.state
    record, chosen = referee.bot_move(game, "ana", "greedy", seed="w")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ana@example.org", "referee@example.org", "move"
    msg.add_attachment(json.dumps({"game": record.game, **chosen.as_dict()}).encode(),
                       maintype="application", subtype="yaml", filename="move.yaml")
    (tmp_path / "m.eml").write_bytes(msg.as_bytes())
    done = cli("mail", "in", game, tmp_path / "m.eml", "--referee", "referee@example.org")
    assert done.code == 0 and "turn 1 applied (ana)" in done.out, done.out + done.err
    assert state.player_to_move == "ana"
    assert [(b["notice"], b["player"], b["turn"]) for b in hook.bodies()] == [("turn", "bob", 2)]


def test_a_notice_that_cannot_be_queued_is_a_note_and_the_move_stands(cli, tmp_path, hook):
    game = new_game(tmp_path)
    assert cli("notify", "add", game, f"json:{hook.url('/all')}").code == 0
    Path(notify_path(game)).write_text("game: another\ntargets: []\n")  # broken settings
    state = referee.open_game(game).replay.state
    record, chosen = referee.bot_move(game, state.player_to_move, "greedy", seed="w")
    move_file = tmp_path / "m.yaml"
    move_file.write_text(json.dumps({"game": record.game, **chosen.as_dict()}))
    done = cli("apply", game, move_file, "--now", at(2))
    assert done.code == 0, done.err
    assert "note: the move stands, but its chat notices were not queued" in done.err
    assert referee.open_game(game).replay.state.turn == 2


# --- where the URLs are kept -------------------------------------------------------------------

def test_the_urls_stay_in_the_referees_file_beside_the_record(cli, tmp_path, hook):
    game = new_game(tmp_path)
    record = game.read_bytes()
    done = cli("notify", "add", game, f"ana=discord:{hook.url('/a')}?token={TOKEN}")
    assert done.code == 0, done.err
    assert game.read_bytes() == record  # the record is not touched
    settings = Path(notify_path(game))
    assert settings == tmp_path / "g.notify.yaml"
    assert settings.stat().st_mode & 0o777 == 0o600 and TOKEN in settings.read_text()
    queue_turn_notice(game, now=at(1))
    assert notify_queue(game).stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in notify_queue(game).iterdir())
    move(game, 2)
    listed = cli("notify", "list", game)
    assert "ana: discord http://127.0.0.1:" in listed.out and TOKEN not in listed.out
    for path in [game, *(tmp_path / "g.views").iterdir()]:
        assert TOKEN not in path.read_text(), path
    assert cli("verify", game).code == 0
    assert cli("league", tmp_path).code == 0  # the league reads the record, not the settings


def test_a_league_wide_url_goes_to_every_game_of_a_shard(cli, tmp_path, hook):
    for name, players in (("g1", ("ana", "bob")), ("g2", ("bob", "cy"))):
        (tmp_path / name).mkdir()
        referee.create_game(tmp_path / name / "game.yaml", list(players), seed=name,
                            insecure_seed=True, game_id=name)
    done = cli("notify", "add", tmp_path, f"slack:{hook.url('/league')}", f"cy={hook.url('/cy')}")
    assert done.code == 0, done.err
    assert "g1: every turn -> slack" in done.out and "g2: cy -> json" in done.out
    assert "g1: cy" not in done.out  # cy plays only in g2
    assert cli("notify", "queue", tmp_path).out == "Queued 2 notices.\n"  # g1 ana; g2 bob
    cli("notify", "send", tmp_path)
    assert sorted(text_of(b).splitlines()[-1] for b in hook.bodies()) == \
        ["Rebis game g1: ana, your turn (turn 1).", "Rebis game g2: bob, your turn (turn 1)."]
    assert cli("notify", "remove", tmp_path, "--player", "cy").out == "Removed 1 webhook.\n"
    assert cli("notify", "remove", tmp_path, "--all").out == "Removed 2 webhooks.\n"
    assert not Path(notify_path(tmp_path / "g1" / "game.yaml")).exists()


@pytest.mark.parametrize("target", ["not-a-url", "ftp://127.0.0.1/x", "ana=", "discord:",
                                    "ana=http:///nohost", "http://127.0.0.1/a b"])
def test_a_target_that_is_no_webhook_url_is_refused(cli, tmp_path, target):
    game = new_game(tmp_path)
    cli("notify", "add", game, target).refused(2, ["webhook URL"])
    assert not Path(notify_path(game)).exists()


def test_a_player_not_in_the_game_and_another_games_file_are_refused(cli, tmp_path, hook):
    game = new_game(tmp_path)
    cli("notify", "add", game, f"zed={hook.url('/z')}").refused(2, ["zed"])
    other = tmp_path / "other"
    other.mkdir()
    referee.create_game(other / "g.yaml", ["ana", "bob"], seed="x", insecure_seed=True,
                        game_id="other")
    assert cli("notify", "add", other / "g.yaml", hook.url("/o")).code == 0
    Path(notify_path(game)).write_text(Path(notify_path(other / "g.yaml")).read_text())
    cli("notify", "queue", game).refused(2, ["for game other, not game wh"])
