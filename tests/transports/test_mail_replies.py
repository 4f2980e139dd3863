"""Replies as people write them (issue 14, item 5): the move on top of the view it answers,
quoted with '>' under an "On ... wrote:" line (Gmail, Apple Mail, Thunderbird), or not quoted
at all under Outlook's "-----Original Message-----" or "From: / Sent: / To: / Subject:" block;
a move file that a mail client renamed *.yaml.txt. Each is a real message built with the
``email`` package around the real view message the referee queued; the quoted view holds a
legal move template, which must never be taken as the move."""

import contextlib
from email.message import EmailMessage
from pathlib import Path

import pytest
from test_mail_cli import REFEREE, SEED, invoke, move_doc, state_of

from rebis_pbm.transports.mail.inbound import extract_move
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.policy import MailError, parse_message
from transport_support import new_args, pick_move

GMAIL_ATTRIBUTION = "On Mon, 4 Mar 2024 at 10:02, Rebis referee <referee@example.org> wrote:"


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "game.yaml"
    assert invoke(*new_args(path, SEED, "g1")).exit_code == 0
    assert invoke("mail", "views", path, "--referee", REFEREE).exit_code == 0
    return path


def view_for(game: Path, address: str) -> EmailMessage:
    """The view message the referee queued for ``address``."""
    for path in maildir_new(game.with_name("game.mailq")):
        msg = parse_message(path.read_bytes())
        if msg["To"].addresses[0].addr_spec == address:
            return msg
    raise AssertionError(f"no view queued for {address}")


def reply(original: EmailMessage, body: str, attachments=()) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Alice <alice@example.org>"
    msg["To"] = REFEREE
    msg["Subject"] = "Re: " + str(original["Subject"])
    msg["In-Reply-To"] = str(original["Message-ID"])
    msg.set_content(body)
    for name, content in attachments:
        msg.add_attachment(content.encode(), maintype="text", subtype="plain", filename=name)
    return parse_message(msg.as_bytes())


def view_text(original: EmailMessage) -> str:
    text = original.get_body(preferencelist=("plain",)).get_content()
    assert "Your move (save as a file and send it):" in text  # the template is in the quote
    return text


def gt_quoted(text: str) -> str:
    return "".join(f"> {line}\n" if line else ">\n" for line in text.splitlines())


def outlook_headers(original: EmailMessage) -> str:
    return ("From: Rebis referee <referee@example.org>\n"
            "Sent: Monday, March 4, 2024 10:02 AM\n"
            "To: Alice <alice@example.org>\n"
            f"Subject: {original['Subject']}\n")


def the_move(game) -> str:
    return move_doc(pick_move(state_of(game)))


def replies(game) -> dict[str, str]:
    """Each way of writing the move on top of the view, by name."""
    original = view_for(game, "alice@example.org")
    move, text = the_move(game), view_text(original)
    return {
        "gmail": f"{move}\n{GMAIL_ATTRIBUTION}\n\n{gt_quoted(text)}",
        "gmail-wrapped": (f"{move}\nOn Mon, 4 Mar 2024 at 10:02, Rebis referee\n"
                          f"<referee@example.org> wrote:\n{gt_quoted(text)}"),
        "attribution-unquoted": f"{move}\n{GMAIL_ATTRIBUTION}\n\n{text}",
        "outlook-original": (f"{move}\n-----Original Message-----\n{outlook_headers(original)}"
                             f"\n{text}"),
        "outlook-headers": f"{move}\n{'_' * 32}\n{outlook_headers(original)}\n{text}",
        "outlook-bold": (f"{move}\n" + outlook_headers(original).replace("From:", "*From:*")
                         .replace("Sent:", "*Sent:*") + f"\n{text}"),
        "markers-above-quote": f"Here it is.\n---\n{move}...\n\n{GMAIL_ATTRIBUTION}\n"
                               f"{gt_quoted(text)}",
        "below-a-quote": f"{GMAIL_ATTRIBUTION}\n{gt_quoted(text)}\n{move}",
    }


