"""A league's table for people and programs: text, JSON data and an HTML page (docs/league.md).

Holds the table's types, :class:`Standings` and its lines, which the use case
:func:`rebis_pbm.app.league.standings` fills (nothing here reads a record), and renders them:
:func:`render_text` for a terminal, :func:`as_data` for ``--format json``, :func:`render_page`
for ``--html OUT``, in the style of the game pages of ``site`` (:data:`rebis_pbm.present.site.
STYLE`). Every text from a record is escaped in the page.
"""

from __future__ import annotations

import html
from fractions import Fraction
from typing import NamedTuple, TypedDict

LEAGUE_FORMAT = "rebis-pbm/league/1"  # the JSON document's "league" field: its shape's version

FINISHED = "finished"  # a game's state words in the table (and its JSON)
ABANDONED = "abandoned"
PLAYING = "in progress"
JOINING = "waiting for joins"


class Standing(NamedTuple):
    """One player's line of the table (the rules: :mod:`rebis_pbm.app.league`)."""

    player: str
    games: int = 0
    finished: int = 0
    wins: int = 0
    shared_wins: int = 0
    points: Fraction = Fraction(0)
    score: int = 0
    missed_turns: int = 0
    stand_ins: int = 0


class GameLine(NamedTuple):
    """One counted game: its record's ``path``, ``game`` id, ``players`` in seat order,
    ``state`` (:data:`FINISHED`, :data:`ABANDONED`, :data:`PLAYING`, :data:`JOINING`), the
    ``turn`` it awaits (0 in the join phase), ``to_move`` (a game in progress: the player whose
    turn it is; else None), ``waiting`` (the join phase: whose join the deal waits for),
    ``deadline`` (UTC, ISO 8601, of the current turn; None without deadlines or once over),
    ``winners`` (finished: in seat order; else empty), ``scores`` (player -> score as the
    public record gives it: final once finished), ``stand_ins`` (player -> the moves the
    referee made for them in this game) and ``missed`` (player -> the turns of theirs the
    referee played because they missed the deadline), players with none left out of both."""

    path: str
    game: str
    players: tuple[str, ...]
    state: str
    turn: int
    to_move: str | None
    waiting: tuple[str, ...]
    deadline: str | None
    winners: tuple[str, ...]
    scores: dict[str, int]
    stand_ins: dict[str, int]
    missed: dict[str, int]


class NotCounted(NamedTuple):
    """A record left out of the table: its ``path``, its ``game`` id when it could be read,
    and ``reason``, one line (``verify``'s first problem, or why it is not counted)."""

    path: str
    game: str | None
    reason: str


class Standings(NamedTuple):
    """The table of a folder of games: ``players`` ranked, the counted ``games`` (in the order
    of :func:`rebis_pbm.app.record_paths`) and the records ``not_counted``."""

    players: list[Standing]
    games: list[GameLine]
    not_counted: list[NotCounted]

    def in_progress(self) -> list[GameLine]:
        """The counted games still played (or waiting for joins)."""
        return [g for g in self.games if g.state in (PLAYING, JOINING)]


RULES = ("A win is 1 point, shared equally among a game's winners; score is the sum of final "
         "scores (R13). Only finished games give points and score; only records that pass "
         "verify count.")


def points_text(points: Fraction) -> str:
    """Points for people: ``2``, ``1 1/2``, ``1/3`` (exact; never a rounded decimal).

    >>> points_text(Fraction(3, 2)), points_text(Fraction(2)), points_text(Fraction(1, 3))
    ('1 1/2', '2', '1/3')
    """
    whole, part = divmod(points, 1)
    if not part:
        return str(int(whole))
    return f"{int(whole)} {part}" if whole else str(part)


class StandingData(TypedDict):
    """A player's line in JSON (``points``: the exact fraction as text, ``"3/2"``)."""

    rank: int
    player: str
    games: int
    finished: int
    wins: int
    shared_wins: int
    points: str
    score: int
    missed_turns: int
    stand_ins: int


class GameData(TypedDict):
    """A counted game in JSON."""

    file: str
    game: str
    players: list[str]
    state: str
    turn: int
    to_move: str | None
    waiting: list[str]
    deadline: str | None
    winners: list[str]
    scores: dict[str, int]
    stand_ins: dict[str, int]
    missed_turns: dict[str, int]


class NotCountedData(TypedDict):
    """A record left out in JSON."""

    file: str
    game: str | None
    reason: str


class LeagueData(TypedDict):
    """The JSON document of ``league --format json`` (docs/league.md)."""

    league: str
    rules: str
    standings: list[StandingData]
    in_progress: list[GameData]
    games: list[GameData]
    not_counted: list[NotCountedData]


def _game_data(game: GameLine) -> GameData:
    return {"file": game.path, "game": game.game, "players": list(game.players),
            "state": game.state, "turn": game.turn, "to_move": game.to_move,
            "waiting": list(game.waiting), "deadline": game.deadline,
            "winners": list(game.winners), "scores": dict(game.scores),
            "stand_ins": dict(game.stand_ins), "missed_turns": dict(game.missed)}


