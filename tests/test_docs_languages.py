"""docs/rules.md in French and Portuguese (docs/rules.fr.md, docs/rules.pt.md) and the glossary
(docs/glossary.md) that fixes their words (issue 18, items 3 and 5).

A translation says what the English page says: the same sections under the same anchors, each
section citing the same rulings (R1-R13, sub-rulings included), holding the same data (inline code
spans, YAML blocks), the same number of list items and table rows. Every glossary row has a French
and a Portuguese term, and the words a translation defines in bold are the glossary's. Reads four
small files: well under a second.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

DOCS = Path(__file__).resolve().parent.parent / "docs"
ENGLISH = DOCS / "rules.md"
TRANSLATIONS = {"fr": DOCS / "rules.fr.md", "pt": DOCS / "rules.pt.md"}
GLOSSARY = DOCS / "glossary.md"

RULING = re.compile(r"\bR(\d+)(?:\.\d+)?\b")
HEADING = re.compile(r"^(#{2,6}) (.+)$", re.M)
ANCHOR = re.compile(r'^<a id="([a-z0-9-]+)"></a>$', re.M)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
YAML_BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.M | re.S)
LIST_ITEM = re.compile(r"^ *(?:[-*]|\d+\.) ", re.M)
TABLE_ROW = re.compile(r"^\|.*\|$", re.M)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def sections(text: str) -> list[str]:
    """The page cut at each `##`..`######` heading: the preamble, then one piece per heading."""
    starts = [m.start() for m in HEADING.finditer(text)]
    bounds = [0, *starts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def rulings(text: str) -> set[str]:
    return {m.group(0) for m in RULING.finditer(text)}


def without_code(text: str) -> str:
    return YAML_BLOCK.sub("", text)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


EN = read(ENGLISH)


@pytest.fixture(params=sorted(TRANSLATIONS), ids=sorted(TRANSLATIONS))
def lang(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_every_cited_ruling_is_one_of_r1_to_r13():
    numbers = {int(m.group(1)) for m in RULING.finditer(EN)}
    assert numbers == set(range(1, 14)), "docs/rules.md cites every ruling, and no other"


def test_translation_cites_the_same_rulings_as_the_english_page(lang):
    text = read(TRANSLATIONS[lang])
    assert rulings(text) == rulings(EN)
    for number, (en, tr) in enumerate(zip(sections(EN), sections(text), strict=True)):
        assert rulings(tr) == rulings(en), f"section {number}: {en.splitlines()[0]!r}"


def test_translation_has_the_same_sections_under_the_english_anchors(lang):
    text = read(TRANSLATIONS[lang])
    en_headings = HEADING.findall(EN)
    tr_headings = HEADING.findall(text)
    assert [level for level, _ in tr_headings] == [level for level, _ in en_headings]
    # Each translated heading sits under an explicit anchor: the English heading's, so that a
    # link to rules.md#a-turn works as rules.fr.md#a-turn and rules.pt.md#a-turn.
    assert ANCHOR.findall(text) == [slug(title) for _, title in en_headings]
    for match in HEADING.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        assert ANCHOR.fullmatch(before), f"no anchor right above {match.group(0)!r}"


def test_translation_keeps_the_data_in_english(lang):
    """Inline code (parameters, values, commands) and YAML blocks are data: never translated."""
    text = read(TRANSLATIONS[lang])
    en_blocks = [yaml.safe_load(b) for b in YAML_BLOCK.findall(EN)]
    tr_blocks = [yaml.safe_load(b) for b in YAML_BLOCK.findall(text)]
    assert tr_blocks == en_blocks
    for en, tr in zip(sections(EN), sections(text), strict=True):
        title = en.splitlines()[0]
        assert Counter(CODE_SPAN.findall(without_code(tr))) == Counter(
            CODE_SPAN.findall(without_code(en))), title


def test_translation_has_the_same_lists_and_tables(lang):
    text = read(TRANSLATIONS[lang])
    for en, tr in zip(sections(EN), sections(text), strict=True):
        title = en.splitlines()[0]
        assert len(LIST_ITEM.findall(tr)) == len(LIST_ITEM.findall(en)), title
        assert len(TABLE_ROW.findall(tr)) == len(TABLE_ROW.findall(en)), title


def test_each_page_links_the_other_languages():
    pages = {"en": ENGLISH, **TRANSLATIONS}
    for lang, path in pages.items():
        top = read(path).split("\n\n", 2)[1]
        for other, other_path in pages.items():
            if other != lang:
                assert f"]({other_path.name})" in top, (path.name, other_path.name)
        assert "](glossary.md)" in top, path.name


# The glossary ----------------------------------------------------------------------------------

GLOSSARY_HEADER = ["key", "English", "fr", "pt", "note"]


def glossary_rows() -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    header: list[str] | None = None
    for line in read(GLOSSARY).splitlines():
        if not (line.startswith("|") and line.endswith("|")):
            header = None
            continue
        cells = [cell.strip() for cell in line[1:-1].split("|")]
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        assert header == GLOSSARY_HEADER, line
        assert len(cells) == len(header), line
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def test_every_glossary_row_has_a_french_and_a_portuguese_term():
    rows = glossary_rows()
    assert len(rows) > 60
    for row in rows:
        assert row["key"] and row["English"], row
        for lang in ("fr", "pt"):
            # a term, not only a dash (em dash, hyphen, en dash)
            assert row[lang].strip("\u2014-\u2013 "), \
                f"glossary row {row['key']} has no {lang} term"
    keys = [row["key"] for row in rows]
    assert len(keys) == len(set(keys)), "a key is defined twice"


def test_the_glossary_holds_the_descriptions_words():
    """The issue's words, as the French and Portuguese descriptions of the game write them."""
    cells = {lang: " ".join(row[lang] for row in glossary_rows()) for lang in ("fr", "pt")}
    for term in ("étagère active", "deck Bibliothèque", "jeton de mélange", "poussière dorée",
                 "jeton doré", "jeton rouge"):
        assert term in cells["fr"], term
    for term in ("prateleira ativa", "baralho da Biblioteca", "ficha de mistura", "pó dourado",
                 "ficha dourada", "ficha vermelha"):
        assert term in cells["pt"], term


