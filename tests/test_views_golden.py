"""Every view, byte for byte: the YAML view and the text view (English, French, Portuguese) of
every viewer (each player and the spectator) of a few bot games (2, 3 and 4 players; under way,
in the red token phase, finished with the seed revealed, abandoned; moves the referee made;
addresses shown; names with ``<``, ``&``, ``"``, ``'``) and of a long game (360 cards, 200
moves, whose closed shelves accumulate), compared with a digest of each text as it was
rendered when the golden file was written (tests/views_golden.json).

Rendering keeps work between views (shelves no move touched, shared by viewers and by the YAML
and text renderings): this test is what says it changes no byte. A change to the views that is
meant to change them rewrites the file: ``.venv/bin/python tests/test_views_golden.py
--write``, then read the views it changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from rebis_pbm.engine import Ruleset
from rebis_pbm.present import views

sys.path.insert(0, str(Path(__file__).parent))  # for --write too, not only under pytest
from test_svg_golden import GAMES, ODD, assert_as_before, played  # the pictures' games

GOLDEN = Path(__file__).with_name("views_golden.json")
LANGS = ("en", "fr", "pt")
LONG = Ruleset(deck=tuple((n, 40) for n in range(1, 10)), golden_dust=99, gold=99)  # bench/run.py
LONG_SEATS = ("alice", "bob", "carol", "dave")
ADDRESSES = {"ann": "ann@example.org", "cy": "cy@example.org", ODD[1]: "q@example.org"}


def cases():
    """``(key, replay, viewer, flags)`` for every view compared: every turn of the pictures'
    games, and every 20th turn and the last four of a 200-move game on the long ruleset."""
    games = [(name, ruleset, seats, seed, stand_ins, abandoned, None)
             for name, ruleset, seats, seed, stand_ins, abandoned in GAMES]
    games.append(("long", LONG, LONG_SEATS, "long", {17: "missed deadline"}, None, 200))
    for name, ruleset, seats, seed, stand_ins, abandoned_at, stop in games:
        replays = played(ruleset, seats, seed)
        if stop is not None:  # the long game: its first 200 moves, a few of them viewed
            replays = replays[:stop + 1]
            chosen = [t for t in range(len(replays)) if t % 20 == 0 or t > stop - 4]
        else:
            chosen = list(range(len(replays)))
        for turn in chosen:
            replay = replays[turn]
            flags: dict = {"stand_ins": stand_ins}
            if replay.state.finished:
                flags["revealed"] = True
            elif turn == abandoned_at:
                flags.update(revealed=True, abandoned=True)
            if name == "three" and turn % 2:
                flags["addresses"] = ADDRESSES
            for viewer in (*seats, None):
                yield f"{name}/{turn}/{viewer}", replay, viewer, flags


def rendered():
    """``(key, text)`` for every view: the YAML view, then the text view in each language."""
    for key, replay, viewer, flags in cases():
        name = key.split("/")[0]
        yield f"{key}/yaml", views.render(views.build_view(name, replay, viewer, **flags), "yaml")
        for lang in LANGS:
            chosen = None if lang == "en" else lang
            view = views.build_view(name, replay, viewer, lang=chosen, **flags)
            yield f"{key}/text/{lang}", views.render(view, "text", chosen)


def digests() -> dict[str, str]:
    return {key: hashlib.sha256(text.encode("utf-8")).hexdigest() for key, text in rendered()}


def test_every_view_is_rendered_as_before():
    assert_as_before(GOLDEN, digests(), "views")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps(digests(), indent=0, sort_keys=True) + "\n", "utf-8")
