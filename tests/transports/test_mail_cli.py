"""`rebis-pbm new --player NAME=ADDRESS`, `apply --as`, and `rebis-pbm mail in|views|out`
without a network: what is queued for whom, refusals, Maildir handling, the .eml outbox."""

import os
import shutil
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.engine import Move
from rebis_pbm.formats.schemas import validate
from rebis_pbm.formats.yaml_reader import load_yaml
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.transports.mail import compose, policy
from rebis_pbm.transports.mail.compose import thread_id
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.policy import parse_message
from transport_support import PLAYERS, REFEREE, illegal_card, new_args, pick_move, run

SEED = "mail-cli-tests"


def invoke(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


@pytest.fixture
def game(tmp_path) -> Path:
    path = tmp_path / "game.yaml"
    result = invoke(*new_args(path, SEED, "g1"))
    assert result.exit_code == 0, result.output
    return path


def state_of(game):
    return open_game(game)[1].state


def move_doc(move: Move, game_id="g1") -> str:
    return dump_yaml({"game": game_id, **move.as_dict()})


def incoming(sender: str, move_text: str | None = None, *, as_attachment=False, msgid="<in1@x.org>",
             **headers) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = REFEREE
    msg["Subject"] = headers.pop("Subject", "my move")
    msg["Message-ID"] = msgid
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    if as_attachment:
        msg.set_content("Move attached.\n-- \nme\n")
        msg.add_attachment(move_text.encode(), maintype="application", subtype="octet-stream",
                           filename="move.yaml")
    else:
        msg.set_content(move_text if move_text is not None else "")
    return msg.as_bytes()


def queued(game: Path) -> list:
    """The messages waiting in the game's queue, oldest first, parsed."""
    queue = game.with_name("game.mailq")
    if not queue.exists():
        return []
    return [parse_message(p.read_bytes()) for p in maildir_new(queue)]


def mail_in(game, data: bytes, tmp_path, name="msg.eml"):
    path = tmp_path / name
    path.write_bytes(data)
    return invoke("mail", "in", game, path, "--referee", REFEREE)


def attachment(msg, prefix: str):
    found = [p for p in msg.iter_attachments() if (p.get_filename() or "").startswith(prefix)]
    assert len(found) <= 1
    return found[0].get_content().decode() if found else None


def to_address(msg) -> str:
    return msg["To"].addresses[0].addr_spec


# --- addresses at `new` and in views ---------------------------------------------------------

def test_addresses_are_in_the_record_but_not_in_views(game):
    record = yaml.safe_load(game.read_text())
    assert record["addresses"] == PLAYERS and "public_addresses" not in record
    for view in game.with_name("game.views").iterdir():
        assert "@" not in view.read_text(), view.name
    assert "@" not in invoke("view", game, "--public").output


def test_public_addresses_are_shown_in_every_view(tmp_path):
    game = tmp_path / "game.yaml"
    assert invoke(*new_args(game, SEED, "g1"), "--public-addresses").exit_code == 0
    assert yaml.safe_load(game.read_text())["public_addresses"] is True
    for name in ("public", "alice"):
        text = (tmp_path / "game.views" / f"{name}.yaml").read_bytes()
        loaded = load_yaml(text, source=name, kind="view")
        validate(loaded, "view")
        assert {p["name"]: p["address"] for p in loaded.data["players"]} == PLAYERS
    assert "bob <bob@example.org> (seat 2)" in (tmp_path / "game.views" / "public.txt").read_text()


def test_a_game_without_addresses_writes_the_record_as_before(tmp_path):
    game = tmp_path / "game.yaml"
    assert invoke(*new_args(game, SEED, "g1", {"alice": None, "bob": None})).exit_code == 0
    record = yaml.safe_load(game.read_text())
    assert "addresses" not in record and "public_addresses" not in record


@pytest.mark.parametrize("players, words", [
    (["alice=alice", "bob"], "'alice' is not an e-mail address"),
    (["alice=Alice <a@x.org>", "bob"], "is not an e-mail address"),
    (["alice=same@x.org", "bob=SAME@x.org"], "alice and bob have the same address"),
])
def test_new_refuses_bad_addresses_and_writes_nothing(tmp_path, players, words):
    args = ["new", tmp_path / "game.yaml", "--insecure-seed", "--referee-deal", "--seed", "s"]
    for p in players:
        args += ["--player", p]
    result = invoke(*args)
    assert result.exit_code == 2 and words in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_record_giving_an_address_to_a_stranger_is_refused(game):
    text = game.read_text().replace("  carol: carol@example.org", "  zed: zed@example.org")
    game.write_text(text)
    result = invoke("view", game, "--public")
    assert result.exit_code == 2 and "zed is not a player of this game" in result.output


# --- apply --as --------------------------------------------------------------------------------

@pytest.fixture
def alice_move(game, tmp_path) -> Path:
    path = tmp_path / "turn-001-alice.yaml"
    path.write_text(move_doc(pick_move(state_of(game))))
    return path


@pytest.mark.parametrize("author", ["alice", "alice@example.org", "ALICE@Example.ORG"])
def test_apply_as_the_moves_own_player_applies_it(game, alice_move, author):
    result = invoke("apply", game, alice_move, "--as", author)
    assert result.exit_code == 0, result.output
    assert len(open_game(game)[0].moves) == 1


@pytest.mark.parametrize("author, code, words", [
    ("bob", 1, "this move is for alice, but it comes from bob; a player can only send their "
               "own moves"),
    ("bob@example.org", 1, "it comes from bob@example.org (bob)"),
    ("mallory@example.org", 1, "mallory@example.org is not the address of any player of game g1"),
    ("zed", 2, "no player 'zed' in game g1"),
])
def test_apply_as_another_refuses_and_changes_nothing(game, alice_move, author, code, words):
    before = game.read_bytes()
    result = invoke("apply", game, alice_move, "--as", author)
    assert result.exit_code == code and words in result.output
    assert game.read_bytes() == before


def test_apply_as_a_player_of_a_move_for_no_player_names_the_players(game, alice_move):
    alice_move.write_text(alice_move.read_text().replace("player: alice", "player: Alice"))
    before = game.read_bytes()
    result = invoke("apply", game, alice_move, "--as", "alice")
    assert result.exit_code == 1
    assert ("there is no player 'Alice' in this game (players: alice, bob, carol; did you mean "
            "'alice'?)") in result.output
    assert "comes from" not in result.output
    assert game.read_bytes() == before


def test_apply_as_through_the_console_script(game, alice_move):
    before = game.read_bytes()
    refused = run("apply", game, alice_move, "--as", "carol@example.org")
    assert refused.returncode == 1 and b"a player can only send their own moves" in refused.stderr
    assert game.read_bytes() == before
    assert run("apply", game, alice_move, "--as", "alice@example.org").returncode == 0


# --- mail in: accepted moves ---------------------------------------------------------------------

def test_accepted_move_sends_each_player_their_own_view(game, tmp_path):
    move = pick_move(state_of(game))
    result = mail_in(game, incoming("Alice <alice@example.org>", move_doc(move)), tmp_path)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice); 4 messages queued" in result.output
    assert open_game(game)[0].moves == (move,)
    messages = queued(game)
    assert sorted(to_address(m) for m in messages) == sorted([*PLAYERS.values(), REFEREE])
    for msg in messages:
        viewer = next((n for n, a in PLAYERS.items() if a == to_address(msg)), None)
        expected = invoke("view", game, *(["--player", viewer] if viewer else ["--public"]),
                          "--format", "yaml").output
        assert attachment(msg, "view-g1-turn-002-") == expected
        text = msg.get_body(("plain",)).get_content()
        assert invoke("view", game, *(["--player", viewer] if viewer else ["--public"])).output \
            in text
        assert msg["Subject"].startswith("[Rebis g1] turn 2: ")
        assert thread_id("g1", "example.org") in msg["References"]
        assert msg["From"].addresses[0].addr_spec == REFEREE
        # The one who moved gets the answer to their message; the others a plain notice.
        assert (msg["In-Reply-To"] == "<in1@x.org>") == (viewer == "alice")
        # Only the player to move gets a move template.
        assert (attachment(msg, "move-turn-002-bob") is not None) == (viewer == "bob")
        if viewer:
            others = [p for p in PLAYERS if p != viewer]
            assert f"view of {viewer}" in text and not any(f"view of {o}" in text for o in others)
        else:
            assert "spectator view" in text and "(The move came from alice@example.org.)" in text


