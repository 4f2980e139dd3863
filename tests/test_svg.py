"""The picture of the table (issue 17, docs/views.md "The picture"): what it draws, what it never
draws, and where it goes (``view --format svg``, the HTML part of a view's message).

test_information_sets.py checks the general claim (the picture depends only on the viewer's
information set); these tests pin what a reader sees in one situation built for it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rebis_pbm.app import open_game, record_view
from rebis_pbm.cli import cli
from rebis_pbm.engine import Move, Play, Ruleset, apply_move
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.state import deal
from rebis_pbm.present import svg, views
from rebis_pbm.record import Replay
from rebis_pbm.transports.mail import compose as mail
from rebis_pbm.transports.mail.compose import view_message

ROOT = Path(__file__).resolve().parent.parent
NS = {"s": "http://www.w3.org/2000/svg"}
RULES = Ruleset(hand_size=2, shelf_limit=5)
SEATS = ("alice", "bob")
# R5: alice's face-down 8, bob's face-down 9; hands alice 6 1, bob 2 3; alice's first draw 7 (R6);
# then the deck: 4, 5, ...
ORDER = (8, 9, 6, 2, 1, 3, 7, 4, 5, 5, 5, 5, 1, 1, 1)


def closing_turn() -> Replay:
    """Turn 1: alice closes bob's shelf 1 with her 6 face down (0 + 6 > 5, R8.1); bob draws the 4
    for it and the 5 as his turn 2 begins."""
    state, setup_events = deal(RULES, SEATS, ORDER)
    move = Move(1, "alice", play=Play((6,), "bob"))
    after, events = apply_move(state, move)
    return Replay(after, setup_events, ((move, events),))


def parsed(text: str) -> ET.Element:
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg ')
    return ET.fromstring(text.encode())


def cards(root: ET.Element) -> list[tuple[str, str]]:
    """Every card drawn outside the legend: (its class, the number written on it, or "")."""
    legend = {id(e) for g in root.iter() if "legend" in g.get("class", "").split()
              for e in g.iter()}
    out = []
    for g in root.iter(f"{{{NS['s']}}}g"):
        if "card" in g.get("class", "").split() and id(g) not in legend:
            numbers = [t.text for t in g.iter(f"{{{NS['s']}}}text") if "num" in
                       t.get("class", "")]
            out.append((g.get("class"), numbers[0] if numbers else ""))
    return out


def numbers_shown(root: ET.Element) -> list[int]:
    return sorted(int(n.strip("[]+\u2212")) for _, n in cards(root) if n)


def test_each_picture_shows_the_numbers_its_viewer_knows_and_no_other():
    replay = closing_turn()
    pictures = {who: parsed(views.render(views.build_view("g", replay, who), "svg"))
                for who in ("alice", "bob", None)}
    # alice: her face-down 6 on bob's shelf 2 and her hand 1 7; never bob's hand or the dealt 8, 9
    assert numbers_shown(pictures["alice"]) == [1, 6, 7]
    assert ("card down yours", "[6]") in cards(pictures["alice"])
    # bob: his hand 2 3 4 5 only; the card that closed his shelf is a back, like the dealt ones
    assert numbers_shown(pictures["bob"]) == [2, 3, 4, 5]
    # the spectator: no number at all (nothing is face up yet); three backs on the shelves
    assert numbers_shown(pictures[None]) == []
    assert [c for c, _ in cards(pictures[None])].count("card down hidden") == 3
    for who in ("bob", None):
        text = views.render(views.build_view("g", replay, who), "svg")
        assert "face-down 6" not in text and "[6]" not in text and "[8]" not in text


def test_the_picture_draws_shelves_tokens_hand_counts_supply_deck_and_turn():
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    view = record_view(record, replay, None)
    text = views.render(view, "svg")
    root = parsed(text)
    words = " ".join(t.text or "" for t in root.iter(f"{{{NS['s']}}}text"))
    assert "Deck: 6 cards" in words and "golden dust \u00d70" in words
    assert "Hand: 15 cards" in words and "score 135" in words and "shelf 10" in words
    assert "Winner: bob" in words and "The seed is revealed" in words
    # every face-down card shows its number once the seed is revealed, marked as such
    kinds = [c for c, _ in cards(root)]
    assert "card down hidden" not in kinds[1:] and kinds.count("card down revealed") == 15
    tokens = [e.get("class") for e in root.iter(f"{{{NS['s']}}}circle")]
    assert "token red" in tokens and "token gold" in tokens
    # no script, no external reference: a plain picture
    assert "<script" not in text and "href=" not in text and "<foreignObject" not in text


def legend(view: dict) -> list[str]:
    root = parsed(svg.render_svg(view))
    group = next(g for g in root.iter(f"{{{NS['s']}}}g") if g.get("class") == "legend")
    return [t.text for t in group.iter(f"{{{NS['s']}}}text") if "num" not in t.get("class", "")]


def test_the_legend_explains_only_what_the_picture_shows():
    tokens = ["golden dust", "gold", "red"]
    state, setup_events = deal(RULES, SEATS, ORDER)
    dealt = Replay(state, setup_events, ())
    # before the first move: only the dealt face-down cards and the tokens; no last move but
    # alice's first draw, marked in her hand as the last move is
    for who in ("bob", None):
        assert legend(views.build_view("g", dealt, who)) == ["face down", *tokens]
    assert legend(views.build_view("g", dealt, "alice")) == ["face down", *tokens,
                                                             "the last move"]
    # alice laid her 6 face down: she sees it as hers; bob and the spectator see a back
    replay = closing_turn()
    assert legend(views.build_view("g", replay, "alice")) == [
        "face down", "face down, laid by you", *tokens, "the last move"]
    for who in ("bob", None):
        assert legend(views.build_view("g", replay, who)) == ["face down", *tokens,
                                                               "the last move"]
    # the seed revealed: every face-down card shows its number, no back is left to explain
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    assert legend(record_view(record, replay, None)) == [
        "face up, +", "face up, \u2212", "face down (seed revealed)", *tokens, "the last move"]


def test_the_player_to_move_and_the_last_move_are_marked():
    view = views.build_view("g", closing_turn(), None)
    words = " ".join(t.text or "" for t in parsed(views.render(view, "svg")).iter(
        f"{{{NS['s']}}}text"))
    assert "\u25b6 to move" in words and "Last move, turn 1 (alice)" in words
    assert svg.last_move_marks(view) == {("bob", 1): 0, ("bob", 2): 1}


def test_the_last_move_marks_follow_the_accounts_sentences():
    """The marks are read from views.describe's sentences: a change of wording shows here."""
    def marks(events, viewer="bob"):
        view = {"viewer": viewer, "history": [{"turn": 5, "player": "alice",
                                               "text": views.account(events, viewer)}]}
        return svg.last_move_marks(view)

    assert marks([ev.DustPlaced("alice", 2, 3), ev.Played("alice", "bob", 2, (6, 6), "positive"),
                  ev.TurnBegan(6, "bob")]) == {("alice", 3): 0, ("bob", 2): 2}
    assert marks([ev.Played("alice", "alice", 1, (4,), "negative")], None) == {("alice", 1): 1}
    assert marks([ev.Closed("alice", "carol", 2, 6, 3), ev.TokenTaken("alice", "gold"),
                  ev.TokenPlaced("alice", "gold", "bob", 1)]) == {
        ("carol", 2): 0, ("carol", 3): 1, ("bob", 1): 0}
    assert marks([ev.TokenPlaced("carol", "red", "carol", 4), ev.GameFinished()],
                 "carol") == {("carol", 4): 0}
    assert svg.last_move_marks({"viewer": "bob", "history": [
        {"turn": 0, "player": None, "text": "each player was dealt ..."}]}) == {}


