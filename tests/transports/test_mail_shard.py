"""One mailbox for many games (issue 14, item 6): `mail in FOLDER MAILDIR` routes each message
to its game by the move's game id (or the subject's [Rebis GAME]), each game with its own queue
and views beside its record; a player's message for no known game gets one answer, a stranger's
none; `mail out FOLDER` sends every game's queue. Real Maildirs, several real games."""

from pathlib import Path

import pytest
from test_mail_cli import REFEREE, incoming, invoke, maildir, move_doc, state_of

from rebis_pbm.transports.mail import mail_in as mail_jobs
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.outbox import QUEUED_STATE
from rebis_pbm.transports.mail.policy import parse_message
from transport_support import PLAYERS, new_args, pick_move, run

ENV = {"REBIS_PBM_REFEREE": REFEREE}


@pytest.fixture
def league(tmp_path) -> Path:
    """A folder with games g1 and g2 (alice, bob, carol) and g3 (bob and dave only), and a
    game without addresses in a subfolder; their first views sent."""
    folder = tmp_path / "league"
    (folder / "old").mkdir(parents=True)
    games = {"g1": PLAYERS, "g2": PLAYERS,
             "g3": {"bob": PLAYERS["bob"], "dave": "dave@example.org"},
             "g4": {"erin": None, "frank": None}}
    for game_id, players in games.items():
        path = folder / ("old" if game_id == "g4" else "") / f"{game_id}.yaml"
        assert invoke(*new_args(path, f"seed-{game_id}", game_id, players)).exit_code == 0
        if game_id != "g4":
            assert invoke("mail", "views", path, "--referee", REFEREE).exit_code == 0
            for msg in maildir_new(path.with_name(f"{game_id}.mailq")):
                msg.unlink()  # the deal's views, sent: start from empty queues
    return folder


def queued(folder: Path, game_id: str) -> list:
    queue = next(folder.rglob(f"{game_id}.mailq"), None)
    return [] if queue is None else [parse_message(p.read_bytes()) for p in maildir_new(queue)]


def first_move(folder: Path, game_id: str, **headers) -> bytes:
    move = pick_move(state_of(folder / f"{game_id}.yaml"))
    players = PLAYERS | {"dave": "dave@example.org"}
    return incoming(players[move.player], move_doc(move, game_id), **headers)


def deliver(box: Path, name: str, data: bytes) -> None:
    (box / "new" / name).write_bytes(data)


def test_each_message_goes_to_its_game_by_the_moves_game_id(league, tmp_path):
    box = maildir(tmp_path / "inbox")
    deliver(box, "m1", first_move(league, "g2", msgid="<a@x>"))
    deliver(box, "m2", first_move(league, "g3", msgid="<b@x>", Subject="[Rebis g1] wrong"))
    result = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "turn 1 applied" in result.output and result.output.count("applied") == 2
    assert state_of(league / "g1.yaml").turn == 1  # the subject's game is not the move's
    assert state_of(league / "g2.yaml").turn == 2 and state_of(league / "g3.yaml").turn == 2
    assert len(queued(league, "g2")) == 4 and len(queued(league, "g3")) == 3
    assert queued(league, "g1") == []
    assert (league / "g2.views").is_dir() and (league / "g3.views").is_dir()
    assert all("[Rebis g2]" in m["Subject"] for m in queued(league, "g2"))


def test_a_message_without_a_readable_move_goes_to_the_game_of_its_subject(league, tmp_path):
    box = maildir(tmp_path / "inbox")
    deliver(box, "m1", incoming("carol@example.org", "I pass, sorry.\n",
                                Subject="Re: [Rebis g2] turn 1: alice to move"))
    result = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    [reply] = queued(league, "g2")
    assert reply["To"].addresses[0].addr_spec == "carol@example.org"
    assert reply["Subject"].startswith("[Rebis g2] turn 1: your move was not applied")