def test_the_move_template_sent_is_a_legal_move_for_the_player_to_move(game, tmp_path):
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    alice_msg = next(m for m in queued(game) if to_address(m) == PLAYERS["alice"])
    template = attachment(alice_msg, "move-turn-001-alice.yaml")
    result = mail_in(game, incoming("alice@example.org", template, as_attachment=True), tmp_path)
    assert result.exit_code == 0 and "turn 1 applied (alice)" in result.output


def test_move_in_the_body_between_markers_below_a_greeting(game, tmp_path):
    move = pick_move(state_of(game))
    body = f"Dear referee,\n\n---\n{move_doc(move)}...\n\nBest,\n-- \nAlice\n"
    result = mail_in(game, incoming("alice@example.org", body), tmp_path)
    assert result.exit_code == 0 and "turn 1 applied" in result.output


def test_a_player_without_an_address_gets_no_mail(tmp_path):
    game = tmp_path / "game.yaml"
    players = {"alice": PLAYERS["alice"], "bob": None}
    assert invoke(*new_args(game, SEED, "g1", players)).exit_code == 0
    move = pick_move(state_of(game))
    assert mail_in(game, incoming("alice@example.org", move_doc(move)), tmp_path).exit_code == 0
    assert sorted(to_address(m) for m in queued(game)) == [PLAYERS["alice"], REFEREE]


