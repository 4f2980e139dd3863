"""Words as a native reader expects them (issue 30, docs/glossary.md "Grammar and typography").

Every message of the French and Portuguese catalogs is filled in with sample names (a vowel
name, an h name, a consonant name) and read like a native speaker would: no "(s)" where a
plural form belongs, French elision before a vowel name (and "de" before h), the no-break
spaces of French punctuation, Portuguese contractions with a shelf. Then a three-player game
(ana in French, hugo in Portuguese, ian in English) is played and each player's own text view
must speak to them in the second person. And the names: accents allowed, kept in NFC, the same
name in another case or without accents refused, another script refused.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata

import pytest

from clitools import run_inproc
from rebis_pbm.app.create import check_players, same_name_key
from rebis_pbm.errors import UsageError
from rebis_pbm.present import i18n

babel = pytest.importorskip("babel", reason="Babel (the test extra) reads the catalogs")
from babel.messages.pofile import read_po  # noqa: E402

NAMES = ("ana", "Émile", "yves", "hugo", "Hélène", "bob")  # vowel, accented vowel, y, h, consonant
NAME_FIELDS = {"player", "owner", "name", "viewer", "players", "mover", "to_move", "who"}
NB = "\u00a0"


def _fields(template: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(template) if f]


def _filled(lang: str, name: str) -> list[tuple[str, str]]:
    """Every message of ``lang``'s catalog (each plural form, for 0, 1 and 2) filled in: names with
    ``name``, a shelf with the way the catalog itself says one, numbers with 2."""
    catalog = i18n.translation(lang)
    _ = catalog.gettext
    shelf = _("{owner}'s shelf {shelf}").format(owner=name, shelf=1)
    with open(i18n.LOCALE_DIR + f"/{lang}/LC_MESSAGES/rebis_pbm.po", "rb") as f:
        po = read_po(f)
    out = []
    for message in po:
        if not message.id:
            continue
        said = ([catalog.ngettext(*message.id, n) for n in (0, 1, 2)]
                if isinstance(message.id, tuple) else [_(message.id)])
        for text in said:
            params: dict[str, object] = {}
            for field in _fields(text):
                key = re.split(r"[.\[!:]", field)[0]
                params[key] = (name if key in NAME_FIELDS else shelf if key == "shelf"
                               else 2)
            try:
                out.append((message.id if isinstance(message.id, str) else message.id[0],
                            text.format(**params)))
            except (KeyError, IndexError, ValueError):  # a field used with a format spec
                continue
    return out


@pytest.mark.parametrize("lang", ["fr", "pt"])
@pytest.mark.parametrize("name", NAMES)
def test_no_message_writes_a_plural_as_s_in_brackets(lang, name):
    for msgid, text in _filled(lang, name):
        assert "(s)" not in text, (msgid, text)


@pytest.mark.parametrize("name", NAMES)
def test_french_elides_de_and_que_before_a_vowel_name_and_not_before_h(name):
    vowel = i18n.begins_with_vowel(name)
    for msgid, text in _filled("fr", name):
        assert not re.search(rf"\b(de|que) {re.escape(name)}\b", text) or not vowel, (msgid, text)
        if not vowel:
            assert f"d'{name}" not in text and f"qu'{name}" not in text, (msgid, text)


def test_the_elision_rule_over_vowel_and_h_names():
    for name in ("ana", "Émile", "ève", "Île", "Oscar", "ursula", "yves", "Œdipe", "Ælis"):
        assert i18n.of_name(name, "fr") == "d'", name
    for name in ("hugo", "Hélène", "Bob", "çağla", "José", "7up"):
        assert i18n.of_name(name, "fr") == "de ", name
    assert i18n.of_name("ana", "pt") == "de "
    _ = i18n.gettext_for("fr")
    assert _("{owner}'s shelf {shelf}").format(owner="ana", shelf=2) == "l'étagère 2 d'ana"
    assert _("{owner}'s shelf {shelf}").format(owner="hugo", shelf=2) == "l'étagère 2 de hugo"


@pytest.mark.parametrize("name", NAMES)
def test_french_punctuation_has_its_no_break_space(name):
    for msgid, text in _filled("fr", name):
        assert not re.search(r"[ \t][;:!?]", text), (msgid, text)  # a plain space before
        assert not re.search(r"\w[;!?](\s|$)", text), (msgid, text)  # no space at all
        # nor after a bracket or a quote ("(poids 3 sur 9); " escaped the check above); a colon
        # after a word is the title's own ("Rebis: Zero")
        assert not re.search(r"[^\u00a0\s][;!?](\s|$)", text), (msgid, text)
        assert not re.search(r"[^\w\u00a0\s]:(\s|$)", text), (msgid, text)
        assert "« " not in text and " »" not in text, (msgid, text)


@pytest.mark.parametrize("name", NAMES)
def test_portuguese_contracts_em_and_de_with_a_shelf(name):
    for msgid, text in _filled("pt", name):
        assert not re.search(r"\b(em|de|para) (a|o) (tua |sua )?prateleira", text), (msgid, text)


def _play(tmp_path, turns: int):
    game = tmp_path / "game.yaml"
    out = run_inproc("new", game, "--insecure-seed", "--referee-deal", "--seed", "native",
                     "--game-id", "g30", "--player", "ana", "--player", "hugo", "--player",
                     "ian", "--lang", "ana=fr", "--lang", "hugo=pt")
    assert out.code == 0, out.err
    for turn in range(1, turns + 1):
        for name in ("ana", "hugo", "ian"):
            listed = run_inproc("moves", game, "--player", name, "--format", "json")
            if listed.code == 0:
                move = json.loads(listed.out)[0]["move"]  # a described listing (issue 29)
                path = tmp_path / f"m{turn}.json"
                path.write_text(json.dumps(move), encoding="utf-8")
                applied = run_inproc("apply", game, path)
                assert applied.code == 0, applied.err
                break
    return game


def test_a_players_own_view_speaks_to_them_in_the_second_person(tmp_path):
    game = _play(tmp_path, 9)
    for name, lang in (("ana", "fr"), ("hugo", "pt"), ("ian", "en")):
        text = run_inproc("view", game, "--player", name).out
        lines = text.splitlines()
        # the line where the game stands, and every account of a move, say "you", not the name
        standing = lines[1]
        assert name not in standing, (lang, standing)
        events = lines[lines.index(i18n.gettext_for(lang)("Recent events:")) + 1:]
        for line in events:
            if not line.startswith("  "):
                break
            told = re.split(r"\)?[\u00a0 ]?: ", line, maxsplit=1)[-1]
            assert not re.search(rf"\b{name}\b", told), (lang, line)
        if lang == "fr":
            assert not re.search(r"\bde ana\b", text) and "d'ana" in text
            assert not re.search(r" [;:!?]", text), text
        assert "(s)" not in text


def _sentences_naming(text: str, name: str) -> list[str]:
    """The lines of ``name``'s own text view that name them in a sentence. Left out, as data
    rather than sentences: the title ("view of ana"), the seats' table (its rows begin with each
    player's name, theirs included, and list who placed each card), each account's prefix
    ("turn 3 (ana): ", then the account is checked) and the move template (YAML)."""
    found = []
    for i, line in enumerate(text.splitlines()):
        told = re.split(r"^\s+\S+ \d+ \([^)]*\)[\u00a0 ]?: ", line, maxsplit=1)[-1]
        if i == 0 or line.startswith(f"{name} (") or re.match(r"^\s*(#|[a-z_]+:( |$))", line) \
                or re.match(r"^\s+\S[^:]*[\u00a0 ]?: ([+-]\d+ \(\w+\) ?)+$", line):
            continue
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", told):
            found.append(line)
    return found


def test_every_line_of_a_players_own_view_speaks_to_them(tmp_path):
    """In a game with a deadline, each player's own view, turn after turn, in fr, pt and en:
    no sentence names its reader (the deadline line included: "Deadline for your move")."""
    game = tmp_path / "game.yaml"
    out = run_inproc("new", game, "--insecure-seed", "--referee-deal", "--seed", "native",
                     "--game-id", "g30", "--player", "ana", "--player", "hugo", "--player",
                     "ian", "--lang", "ana=fr", "--lang", "hugo=pt", "--deadline", "72h")
    assert out.code == 0, out.err
    deadline = {"ana": "Échéance de ton coup", "hugo": "Prazo para o teu lance",
                "ian": "Deadline for your move"}
    seen_to_move = set()
    for _turn in range(6):
        mover = None
        for name in ("ana", "hugo", "ian"):
            text = run_inproc("view", game, "--player", name).out
            assert _sentences_naming(text, name) == [], (name, text)
            listed = run_inproc("moves", game, "--player", name, "--format", "json")
            if listed.code == 0:
                mover = name
                assert deadline[name] in text, text
                seen_to_move.add(name)
                path = tmp_path / f"m{_turn}.json"
                path.write_text(json.dumps(json.loads(listed.out)[0]["move"]), encoding="utf-8")
        assert mover is not None
        assert run_inproc("apply", game, path).code == 0
    assert seen_to_move == {"ana", "hugo", "ian"}


def test_names_with_accents_are_kept_in_nfc_and_refused_when_they_repeat_another():
    check_players(["José", "Zoë", "Çağla"], {}, record_format="rebis-pbm/4")
    assert same_name_key("José") == same_name_key("jose") == same_name_key("JOSÉ")
    with pytest.raises(UsageError, match="differ only in upper/lower case or accents"):
        check_players(["José", "jose"], {}, record_format="rebis-pbm/4")
    with pytest.raises(UsageError, match="another script than the Latin one"):
        check_players(["j\u043ese", "ana"], {}, record_format="rebis-pbm/4")  # a Cyrillic o
    with pytest.raises(UsageError, match="not a valid name"):
        check_players(["Jos\u00e9\u0301x", "ana"], {}, record_format="rebis-pbm/4")
    with pytest.raises(UsageError, match="need the record format rebis-pbm/4"):
        check_players(["José", "ana"], {}, record_format="rebis-pbm/3")
    decomposed = unicodedata.normalize("NFD", "José")
    assert decomposed != "José" and unicodedata.normalize("NFC", decomposed) == "José"


def test_the_witness_line_and_check_view_speak_the_players_language(tmp_path):
    game = _play(tmp_path, 3)
    views = tmp_path / "game.views"
    french, portuguese = (views / "ana.txt").read_text(), (views / "hugo.txt").read_text()
    assert "\nTémoin\u00a0: partie g30, coup 3, chain_sha256 " in french
    assert "\nTestemunha: jogo g30, lance 3, chain_sha256 " in portuguese
    for name in ("ana", "hugo"):  # verify reads the witness back in every language
        done = run_inproc("verify", game, "--witness", views / f"{name}.txt")
        assert done.code == 0, done.err
    to_move = run_inproc("moves", game, "--player", "ana", "--format", "json")
    if to_move.code != 0:
        pytest.skip("ana is not to move at turn 4")
    move = tmp_path / "ana-move.json"
    move.write_text(json.dumps(json.loads(to_move.out)[0]["move"]), encoding="utf-8")
    said = run_inproc("check", move, "--view", views / "ana.yaml")
    assert said.code == 0 and "coup légal du tour 4 (ana)" in said.out, said.out + said.err
    assert "legal move" not in said.out


def test_site_writes_the_game_page_in_a_language(tmp_path):
    game = _play(tmp_path, 4)
    for lang, words in (("fr", ("Partie de Rebis g30", "Joueurs, place par place",
                                "La distribution", "La graine et")),
                        ("pt", ("Jogo de Rebis g30", "Jogadores, lugar a lugar",
                                "A distribuição", "A semente e"))):
        out = tmp_path / f"site-{lang}"
        done = run_inproc("site", game, "--out", out, "--lang", lang)
        assert done.code == 0, done.err
        page = (out / "index.html").read_text(encoding="utf-8")
        assert f'<html lang="{lang}">' in page and all(w in page for w in words), page[:3000]
        assert "The table" not in page and "Players in seat order" not in page
        assert "(s)" not in page
    english = run_inproc("site", game, "--out", tmp_path / "site-en")
    assert english.code == 0 and "Players in seat order" in (
        tmp_path / "site-en" / "index.html").read_text(encoding="utf-8")
    assert run_inproc("site", game, "--out", tmp_path / "x", "--lang", "de").code == 2


def test_a_game_of_accented_names_is_played_through_apply(tmp_path):
    # rebis-pbm/4 records hold accented names (record/model.py ASCII_NAMES: /1 to /3 only)
    game = tmp_path / "game.yaml"
    made = run_inproc("new", game, "--insecure-seed", "--referee-deal", "--seed", "native",
                      "--game-id", "g30", "--player", "José", "--player", "Zoë",
                      "--player", "Çağla")
    assert made.code == 0, made.err
    assert "format: rebis-pbm/6" in game.read_text(encoding="utf-8")
    applied_moves = 0
    for turn in range(1, 6):
        for name in ("José", "Zoë", "Çağla"):
            listed = run_inproc("moves", game, "--player", name, "--format", "json")
            if listed.code == 0:
                move = json.loads(listed.out)[0]["move"]  # a described listing (issue 29)
                assert move["player"] == name
                path = tmp_path / f"turn-{turn:03d}-{name}.json"
                path.write_text(json.dumps(move), encoding="utf-8")
                applied = run_inproc("apply", game, path)
                assert applied.code == 0, applied.err
                applied_moves += 1
                break
    assert applied_moves == 5
    assert run_inproc("verify", game).code == 0
    view = run_inproc("view", game, "--player", "José")
    assert view.code == 0 and "José" in view.out


def test_an_accented_name_takes_an_address(tmp_path):
    """The keyed record digest holds the addresses under the players' names, accented ones
    included (record/digests.py, UTF-16 key order): `new` takes them, and the record verifies
    with the seed; two players with one address are still refused."""
    game = tmp_path / "g.yaml"
    done = run_inproc("new", game, "--player", "José=jose@example.org",
                      "--player", "bob=bob@example.org", "--insecure-seed", "--seed", "s")
    assert done.code == 0, done.err
    assert "José: jose@example.org" in game.read_text(encoding="utf-8")
    verified = run_inproc("verify", game)
    assert verified.code == 0 and "Not checked" not in verified.out, verified.out + verified.err
    same = run_inproc("new", tmp_path / "h.yaml", "--player", "José=jose@example.org",
                      "--player", "Zoë=JOSE@example.org", "--insecure-seed", "--seed", "s")
    assert same.code == 2 and "have the same address" in same.err


PLURAL_FORMS = {"fr": "nplurals=2; plural=(n > 1);", "pt": "nplurals=2; plural=(n != 1);"}


@pytest.mark.parametrize(("lang", "said"), [
    ("fr", {0: ("0 carte", "0 jeton de"), 1: ("1 carte", "1 jeton de"),
            2: ("2 cartes", "2 jetons de")}),
    ("pt", {0: ("0 cartas", "0 fichas de"), 1: ("1 carta", "1 ficha de"),
            2: ("2 cartas", "2 fichas de")}),
    ("en", {0: ("0 cards", "0 golden dust tokens"), 1: ("1 card", "1 golden dust token "),
            2: ("2 cards", "2 golden dust tokens")}),
])
def test_a_count_takes_its_languages_plural_at_0_1_and_2(lang, said):
    """CLDR's rules, as gettext writes them: French 0 and 1 singular (0 jeton), European
    Portuguese 0 plural (0 fichas), English 0 plural (0 cards)."""
    catalog = i18n.translation(lang)
    for n, (cards, tokens) in said.items():
        assert catalog.ngettext("{count} card", "{count} cards", n).format(count=n) == cards
        told = catalog.ngettext(
            "{count} golden dust token from your reserve on your shelf {shelf}",
            "{count} golden dust tokens from your reserve on your shelf {shelf}", n)
        assert told.format(count=n, shelf=1).startswith(tokens), (n, told)


@pytest.mark.parametrize("lang", ["fr", "pt"])
def test_each_catalog_has_the_cldr_plural_rule_and_as_many_forms(lang):
    with open(i18n.LOCALE_DIR + f"/{lang}/LC_MESSAGES/rebis_pbm.po", "rb") as f:
        po = read_po(f)
    assert po.plural_forms == PLURAL_FORMS[lang]
    with open(i18n.LOCALE_DIR + f"/{lang}/LC_MESSAGES/rebis_pbm.po", encoding="utf-8") as f:
        text = f.read()
    assert f'"Plural-Forms: {PLURAL_FORMS[lang]}\\n"' in text
    assert "msgstr[2]" not in text
    plurals = [m for m in po if m.pluralizable]
    assert plurals and all(len(m.string) == 2 and all(m.string) for m in plurals)


def _described_in_a_game(lang: str) -> list[str]:
    """The sentences of every listed move (issue 29), in ``lang``, over the first turns of a
    three-player game with a small shelf limit (so shelves close: sentences of several
    clauses, a token taken, a card drawn)."""
    from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
    from rebis_pbm.present.describe import described_moves

    state, _ = setup(Ruleset(shelf_limit=9), ("ana", "hugo", "ian"), "native-describe")
    said = []
    for turn in range(12):
        if state.to_move is None:
            break
        said += [d.description for d in described_moves("g30", state, lang)]
        moves = legal_moves(state)
        state, _ = apply_move(state, moves[(turn * 7) % len(moves)])
    return said


@pytest.mark.parametrize("lang", ["fr", "pt", "en"])
def test_described_moves_join_their_clauses_as_the_language_does(lang):
    """An account's clauses and a described move's are joined alike (present/i18n.py
    ``separator``): in French with a no-break space before the semicolon."""
    said = _described_in_a_game(lang)
    several = [text for text in said if ";" in text]
    assert several, "no described move of several clauses to read"
    for text in said:
        if lang == "fr":
            assert not re.search(r"[ \t][;:!?]", text), text  # a plain space before
            assert not re.search(r"[^\u00a0][;:!?](\s|$)", text), text  # no space at all
        else:
            assert not re.search(r"\s;", text), text
        assert "(s)" not in text, text
    joiner = f"{NB}; " if lang == "fr" else "; "
    assert all(joiner in text for text in several), several[:3]


# Counts and the second person, for every message to come (issue 30) ---------------------------

# "{count} <noun>s" outside ngettext is right only where the count is never 1 (nor 0 in French)
COUNT_ALWAYS_PLURAL = {"the message's text has {count} blocks starting with a line '---'; send "
                       "one move per message"}


@pytest.mark.parametrize("lang", ["fr", "pt"])
def test_a_count_before_a_plural_noun_goes_through_ngettext(lang):
    """No message that is not a plural entry writes "{count} absences" (or any "{count} Xs"):
    it would read "1 absences" / "0 absences" in French; ngettext chooses the form."""
    with open(i18n.LOCALE_DIR + f"/{lang}/LC_MESSAGES/rebis_pbm.po", "rb") as f:
        po = read_po(f)
    for message in po:
        if isinstance(message.id, str) and message.id not in COUNT_ALWAYS_PLURAL:
            assert not re.search(r"\{count\} (more )?[a-z]+s\b", message.id), message.id


def _templates(path) -> list[str]:
    import ast
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_" \
                and node.args and isinstance(node.args[0], ast.Constant):
            found.append(node.args[0].value)
    return found


def test_every_sentence_about_a_player_sent_to_them_has_a_second_person():
    """A use case's refusal about a player ("{player} has no move to make ..."), and the
    rules' "the current turn is N, X to move" / "turn N is X's, not Y's", are sent to that
    player by mail or git: each has its second person in i18n.SECOND_PERSON, translated, and
    a player reading one about themself reads "you" (present/i18n.py ``addressed``)."""
    from pathlib import Path

    import rebis_pbm
    package = Path(rebis_pbm.__file__).parent
    about = [t for path in sorted((package / "app").glob("*.py")) for t in _templates(path)
             if t.startswith("{player} ") or "move rejected: {player} " in t
             or "{player}'s key" in t or "in {player}'s name" in t]
    about += [t for t in _templates(package / "engine" / "rules.py")
              if "{to_move} to move" in t or "not {player}'s" in t]
    assert len(about) >= 12
    keys = {template for template, _field in i18n.SECOND_PERSON}
    assert [t for t in about if t not in keys] == []
    for (template, field), you in i18n.SECOND_PERSON.items():
        params = {f: "Zoë" if f == field else "José" if f in NAME_FIELDS else 2
                  for f in _fields(template)}
        for lang in ("en", "fr", "pt"):
            said = i18n.translate(i18n.Phrase(template, params), lang, "Zoë")
            assert "Zoë" not in said, (lang, said)
            assert said != i18n.translate(i18n.Phrase(template, params), lang), said
            assert said == i18n.translate(i18n.Phrase(you, params), lang)


@pytest.mark.parametrize(("lang", "yours", "theirs"), [
    ("fr", "(à ta demande)", "(à la demande du joueur)"),
    ("pt", "(a teu pedido)", "(a pedido do jogador)"),
    ("en", "(at your request)", "(on the player's request)"),
])
def test_a_move_made_on_its_players_request_says_so_to_them_in_the_second_person(lang, yours,
                                                                                  theirs):
    from rebis_pbm.engine import Ruleset, apply_move, legal_moves, setup
    from rebis_pbm.present.views import account

    state, _ = setup(Ruleset(), ("ana", "hugo"), "native-request")
    mover = state.players[state.to_move]
    _after, events = apply_move(state, legal_moves(state)[0])
    own = account(events, mover, lang, stand_in="on the player's request")
    other = account(events, "hugo" if mover == "ana" else "ana", lang,
                    stand_in="on the player's request")
    assert yours in own and theirs not in own, own
    assert theirs in other, other