def test_a_players_message_for_no_known_game_gets_one_answer(league, tmp_path):
    box = maildir(tmp_path / "inbox")
    move = pick_move(state_of(league / "g3.yaml"))
    deliver(box, "m1", incoming("bob@example.org", move_doc(move, "g9"), Subject="my move"))
    result = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "names no game" in result.output
    [reply] = queued(league, "g1")  # bob's first game
    assert reply["To"].addresses[0].addr_spec == "bob@example.org"
    assert reply["In-Reply-To"] == "<in1@x.org>"
    text = reply.get_content()
    assert "Your games: g1, g2, g3." in text and "game: ID" in text
    assert [queued(league, g) for g in ("g2", "g3")] == [[], []]
    again = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert "No new message" in again.output and len(queued(league, "g1")) == 1


def test_a_strangers_message_gets_no_answer_whatever_it_names(league, tmp_path):
    box = maildir(tmp_path / "inbox")
    deliver(box, "m1", incoming("mallory@example.net", "hello\n", Subject="[Rebis g1] hi"))
    deliver(box, "m2", incoming("mallory@example.net", "hello\n", msgid="<m2@x>"))
    result = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert result.output.count("ignored, not answered") == 2
    assert all(queued(league, g) == [] for g in ("g1", "g2", "g3"))


def test_the_console_script_serves_the_league_and_mail_out_sends_every_queue(league, tmp_path):
    box = maildir(tmp_path / "inbox")
    deliver(box, "m1", first_move(league, "g1", msgid="<a@x>"))
    deliver(box, "m2", first_move(league, "g3", msgid="<b@x>"))
    done = run("mail", "in", league, box, env=ENV)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().count("applied") == 2
    outbox = tmp_path / "outbox"
    sent = run("mail", "out", league, "--outbox", outbox)
    assert sent.returncode == 0, sent.stderr
    assert "7 messages written" in sent.stdout.decode()  # g1: 3 players + referee; g3: 2 + referee
    assert len(list(outbox.iterdir())) == 7
    assert queued(league, "g1") == [] and queued(league, "g3") == []


@pytest.mark.parametrize("option", ["--queue", "--views-dir"])
def test_a_folder_of_games_has_each_games_own_queue_and_views(league, tmp_path, option):
    result = invoke("mail", "in", league, maildir(tmp_path / "inbox"), "--referee", REFEREE,
                    option, tmp_path / "elsewhere")
    assert result.exit_code == 2 and "does not go with a folder of games" in result.output


def test_a_game_ahead_of_its_queue_has_its_views_queued_and_only_it_is_locked_again(
        league, tmp_path, monkeypatch):
    """Crash safety over a folder: a game whose record went ahead of its queue (a move applied
    with `apply`, or a run stopped before queuing) has every view queued before the messages
    are handled. Only such a game is locked and read again: a league's run touches every game,
    and the others' queues were up to date with their records as the folder was read."""
    move = pick_move(state_of(league / "g3.yaml"))
    move_file = tmp_path / "move.yaml"
    move_file.write_text(move_doc(move, "g3"))
    assert invoke("apply", league / "g3.yaml", move_file).exit_code == 0
    recovered = []
    recover = mail_jobs._recover

    def counted_recover(path, *args, **kwargs):
        recovered.append(Path(path).name)
        return recover(path, *args, **kwargs)

    monkeypatch.setattr(mail_jobs, "_recover", counted_recover)
    box = maildir(tmp_path / "inbox")
    deliver(box, "m1", first_move(league, "g1", msgid="<a@x>"))
    result = invoke("mail", "in", league, box, "--referee", REFEREE)
    assert result.exit_code == 0, result.output
    assert "game g3: the last move's messages had not been queued" in result.output
    assert recovered == ["g3.yaml"]
    assert len(queued(league, "g3")) == 3 and len(queued(league, "g1")) == 4
    assert all("turn 2" in m["Subject"] for m in queued(league, "g3"))
    assert (league / "g3.mailq" / QUEUED_STATE).read_text() == "1\n"
    recovered.clear()
    assert invoke("mail", "in", league, box, "--referee", REFEREE).exit_code == 0
    assert recovered == []  # every queue up to date now


def test_two_records_of_the_same_game_are_refused(league):
    (league / "copy.yaml").write_bytes((league / "g1.yaml").read_bytes())
    result = invoke("mail", "in", league, "-", "--referee", REFEREE, input=b"")
    assert result.exit_code == 2
    assert "are both game g1" in result.output