def singular(term: str) -> str:
    return " ".join(re.sub(r"(?<=[a-zà-ü])s$", "", word) for word in term.split())


def test_the_words_a_translation_defines_are_the_glossarys(lang):
    """The bold words of "Words used on this page" (and the burden, R12) are glossary terms."""
    text = read(TRANSLATIONS[lang])
    terms = {singular(row[lang].lower()) for row in glossary_rows()}
    defining = sections(text)[1] + next(s for s in sections(text) if "(R12)" in s.splitlines()[0])
    bold = re.findall(r"\*\*([^*]+)\*\*", defining)
    assert len(bold) >= 15
    for word in bold:
        assert any(singular(word.lower()) in cell for cell in terms), word


# The catalogs speak the glossary's words ----------------------------------------------------------
#
# The glossary is the reference for the gettext catalogs too (rebis_pbm/locale/*/LC_MESSAGES): a
# message whose English says "supply" says the glossary's "stock" / "banco" in its translation, and
# no translation uses a word the glossary rejects ("marcador" for a token, "réserve" for the
# supply, "jogada" for a move). Each row below names its glossary key; the test first checks that
# the glossary still gives that word, so that changing a term in one place fails until the other
# follows.

LOCALE = DOCS.parent / "rebis_pbm" / "locale"

