"""Each player's language (issue 18, docs/views.md "Languages"): the gettext catalogs, a language
per player in the record (new --lang, a join's lang:, replace-player --lang), and a game where ann
reads French, ben Portuguese and cid English: their views, mails, templates and refusals.

The words checked are the game's own (docs/glossary.md): "étagère active", "prateleira ativa",
"deck Bibliothèque", "baralho da Biblioteca", "poussière dorée", "pó dourado" ...
"""

from __future__ import annotations

import gettext
import re
import string
from collections import Counter
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from clitools import run_inproc
from rebis_pbm.app import open_game
from rebis_pbm.cli import cli as rebis_cli
from rebis_pbm.engine import IllegalMove, Move, Play, Ruleset, apply_move, legal_moves, setup
from rebis_pbm.engine.phrases import Phrase
from rebis_pbm.files.names import default_queue
from rebis_pbm.present import i18n
from sshkeys import ssh_key, ssh_sign

babel = pytest.importorskip("babel", reason="Babel (the test extra) reads and extracts catalogs")
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
LOCALE = REPO / "rebis_pbm" / "locale"
TRANSLATED = ("fr", "pt")
REFEREE = "referee@example.org"
ADDRESSES = {"ann": "ann@example.org", "ben": "ben@example.org", "cid": "cid@example.org"}


# --- the catalogs ------------------------------------------------------------------------------

def _pot():
    with open(LOCALE / "rebis_pbm.pot", "rb") as f:
        return read_po(f)


def _po(lang: str):
    with open(LOCALE / lang / "LC_MESSAGES" / "rebis_pbm.po", "rb") as f:
        return read_po(f, locale=lang)


def _fields(text: str) -> Counter:
    """The ``str.format`` fields of ``text`` with their conversions (``{player!r}``)."""
    return Counter((name, conversion) for _, name, _, conversion in string.Formatter().parse(text)
                   if name is not None)


def _ids(catalog) -> set:
    return {m.id for m in catalog if m.id}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation_that_keeps_its_placeholders(lang):
    catalog = _po(lang)
    assert _ids(catalog) == _ids(_pot()), "the .po is not updated from the .pot: make catalogs"
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, f"{lang}: fuzzy translation of {message.id!r}"
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert text, f"{lang}: no translation of {message.id!r}"
            assert _fields(text) == _fields(ids[-1]), \
                f"{lang}: {text!r} does not keep the placeholders of {ids[-1]!r}"


def test_the_template_holds_every_message_marked_in_the_source():
    keywords = {**DEFAULT_KEYWORDS, "N_": None, "n_": (1, 2)}
    found = {msgid for _, _, msgid, _, _ in
             extract_from_dir(str(REPO / "rebis_pbm"), [("**.py", "python")], keywords=keywords)}
    found = {m[0] if isinstance(m, tuple) else m for m in found}
    in_pot = {m[0] if isinstance(m, tuple) else m for m in _ids(_pot())}
    assert found == in_pot, ("the .pot is out of date (run make catalogs): missing "
                             f"{sorted(found - in_pot)}, stale {sorted(in_pot - found)}")


def test_the_record_knows_the_join_placeholder_in_every_language_it_is_written_in():
    """verify (record/audit.py, below the catalogs) recognises a join that kept the template's
    words by the record's own list of them (record/wording.py): each language's translation of
    the placeholder must be on it, else a blank join in that language would count in the deal."""
    from rebis_pbm.record import wording

    written = i18n.in_every_language(wording.JOIN_PLACEHOLDER)
    assert set(written) <= set(wording.JOIN_PLACEHOLDER_WORDS), (
        f"add {sorted(set(written) - set(wording.JOIN_PLACEHOLDER_WORDS))} to "
        "rebis_pbm/record/wording.py's JOIN_PLACEHOLDER_WORDS")
    for words in written:
        assert wording.is_join_placeholder(f"  {words.lower()}\n")
    assert not wording.is_join_placeholder(written[1] + " mais pas tout à fait")


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogs_are_those_of_the_po_files_and_ship_in_the_package(lang):
    with open(LOCALE / lang / "LC_MESSAGES" / "rebis_pbm.mo", "rb") as f:
        compiled = gettext.GNUTranslations(f)
    for message in _po(lang):
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            for n, text in ((1, message.string[0]), (2, message.string[-1])):
                assert compiled.ngettext(*message.id, n) == text, message.id
        else:
            assert compiled.gettext(message.id) == message.string, \
                f"{lang}: the .mo is not compiled from the .po (make catalogs): {message.id!r}"
    installed = Path(i18n.LOCALE_DIR) / lang / "LC_MESSAGES" / "rebis_pbm.mo"
    assert installed.read_bytes() == (LOCALE / lang / "LC_MESSAGES" / "rebis_pbm.mo").read_bytes()


