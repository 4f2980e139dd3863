"""Pictures that fit every language (issue 30): in a real browser, no text of the picture runs
into another or leaves the picture, in English, French and Portuguese, for 2 to 4 players with
long names, from the deal to the end of a long game (the red token phase, the end lines).

Headless Chromium lays out one page holding every picture and measures each text's box (as
tests/test_browser.py runs it); card numbers may overlap each other (a shelf is a stack).
Skipped only where no Chromium is installed.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import pytest

from rebis_pbm.engine import Ruleset
from rebis_pbm.present import svg, views
from test_svg_golden import played

BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome",
                                                "chrome"))), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium browser installed")

LONG = "Annabelle-Marguerite_de_Castelna"  # 32 characters, the longest name allowed
GAMES = (
    ("two", Ruleset(), (LONG, "hugo_de_la_torre_y_mendoza"), "layout-2"),
    ("three", Ruleset(), ("Zoë", LONG, "ian"), "layout-3"),
    ("four", Ruleset(), ("ana", "hugo_de_la_torre_y_mendoza", LONG, "Çağla"), "layout-4"),
)
MEASURE = """<script>
const out = [];
for (const svg of document.querySelectorAll('svg')) {
  const o = svg.getBoundingClientRect(), boxes = [];
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    boxes.push({c: t.getAttribute('class') || '', t: t.textContent,
                x: r.left - o.left, y: r.top - o.top, w: r.width, h: r.height});
  }
  out.push({id: svg.id, W: o.width, H: o.height, boxes});
}
const pre = document.createElement('pre'); pre.id = 'out';
pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script>"""


def pictures():
    """``(key, svg)``: for each game, the deal, two moves under way, the red token phase and
    the end, for each player and the spectator, in each language."""
    for name, ruleset, seats, seed in GAMES:
        replays = played(ruleset, seats, seed)
        red = [i for i, r in enumerate(replays) if r.state.phase == "red_token"]
        for turn in sorted({0, 1, len(replays) // 2, *red[:1], len(replays) - 1}):
            replay = replays[turn]
            flags = {"revealed": True} if replay.state.finished else {}
            for viewer in (*seats, None):
                view = views.build_view(name, replay, viewer, **flags)
                for lang in ("en", "fr", "pt"):
                    told = svg.told_last_move(views.build_view(name, replay, viewer, lang=lang,
                                                               **flags))
                    yield (f"{name}/{turn}/{viewer}/{lang}",
                           svg.render_svg(view, standalone=False, lang=lang, last_move=told))


def _overlap(a, b) -> bool:
    return (a["x"] < b["x"] + b["w"] - 1 and b["x"] < a["x"] + a["w"] - 1
            and a["y"] < b["y"] + b["h"] - 1 and b["y"] < a["y"] + a["h"] - 1)


def test_no_text_overlaps_another_or_leaves_the_picture(tmp_path):
    drawn = list(pictures())
    body = "".join(f'<div>{re.sub("<svg ", f"<svg id=p{i} ", picture, count=1)}</div>'
                   for i, (_key, picture) in enumerate(drawn))
    page = tmp_path / "pictures.html"
    page.write_text(f'<!DOCTYPE html><html lang="fr"><meta charset="utf-8"><body>{body}'
                    f"{MEASURE}</body></html>", encoding="utf-8")
    dom = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu",
                          "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=300).stdout
    found = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    assert found, dom[-2000:]
    measured = json.loads(html.unescape(found.group(1)))
    assert len(measured) == len(drawn)
    problems = []
    for (key, _picture), shown in zip(drawn, measured, strict=True):
        boxes = shown["boxes"]
        for i, a in enumerate(boxes):
            if a["x"] < -0.5 or a["y"] < -0.5 or a["x"] + a["w"] > shown["W"] + 0.5 \
                    or a["y"] + a["h"] > shown["H"] + 0.5:
                problems.append(f"{key}: {a['t']!r} leaves the picture")
            problems += [f"{key}: {a['t']!r} overlaps {b['t']!r}" for b in boxes[i + 1:]
                         if not (a["c"] == b["c"] == "num") and _overlap(a, b)]
    assert not problems, f"{len(problems)} texts out of place, e.g. {problems[:8]}"
