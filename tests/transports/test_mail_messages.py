"""rebis_pbm.mail: taking a move out of a message (docs/mail.md's rule), addresses, automatic
mail, the Maildir helpers and the composed messages' headers."""

import os
from email.message import EmailMessage

import pytest

from rebis_pbm.transports.mail.compose import reply_message, subject, thread_id
from rebis_pbm.transports.mail.inbound import extract_move
from rebis_pbm.transports.mail.maildir import maildir_new, mark_seen
from rebis_pbm.transports.mail.policy import (
    MailError,
    check_address,
    is_automatic,
    parse_message,
    sender_address,
)
from rebis_pbm.transports.mail.send import parse_server

MOVE = "game: g1\nturn: 3\nplayer: bob\nplay: {cards: 4, shelf: alice, sign: negative}\n"


def message(body: str | None = None, *, html: str | None = None, attachments=(), **headers):
    msg = EmailMessage()
    msg["From"] = headers.pop("From", "Bob <bob@example.org>")
    msg["To"] = "referee@example.org"
    msg["Subject"] = "my move"
    msg["Message-ID"] = "<m1@example.org>"
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    if body is not None:
        msg.set_content(body)
        if html is not None:
            msg.add_alternative(html, subtype="html")
    elif html is not None:
        msg.set_content(html, subtype="html")
    for filename, content, ctype in attachments:
        maintype, subtype = ctype.split("/")
        msg.add_attachment(content.encode(), maintype=maintype, subtype=subtype,
                           filename=filename)
    return parse_message(msg.as_bytes())


def lines_of(extracted) -> list[str]:
    return extracted.data.decode().split("\n")


# --- the move: attachment first ----------------------------------------------------------------

def test_yaml_attachment_is_the_move_and_the_text_is_ignored():
    msg = message("Hello referee, here it is.\n-- \nBob\n",
                  attachments=[("move.yaml", MOVE, "application/octet-stream")])
    got = extract_move(msg)
    assert got.data == MOVE.encode() and got.source == "the attachment move.yaml"


def test_attachment_recognised_by_yaml_content_type_without_yaml_name():
    msg = message("see attached", attachments=[("move.txt", MOVE, "application/x-yaml")])
    assert extract_move(msg).data == MOVE.encode()


def test_two_yaml_attachments_are_refused_naming_both():
    msg = message("two", attachments=[("a.yaml", MOVE, "text/plain"),
                                       ("b.yml", MOVE, "text/plain")])
    with pytest.raises(MailError, match=r"2 YAML attachments \(a.yaml, b.yml\)"):
        extract_move(msg)


def test_a_non_yaml_attachment_does_not_count():
    msg = message(MOVE, attachments=[("photo.png", "not really", "image/png")])
    assert extract_move(msg).source == "the message's text"


# --- the move: the text --------------------------------------------------------------------

def test_whole_text_is_the_move_when_there_is_no_marker():
    got = extract_move(message(MOVE))
    assert got.source == "the message's text"
    assert [line for line in lines_of(got) if line] == MOVE.rstrip("\n").split("\n")


def test_block_between_markers_is_the_move_and_text_around_it_is_blank():
    body = "Hi!\nMy move:\n---\n" + MOVE + "...\nThanks, Bob\n"
    got = lines_of(extract_move(message(body)))
    # Line numbers are kept: the move's first field is on body line 4, as in the mail client.
    assert got[:3] == ["", "", ""] and got[3] == "game: g1"
    assert "Thanks, Bob" not in got and "Hi!" not in got


def test_block_runs_to_the_end_without_an_end_marker():
    got = lines_of(extract_move(message("Here:\n---\n" + MOVE)))
    assert "game: g1" in got and "Here:" not in got


def test_quoted_lines_and_signature_are_dropped():
    quoted = "".join("> " + line + "\n" for line in ["Turn 3: your move", "game: g1", "turn: 9"])
    body = MOVE + "...\nOn Monday the referee wrote:\n" + quoted + "-- \nBob Smith\nturn: 99\n"
    got = [line for line in lines_of(extract_move(message("---\n" + body))) if line]
    assert got == MOVE.rstrip("\n").split("\n")


def test_quoted_lines_inside_the_block_are_dropped():
    body = "game: g1\n> game: other\nturn: 3\n  > turn: 9\nplayer: bob\n"
    got = [line for line in lines_of(extract_move(message(body))) if line]
    assert got == ["game: g1", "turn: 3", "player: bob"]