def test_languages_are_checked_and_english_reads_no_catalog():
    assert i18n.translation("en") is i18n.translation(None)
    assert isinstance(i18n.translation("fr"), gettext.GNUTranslations)
    assert i18n.translation("en").ngettext("a card", "cards", 2) == "cards"
    assert i18n.translation("fr") is i18n.translation("fr")  # read once
    with pytest.raises(ValueError, match="use one of en, fr, pt"):
        i18n.translation("de")
    phrase = Phrase("turn {turn} is {to_move}'s, not {player}'s",
                    {"turn": 2, "to_move": "ben", "player": "ann"})
    assert i18n.translate(phrase, "en") == str(phrase) == "turn 2 is ben's, not ann's"
    assert i18n.translate(phrase, "fr") == "le tour 2 est à ben, pas à ann"
    assert i18n.translate(phrase, "pt") == "o turno 2 é de ben, não de ann"


# --- the rules' refusals: translated, and telling no more than in English -----------------------

def _numbers(text: str) -> Counter:
    return Counter(re.findall(r"\d+", text))


def _refusals():
    """Illegal moves of every kind the engine refuses, from a few small games."""
    ruleset = Ruleset(shelf_limit=6, golden_dust=1, gold=1, hand_size=4)
    for seed in ("i18n-a", "i18n-b", "i18n-c"):
        state, _ = setup(ruleset, ("ann", "ben", "cid"), seed)
        for _turn in range(6):
            mover = state.players[state.to_move]
            other = state.players[(state.to_move + 1) % 3]
            tries = [Move(state.turn, mover, golden_dust=dust, play=Play((c,), owner, sign))
                     for c in (0, 1, 5, 9, 10) for owner in (mover, other, "zed")
                     for sign in ("positive", "negative", "minus") for dust in (0, 2)]
            tries += [Move(state.turn, mover, play=Play((c, c), other, "positive"))
                      for c in (1, 9)]
            tries += [Move(state.turn, mover, play=Play((1, 2), mover, "positive")),
                      Move(state.turn + 1, mover, play=Play((1,), mover, "positive")),
                      Move(state.turn - 1, mover, play=Play((1,), mover, "positive")),
                      Move(state.turn, other, play=Play((1,), mover, "positive")),
                      Move(state.turn, mover)]
            for move in tries:
                try:
                    apply_move(state, move)
                except IllegalMove as exc:
                    yield exc
            state, _ = apply_move(state, legal_moves(state)[0])


def test_every_refusal_is_translated_and_names_no_more_numbers_than_in_english():
    codes = set()
    for exc in _refusals():
        codes.add(exc.code)
        assert exc.phrase is not None and str(exc.phrase) == exc.message
        for lang in TRANSLATED:
            text = i18n.translate(exc.phrase, lang)
            assert text != exc.message, (lang, exc.message)
            assert _numbers(text) == _numbers(exc.message), (lang, text, exc.message)
    assert len(codes) >= 10, codes


# --- a language per player in the record --------------------------------------------------------

# A fair deal of one round of joins (rebis-pbm/4; rebis-pbm/5's two rounds: test_two_round_deal.py)
ONE_ROUND = ("--record-format", "rebis-pbm/4")


def _new(cli, tmp_path, *extra, deal=("--referee-deal",)):
    game = tmp_path / "game.yaml"
    args = ["new", game, "--insecure-seed", *deal, "--seed", "issue 18 languages", "--game-id",
            "g18"]
    for name, address in ADDRESSES.items():
        args += ["--player", f"{name}={address}"]
    outcome = cli(*args, "--lang", "ann=fr", "--lang", "ben=pt", *extra)
    assert outcome.code == 0, outcome.err
    return game


