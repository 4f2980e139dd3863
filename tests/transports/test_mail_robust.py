"""Mail that survives real mail servers and real mail clients (issue 14): messages an IMAP
server left unseen in cur/, overlapping cron runs, a queue that could not be written, a missing
Maildir; an SMTP server answering 4xx and 5xx (aiosmtpd on 127.0.0.1), implicit TLS, the local
sendmail, owner-only files, and the .forward pipe that never bounces an applied move. Each
reproduces a failure of the earlier version first."""

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from test_mail_cli import REFEREE, SEED, incoming, invoke, maildir, move_doc, queued, state_of
from test_mail_smtp import free_port

from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.policy import parse_message
from transport_support import PLAYERS, exe, new_args, pick_move, run

ENV = {"REBIS_PBM_REFEREE": REFEREE}


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "game.yaml"
    assert invoke(*new_args(path, SEED, "g1")).exit_code == 0
    assert invoke("mail", "views", path, "--referee", REFEREE).exit_code == 0
    for msg in maildir_new(path.with_name("game.mailq")):
        msg.unlink()  # the deal's views, sent: start from an empty queue
    return path


def alice_move(game) -> bytes:
    return incoming("alice@example.org", move_doc(pick_move(state_of(game))))


def test_a_message_an_imap_server_moved_to_cur_unseen_is_read(game, tmp_path):
    box = maildir(tmp_path / "inbox")
    (box / "cur" / "1700000000.m1.host:2,").write_bytes(alice_move(game))
    (box / "cur" / "1700000000.m0.host:2,S").write_bytes(b"From: x@y.org\n\nold, read\n")
    result = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output
    assert sorted(p.name for p in (box / "cur").iterdir()) == [
        "1700000000.m0.host:2,S", "1700000000.m1.host:2,S"]
    again = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert "No new message" in again.output


def test_overlapping_runs_never_answer_a_message_twice(game, tmp_path):
    box = maildir(tmp_path / "inbox")
    (box / "new" / "m1").write_bytes(alice_move(game))
    args = [exe(), "mail", "in", str(game), str(box), "--referee", REFEREE]
    runs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    outputs = [(p.wait(timeout=120), *p.communicate()) for p in runs]
    assert [code for code, _, _ in outputs] == [0, 0, 0], outputs
    said = "".join(out + err for _, out, err in outputs)
    assert said.count("turn 1 applied") == 1 and "already applied" not in said
    assert len(queued(game)) == 4  # one view each, no second answer


def test_an_applied_move_whose_messages_could_not_be_queued_has_them_queued_next_run(game,
                                                                                  tmp_path):
    box = maildir(tmp_path / "inbox")
    (box / "new" / "m1").write_bytes(alice_move(game))
    queue = game.with_name("game.mailq")
    shutil.rmtree(queue / "tmp")
    (queue / "tmp").write_text("not a folder")  # the queue cannot take a message
    result = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice), but its messages could not be queued" in result.output
    assert "nothing was applied" not in result.output and queued(game) == []
    (queue / "tmp").unlink()
    (queue / "tmp").mkdir()
    later = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert later.exit_code == 0, later.output
    assert "4 messages queued now" in later.output
    subjects = [str(m["Subject"]) for m in queued(game)]
    assert len(subjects) == 4 and all("turn 2" in s for s in subjects)
    assert "4 messages queued now" not in invoke("mail", "in", game, box,
                                                 "--referee", REFEREE).output


def test_a_missing_maildir_is_explained(game, tmp_path):
    result = invoke("mail", "in", game, tmp_path / "Maildir", "--referee", REFEREE)
    assert result.exit_code == 2
    assert "Maildir does not exist: give the Maildir your mail system delivers" in result.output
    assert result.output.count("rebis-pbm:") == 1