def test_signature_separator_without_trailing_space_also_ends_the_text():
    text = extract_move(message(MOVE + "--\nturn: 42\n")).data.decode()
    assert "turn: 42" not in text


def test_no_break_spaces_in_indentation_become_spaces():
    body = "game: g1\nturn: 3\nplayer: bob\nplay:\n\u00a0 cards: 4\n\u00a0 shelf: alice\n"
    assert b"\n  cards: 4\n" in extract_move(message(body)).data


def test_two_blocks_are_refused():
    with pytest.raises(MailError, match="2 blocks starting with a line '---'"):
        extract_move(message("---\n" + MOVE + "...\n---\n" + MOVE))


def test_empty_blocks_do_not_count_as_moves():
    got = extract_move(message("---\n\n...\n---\n" + MOVE))
    assert b"game: g1" in got.data


@pytest.mark.parametrize("body", ["", "\n\n", "> game: g1\n> turn: 3\n", "-- \nBob\n",
                                  "---\n...\n"])
def test_nothing_left_is_no_move(body):
    with pytest.raises(MailError, match="no move found"):
        extract_move(message(body))


def test_html_only_mail_is_refused():
    with pytest.raises(MailError, match="only an HTML part"):
        extract_move(message(html="<p>game: g1</p>"))


def test_html_alternative_is_ignored_when_plain_text_is_there():
    got = extract_move(message(MOVE, html="<p>something else</p>"))
    assert b"game: g1" in got.data and b"<p>" not in got.data


def test_message_without_any_text_is_refused():
    msg = EmailMessage()
    msg["From"] = "bob@example.org"
    msg.add_attachment(b"\x89PNG", maintype="image", subtype="png", filename="x.png")
    with pytest.raises(MailError, match="no text and no YAML attachment"):
        extract_move(parse_message(msg.as_bytes()))


def test_non_utf8_charset_body_is_decoded():
    raw = (b"From: bob@example.org\nContent-Type: text/plain; charset=latin-1\n"
           b"Content-Transfer-Encoding: 8bit\n\n") + "# Zoé\n".encode("latin-1") + \
        MOVE.encode()
    assert "# Zoé".encode() in extract_move(parse_message(raw)).data


# --- senders and automatic mail -------------------------------------------------------------

def test_sender_is_the_from_address():
    assert sender_address(message("x", From="Bob Smith <Bob@Example.org>")) == "Bob@Example.org"


@pytest.mark.parametrize("value", [None, "a@example.org, b@example.org", "undisclosed"])
def test_no_single_sender_is_an_error(value):
    raw = b"Subject: x\n" + (f"From: {value}\n".encode() if value else b"") + b"\nbody\n"
    with pytest.raises(MailError, match="no single sender"):
        sender_address(parse_message(raw))


@pytest.mark.parametrize("header, automatic", [
    ({}, False), ({"Auto-Submitted": "no"}, False), ({"Auto-Submitted": "auto-replied"}, True),
    ({"Auto-Submitted": "auto-generated; owner-email=x@y"}, True), ({"Precedence": "bulk"}, True),
    ({"Return-Path": "<>"}, True)])
def test_automatic_messages_are_recognised(header, automatic):
    assert is_automatic(message("x", **{k.replace("-", "_"): v for k, v in header.items()})) \
        is automatic


@pytest.mark.parametrize("text", ["alice@example.org", " alice@example.org ", "a.b+c@x.y"])
def test_check_address_accepts_bare_addresses(text):
    assert check_address(text) == text.strip()


@pytest.mark.parametrize("text", ["alice", "Alice <alice@example.org>", "<a@b>", "a@", "@b",
                                  "a@b, c@d", "a b@c.d", ""])
def test_check_address_refuses_everything_else(text):
    with pytest.raises(ValueError, match="is not an e-mail address"):
        check_address(text)


@pytest.mark.parametrize("text, expected", [("smtp.example.org", ("smtp.example.org", 25)),
                                            ("127.0.0.1:2525", ("127.0.0.1", 2525)),
                                            ("[::1]:587", ("::1", 587)), ("[::1]", ("::1", 25))])
def test_parse_server(text, expected):
    assert parse_server(text) == expected


@pytest.mark.parametrize("text", ["", ":25", "host:", "host:x", "host:0", "host:70000"])
def test_parse_server_refuses(text):
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_server(text)


