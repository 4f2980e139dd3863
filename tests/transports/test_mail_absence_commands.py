"""The ``away FROM TO`` and ``back`` commands by mail (docs/mail.md, "Commands"; issue 28, item
1): a registered player logs their own absence in a game with an allowance (``new --absence``),
is answered in their language, alone; a player with a key signs the line; a bad date or an
absence past the allowance is refused and nothing is written.

Real Maildir, ``mail in`` through click's runner; keys and signatures by ``ssh-keygen``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import yaml
from test_mail_commands import PLAYERS, REFUSED, Post, make_game, message, only_to, text_of

from rebis_pbm.app import open_game
from rebis_pbm.record.deadlines import absences, deadline_of
from sshkeys import needs_ssh, ssh_key, ssh_sign

ALLOWANCE = ("--deadline", "72h", "--absence", "14d/3")
ANSWERS = {  # (subject of away's answer, its text's words, back's subject, back's words)
    "en": ("you are away", "You are away from ", "you are back", "Welcome back"),
    "fr": ("absence enregistrée", "Ton absence va du ", "tu es de retour", "Bon retour\u00a0:"),
    "pt": ("estás ausente", "Estás ausente de ", "estás de volta", "De volta: a tua ausência"),
}


def day(offset: int) -> str:
    """The date ``offset`` days from today (UTC)."""
    return (datetime.now(timezone.utc) + timedelta(days=offset)).strftime("%Y-%m-%d")


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_away_then_back_by_mail_in_the_players_language(tmp_path, lang):
    game = make_game(tmp_path, lang, PLAYERS, *ALLOWANCE)
    post = Post(game)
    before = deadline_of(open_game(game).record)
    start, end = day(3), day(6)
    post.deliver(message(PLAYERS["alice"], f"[Rebis cmd] away {start} {end}", "",
                         msgid="<a1@example.org>"))
    assert "command away (alice); answer queued" in post.mail_in().output
    answer = only_to(post.new(), PLAYERS["alice"])
    away_subject, away_words, back_subject, back_words = ANSWERS[lang]
    assert answer["Subject"] == f"[Rebis cmd] {away_subject}"
    assert away_words in text_of(answer) and f"{start}T00:00:00Z (UTC)" in text_of(answer)
    record = open_game(game).record
    [absence] = absences(record)
    assert (absence.player, absence.start, absence.end) == (
        "alice", f"{start}T00:00:00Z", f"{day(7)}T00:00:00Z")  # TO's day to its end
    assert deadline_of(record) != before  # the clock stops while she is away
    # back, in the text's first line: the absence to come is called off
    post.deliver(message(PLAYERS["alice"], "Re: [Rebis cmd] tour 1", "back\n",
                         msgid="<a2@example.org>"))
    post.mail_in()
    answer = only_to(post.new(), PLAYERS["alice"])
    assert answer["Subject"] == f"[Rebis cmd] {back_subject}"
    assert back_words in text_of(answer)
    assert deadline_of(open_game(game).record) == before


def test_a_bad_date_and_an_absence_past_the_allowance_are_refused(tmp_path):
    game = make_game(tmp_path, "fr", PLAYERS, "--deadline", "72h", "--absence", "5d/2")
    post = Post(game)
    before = game.read_bytes()
    for number, line in enumerate(["away tomorrow 2030-01-01", f"away {day(2)} {day(20)}",
                                   f"away {day(5)} {day(2)}", "away", "back"]):
        post.deliver(message(PLAYERS["bob"], line, "", msgid=f"<r{number}@example.org>"))
        assert "refused" in post.mail_in().output
        reply = only_to(post.new(), PLAYERS["bob"])
        assert reply["Subject"].endswith("turn 1: your command was not carried out")
    assert game.read_bytes() == before
    # from now: logged
    post.deliver(message(PLAYERS["bob"], f"away now {day(1)}", "", msgid="<n1@example.org>"))
    assert "command away (bob)" in post.mail_in().output
    post.new()
    assert [a.player for a in absences(open_game(game).record)] == ["bob"]


def test_away_is_not_available_without_an_allowance(tmp_path):
    game = make_game(tmp_path, "en", PLAYERS)
    post = Post(game)
    post.deliver(message(PLAYERS["bob"], f"away {day(2)} {day(3)}", ""))
    post.mail_in()
    assert only_to(post.new(), PLAYERS["bob"])["Subject"] == "[Rebis cmd] away: not available"


@needs_ssh
def test_a_signed_players_away_must_be_signed_and_name_the_game(tmp_path):
    key = ssh_key(tmp_path, "alice_key")
    game = make_game(tmp_path, "pt", PLAYERS, *ALLOWANCE, "--key", f"alice={key}.pub")
    post = Post(game)
    line = f"away {day(2)} {day(4)} cmd"
    post.deliver(message(PLAYERS["alice"], line, "", msgid="<s1@example.org>"))
    assert "command away refused" in post.mail_in().output
    assert REFUSED["pt"] in only_to(post.new(), PLAYERS["alice"])["Subject"]
    assert absences(open_game(game).record) == []
    # signed, it ends with the point of the history it answers, as her view gives it
    line += " " + yaml.safe_load(game.with_name("game.views").joinpath("alice.yaml").read_text(
        ))["command_point"]
    post.deliver(message(PLAYERS["alice"], line, "",
                         [("c.txt.sig", ssh_sign(key, (line + "\n").encode()))],
                         msgid="<s2@example.org>"))
    assert "command away (alice); answer queued" in post.mail_in().output
    assert only_to(post.new(), PLAYERS["alice"])["Subject"] == "[Rebis cmd] estás ausente"
    assert [a.player for a in absences(open_game(game).record)] == ["alice"]


def test_an_absence_past_the_allowance_is_refused_in_the_players_language(tmp_path):
    game = make_game(tmp_path, "fr", PLAYERS, "--deadline", "72h", "--absence", "5d/2")
    post = Post(game)
    post.deliver(message(PLAYERS["alice"], f"away {day(2)} {day(20)}", ""))
    post.mail_in()
    reply = text_of(only_to(post.new(), PLAYERS["alice"]))
    year = day(2)[:4]  # the allowance's year is the absence's
    # said to alice (issue 30), the lengths in French, the allowance a "quota"
    assert ("l'absence n'a pas été enregistrée\u00a0: il te reste 5 j d'absence en " + year
            + " (ton quota est de 5 j par an), moins que les 19 j demandés"
            in reply), reply
    assert "rien n'a été écrit" in reply


@pytest.mark.parametrize(("lang", "one", "none", "refused", "not_away"), [
    ("fr", "5 j d'absence, en 1 absence au plus.", "Il te reste en {year}\u00a0: plus aucune "
     "absence.", "tu as déjà une absence du ", "tu n'as pas d'absence en cours ni à venir"),
    ("pt", "5 d de ausência, em no máximo 1 ausência.", "Resta-te em {year}: nenhuma "
     "ausência mais.", "já estás ausente de ", "não estás ausente nem tens uma ausência"),
    ("en", "5d of absence, in at most 1 more absence.", "Left in {year}: no more absence.",
     "you are already away from ", "you are not away and have no absence to come"),
])
def test_the_away_answers_count_in_the_language_and_speak_to_the_player(tmp_path, lang, one,
                                                                          none, refused,
                                                                          not_away):
    """Issue 30: what is left is counted through ngettext (1 absence, then none left), a
    refusal speaks to its player ("you are already away", never their name) with its times
    in the player's time zone, and back with no absence is refused as "you are not away"
    (nothing was being logged)."""
    game = make_game(tmp_path, lang, PLAYERS, "--deadline", "72h", "--absence", "14d/2",
                     "--tz", "alice=America/Sao_Paulo")
    post = Post(game)
    year = day(2)[:4]
    said = []
    for n, (start, end) in enumerate(((2, 10), (11, 11), (12, 12), (2, 3))):
        post.deliver(message(PLAYERS["alice"], f"away {day(start)} {day(end)}", "",
                             msgid=f"<w{n}@example.org>"))
        post.mail_in()
        said.append(text_of(only_to(post.new(), PLAYERS["alice"])))
    assert one in said[0], said[0]
    # the answer ends with where the game stands, to alice, who is to move: "you"
    assert {"fr": "à toi de jouer", "pt": "é a tua vez", "en": "you to move"}[lang] in said[0]
    assert none.format(year=year) in said[1], said[1]
    for text in said:
        assert "alice" not in text.split("\n\n", 1)[1], text  # second person, all through
        assert "(s)" not in text and "absences au plus" not in text
    # the third is one too many; the fourth overlaps the first: refused, in her zone
    assert "(America/Sao_Paulo)" in said[3] and "Z (UTC)" not in said[3], said[3]
    assert refused in said[3], said[3]
    post.deliver(message(PLAYERS["bob"], "back", "", msgid="<b0@example.org>"))
    post.mail_in()
    text = text_of(only_to(post.new(), PLAYERS["bob"]))
    assert "you are not away and have no absence to come" in text and "not logged" not in text
    if lang != "en":
        make_bob = tmp_path / "b"
        make_bob.mkdir()
        game = make_game(make_bob, lang, PLAYERS, *ALLOWANCE)
        post = Post(game)
        post.deliver(message(PLAYERS["alice"], "back", "", msgid="<b1@example.org>"))
        post.mail_in()
        text = text_of(only_to(post.new(), PLAYERS["alice"]))
        assert not_away in text and "alice" not in text.split("\n\n", 1)[1], text


@pytest.mark.parametrize(("lang", "past", "backwards"), [
    ("fr", "est avant maintenant (", "n'est pas après "),
    ("pt", "é antes de agora (", "não é depois de "),
    ("en", "is before now (", "is not after "),
])
def test_an_absence_in_the_past_or_backwards_is_refused_in_the_players_language(
        tmp_path, lang, past, backwards):
    """The dates' own faults are said in the player's language too (issue 30: every text a
    player reads is translated), in their time zone; nothing is written."""
    game = make_game(tmp_path, lang, PLAYERS, *ALLOWANCE, "--tz", "alice=America/Sao_Paulo")
    post = Post(game)
    post.deliver(message(PLAYERS["alice"], "away 2020-01-01T00:00:00Z 2020-01-05T00:00:00Z", ""))
    post.mail_in()
    reply = text_of(only_to(post.new(), PLAYERS["alice"]))
    assert past in reply and "2019-12-31T21:00:00-03:00" in reply, reply
    post.deliver(message(PLAYERS["alice"], f"away {day(9)}T00:00:00Z {day(5)}T00:00:00Z", "",
                         msgid="<b2@example.org>"))
    post.mail_in()
    reply = text_of(only_to(post.new(), PLAYERS["alice"]))
    assert backwards in reply and "-03:00" in reply, reply
    assert absences(open_game(game).record) == []


def test_an_absence_from_a_day_already_over_is_refused_as_beginning_in_the_past(tmp_path):
    """FROM today means from now; FROM a day already over is refused (it was taken as now)."""
    game = make_game(tmp_path, "pt", PLAYERS, *ALLOWANCE)
    post = Post(game)
    post.deliver(message(PLAYERS["alice"], f"away {day(-4)} {day(3)}", ""))
    post.mail_in()
    reply = text_of(only_to(post.new(), PLAYERS["alice"]))
    assert "é antes de agora (" in reply and "não pode começar no passado" in reply, reply
    assert absences(open_game(game).record) == []
    post.deliver(message(PLAYERS["alice"], f"away {day(0)} {day(3)}", "", msgid="<t2@example.org>"))
    post.mail_in()
    assert [a.player for a in absences(open_game(game).record)] == ["alice"]