# --- mail in: refusals go to the sender only -----------------------------------------------------

def refused_one(game, tmp_path, data: bytes, to: str, words: str):
    before = game.read_bytes()
    views_before = {p.name: p.read_bytes() for p in game.with_name("game.views").iterdir()}
    result = mail_in(game, data, tmp_path)
    assert result.exit_code == 0, result.output  # the refusal is the answer, not an error
    assert "refused" in result.output and "reply queued" in result.output
    assert game.read_bytes() == before
    assert {p.name: p.read_bytes() for p in game.with_name("game.views").iterdir()} == views_before
    [reply] = queued(game)
    assert to_address(reply) == to
    assert reply["Subject"] == "[Rebis g1] turn 1: your move was not applied"
    assert reply["In-Reply-To"] == "<in1@x.org>" and "<in1@x.org>" in reply["References"]
    assert reply["Auto-Submitted"] == "auto-replied"
    body = reply.get_content()
    assert words in body
    # to alice, who is to move, in the second person (issue 30); to anyone else by name
    assert ("The game awaits turn 1: you to move." if to == PLAYERS["alice"]
            else "The game awaits turn 1: alice to move.") in body
    assert not list(reply.iter_attachments())
    return body


def test_illegal_move_is_answered_to_its_player_only(game, tmp_path):
    state = state_of(game)
    move = pick_move(state)
    card = illegal_card(state)
    text = move_doc(move).replace(f"cards: {move.play.cards[0]}", f"cards: {card}")
    refused_one(game, tmp_path, incoming("alice@example.org", text), PLAYERS["alice"],
                "move rejected:")


def raw_message(sender: str, body: str, **headers: str) -> bytes:
    """A message as a mail client (or a forger) may write it, headers as given."""
    lines = [f"From: {sender}", f"To: {REFEREE}"] + [f"{k.replace('_', '-')}: {v}"
                                                    for k, v in headers.items()]
    return ("\n".join(lines) + "\n\n" + body).encode()


def encoded_word(text: str) -> str:
    import base64

    return "=?utf-8?b?" + base64.b64encode(text.encode()).decode() + "?="