def as_data(table: Standings) -> LeagueData:
    """The table as JSON data: the standings ranked (``rank`` 1 first; equal lines share a
    rank), the games in progress, every counted game, the records not counted."""
    ranks = _ranks(table.players)
    return {
        "league": LEAGUE_FORMAT,
        "rules": RULES,
        "standings": [{"rank": r, "player": s.player, "games": s.games, "finished": s.finished,
                       "wins": s.wins, "shared_wins": s.shared_wins, "points": str(s.points),
                       "score": s.score, "missed_turns": s.missed_turns,
                       "stand_ins": s.stand_ins} for r, s in zip(ranks, table.players,
                                                                  strict=True)],
        "in_progress": [_game_data(g) for g in table.in_progress()],
        "games": [_game_data(g) for g in table.games],
        "not_counted": [{"file": n.path, "game": n.game, "reason": n.reason}
                        for n in table.not_counted],
    }


def _ranks(players: list[Standing]) -> list[int]:
    """1, 2, 2, 4: a line equal to the one above it (points, wins, score) shares its rank."""
    ranks: list[int] = []
    for i, line in enumerate(players):
        above = players[i - 1] if i else None
        same = above is not None and (above.points, above.wins, above.score) == \
            (line.points, line.wins, line.score)
        ranks.append(ranks[-1] if same else i + 1)
    return ranks


HEADINGS = ("#", "player", "games", "finished", "wins", "shared", "points", "score", "missed",
            "stand-ins")


def _rows(table: Standings) -> list[tuple[str, ...]]:
    return [(str(r), s.player, str(s.games), str(s.finished), str(s.wins), str(s.shared_wins),
             points_text(s.points), str(s.score), str(s.missed_turns), str(s.stand_ins))
            for r, s in zip(_ranks(table.players), table.players, strict=True)]


def whose_turn(game: GameLine) -> str:
    """Where a game in progress stands, in words: ``turn 7: bob to move (deadline ...)``, or
    whose joins the deal waits for; a finished game's winners; an abandoned game's turn."""
    from rebis_pbm.present.wording import winners_line
    if game.state == JOINING:
        return f"the deal waits for joins by {', '.join(game.waiting)}"
    if game.state == FINISHED:
        scores = ", ".join(f"{p} {game.scores[p]}" for p in game.players)
        return f"{winners_line(list(game.winners))} ({scores})"
    if game.state == ABANDONED:
        return f"abandoned at turn {game.turn} (its seed was revealed)"
    deadline = f" (deadline {game.deadline})" if game.deadline else ""
    return f"turn {game.turn}: {game.to_move} to move{deadline}"


def render_text(table: Standings) -> str:
    """The table as text: the standings in aligned columns, the games in progress with whose
    turn it is, the finished and abandoned games, and the records not counted."""
    rows = [HEADINGS, *_rows(table)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADINGS))]
    counted, left = len(table.games), len(table.not_counted)
    out = [f"League of {counted} verified game{'s' * (counted != 1)}"
           + (f"; {left} record{'s' * (left != 1)} not counted" if left else "") + ".",
           RULES, ""]
    if table.players:
        for row in rows:  # names left, numbers right
            cells = [c.ljust(w) if i == 1 else c.rjust(w)
                     for i, (c, w) in enumerate(zip(row, widths, strict=True))]
            out.append("  ".join(cells).rstrip())
    else:
        out.append("No verified game: no standings.")
    playing = table.in_progress()
    over = [g for g in table.games if g not in playing]
    for title, games in (("Games in progress", playing), ("Games over", over)):
        if games:
            out += ["", f"{title}:"]
            out += [f"  {g.game} ({g.path}): {whose_turn(g)}" for g in games]
    if table.not_counted:
        out += ["", "Not counted:"]
        out += [f"  {n.path}" + (f" (game {n.game})" if n.game else "") + f": {n.reason}"
                for n in table.not_counted]
    return "\n".join(out) + "\n"


def render_page(table: Standings, title: str = "Rebis league") -> str:
    """The table as an HTML page (no script), styled as ``site``'s game pages; every text
    from a record is escaped (``html.escape``)."""
    from rebis_pbm.present.site import STYLE
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{e(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{e(title)}</h1>", f'<p class="muted">{e(RULES)}</p>', "<h2>Standings</h2>"]
    if table.players:
        out.append('<table class="score"><tr>'
                   + "".join(f"<th>{e(h)}</th>" for h in HEADINGS) + "</tr>")
        out += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>"
                for row in _rows(table)]
        out.append("</table>")
    else:
        out.append("<p>No verified game: no standings.</p>")
    playing = table.in_progress()
    over = [g for g in table.games if g not in playing]
    for heading, games in (("Games in progress", playing), ("Games over", over)):
        if games:
            out += [f"<h2>{heading}</h2>", "<ul>"]
            out += [f"<li><strong>{e(g.game)}</strong>: {e(whose_turn(g))}</li>" for g in games]
            out.append("</ul>")
    if table.not_counted:
        out += ["<h2>Not counted</h2>",
                '<p class="failed">These records fail <code>rebis-pbm verify</code> (or repeat '
                "a game counted above); they count nowhere.</p>", "<ul>"]
        out += [f"<li>{e(n.game or n.path)}: {e(n.reason)}</li>" for n in table.not_counted]
        out.append("</ul>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
