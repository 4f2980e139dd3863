"""A player's join move as ``moves --player P`` offers it in a fair deal's join phase."""

from __future__ import annotations

__all__ = ["join_listing"]


def join_listing(game: str, player: str, fmt: str = "yaml", lang: str | None = None,
                 header_sha256: str | None = None) -> str:
    """``player``'s join move, with 128 bits of fresh random entropy, as a move file naming the
    game's ``header_sha256`` when given; its comments in ``lang`` (the
    player's, default English), saying they may choose their language with ``lang:`` (en, fr or
    pt)."""
    import json
    import secrets

    from rebis_pbm.present.i18n import N_, gettext_for
    entropy = secrets.token_hex(16)
    bound = {} if header_sha256 is None else {"header_sha256": header_sha256}
    if fmt == "json":
        return json.dumps([{"game": game, "player": player, **bound, "join": entropy}],
                          indent=2) + "\n"
    comments = gettext_for(lang)(N_(
        "Your join: the deal mixes your entropy with the referee's seed and the other\n"
        "players' (docs/shuffle.md). This one was drawn at random; you may write your own\n"
        "text instead. Add  key: <your ssh public key line>  to require signed moves.\n"
        "Add  lang: en, fr or pt  to be spoken to in English, French or Portuguese."))
    return ("".join(f"# {line}\n" for line in comments.splitlines())
            + f"game: {game}\nplayer: {player}\n"
            + "".join(f"header_sha256: {h}\n" for h in bound.values()) + f"join: {entropy}\n")
