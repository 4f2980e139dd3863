"""Reply links (issue 29): the HTML part of a player's mail lists every legal move as a
``mailto:`` link whose mail is the move; a click and "send" is the move.

A link is followed as a mail client follows it: the ``mailto:`` URL split and percent-decoded
(RFC 6068, urllib), the message built with Python's email package, sent through a real SMTP
server on 127.0.0.1 (aiosmtpd) into the referee's real Maildir, and read by ``mail in``. A
signed player's mail says instead the one command that makes and sends the move.
"""

from __future__ import annotations

import mailbox
import re
import smtplib
import socket
from email.message import EmailMessage
from email.utils import make_msgid
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from rebis_pbm import app as referee
from rebis_pbm.present.describe import described_moves
from rebis_pbm.transports.mail import links as mail_links
from rebis_pbm.transports.mail import outbox as mail_outbox
from rebis_pbm.transports.mail.policy import parse_message
from sshkeys import ssh_key
from transport_support import PLAYERS, REFEREE, new_args, run


class Anchors(HTMLParser):
    """The ``<a href>`` of an HTML part, each with its text and title, as a mail client shows
    them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str]] = []
        self._open: dict[str, str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open = {"href": "", "title": "", "text": "", **dict(attrs)}

    def handle_data(self, data):
        if self._open is not None:
            self._open["text"] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._open is not None:
            self.found.append(self._open)
            self._open = None


def anchors(msg) -> list[dict[str, str]]:
    """The links of ``msg``'s HTML part (none without one)."""
    html = msg.get_body(("html",))
    if html is None:
        return []
    parser = Anchors()
    parser.feed(html.get_content())
    return [a for a in parser.found if a["href"].startswith("mailto:")]


def click(href: str, sender: str) -> EmailMessage:
    """The message a mail client writes for ``href`` when ``sender`` clicks it and sends it
    unchanged: the URL split and percent-decoded as RFC 6068 says (``+`` stays a plus), its
    subject, In-Reply-To and body set with Python's email package."""
    url = urlsplit(href)
    assert url.scheme == "mailto"
    fields = {}
    for pair in url.query.split("&"):
        name, _, value = pair.partition("=")
        fields[unquote(name).lower()] = unquote(value)
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = unquote(url.path)
    msg["Subject"] = fields["subject"]
    if "in-reply-to" in fields:
        msg["In-Reply-To"] = fields["in-reply-to"]
    msg["Message-ID"] = make_msgid("client", domain="players.example.org")
    msg.set_content(fields["body"])
    return msg


class Delivery:
    """An aiosmtpd handler delivering every message for the referee into their Maildir (as
    their mail delivery agent does) and keeping the others, as (recipients, message)."""

    def __init__(self, box: Path):
        self.box = box
        self.others: list = []

    async def handle_DATA(self, server, session, envelope):
        data = envelope.content.replace(b"\r\n", b"\n")
        if envelope.rcpt_tos == [REFEREE]:
            mailbox.Maildir(self.box, create=True).add(data)
        else:
            self.others.append((sorted(envelope.rcpt_tos), parse_message(data)))
        return "250 OK"

    def take(self) -> list:
        taken, self.others = self.others, []
        return taken


@pytest.fixture
def smtp(tmp_path):
    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    handler = Delivery(tmp_path / "referee-inbox")
    controller = Controller(handler, hostname="127.0.0.1", port=port,
                            server_hostname="localhost")
    controller.start()
    yield port, handler
    controller.stop()