def test_queue_and_outbox_files_are_readable_by_their_owner_only(game, tmp_path):
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    for path in maildir_new(game.with_name("game.mailq")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    out = tmp_path / "outbox"
    assert invoke("mail", "out", game, "--outbox", out).exit_code == 0
    files = list(out.iterdir())
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


# --- an SMTP server that refuses some addresses -------------------------------------------------

class Picky:
    """Accepts every recipient but two: bob (550, no such user) and carol (451, try later)."""

    def __init__(self):
        self.delivered = []
        self.no_such_user = {PLAYERS["bob"]}  # 550: refused for good
        self.try_later = {PLAYERS["carol"]}    # 451: refused for now

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.no_such_user:
            return "550 5.1.1 no such user"
        if address in self.try_later:
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.delivered += envelope.rcpt_tos
        return "250 OK"


@pytest.fixture
def picky():
    handler = Picky()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield f"127.0.0.1:{controller.port}", handler
    controller.stop()


def test_5xx_is_set_aside_with_a_report_and_4xx_stays_queued_and_neither_blocks(game, picky):
    server, handler = picky
    assert run("mail", "views", game, env=ENV).returncode == 0
    out = run("mail", "out", game, "--smtp", server)
    assert out.returncode == 2, out.stderr  # a message set aside: cron tells the referee
    assert sorted(handler.delivered) == sorted([PLAYERS["alice"], REFEREE])
    err = out.stderr.decode()
    assert "bob@example.org>: refused for good (550 5.1.1 no such user)" in err
    assert "set aside" in err
    assert "carol@example.org>: refused for now (451 4.3.0 try again later)" in err
    assert "stays queued" in err
    queue = game.with_name("game.mailq")
    assert len(list((queue / "failed").iterdir())) == 1
    left = [parse_message(p.read_bytes()) for p in maildir_new(queue)]
    assert sorted(m["To"].addresses[0].addr_spec for m in left) == sorted(
        [PLAYERS["carol"], REFEREE])  # carol's, and the report
    report = next(m for m in left if "could not be delivered" in str(m["Subject"]))
    assert "550 5.1.1 no such user" in report.get_content()
    again = run("mail", "out", game, "--smtp", server)
    assert again.returncode == 0
    assert handler.delivered.count(REFEREE) == 2  # the report, once; carol still waits


def test_the_local_sendmail_takes_the_messages(game, tmp_path):
    spool = tmp_path / "spool"
    spool.mkdir()
    fake = tmp_path / "sendmail"
    fake.write_text(f'#!/bin/sh\nn=$(ls "{spool}" | wc -l)\nprintf "%s\\n" "$@" > '
                    f'"{spool}/$n.args"\ncat > "{spool}/$n.eml"\n')
    fake.chmod(0o755)
    assert run("mail", "views", game, env=ENV).returncode == 0
    out = run("mail", "out", game, "--sendmail", fake)
    assert out.returncode == 0, out.stderr
    assert b"4 messages handed to" in out.stdout
    args = sorted((spool / f"{i}.args").read_text().split()[-1] for i in range(0, 8, 2))
    assert args == sorted([*PLAYERS.values(), REFEREE])
    assert maildir_new(game.with_name("game.mailq")) == []


def test_mail_out_sends_a_message_to_its_to_alone_never_to_a_cc_or_bcc(game, tmp_path):
    """Defence in depth against a header slipped into a queued message (a sender's Message-ID
    once could): mail out gives the server, or sendmail, the To address alone."""
    from test_mail_smtp import start_server

    queue = game.with_name("game.mailq")
    for name, field in (("m1", "Bcc"), ("m2", "Cc")):
        (queue / "new" / name).write_bytes(
            f"From: {REFEREE}\nTo: alice@example.org\n{field}: mallory@evil.org\n"
            f"Subject: [Rebis g1] x\n\nyour hand\n".encode())
    controller, inbox = start_server()
    try:
        out = run("mail", "out", game, "--smtp", f"127.0.0.1:{controller.port}")
    finally:
        controller.stop()
    assert out.returncode == 0, out.stderr
    assert [recipients for recipients, _ in inbox.take()] == [["alice@example.org"]] * 2
    spool = tmp_path / "spool"
    spool.mkdir()
    fake = tmp_path / "sendmail"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> "{spool}/args"\ncat > /dev/null\n')
    fake.chmod(0o755)
    (queue / "new" / "m3").write_bytes(
        f"From: {REFEREE}\nTo: bob@example.org\nBcc: mallory@evil.org\n\nx\n".encode())
    assert run("mail", "out", game, "--sendmail", fake).returncode == 0
    args = (spool / "args").read_text().split()
    assert "bob@example.org" in args and "mallory@evil.org" not in args


def test_smtps_is_implicit_tls(game, tmp_path):
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a test certificate")
    import ssl

    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    handler = Picky()
    handler.no_such_user = set()  # this test is about TLS: no message set aside (exit 2)
    controller = Controller(handler, hostname="127.0.0.1", port=free_port(),
                            ssl_context=context)
    controller.start()
    try:
        assert run("mail", "views", game, env=ENV).returncode == 0
        done = run("mail", "out", game, "--smtp", f"127.0.0.1:{controller.port}", "--smtps",
                   env={"SSL_CERT_FILE": str(cert)})
        assert done.returncode == 0, done.stderr
        assert PLAYERS["alice"] in handler.delivered
    finally:
        controller.stop()


def test_the_forward_pipe_never_bounces_an_applied_move_when_smtp_is_down(game):
    """docs/mail.md's .forward line: mail in, then mail out, whose failure is not the pipe's."""
    mail_md = Path(__file__).resolve().parents[2] / "docs" / "mail.md"
    line = next(text for text in mail_md.read_text().splitlines() if text.startswith('"|'))
    command = line.strip('"|').replace("/path/to/game.yaml", str(game)).replace(
        "--sendmail", f"--smtp 127.0.0.1:{free_port()}")
    env = {**os.environ, **ENV,
           "PATH": f"{Path(exe()).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["sh", "-c", command], input=alice_move(game), env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"turn 1 applied" in done.stdout and b"could not send" in done.stderr
    assert len(queued(game)) == 4  # kept for the next mail out


def test_mail_out_exits_2_when_a_message_is_set_aside_and_mail_retry_sends_it_again(game, picky):
    """Issue 28: mail out exited 0 when the server refused a message for good, so cron told
    nobody, and failed/ had no way back. Now it exits 2 (the others sent), and `mail retry`
    queues the set-aside messages again for the next mail out."""
    server, handler = picky
    handler.no_such_user = set(PLAYERS.values())  # every player's address refused for good
    handler.try_later = set()
    assert run("mail", "views", game, env=ENV).returncode == 0
    out = run("mail", "out", game, "--smtp", server)
    assert out.returncode == 2, out.stderr
    assert b"3 messages refused for good by the server were set aside in the queue's failed/" \
        in out.stderr
    assert b"rebis-pbm mail retry" in out.stderr
    assert b"1 message sent through" in out.stdout  # the referee's own view
    queue = game.with_name("game.mailq")
    assert len(list((queue / "failed").iterdir())) == 3
    nothing = run("mail", "retry", game)
    handler.no_such_user, handler.try_later = set(), set()  # the addresses corrected, say
    assert nothing.returncode == 0 and b"3 messages queued again for mail out." in nothing.stdout
    assert list((queue / "failed").iterdir()) == []
    waiting = [parse_message(p.read_bytes())["To"].addresses[0].addr_spec
               for p in maildir_new(queue)]
    assert sorted(waiting) == sorted([*PLAYERS.values(), REFEREE, REFEREE, REFEREE])
    again = run("mail", "out", game, "--smtp", server)
    assert again.returncode == 0, again.stderr
    assert sorted(a for a in handler.delivered if a != REFEREE) == sorted(PLAYERS.values())
    assert run("mail", "retry", game).stdout == b"0 messages queued again for mail out.\n"


def nested_message(sender: str, depth: int) -> bytes:
    """A message of ``depth`` multipart/mixed parts, each inside the one before."""
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n'
                      for i in range(depth))
    closing = "".join(f"\n--b{i}--\n" for i in reversed(range(depth)))
    return (f"From: {sender}\nTo: {REFEREE}\nSubject: hello\nMIME-Version: 1.0\n"
            f"{opening}Content-Type: text/plain\n\nhello\n{closing}").encode()


@pytest.mark.parametrize("where", ["one game", "a shard"])
def test_a_strangers_deeply_nested_message_is_set_aside_and_the_run_goes_on(game, tmp_path,
                                                                           where):
    """Issue 27: a stranger's message of 1,200 nested multipart/mixed parts raised
    RecursionError in mail in; it stayed in new/ and every later run exited 4. It is set aside
    unanswered in cur/, like other mail nobody can be answered for, and the move after it is
    applied."""
    box = maildir(tmp_path / "inbox")
    (box / "new" / "m0").write_bytes(nested_message("stranger@evil.example", 1200))
    (box / "new" / "m1").write_bytes(alice_move(game))
    os.utime(box / "new" / "m0", (1_700_000_000, 1_700_000_000))  # the stranger's first
    target = game if where == "one game" else tmp_path / "shard"
    if where == "a shard":
        target.mkdir()
        for suffix in (".yaml", ".secret.yaml", ".mailq"):
            shutil.move(game.with_name("game" + suffix), target / ("game" + suffix))
    result = invoke("mail", "in", target, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "m0: set aside, not answered: the message's parts are nested more than 64 deep" \
        in result.output
    assert "turn 1 applied (alice)" in result.output
    assert list((box / "new").iterdir()) == []
    assert queued(target / "game.yaml" if where == "a shard" else game)  # alice's views
    again = invoke("mail", "in", target, box, "--referee", REFEREE)
    assert again.exit_code == 0 and "No new message" in again.output