def test_new_keeps_each_players_language_in_a_rebis_pbm_3_record(cli, tmp_path):
    game = _new(cli, tmp_path)
    record = yaml.safe_load(game.read_text())
    assert record["format"] == "rebis-pbm/6"
    assert record["langs"] == {"ann": "fr", "ben": "pt"}  # cid: English, the default
    assert "étagère active" in (tmp_path / "game.views" / "ann.txt").read_text()
    assert "Partie de Rebis g18" in (tmp_path / "game.views" / "ann.txt").read_text()
    assert "Jogo de Rebis g18" in (tmp_path / "game.views" / "ben.txt").read_text()
    assert "Rebis game g18 - view of cid" in (tmp_path / "game.views" / "cid.txt").read_text()
    assert "Rebis game g18 - spectator view" in (tmp_path / "game.views" / "public.txt").read_text()
    for name in ("ann", "ben"):  # YAML views are data: English keys and values
        view = yaml.safe_load((tmp_path / "game.views" / f"{name}.yaml").read_text())
        assert "began" in view["history"][0]["text"]


@pytest.mark.parametrize("lang, words", [("de", ["'de' is not a language", "en, fr, pt"]),
                                         ("zed=fr", ["zed is not a player"]),
                                         ("ann", ["write NAME=CODE"])])
def test_new_refuses_an_unknown_language_or_player_and_writes_nothing(cli, tmp_path, lang, words):
    game = tmp_path / "game.yaml"
    outcome = cli("new", game, "--player", "ann", "--player", "ben", "--referee-deal",
                  "--lang", lang if "=" in lang or lang == "ann" else f"ann={lang}")
    outcome.refused(2, ["--lang", *words])
    assert not game.exists()


def test_view_speaks_the_players_language_unless_told_otherwise(cli, tmp_path):
    game = _new(cli, tmp_path)
    assert "ta main" in cli("view", game, "--player", "ann").out.lower()
    assert "A tua mão" in cli("view", game, "--player", "ben").out
    assert "Your hand" in cli("view", game, "--player", "ann", "--lang", "en").out
    assert "Rebis game g18 - spectator view" in cli("view", game, "--public").out
    assert "Jogo de Rebis g18 - vista do espectador" in cli("view", game, "--public",
                                                            "--lang", "pt").out
    data = yaml.safe_load(cli("view", game, "--player", "ann", "--format", "yaml").out)
    assert data["viewer"] == "ann" and "began" in data["history"][0]["text"]
    cli("view", game, "--player", "ann", "--lang", "es").refused(2, ["--lang", "en, fr, pt"])


def test_a_join_chooses_a_language_and_the_referee_can_change_it(tmp_path):
    game = _new(run_inproc, tmp_path, deal=ONE_ROUND)  # a fair deal: each player joins
    move = tmp_path / "join.yaml"
    move.write_text("game: g18\nplayer: cid\njoin: some entropy of cid's\nlang: pt\n")
    assert run_inproc("apply", game, move).code == 0
    assert open_game(game).record.langs == {"ann": "fr", "ben": "pt", "cid": "pt"}
    assert "vista de cid" in (tmp_path / "game.views" / "cid.txt").read_text()
    outcome = run_inproc("replace-player", game, "--player", "ann", "--lang", "en", "--now",
                         "2030-01-01T00:00:00Z")
    assert outcome.code == 0, outcome.err
    record = open_game(game).record
    assert record.langs == {"ben": "pt", "cid": "pt"}
    assert record.actions[-1]["lang"] == "en"  # logged, chained: verify checks it
    assert run_inproc("verify", game).code == 0
    assert "view of ann" in (tmp_path / "game.views" / "ann.txt").read_text()
    run_inproc("replace-player", game, "--player", "ann", "--lang", "xx").refused(2, ["en, fr, pt"])


def test_an_older_record_never_carries_languages(tmp_path):
    game = _new(run_inproc, tmp_path)
    text = game.read_text().replace("format: rebis-pbm/6", "format: rebis-pbm/2")
    game.write_text(text)
    outcome = run_inproc("view", game, "--player", "cid")
    assert outcome.code != 0
    assert "langs" in outcome.err and "rebis-pbm/3" in outcome.err
    assert "Traceback" not in outcome.err


# --- the done-when: ann reads French, ben Portuguese, cid English ---------------------------------

