"""The bytes of the messages a game sends: composed with ``policy.POLICY``
(``email.policy.default`` with a header factory that makes each header's class once and parses
each header text once),
they are byte for byte what ``email.policy.default`` itself writes, in the queue (a Maildir, as
``mail out`` reads it) and as written again from a queued file by the email package (which
``send_smtp`` no longer does: it sends the queued bytes).

Every kind of message is composed three times: with the stock policy, with ``POLICY`` while its
header factory knows none of the headers yet, and with ``POLICY`` again (every header text
known): the three must be the same bytes. The clock, the Message-ID and the MIME boundaries
(the generator's and ``mail_maildir.queue``'s) are fixed, so that the bytes are comparable."""

from __future__ import annotations

import email.generator
import email.parser
import email.policy
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebis_pbm import app as referee
from rebis_pbm.engine import legal_moves
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.record.deadlines import parse_duration
from rebis_pbm.transports.mail import compose as mail_compose
from rebis_pbm.transports.mail import maildir as mail_maildir
from rebis_pbm.transports.mail import outbox as mail_outbox
from rebis_pbm.transports.mail import policy as mail_policy

REFEREE = "referee@example.org"
ADDRESSES = {"ana": "ana@example.org", "bob": "bob.with-a-long-local-part@mail.example.org",
             "cid": "cid@example.org"}
LANGS = {"bob": "fr", "cid": "pt"}
# A player's message: a non-ASCII subject, and a thread of earlier messages to refer to.
ORIGINAL = ("From: Bob <bob.with-a-long-local-part@mail.example.org>\nTo: referee@example.org\n"
            "Subject: Re: [Rebis bytes] mon coup, voilà\nMessage-ID: <m1@example.org>\n"
            "References: <rebis-pbm.bytes@example.org> <older@example.org>\n\nhello\n").encode()


@pytest.fixture
def game(tmp_path):
    """A game by mail with a deadline, players in three languages, its first move played."""
    path = tmp_path / "g.yaml"
    referee.create_game(path, list(ADDRESSES), seed="mail-bytes", insecure_seed=True,
                        addresses=ADDRESSES, langs=LANGS, game_id="bytes",
                        deadline=parse_duration("72h"), now="2025-01-01T00:00:00Z")
    move = legal_moves(referee.open_game(path).replay.state)[0]
    referee.submit_move(path, dump_yaml({"game": "bytes", **move.as_dict()}).encode(),
                        "move.yaml", author=ADDRESSES[move.player], now="2025-01-01T01:00:00Z")
    return path


@pytest.fixture
def fixed(monkeypatch):
    """The clock, the Message-IDs and the MIME boundaries, fixed; returns what starts the
    boundaries over (each composition gets the same ones)."""
    made = [0]

    def boundary(cls, text=None):
        made[0] += 1
        return f"===============b{made[0]}=="

    monkeypatch.setattr(mail_compose, "format_datetime",
                        lambda when: "Wed, 01 Jan 2025 00:00:00 +0000")
    monkeypatch.setattr(mail_compose, "make_msgid",
                        lambda idstring, domain: f"<{idstring}@{domain}>")
    monkeypatch.setattr(email.generator.Generator, "_make_boundary", classmethod(boundary))
    # mail_maildir.queue draws its boundaries' token itself (secrets.token_hex), once a process.
    monkeypatch.setattr(mail_maildir.secrets, "token_hex", lambda nbytes: boundary(None)[15:-2])
    monkeypatch.setattr(mail_maildir, "_TOKENS", [])

    def restart() -> None:
        made[0] = 0
        mail_maildir._TOKENS.clear()

    return restart