def send(port: int, msg: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.send_message(msg)


def messages_for(game: Path) -> dict[str, object]:
    """The views' messages of the game as it stands, by address."""
    record, replay, _ = referee.open_game(game)
    return {m["To"].addresses[0].addr_spec: m
            for m in mail_outbox.view_messages(record, replay, REFEREE)}


def by_card(listed: list) -> list:
    """The listed moves in the links' order: grouped by card (and golden dust count), the
    groups in the order of their first move, the listing's order within each."""
    first: dict = {}
    for item in listed:
        first.setdefault((item.effect.dust, item.effect.cards), len(first))
    return sorted(listed, key=lambda item: first[(item.effect.dust, item.effect.cards)])


def new_game(tmp_path: Path, *extra) -> Path:
    game = tmp_path / "game.yaml"
    made = run(*new_args(game, "links", "links"), *extra)
    assert made.returncode == 0, made.stderr
    return game


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_every_legal_move_is_a_link_whose_mail_mail_in_applies(tmp_path, smtp, lang):
    port, _ = smtp
    game = new_game(tmp_path, "--lang", f"alice={lang}")
    record, replay, _ = referee.open_game(game)
    listed = by_card(described_moves(record.game, replay.state, lang))
    mail = messages_for(game)[PLAYERS["alice"]]
    found = anchors(mail)
    # every legal move once, its described words shown, in alice's language
    assert len(found) == len(listed) <= mail_links.FEW
    assert [a["text"] for a in found] == [d.description for d in listed]
    heading = mail.get_body(("html",)).get_content()
    from rebis_pbm.present.i18n import gettext_for
    assert gettext_for(lang)(mail_links.HEADING) in heading.replace("&#x27;", "'")
    # each link's mail is that move's file, with after: (the history it answers)
    for anchor, item in zip(found, listed, strict=True):
        msg = click(anchor["href"], PLAYERS["alice"])
        assert "%0D%0A" in anchor["href"] and "%20" in anchor["href"] and "+" not in anchor["href"]
        assert msg["To"] == REFEREE and msg["In-Reply-To"] == mail["Message-ID"]
        assert msg["Subject"].startswith("[Rebis links] ") and item.description in msg["Subject"]
        body = msg.get_content()
        block = body.split("---\n", 1)[1].split("...\n", 1)[0]
        doc = yaml.safe_load(block)
        assert doc == {**item.doc, "after": record.last_digest()}
        comment = [line[2:] for line in block.splitlines() if line.startswith("# ")]
        assert " ".join(comment) == item.description
        # no line a mail client would wrap (format=flowed wraps at 72 characters)
        assert max(len(line) for line in body.splitlines()) <= 72
    # nobody else's link: bob and carol, not to move, get none; the referee neither
    others = messages_for(game)
    assert not any(anchors(others[a]) for a in (PLAYERS["bob"], PLAYERS["carol"], REFEREE))
    # the last link, clicked and sent through SMTP into the referee's Maildir: mail in applies
    # exactly that move
    chosen = listed[-1]
    send(port, click(found[-1]["href"], PLAYERS["alice"]))
    got = run("mail", "in", game, tmp_path / "referee-inbox", "--referee", REFEREE)
    assert got.returncode == 0, got.stderr
    assert "turn 1 applied (alice)" in got.stdout.decode()
    record, replay, _ = referee.open_game(game)
    move, _events = replay.history[-1]
    assert {"game": record.game, **move.as_dict()} == chosen.doc


def test_links_carry_only_the_players_own_move_and_cards(tmp_path):
    game = new_game(tmp_path)
    _, replay, _ = referee.open_game(game)
    hand = set(replay.state.hands[0])
    for anchor in anchors(messages_for(game)[PLAYERS["alice"]]):
        msg = click(anchor["href"], PLAYERS["alice"])
        doc = yaml.safe_load(msg.get_content().split("---\n", 1)[1].split("...\n", 1)[0])
        assert doc["player"] == "alice" and doc["turn"] == 1
        cards = doc["play"]["cards"]
        assert set(cards if isinstance(cards, list) else [cards]) <= hand
        # a draw is "a card", never which one (the deck's cards are nobody's to know)
        assert not re.search(r"draws? a [0-9]", msg["Subject"] + msg.get_content())


def test_many_moves_are_one_line_per_card_with_every_move(tmp_path, monkeypatch):
    """More than FEW moves: one line per card (and golden dust count), each move still a link,
    its own clause shown and the whole description as its title."""
    from rebis_pbm.transports.mail.compose import view_message
    game = new_game(tmp_path)
    record, replay, _ = referee.open_game(game)
    view = referee.kept_view(record, replay, "alice")
    listed = by_card(described_moves(record.game, replay.state))
    groups = mail_links.move_links(view, REFEREE)
    assert sum(len(links) for _, links in groups) == len(listed)
    monkeypatch.setattr(mail_links, "FEW", 2)  # this position's moves are "many"
    msg = view_message(game="links", view=view, view_text="text", view_yaml="v: 1\n",
                       news=None, sender=REFEREE, to=PLAYERS["alice"], picture=view)
    html = msg.get_body(("html",)).get_content()
    found = anchors(msg)
    assert [a["title"] for a in found] == [d.description for d in listed]
    assert all(a["text"] in a["title"] for a in found)
    cards = {d.effect.cards for d in listed}
    assert html.count('<p style="margin:4px 0"><b>') == len(cards)


def test_a_signed_players_mail_gives_the_one_command_and_no_links(tmp_path):
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path, "--key", f"alice={key}.pub", "--lang", "bob=fr")
    mail = messages_for(game)[PLAYERS["alice"]]
    text = mail.get_body(("plain",)).get_content()
    view_name = "view-links-turn-001-alice.yaml"
    assert f"\n    rebis-pbm play {view_name} --key ~/.ssh/id_ed25519 --send\n" in text
    assert "must be signed" in text and "To move, reply" not in text
    assert not anchors(mail)
    [template] = [p for p in mail.iter_attachments() if p.get_filename().startswith("move-")]
    note = template.get_content().decode()
    assert note.startswith("# You registered a key, so this move must be signed.")
    assert "rebis-pbm play VIEW.yaml --key" in note and "ssh-keygen -Y sign" in note
    # the template stays a move file: the view's template reads as YAML with its after:
    record, _, _ = referee.open_game(game)
    assert yaml.safe_load(note)["after"] == record.last_digest()