def _mail(sender: str, move_text: str, msgid: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, REFEREE, "move", msgid
    msg.set_content(move_text)
    return msg.as_bytes()


def _mail_in(game: Path, tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "in.eml"
    path.write_bytes(data)
    result = CliRunner().invoke(rebis_cli, ["mail", "in", str(game), str(path), "--referee",
                                            REFEREE])
    assert result.exit_code == 0, result.output


def _queued(game: Path, seen: set) -> dict:
    """The messages queued since the last call, by recipient: (subject, text, attachments)."""
    out: dict = {}
    for folder in ("new", "cur"):
        for path in sorted((default_queue(game) / folder).glob("*")):
            if path.name in seen:
                continue
            seen.add(path.name)
            msg = message_from_bytes(path.read_bytes(), policy=policy.default)
            text = msg.get_body(("plain",)).get_content()
            files = {part.get_filename(): part.get_content() for part in msg.iter_attachments()}
            out[str(msg["To"].addresses[0].addr_spec)] = (str(msg["Subject"]), text, files)
    return out


def test_each_player_reads_view_mails_template_and_refusals_in_their_language(tmp_path):
    game = _new(run_inproc, tmp_path)
    seen: set = set()
    _queued(game, seen)
    state = open_game(game).replay.state
    first = legal_moves(state)[0]
    _mail_in(game, tmp_path, _mail(ADDRESSES["ann"], yaml.safe_dump(
        {"game": "g18", **first.as_dict()}), "<m1@x>"))
    mails = _queued(game, seen)

    subject, text, files = mails[ADDRESSES["ann"]]
    assert subject == "[Rebis g18] tour 2\u00a0: à ben de jouer"
    assert "Tour 1 (ann)\u00a0: " in text or "Tour 1 (ann): " in text
    assert "tu as posé" in text and "Partie de Rebis g18 - vue d'ann" in text
    assert "Deck Bibliothèque" in text and "poussière dorée" in text
    view_yaml = next(v for k, v in files.items() if k.startswith("view-"))
    assert "you played" in (view_yaml if isinstance(view_yaml, str) else view_yaml.decode())

    subject, text, files = mails[ADDRESSES["ben"]]
    assert subject == "[Rebis g18] turno 2: é a tua vez"
    assert "ann jogou" in text and "Baralho da Biblioteca" in text and "pó dourado" in text
    template = files["move-turn-002-ben.yaml"]
    template = template if isinstance(template, str) else template.decode()
    assert "# play.shelf: a prateleira ativa de que jogador" in template
    assert "Para jogar, responde com o ficheiro move-turn-002-ben.yaml" in text

    subject, text, files = mails[ADDRESSES["cid"]]
    assert subject == "[Rebis g18] turn 2: ben to move"
    assert "ann played" in text and "Rebis game g18 - view of cid" in text
    assert mails[REFEREE][0] == "[Rebis g18] turn 2: ben to move"  # the referee's: English

    # A refusal for each, in their language: ben plays a pair on another's shelf (R8); ann and
    # cid send a move when it is not their turn.
    after = open_game(game).replay.state
    hand = after.hands[after.to_move]
    _mail_in(game, tmp_path, _mail(ADDRESSES["ben"], yaml.safe_dump(
        {"game": "g18", "turn": 2, "player": "ben",
         "play": {"cards": [hand[0], hand[0]], "shelf": "cid", "sign": "positive"}}), "<m2@x>"))
    for name, msgid in (("ann", "<m3@x>"), ("cid", "<m4@x>")):
        _mail_in(game, tmp_path, _mail(ADDRESSES[name], yaml.safe_dump(
            {"game": "g18", "turn": 2, "player": name,
             "play": {"cards": 1, "shelf": name, "sign": "positive"}}), msgid))
    replies = _queued(game, seen)
    subject, text, _ = replies[ADDRESSES["ben"]]
    assert subject == "[Rebis g18] turno 2: o teu lance não foi aplicado"
    assert "lance recusado: só se pode jogar uma carta na prateleira de outro jogador (R8)" in text
    # ben is to move: the standing speaks to him (issue 30)
    assert "Nada mudou no jogo. O jogo espera o turno 2: é a tua vez." in text
    subject, text, _ = replies[ADDRESSES["ann"]]
    assert subject == "[Rebis g18] tour 2\u00a0: ton coup n'a pas été appliqué"
    assert "coup refusé\u00a0: le tour 2 est à ben, pas à toi" in text  # to ann (issue 30)
    assert "Rien n'a changé dans la partie." in text
    subject, text, _ = replies[ADDRESSES["cid"]]
    assert subject == "[Rebis g18] turn 2: your move was not applied"
    assert "move rejected: turn 2 is ben's, not yours" in text
    assert open_game(game).replay.state.turn == 2  # nothing was applied
    # ann's first move delivered twice: the answer says so, in French.
    _mail_in(game, tmp_path, _mail(ADDRESSES["ann"], yaml.safe_dump(
        {"game": "g18", **first.as_dict()}), "<m1@x>"))
    subject, text, _ = _queued(game, seen)[ADDRESSES["ann"]]
    assert subject == "[Rebis g18] tour 2\u00a0: le tour 1 a déjà été appliqué"
    assert ("Le tour 1 d'ann a déjà été appliqué avec exactement ce coup\u00a0; "
            "rien n'a changé.") in text


def test_a_refusal_to_the_mover_speaks_of_their_active_shelf_in_their_language(tmp_path):
    game = _new(run_inproc, tmp_path)
    seen: set = set()
    _queued(game, seen)
    hand = open_game(game).replay.state.hands[0]
    # ann (French) plays a - card on her own shelf (R7), then two different cards (R7).
    _mail_in(game, tmp_path, _mail(ADDRESSES["ann"], yaml.safe_dump(
        {"game": "g18", "turn": 1, "player": "ann",
         "play": {"cards": hand[0], "shelf": "ann", "sign": "negative"}}), "<r1@x>"))
    text = _queued(game, seen)[ADDRESSES["ann"]][1]
    assert ("sur ta propre étagère, les cartes se posent avec le signe +\u00a0; "
            "écris sign: positive") in text
    # ben (Portuguese) names a shelf cid does not have, in a move sent out of turn: the turn is
    # checked first, and the reply tells whose turn it is, in Portuguese.
    _mail_in(game, tmp_path, _mail(ADDRESSES["ben"], yaml.safe_dump(
        {"game": "g18", "turn": 1, "player": "ben",
         "play": {"cards": 1, "shelf": "ben", "sign": "positive"}}), "<r2@x>"))
    text = _queued(game, seen)[ADDRESSES["ben"]][1]
    assert "o turno 1 é de ann, não teu" in text  # said to ben (issue 30)


def test_a_player_checks_a_move_against_their_view_in_their_language(cli, tmp_path):
    _new(cli, tmp_path)
    view = tmp_path / "game.views" / "ann.yaml"
    hand = yaml.safe_load(view.read_text())["you"]["hand"]
    move = tmp_path / "move.yaml"
    move.write_text(yaml.safe_dump({"game": "g18", "turn": 1, "player": "ann",
                                    "play": {"cards": [hand[0], hand[0]], "shelf": "ben",
                                             "sign": "positive"}}))
    line = cli("check", move, "--view", view, "--lang", "fr").refused(1)
    assert ("coup refusé\u00a0: une seule carte peut être posée sur l'étagère d'un autre "
            "joueur") in line
    # Without --lang, the view's own language (its lang: field, ann's only), as moves --view.
    assert yaml.safe_load(view.read_text())["lang"] == "fr"
    assert "coup refusé\u00a0: une seule carte" in cli("check", move, "--view", view).refused(1)
    assert "move rejected: only one card" in cli("check", move, "--view", view, "--lang",
                                                 "en").refused(1)
    assert "lang" not in yaml.safe_load((tmp_path / "game.views" / "cid.yaml").read_text())
    assert "lang" not in yaml.safe_load((tmp_path / "game.views" / "public.yaml").read_text())
    cli("check", move, "--view", view, "--lang", "xx").refused(2, ["--lang", "en, fr, pt"])


def test_a_players_own_check_of_a_broken_move_file_answers_in_their_language(cli, tmp_path):
    """check --view on a move file the schema refuses: the sentence in the view's language, its
    detail (the file's own fields) in English, as the referee's mails say it."""
    _new(cli, tmp_path)
    move = tmp_path / "move.yaml"
    move.write_text("game: g18\nturn: 1\nplayer: ann\nplay: {cards: [3], shelf: ann, "
                    "sign: positif}\n")
    line = cli("check", move, "--view", tmp_path / "game.views" / "ann.yaml").refused(2)
    assert "Ton coup n'a pas été accepté\u00a0; la raison, en anglais\u00a0: " in line \
        and "positif" in line


def test_a_message_with_no_move_is_answered_in_the_senders_language(tmp_path):
    game = _new(run_inproc, tmp_path)
    seen: set = set()
    _queued(game, seen)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = (ADDRESSES["ben"], REFEREE,
                                                                 "move", "<h1@x>")
    msg.set_content("<p>my move</p>", subtype="html")
    _mail_in(game, tmp_path, msg.as_bytes())
    subject, text, _ = _queued(game, seen)[ADDRESSES["ben"]]
    assert subject == "[Rebis g18] turno 1: o teu lance não foi aplicado"
    assert "a mensagem só tem uma parte HTML; envia-a em texto simples" in text


def test_a_move_file_error_is_told_in_the_movers_language_with_its_detail_in_english(tmp_path):
    """The move file's YAML and schema errors quote the file's own fields and values, so their
    detail stays English; the sentence around it is the mover's language."""
    game = _new(run_inproc, tmp_path)
    seen: set = set()
    _queued(game, seen)
    _mail_in(game, tmp_path, _mail(ADDRESSES["ann"], "game: g18\nturn: 1\nplayer: ann\n"
                                   "play: {cards: [3], shelf: ann, sign: positif}\n", "<f1@x>"))
    subject, text, _ = _queued(game, seen)[ADDRESSES["ann"]]
    assert subject == "[Rebis g18] tour 1\u00a0: ton coup n'a pas été appliqué"
    assert "Ton coup n'a pas été accepté\u00a0; la raison, en anglais\u00a0: " in text
    assert "'positif'" in text  # the detail: the file's own value, quoted
    _mail_in(game, tmp_path, _mail(ADDRESSES["ben"], "game: g18\nturn: 1\nplayer: ben\n"
                                   "play: [unclosed\n", "<f2@x>"))
    subject, text, _ = _queued(game, seen)[ADDRESSES["ben"]]
    assert "O teu lance não foi aceite; a razão, em inglês: " in text
    _mail_in(game, tmp_path, _mail(ADDRESSES["cid"], "game: g18\nturn: 1\nplayer: cid\n"
                                   "play: [unclosed\n", "<f3@x>"))
    subject, text, _ = _queued(game, seen)[ADDRESSES["cid"]]
    assert "the reason, in English" not in text and "not valid YAML" in text


# --- what a fr/pt player still read in English (the newcomer's report on issue 18) ---------------

def _digits_outside_fields(text: str) -> Counter:
    return Counter(d for literal, *_ in string.Formatter().parse(text)
                   for d in re.findall(r"\d+", literal))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_translation_names_a_number_its_english_does_not(lang):
    # The fields are the same (above); a number written out in a translation could only be a
    # card, a shelf or a count the English sentence does not tell.
    for message in _po(lang):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            assert not _digits_outside_fields(text) - _digits_outside_fields(ids[-1]), \
                (lang, message.id, text)


def _mail_with(sender: str, msgid: str, text: str, attachments=()) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = sender, REFEREE, "move", msgid
    msg.set_content(text)
    for name, data in attachments:
        msg.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    return msg.as_bytes()


def test_signature_refusals_and_where_the_move_was_are_in_the_movers_language(tmp_path):
    ann_key, ben_key, other = (ssh_key(tmp_path, n) for n in ("ann", "ben", "other"))
    game = _new(run_inproc, tmp_path, "--key", f"ann={ann_key}.pub", "--key",
                f"ben={ben_key}.pub")
    seen: set = set()
    _queued(game, seen)
    move = yaml.safe_dump({"game": "g18", **legal_moves(open_game(game).replay.state)[0]
                           .as_dict()}).encode()
    # ann (French): unsigned, as an attachment; then signed by another key, in the text.
    _mail_in(game, tmp_path, _mail_with(ADDRESSES["ann"], "<s1@x>", "my move",
                                        [("ann.yaml", move)]))
    text = _queued(game, seen)[ADDRESSES["ann"]][1]
    # said to ann herself: the second person (issue 30)
    assert ("la pièce jointe ann.yaml\u00a0: coup refusé\u00a0: tu as enregistré une clé, "
            "tes coups doivent donc être signés") in text
    assert "move rejected" not in text and "the attachment" not in text
    forged = ssh_sign(other, move).decode()
    _mail_in(game, tmp_path, _mail_with(ADDRESSES["ann"], "<s2@x>",
                                        "---\n" + move.decode() + "...\n" + forged))
    text = _queued(game, seen)[ADDRESSES["ann"]][1]
    assert ("le texte du message\u00a0: coup refusé\u00a0: sa signature ne se vérifie pas avec "
            "ta clé") in text
    assert "the message's text" not in text and "signature does not check" not in text
    # ben (Portuguese), out of turn and unsigned: the signature is checked first.
    ben_move = move.replace(b"player: ann", b"player: ben")
    _mail_in(game, tmp_path, _mail_with(ADDRESSES["ben"], "<s3@x>", "move",
                                        [("ben.yaml", ben_move)]))
    text = _queued(game, seen)[ADDRESSES["ben"]][1]
    assert "o anexo ben.yaml: lance recusado: registaste uma chave" in text
    assert "registered a key" not in text and "the attachment" not in text
    assert open_game(game).replay.state.turn == 1  # nothing was applied


def test_apply_and_check_repeat_a_refusal_in_the_movers_language(cli, tmp_path):
    game = _new(cli, tmp_path)
    move = tmp_path / "r.yaml"
    hand = yaml.safe_load((tmp_path / "game.views" / "ann.yaml").read_text())["you"]["hand"]
    move.write_text(yaml.safe_dump({"game": "g18", "turn": 1, "player": "ann",  # R7
                                    "play": {"cards": hand[0], "shelf": "ann",
                                             "sign": "negative"}}))
    before = game.read_bytes()
    outcome = cli("apply", game, move)
    assert outcome.code == 1
    english, mover = outcome.err.splitlines()
    assert "move rejected:" in english and english.startswith("rebis-pbm: ")
    assert mover.startswith("rebis-pbm: for ann (fr): ") and "coup refusé\u00a0:" in mover
    assert "move rejected" not in mover
    assert game.read_bytes() == before
    only = cli("apply", game, move, "--lang", "en")
    assert only.code == 1 and only.err.splitlines() == [english]
    pt = cli("apply", game, move, "--lang", "PT").err.splitlines()
    assert pt[0] == english and pt[1].startswith("rebis-pbm: for ann (pt): ")
    # check GAME: a move sent as ann by ben's address; ben reads Portuguese.
    outcome = cli("check", game, move, "--as", ADDRESSES["ben"])
    assert outcome.code == 1
    english, mover = outcome.err.splitlines()
    assert "but it comes from" in english
    assert mover.startswith("rebis-pbm: for ben (pt): ") and "só pode enviar" in mover
    cli("apply", game, move, "--lang", "de").refused(2, ["--lang", "en, fr, pt"])
    assert game.read_bytes() == before


def test_moves_from_a_view_says_there_is_no_move_in_the_viewers_language(cli, tmp_path):
    game = _new(cli, tmp_path)
    view = tmp_path / "game.views" / "ben.yaml"
    assert yaml.safe_load(view.read_text())["lang"] == "pt"
    line = cli("moves", "--view", view).refused(1)
    assert "ben não tem lance a fazer: o turno 1 é de ann" in line
    assert "ben has no move to make: turn 1 is ann's" in cli("moves", "--view", view, "--lang",
                                                             "en").refused(1)
    cli("moves", game, "--player", "ann", "--lang", "fr").refused(2, ["--lang goes with --view"])


def test_the_join_template_speaks_the_players_language_and_offers_lang(cli, tmp_path):
    game = _new(cli, tmp_path, deal=ONE_ROUND)
    ann = cli("moves", game, "--player", "ann").out
    assert "# Ton inscription" in ann and "lang: en, fr ou pt" in ann and "Your join" not in ann
    cid = cli("moves", game, "--player", "cid").out
    assert "# Your join" in cid and "# Add  lang: en, fr or pt" in cid
    assert yaml.safe_load(cid)["player"] == "cid"  # the comments are comments
    join = tmp_path / "join.yaml"
    join.write_text("game: g18\nplayer: cid\njoin: cid's entropy\nlang: FR\n")
    assert cli("apply", game, join).code == 0
    assert open_game(game).record.langs["cid"] == "fr"  # any case, kept lower-case


def test_language_codes_in_any_case_and_one_language_per_player(cli, tmp_path):
    game = _new(cli, tmp_path, "--lang", "cid=Pt")
    assert open_game(game).record.langs == {"ann": "fr", "ben": "pt", "cid": "pt"}
    twice = tmp_path / "twice.yaml"
    cli("new", twice, "--player", "ann", "--player", "ben", "--referee-deal", "--lang",
        "ann=fr", "--lang", "ann=pt").refused(2, ["--lang", "ann's language is given twice"])
    assert not twice.exists()


def test_mails_name_the_referee_the_html_and_the_multiplier_in_the_readers_language(tmp_path):
    game = _new(run_inproc, tmp_path)
    queue = default_queue(game)
    first = legal_moves(open_game(game).replay.state)[0]
    _mail_in(game, tmp_path, _mail(ADDRESSES["ann"], yaml.safe_dump(
        {"game": "g18", **first.as_dict()}), "<h2@x>"))
    got = {}
    for path in sorted((queue / "new").glob("*")):
        msg = message_from_bytes(path.read_bytes(), policy=policy.default)
        got[msg["To"].addresses[0].addr_spec] = msg
    for name, referee_name, html_lang, multiplier in (
            ("ann", "Arbitre Rebis", "fr", "multiplicateur additif"),
            ("ben", "Árbitro do Rebis", "pt", "multiplicador aditivo"),
            ("cid", "Rebis referee", "en", "multiplier additive")):
        msg = got[ADDRESSES[name]]
        assert msg["From"].addresses[0].display_name == referee_name
        assert msg["From"].addresses[0].addr_spec == REFEREE
        html = msg.get_body(("html",)).get_content()
        assert f'<html lang="{html_lang}">' in html
        assert multiplier in msg.get_body(("plain",)).get_content()
    view = yaml.safe_load((tmp_path / "game.views" / "ann.yaml").read_text())
    assert view["ruleset"]["multiplier"] == "additive"  # data stays data
    # The picture in the HTML part speaks each reader's language, last move included.
    pictures = {name: got[ADDRESSES[name]].get_body(("html",)).get_content() for name in ADDRESSES}
    for words in ("vue d'ann", "Stock\u00a0:", "poussière dorée",
                  "Dernier coup, tour 1 (ann)\u00a0: tu as",
                  "face cachée, posée par toi", "La partie attend le tour 2"):
        assert words in pictures["ann"], words
    for words in ("vista de ben", "Banco:", "pó dourado", "Último lance, turno 1 (ann): ann",
                  "virada para baixo, jogada por ti", "Mão: "):
        assert words in pictures["ben"], words
    for english in ("view of", "Supply:", "golden dust", "Last move", "face down", "Hand: ",
                    "The game awaits"):
        assert english not in pictures["ann"] and english not in pictures["ben"], english
    assert "view of cid" in pictures["cid"] and "Supply:" in pictures["cid"]
    import re  # under each shelf, its weight and value: "w2 v2" in English, "p2 v2" in fr/pt
    assert re.search(r">w\d+ v-?\d+<", pictures["cid"])
    for name in ("ann", "ben"):
        assert re.search(r">p\d+ v-?\d+<", pictures[name]), name
        assert not re.search(r">w\d+ v-?\d+<", pictures[name]), name


@pytest.mark.parametrize("lang", ["en", "fr", "pt"])
def test_a_due_red_token_is_not_said_to_have_ended_the_game(lang):
    """R12: the red token's placement is the game's last move: while it is due the game has
    not ended, and no language says it has."""
    from rebis_pbm.present.views import standing
    said = standing("red_token", 36, "bob", lang=lang)
    yours = standing("red_token", 36, "bob", lang=lang, viewer="bob")
    ended = {"en": "has ended", "fr": "terminée", "pt": "terminou"}[lang]
    last = {"en": "the game's last move", "fr": "dernier coup de la partie",
            "pt": "o último lance do jogo"}[lang]
    for text in (said, yours):
        assert ended not in text and last in text and "36" in text, text
    assert "bob" in said and "bob" not in yours


def test_an_untranslated_command_refusal_is_quoted_as_a_commands_never_a_moves():
    # (mail and git answer a refused command so: "Ta commande ...", never "Ton coup ...")
    from rebis_pbm.errors import Refused
    from rebis_pbm.present.i18n import refusal
    exc = Refused("c.txt: its first line is no command")
    assert refusal(exc, "fr", command=True) == (
        "Ta commande n'a pas été exécutée\u00a0; la raison, en anglais\u00a0: "
        "c.txt: its first line is no command")
    assert refusal(exc, "pt", command=True).startswith("O teu comando não foi executado; ")
    assert refusal(exc, "fr").startswith("Ton coup n'a pas été accepté")
    assert refusal(exc, "en", command=True) == str(exc)