@pytest.mark.parametrize("message_id, repeated", [
    (encoded_word("<x@y>\r\nBcc: eve@example.org"), None),  # a line break and a header
    ("<a6\n --=_forged@example.org>", None),                   # folded over two lines
    (encoded_word("<x@y>\n"), "<x@y>"),                        # a line end around it
    # An encoded word inside the brackets: the reply's unstructured In-Reply-To would decode it
    # into a line break and a Bcc, and mail out would send the player's view there too.
    ("<" + encoded_word("a\r\nBcc: mallory@evil.org,") + "@x>", None),
    ("<" + "a" * 20000 + "@x>", None),                         # a header line over 998 bytes
])
def test_a_message_id_holding_a_line_break_is_not_repeated_and_the_move_is_applied(
        game, tmp_path, message_id, repeated):
    """The attack: a forged or broken Message-ID (encoded to hold a line break, or folded),
    which a reply's In-Reply-To and References would repeat. It is left out of the replies;
    the move is applied and answered (it stopped `mail in` with an internal error, so the
    message stayed in the Maildir and stopped every later run)."""
    move = pick_move(state_of(game))
    data = raw_message("alice@example.org", move_doc(move), Subject="[Rebis g1] my move",
                       Message_ID=message_id,
                       References=f"<ok@x.org> {encoded_word('<z@y>' + chr(13) + 'X: 1')} junk "
                                  f"<{encoded_word('b' + chr(10) + 'Bcc: eve@x.org')}@x>")
    box = maildir(tmp_path / "inbox")
    (box / "new" / "m1").write_bytes(data)
    result = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied (alice); 4 messages queued" in result.output
    assert maildir_new(box) == []
    for path in maildir_new(game.with_name("game.mailq")):
        data = path.read_bytes()
        assert b"mallory" not in data and b"eve@" not in data
        assert max(map(len, data.split(b"\n"))) <= 998
    for msg in queued(game):
        assert "Bcc" not in msg and "X" not in msg
        references = msg["References"].split()
        assert references[0] == thread_id("g1", "example.org") and "junk" not in references
        assert all(compose.MSG_ID.fullmatch(r) for r in references)
        if to_address(msg) == PLAYERS["alice"]:  # the mover's answer: a reply to their message
            assert msg["In-Reply-To"] == repeated and "<ok@x.org>" in references
            assert (repeated in references) if repeated else len(references) == 3
    # A refusal quotes the subject on one line, and keeps the well-formed references.
    data = raw_message("alice@example.org", "no move", Subject=encoded_word("a\nb"),
                       Message_ID="<in2@x.org>", References="<ok@x.org> <z@y")
    result = mail_in(game, data, tmp_path, "m2.eml")
    assert result.exit_code == 0 and "reply queued" in result.output
    reply = queued(game)[-1]
    assert reply["In-Reply-To"] == "<in2@x.org>"
    assert reply["References"].split() == [thread_id("g1", "example.org"), "<ok@x.org>",
                                           "<in2@x.org>"]
    assert 'Your message "a b" about game g1' in reply.get_body(("plain",)).get_content()


def test_a_move_for_another_player_is_refused_to_its_sender(game, tmp_path):
    move = pick_move(state_of(game))
    body = refused_one(game, tmp_path, incoming("Carol <carol@example.org>", move_doc(move)),
                       PLAYERS["carol"], "this move is for alice, but it comes from "
                       "carol@example.org (carol); a player can only send their own moves")
    assert "hand" not in body.lower()


def test_reply_to_is_ignored_so_a_forger_never_reads_the_answer(game, tmp_path):
    state = state_of(game)
    text = move_doc(pick_move(state)).replace("turn: 1", "turn: 1\ngolden_dust: 3")
    refused_one(game, tmp_path, incoming("alice@example.org", text, Reply_To="carol@example.org"),
                PLAYERS["alice"], "move rejected:")


@pytest.mark.parametrize("body", ["move", "nonsense", "too big"])
def test_a_stranger_gets_no_reply_and_the_referee_is_told(game, tmp_path, monkeypatch, body):
    """An answer would tell an address no player registered (a stranger, a spammer) that the
    game exists, its turn and who is to move: nothing is queued, whatever the message holds."""
    text = {"move": move_doc(pick_move(state_of(game))), "nonsense": "Cheap watches!",
            "too big": "#" * 3000}[body]
    monkeypatch.setattr(policy, "MAIL_MAX_BYTES", 2000)
    before = game.read_bytes()
    result = mail_in(game, incoming("Mallory <mallory@example.net>", text), tmp_path)
    assert result.exit_code == 0, result.output
    assert queued(game) == [] and game.read_bytes() == before
    assert result.stdout == ""
    assert result.stderr == (f"{tmp_path / 'msg.eml'}: ignored, not answered: mallory@example.net "
                             f"is not the address of any player of game g1 (a player writing "
                             f"from another address must use the registered one)\n")


