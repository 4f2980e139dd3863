"""The text view: a view told as text for a person (an e-mail body, a terminal), in their language.

From the view alone (:mod:`.build`), so the text shows exactly the viewer's information set, as
the YAML and the picture do. Its words are :mod:`.wording`'s; the lines of a kept shelf
(:mod:`.kept`) are told once per language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rebis_pbm.engine.cards import GOLD, GOLDEN_DUST, POSITIVE, RED
from rebis_pbm.present.build import PUBLIC
from rebis_pbm.present.i18n import N_, gettext_for, ngettext_for
from rebis_pbm.present.kept import kept_shelf
from rebis_pbm.present.wording import (
    TOKEN_WORDS,
    a_card,
    end_line,
    standing,
    winners_line,
    witness_line,
)
from rebis_pbm.record.wording import Gettext

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import BurdenView, CardView, RulesetView, ShelfView, View


def _card_text(card: CardView) -> str:
    """A shelf card as the text view writes it: ``+4``, ``-3``, ``[7]`` or ``[?]``."""
    if card.get("face") == "down":
        return f"[{card['number']}]" if "number" in card else "[?]"
    return ("+" if card["sign"] == POSITIVE else "-") + str(card["number"])




def _recipient_text(view: View, _: Gettext) -> list[str]:
    r = view.get("referee_recipient")
    return [_("Seal your moves to the referee's recipient {recipient} (rebis-pbm seal).").format(
        recipient=r)] if r else []


def _command_text(view: View, _: Gettext) -> list[str]:
    """Where the viewer's signed commands end (``command_point``, their own view only; issue
    27): the game's id, then the point of the history."""
    point = view.get("command_point")
    if not point:
        return []
    return [_("Your signed away and back commands end with: {end}").format(
        end=f"{view['game']} {point}")]


def _witness_text(view: View, _: Gettext) -> list[str]:
    """The witness line in the reader's words (``verify --witness`` reads it in each language,
    :data:`rebis_pbm.record.trust.WITNESS_LINE`)."""
    w = view.get("witness")
    if not w:
        return []
    # The referee's signature of the line, right under it (rebis-pbm/4; docs/views.md).
    signed = view.get("witness_signature", "").strip().splitlines()
    said = _(WITNESS)
    header = w.get("header_sha256")  # rebis-pbm/5 with a referee key: the same in every language
    acts = w.get("actions")  # rebis-pbm/6 with a referee key: likewise
    if said == WITNESS:  # English: the record's own wording
        return [witness_line(w["game"], w["move"], w["chain_sha256"], header, acts), *signed]
    return [said.format(game=w["game"], move=w["move"], digest=w["chain_sha256"])
            + ("" if header is None else f", header_sha256 {header}")
            + ("" if acts is None else f", actions {acts}"), *signed]


WITNESS = N_("Witness: game {game}, move {move}, chain_sha256 {digest}")


def ruleset_text(ruleset: RulesetView, lang: str | None = None) -> str:
    """The ruleset in force (R1-R4) in one line, from a view's ``ruleset``.

    >>> ruleset_text({"deck": {str(n): 9 for n in range(1, 10)}, "zero": False, "golden_dust": 9,
    ...               "gold": 3, "red": 1, "shelf_limit": 13, "hand_size": 5,
    ...               "multiplier": "additive"})  # doctest: +NORMALIZE_WHITESPACE
    'Ruleset: cards 1-9, 9 of each (81 cards); tokens 9 golden dust, 3 gold, 1 red; shelf limit 13;
    hand 5; multiplier additive (x(1 + tokens)).'
    """
    _, n_ = gettext_for(lang), ngettext_for(lang)
    deck = sorted((int(n), c) for n, c in ruleset["deck"].items() if c)
    numbers = [n for n, _c in deck]
    counts = {c for _n, c in deck}
    total = sum(c for _n, c in deck)
    if len(counts) == 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        cards = _("cards {low}-{high}, {count} of each").format(
            low=numbers[0], high=numbers[-1], count=deck[0][1])
    else:
        cards = _("cards {counts}").format(counts=", ".join(f"{c} x {n}" for n, c in deck))
    if ruleset.get("zero"):
        cards += _(" and 9 x 0 (Rebis: Zero)")
        total += 9
    multiplier = ruleset["multiplier"]
    how = _("x(1 + tokens)") if multiplier == "additive" else _("x2 per token")
    # The ruleset's value in the reader's words (docs/glossary.md); the YAML keeps the value.
    multiplier = _(N_("additive")) if multiplier == "additive" else _(N_("doubling")) \
        if multiplier == "doubling" else multiplier
    return _("Ruleset: {cards} ({total}); tokens {golden_dust} golden dust, {gold} gold, {red} "
             "red; shelf limit {limit}; hand {hand}; multiplier {multiplier} ({how}).").format(
                 cards=cards, total=n_("{count} card", "{count} cards", total).format(count=total),
                 golden_dust=ruleset["golden_dust"], gold=ruleset["gold"], red=ruleset["red"],
                 limit=ruleset["shelf_limit"], hand=ruleset["hand_size"], multiplier=multiplier,
                 how=how)


