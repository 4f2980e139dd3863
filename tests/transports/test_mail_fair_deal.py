"""A fair deal played by e-mail from its join phase (docs/mail.md, docs/shuffle.md; newcomer
report 18, items 1, 2, 3 and 7): `mail views` before the deal, joins mailed in (applied once,
answered, a duplicate answered as one, a join whose messages a crash lost), the deal's first
views, the first move; a player's own tools on a join-phase view; a move the referee made for a
player told as the referee's; `mail in` when the record holds a time later than the clock; an
internal error on one message never jams the Maildir. Real Maildirs, the real mail in/out path,
and the installed console script as well as click's runner."""

from __future__ import annotations

import os
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml

from clitools import run_inproc
from rebis_pbm import app as referee
from rebis_pbm.files.names import default_queue
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.transports.mail import mail_in as mail_jobs
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.outbox import QUEUED_STATE
from rebis_pbm.transports.mail.policy import parse_message
from transport_support import PLAYERS, REFEREE, pick_move

ENV = {"REBIS_PBM_REFEREE": REFEREE}


def maildir(root: Path) -> Path:
    for sub in ("new", "cur", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return root


def deliver(box: Path, name: str, sender: str, move_text: str, *, when: int,
            attachment: str | None = None, reply_to: EmailMessage | None = None) -> None:
    """A player's message in ``box``'s new/, delivered at ``when`` (its order among the
    others): the move as the attachment ``attachment``, or in the text between markers."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = REFEREE
    msg["Subject"] = "Re: " + str(reply_to["Subject"]) if reply_to is not None else "my join"
    msg["Message-ID"] = f"<{name}@example.org>"
    if attachment:
        msg.set_content("Attached.\n")
        msg.add_attachment(move_text.encode(), maintype="application", subtype="yaml",
                           filename=attachment)
    else:
        msg.set_content(f"Hello,\n---\n{move_text}...\n")
    path = box / "new" / name
    path.write_bytes(msg.as_bytes())
    os.utime(path, (when, when))


def queued(game: Path) -> list:
    queue = default_queue(game)
    return [parse_message(p.read_bytes()) for p in maildir_new(queue)] if queue.exists() else []


def to(msg) -> str:
    return msg["To"].addresses[0].addr_spec


def text_of(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content()


def attachment(msg, name: str) -> str | None:
    found = [p for p in msg.iter_attachments() if p.get_filename() == name]
    return found[0].get_content().decode() if found else None


def fair_game(cli, folder: Path, langs=(), fmt=("--record-format", "rebis-pbm/4")
              ) -> tuple[Path, str]:
    game = folder / "game.yaml"
    # one round of joins (rebis-pbm/4); rebis-pbm/5's two rounds: test_mail_two_rounds below
    args = ["new", game, "--game-id", "fair1", *fmt]
    for name, address in PLAYERS.items():
        args += ["--player", f"{name}={address}"]
    for lang in langs:
        args += ["--lang", lang]
    done = cli(*args)
    assert done.code == 0, done.err
    return game, "fair1"


def test_a_fair_deal_by_mail_from_the_joins_to_the_first_move(cli, tmp_path):
    game, gid = fair_game(cli, tmp_path)
    # mail views in the join phase: each player their join-phase view and join template
    done = cli("mail", "views", game, env=ENV)
    assert done.code == 0, done.err
    assert done.out == "4 messages queued.\n"
    first = {to(m): m for m in queued(game)}
    for name, address in PLAYERS.items():
        msg = first[address]
        assert msg["Subject"] == f"[Rebis {gid}] the deal: send your join"
        assert "turn" not in msg["Subject"]
        template = attachment(msg, f"join-{name}.yaml")
        header = yaml.safe_load(game.read_text())["header_sha256"]
        assert yaml.safe_load(template) == {"game": gid, "player": name,
                                            "header_sha256": header,  # binds it to this game
                                            "join": "WRITE ANY TEXT OF YOUR CHOOSING"}
        assert attachment(msg, f"view-{gid}-join-{name}.yaml") is not None
        assert "The deal waits for joins: alice, bob, carol." in text_of(msg)
        assert f"To join, reply with the attached join-{name}.yaml" in text_of(msg)
        assert "replaced by any text of your own (a join that keeps them is refused)" \
            in text_of(msg)
    assert first[REFEREE]["Subject"] == \
        f"[Rebis {gid}] the deal: waiting for joins by alice, bob, carol"
    assert (default_queue(game) / QUEUED_STATE).read_text() == "join 0\n"

    # alice's join (the template, edited, attached to her reply), the same join again (a mail
    # delivered twice), bob's join in his message's text
    box = maildir(tmp_path / "inbox")
    alice_join = f"game: {gid}\nplayer: alice\njoin: alice's own words\n"
    deliver(box, "a1", PLAYERS["alice"], alice_join, when=1000, attachment="join-alice.yaml",
            reply_to=first[PLAYERS["alice"]])
    deliver(box, "a2", PLAYERS["alice"], alice_join, when=1001, attachment="join-alice.yaml")
    deliver(box, "b1", PLAYERS["bob"], f"game: {gid}\nplayer: bob\njoin: lucky 42\n", when=1002)
    before = len(queued(game))
    done = cli("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    assert done.out.splitlines() == [
        "a1 from alice@example.org: alice's join applied; the deal waits for bob, carol; "
        "1 message queued",
        "a2 from alice@example.org: alice's join was already applied; reply queued",
        "b1 from bob@example.org: bob's join applied; the deal waits for carol; 1 message "
        "queued"]
    assert list((box / "new").iterdir()) == []
    record = referee.read_record(game)
    assert [j.player for j in record.joins] == ["alice", "bob"] and record.moves == ()
    answers = queued(game)[before:]
    assert [to(m) for m in answers] == [PLAYERS["alice"], PLAYERS["alice"], PLAYERS["bob"]]
    ack, duplicate, bob_ack = answers
    assert ack["In-Reply-To"] == "<a1@example.org>"
    assert ack["Subject"] == f"[Rebis {gid}] the deal: waiting for joins by bob, carol"
    assert text_of(ack).startswith("You joined the deal.\n")
    assert attachment(ack, "join-alice.yaml") is None  # nothing more to send before the deal
    assert duplicate["Subject"] == f"[Rebis {gid}] the deal: you have joined already"
    assert "alice has joined already, with exactly this join; nothing changed." in \
        text_of(duplicate)
    assert bob_ack["In-Reply-To"] == "<b1@example.org>"
    assert (default_queue(game) / QUEUED_STATE).read_text() == "join 2\n"

    # carol's join reaches the record, but the run is killed before its messages are queued
    # (as apply does: the record alone); her mail then arrives (delivered again)
    carol_join = tmp_path / "carol-join.yaml"
    carol_join.write_text(f"game: {gid}\nplayer: carol\njoin: carol\n")
    assert cli("apply", game, carol_join).code == 0
    deliver(box, "c1", PLAYERS["carol"], carol_join.read_text(), when=1003,
            attachment="join-carol.yaml")
    before = len(queued(game))
    done = cli("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    assert "the last move's messages had not been queued (an earlier run was stopped); 4 " \
           "messages queued now" in done.err
    assert done.out.splitlines() == [
        "c1 from carol@example.org: carol's join was already applied; reply queued"]
    dealt = queued(game)[before:]
    assert [to(m) for m in dealt] == [*PLAYERS.values(), REFEREE, PLAYERS["carol"]]
    views = {to(m): m for m in dealt[:4]}
    assert views[PLAYERS["alice"]]["Subject"] == f"[Rebis {gid}] turn 1: your move"
    assert views[PLAYERS["bob"]]["Subject"] == f"[Rebis {gid}] turn 1: alice to move"
    assert text_of(views[PLAYERS["bob"]]).startswith("The game begins: ")
    template = attachment(views[PLAYERS["alice"]], "move-turn-001-alice.yaml")
    assert template is not None and "turn: 1" in template
    assert "carol has joined already" in text_of(dealt[4])
    assert (default_queue(game) / QUEUED_STATE).read_text() == "0\n"

    # the first move, by mail: applied, every player told
    state = referee.open_game(game).state
    move = pick_move(state)
    deliver(box, "m1", PLAYERS["alice"], dump_yaml({"game": gid, **move.as_dict()}),
            when=1004, attachment="move-turn-001-alice.yaml")
    done = cli("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    assert done.out == "m1 from alice@example.org: turn 1 applied (alice); 4 messages queued\n"
    assert referee.read_record(game).moves == (move,)
    assert cli("verify", game).code == 0
    # mail out: every queued message leaves
    done = cli("mail", "out", game, "--outbox", tmp_path / "out")
    assert done.code == 0 and done.out == f"16 messages written to {tmp_path / 'out'}/.\n"


def test_mail_out_counts_one_message_in_the_singular(tmp_path):
    game, _ = fair_game(run_inproc, tmp_path)
    assert run_inproc("mail", "views", game, "--player", "bob", env=ENV).out == \
        "1 message queued.\n"
    done = run_inproc("mail", "out", game, "--outbox", tmp_path / "out")
    assert done.out == f"1 message written to {tmp_path / 'out'}/.\n"


def test_join_phase_mail_is_in_the_players_language(tmp_path):
    game, gid = fair_game(run_inproc, tmp_path, langs=("alice=fr", "bob=pt"))
    assert run_inproc("mail", "views", game, env=ENV).code == 0
    subjects = {to(m): m["Subject"] for m in queued(game)}
    assert subjects[PLAYERS["alice"]] == (f"[Rebis {gid}] la distribution\u00a0: "
                                          "envoie ton inscription")
    assert subjects[PLAYERS["bob"]] == f"[Rebis {gid}] a distribuição: envia a tua inscrição"


def test_an_internal_error_on_one_message_does_not_jam_the_maildir(tmp_path, monkeypatch):
    """A bug met while handling one message (here: made to happen for it) leaves that message
    where it is, for a later run; the messages after it are handled; then exit 4."""
    game, gid = fair_game(run_inproc, tmp_path)
    box = maildir(tmp_path / "inbox")
    deliver(box, "bad", PLAYERS["alice"], f"game: {gid}\nplayer: alice\njoin: a\n", when=1000)
    deliver(box, "good", PLAYERS["bob"], f"game: {gid}\nplayer: bob\njoin: b\n", when=1001)
    handle = mail_jobs.handle_message

    def buggy(game_path, data, label, *args, **kwargs):
        if label == "bad":
            raise KeyError("turn")
        return handle(game_path, data, label, *args, **kwargs)

    monkeypatch.setattr(mail_jobs, "handle_message", buggy)
    done = run_inproc("mail", "in", game, box, env=ENV)
    assert done.code == 4
    assert "bad was not handled (internal error: KeyError: 'turn'); it stays in" in done.err
    assert "good from bob@example.org: bob's join applied" in done.out
    assert [p.name for p in (box / "new").iterdir()] == ["bad"]
    monkeypatch.setattr(mail_jobs, "handle_message", handle)  # the bug fixed: handled then
    done = run_inproc("mail", "in", game, box, env=ENV)
    assert done.code == 0 and "bad from alice@example.org: alice's join applied" in done.out
    assert list((box / "new").iterdir()) == []


# --- a player's own tools on a join-phase view ---------------------------------------------------

def test_check_and_moves_on_a_join_phase_view_say_what_to_send(cli, tmp_path):
    game = tmp_path / "e.yaml"
    assert cli("new", game, "--player", "x", "--player", "y", "--game-id", "e1").code == 0
    view = tmp_path / "e.views" / "x.yaml"
    assert view.exists()
    move = tmp_path / "m.yaml"
    move.write_text("game: e1\nturn: 1\nplayer: x\nplay: {cards: 3, shelf: x, sign: positive}\n")
    for args in (("check", move, "--view", view), ("moves", "--view", view)):
        done = cli(*args)
        line = done.refused(1, ("is a view of game e1 before the deal",
                                "the deal waits for joins by x, y",
                                "x has no move to make yet, but a join to send",
                                "move_template"))
        assert "Traceback" not in line and "internal error" not in line
    done = cli("view", game, "--player", "x", "--format", "svg")
    done.refused(2, ("before the deal there is no table to draw",))
    # In the viewer's language, as every refusal a player's own tool gives them.
    line = cli("moves", "--view", view, "--lang", "fr").refused(1)
    assert "avant la distribution" in line and "une inscription à envoyer" in line
    line = cli("check", move, "--view", view, "--lang", "pt").refused(1)
    assert "antes da distribuição" in line and "uma inscrição a enviar" in line


# --- a move the referee made for a player ------------------------------------------------------

def deadline_game(tmp_path, langs=()) -> Path:
    game = tmp_path / "g.yaml"
    args = ["new", game, "--referee-deal", "--insecure-seed", "--seed", "stand-in",
            "--game-id", "g1", "--deadline", "72h", "--now", "2025-01-01T00:00:00Z"]
    for name, address in PLAYERS.items():
        args += ["--player", f"{name}={address}"]
    for lang in langs:
        args += ["--lang", lang]
    assert run_inproc(*args).code == 0
    assert run_inproc("mail", "views", game, env=ENV).code == 0
    return game


def test_the_referees_move_for_a_player_is_told_as_the_referees(tmp_path):
    game = deadline_game(tmp_path, langs=("bob=fr",))
    before = len(queued(game))
    done = run_inproc("tick", game, "--now", "2025-01-05T00:00:00Z", env=ENV)
    assert "Turn 1: the referee moved for alice (missed deadline)." in done.out
    assert "3 messages queued" in done.out or "4 messages queued" in done.out
    told = {to(m): text_of(m) for m in queued(game)[before:]}
    alice = told[PLAYERS["alice"]]
    assert alice.startswith("Turn 1 (alice): the referee moved for you (missed deadline); the "
                            "referee played ")
    assert "you played" not in alice
    assert told[PLAYERS["carol"]].startswith(
        "Turn 1 (alice): the referee moved for alice (missed deadline); alice played ")
    assert told[PLAYERS["bob"]].startswith(
        "Tour 1 (alice)\u00a0: l'arbitre a joué à la place d'alice (échéance dépassée)")
    # the views (files and mails) tell it in their history too
    history = yaml.safe_load((tmp_path / "g.views" / "alice.yaml").read_text())["history"]
    assert history[-1]["by"] == "referee" and history[-1]["reason"] == "missed deadline"
    assert history[-1]["account"].startswith("the referee moved for you (missed deadline); the "
                                             "referee played ")
    assert history[-1]["text"].startswith("you played ")  # the events as they are: unchanged
    text = run_inproc("view", game, "--player", "alice").out
    assert "turn 1 (alice): the referee moved for you (missed deadline)" in text


def test_the_referees_move_in_french_to_the_player_it_was_made_for(tmp_path):
    game = deadline_game(tmp_path, langs=("alice=fr",))
    assert run_inproc("move-for", game, "--player", "alice",
                      "--now", "2025-01-02T00:00:00Z").code == 0
    text = run_inproc("view", game, "--player", "alice").out
    # her own request, said to her (issue 30)
    assert "l'arbitre a joué à ta place (à ta demande)\u00a0; l'arbitre a posé" in text
    assert "demande du joueur" not in text
    assert "tu as joué" not in text


def test_mail_in_after_a_tick_ahead_of_the_clock_applies_the_move(tmp_path, cli):
    """`tick --now` with a time to come leaves the record ahead of the clock: a move by mail is
    then recorded at the record's latest time (times only go forward) instead of being stuck,
    and nothing names an option mail in does not have."""
    game = deadline_game(tmp_path)
    far = "2099-01-05T00:00:00Z"
    assert run_inproc("tick", game, "--now", far, env=ENV).code == 0
    state = referee.open_game(game).state
    move = pick_move(state)
    box = maildir(tmp_path / "inbox")
    deliver(box, "m2", PLAYERS[state.player_to_move],
            dump_yaml({"game": "g1", **move.as_dict()}), when=1000, attachment="m.yaml")
    done = cli("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    assert f"turn 2 applied (bob), recorded at {far}: the record already holds that time" \
        in done.out
    assert "--now" not in done.out + done.err
    record = referee.read_record(game)
    assert record.moves[-1] == move and record.stamps[-1]["at"] == far
    assert list((box / "new").iterdir()) == []


@pytest.mark.parametrize("count, words", [(1, "1 message"), (2, "2 messages"), (0, "0 messages")])
def test_counted_messages(count, words):
    from rebis_pbm.present.views import counted
    assert counted(count, "message") == words


def test_mail_two_rounds_takes_commitments_then_joins_then_deals(tmp_path):
    """rebis-pbm/5 by mail: the join-phase message says to run rebis-pbm play on the attached
    view (its template holds no entropy); each player's commitment written by play comes back
    by mail, then, in round 2, each join; a join in round 1 is refused with its sentence."""
    game, gid = fair_game(run_inproc, tmp_path, fmt=())
    assert run_inproc("mail", "views", game, env=ENV).code == 0
    first = {to(m): m for m in queued(game)}
    alice = first[PLAYERS["alice"]]
    assert f"Run rebis-pbm play on the attached view-{gid}-join-alice.yaml" in text_of(alice)
    assert "round 1 of 2, waits for commitments" in text_of(alice)
    box = maildir(tmp_path / "inbox")
    deliver(box, "early", PLAYERS["alice"], f"game: {gid}\nplayer: alice\njoin: mine\n",
            when=999)
    sent: dict[str, Path] = {}
    for n, name in enumerate(PLAYERS):
        home = tmp_path / name
        home.mkdir()
        view = home / "view.yaml"
        view.write_text(attachment(first[PLAYERS[name]], f"view-{gid}-join-{name}.yaml"))
        assert run_inproc("play", view, "--yes", "--out", home).code == 0
        sent[name] = home / f"turn-000-{name}.yaml"
        deliver(box, f"c{n}", PLAYERS[name], sent[name].read_text(), when=1000 + n,
                attachment=f"join-{name}.yaml")
    done = run_inproc("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    lines = done.out.splitlines()
    assert lines[0].startswith("early from alice@example.org: ") and "rejected" in lines[0]
    # round 1 takes commitments, and says so (the thirteenth tester's finding 4)
    assert lines[1].startswith("c0 from alice@example.org: alice's commitment applied; the "
                               "deal waits for bob, carol"), lines[1]
    assert lines[-1].startswith("c2 from carol@example.org: carol's commitment applied: every "
                                "commitment is in; round 2 of 2, the deal waits for the joins "
                                "of alice, bob, carol"), lines[-1]
    assert not any("'s join applied" in line for line in lines)
    assert referee.read_record(game).join_round() == 2
    news = [m for m in queued(game) if to(m) == PLAYERS["bob"]][-1]
    assert "round 2 of 2, waits for joins" in text_of(news)
    for n, name in enumerate(PLAYERS):
        home = tmp_path / name
        view = home / "view.yaml"
        view.write_text(run_inproc("view", game, "--player", name, "--format", "yaml").out)
        assert run_inproc("play", view, "--yes", "--out", home).code == 0
        deliver(box, f"j{n}", PLAYERS[name], sent[name].read_text(), when=2000 + n,
                attachment=f"join-{name}.yaml")
    done = run_inproc("mail", "in", game, box, env=ENV)
    assert done.code == 0, (done.out, done.err)
    assert "j0 from alice@example.org: alice's join applied; the deal waits for bob, carol" \
        in done.out
    record = referee.read_record(game)
    assert not record.joining() and len(record.joins) == 2 * len(PLAYERS)
    assert run_inproc("verify", game).code == 0