def test_a_strangers_message_in_a_maildir_is_kept_in_cur_and_reported_on_stderr(game, tmp_path):
    box = maildir(tmp_path / "inbox")
    (box / "new" / "1-stranger").write_bytes(
        incoming("mallory@example.net", move_doc(pick_move(state_of(game))), msgid="<m@x.org>"))
    os.utime(box / "new" / "1-stranger", (1_000_000, 1_000_000))
    (box / "new" / "2-alice").write_bytes(
        incoming("alice@example.org", move_doc(pick_move(state_of(game))), msgid="<a@x.org>"))
    os.utime(box / "new" / "2-alice", (2_000_000, 2_000_000))
    result = run("mail", "in", game, box, env={"REBIS_PBM_REFEREE": REFEREE})
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode() == (
        "1-stranger: ignored, not answered: mallory@example.net is not the address of any player "
        "of game g1 (a player writing from another address must use the registered one); the "
        f"message is kept in {box / 'cur'}/ as 1-stranger:2,S\n")
    assert result.stdout.decode().startswith("2-alice from alice@example.org: turn 1 applied")
    assert sorted(p.name for p in (box / "cur").iterdir()) == ["1-stranger:2,S", "2-alice:2,S"]
    # Only the registered player's move produced mail: the views of the three players and the
    # referee's, none to the stranger.
    assert sorted(to_address(m) for m in queued(game)) == sorted([*PLAYERS.values(), REFEREE])


@pytest.mark.parametrize("make, words", [
    (lambda m: incoming("alice@example.org", m.replace("turn: 1", "turn: first")),
     "the message's text:2:7: field turn"),
    (lambda m: incoming("alice@example.org", m.replace("game: g1", "game: other")),
     "this move is for game other"),
    (lambda m: incoming("alice@example.org", "Hello, I will move tomorrow.\n---\n\n...\n"),
     "no move found"),
    (lambda m: incoming("alice@example.org", f"---\n{m}...\n---\n{m}"), "2 blocks"),
])
def test_unusable_messages_are_refused_with_the_reason(game, tmp_path, make, words):
    refused_one(game, tmp_path, make(move_doc(pick_move(state_of(game)))), PLAYERS["alice"], words)


def test_html_only_message_is_refused(game, tmp_path):
    msg = EmailMessage()
    msg["From"], msg["Message-ID"] = "alice@example.org", "<in1@x.org>"
    msg.set_content("<p>game: g1</p>", subtype="html")
    refused_one(game, tmp_path, msg.as_bytes(), PLAYERS["alice"], "only an HTML part")


def test_an_oversized_message_is_refused_unread(game, tmp_path, monkeypatch):
    monkeypatch.setattr(policy, "MAIL_MAX_BYTES", 2000)
    data = incoming("alice@example.org", move_doc(pick_move(state_of(game))) + "#" * 3000)
    refused_one(game, tmp_path, data, PLAYERS["alice"], "larger than")


def test_the_same_move_twice_is_recognised(game, tmp_path):
    data = incoming("alice@example.org", move_doc(pick_move(state_of(game))))
    assert mail_in(game, data, tmp_path).exit_code == 0
    for msg in maildir_new(game.with_name("game.mailq")):
        msg.unlink()
    before = game.read_bytes()
    result = mail_in(game, data, tmp_path)
    assert result.exit_code == 0 and "turn 1 was already applied" in result.output
    assert game.read_bytes() == before
    [reply] = queued(game)
    assert to_address(reply) == PLAYERS["alice"]
    assert reply["Subject"] == "[Rebis g1] turn 2: turn 1 was already applied"
    assert "Turn 1 by alice was already applied with exactly this move" in reply.get_content()


@pytest.mark.parametrize("headers", [{"Auto_Submitted": "auto-replied"}, {"Precedence": "bulk"},
                                     {"Return_Path": "<>"}])
def test_automatic_messages_are_never_answered(game, tmp_path, headers):
    data = incoming("alice@example.org", "Out of office", **headers)
    result = mail_in(game, data, tmp_path)
    assert result.exit_code == 0 and "ignored: an automatic message" in result.output
    assert queued(game) == []