def tokens_text(tokens: list[str], lang: str | None = None) -> str:
    """A shelf's tokens as counts (in ``lang``, default English).

    >>> tokens_text(["golden_dust", "gold", "golden_dust"]), tokens_text([])
    ('2 golden dust, 1 gold', 'no tokens')
    """
    _ = gettext_for(lang)
    return ", ".join(_("{count} {token}").format(count=tokens.count(kind),
                                                 token=_(TOKEN_WORDS[kind]))
                     for kind in (GOLDEN_DUST, GOLD, RED) if kind in tokens) or _("no tokens")


def _played_by(cards: list[CardView]) -> str:
    """Who played each card of a shelf: ``+4 (bob) -3 (ana) [?] (cy)``; "" when nobody did
    (only the card dealt face down at setup)."""
    return " ".join(f"{_card_text(c)} ({c['by']})" for c in cards if "by" in c)


def _burden_text(burden: BurdenView | None, _: Gettext) -> str:
    if not burden:
        return ""
    return _(", burden {total} (- cards {negative} + hand {hand})").format(**burden)


def _shelf_lines(shelf: ShelfView, lang: str | None, _: Gettext) -> list[str]:
    """A shelf's lines in the text view, in ``lang`` (whose gettext is ``_``)."""
    tag = _("active") if shelf["active"] else _("closed")
    cards = " ".join(_card_text(c) for c in shelf["cards"])
    tokens = tokens_text(shelf["tokens"], lang)
    lines = [_("  shelf {shelf} ({tag}): {cards} | weight {weight}, value {value}, "
               "{tokens}, scores {score}").format(
                   shelf=shelf["shelf"], tag=tag, cards=cards, weight=shelf["weight"],
                   value=shelf["value"], tokens=tokens, score=shelf["score"])]
    played = _played_by(shelf["cards"])
    if played:  # its own line: the shelf line above keeps its cards as they were
        lines.append(_("    played by: {cards}").format(cards=played))
    return lines


