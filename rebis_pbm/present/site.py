"""A static web page of a game for spectators: ``rebis-pbm site`` (docs/views.md, "The game page").

The page shows what the public view shows, nothing more: the public picture of the table after
each move (:mod:`rebis_pbm.present.svg`), the move list as ``apply`` prints it (the public account
of each
move), the score, and ``verify``'s verdict; once the record reveals the seed, the seed and a
picture with every face-down card. It is plain HTML and SVG files (no script), ready for GitHub or
GitLab Pages.

Three steps, kept apart so that each can be used (and tested) alone:

- :func:`rebis_pbm.app.public_game` (the use case) reads a record (with its seed: the
  referee's) into a :class:`PublicGame`, the only place that touches the record and the seed;
- :func:`public_frames` turns a game's states into the public view after each move;
- :func:`write_site` writes the files from a :class:`PublicGame`, which holds public views and
  public texts only.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from rebis_pbm.engine import Move, State, apply_move, burdens, score_table, winners
from rebis_pbm.engine.events import Event
from rebis_pbm.files.atomic import PathLike, make_folder, write_atomic
from rebis_pbm.present.build import build_view
from rebis_pbm.present.i18n import gettext_for
from rebis_pbm.present.wording import account, moment, standing, winners_line
from rebis_pbm.record import Replay

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import View

PAGE = "index.html"
NOW = "table.svg"  # the table as it stands, every card shown once the seed is revealed


@dataclass(frozen=True)
class Frame:
    """The game after one move: ``turn`` (0 for the deal), its ``player`` (None for the deal),
    its public ``account`` (what ``apply`` printed) and the public ``view`` after it."""

    turn: int
    player: str | None
    account: str
    view: View
    events: tuple[Event, ...] = ()  # the move's events, to tell them in another language


class ShelfScore(TypedDict):
    """A shelf's score (R13): its value times its multiplier."""

    shelf: int
    value: int
    multiplier: int
    score: int


class PlayerScoreData(TypedDict):
    """A player's score, shelf by shelf."""

    player: str
    total: int
    shelves: list[ShelfScore]


class BurdenTotal(TypedDict):
    """A player's burden (R12)."""

    player: str
    total: int


class Score(TypedDict):
    """The score as ``rebis-pbm score`` gives it: ``final`` once the game is over, then
    ``winners`` (else None)."""

    final: bool
    players: list[PlayerScoreData]
    burdens: list[BurdenTotal]
    winners: list[str] | None


@dataclass(frozen=True)
class PublicGame:
    """What the page shows, all of it public.

    Attributes:
        game: the game id.
        frames: the deal, then each move, with the public view after it.
        now: the public view as it stands (``seed_revealed`` once the record reveals the seed).
        score: ``{"final": bool, "players": [{"player", "total", "shelves": [{"shelf", "value",
            "multiplier", "score"}]}], "burdens": [{"player", "total"}], "winners": [...] or
            None}``.
        verified, verify_text: ``verify``'s verdict and its text, run on the record alone (the
            record's own seed, if it reveals one; otherwise what anyone can check without it).
        seed: the seed once the record reveals it (``SALT:SEED`` for rebis-pbm/2); else None.
        seed_sha256: the commitment to the seed made when the game was created.
    """

    game: str
    frames: list[Frame]
    now: View
    score: Score
    verified: bool
    verify_text: str
    seed: str | None = None
    seed_sha256: str = ""


@dataclass(frozen=True)
class JoinGame:
    """What the page of a fair deal's join phase shows, all of it public: the game id, the
    ``players`` in seat order, those the deal ``waiting`` for (the record's ``status``), the
    join ``deadline`` (UTC, ISO 8601) or None, ``verify``'s verdict and text on the record
    alone, the seed's commitment, whether the game was ``abandoned`` (its seed revealed
    before the deal), and the ``round`` of a rebis-pbm/5 fair deal (1: commitments, 2: joins;
    None for an older record's one round)."""

    game: str
    players: tuple[str, ...]
    waiting: tuple[str, ...]
    deadline: str | None
    verified: bool
    verify_text: str
    seed_sha256: str = ""
    abandoned: bool = False
    round: int | None = None