@pytest.mark.parametrize(("lang", "words"), [("fr", "ton coup doit donc être signé"),
                                             ("pt", "o teu lance tem de ser assinado")])
def test_the_signed_players_line_is_in_their_language(tmp_path, lang, words):
    key = ssh_key(tmp_path, "alice_key")
    game = new_game(tmp_path, "--key", f"alice={key}.pub", "--lang", f"alice={lang}")
    mail = messages_for(game)[PLAYERS["alice"]]
    text = mail.get_body(("plain",)).get_content()
    assert words in text and "rebis-pbm play view-links-turn-001-alice.yaml --key" in text
    views = game.with_name("game.views")
    assert "--key ~/.ssh/id_ed25519 --send" in (views / "alice.txt").read_text()


# The link builder's two shortcuts are held to the library functions they stand for.
ALPHABET = "ab é,;:/?&=%+#\n\r\t'\"~_.-09AZ\u00a0\u202f\u2019日😀"


@pytest.mark.parametrize("seed", range(40))
def test_links_percent_encode_as_urllib_quote_does(seed):
    import random
    from urllib.parse import quote
    rng = random.Random(seed)
    text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 120)))
    assert mail_links._quoted(text) == quote(text, safe="")
    assert mail_links._quoted("".join(map(chr, range(256)))) == quote(
        "".join(map(chr, range(256))), safe="")


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_links_wrap_descriptions_as_textwrap_does(lang):
    import random
    import textwrap

    from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
    rng = random.Random(lang)
    state, _ = setup(Ruleset(), ("ann", "bo", "cy"), "wrap " + lang)
    texts = []
    for _ in range(12):
        texts += [item.description for item in described_moves("g", state, lang)]
        state, _ = apply_move(state, rng.choice(legal_moves(state)))
    texts += ["word " * 30, "a" * 80 + " b", " leading", "two  spaces here " * 5, "tab\there"]
    assert len(texts) > 100
    for text in texts:
        for width in (10, 40, 64):
            assert mail_links._lines(text, width) == textwrap.wrap(
                text, width, break_long_words=False, break_on_hyphens=False), (text, width)


@pytest.mark.parametrize("seed", range(20))
def test_a_links_url_is_the_rfc_6068_url_of_its_mail(seed):
    import random
    from urllib.parse import quote
    rng = random.Random(seed)
    body = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 200)))
    subject = "".join(rng.choice(ALPHABET.replace("\n", "").replace("\r", ""))
                      for _ in range(30))
    wanted = (f"mailto:{quote(REFEREE, safe='@')}?subject={quote(subject, safe='')}"
              f"&In-Reply-To={quote('<a.b@example.org>', safe='')}&body="
              + quote(body.replace("\r\n", "\n").replace("\n", "\r\n"), safe=""))
    assert mail_links.mailto(REFEREE, subject, body, "<a.b@example.org>") == wanted
    assert mail_links.mailto(REFEREE, subject, body, "<a.b@example.org>") == wanted  # kept lines
