"""What rendering keeps between views (``kept._SHELF_VIEWS``, ``_VIEWED``,
``yaml_view._CARD_YAML``): a shelf no move touched is built and rendered once per way a viewer
sees it. Nothing kept may show a viewer what they may not know, nor a text other than the one
rendered afresh: these tests render views in one process in every order and compare them with
views rendered with every cache emptied (tests/test_views_golden.py says that no byte changed)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from rebis_pbm.engine import Ruleset
from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present import build, views, yaml_view
from rebis_pbm.present import kept as kept_mod

sys.path.insert(0, str(Path(__file__).parent))
from test_svg_golden import played  # the pictures' games

LANGS = (None, "fr", "pt")


def forget() -> None:
    """Empty every cache of the views: as a fresh process has them."""
    kept_mod._SHELF_VIEWS.clear()
    kept_mod._VIEWED.clear()
    yaml_view._CARD_YAML.clear()
    build._PUBLIC = (None, (), ())


def everything(replay, viewer, **flags) -> list[str]:
    """The YAML view and the text view in each language of ``viewer``."""
    out = [views.render(views.build_view("g", replay, viewer, **flags), "yaml")]
    out += [views.render(views.build_view("g", replay, viewer, lang=lang, **flags), "text", lang)
            for lang in LANGS]
    return out


def afresh(replay, viewer, **flags) -> list[str]:
    forget()
    return everything(replay, viewer, **flags)


SEATS = ("ann", "bo", "cy")
RULES = Ruleset(hand_size=3, shelf_limit=8, golden_dust=2, gold=2, red=1)


@pytest.fixture(scope="module")
def game():
    return played(RULES, SEATS, "kept-views")


def test_two_viewers_in_either_order_see_what_they_see_afresh(game):
    """Every pair of viewers (players, of whom one closed a shelf the other did not, and the
    spectator), rendered one after the other in one process, in both orders, and with the seed
    revealed: each view is the one rendered with the caches emptied."""
    turns = [t for t in (6, 12, len(game) // 2, len(game) - 1) if t < len(game)]
    closed = False
    for turn in turns:
        replay = game[turn]
        closed |= any(len(row) > 1 for row in replay.state.shelves)
        for flags in ({}, {"revealed": True}):
            fresh = {v: afresh(replay, v, **flags) for v in (*SEATS, None)}
            for first, second in itertools.permutations((*SEATS, None), 2):
                forget()
                assert everything(replay, first, **flags) == fresh[first], (turn, first)
                assert everything(replay, second, **flags) == fresh[second], (turn, second)
    assert closed  # some shelves are seen one way by their closer, another by everyone else


def test_a_shelf_seen_alike_is_built_once_and_seen_otherwise_apart(game):
    """A closed shelf's face-down card shows its number to its closer only: the closer's entry and
    everyone else's are kept apart, and the spectator shares the others'."""
    replay = game[-1] if not game[-1].state.finished else game[-2]
    forget()
    for viewer in (*SEATS, None):
        views.build_view("g", replay, viewer)
    shelves = sum(len(row) for row in replay.state.shelves)
    assert len(kept_mod._SHELF_VIEWS) == shelves
    assert sum(len(kept) for _, _, kept in kept_mod._SHELF_VIEWS.values()) < 2 * shelves
    for _real, laid, kept in kept_mod._SHELF_VIEWS.values():
        shown = {key[-1] for key in kept}
        assert shown <= laid | {None}  # one entry for each closer, one for everyone else
        for key, entry in kept.items():
            for card in entry.view["cards"]:
                if card.get("face") == "down":
                    assert ("number" in card) == (key[-1] is not None)


def test_a_changed_view_is_rendered_as_it_now_is(game):
    """A view's shelves are the caller's copies: changing one changes neither what is kept nor
    another view; the changed view is rendered as it is, not from what was kept."""
    replay = game[12]
    forget()
    view = views.build_view("g", replay, "ann")
    before = views.render(view, "yaml"), views.render(view, "text")
    card = view["players"][1]["shelves"][0]["cards"][-1]
    card["by"] = "somebody else"
    view["players"][0]["shelves"][0]["score"] = 999
    assert views.render(view, "yaml") == dump_yaml(view) != before[0]
    text = views.render(view, "text")
    assert "somebody else" in text and "scores 999" in text
    again = views.build_view("g", replay, "ann")
    assert (views.render(again, "yaml"), views.render(again, "text")) == before


def test_an_id_another_object_had_never_returns_its_text(game):
    """Entries are kept by id, holding their object: an entry kept for another object that had
    the same id is never used (compared with ``is``)."""
    replay = game[12]
    fresh = afresh(replay, "bo")
    forget()
    impostor = views.build_view("g", game[3], "ann")["players"][0]["shelves"][0]
    wrong = kept_mod.kept_shelf(impostor)
    assert wrong is not None
    for row in replay.state.shelves:
        for shelf in row:  # as if every shelf had the id of a shelf of another game
            kept_mod._SHELF_VIEWS[id(shelf)] = (object(), frozenset(), {})
    view = views.build_view("g", replay, "bo")
    for player in view["players"]:
        for shelf in player["shelves"]:  # as if each entry had the id of another entry
            kept_mod._VIEWED[id(shelf)] = (dict(shelf), wrong)
            assert kept_mod.kept_shelf(shelf) is None
    assert views.render(view, "yaml") == fresh[0]
    assert views.render(views.build_view("g", replay, "bo"), "yaml") == fresh[0]


def test_the_caches_are_bounded(game, monkeypatch):
    """Each cache is emptied when it holds more than ``kept.KEPT`` entries; views stay the same."""
    monkeypatch.setattr(kept_mod, "KEPT", 8)
    replays = game[::5]
    fresh = [afresh(replay, "cy") for replay in replays]
    forget()
    for replay, expected in zip(replays, fresh, strict=True):
        assert everything(replay, "cy") == expected
        assert everything(replay, None)  # and another viewer in between
        # emptied when over 8 before an addition (the cards: before a view's new cards)
        assert len(kept_mod._SHELF_VIEWS) <= 9 and len(kept_mod._VIEWED) <= 9
        assert len(yaml_view._CARD_YAML) <= 9 + sum(len(s.cards) for row in replay.state.shelves
                                                for s in row)


def test_the_yaml_view_is_dump_yaml_with_odd_names_and_added_entries():
    """The view written in pieces is ``dump_yaml`` of it: with names that look like YAML items
    (written whole then), and with entries added before and after the players (as
    ``referee.record_view`` adds a language, a deadline, a witness)."""
    seats = ("a\n  - shelf: 1", "b\n    - number: 1\n", "c: d", "'yes'")
    for replay in played(Ruleset(hand_size=3, shelf_limit=8), seats, "odd")[::7]:
        forget()
        for viewer in (*seats, None):
            view = views.build_view("g", replay, viewer)
            assert views.render(view, "yaml") == dump_yaml(view)
            view = {"lang": "fr", **view, "deadline": "2030-01-01T00:00:00Z",
                    "witness": {"game": "g", "move": 3, "chain_sha256": "ab" * 32}}
            assert views.render(view, "yaml") == dump_yaml(view)