def compose(game) -> list:
    """One message of every kind the referee sends, in every reader's language: the views with
    their pictures and without (after a move: the mover's view answers their message), a
    refusal, a move applied twice, a message naming no game, a reminder."""
    record, replay, _ = referee.open_game(game)
    original = mail_policy.parse_message(ORIGINAL)
    messages = mail_outbox.view_messages(record, replay, REFEREE, original=original,
                                       sender=ADDRESSES["bob"], pictures=True)
    messages += mail_outbox.view_messages(record, replay, REFEREE, pictures=False)
    for player, lang in (("ana", None), ("bob", "fr"), ("cid", "pt")):
        messages.append(mail_compose.reply_message(
            game=record.game, turn=replay.state.turn, original=original, sender=REFEREE,
            to=ADDRESSES[player], headline="votre coup n'a pas été appliqué",
            reason="the message's text:2:7: field turn: bad\nsecond line",
            status="Rien n'a changé.", lang=lang))
        messages.append(mail_compose.no_game_message(original=original, sender=REFEREE,
                                             to=ADDRESSES[player], games=["bytes", "other"],
                                             lang=lang))
    player = replay.state.player_to_move
    view, text_view, lang = mail_outbox._reader_views(record, replay, player)
    messages.append(mail_compose.reminder_message(
        game=record.game, view=text_view,
        view_text=referee.kept_rendering(record, replay, player, "text"),
        view_yaml=referee.kept_rendering(record, replay, player, "yaml"), sender=REFEREE,
        to=ADDRESSES[player], lang=lang, picture=view))
    return messages


def written(messages, folder, restart) -> list[bytes]:
    """Each message as the queue holds it (``mail_maildir.queue``, a Maildir), then as ``mail out``
    sends it (the queued file read with ``parse_message`` and written again by the generator
    smtplib uses, folding long headers at 78 characters)."""
    restart()
    out = []
    mail_maildir.queue(folder, messages)
    for path in mail_maildir.maildir_new(folder):
        data = path.read_bytes()
        resent = io.BytesIO()
        email.generator.BytesGenerator(resent).flatten(mail_policy.parse_message(data))
        out += [data, resent.getvalue()]
        mail_maildir.mark_seen(path)
    return out


def test_messages_are_the_bytes_of_email_policy_default(game, tmp_path, fixed, monkeypatch):
    stock_policy = email.policy.default
    with monkeypatch.context() as patch:
        patch.setattr(mail_compose, "POLICY", stock_policy)
        patch.setattr(mail_policy, "_parser", email.parser.BytesParser(policy=stock_policy))
        stock = written(compose(game), tmp_path / "stock", fixed)
    mail_policy.POLICY.header_factory._made.clear()
    cold = written(compose(game), tmp_path / "cold", fixed)
    warm = written(compose(game), tmp_path / "warm", fixed)
    assert len(stock) == 2 * (2 * 4 + 2 * 3 + 1)
    assert any(b"=?utf-8?" in data for data in stock)  # a header in encoded words
    assert any(b"Content-Type: text/html" in data for data in stock)  # a picture
    for before, cold_bytes, warm_bytes in zip(stock, cold, warm, strict=True):
        assert cold_bytes == before
        assert warm_bytes == before


def test_a_header_text_is_parsed_once_and_its_header_is_the_stock_one():
    factory = mail_policy.POLICY.header_factory
    first = factory("Content-Type", 'text/plain; charset="utf-8"')
    assert factory("Content-Type", 'text/plain; charset="utf-8"') is first
    stock = email.policy.default.header_factory("Content-Type", 'text/plain; charset="utf-8"')
    assert (str(first), first.name, first.params, first.content_type) == \
        (str(stock), stock.name, stock.params, stock.content_type)
    assert first.fold(policy=mail_policy.POLICY) == stock.fold(policy=email.policy.default)
    assert factory["subject"] is factory["Subject"]  # one class a header name


