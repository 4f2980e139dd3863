"""Play by e-mail through a real SMTP server: aiosmtpd runs in this process on 127.0.0.1 (a free
port), `rebis-pbm mail out --smtp` sends to it from a subprocess, and the tests read what each
address received. Nothing leaves 127.0.0.1."""

import mailbox
import socket
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from click.testing import CliRunner

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.transports.mail.policy import parse_message
from transport_support import PLAYERS, REFEREE, illegal_card, new_args, pick_move, run

ENV = {"REBIS_PBM_REFEREE": REFEREE}


class Inbox:
    """An aiosmtpd handler keeping every delivery: (envelope recipients, parsed message)."""

    def __init__(self):
        self.deliveries = []

    async def handle_DATA(self, server, session, envelope):
        # SMTP carries CRLF line ends; store the message as a mail client saves it.
        data = envelope.content.replace(b"\r\n", b"\n")
        self.deliveries.append((sorted(envelope.rcpt_tos), parse_message(data)))
        return "250 OK"

    def take(self):
        taken, self.deliveries = self.deliveries, []
        return taken


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(**parameters):
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port(),
                            server_hostname="localhost", **parameters)
    controller.start()
    return controller, inbox


@pytest.fixture
def smtp():
    controller, inbox = start_server()
    yield f"127.0.0.1:{controller.port}", inbox
    controller.stop()


def check_views(deliveries, game) -> dict:
    """Each player (and the referee) received exactly one message, addressed to them alone,
    holding exactly their own view: the view file the referee's `apply` wrote for them."""
    by_address = {}
    for recipients, msg in deliveries:
        assert len(recipients) == 1, recipients
        assert recipients[0] not in by_address, f"two messages to {recipients[0]}"
        assert msg["To"].addresses[0].addr_spec == recipients[0]
        by_address[recipients[0]] = msg
    assert sorted(by_address) == sorted([*PLAYERS.values(), REFEREE])
    views = game.with_name("game.views")
    for viewer, address in [*PLAYERS.items(), ("public", REFEREE)]:
        msg = by_address[address]
        [view] = [p for p in msg.iter_attachments() if p.get_filename().startswith("view-")]
        assert view.get_content().decode() == (views / f"{viewer}.yaml").read_text()
        text = msg.get_body(("plain",)).get_content()
        assert (views / f"{viewer}.txt").read_text() in text
    return by_address