def public_frames(game: str, start: State, setup_events: tuple[Event, ...],
                  history: Sequence[tuple[Move, tuple[Event, ...]]],
                  states: Sequence[State] | None = None) -> list[Frame]:
    """The public view after the deal and after each move of ``history`` (``(move, events)``
    pairs), replayed from the dealt state ``start``, or taken from ``states`` (the state after
    the deal and after each move, as :func:`rebis_pbm.record.public.public_replay` gives them
    without the seed). Each view is built for the spectator (``build_view(..., None)``)
    as it was then: face-down cards without their numbers."""
    frames = [Frame(0, None, account(setup_events),
                    build_view(game, Replay(start, setup_events), None), setup_events)]
    state = start
    for index, (move, events) in enumerate(history):
        state = states[index + 1] if states is not None else apply_move(state, move)[0]
        replay = Replay(state, setup_events, tuple(history[:index + 1]))
        frames.append(Frame(move.turn, move.player, account(events),
                            build_view(game, replay, None), events))
    return frames


def score_data(state: State) -> Score:
    """The score as ``rebis-pbm score`` gives it (public: shelves, tokens, hand counts)."""
    return {
        "final": state.finished,
        "players": [{"player": p.player, "total": p.total, "shelves": [
            {"shelf": s.shelf, "value": s.value, "multiplier": s.multiplier, "score": s.score}
            for s in p.shelves]} for p in score_table(state)],
        "burdens": [{"player": b.player, "total": b.total} for b in burdens(state)],
        "winners": list(winners(state)) if state.finished else None,
    }


# --- the files --------------------------------------------------------------------------------

def frame_file(turn: int) -> str:
    """``turn-007.svg``: the picture after ``turn`` (``turn-000.svg``: the deal)."""
    return f"turn-{turn:03d}.svg"


def write_site(out_dir: PathLike, game: PublicGame, lang: str | None = None) -> list[str]:
    """Write the page (``index.html``), the picture of the table as it stands (``table.svg``)
    and one picture after each move into ``out_dir`` (created if missing; its parent must
    exist), in ``lang`` (default English; ``verify``'s report stays English, as the referee's
    command output does). Returns the names of the files written, the page first."""
    from rebis_pbm.present.svg import render_svg
    make_folder(out_dir, what="the site folder")
    files = {NOW: render_svg(game.now, lang=lang)}
    for frame in game.frames:
        files[frame_file(frame.turn)] = render_svg(frame.view, lang=lang)
    page = render_page(game, lang)
    written = [PAGE, *files]
    for name, text in files.items():
        write_atomic(os.path.join(out_dir, name), text, mode=0o644, durable=False)
    write_atomic(os.path.join(out_dir, PAGE), page, mode=0o644, durable=False)  # last: complete
    return written


def write_join_site(out_dir: PathLike, game: JoinGame, lang: str | None = None) -> list[str]:
    """Write the page of a join phase (``index.html``: :func:`render_join_page`) into
    ``out_dir`` (created if missing; its parent must exist), in ``lang``; the pictures of an
    earlier run are left alone (there are none before the deal). Returns ``[PAGE]``."""
    make_folder(out_dir, what="the site folder")
    write_atomic(os.path.join(out_dir, PAGE), render_join_page(game, lang), mode=0o644,
                 durable=False)
    return [PAGE]