def test_names_are_escaped_by_the_library():
    """Names are user input: html.escape escapes them, they only go into texts (never into an
    attribute), and no name can add markup such as a script."""
    for odd, viewer in (('a<b>&"c\'', "alice"), ('<script>alert(1)</script>&"', None),
                        (']]><script>&"', "alice")):
        view = views.build_view("g", closing_turn(), viewer)
        view["players"][1]["name"] = odd
        view["players"][1]["shelves"][1]["cards"][0]["by"] = odd
        for standalone in (True, False):
            text = svg.render_svg(view, standalone=standalone)
            root = ET.fromstring(text.encode())  # well-formed XML
            assert odd in [t.text for t in root.iter(f"{{{NS['s']}}}text")]
            titles = [t.text for t in root.iter(f"{{{NS['s']}}}title")]
            assert viewer or f"face-down card, laid by {odd}" in titles
            assert "<script" not in text and "<b>" not in text
            assert not root.findall(".//s:script", NS)
            assert all(odd not in value for e in root.iter() for value in e.attrib.values())
        assert "&lt;" in text and "&amp;" in text


def test_view_format_svg_prints_the_picture(tmp_path):
    runner = CliRunner()
    game = tmp_path / "game.yaml"
    assert runner.invoke(cli, ["new", str(game), "--player", "ann", "--player", "bo",
                               "--insecure-seed", "--referee-deal", "--seed", "s",
                               "--game-id", "g"]).exit_code == 0
    for who in (["--player", "ann"], ["--public"]):
        result = runner.invoke(cli, ["view", str(game), *who, "--format", "svg"])
        assert result.exit_code == 0, result.output
        title = parsed(result.output).find("s:title", NS).text
        assert title == ("Rebis game g, view of ann, turn 1" if who[0] == "--player"
                         else "Rebis game g, spectator view, turn 1")


