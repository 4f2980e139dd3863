"""A player's join move as ``moves --player P`` offers it in a fair deal's join phase."""

from __future__ import annotations

__all__ = ["join_listing"]


def join_listing(game: str, player: str, fmt: str = "yaml", lang: str | None = None,
                 header_sha256: str | None = None, *, round_: int | None = None,
                 after: str | None = None, has_key: bool = False) -> str:
    """``player``'s join move as a move file naming the game's ``header_sha256`` when given;
    its comments in ``lang`` (the player's, default English), saying they may choose their
    language with ``lang:`` (en, fr or pt), and a key when ``has_key`` is false.

    One-round games (before rebis-pbm/5) get 128 bits of fresh random entropy. A rebis-pbm/5
    game (``round_`` 1 or 2) gets a template with no entropy at all: the commitment (round 1)
    or the join naming ``after`` (round 2) is written by the player's own ``rebis-pbm play`` on
    their view, which draws the entropy on their machine (docs/shuffle.md, "Two rounds")."""
    import json
    import secrets

    from rebis_pbm.present.i18n import N_, gettext_for
    from rebis_pbm.present.wording import PLAY_WRITES_IT
    _ = gettext_for(lang)
    bound = {} if header_sha256 is None else {"header_sha256": header_sha256}
    if round_ is None:
        field, value = "join", secrets.token_hex(16)
        comments = _(N_(
            "Your join: the deal mixes your entropy with the referee's seed and the other\n"
            "players' (docs/shuffle.md). This one was drawn at random; you may write your own\n"
            "text instead."))
    elif round_ == 1:
        field, value = "commitment", _(PLAY_WRITES_IT)
        comments = _(N_(
            "Your commitment, round 1 of the deal: run your own command on your view,\n"
            "  rebis-pbm play VIEW.yaml\n"
            "which draws your join text at random on your machine, keeps it in a file\n"
            "beside the move it writes, and writes this commitment to it. Send that move."))
    else:
        bound, field, value = {"after": str(after)}, "join", _(PLAY_WRITES_IT)
        comments = _(N_(
            "Your join, round 2 of the deal: every commitment is in. Run\n"
            "  rebis-pbm play VIEW.yaml\n"
            "again, in the folder where it kept your join text: it writes your join,\n"
            "which must match your commitment. Send that move."))
    if fmt == "json":
        return json.dumps([{"game": game, "player": player, **bound, field: value}],
                          indent=2) + "\n"
    if not has_key and round_ != 2:
        comments += "\n" + _(N_("Add  key: <your ssh public key line>  to require signed moves."))
    if round_ != 2:
        comments += "\n" + _(N_(
            "Add  lang: en, fr or pt  to be spoken to in English, French or Portuguese."))
    return ("".join(f"# {line}\n" for line in comments.splitlines())
            + f"game: {game}\nplayer: {player}\n"
            + "".join(f"{k}: {h}\n" for k, h in bound.items()) + f"{field}: {value}\n")