# (glossary key, the English word in a msgid, {language: (the glossary's word, its forms)}).
# The English is searched in the msgid's prose (placeholders, code and data keys removed); the
# forms are a regular expression for the inflections a sentence may need.
CATALOG_TERMS: list[tuple[str, str, dict[str, tuple[str, str]]]] = [
    ("card", r"\bcards?\b",
     {"fr": ("carte", r"\bcartes?\b"), "pt": ("carta", r"\bcartas?\b")}),
    ("deck", r"\bdeck\b",
     {"fr": ("deck", r"\bdeck\b"), "pt": ("baralho", r"\bbaralho\b")}),
    ("hand", r"\bhand\b",
     {"fr": ("main", r"\bmain\b"), "pt": ("mão", r"\bmão\b")}),
    ("shelf", r"\bshel(?:f|ves)\b",
     {"fr": ("étagère", r"\bétagères?\b"), "pt": ("prateleira", r"\bprateleiras?\b")}),
    ("active", r"\bactive shelf\b",
     {"fr": ("étagère active", r"\bétagère active\b"),
      "pt": ("prateleira ativa", r"\bprateleira ativa\b")}),
    ("shelf_limit", r"\bshelf limit\b",
     {"fr": ("limite d'étagère", r"\blimite d'étagère\b"),
      "pt": ("limite da prateleira", r"\blimite da prateleira\b")}),
    ("in play", r"\bin play\b",
     {"fr": ("en jeu", r"\ben jeu\b"), "pt": ("em jogo", r"\bem jogo\b")}),
    ("owner", r"\bowner\b",
     {"fr": ("propriétaire", r"\bpropriétaire\b"), "pt": ("dono", r"\bdon[oa]\b")}),
    ("weight", r"\bweight\b",
     {"fr": ("poids", r"\bpoids\b"), "pt": ("peso", r"\bpeso\b")}),
    ("value", r"\bvalue\b",
     {"fr": ("valeur", r"\bvaleur\b"), "pt": ("valor", r"\bvalor\b")}),
    ("face up", r"\bface[- ]up\b",
     {"fr": ("face visible", r"\bface visible\b"),
      "pt": ("virada para cima", r"\bvirad[ao]s? para cima\b")}),
    ("face: down", r"\bface[- ]down\b",
     {"fr": ("face cachée", r"\bface cachée\b"),
      "pt": ("virada para baixo", r"\bvirad[ao]s? para baixo\b")}),
    ("Drew", r"\b(?:draw|drew)\b",
     {"fr": ("piocher", r"\bpioch(?:er|é|ée|es?)\b"),
      "pt": ("tirar", r"\b(?:tir(?:ar|ou|aste|ada|o|a)|tirou)\b")}),
    ("play", r"(?<!\bin )\bplay(?:s|ed|ing)?\b",
     {"fr": ("poser", r"\b(?:pos(?:er|e|es|é|ée|ées|ent)|pose)\b"),
      "pt": ("jogar", r"\bjog(?:ar|a|am|aste|ou|ad[oa]s?)\b")}),
    ("pair", r"\bpair\b",
     {"fr": ("paire", r"\bpaire\b"), "pt": ("par", r"\bpar\b")}),
    ("tokens", r"\btokens?\b",
     {"fr": ("jeton", r"\bjetons?\b"), "pt": ("ficha", r"\bfichas?\b")}),
    ("golden_dust", r"\bgolden dust\b",
     {"fr": ("poussière dorée", r"\bpoussière dorée\b"), "pt": ("pó dourado", r"\bpó dourado\b")}),
    ("gold_token", r"\bgold\b",
     {"fr": ("jeton doré", r"\bjetons? dorés?\b"),
      "pt": ("ficha dourada", r"\bfichas? douradas?\b")}),
    ("red_token", r"\bred\b",
     {"fr": ("jeton rouge", r"\bjetons? rouges?\b"),
      "pt": ("ficha vermelha", r"\bfichas? vermelhas?\b")}),
    ("supply", r"\bsupply\b",
     {"fr": ("stock", r"\bstock\b"), "pt": ("banco", r"\bbanco\b")}),
    ("reserve", r"\breserve\b",
     {"fr": ("réserve", r"\bréserve\b"), "pt": ("reserva", r"\breserva\b")}),
    ("multiplier", r"\bmultiplier\b",
     {"fr": ("multiplicateur", r"\bmultiplicateur\b"),
      "pt": ("multiplicador", r"\bmultiplicador\b")}),
    ("players", r"\bplayers?\b",
     {"fr": ("joueur", r"\bjoueu(?:r|rs|se|ses)\b"),
      "pt": ("jogador", r"\bjogador(?:a|es|as)?\b")}),
    ("game", r"\bgames?\b",
     {"fr": ("partie", r"\bparties?\b"), "pt": ("jogo", r"\bjogos?\b")}),
    ("seat", r"\bseat\b",
     {"fr": ("place", r"\bplace\b"), "pt": ("lugar", r"\blugar\b")}),
    ("turn", r"\bturns?\b",
     {"fr": ("tour", r"\btours?\b"), "pt": ("turno", r"\bturnos?\b")}),
    ("Dealt", r"\bdeal\b",
     {"fr": ("distribution", r"\bdistribution\b"), "pt": ("distribuição", r"\bdistribuição\b")}),
    ("burden", r"\bburdens?\b",
     {"fr": ("fardeau", r"\bfardeaux?\b"), "pt": ("fardo", r"\bfardos?\b")}),
    ("score", r"\bscore\b",
     {"fr": ("score", r"\bscore\b"), "pt": ("pontuação", r"\bpontuação\b")}),
    ("winners", r"\bwinner\b",
     {"fr": ("vainqueur", r"\bvainqueur\b"), "pt": ("vencedor", r"\bvencedor(?:a|es)?\b")}),
    ("referee", r"\breferee\b",
     {"fr": ("arbitre", r"\barbitre\b"), "pt": ("árbitro", r"\bárbitro\b")}),
    ("ruleset", r"\bruleset\b",
     {"fr": ("ensemble de règles", r"\bensemble de règles\b"),
      "pt": ("conjunto de regras", r"\bconjunto de regras\b")}),
    ("seed", r"\bseed\b",
     {"fr": ("graine", r"\bgraine\b"), "pt": ("semente", r"\bsemente\b")}),
    ("move", r"\bmoves?\b",
     {"fr": ("coup", r"\bcoups?\b"), "pt": ("lance", r"\blances?\b")}),
    ("move_template", r"\bmove template\b",
     {"fr": ("modèle de coup", r"\bmodèle de coup\b"),
      "pt": ("modelo de lance", r"\bmodelo de lance\b")}),
    ("record", r"\brecord\b",
     {"fr": ("registre", r"\bregistre\b"), "pt": ("registo", r"\bregisto\b")}),
    ("view", r"\bview\b",
     {"fr": ("vue", r"\bvues?\b"), "pt": ("vista", r"\bvistas?\b")}),
    ("join", r"\bjoin(?:s|ed)?\b",
     {"fr": ("inscription", r"\binscri"), "pt": ("inscrição", r"\binscr[ie]")}),
    ("deadline", r"\bdeadline\b",
     {"fr": ("échéance", r"\béchéance\b"), "pt": ("prazo", r"\bprazo\b")}),
    ("reminder", r"\breminder\b",
     {"fr": ("rappel", r"\brappel\b"), "pt": ("lembrete", r"\blembrete\b")}),
    ("subject", r"\bsubject\b",
     {"fr": ("objet", r"\bobjet\b"), "pt": ("assunto", r"\bassunto\b")}),
    ("signature", r"\bsignatures?\b",
     {"fr": ("signature", r"\bsignatures?\b"), "pt": ("assinatura", r"\bassinaturas?\b")}),
]