def render_join_page(game: JoinGame, lang: str | None = None) -> str:
    """The page of a fair deal's join phase as HTML text in ``lang`` (default English): who
    joined, whom the deal waits for, the deadline if any, the seed's commitment and
    ``verify``'s verdict on the record. Every text from the game is escaped."""
    e = html.escape
    _ = gettext_for(lang)
    title = e(_("Rebis game {game}").format(game=game.game))
    joined = [p for p in game.players if p not in game.waiting]
    none = _("nobody yet")
    out = ["<!DOCTYPE html>", f'<html lang="{lang or "en"}">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{title}</title>", f"<style>{STYLE}</style>", "</head>",
           "<body>", f"<h1>{title}</h1>",
           "<p>" + e(_("Players in seat order: {players}.").format(
               players=", ".join(game.players))) + "</p>",
           "<p>" + e(_("The cards are not dealt yet: each player sends a join, and the deal "
                       "mixes their entropy with the referee's seed, so that nobody alone "
                       "chooses the deck.")) + "</p>",
           "<h2>" + e(_("Joins")) + "</h2>", "<ul>"]
    if game.round == 1:  # rebis-pbm/5: docs/shuffle.md, "Two rounds"
        out += ["<li>" + e(_("Round 1 of 2: each player sends a commitment to a join text of "
                             "their own; the join texts come in round 2.")) + "</li>",
                "<li>" + e(_("Sent their commitment: {players}.").format(
                    players=", ".join(joined) or none)) + "</li>"]
    else:
        if game.round == 2:
            out.append("<li>" + e(_("Round 2 of 2: every commitment is in; each player sends "
                                    "the join text they committed to.")) + "</li>")
        out.append("<li>" + e(_("Joined: {players}.").format(players=", ".join(joined) or none))
                   + "</li>")
    out.append("<li>" + e(_("The deal waits for: {players}.").format(
        players=", ".join(game.waiting) or none)) + "</li>")
    if game.deadline is not None:
        out.append("<li>" + e(_("Deadline for the joins: {deadline} (UTC).").format(
            deadline=game.deadline)) + "</li>")
    if game.abandoned:
        out.append("<li>" + e(_("The referee ended the game before the deal.")) + "</li>")
    out.append("</ul>")
    out.append("<h2>" + e(_("The seed and {command}")).format(
        command="<code>rebis-pbm verify</code>") + "</h2>")
    out.append("<p>" + e(_("The referee's seed was fixed before any join: the record holds only "
                           "its SHA-256, {commitment}.")).format(
        commitment=f"<code>{e(game.seed_sha256)}</code>") + "</p>")
    verdict = (f'<span class="ok">{e(_("verified"))}</span>' if game.verified else
               f'<span class="failed">{e(_("FAILED"))}</span>')
    out.append("<p>" + e(_("Verdict of {command} on the record: {verdict}")).format(
        command="<code>rebis-pbm verify</code>", verdict=verdict) + "</p>")
    out.append(f"<pre>{e(game.verify_text.rstrip())}</pre>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


STYLE = """
body { font-family: "DejaVu Sans", Verdana, Arial, sans-serif; margin: 0 auto; max-width: 1000px;
       padding: 1em; background: #f6f4ee; color: #1d2a22; line-height: 1.4; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #1d5a3c; padding-bottom: 0.1em; }
img.table { width: 100%; height: auto; border-radius: 8px; }
table.score { border-collapse: collapse; } table.score td, table.score th {
  border: 1px solid #b9c7bd; padding: 0.25em 0.6em; text-align: right; }
table.score td:nth-child(-n+2), table.score th:nth-child(-n+2) { text-align: left; }
pre { background: #fff; border: 1px solid #b9c7bd; padding: 0.6em; white-space: pre-wrap; }
ol.moves { padding-left: 1.2em; } ol.moves li { margin: 0.3em 0; }
summary { cursor: pointer; } .ok { color: #1d6b3a; font-weight: bold; }
.failed { color: #b3261e; font-weight: bold; } .muted { color: #55635a; }
"""


def render_page(game: PublicGame, lang: str | None = None) -> str:
    """The page as HTML text in ``lang`` (default English); every text from the game is
    escaped (``html.escape``)."""
    e = html.escape
    _ = gettext_for(lang)
    now, score = game.now, game.score
    players = ", ".join(e(p["name"]) for p in now["players"])
    standing_words = standing(now["phase"], now["turn"], now.get("to_move"),
                              now.get("abandoned", False), lang)
    title = e(_("Rebis game {game}").format(game=game.game))
    table, score_words, moves = _("The table"), _("Score"), _("Moves")
    heads = (_("Player"), _("Shelves"), _("Score"), _("Burden (R12)"))
    ok, failed = _("verified"), _("FAILED")
    until = _(" until the seed was revealed") if game.seed else ""
    out = ["<!DOCTYPE html>", f'<html lang="{lang or "en"}">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{title}</title>", f"<style>{STYLE}</style>", "</head>",
           "<body>", f"<h1>{title}</h1>",
           "<p>" + _("Players in seat order: {players}.").format(players=players)
           + f" {e(standing_words)}</p>",
           '<p class="muted">' + e(_(
               "What a spectator may know: every card played face up, how many cards each hand "
               "holds, the tokens, every move except the card of a closing play. The referee "
               "builds this page from the game record; it shows no hidden card{until}.").format(
                   until=until)) + "</p>",
           f"<h2>{e(table)}</h2>",
           f'<img class="table" src="{NOW}" alt="' + e(_(
               "The table {when}: every player's shelves, tokens and hand sizes, the supply and "
               "the deck.").format(when=moment(now, lang))) + '">']
    out += [f"<h2>{e(score_words)}</h2>",
            "<p>" + e(_("{which} (R13: each shelf\u2019s value times its multiplier):").format(
                which=_("Final score") if score["final"] else _("Score so far"))) + "</p>",
            '<table class="score"><tr>' + "".join(f"<th>{e(h)}</th>" for h in heads) + "</tr>"]
    burden = {b["player"]: b["total"] for b in score["burdens"]}
    for p in score["players"]:
        shelves = "; ".join(f"{s['value']}\u00d7{s['multiplier']}={s['score']}"
                            for s in p["shelves"])
        out.append(f"<tr><td>{e(p['player'])}</td><td>{e(shelves)}</td><td>{p['total']}</td>"
                   f"<td>{burden.get(p['player'], '')}</td></tr>")
    out.append("</table>")
    if score["winners"]:
        won = winners_line([e(w) for w in score["winners"]], lang)
        out.append(f"<p><strong>{won}</strong></p>")
    out.append("<h2>" + e(_("The seed and {command}")).format(
        command="<code>rebis-pbm verify</code>") + "</h2>")
    if game.seed is not None:
        # A rebis-pbm/2 secret is SALT:SEED (32 hex digits, a colon): the seed, then its salt.
        salt, colon, seed = game.seed.partition(":")
        if not (colon and len(salt) == 32 and all(c in "0123456789abcdef" for c in salt)):
            seed, salt = game.seed, ""
        salted = e(_(" with its salt {salt}")).format(salt=f"<code>{e(salt)}</code>") \
            if salt else ""
        out.append("<p>" + e(_(
            "The record reveals the seed: {seed}{salted}. Its commitment, {commitment}, was "
            "written in the record when the game was created, so the deck was fixed before the "
            "first move; with the seed anyone can deal the game again and check every move."))
            .format(seed=f"<code>{e(seed)}</code>", salted=salted,
                    commitment=f"<code>{e(game.seed_sha256)}</code>") + "</p>")
    else:
        out.append("<p>" + e(_(
            "The seed stays with the referee until the game ends (the record holds only its "
            "SHA-256, {commitment}); the last move's {apply} writes it into the record, and then "
            "anyone can check every move.")).format(
                commitment=f"<code>{e(game.seed_sha256)}</code>", apply="<code>apply</code>")
            + "</p>")
    verdict = (f'<span class="ok">{e(ok)}</span>' if game.verified else
               f'<span class="failed">{e(failed)}</span>')
    out.append("<p>" + e(_("Verdict of {command} on the record: {verdict}")).format(
        command="<code>rebis-pbm verify</code>", verdict=verdict) + "</p>")
    out.append(f"<pre>{e(game.verify_text.rstrip())}</pre>")
    out += [f"<h2>{e(moves)}</h2>",
            '<p class="muted">' + e(_("Open a move to see the table after it, as a spectator "
                                      "saw it then.")) + "</p>", '<ol class="moves" start="0">']
    for frame in game.frames:
        head = _("The deal") if frame.turn == 0 else _("Turn {turn} ({player})").format(
            turn=frame.turn, player=frame.player)
        told = account(frame.events, None, lang) if lang and frame.events else frame.account
        after = _("The table after {what}").format(what=head.lower() if frame.turn == 0
                                                   else head)
        out.append(f"<li><details><summary><strong>{e(head)}</strong>: {e(told)}"
                   f"</summary>"
                   f'<img class="table" loading="lazy" src="{frame_file(frame.turn)}" '
                   f'alt="{e(after)}">'
                   f"</details></li>")
    out += ["</ol>", "</body>", "</html>"]
    return "\n".join(out) + "\n"
