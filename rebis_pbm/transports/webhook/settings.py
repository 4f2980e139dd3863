"""Where a game's webhook URLs are kept: the referee's file beside the record (docs/league.md).

A webhook URL is a secret of the referee (whoever holds a Discord or Slack webhook URL can post
to the channel; a Matrix URL carries an access token), so it never goes into the record, a view
or anything published: ``game.yaml``'s URLs are in ``game.notify.yaml`` beside it, mode 0600,
which ``rebis-pbm notify add`` writes (:func:`add_targets`) and nothing commits or mails. It
names its game, so a file copied beside another game's record is refused::

    # rebis-pbm notify: the referee's webhook URLs for game g1 (docs/league.md). A secret:
    # keep it out of every repository and every published folder.
    game: g1
    webhooks:
    - url: https://discord.com/api/webhooks/123/abc
      format: discord
      player: ana
    - url: https://hooks.slack.com/services/T0/B0/xyz
      format: slack

A webhook with a ``player`` hears of that player's turns; one without hears of every turn of
the game (a channel of the whole league: add it to every game of a shard at once,
``notify add DIR URL``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from rebis_pbm.errors import InputError, UsageError, one_line
from rebis_pbm.files.atomic import PathLike, read_input, write_atomic
from rebis_pbm.files.lock import locked

FORMATS = ("json", "discord", "slack", "matrix")  # the bodies a webhook takes (payloads.py)
NOTIFY_SUFFIX = ".notify.yaml"  # game.yaml -> game.notify.yaml
_COMMENT = ("# rebis-pbm notify: the referee's webhook URLs for game {game} (docs/league.md). "
            "A secret:\n# keep it out of every repository and every published folder.\n")
URL_MAX = 2000  # characters of a webhook URL (no URL a service gives is longer)


class Target(NamedTuple):
    """One webhook: the ``url`` posted to (http or https), the ``fmt`` of its body (one of
    :data:`FORMATS`) and the ``player`` whose turns it hears of (None: every turn)."""

    url: str
    fmt: str = "json"
    player: str | None = None


def notify_path(game: PathLike) -> str:
    """``game.yaml`` -> ``game.notify.yaml`` beside it: the file of the game's webhook URLs.

    >>> notify_path("league/g1/game.yaml")
    'league/g1/game.notify.yaml'
    """
    path = os.fspath(game)
    stem = path[:-5] if path.endswith(".yaml") else path
    return stem + NOTIFY_SUFFIX


def check_url(url: str) -> str:
    """``url`` when it is a webhook URL rebis-pbm posts to: http or https, with a host, one
    line of at most :data:`URL_MAX` characters.

    Raises:
        UsageError: anything else (the sentence never repeats the URL: it may hold a token).
    """
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not host \
            or len(url) > URL_MAX or not url.isprintable() or " " in url:
        raise UsageError("a webhook URL must be one http:// or https:// URL with a host, as the "
                         "chat service gives it (optionally after discord:, slack:, matrix: or "
                         "json:)", "TARGET")
    return url


def parse_target(text: str, fmt: str = "json") -> Target:
    """A target as the command line writes it: ``NAME=URL`` (that player's turns) or ``URL``
    (every turn), the URL optionally after ``discord:``, ``slack:``, ``matrix:`` or ``json:``,
    which chooses its body; else ``fmt``.

    >>> parse_target("ana=discord:https://discord.com/api/webhooks/1/x")
    Target(url='https://discord.com/api/webhooks/1/x', fmt='discord', player='ana')
    >>> parse_target("https://example.org/hook?a=b", "slack")
    Target(url='https://example.org/hook?a=b', fmt='slack', player=None)

    Raises:
        UsageError: no URL, or not one rebis-pbm posts to (:func:`check_url`), or an unknown
            format.
    """
    if fmt not in FORMATS:
        raise UsageError(f"{fmt!r} is not a webhook format: write one of {', '.join(FORMATS)}",
                         "--format")
    from rebis_pbm.app import name_value
    player: str | None = None
    before = text.split("=", 1)[0]
    if "=" in text and ":" not in before and "/" not in before:  # a URL's '=' is after ':'
        player, text = name_value(text, "TARGET", "NAME=URL (a webhook URL)",
                                  "ana=https://discord.com/api/webhooks/...")
    prefix, colon, after = text.partition(":")
    if colon and prefix in FORMATS:
        fmt, text = prefix, after
    return Target(check_url(text.strip()), fmt, player)


def read_targets(game: PathLike, game_id: str | None = None) -> tuple[Target, ...]:
    """The webhooks of the game whose record is ``game`` (its ``game.notify.yaml``); () when
    the file does not exist. ``game_id``: the record's game id, which the file must name.

    Raises:
        InputError: the file cannot be read, is not such a file, or names another game (exit 2).
    """
    from rebis_pbm.formats.yaml_reader import load_yaml
    path = notify_path(game)
    if not os.path.lexists(path):
        return ()
    data, source = read_input(path, kind="config")
    doc = load_yaml(data, source=source, kind="config").data

    def bad(why: str) -> InputError:
        return InputError(f"this is not a file of webhook URLs as `rebis-pbm notify add` writes "
                          f"it: {why}", source=source)

    if not isinstance(doc, dict) or not isinstance(doc.get("game"), str) \
            or not isinstance(doc.get("webhooks"), list) or set(doc) - {"game", "webhooks"}:
        raise bad("it holds a mapping with game and webhooks")
    if game_id is not None and doc["game"] != game_id:
        raise InputError(one_line(f"this file is for game {doc['game']}, not game {game_id} "
                                  f"beside it; move it to its own game"), source=source)
    targets = []
    for item in doc["webhooks"]:
        if not isinstance(item, dict) or set(item) - {"url", "format", "player"} \
                or not isinstance(item.get("url"), str) or item.get("format", "json") \
                not in FORMATS or not isinstance(item.get("player", ""), str):
            raise bad("each webhook is a mapping of url, format and, for one player, player")
        try:
            url = check_url(item["url"])
        except UsageError:
            raise bad("a url is not an http:// or https:// URL") from None
        targets.append(Target(url, item.get("format", "json"), item.get("player")))
    return tuple(targets)


def write_targets(game: PathLike, game_id: str, targets: Sequence[Target]) -> None:
    """Write the game's webhooks to ``game.notify.yaml`` (mode 0600); with none, remove it."""
    from rebis_pbm.formats.yaml_writer import dump_yaml
    path = notify_path(game)
    if not targets:
        if os.path.lexists(path):
            os.unlink(path)
        return
    items = [{"url": t.url, "format": t.fmt, **({"player": t.player} if t.player else {})}
             for t in targets]
    text = _COMMENT.format(game=game_id) + dump_yaml({"game": game_id, "webhooks": items})
    write_atomic(path, text, mode=0o600)


def add_targets(game: PathLike, players: Sequence[str], game_id: str,
                targets: Iterable[Target]) -> tuple[Target, ...]:
    """Add ``targets`` to the game's webhooks (``players``: the game's, in seat order; a
    target already there is kept once, a player's earlier URL of the same format is replaced
    by the new one). Returns the webhooks now kept.

    Raises:
        UsageError: a target names a player not in the game (``TARGET``).
        as :func:`read_targets`.
    """
    with locked(notify_path(game)):
        kept = list(read_targets(game, game_id))
        for target in targets:
            if target.player is not None and target.player not in players:
                raise UsageError(one_line(f"{target.player} is not a player of game {game_id} "
                                          f"(players: {', '.join(players)})"), "TARGET")
            kept = [t for t in kept if t != target and not (
                target.player is not None and (t.player, t.fmt) == (target.player, target.fmt))]
            kept.append(target)
        write_targets(game, game_id, kept)
    return tuple(kept)


def remove_targets(game: PathLike, game_id: str, *, player: str | None = None,
                   url: str | None = None) -> int:
    """Remove the game's webhooks of ``player`` and/or to ``url`` (neither: all of them);
    returns how many were removed.

    Raises:
        as :func:`read_targets`.
    """
    with locked(notify_path(game)):
        kept = read_targets(game, game_id)
        left = [t for t in kept if not ((player is None or t.player == player)
                                        and (url is None or t.url == url))]
        write_targets(game, game_id, left)
    return len(kept) - len(left)


def shown_url(url: str) -> str:
    """A webhook URL as it may be printed: its scheme and host, the rest (a token) hidden.

    >>> shown_url("https://discord.com/api/webhooks/123/secret-token")
    'https://discord.com/...'
    """
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/..."