# Where an English word is said another way, as the glossary allows: "turn 3: your move" is "it is
# your turn" (fr "à toi de jouer", pt "é a tua vez", see the glossary's `to_move`).
CATALOG_IDIOMS = {("move", "turn {turn}: your move")}

# Words the glossary sets aside, with the English a msgid must contain for the word to be right.
# None: never right.
REJECTED: dict[str, list[tuple[str, str | None, str]]] = {
    "fr": [
        (r"\bréserve\b", r"\breserve\b", "the supply is the stock; a réserve is a player's own"),
        (r"\bcoups?\b", r"\bmoves?\b", "a coup is a move; a play is a pose"),
        (r"\bdélai\b", None, "a deadline is an échéance"),
        (r"\brejoin", None, "a join is an inscription (s'inscrire)"),
        (r"\b(?:la|une|cette) (?:donne|pioche)\b", None,
         "the deal is the distribution; the deck is never a pioche"),
        (r"\bmélang(?:er|é)", None, "shuffling is battre, mélange is the tokens'"),
        (r"\bsujet\b", None, "a mail's subject is its objet"),
        (r"\bvous\b", None, "the player is spoken to with tu"),
    ],
    "pt": [
        (r"\bmarcador", None, "a token is a ficha"),
        (r"\breserva\b", r"\breserve\b", "the supply is the banco; a reserva is a player's own"),
        (r"\bjogadas?\b", r"\bplay(?:s|ed|ing)?\b|\b(?:placed|laid) by\b|\blaid it\b",
         "a jogada is the play (a card placed by a player is jogada por); a move is a lance"),
        (r"\bentrad", None, "a join is an inscrição (inscrever-se)"),
        (r"\bpartida\b", None, "a game is a jogo"),
        (r"\bcompr(?:ar|ou|aste|a)\b", None, "a card is tirada (European Portuguese)"),
        (r"\bregistro\b|\barquivo\b", None, "European Portuguese: registo, ficheiro"),
        (r"\bvocê\b", None, "the player is spoken to with tu"),
    ],
}