def test_the_queue_writes_the_bytes_mailbox_writes(game, tmp_path, fixed):
    """maildir.as_bytes (the text parts in one write) gives, for every kind of message, the bytes
    mailbox.Maildir.add writes with the email package's own generator, line by line."""
    import mailbox

    box = mailbox.Maildir(tmp_path / "stock", create=True)
    messages = compose(game)
    for msg in messages:
        mail_maildir._choose_boundaries(msg)
        key = box.add(msg)
        assert mail_maildir.as_bytes(msg) == box.get_bytes(key)
    assert any(b"Content-Type: text/html" in mail_maildir.as_bytes(m) for m in messages)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["a", "é", " ", "\n", "\r", "\r\n", "-", "="]), max_size=200)
       .map("".join),
       st.sampled_from(["7bit", "8bit", "base64", "quoted-printable"]))
def test_a_text_part_is_written_as_the_stock_generator_writes_it(text, cte):
    """Whatever its line ends (LF, CR, CRLF) and transfer encoding, a text part is the same
    bytes from maildir.as_bytes as from the email package's generator, with LF and CRLF policies."""
    import email.message

    for policy in (mail_policy.POLICY, email.policy.SMTP):
        msg = email.message.EmailMessage(policy=policy)
        msg["Subject"] = "x"
        try:
            msg.set_content(text, cte=cte)
        except ValueError:  # 7bit or 8bit asked of text that cannot be: nothing to compare
            continue
        stock = io.BytesIO()
        email.generator.BytesGenerator(stock, False, 0).flatten(msg)
        assert mail_maildir.as_bytes(msg) == stock.getvalue()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=400), st.sampled_from(["html", "plain"]))
def test_a_base64_text_part_is_what_the_email_package_makes(text, subtype):
    """The picture's HTML part, base64 in one call (mail_compose._set_base64_text), is the part
    set_content(..., cte="base64") makes, header for header and byte for byte, whatever its
    text (line ends, non-ASCII, empty), with the mail policy and with SMTP's (CRLF)."""
    import email.message

    for policy in (mail_policy.POLICY, email.policy.SMTP):
        ours = email.message.EmailMessage(policy=policy)
        ours.set_content(text, subtype=subtype, content_manager=mail_compose._BASE64_TEXT)
        stock = email.message.EmailMessage(policy=policy)
        stock.set_content(text, subtype=subtype, cte="base64")
        assert list(ours.items()) == list(stock.items())
        assert ours.get_payload() == stock.get_payload()
        assert ours.as_bytes() == stock.as_bytes()


def test_a_kept_fold_is_the_stock_fold_for_every_policy():
    """A header's fold is kept by line length, line end and UTF-8: each policy gets the stock
    header's fold, however many times and in whatever order it is asked."""
    subject = "Re: [Rebis bytes] mon coup, voilà " + "très long " * 12
    for name, value in (("Subject", subject), ("To", "Bob <bob@example.org>"),
                        ("Content-Type", 'text/plain; charset="utf-8"')):
        ours = mail_policy.POLICY.header_factory(name, value)
        stock = email.policy.default.header_factory(name, value)
        policies = [email.policy.default, email.policy.SMTP, email.policy.default.clone(
            max_line_length=0), email.policy.SMTPUTF8, email.policy.default.clone(
            max_line_length=40)]
        for policy in policies + policies[::-1]:
            assert ours.fold(policy=policy) == stock.fold(policy=policy), (name, policy)


@pytest.mark.parametrize("display", ["Bob", "Rebis referee", "Árbitro de Rebis", "o'brien",
                                     "j.r. \"junior\"", "", "x" * 90])
def test_an_address_header_is_kept_by_its_text_and_is_the_stock_header(display):
    """A From or To set from an Address is parsed once for every equal Address (the referee's
    From in every message of a run), and is the header the stock policy makes of it."""
    factory = mail_policy.POLICY.header_factory
    address = mail_policy.Address(display, addr_spec="bob.long-local-part@mail.example.org")
    ours = factory("To", address)
    again = factory("To", mail_policy.Address(display,
                                              addr_spec="bob.long-local-part@mail.example.org"))
    assert again is ours
    stock = email.policy.default.header_factory("To", address)
    assert (str(ours), ours.addresses) == (str(stock), stock.addresses)
    for policy in (email.policy.default, email.policy.SMTP, email.policy.SMTPUTF8):
        assert ours.fold(policy=policy) == stock.fold(policy=policy)
    other = factory("To", mail_policy.Address(display + "2", addr_spec="bob@example.org"))
    assert other is not ours and other.addresses[0].display_name == display + "2"