def test_a_message_without_sender_is_ignored(game, tmp_path):
    result = mail_in(game, b"Subject: hi\n\ngame: g1\n", tmp_path)
    assert result.exit_code == 0 and "no single sender address" in result.output
    assert queued(game) == []


# --- mail in: sources ----------------------------------------------------------------------------

def maildir(root: Path) -> Path:
    for sub in ("new", "cur", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def test_maildir_is_read_oldest_first_and_never_twice(game, tmp_path):
    from rebis_pbm.engine import apply_move

    state = state_of(game)
    first = pick_move(state)
    second = pick_move(apply_move(state, first)[0])
    box = maildir(tmp_path / "inbox")
    # Names in the opposite order of arrival: the order must come from the delivery time.
    for name, move, sender, when in (("a-later", second, "bob@example.org", 2_000_000),
                                      ("z-earlier", first, "alice@example.org", 1_000_000)):
        path = box / "new" / name
        path.write_bytes(incoming(sender, move_doc(move), msgid=f"<{name}@x.org>"))
        os.utime(path, (when, when))
    result = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "z-earlier from alice@example.org: turn 1 applied" in lines[0]
    assert "a-later from bob@example.org: turn 2 applied" in lines[1]
    assert open_game(game)[0].moves == (first, second)
    assert sorted(p.name for p in (box / "cur").iterdir()) == ["a-later:2,S", "z-earlier:2,S"]
    assert list((box / "new").iterdir()) == []
    before, queue_size = game.read_bytes(), len(queued(game))
    again = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert again.exit_code == 0 and "No new message" in again.output
    assert game.read_bytes() == before and len(queued(game)) == queue_size


def test_a_referee_side_failure_leaves_the_message_in_new(game, tmp_path):
    box = maildir(tmp_path / "inbox")
    (box / "new" / "m1").write_bytes(incoming("alice@example.org",
                                              move_doc(pick_move(state_of(game)))))
    game.with_name("game.secret.yaml").unlink()  # the seed is gone: the referee must act
    result = invoke("mail", "in", game, box, "--referee", REFEREE)
    assert result.exit_code == 2
    assert "no seed for game g1" in result.output and "m1 was not handled" in result.output
    assert [p.name for p in (box / "new").iterdir()] == ["m1"] and queued(game) == []


def test_not_a_maildir_folder(game, tmp_path):
    (tmp_path / "folder").mkdir()
    result = invoke("mail", "in", game, tmp_path / "folder", "--referee", REFEREE)
    assert result.exit_code == 2 and "not a Maildir" in result.output


def test_mail_in_from_stdin_as_a_mail_filter(game):
    data = incoming("alice@example.org", move_doc(pick_move(state_of(game))))
    result = run("mail", "in", game, "-", stdin=data, env={"REBIS_PBM_REFEREE": REFEREE})
    assert result.returncode == 0, result.stderr
    assert b"<stdin> from alice@example.org: turn 1 applied (alice); 4 messages queued" \
        in result.stdout
    assert len(queued(game)) == 4


def test_mail_in_needs_the_referee_address(game, tmp_path):
    (tmp_path / "m").write_bytes(b"From: a@b\n\nx\n")
    result = invoke("mail", "in", game, tmp_path / "m")
    assert result.exit_code == 2 and "--referee" in result.output
    bad = invoke("mail", "in", game, tmp_path / "m", "--referee", "nobody")
    assert bad.exit_code == 2 and "is not an e-mail address" in bad.output


def test_the_readme_mail_in_line_works_as_written(game, tmp_path, monkeypatch):
    """README.md's `mail in` example, run as written (its game and Maildir put in place), with
    no REBIS_PBM_REFEREE in the environment."""
    import re
    import shlex

    from transport_support import REPO

    readme = (REPO / "README.md").read_text()
    [line] = [" ".join(m.split()) for m in re.findall(r"`(rebis-pbm mail in [^`]*)`", readme)]
    args = shlex.split(line)[1:]
    assert args[:3] == ["mail", "in", "game.yaml"] and args[3].startswith("~/Maildir/")
    monkeypatch.delenv("REBIS_PBM_REFEREE", raising=False)
    box = maildir(tmp_path / "Maildir" / args[3].removeprefix("~/Maildir/"))
    (box / "new" / "m1").write_bytes(incoming("alice@example.org",
                                              move_doc(pick_move(state_of(game)))))
    # The shell would expand ~ to the referee's home: here, tmp_path.
    result = run(*[str(box) if a == args[3] else a for a in args], cwd=game.parent)
    assert result.returncode == 0, result.stderr
    assert b"m1 from alice@example.org: turn 1 applied (alice)" in result.stdout


# --- mail views and mail out --outbox ------------------------------------------------------------

def test_pictures_by_default_and_left_out_when_asked(game, tmp_path, monkeypatch):
    """The picture of the table (an HTML part with an inline SVG) goes with the views' messages
    by default; `--no-pictures` or REBIS_PBM_MAIL_PICTURES=0 leaves it out (drawing it costs
    more than the rest of a move), the messages otherwise the same."""
    move = pick_move(state_of(game))
    path = tmp_path / "msg.eml"
    path.write_bytes(incoming("alice@example.org", move_doc(move)))
    result = invoke("mail", "in", game, path, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    with_pictures = queued(game)
    assert len(with_pictures) == 4
    for msg in with_pictures:
        html = msg.get_body(("html",)).get_content()
        assert html.count("<svg ") == 1
    shutil.rmtree(game.with_name("game.mailq"))
    assert invoke("mail", "views", game, "--referee", REFEREE, "--no-pictures").exit_code == 0
    plain = queued(game)
    assert len(plain) == 4 and all(m.get_body(("html",)) is None for m in plain)
    shutil.rmtree(game.with_name("game.mailq"))
    monkeypatch.setenv("REBIS_PBM_MAIL_PICTURES", "0")
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    assert all(m.get_body(("html",)) is None for m in queued(game))
    shutil.rmtree(game.with_name("game.mailq"))
    done = run("mail", "views", game, "--referee", REFEREE, "--player", "bob",
               env={"REBIS_PBM_MAIL_PICTURES": "0"})  # the console script, as cron runs it
    assert done.returncode == 0, done.stderr
    assert [m.get_body(("html",)) is None for m in queued(game)] == [True]
    shutil.rmtree(game.with_name("game.mailq"))
    monkeypatch.delenv("REBIS_PBM_MAIL_PICTURES")
    done = run("mail", "views", game, "--referee", REFEREE, "--player", "bob")
    assert done.returncode == 0, done.stderr
    assert [m.get_body(("html",)) is not None for m in queued(game)] == [True]


def test_mail_views_queues_every_view_then_one_player_again(game):
    result = invoke("mail", "views", game, "--referee", REFEREE)
    assert result.exit_code == 0 and "4 messages queued" in result.output
    subjects = {to_address(m): m["Subject"] for m in queued(game)}
    assert subjects == {PLAYERS["alice"]: "[Rebis g1] turn 1: your move",
                        PLAYERS["bob"]: "[Rebis g1] turn 1: alice to move",
                        PLAYERS["carol"]: "[Rebis g1] turn 1: alice to move",
                        REFEREE: "[Rebis g1] turn 1: alice to move"}
    again = invoke("mail", "views", game, "--referee", REFEREE, "--player", "bob")
    assert again.exit_code == 0 and "1 message queued." in again.output
    assert to_address(queued(game)[-1]) == PLAYERS["bob"]


def test_mail_views_needs_addresses(tmp_path):
    game = tmp_path / "game.yaml"
    assert invoke(*new_args(game, SEED, "g1", {"alice": None, "bob": None})).exit_code == 0
    result = invoke("mail", "views", game, "--referee", REFEREE)
    assert result.exit_code == 2 and "no player of game g1 has an e-mail address" in result.output
    result = invoke("mail", "views", game, "--referee", REFEREE, "--player", "bob")
    assert result.exit_code == 2 and "'bob': no address registered" in result.output


def test_mail_out_to_an_outbox_empties_the_queue(game, tmp_path):
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    expected = [m.as_bytes() for m in queued(game)]
    outbox = tmp_path / "outbox"
    result = invoke("mail", "out", game, "--outbox", outbox)
    assert result.exit_code == 0 and "4 messages written" in result.output
    files = sorted(outbox.iterdir())
    assert all(f.suffix == ".eml" for f in files)
    assert sorted(parse_message(f.read_bytes()).as_bytes() for f in files) == sorted(expected)
    assert queued(game) == [] and len(list((tmp_path / "game.mailq" / "cur").iterdir())) == 4
    again = invoke("mail", "out", game, "--outbox", outbox)
    assert again.exit_code == 0 and "0 messages written" in again.output
    assert len(list(outbox.iterdir())) == 4


def test_mail_out_with_an_empty_queue(game):
    result = invoke("mail", "out", game, "--outbox", "x")
    assert result.exit_code == 0 and "Nothing to send" in result.output


@pytest.mark.parametrize("args, words", [
    ([], "give exactly one of --outbox DIR, --smtp HOST[:PORT] or --sendmail"),
    (["--outbox", "o", "--smtp", "h"], "give exactly one of"),
    (["--outbox", "o", "--starttls"], "--starttls, --smtps and --user go with --smtp"),
    (["--smtp", "h", "--starttls", "--smtps"], "give one of --starttls and --smtps"),
    (["--smtp", "h:x"], "write HOST or HOST:PORT"),
    (["--smtp", "h", "--user", "ref", "--password-env", "REBIS_TEST_UNSET_PASSWORD"],
     "set the environment variable REBIS_TEST_UNSET_PASSWORD"),
])
def test_mail_out_usage_errors(game, args, words):
    result = invoke("mail", "out", game, *args)
    assert result.exit_code == 2 and words in result.output


@pytest.mark.parametrize("module", ["rebis_pbm", "rebis_pbm.cli"])
def test_python_dash_m_knows_every_command(module):
    """`python -m rebis_pbm.cli` (used by scripts/) once ran a copy of the command group without
    the commands registered by cli_mail and cli_audit."""
    import subprocess
    import sys

    from transport_support import REPO

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", module, "mail", "in", "--help"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "MESSAGE|-|MAILDIR" in done.stdout, done.stderr


# --- accented names with addresses (issue 30) ----------------------------------------------------

def test_players_with_accented_names_and_addresses_play_a_game_by_mail(tmp_path):
    """The keyed record digest holds the addresses under the players' names, accented ones
    included (docs/audit.md, "Canonical form"): a whole game by mail, each player mailed their
    own view under their name, and the record verifies."""
    players = {"José": "jose@example.org", "Zoë": "zoe@example.org", "Hélène": "helene@example.org"}
    game = tmp_path / "game.yaml"
    made = invoke(*new_args(game, SEED, "g1", players=players))
    assert made.exit_code == 0, made.output
    assert invoke("mail", "views", game, "--referee", REFEREE).exit_code == 0
    turn = 0
    while not (state := state_of(game)).finished:
        turn += 1
        mover, move = state.player_to_move, pick_move(state)
        queue = game.with_name("game.mailq")
        shutil.rmtree(queue, ignore_errors=True)
        sender = f"{mover} <{players[mover]}>"
        result = mail_in(game, incoming(sender, move_doc(move), msgid=f"<in{turn}@x.org>"),
                         tmp_path, name=f"msg{turn}.eml")
        assert result.exit_code == 0, result.output
        assert f"turn {move.turn} applied ({mover})" in result.output
        messages = queued(game)
        assert sorted(to_address(m) for m in messages) == sorted([*players.values(), REFEREE])
        for msg in messages:
            viewer = next((n for n, a in players.items() if a == to_address(msg)), None)
            if viewer is None:
                continue
            text = msg.get_body(("plain",)).get_content()
            assert f"view of {viewer}" in text
            assert not any(f"view of {o}" in text for o in players if o != viewer)
            expected = invoke("view", game, "--player", viewer, "--format", "yaml").output
            assert attachment(msg, "view-g1-turn-") == expected
    assert turn >= 6 and {m.player for m in open_game(game)[0].moves} == set(players)
    verified = invoke("verify", game)
    assert verified.exit_code == 0, verified.output
    assert "the keyed record digest record_hmac" in verified.output
    assert "Not checked" not in verified.output and "FAILED" not in verified.output