# --- composed messages ------------------------------------------------------------------------

def test_reply_threads_under_the_original_and_carries_game_and_turn():
    original = message("x", References="<root@example.org> <older@example.org>")
    reply = reply_message(game="g1", turn=7, original=original, sender="referee@example.org",
                          to="bob@example.org", headline="your move was not applied",
                          reason="the message's text:2:7: field turn: bad", status="S.")
    assert reply["In-Reply-To"] == "<m1@example.org>"
    assert reply["References"].split() == [thread_id("g1", "example.org"), "<root@example.org>",
                                           "<older@example.org>", "<m1@example.org>"]
    assert reply["Subject"] == "[Rebis g1] turn 7: your move was not applied"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert "    the message's text:2:7: field turn: bad" in reply.get_content()


@pytest.mark.parametrize("view, expected", [
    ({"viewer": "bob", "turn": 4, "phase": "play", "to_move": "bob"}, "turn 4: your move"),
    ({"viewer": "alice", "turn": 4, "phase": "play", "to_move": "bob"}, "turn 4: bob to move"),
    ({"viewer": "public", "turn": 9, "phase": "red_token", "to_move": "bob"},
     "turn 9: bob places the red token"),
    ({"viewer": "bob", "turn": 9, "phase": "red_token", "to_move": "bob"},
     "turn 9: you place the red token"),
    ({"viewer": "bob", "turn": 10, "phase": "finished"}, "turn 9 was the last: the game is over")])
def test_subjects_carry_game_and_turn(view, expected):
    assert subject("g1", view) == f"[Rebis g1] {expected}"


# --- Maildir ------------------------------------------------------------------------------------

def make_maildir(root):
    for sub in ("new", "cur", "tmp"):
        (root / sub).mkdir(parents=True)
    return root


def test_maildir_new_lists_oldest_first_and_mark_seen_moves_to_cur(tmp_path):
    box = make_maildir(tmp_path / "box")
    for name, age in (("b", 30), ("a", 10), ("c", 20)):
        path = box / "new" / name
        path.write_bytes(b"From: x@y\n\nhi\n")
        os.utime(path, (1_000_000 - age, 1_000_000 - age))
    (box / "cur" / "old:2,S").write_bytes(b"seen already")
    pending = maildir_new(box)
    assert [p.name for p in pending] == ["b", "c", "a"]
    moved = mark_seen(pending[0])
    assert moved == box / "cur" / "b:2,S" and moved.read_bytes() == b"From: x@y\n\nhi\n"
    assert [p.name for p in maildir_new(box)] == ["c", "a"]


def test_mark_seen_replaces_an_info_part_given_at_delivery(tmp_path):
    box = make_maildir(tmp_path / "box")
    (box / "new" / "m1:2,").write_bytes(b"x")
    assert mark_seen(box / "new" / "m1:2,") == box / "cur" / "m1:2,S"


def test_a_folder_that_is_not_a_maildir_is_refused(tmp_path):
    with pytest.raises(ValueError, match="not a Maildir"):
        maildir_new(tmp_path)


def test_a_queued_message_has_its_boundaries_chosen_before_it_is_written(tmp_path):
    """mail.queue gives each multipart its boundary, made of a random token (the email package
    would search the whole message for its own); the message reads back part for part."""
    import re
    from email import message_from_bytes, policy

    from rebis_pbm.transports.mail.maildir import queue
    msg = EmailMessage()
    msg["Subject"] = "a view"
    msg.set_content("text\n")
    msg.add_alternative("<p>" + "picture\n" * 2000 + "</p>\n", subtype="html", cte="base64")
    msg.add_attachment(b"view: 1\n", maintype="application", subtype="yaml", filename="v.yaml")
    queue(tmp_path / "q", [msg])
    (path,) = maildir_new(tmp_path / "q")
    back = message_from_bytes(path.read_bytes(), policy=policy.default)
    boundaries = [p.get_boundary() for p in back.walk() if p.is_multipart()]
    assert len(boundaries) == 2 and len(set(boundaries)) == 2
    assert all(re.fullmatch(r"=_[0-9a-f]{32}_[12]", b) for b in boundaries)
    assert back.get_body(("html",)).get_content() == msg.get_body(("html",)).get_content()
    assert [p.get_content() for p in back.iter_attachments()] == [b"view: 1\n"]