def texts(svg_text: str) -> str:
    """Every word the picture shows (its texts and titles), one per line."""
    return "\n".join(e.text for e in parsed(svg_text).iter() if e.text)


def test_view_format_svg_speaks_the_players_language(tmp_path):
    """view --format svg draws the picture the player's mail carries: in the language the game
    keeps for them, or --lang's; the spectator's in English unless --lang; same view as ever."""
    runner = CliRunner()
    game = tmp_path / "game.yaml"
    assert runner.invoke(cli, ["new", str(game), "--player", "ann", "--player", "bo",
                               "--lang", "bo=fr", "--insecure-seed", "--referee-deal",
                               "--seed", "s", "--game-id", "g"]).exit_code == 0
    move = runner.invoke(cli, ["bot", str(game), "--player", "ann"])
    assert move.exit_code == 0, move.output
    assert runner.invoke(cli, ["apply", str(game), "-", "--as", "ann"],
                         input=move.output).exit_code == 0

    def picture(*args: str) -> str:
        result = runner.invoke(cli, ["view", str(game), *args, "--format", "svg"])
        assert result.exit_code == 0, result.output
        return result.output

    record, replay, _ = open_game(game)
    english_ann = picture("--player", "ann")
    french_ann = picture("--player", "ann", "--lang", "fr")
    assert "Last move, turn 1 (ann): " in texts(english_ann)
    assert "Dernier coup, tour 1 (ann)\u00a0: " in texts(french_ann)
    assert "Dernier coup" not in texts(english_ann)
    assert "Last move" not in texts(french_ann) and "view of" not in texts(french_ann)
    assert "étagère" in texts(french_ann) and "shelf" not in texts(french_ann)
    # Exactly the mail's picture: the English view, the last move told in French.
    told = record_view(record, replay, "ann", "fr")["history"][-1]["text"]
    assert french_ann == svg.render_svg(record_view(record, replay, "ann"), lang="fr",
                                        last_move=told)
    # bo speaks French: the default picture is French, --lang en gives the English one.
    french_bo = picture("--player", "bo")
    assert "vue de bo" in texts(french_bo) and "view of" not in texts(french_bo)
    assert picture("--player", "bo", "--lang", "en") == svg.render_svg(
        record_view(record, replay, "bo"))
    # The spectator's picture is English unless --lang; the text view follows the same rule.
    assert picture("--public") == svg.render_svg(record_view(record, replay, None))
    public_fr = texts(picture("--public", "--lang", "fr"))
    assert "vue du spectateur" in public_fr and "Dernier coup, tour 1 (ann)\u00a0: " in public_fr
    assert "spectator view" not in public_fr
    # The same information set in either language: the numbers and cards drawn are the same.
    assert cards(parsed(french_ann)) == cards(parsed(english_ann))
    assert numbers_shown(parsed(french_ann)) == numbers_shown(parsed(english_ann))
    # YAML and JSON stay English data whatever --lang says.
    for fmt in ("yaml", "json"):
        result = runner.invoke(cli, ["view", str(game), "--player", "bo", "--format", fmt])
        again = runner.invoke(cli, ["view", str(game), "--player", "bo", "--format", fmt,
                                    "--lang", "fr"])
        assert result.output == again.output and "Dernier coup" not in result.output


