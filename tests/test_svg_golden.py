"""The picture of the table, byte for byte: every view of every turn of a few bot games (2, 3 and
4 players; each player and the spectator; English, French, Portuguese; under way, in the red
token phase, finished with the seed revealed, abandoned; names with ``<``, ``&``, ``"``, ``'``)
drawn by :func:`rebis_pbm.present.svg.render_svg` and compared with a digest of each picture as it
was
drawn when the golden file was written (tests/svg_golden.json).

A change to the drawing that is meant to change the pictures rewrites the file:
``.venv/bin/python tests/test_svg_golden.py --write``, then read the pictures it changed.
"""

from __future__ import annotations

import hashlib
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from rebis_pbm.bots import make_bot
from rebis_pbm.engine import Ruleset, apply_move, information_set, setup
from rebis_pbm.present import svg, views
from rebis_pbm.record import Replay

GOLDEN = Path(__file__).with_name("svg_golden.json")
ODD = ('Zo\u00eb<&>', 'say"hi"', "o'neil&co", "]]>dave")
# (name, ruleset, seats, seed, stand-ins {turn: reason}, the turn after which it is abandoned)
GAMES = (
    ("two", Ruleset(), ("ann", "bo"), "golden-2", {}, 9),
    ("three", Ruleset(hand_size=3, shelf_limit=8, golden_dust=2, gold=2, red=1),
     ("ann", "bo", "cy"), "golden-3", {3: "deadline", 7: "deadline"}, None),
    ("four", Ruleset(), ODD, "golden-4", {}, None),
)
LANGS = ("en", "fr", "pt")


def played(ruleset: Ruleset, seats, seed: str) -> list[Replay]:
    """The replay after each move (the first: after the deal) of a game between a greedy bot in
    the first seat and random bots."""
    state, setup_events = setup(ruleset, seats, seed)
    bots = [make_bot("greedy" if seat == 0 else "random", f"{seed}/{seat}")
            for seat in range(len(seats))]
    history: list = []
    replays = [Replay(state, setup_events, ())]
    while not state.finished:
        move = bots[state.to_move].choose(information_set(state, state.to_move))
        state, events = apply_move(state, move)
        history.append((move, events))
        replays.append(Replay(state, setup_events, tuple(history)))
    return replays


def cases():
    """``(key, view, lang, last_move, standalone)`` for every picture compared, as the mail
    draws them: the English view, the last move told in the view built in the reader's
    language."""
    for name, ruleset, seats, seed, stand_ins, abandoned_at in GAMES:
        for turn, replay in enumerate(played(ruleset, seats, seed)):
            flags = {"stand_ins": stand_ins}
            if replay.state.finished:
                flags["revealed"] = True
            elif turn == abandoned_at:
                flags.update(revealed=True, abandoned=True)
            for viewer in (*seats, None):
                view = views.build_view(name, replay, viewer, **flags)
                for lang in LANGS:
                    told = None
                    if lang != "en":
                        told = svg.told_last_move(views.build_view(name, replay, viewer,
                                                                   lang=lang, **flags))
                    yield (f"{name}/{turn}/{viewer}/{lang}", view, lang, told,
                           (turn + len(lang)) % 3 != 0)


def digests() -> dict[str, str]:
    return {key: hashlib.sha256(svg.render_svg(view, standalone=standalone, lang=lang,
                                               last_move=told).encode()).hexdigest()[:16]
            for key, view, lang, told, standalone in cases()}


def assert_as_before(golden_file: Path, now: dict[str, str], what: str) -> None:
    """Every digest in ``now`` is the one ``golden_file`` holds, for the same keys."""
    golden = json.loads(golden_file.read_text("utf-8"))
    assert sorted(now) == sorted(golden)
    changed = [key for key in golden if now[key] != golden[key]]
    assert not changed, f"{len(changed)} {what} changed, e.g. {changed[:5]}"


def test_every_picture_is_drawn_as_before():
    assert_as_before(GOLDEN, digests(), "pictures")
    assert len(svg._SHELVES) <= svg._SHELVES_KEPT  # the shelves shared between pictures


def test_the_games_reach_every_situation_the_picture_draws():
    """The golden pictures cover the red token phase, both endings, an abandoned game, gold tokens
    and moves the referee made, and odd names stay text, never markup."""
    seen = {"phase": set(), "reason": set(), "abandoned": False, "gold": False,
            "account": False}
    for key, view, lang, told, _standalone in cases():
        if lang != "en":
            continue
        seen["phase"].add(view["phase"])
        seen["reason"].add(view.get("end", {}).get("reason"))
        seen["abandoned"] |= view.get("abandoned", False)
        seen["gold"] |= any("gold" in s["tokens"] for p in view["players"] for s in p["shelves"])
        seen["account"] |= "account" in view["history"][-1]
        if key.startswith("four/") and key.endswith(("/7/None/en", "/8/]]>dave/en")):
            root = ET.fromstring(svg.render_svg(view, last_move=told).encode())
            words = [e.text for e in root.iter() if e.text]
            assert all(name in " ".join(words) for name in ODD)
            assert not [e for e in root.iter() if e.tag.split("}")[1] not in
                        ("svg", "title", "rect", "g", "text", "circle")]
    assert seen["phase"] == {"play", "red_token", "finished"}
    assert seen["abandoned"] and seen["gold"] and seen["account"]
    assert len(seen["reason"] - {None}) == 2, seen["reason"]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    GOLDEN.write_text(json.dumps(digests(), indent=0, sort_keys=True) + "\n", "utf-8")
