"""Views: what one player, or a spectator, may know of a game (docs/views.md).

A view is built from the replayed state and history, cut down to the viewer's information set:
their own hand and draws, everything face up, hand sizes, the face-down cards they placed
themselves, the supply and reserves, and the public history. Never another player's hand, the deck
order, a face-down card the viewer did not place (the cards dealt face down at setup are hidden from
everyone, owner included, R5), or the seed. Once the record reveals the seed (docs/audit.md),
anyone can compute every card, and views show every face-down card.
"""

from __future__ import annotations

import json
from typing import Any

from .engine import events as ev
from .engine import burdens, information_set, legal_moves, score_table, winners
from .engine.cards import DEALT, GOLD, GOLDEN_DUST, NEGATIVE, POSITIVE, RED
from .engine.state import FINISHED, PLAY, RED_TOKEN, State
from .record import Replay
from .yamlio import dump_yaml

VIEW_FORMAT = "rebis-pbm/view/2"  # 2: the ruleset in force (a player's tools need it), the
# record's witness, and the join phase's view
VIEW_FORMATS = ("rebis-pbm/view/1", VIEW_FORMAT)  # what a player's tools recognise
PUBLIC = "public"  # the spectator view's name; no player may take it
RECENT_MOVES = 4   # moves shown in a view's history: at least one round of a 4-player game

_TOKEN_WORDS = {GOLDEN_DUST: "golden dust", GOLD: "gold", RED: "red"}
_END_WORDS = {ev.DECK_EMPTY: "the deck is empty", ev.TOKENS_EXHAUSTED:
              "no golden dust and no gold token is left in the supply"}


def a_card(number: int) -> str:
    """"a 7", "an 8", "an 11": a card's number with its article, for sentences.

    >>> a_card(7), a_card(8), a_card(11), a_card(18), a_card(80)
    ('a 7', 'an 8', 'an 11', 'an 18', 'an 80')
    """
    spoken_with_vowel = number in (8, 11, 18) or 80 <= number <= 89
    return f"{'an' if spoken_with_vowel else 'a'} {number}"