def test_a_views_message_carries_the_picture_in_its_html_part():
    replay = closing_turn()
    view = views.build_view("g", replay, "bob")
    text = views.render(view, "text")
    msg = view_message(game="g", view=view, view_text=text, view_yaml=views.render(view, "yaml"),
                       news="Turn 1 (alice): ...", sender="referee@example.org",
                       to="bob@example.org", picture=view)
    assert msg.get_content_type() == "multipart/mixed"
    assert msg.get_body(("plain",)).get_content() == (
        f"Turn 1 (alice): ...\n\n{text.rstrip()}\n\n"
        f"{mail.HOW_TO_MOVE.format(template='move-turn-002-bob.yaml')}\n")
    html = msg.get_body(("html",)).get_content()
    assert html.count("<svg ") == 1 and "<?xml" not in html and "<script" not in html
    assert svg.render_svg(view, standalone=False) in html
    assert "[6]" not in html and "face-down 6" not in html  # alice's closing card
    attachments = [p.get_filename() for p in msg.iter_attachments()]
    assert attachments == ["view-g-turn-002-bob.yaml", "move-turn-002-bob.yaml"]
    # Without a picture (mail in --no-pictures), the same message without its HTML part.
    plain = view_message(game="g", view=view, view_text=text, view_yaml=views.render(view, "yaml"),
                         news="Turn 1 (alice): ...", sender="referee@example.org",
                         to="bob@example.org")
    assert plain.get_body(("html",)) is None
    assert plain.get_body(("plain",)).get_content() == msg.get_body(("plain",)).get_content()
    assert [p.get_filename() for p in plain.iter_attachments()] == attachments


def test_a_finished_game_is_pictured_after_its_last_turn():
    """A view's ``turn`` is the move awaited next; once the game is over the picture says the
    turn it ended after, not one that never began."""
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    view = record_view(record, replay, None)
    assert view["phase"] == "finished"
    last = len(record.moves)
    title = ET.fromstring(svg.render_svg(view).encode()).find("{http://www.w3.org/2000/svg}title")
    assert title is not None and title.text.endswith(f"after turn {last} (game over)")
    assert views.moment(view) == f"after turn {last} (game over)"


def test_the_picture_says_when_and_why_the_game_ended_in_the_views_words():
    """The picture's title and end line take their words from views (moment, end_line: one
    wording, one set of msgids), in every language, as the text view says them."""
    record, replay, _ = open_game(ROOT / "examples" / "game.yaml")
    view = record_view(record, replay, None)
    reason = view["end"]["reason"]
    for lang in ("en", "fr", "pt"):
        picture = ET.fromstring(svg.render_svg(view, lang=lang).encode())
        title = picture.find("s:title", NS)
        assert title is not None and title.text.endswith(", " + views.moment(view, lang)), lang
        texts = [t.text for t in picture.iter(f"{{{NS['s']}}}text")]
        assert views.end_line(reason, lang) in texts, lang
        assert views.end_line(reason, lang) in views.render_text(view, lang), lang
    assert views.moment(view, "fr") == f"après le tour {len(record.moves)} (partie terminée)"
    assert views.end_words(reason, "pt") in views.end_line(reason, "pt")
    assert views.end_words("a reason to come") == "a reason to come"
    # the words themselves are written in views alone
    package = ROOT / "rebis_pbm"
    for words in ('N_("the deck is empty")', "(game over)"):
        spelt = sorted(str(p.relative_to(package)) for p in package.rglob("*.py")
                       if words in p.read_text("utf-8"))
        assert spelt == ["present/wording.py"], (words, spelt)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(), st.booleans())
def test_escape_is_html_escape(text, quote):
    """The picture's texts are escaped as the standard library's html.escape does."""
    import html

    assert svg.escape(text, quote) == html.escape(text, quote)
