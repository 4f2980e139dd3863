"""What a turn notice says and the bodies webhooks take: JSON, Discord, Slack, Matrix (pure).

A notice holds no hidden card by construction: its text is the public view's last line of
events (what a spectator reads of the last move, or of the deal) and a line that tells the
player to move that it is their turn (and, when the deadline nears, when it is). The body is
that text in the form the service expects (docs/league.md, "Notifications"):

- ``json`` (the default): ``{"notice", "game", "turn", "player", "deadline", "text"}``, for a
  program of the referee's own;
- ``discord``: ``{"content": text}`` (Discord's execute-webhook);
- ``slack``: ``{"text": text}`` (Slack's incoming webhook);
- ``matrix``: ``{"msgtype": "m.text", "body": text}``, an ``m.room.message`` event, put to
  the URL given with a transaction id added to its path (the Matrix client API's
  ``PUT .../send/m.room.message/{txnId}``): the same notice sent twice is one message.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NamedTuple, TypedDict

if TYPE_CHECKING:  # the view's shape, for the type checker only
    from rebis_pbm.present.shapes import View

TURN = "turn"  # a notice's kind: a turn began
DEADLINE = "deadline"  # the turn's deadline nears
DISCORD_MAX = 2000  # characters of a Discord message's content


class Notice(NamedTuple):
    """A notice to ``player``, whose turn ``turn`` of ``game`` it is: ``kind`` (:data:`TURN`
    or :data:`DEADLINE`), the turn's ``deadline`` (UTC, ISO 8601, or None) and ``last``, the
    public view's last line of events."""

    kind: str
    game: str
    turn: int
    player: str
    deadline: str | None
    last: str

    def text(self) -> str:
        """The notice in words: the public last line, then the call to the player.

        >>> Notice(TURN, "g1", 4, "bob", None, "turn 3 (ana): ana drew 1 card.").text()
        'turn 3 (ana): ana drew 1 card.\\nRebis game g1: bob, your turn (turn 4).'
        """
        call = f"Rebis game {self.game}: {self.player}, your turn (turn {self.turn})"
        if self.kind == DEADLINE:
            call += (f"; the deadline, {self.deadline} (UTC), is near: after it the referee "
                     f"may move for you")
        elif self.deadline:
            call += f"; deadline {self.deadline} (UTC)"
        return f"{self.last}\n{call}."


class JsonBody(TypedDict):
    """The ``json`` format's body."""

    notice: str
    game: str
    turn: int
    player: str
    deadline: str | None
    text: str


class Request(NamedTuple):
    """One HTTP request to make: ``method``, ``url`` and the JSON ``body`` (UTF-8)."""

    method: str
    url: str
    body: bytes


def last_line(view: View) -> str:
    """The public view's last line of events as its text tells it (``turn 7 (bob): ...`` or
    ``setup: ...``), from a public view (:func:`rebis_pbm.app.record_view` for no viewer).

    >>> last_line({"history": [{"turn": 0, "player": None, "text": "ana drew 5 cards."}]})
    'setup: ana drew 5 cards.'
    """
    history = view.get("history")
    if not isinstance(history, list) or not history:
        return "The game begins."
    entry = history[-1]
    label = "setup" if entry["turn"] == 0 else f"turn {entry['turn']} ({entry['player']})"
    return f"{label}: {entry.get('account', entry['text'])}"


def request(notice: Notice, fmt: str, url: str, txn: str) -> Request:
    """The request that posts ``notice`` to a webhook of format ``fmt`` at ``url``; ``txn``
    names this notice to this webhook (Matrix's transaction id; letters, digits, ``-``, ``_``,
    ``.``).

    >>> request(Notice(TURN, "g1", 4, "bob", None, "x"), "slack", "https://h/s", "t").body
    b'{"text": "x\\\\nRebis game g1: bob, your turn (turn 4)."}'
    >>> request(Notice(TURN, "g1", 4, "bob", None, "x"), "matrix",
    ...         "https://m/_matrix/client/v3/rooms/%21r%3Am/send/m.room.message?access_token=k",
    ...         "g1-4").url
    'https://m/_matrix/client/v3/rooms/%21r%3Am/send/m.room.message/g1-4?access_token=k'

    Raises:
        ValueError: an unknown ``fmt``.
    """
    text = notice.text()
    body: object
    if fmt == "json":
        data: JsonBody = {"notice": notice.kind, "game": notice.game, "turn": notice.turn,
                          "player": notice.player, "deadline": notice.deadline, "text": text}
        body = data
    elif fmt == "discord":
        body = {"content": text[:DISCORD_MAX]}
    elif fmt == "slack":
        body = {"text": text}
    elif fmt == "matrix":
        from urllib.parse import quote, urlsplit, urlunsplit
        parts = urlsplit(url)
        path = f"{parts.path.rstrip('/')}/{quote(txn, safe='')}"
        return Request("PUT", urlunsplit(parts._replace(path=path)), _json(
            {"msgtype": "m.text", "body": text}))
    else:
        raise ValueError(f"unknown webhook format {fmt!r}")
    return Request("POST", url, _json(body))


def _json(body: object) -> bytes:
    return json.dumps(body, ensure_ascii=False).encode("utf-8")