def render_text(view: View, lang: str | None = None) -> str:
    """The view as text for a person (an e-mail body, a terminal), in ``lang`` (default
    English; :mod:`rebis_pbm.present.i18n`). Pass a view built in the same language
    (``build_view(..., lang=lang)``), whose history and move template are in it too.

    A shelf's lines are kept by language with its entry (:class:`rebis_pbm.present.kept.KeptShelf`):
    a closed shelf seen alike by several viewers, or in several views, is told once per language."""
    _, n_ = gettext_for(lang), ngettext_for(lang)
    who = (_("spectator view") if view["viewer"] == PUBLIC
           else _("view of {player}").format(player=view["viewer"]))
    if view["phase"] == "join":
        lines = [_("Rebis game {game} - {who}").format(game=view["game"], who=who)]
        if "round" in view:  # rebis-pbm/5: a commitment each, then a join each
            lines.append((_("The deal, round 1 of 2, waits for commitments: {players}.")
                          if view["round"] == 1 else
                          _("The deal, round 2 of 2, waits for joins: {players}.")).format(
                              players=", ".join(view["waiting"])))
        else:
            lines.append(_("The deal waits for joins: {players}.").format(
                players=", ".join(view["waiting"])))
        if view["players_joined"]:
            lines.append((_("Committed: {players}.") if view.get("round") == 1
                          else _("Joined: {players}.")).format(
                              players=", ".join(view["players_joined"])))
        if "move_template" in view and "round" in view:
            lines += ["", _("Your move (rebis-pbm play on this view writes it, with your join "
                            "text drawn at random on your machine and kept in a file beside "
                            "it; send what it writes):"), view["move_template"].rstrip("\n")]
        elif "move_template" in view:
            lines += ["", _("Your join (save it as a file, put words of your own in place of "
                            "its join text, and send it; with the game's record at hand, "
                            "`rebis-pbm moves GAME --player NAME` writes one with random "
                            "entropy):"), view["move_template"].rstrip("\n")]
        return "\n".join(lines + [""] + _recipient_text(view, _) + _command_text(view, _)
                         + _witness_text(view, _)) + "\n"
    lines = []
    lines.append(_("Rebis game {game} - {who}").format(game=view["game"], who=who))
    lines.append(standing(view["phase"], view["turn"], view.get("to_move"),
                          view.get("abandoned", False), lang, view["viewer"]))
    if "deadline" in view or "away" in view:  # in the reader's time zone (rebis-pbm/4)
        from rebis_pbm.present.times import time_lines
        lines += time_lines(view, lang)
    for warning in view.get("warnings", ()):
        lines.append(warning["text"])
    supply = view["supply"]
    lines.append(_("Deck: {cards}. Supply: {golden_dust} golden dust, {gold} gold, {red} red.")
                 .format(cards=n_("{count} card", "{count} cards", view["deck"]).format(
                     count=view["deck"]), **supply))
    if "ruleset" in view:
        lines.append(ruleset_text(view["ruleset"], lang))
    you = view.get("you")
    if you:
        hand = " ".join(str(c) for c in you["hand"]) or _("(empty)")
        lines.append(_("Your hand: {hand}. Your reserve: {reserve} golden dust.").format(
            hand=hand, reserve=you["reserve"]))
        if "drawn" in you:
            drawn = (_("nothing (the deck is empty)") if you["drawn"] is None
                     else a_card(you["drawn"], lang))
            lines.append(_("This turn you drew {card}.").format(card=drawn))
    lines.append("")
    for player in view["players"]:
        address = f" <{player['address']}>" if "address" in player else ""
        lines.append(_("{name}{address} (seat {seat}): {hand} in hand, {reserve} golden dust in "
                       "reserve, score {score}").format(
                           name=player["name"], address=address, seat=player["seat"],
                           hand=n_("{count} card", "{count} cards", player["hand"]).format(
                               count=player["hand"]),
                           reserve=player["reserve"], score=player["score"])
                     + _burden_text(player.get("burden"), _))
        for shelf in player["shelves"]:
            kept = kept_shelf(shelf)
            if kept is None:
                lines += _shelf_lines(shelf, lang, _)
                continue
            told = kept.lines.get(lang)  # a shelf seen alike is told alike, in each language
            if told is None:
                told = kept.lines[lang] = _shelf_lines(kept.view, lang, _)
            lines += told
    lines.append("")
    lines.append(_("Recent events:"))
    for entry in view["history"]:
        label = (_("setup") if entry["turn"] == 0 else
                 _("turn {turn} ({player})").format(turn=entry["turn"], player=entry["player"]))
        lines.append(_("  {label}: {text}").format(label=label,
                                                    text=entry.get("account", entry["text"])))
    end = view.get("end")
    if end:
        lines.append("")
        lines.append(end_line(end["reason"], lang))
        lines.append(_("Burden (R12): {burdens}").format(burdens=", ".join(
            _("{player} {total} (- cards {negative} + hand {hand})").format(**b)
            for b in end["burdens"])))
        if "scores" in end:
            lines.append(_("Score (R13): {scores}").format(scores=", ".join(
                f"{s['player']} {s['total']}" for s in end["scores"])))
            lines.append(winners_line(end["winners"], lang) + ".")
    if "move_template" in view:
        lines.append("")
        lines.append(_("Your move (save as a file and send it):"))
        lines.append(view["move_template"].rstrip("\n"))
    lines.append("")
    if view.get("seed_revealed"):
        lines.append(_("Cards: +n / -n face up with their sign; [n] face down (the record "
                       "reveals the seed, so every card shows)."))
    elif view["viewer"] == PUBLIC:
        lines.append(_("Cards: +n / -n face up with their sign; [?] face down."))
    else:
        lines.append(_("Cards: +n / -n face up with their sign; [?] face down; [n] face down, "
                       "placed by you."))
    lines += _recipient_text(view, _) + _command_text(view, _) + _witness_text(view, _)
    return "\n".join(lines) + "\n"


