"""Commands by mail (docs/mail.md, "Commands"; issue 28, item 1): a registered player sends
``help``, ``view``, ``moves``, ``history`` or ``resign`` instead of a move, in the subject or the
first line of the text, and the sender alone gets the answer, in their language; a stranger gets
nothing; a player with a key signs the command line; ``resign`` alone changes the record, and
the bot then plays that seat to the end.

Messages are delivered into a real Maildir and read by ``mail in`` (through click's runner, and
once through the installed console script); keys and signatures are made by ``ssh-keygen``.
"""

from __future__ import annotations

import mailbox
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner

from rebis_pbm.app import open_game
from rebis_pbm.cli import cli
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.transports.mail.maildir import maildir_new
from rebis_pbm.transports.mail.policy import parse_message
from sshkeys import needs_ssh, ssh_key, ssh_sign
from transport_support import PLAYERS, REFEREE, new_args, pick_move, run

# What each command's answer says, by language: (words of its subject, words of its text).
ANSWERS = {
    "help": {"en": ("the commands", "Commands: write one of these words"),
             "fr": ("les commandes", "Commandes\u00a0: écris l'un de ces mots"),
             "pt": ("os comandos", "Comandos: escreve uma destas palavras")},
    "moves": {"en": ("your legal moves", "Your legal moves: "),
              "fr": ("tes coups légaux", "Tes coups légaux\u00a0: "),
              "pt": ("os teus lances válidos", "Os teus lances válidos: ")},
    "history": {"en": ("the moves so far", "The deal: each player was dealt"),
                "fr": ("les coups joués jusqu'ici", "La distribution\u00a0: chaque joueur"),
                "pt": ("os lances até agora", "A distribuição: ")},
    "away": {"en": ("away: not available", "The command away is not available in this game."),
             "fr": ("away\u00a0: non disponible",
                    "La commande away n'est pas disponible dans cette partie."),
             "pt": ("away: não disponível", "O comando away não está disponível neste jogo.")},
    "hello": {"en": ("the commands", '"hello" is not a command.'),
              "fr": ("les commandes", "«\u00a0hello\u00a0» n'est pas une commande."),
              "pt": ("os comandos", "«hello» não é um comando.")},
    "resign": {"en": ("you resigned",
                      "You have left the game: from now on the bot moves for you"),
               "fr": ("tu as abandonné",
                      "Tu as quitté la partie\u00a0: désormais le bot joue à ta place"),
               "pt": ("desististe",
                      "Saíste do jogo: a partir de agora o bot joga no teu lugar")},
}
# The subject of alice's view at turn 1, by language (the answer to "view").
VIEW_SUBJECT = {"en": "turn 1: your move", "fr": "tour 1\u00a0: à toi de jouer",
                "pt": "turno 1: é a tua vez"}
REFUSED = {"en": "your command was not carried out", "fr": "ta commande n'a pas été exécutée",
           "pt": "o teu comando não foi executado"}


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def make_game(tmp_path: Path, lang: str = "en", players=PLAYERS, *extra: str) -> Path:
    game = tmp_path / "game.yaml"
    langs = [] if lang == "en" else ["--lang", f"alice={lang}"]
    result = invoke(*new_args(game, "mail-commands", "cmd", players), *langs, *extra)
    assert result.exit_code == 0, result.output
    return game


def message(sender: str, subject: str, body: str, attachments=(), msgid="<c1@example.org>"
            ) -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = REFEREE
    msg["Subject"] = subject
    msg["Message-ID"] = msgid
    msg.set_content(body)
    for name, data in attachments:
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg.as_bytes()


