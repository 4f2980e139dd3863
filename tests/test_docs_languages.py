"""docs/rules.md in French and Portuguese (docs/rules.fr.md, docs/rules.pt.md) and the glossary
(docs/glossary.md) that fixes their words (issue 18, items 3 and 5).

A translation says what the English page says: the same sections under the same anchors, each
section citing the same rulings (R1-R13, sub-rulings included), holding the same data (inline code
spans, YAML blocks), the same number of list items and table rows. Every glossary row has a French
and a Portuguese term, and the words a translation defines in bold are the glossary's. Reads four
small files: well under a second.
"""

from __future__ import annotations

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
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


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
    for number, (en, tr) in enumerate(zip(sections(EN), sections(text))):
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
    for en, tr in zip(sections(EN), sections(text)):
        title = en.splitlines()[0]
        assert Counter(CODE_SPAN.findall(without_code(tr))) == Counter(
            CODE_SPAN.findall(without_code(en))), title


def test_translation_has_the_same_lists_and_tables(lang):
    text = read(TRANSLATIONS[lang])
    for en, tr in zip(sections(EN), sections(text)):
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
        rows.append(dict(zip(header, cells)))
    return rows


def test_every_glossary_row_has_a_french_and_a_portuguese_term():
    rows = glossary_rows()
    assert len(rows) > 60
    for row in rows:
        assert row["key"] and row["English"], row
        for lang in ("fr", "pt"):
            assert row[lang].strip("—-– "), f"glossary row {row['key']} has no {lang} term"
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