def _boundaries(data: bytes) -> list[str]:
    msg = mail_policy.parse_message(data)
    return [part.get_boundary() for part in msg.walk() if part.is_multipart()]


def test_boundaries_are_one_random_token_a_run_and_distinct_in_a_message(game, tmp_path):
    """maildir.queue gives a run's messages one random token: each multipart of a message its own
    boundary, the same texts from one message to the next (each Content-Type parsed once), and
    a token that no later process draws alike."""
    record, replay, _ = referee.open_game(game)
    mail_maildir.queue(tmp_path / "q",
                       mail_outbox.view_messages(record, replay, REFEREE, pictures=True))
    written = [path.read_bytes() for path in mail_maildir.maildir_new(tmp_path / "q")]
    bounds = [_boundaries(data) for data in written]
    assert len(bounds) == 4 and all(len(b) == 2 and len(set(b)) == 2 for b in bounds)
    assert all(b == bounds[0] for b in bounds)
    token = bounds[0][0][2:-2]
    assert len(token) == 32 and int(token, 16) >= 0
    for data, (outer, inner) in zip(written, bounds, strict=True):
        # every line that looks like a delimiter is one of this message's two multiparts
        delimiters = {f"--{b}{end}".encode() for b in (outer, inner) for end in ("", "--")}
        assert {line for line in data.split(b"\n") if line.startswith(b"--=_")} == delimiters
        kinds = [p.get_content_type() for p in mail_policy.parse_message(data).walk()]
        assert kinds[:4] == ["multipart/mixed", "multipart/alternative", "text/plain",
                             "text/html"]
    mail_maildir._TOKENS.clear()
    mail_maildir.queue(tmp_path / "q2",
                       mail_outbox.view_messages(record, replay, REFEREE, pictures=True))
    assert _boundaries(mail_maildir.maildir_new(tmp_path / "q2")[0].read_bytes())[0] != bounds[0][0]


def test_a_message_holding_the_runs_token_gets_a_token_of_its_own(game, tmp_path):
    """The attack: text that holds the run's token (a name, a reason quoted back) would end a
    multipart early if the boundary were made of it. That message gets another token; every
    part of every message still reads back whole."""
    record, replay, _ = referee.open_game(game)
    token = mail_maildir._token()
    original = mail_policy.parse_message(ORIGINAL)
    crafted = mail_compose.reply_message(
        game=record.game, turn=replay.state.turn, original=original, sender=REFEREE,
        to=ADDRESSES["ana"], headline="refused", reason=f"--=_{token}_1--\n--=_{token}_2",
        status="Nothing changed.")
    crafted.add_attachment(f"--=_{token}_1\n".encode(), maintype="application",
                           subtype="yaml", filename="x.yaml")
    plain = mail_outbox.view_messages(record, replay, REFEREE, pictures=False)[0]
    mail_maildir.queue(tmp_path / "q", [crafted, plain])
    first, second = (path.read_bytes() for path in mail_maildir.maildir_new(tmp_path / "q"))
    assert _boundaries(second) == [f"=_{token}_1"]
    assert token not in _boundaries(first)[0]
    parts = [p for p in mail_policy.parse_message(first).walk() if not p.is_multipart()]
    assert [p.get_content_type() for p in parts] == ["text/plain", "application/yaml"]
    assert f"--=_{token}_1--" in parts[0].get_content()
    assert parts[1].get_content() == f"--=_{token}_1\n".encode()