class Post:
    """The referee's Maildir, and what ``mail in`` queued since the last look."""

    def __init__(self, game: Path) -> None:
        self.game = game
        self.box = game.parent / "Maildir"
        mailbox.Maildir(self.box, create=True)
        self.seen: set[str] = set()

    def deliver(self, data: bytes) -> None:
        mailbox.Maildir(self.box, create=False).add(data)

    def mail_in(self, *extra: str):
        result = invoke("mail", "in", self.game, self.box, "--referee", REFEREE,
                        "--no-pictures", *extra)
        assert result.exit_code == 0, result.output
        return result

    def new(self) -> list:
        queue = self.game.with_name("game.mailq")
        fresh = [p for p in maildir_new(queue) if p.name not in self.seen] if queue.exists() \
            else []
        self.seen.update(p.name for p in fresh)
        return [parse_message(p.read_bytes()) for p in fresh]


def to_of(msg) -> list[str]:
    return [a.addr_spec for a in msg["To"].addresses]


def only_to(messages: list, address: str):
    """The one message queued, to ``address`` alone (no Cc, no Bcc)."""
    assert len(messages) == 1, [m["Subject"] for m in messages]
    [msg] = messages
    assert to_of(msg) == [address] and msg["Cc"] is None and msg["Bcc"] is None
    return msg


def text_of(msg) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content()


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_each_command_is_answered_to_its_sender_alone_in_their_language(tmp_path, lang):
    game = make_game(tmp_path, lang)
    post = Post(game)
    before = game.read_bytes()
    for number, command in enumerate(["help", "moves", "history", "away", "hello"]):
        # a command's name in the subject; a word no command has, in the text (an unknown
        # subject is a subject, not a command)
        subject, body = ((f"[Rebis cmd] {command}", "Thanks!\n") if command != "hello" else
                         ("Re: [Rebis cmd] turn 1", f"{command}\n"))
        post.deliver(message(PLAYERS["alice"], subject, body, msgid=f"<c{number}@example.org>"))
        result = post.mail_in()
        assert f"command {command} (alice); answer queued" in result.output
        answer = only_to(post.new(), PLAYERS["alice"])
        subject, words = ANSWERS[command][lang]
        assert answer["Subject"] == f"[Rebis cmd] {subject}"
        assert words in text_of(answer)
        assert answer["In-Reply-To"] == f"<c{number}@example.org>"
        assert answer["Auto-Submitted"] == "auto-replied"
    # view: the message mail views --player alice queues, to her alone
    post.deliver(message(PLAYERS["alice"], "view", "", msgid="<view@example.org>"))
    post.mail_in()
    view = only_to(post.new(), PLAYERS["alice"])
    assert view["Subject"] == f"[Rebis cmd] {VIEW_SUBJECT[lang]}"
    assert [p.get_filename() for p in view.iter_attachments()] == [
        "view-cmd-turn-001-alice.yaml", "move-turn-001-alice.yaml"]
    assert game.read_bytes() == before  # no command but resign changes the record


def test_moves_lists_each_legal_move_as_a_move_file_that_mail_in_applies(tmp_path):
    game = make_game(tmp_path)
    post = Post(game)
    post.deliver(message(PLAYERS["alice"], "A question", "moves\n"))
    post.mail_in()
    text = text_of(only_to(post.new(), PLAYERS["alice"]))
    blocks = text.split("\n---\n")[1:]
    from rebis_pbm.engine import legal_moves
    assert len(blocks) == len(legal_moves(open_game(game)[1].state)) > 1
    # the second block sent back as it is, below a reply's quote, is applied
    chosen = blocks[1].split("...")[0]
    post.deliver(message(PLAYERS["alice"], "Re: moves", f"---\n{chosen}...\n",
                         msgid="<m2@example.org>"))
    assert "turn 1 applied (alice)" in post.mail_in().output


def test_moves_out_of_turn_is_refused_with_the_reason_in_the_senders_language(tmp_path):
    game = make_game(tmp_path, "en", PLAYERS, "--lang", "bob=fr")
    post = Post(game)
    post.deliver(message(PLAYERS["bob"], "moves", ""))
    assert "command moves refused" in post.mail_in().output
    reply = only_to(post.new(), PLAYERS["bob"])
    assert REFUSED["fr"] in reply["Subject"]
    assert "tu n'as pas de coup à jouer\u00a0: le tour 1 est celui d'alice" in text_of(reply)