def counted(count: int, word: str) -> str:
    """"1 card", "2 cards": a count with its noun (regular plural).

    >>> counted(1, "card"), counted(0, "move"), counted(3, "move")
    ('1 card', '0 moves', '3 moves')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


def _who(player: str, viewer: str | None) -> str:
    return "you" if player == viewer else player


def _whose(player: str, viewer: str | None) -> str:
    return "your" if player == viewer else f"{player}'s"


def describe(event, viewer: str | None) -> str | None:
    """One event as a sentence for ``viewer`` (a player's name; None for a spectator).

    Hidden cards appear only to who may see them: a draw shows its card to the drawer alone
    ("you drew a 7", "bob drew 1 card"); the card that closes a shelf is shown to its closer alone.
    Returns None for an event with nothing to say.
    """
    if isinstance(event, ev.Dealt):
        return (f"each player was dealt 1 face-down card, starting their shelf 1, and "
                f"{event.hand_size} cards in hand")
    if isinstance(event, ev.TurnBegan):
        return f"turn {event.turn} began: {_who(event.player, viewer)} to move"
    if isinstance(event, ev.Drew):
        why = {ev.TURN_DRAW: "", ev.NEGATIVE_DRAW: " for playing a - card",
               ev.CLOSED_DRAW: " because a shelf was closed"}[event.cause]
        if event.card is None:
            return f"{_who(event.player, viewer)} drew nothing{why}: the deck is empty"
        if event.player == viewer:
            return f"you drew {a_card(event.card)}{why}"
        return f"{event.player} drew 1 card{why}"
    if isinstance(event, ev.DustPlaced):
        return (f"{_who(event.player, viewer)} placed {event.count} golden dust from the reserve "
                f"on {_whose(event.player, viewer)} shelf {event.shelf}")
    if isinstance(event, ev.Played):
        cards = " and ".join(str(c) for c in event.cards)
        sign = "-" if event.sign == NEGATIVE else "+"
        return (f"{_who(event.player, viewer)} played {cards} with sign {sign} on "
                f"{_whose(event.owner, viewer)} shelf {event.shelf}")
    if isinstance(event, ev.Closed):
        card = f"a face-down {event.card}" if event.player == viewer else "a face-down card"
        return (f"{_who(event.player, viewer)} closed {_whose(event.owner, viewer)} shelf "
                f"{event.shelf} with {card}, which starts shelf {event.new_shelf}")
    if isinstance(event, ev.TokenTaken):
        if event.kind is None:
            return f"{_who(event.player, viewer)} took no token: the supply has none left"
        where = " into the reserve" if event.kind == GOLDEN_DUST else ""
        return f"{_who(event.player, viewer)} took a {_TOKEN_WORDS[event.kind]} token{where}"
    if isinstance(event, ev.TokenPlaced):
        return (f"{_who(event.player, viewer)} placed the {_TOKEN_WORDS[event.kind]} token on "
                f"{_whose(event.owner, viewer)} shelf {event.shelf}")
    if isinstance(event, ev.GameEnded):
        return f"the game ended: {_END_WORDS[event.reason]}"
    if isinstance(event, ev.RedTokenAwarded):
        return (f"{_who(event.player, viewer)} {'have' if event.player == viewer else 'has'} the "
                f"highest burden and must place the red token")
    if isinstance(event, ev.GameFinished):
        return "the score is final"
    raise TypeError(f"unknown event {event!r}")


def account(events, viewer: str | None = None) -> str:
    """A paragraph telling ``events`` to ``viewer`` (None: anyone, no hidden card named)."""
    sentences = [s for s in (describe(e, viewer) for e in events) if s]
    return "; ".join(sentences) + "." if sentences else ""


def _card(card, seat: int, viewer_seat: int | None, seats, revealed: bool = False) -> dict:
    out: dict = {}
    if card.factor:
        out["number"] = card.number
        out["sign"] = POSITIVE if card.factor > 0 else NEGATIVE
    else:
        out["face"] = "down"
        if revealed or (viewer_seat is not None and card.placed_by == viewer_seat):
            out["number"] = card.number  # the viewer placed it, or the seed is public
    if card.placed_by != DEALT:
        out["by"] = seats[card.placed_by]
    return out


def build_view(game: str, replay: Replay, viewer: str | None, *, revealed: bool = False,
               abandoned: bool = False, addresses: dict[str, str] | None = None) -> dict:
    """The view of ``viewer`` (a player's name, or None for the public spectator view).

    ``revealed``: the record reveals the seed (the game is over, or abandoned), so anyone can
    compute every card; the view then shows every face-down card's number and says so
    (``seed_revealed``). Before that, a face-down card shows its number only to the player who
    laid it, and a card dealt face down at setup to nobody (R5, R8.1).

    ``abandoned``: the seed was revealed before the end (``Record.abandoned``): nobody is to
    move any more, so the view has no ``to_move``, no draw and no move template.

    ``addresses`` (player -> e-mail address) are shown in every player's entry; pass
    ``Record.shown_addresses()``, which is empty unless the game made them public.

    Returns a dict matching ``schemas/view.schema.json``. Raises ValueError for an unknown viewer.
    """
    addresses = addresses or {}
    viewer_seat = None if viewer is None else replay.state.seat(viewer)
    # Built from the viewer's information set only: no hidden card is even within reach (once
    # the seed is revealed, every face-down card is public and the full state is shown).
    state = replay.state if revealed else information_set(replay.state, viewer_seat)
    scores = {p.player: p for p in score_table(state)}
    # R12's burden during the game: face-up - cards and hand sizes, both public.
    burden_of = {b.player: {"negative": b.negative, "hand": b.hand, "total": b.total}
                 for b in burdens(state)}
    players = []
    for seat, name in enumerate(state.players):
        shelves = []
        for number, shelf in enumerate(state.shelves[seat], start=1):
            shelves.append({
                "shelf": number,
                "active": number == len(state.shelves[seat]),
                "weight": shelf.weight,
                "value": shelf.value,
                "tokens": list(shelf.tokens),
                "score": scores[name].shelves[number - 1].score,
                "cards": [_card(c, seat, viewer_seat, state.players, revealed)
                          for c in shelf.cards],
            })
        players.append({
            "name": name,
            **({"address": addresses[name]} if name in addresses else {}),
            "seat": seat + 1,
            "hand": len(state.hands[seat]),
            "reserve": state.reserves[seat],
            "score": scores[name].total,
            "burden": burden_of[name],
            "shelves": shelves,
        })
    view: dict = {
        "view": VIEW_FORMAT,
        "game": game,
        "viewer": PUBLIC if viewer is None else viewer,
        "phase": state.phase,
        "turn": state.turn,
        "ruleset": state.ruleset.as_dict(),
    }
    if abandoned:
        view["abandoned"] = True
    elif state.phase != FINISHED:
        view["to_move"] = state.player_to_move
    if revealed:
        view["seed_revealed"] = True
    view["deck"] = state.deck_count
    view["supply"] = {"golden_dust": state.supply.golden_dust, "gold": state.supply.gold,
                      "red": state.supply.red}
    if state.phase == PLAY and not abandoned:
        warnings = end_warnings(state.deck_count, state.supply.golden_dust, state.supply.gold)
        if warnings:
            view["warnings"] = warnings
    if viewer_seat is not None:
        you: dict = {"hand": list(state.hands[viewer_seat]), "reserve": state.reserves[viewer_seat]}
        if state.phase == PLAY and state.to_move == viewer_seat and not abandoned:
            you["drawn"] = state.drawn
        view["you"] = you
    view["players"] = players
    view["history"] = _history(replay, viewer)
    if state.phase in (RED_TOKEN, FINISHED):
        view["end"] = _end(state)
    if viewer_seat is not None and state.to_move == viewer_seat and not abandoned:
        view["move_template"] = move_template(game, state)
    return view


LAST_TURN, LAST_CARD, LAST_TOKEN = "last_turn", "last_card", "last_token"


def end_warnings(deck: int, golden_dust: int, gold: int) -> list[dict]:
    """What may end the game at the end of this turn (R11), for a game in play: from the deck
    count after this turn's draw and the supply's golden dust and gold only, which everyone
    sees, so a warning never tells a hidden card.

    Returns a list of ``{"warning": code, "text": sentence}``: ``last_turn`` (the deck is
    empty: the game ends after this turn), ``last_card`` (one card left: a - card or a closed
    shelf draws it, and the game ends after this turn), ``last_token`` (one golden dust or gold
    token left in the supply: closing a shelf takes it, and the game ends after this turn).

    >>> [w["warning"] for w in end_warnings(0, 3, 1)], end_warnings(5, 0, 2)
    (['last_turn'], [])
    >>> [w["warning"] for w in end_warnings(1, 0, 1)]
    ['last_card', 'last_token']
    """
    if deck == 0:
        return [{"warning": LAST_TURN, "text": "Last turn: the deck is empty, so the game ends "
                 "after this turn (R11)."}]
    warnings = []
    if deck == 1:
        warnings.append({"warning": LAST_CARD, "text": "One card is left in the deck: if this "
                         "turn plays a - card or closes a shelf, that draw takes it and the "
                         "game ends after this turn (R11)."})
    if golden_dust + gold == 1:
        token = "golden dust" if golden_dust else "gold"
        warnings.append({"warning": LAST_TOKEN, "text": f"The last {token} token is in the "
                         f"supply: closing a shelf this turn takes it, and then no golden dust "
                         f"and no gold is left, so the game ends after this turn (R11)."})
    return warnings


def _history(replay: Replay, viewer: str | None) -> list[dict]:
    entries = []
    if len(replay.history) < RECENT_MOVES:
        entries.append({"turn": 0, "player": None,
                        "text": account(replay.setup_events, viewer)})
    for move, events in replay.history[-RECENT_MOVES:]:
        entries.append({"turn": move.turn, "player": move.player, "text": account(events, viewer)})
    return entries


def _end(state: State) -> dict:
    end: dict = {
        "reason": state.end_reason,
        "burdens": [{"player": b.player, "negative": b.negative, "hand": b.hand, "total": b.total}
                    for b in burdens(state)],
    }
    if state.phase == RED_TOKEN:
        end["red_token"] = state.player_to_move
    else:
        end["scores"] = [{"player": p.player, "total": p.total} for p in score_table(state)]
        end["winners"] = list(winners(state))
    return end


def move_template(game: str, state: State) -> str:
    """A move file for the player to move, ready to edit: a legal example with comments.

    It uses only what that player knows (their hand, public shelves, supply and reserve).
    """
    example = legal_moves(state)[0].as_dict()
    doc = {"game": game, **example}
    if state.phase == RED_TOKEN:
        notes = ("# Your last move: place the red token on any shelf in play (R12).\n"
                 "# red_token: player = the shelf's owner, shelf = its number.\n")
    else:
        notes = ("# Your move: edit this example and send it (the referee can list every legal\n"
                 "# move for you with rebis-pbm moves).\n"
                 "# golden_dust: tokens from your reserve onto your active shelf first (R6).\n"
                 "# play.cards: one number, or [n, n] for a pair on your own shelf (R7).\n"
                 "# play.shelf: whose active shelf; play.sign: positive or negative (R8).\n"
                 "# gold_token: {player, shelf} only when your card closes a shelf and the supply\n"
                 "#   has no golden dust left (R8.1).\n")
    return notes + dump_yaml(doc)


def moves_listing(game: str, state: State, fmt: str) -> str:
    """Every legal move of the player to move, each a complete move file that ``apply`` accepts.

    ``yaml``: one document per move, each after a ``---`` line; ``json``: a list of documents.
    It shows that player's hand, so it is for them alone (docs/views.md).
    """
    docs = [{"game": game, **m.as_dict()} for m in legal_moves(state)]
    if fmt == "json":
        return json.dumps(docs, indent=2) + "\n"
    if fmt == "yaml":
        return "".join("---\n" + dump_yaml(d) for d in docs)
    raise ValueError(f"unknown format {fmt!r}: use yaml or json")


def render(view: dict, fmt: str) -> str:
    """The view as ``yaml``, ``json``, ``text`` or ``svg`` (a picture of the table)."""
    if fmt == "yaml":
        return dump_yaml(view)
    if fmt == "json":
        return json.dumps(view, indent=2, ensure_ascii=False) + "\n"
    if fmt == "text":
        return render_text(view)
    if fmt == "svg":
        from .svg import render_svg  # here: drawsvg is loaded only for a picture

        return render_svg(view)
    raise ValueError(f"unknown format {fmt!r}: use text, yaml, json or svg")


def _card_text(card: dict) -> str:
    if card.get("face") == "down":
        return f"[{card['number']}]" if "number" in card else "[?]"
    return ("+" if card["sign"] == POSITIVE else "-") + str(card["number"])


def standing(phase: str, turn: int, to_move: str | None, abandoned: bool = False) -> str:
    """Where a game stands, in one sentence anyone may read (``to_move``: a player's name).

    >>> standing("play", 7, "bob")
    'The game awaits turn 7: bob to move.'
    """
    if abandoned:
        return f"The game was abandoned at turn {turn} (its seed was revealed): no more moves " \
               f"can be played."
    if phase == FINISHED:
        return "The game is over."
    if phase == RED_TOKEN:
        return f"The game has ended; {to_move} places the red token (turn {turn})."
    return f"The game awaits turn {turn}: {to_move} to move."


def join_view(game: str, players, waiting, viewer: str | None) -> dict:
    """The view of a game in its join phase (rebis-pbm/2 fair deal): nobody has cards yet.
    ``players`` in seat order, ``waiting`` the players whose join is still awaited."""
    view: dict = {"view": VIEW_FORMAT, "game": game, "viewer": PUBLIC if viewer is None else viewer,
                  "phase": "join", "players_joined": [p for p in players if p not in waiting],
                  "waiting": list(waiting)}
    if viewer is not None and viewer in waiting:
        view["move_template"] = (f"game: {game}\nplayer: {viewer}\njoin: WRITE ANY TEXT OF YOUR "
                                 f"CHOOSING\n")
    return view


def witness_line(game: str, move: int, digest: str) -> str:
    """The witness as the text view writes it (one line; :func:`rebis_pbm.trust.read_witness`
    reads it back)."""
    return f"Witness: game {game}, move {move}, chain_sha256 {digest}"


def _recipient_text(view: dict) -> list[str]:
    r = view.get("referee_recipient")
    return [f"Seal your moves to the referee's recipient {r} (rebis-pbm seal)."] if r else []


def _witness_text(view: dict) -> list[str]:
    w = view.get("witness")
    return [witness_line(w["game"], w["move"], w["chain_sha256"])] if w else []


def ruleset_text(ruleset: dict) -> str:
    """The ruleset in force (R1-R4) in one line, from a view's ``ruleset``.

    >>> ruleset_text({"deck": {str(n): 9 for n in range(1, 10)}, "zero": False, "golden_dust": 9,
    ...               "gold": 3, "red": 1, "shelf_limit": 13, "hand_size": 5,
    ...               "multiplier": "additive"})
    'Ruleset: cards 1-9, 9 of each (81 cards); tokens 9 golden dust, 3 gold, 1 red; shelf limit 13; hand 5; multiplier additive (x(1 + tokens)).'
    """
    deck = sorted((int(n), c) for n, c in ruleset["deck"].items() if c)
    numbers = [n for n, _ in deck]
    counts = {c for _, c in deck}
    total = sum(c for _, c in deck)
    if len(counts) == 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        cards = f"cards {numbers[0]}-{numbers[-1]}, {deck[0][1]} of each"
    else:
        cards = "cards " + ", ".join(f"{c} x {n}" for n, c in deck)
    if ruleset.get("zero"):
        cards += " and 9 x 0 (Rebis: Zero)"
        total += 9
    multiplier = ruleset["multiplier"]
    how = "x(1 + tokens)" if multiplier == "additive" else "x2 per token"
    return (f"Ruleset: {cards} ({counted(total, 'card')}); tokens {ruleset['golden_dust']} "
            f"golden dust, {ruleset['gold']} gold, {ruleset['red']} red; shelf limit "
            f"{ruleset['shelf_limit']}; hand {ruleset['hand_size']}; multiplier {multiplier} "
            f"({how}).")


def tokens_text(tokens: list[str]) -> str:
    """A shelf's tokens as counts.

    >>> tokens_text(["golden_dust", "gold", "golden_dust"]), tokens_text([])
    ('2 golden dust, 1 gold', 'no tokens')
    """
    return ", ".join(f"{tokens.count(kind)} {_TOKEN_WORDS[kind]}"
                     for kind in (GOLDEN_DUST, GOLD, RED) if kind in tokens) or "no tokens"


def _played_by(cards: list[dict]) -> str:
    """Who played each card of a shelf: ``+4 (bob) -3 (ana) [?] (cy)``; "" when nobody did
    (only the card dealt face down at setup)."""
    return " ".join(f"{_card_text(c)} ({c['by']})" for c in cards if "by" in c)


def _burden_text(burden: dict | None) -> str:
    if not burden:
        return ""
    return f", burden {burden['total']} (- cards {burden['negative']} + hand {burden['hand']})"


def render_text(view: dict) -> str:
    """The view as text for a person (an e-mail body, a terminal)."""
    if view["phase"] == "join":
        who = "spectator view" if view["viewer"] == PUBLIC else f"view of {view['viewer']}"
        lines = [f"Rebis game {view['game']} - {who}",
                 "The deal waits for joins: " + ", ".join(view["waiting"]) + "."]
        if view["players_joined"]:
            lines.append("Joined: " + ", ".join(view["players_joined"]) + ".")
        if "move_template" in view:
            lines += ["", "Your join (save as a file and send it; `rebis-pbm moves --player "
                      "NAME` fills in random entropy):", view["move_template"].rstrip("\n")]
        return "\n".join(lines + [""] + _recipient_text(view) + _witness_text(view)) + "\n"
    lines = []
    who = "spectator view" if view["viewer"] == PUBLIC else f"view of {view['viewer']}"
    lines.append(f"Rebis game {view['game']} - {who}")
    lines.append(standing(view["phase"], view["turn"], view.get("to_move"),
                          view.get("abandoned", False)))
    if "deadline" in view:
        lines.append(f"Deadline for {view['to_move']}'s move: {view['deadline']} (UTC); after it "
                     f"the referee may move for them.")
    for warning in view.get("warnings", ()):
        lines.append(warning["text"])
    supply = view["supply"]
    lines.append(f"Deck: {counted(view['deck'], 'card')}. Supply: {supply['golden_dust']} golden dust, "
                 f"{supply['gold']} gold, {supply['red']} red.")
    if "ruleset" in view:
        lines.append(ruleset_text(view["ruleset"]))
    you = view.get("you")
    if you:
        hand = " ".join(str(c) for c in you["hand"]) or "(empty)"
        lines.append(f"Your hand: {hand}. Your reserve: {you['reserve']} golden dust.")
        if "drawn" in you:
            drawn = "nothing (the deck is empty)" if you["drawn"] is None else a_card(you["drawn"])
            lines.append(f"This turn you drew {drawn}.")
    lines.append("")
    for player in view["players"]:
        address = f" <{player['address']}>" if "address" in player else ""
        lines.append(f"{player['name']}{address} (seat {player['seat']}): "
                     f"{counted(player['hand'], 'card')} in hand, {player['reserve']} golden dust "
                     f"in reserve, "
                     f"score {player['score']}" + _burden_text(player.get("burden")))
        for shelf in player["shelves"]:
            tag = "active" if shelf["active"] else "closed"
            cards = " ".join(_card_text(c) for c in shelf["cards"])
            tokens = tokens_text(shelf["tokens"])
            lines.append(f"  shelf {shelf['shelf']} ({tag}): {cards} | weight {shelf['weight']}, "
                         f"value {shelf['value']}, {tokens}, scores {shelf['score']}")
            played = _played_by(shelf["cards"])
            if played:  # its own line: the shelf line above keeps its cards as they were
                lines.append(f"    played by: {played}")
    lines.append("")
    lines.append("Recent events:")
    for entry in view["history"]:
        label = "setup" if entry["turn"] == 0 else f"turn {entry['turn']} ({entry['player']})"
        lines.append(f"  {label}: {entry['text']}")
    end = view.get("end")
    if end:
        lines.append("")
        lines.append(f"End of the game: {_END_WORDS[end['reason']]}.")
        lines.append("Burden (R12): " + ", ".join(
            f"{b['player']} {b['total']} (- cards {b['negative']} + hand {b['hand']})"
            for b in end["burdens"]))
        if "scores" in end:
            lines.append("Score (R13): " + ", ".join(f"{s['player']} {s['total']}"
                                                      for s in end["scores"]))
            lines.append("Winner: " + " and ".join(end["winners"]) + "."
                         if len(end["winners"]) == 1 else
                         "Shared win: " + " and ".join(end["winners"]) + ".")
    if "move_template" in view:
        lines.append("")
        lines.append("Your move (save as a file and send it):")
        lines.append(view["move_template"].rstrip("\n"))
    lines.append("")
    if view.get("seed_revealed"):
        lines.append("Cards: +n / -n face up with their sign; [n] face down (the record reveals "
                     "the seed, so every card shows).")
    elif view["viewer"] == PUBLIC:
        lines.append("Cards: +n / -n face up with their sign; [?] face down.")
    else:
        lines.append("Cards: +n / -n face up with their sign; [?] face down; [n] face down, "
                     "placed by you.")
    lines += _recipient_text(view) + _witness_text(view)
    return "\n".join(lines) + "\n"


def moment(view: dict[str, Any]) -> str:
    """When a view was made, in words: ``turn 7`` during the game, ``after turn 37 (game
    over)`` once it is over (a view's ``turn`` is the move awaited next, one past the last)."""
    if view.get("phase") == "finished":
        return f"after turn {view['turn'] - 1} (game over)"
    return f"turn {view['turn']}"