CASES = ["gmail", "gmail-wrapped", "attribution-unquoted", "outlook-original", "outlook-headers",
         "outlook-bold", "markers-above-quote", "below-a-quote"]


@pytest.mark.parametrize("case", CASES)
def test_the_move_written_with_the_view_quoted_is_found(game, case):
    original = view_for(game, "alice@example.org")
    got = extract_move(reply(original, replies(game)[case]))
    assert got.source == "the message's text"
    assert [line for line in got.data.decode().splitlines() if line.strip()] \
        == the_move(game).splitlines()


@pytest.mark.parametrize("case", ["gmail", "outlook-original", "outlook-headers"])
def test_the_move_template_in_the_quoted_view_is_never_taken(game, case):
    original = view_for(game, "alice@example.org")
    body = replies(game)[case].replace(the_move(game), "Sorry, I will move tomorrow.\n")
    got = None
    with contextlib.suppress(MailError):
        got = extract_move(reply(original, body))
    assert got is None or "turn:" not in got.data.decode(), got


def test_an_empty_reply_over_an_unquoted_view_finds_no_move(game):
    original = view_for(game, "alice@example.org")
    body = f"\n-----Original Message-----\n{outlook_headers(original)}\n{view_text(original)}"
    with pytest.raises(MailError, match="no move found in the message"):
        extract_move(reply(original, body))


def test_line_numbers_of_a_reply_on_top_are_those_of_the_text(game):
    original = view_for(game, "alice@example.org")
    body = "game: g1\nturn: [\n" + f"\n{GMAIL_ATTRIBUTION}\n{gt_quoted(view_text(original))}"
    got = extract_move(reply(original, body))
    assert got.data.decode().splitlines()[:2] == ["game: g1", "turn: ["]


@pytest.mark.parametrize("name", ["move.yaml.txt", "move-turn-001-alice.yml.txt"])
def test_a_yaml_txt_attachment_is_the_move(game, name):
    original = view_for(game, "alice@example.org")
    msg = reply(original, f"Attached.\n\n{GMAIL_ATTRIBUTION}\n{gt_quoted(view_text(original))}",
                attachments=[(name, the_move(game))])
    got = extract_move(msg)
    assert got.data == the_move(game).encode() and got.source == f"the attachment {name}"


@pytest.mark.parametrize("case", ["gmail", "outlook-original"])
def test_mail_in_applies_a_reply_written_on_top(game, tmp_path, case):
    original = view_for(game, "alice@example.org")
    path = tmp_path / "reply.eml"
    path.write_bytes(reply(original, replies(game)[case]).as_bytes())
    result = invoke("mail", "in", game, path, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output


def test_a_reply_that_keeps_the_view_attachment_takes_the_move_attachment(game, tmp_path):
    """Issue 28: a mail client that keeps the attachments of the message replied to sends the
    view back beside the move; the move is the attachment that is a move file, not a view.
    Two move files beside the view are still refused."""
    original = view_for(game, "alice@example.org")
    [view] = [p for p in original.iter_attachments() if p.get_filename().startswith("view-")]
    move = move_doc(pick_move(state_of(game)))
    msg = EmailMessage()
    msg["From"], msg["To"] = "Alice <alice@example.org>", REFEREE
    msg["Subject"] = "Re: " + str(original["Subject"])
    msg.set_content("My move is attached.\n")
    msg.add_attachment(view.get_content(), maintype="application", subtype="yaml",
                       filename=view.get_filename())
    msg.add_attachment(move.encode(), maintype="application", subtype="yaml",
                       filename="move-turn-001-alice.yaml")
    assert extract_move(parse_message(msg.as_bytes())).data == move.encode()
    (tmp_path / "reply.eml").write_bytes(msg.as_bytes())
    result = invoke("mail", "in", game, tmp_path / "reply.eml", "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice)" in result.output
    msg.add_attachment(move.encode(), maintype="application", subtype="yaml",
                       filename="my-move.yaml")
    with pytest.raises(MailError, match="the message has 3 YAML attachments"):
        extract_move(parse_message(msg.as_bytes()))