def test_a_command_in_the_first_line_of_the_text_of_a_reply(tmp_path):
    game = make_game(tmp_path, "pt")
    post = Post(game)
    body = ("history\n\nOn Mon, 1 Dec 2025, Rebis referee wrote:\n> turn 1: your move\n"
            "> ---\n> game: cmd\n-- \nalice\n")
    post.deliver(message(PLAYERS["alice"], "Re: [Rebis cmd] turno 1: é a tua vez", body))
    post.mail_in()
    answer = only_to(post.new(), PLAYERS["alice"])
    assert answer["Subject"] == "[Rebis cmd] os lances até agora"
    assert text_of(answer).startswith("A distribuição: ")


def test_a_stranger_gets_no_answer_and_nothing_changes(tmp_path):
    game = make_game(tmp_path)
    post = Post(game)
    before = game.read_bytes()
    post.deliver(message("mallory@example.net", "help", "help\n"))
    result = post.mail_in()
    assert "ignored, not answered: mallory@example.net is not the address" in result.output
    assert post.new() == [] and game.read_bytes() == before


def test_a_message_with_a_move_attached_is_a_move_whatever_its_subject(tmp_path):
    game = make_game(tmp_path)
    post = Post(game)
    move = dump_yaml({"game": "cmd", **pick_move(open_game(game)[1].state).as_dict()})
    post.deliver(message(PLAYERS["alice"], "help", "", [("move.yaml", move.encode())]))
    assert "turn 1 applied (alice)" in post.mail_in().output


# --- a player with a key signs the command line ------------------------------------------------

@needs_ssh
def test_a_keyed_players_unsigned_move_is_refused_to_them_in_the_second_person(tmp_path):
    """Issue 30: a refusal sent to the player it is about says "you" (here in French)."""
    key = ssh_key(tmp_path, "alice_key")
    game = make_game(tmp_path, "fr", PLAYERS, "--key", f"alice={key}.pub")
    post = Post(game)
    move = dump_yaml({"game": "cmd", **pick_move(open_game(game)[1].state).as_dict()})
    post.deliver(message(PLAYERS["alice"], "mon coup", "", [("move.yaml", move.encode())]))
    post.mail_in()
    said = text_of(only_to(post.new(), PLAYERS["alice"]))
    assert "tu as enregistré une clé, tes coups doivent donc être signés" in said, said
    assert "alice a enregistré" not in said


@needs_ssh
def test_a_signed_players_command_must_be_signed_and_name_the_game(tmp_path):
    key = ssh_key(tmp_path, "alice_key")
    game = make_game(tmp_path, "fr", PLAYERS, "--key", f"alice={key}.pub")
    post = Post(game)
    before = game.read_bytes()
    # unsigned: refused, as an unsigned move is, with the reason, to alice alone
    post.deliver(message(PLAYERS["alice"], "history", "", msgid="<s1@example.org>"))
    assert "command history refused" in post.mail_in().output
    reply = only_to(post.new(), PLAYERS["alice"])
    assert REFUSED["fr"] in reply["Subject"]
    assert "tu as enregistré une clé, donc tes commandes doivent être signées" in \
        text_of(reply)
    # signed by another key (a forger): refused
    forged = ssh_sign(ssh_key(tmp_path, "mallory_key"), b"history cmd\n")
    post.deliver(message(PLAYERS["alice"], "history cmd", "", [("c.txt.sig", forged)],
                         msgid="<s2@example.org>"))
    assert "command history refused" in post.mail_in().output
    assert "ne correspond pas à ta clé" in text_of(only_to(post.new(), PLAYERS["alice"]))
    # signed, but without the game: refused (it could be sent again to another game)
    post.deliver(message(PLAYERS["alice"], "history", "", [("c.sig", ssh_sign(key, b"history\n"))],
                         msgid="<s3@example.org>"))
    post.mail_in()
    assert "une commande signée nomme la partie" in text_of(only_to(post.new(),
                                                                     PLAYERS["alice"]))
    # signed, the signature attached: answered
    post.deliver(message(PLAYERS["alice"], "history cmd", "",
                         [("c.txt.sig", ssh_sign(key, b"history cmd\n"))],
                         msgid="<s4@example.org>"))
    assert "command history (alice); answer queued" in post.mail_in().output
    assert only_to(post.new(), PLAYERS["alice"])["Subject"] == \
        "[Rebis cmd] les coups joués jusqu'ici"
    # signed, the signature pasted below the line in the text: answered
    armour = ssh_sign(key, b"help cmd\n").decode()
    post.deliver(message(PLAYERS["alice"], "Re: [Rebis cmd] tour 1", f"help cmd\n\n{armour}",
                         msgid="<s5@example.org>"))
    assert "command help (alice); answer queued" in post.mail_in().output
    assert only_to(post.new(), PLAYERS["alice"])["Subject"] == "[Rebis cmd] les commandes"
    assert game.read_bytes() == before