def prose(msgid: str) -> str:
    """A msgid's English words: without placeholders, code spans, data keys (play.shelf,
    golden_dust, sign: ..., player = ...) and command lines, which stay in English."""
    text = re.sub(r"`[^`]*`|\{+[^{}]*\}+|rebis-pbm \w+", " ", msgid)
    text = re.sub(r"\b\w+\.\w+\b|\b\w+_\w+\b|\b(?:sign|lang|game|player|shelf)(?=:| =)", " ", text)
    text = re.sub(r"\b(?:to|may) move\b", " ", text)  # the verb "move"
    # A move or a turn "is played" (jouer, jogar): the play of cards is another word.
    return re.sub(r"\b(moves?|turn)\s+(?:can be|has already been)\s+played\b", r"\1", text)


@functools.cache
def catalog_messages(lang: str) -> list[tuple[str, str]]:
    """(msgid, msgstr) of every message of ``lang``'s catalog; a plural gives each of its forms."""
    pofile = pytest.importorskip("babel.messages.pofile", reason="Babel reads the catalogs")
    with open(LOCALE / lang / "LC_MESSAGES" / "rebis_pbm.po", "rb") as f:
        catalog = pofile.read_po(f, locale=lang)
    pairs = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        pairs += [(ids[0], string) for string in strings]
    return pairs


def glossary_term(key: str, lang: str) -> str:
    row = next((r for r in glossary_rows() if r["key"].strip("`*") == key), None)
    assert row is not None, f"docs/glossary.md has no row {key!r}"
    return row[lang]


@pytest.mark.parametrize(("key", "english", "words"), CATALOG_TERMS,
                         ids=[key for key, _, _ in CATALOG_TERMS])
def test_catalogs_say_each_term_in_the_glossarys_words(key, english, words, lang):
    word, forms = words[lang]
    assert word in glossary_term(key, lang), (
        f"docs/glossary.md no longer gives {word!r} for {key!r} in {lang}: change this test's "
        f"CATALOG_TERMS and rebis_pbm/locale/{lang}/LC_MESSAGES/rebis_pbm.po together")
    used = 0
    for msgid, msgstr in catalog_messages(lang):
        if (key, msgid) in CATALOG_IDIOMS or not re.search(english, prose(msgid), re.I):
            continue
        used += 1
        assert re.search(forms, msgstr, re.I), (
            f"{lang} catalog: {msgid!r} says {key!r}, its translation {msgstr!r} should say "
            f"{word!r} (docs/glossary.md)")
    assert used, f"no msgid says {english!r}: the row for {key!r} checks nothing"


@pytest.mark.parametrize("lang_", sorted(REJECTED))
def test_catalogs_use_no_word_the_glossary_sets_aside(lang_):
    for msgid, msgstr in catalog_messages(lang_):
        for word, allowed_by, why in REJECTED[lang_]:
            if re.search(word, msgstr, re.I) and not (
                    allowed_by and re.search(allowed_by, prose(msgid), re.I)):
                raise AssertionError(f"{lang_} catalog: {msgstr!r} (for {msgid!r}) uses "
                                     f"{re.search(word, msgstr, re.I).group(0)!r}: {why}")