def reply(original, sender: str, move_text: str, style: int) -> EmailMessage:
    """A player's answer to the referee's message, written the way mail clients do."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = original["From"]
    msg["Subject"] = "Re: " + original["Subject"]
    msg["Message-ID"] = f"<{abs(hash((sender, move_text)))}.{style}@players.example.org>"
    msg["In-Reply-To"] = original["Message-ID"]
    quoted = "".join("> " + line + "\n" for line in
                     original.get_body(("plain",)).get_content().splitlines())
    if style == 0:    # the move file attached
        msg.set_content("My move is attached.\n\n" + quoted)
        msg.add_attachment(move_text.encode(), maintype="application", subtype="yaml",
                           filename="my-move.yaml")
    elif style == 1:  # in the text between --- and ..., above the quoted message
        msg.set_content(f"Here it is:\n---\n{move_text}...\n\n-- \nSent from my phone\n{quoted}")
    else:             # the whole text is the move, then the signature
        msg.set_content(f"{move_text}-- \nA player\n")
    return msg


def deliver(box, msg):
    mailbox.Maildir(box, create=True).add(msg)  # what the referee's mail delivery agent does


def test_a_whole_game_by_email_through_a_real_smtp_server(tmp_path, smtp):
    server, inbox = smtp
    game = tmp_path / "game.yaml"
    box = tmp_path / "referee-inbox"

    def mail_round():
        # mail in runs in this process (CliRunner) to keep the test quick; the console script
        # reads mail in test_mail_cli.py. mail out is the installed script, a real SMTP client.
        got_in = CliRunner().invoke(cli, ["mail", "in", str(game), str(box)], env=ENV)
        assert got_in.exit_code == 0, got_in.output
        out = run("mail", "out", game, "--smtp", server)
        assert out.returncode == 0, out.stderr
        return got_in.stdout, inbox.take()

    assert run(*new_args(game, "mail-game", "mailgame"), env=ENV).returncode == 0
    assert run("mail", "views", game, env=ENV).returncode == 0
    assert run("mail", "out", game, "--smtp", server).returncode == 0
    latest = check_views(inbox.take(), game)
    assert latest[PLAYERS["alice"]]["Subject"] == "[Rebis mailgame] turn 1: your move"

    refusals = 0
    while True:
        record, replay, _ = open_game(game)
        state = replay.state
        if state.finished:
            break
        mover = state.player_to_move
        move = pick_move(state)
        move_text = dump_yaml({"game": record.game, **move.as_dict()})
        if state.turn == 2:
            # carol sends bob's move from her own address: refused, answered to carol alone.
            forged = reply(latest[PLAYERS["carol"]], PLAYERS["carol"], move_text, 2)
            deliver(box, forged)
            said, got = mail_round()
            assert "refused" in said
            [(recipients, answer)] = got
            assert recipients == [PLAYERS["carol"]]
            assert answer["In-Reply-To"] == forged["Message-ID"]
            assert "a player can only send their own moves" in answer.get_content()
            refusals += 1
        if state.turn == 4:
            # alice plays a card she does not hold: refused, answered to alice alone.
            wrong = move_text.replace(f"cards: {move.play.cards[0]}",
                                      f"cards: {illegal_card(state)}")
            deliver(box, reply(latest[PLAYERS[mover]], PLAYERS[mover], wrong, 0))
            said, got = mail_round()
            [(recipients, answer)] = got
            assert recipients == [PLAYERS[mover]] and "move rejected" in answer.get_content()
            assert answer["Subject"] == "[Rebis mailgame] turn 4: your move was not applied"
            refusals += 1
        assert len(open_game(game)[0].moves) == state.turn - 1  # refusals changed nothing
        sent = reply(latest[PLAYERS[mover]], PLAYERS[mover], move_text, state.turn % 3)
        deliver(box, sent)
        said, got = mail_round()
        assert f"turn {state.turn} applied ({mover})" in said
        latest = check_views(got, game)
        assert latest[PLAYERS[mover]]["In-Reply-To"] == sent["Message-ID"]
        assert all(f"[Rebis mailgame] turn {state.turn + 1}" in m["Subject"] or
                   "the game is over" in m["Subject"] for m in latest.values())

    record, replay, _ = open_game(game)
    assert replay.state.finished and len(record.moves) == 10 and refusals == 2
    game.with_name("game.secret.yaml").unlink()  # the record revealed its seed at the end
    verified = run("verify", game, env={"REBIS_PBM_SEED": ""})
    assert verified.returncode == 0 and verified.stdout.startswith(b"Verified: game mailgame (")
    moves = [move for move, _ in replay.history]
    assert {m.player for m in moves} == set(PLAYERS)
    assert any(m.red_token is not None for m in moves)
    for msg in latest.values():
        assert msg["Subject"] == "[Rebis mailgame] turn 10 was the last: the game is over"
        assert "Score (R13):" in msg.get_body(("plain",)).get_content()


@pytest.fixture
def game_with_views(tmp_path):
    game = tmp_path / "game.yaml"
    assert run(*new_args(game, "smtp-tests", "g1"), env=ENV).returncode == 0
    assert run("mail", "views", game, env=ENV).returncode == 0
    return game


def queue_size(game) -> int:
    return len(list(game.with_name("game.mailq").joinpath("new").iterdir()))


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_login_with_the_password_from_the_environment(game_with_views):
    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (auth_data.login, auth_data.password) == (b"ref", b"s3cret")
        return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535

    controller, inbox = start_server(authenticator=authenticate, auth_require_tls=False,
                                     auth_required=True)
    try:
        args = ["mail", "out", game_with_views, "--smtp", f"127.0.0.1:{controller.port}",
                "--user", "ref"]
        wrong = run(*args, env={"REBIS_PBM_SMTP_PASSWORD": "guess"})
        assert wrong.returncode == 2 and b"could not send through" in wrong.stderr
        assert b"4 still queued" in wrong.stderr and queue_size(game_with_views) == 4
        assert inbox.take() == []
        right = run(*args, env={"REBIS_PBM_SMTP_PASSWORD": "s3cret"})
        assert right.returncode == 0, right.stderr
        assert len(inbox.take()) == 4 and queue_size(game_with_views) == 0
    finally:
        controller.stop()


def test_starttls_refused_by_the_server_keeps_the_queue(game_with_views, smtp):
    server, inbox = smtp
    result = run("mail", "out", game_with_views, "--smtp", server, "--starttls")
    assert result.returncode == 2 and b"STARTTLS" in result.stderr
    assert queue_size(game_with_views) == 4 and inbox.take() == []


def test_no_server_listening_keeps_the_queue(game_with_views):
    result = run("mail", "out", game_with_views, "--smtp", f"127.0.0.1:{free_port()}")
    assert result.returncode == 2 and b"Connection refused" in result.stderr
    assert b"0 messages sent, 4 still queued (run mail out again)" in result.stderr
    assert queue_size(game_with_views) == 4


def test_a_french_subject_keeps_its_spaces_through_the_smtp_server(tmp_path, smtp):
    """Issue 28: `mail out --smtp` once folded the queued headers again (smtplib's send_message),
    and two encoded words of the French "n'a pas été appliqué" lost the space between them. The
    game id's length puts the fold there; the subject is decoded as the server received it."""
    server, inbox = smtp
    game = tmp_path / "game.yaml"
    made = run(*new_args(game, "french-subject", "subject-in-french-by-smtp"), "--lang",
               "alice=fr", env=ENV)
    assert made.returncode == 0, made.stderr
    state = open_game(game)[1].state
    move = pick_move(state)
    wrong = dump_yaml({"game": "subject-in-french-by-smtp", **move.as_dict()}).replace(
        f"cards: {move.play.cards[0]}", f"cards: {illegal_card(state)}")
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = PLAYERS["alice"], REFEREE, "mon coup"
    msg.set_content(wrong)
    (tmp_path / "move.eml").write_bytes(msg.as_bytes())
    assert run("mail", "in", game, tmp_path / "move.eml", env=ENV).returncode == 0
    out = run("mail", "out", game, "--smtp", server)
    assert out.returncode == 0, out.stderr
    [(recipients, answer)] = inbox.take()
    assert recipients == [PLAYERS["alice"]]
    assert str(answer["Subject"]) == ("[Rebis subject-in-french-by-smtp] tour 1\u00a0: "
                                      "ton coup n'a pas été appliqué")