# --- resign ---------------------------------------------------------------------------------------

TWO = {"alice": PLAYERS["alice"], "bob": PLAYERS["bob"]}


def alice_moves_until_the_end(post: Post, game: Path) -> int:
    """Alice plays by mail (a move in the text) until the game is over; returns her moves."""
    count = 0
    while True:
        state = open_game(game)[1].state
        if state.finished:
            return count
        assert state.player_to_move == "alice"
        move = dump_yaml({"game": "cmd", **pick_move(state).as_dict()})
        post.deliver(message(PLAYERS["alice"], "my move", f"---\n{move}...\n",
                             msgid=f"<a{count}@example.org>"))
        post.mail_in()
        count += 1


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_resign_then_the_bot_plays_that_seat_and_the_finished_game_verifies(tmp_path, lang):
    game = make_game(tmp_path, "en", TWO, "--lang", f"bob={lang}")
    post = Post(game)
    post.deliver(message(PLAYERS["bob"], "[Rebis cmd] resign", "I have to go.\n"))
    result = post.mail_in()
    assert "bob resigned; the bot plays their seat; answer queued" in result.output
    answer = only_to(post.new(), PLAYERS["bob"])
    subject, words = ANSWERS["resign"][lang]
    assert answer["Subject"] == f"[Rebis cmd] {subject}" and words in text_of(answer)
    # the record's reason, as the reader's language words it (the views word it so too)
    assert {"en": '"resigned by mail"', "fr": "«\u00a0abandon par e-mail\u00a0»",
            "pt": "«desistência por e-mail»"}[lang] in text_of(answer).replace("\n", " ")
    record = open_game(game).record
    assert record.actions[-1]["action"] == "replace_player"
    assert record.actions[-1]["player"] == "bob"
    assert record.actions[-1]["reason"] == "resigned by mail"
    # resigning again changes nothing
    post.deliver(message(PLAYERS["bob"], "resign", "", msgid="<again@example.org>"))
    assert "command resign refused" in post.mail_in().output
    post.new()
    # alice plays by mail; after each of her moves the bot moves for bob at once
    assert alice_moves_until_the_end(post, game) > 1
    record, replay, _ = open_game(game)
    assert replay.state.finished
    bob_turns = [t for t, (move, _) in enumerate(replay.history, 1) if move.player == "bob"]
    assert bob_turns and all(record.stamps[t - 1].get("by") == "referee" and
                             record.stamps[t - 1].get("reason") == "resigned by mail"
                             for t in bob_turns)
    verified = invoke("verify", game)
    assert verified.exit_code == 0, verified.output
    assert "the referee gave bob's seat to the bot for good (resigned by mail)" in \
        verified.output


def test_resign_on_ones_turn_has_the_bot_move_at_once_and_every_player_told(tmp_path):
    game = make_game(tmp_path, "en", TWO)
    post = Post(game)
    invoke("mail", "views", game, "--referee", REFEREE, "--no-pictures")
    post.new()
    post.deliver(message(PLAYERS["alice"], "resign", ""))
    result = post.mail_in()
    assert "the bot moved for alice (1 move)" in result.output
    messages = post.new()
    assert messages[0]["Subject"] == "[Rebis cmd] you resigned"
    # then each player's view and the referee's: the referee's move for alice, told as such
    assert sorted(a for m in messages[1:] for a in to_of(m)) == sorted(
        [PLAYERS["alice"], PLAYERS["bob"], REFEREE])
    bob = next(m for m in messages[1:] if to_of(m) == [PLAYERS["bob"]])
    assert "the referee moved for alice (resigned by mail)" in text_of(bob)
    assert open_game(game)[1].state.player_to_move == "bob"


# --- the installed console script -----------------------------------------------------------------

def test_a_command_through_the_console_script(tmp_path):
    game = make_game(tmp_path, "fr")
    post = Post(game)
    post.deliver(message(PLAYERS["alice"], "Une question", "moves\n-- \nalice\n"))
    done = run("mail", "in", game, post.box, "--referee", REFEREE, "--no-pictures")
    assert done.returncode == 0, done.stderr
    assert "command moves (alice); answer queued" in done.stdout.decode()
    answer = only_to(post.new(), PLAYERS["alice"])
    assert answer["Subject"] == "[Rebis cmd] tes coups légaux"
    assert "Tes coups légaux\u00a0: " in text_of(answer)


def test_tick_plays_a_resigned_seat_at_once_when_a_move_came_by_another_way(tmp_path):
    """A move applied outside mail in (``apply``) leaves a resigned player to move: ``tick``
    moves for them at once, before their deadline, as the resignation's stand-in."""
    game = make_game(tmp_path, "en", TWO, "--deadline", "72h")
    post = Post(game)
    post.deliver(message(PLAYERS["bob"], "resign", ""))
    post.mail_in()
    move = tmp_path / "move.yaml"
    move.write_text(dump_yaml({"game": "cmd", **pick_move(open_game(game)[1].state).as_dict()}))
    assert invoke("apply", game, move).exit_code == 0
    assert open_game(game)[1].state.player_to_move == "bob"
    ticked = invoke("tick", game)
    assert ticked.exit_code == 0, ticked.output
    record, replay, _ = open_game(game)
    assert replay.state.player_to_move == "alice"
    assert record.stamps[-1]["reason"] == "resigned by mail"


def test_a_word_above_a_move_in_the_text_is_not_taken_for_a_command(tmp_path):
    """A move written in the text without '---', below a word of greeting: read as a move (and
    refused as one, for the greeting is not YAML), not answered with the list of commands."""
    game = make_game(tmp_path)
    post = Post(game)
    move = dump_yaml({"game": "cmd", **pick_move(open_game(game)[1].state).as_dict()})
    post.deliver(message(PLAYERS["alice"], "my move", f"Hello\n{move}"))
    result = post.mail_in()
    assert "refused (" in result.output and "command" not in result.output
    assert "your move was not applied" in only_to(post.new(), PLAYERS["alice"])["Subject"]


@needs_ssh
def test_a_signed_player_cannot_resign_by_mail_for_the_bot_cannot_sign_for_them(tmp_path):
    key = ssh_key(tmp_path, "bob_key")
    game = make_game(tmp_path, "en", TWO, "--key", f"bob={key}.pub")
    post = Post(game)
    before = game.read_bytes()
    post.deliver(message(PLAYERS["bob"], "resign cmd", "",
                         [("c.txt.sig", ssh_sign(key, b"resign cmd\n"))]))
    logged = post.mail_in().output
    assert "command resign refused" in logged
    # the referee's log speaks of the player in the third person throughout
    assert "only the referee can end their part" in logged and "your" not in logged, logged
    reply = only_to(post.new(), PLAYERS["bob"])
    assert "you registered a key, and the bot cannot sign moves for you" in text_of(reply)
    assert game.read_bytes() == before
