"""A view written as YAML: ``dump_yaml``'s text, with each kept shelf's YAML written once.

A view's shelves are most of it, and a closed shelf is the same in every view of every move: the
YAML of a shelf whose entry :mod:`.kept` keeps is written once per way it is seen and reused, and
the view is joined from pieces that are, byte for byte, what ``dump_yaml`` writes for the whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from rebis_pbm.formats.yaml_writer import dump_yaml
from rebis_pbm.present import kept as kept_entries
from rebis_pbm.present.kept import KeptShelf, kept_shelf

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import View


def _items(text: str, at: str, mark: str, count: int) -> list[str] | None:
    """The ``count`` items of a block sequence that ``dump_yaml`` wrote in ``text`` after the
    lines ``at``, each starting with ``mark`` (its indentation, a dash and a space) and ending
    with its line break; None when ``text`` is not so (some scalar of theirs looks like an
    item: not cut)."""
    if not text.startswith(at):
        return None
    pieces = text[len(at) - 1:].split("\n" + mark)[1:]
    if len(pieces) != count:
        return None
    pieces[-1] = pieces[-1][:-1]  # the document's last line break: each piece gets its own
    return [mark + piece + "\n" for piece in pieces]


# What dump_yaml writes before a view's shelves, and before their cards, nested as a view nests
# them; and how each of them starts.
_SHELVES_AT, _SHELF_MARK = "players:\n- shelves:\n", "  - "
_CARDS_AT, _CARD_MARK = "players:\n- shelves:\n  - cards:\n", "    - "
# A card's YAML in a view, by its entry's items: few cards differ (a number, a sign or a face,
# who laid it). Emptied when it holds more than kept.KEPT cards.
_CARD_YAML: dict[tuple[tuple[str, object], ...], str] = {}


def _shelves_yaml(new: list[KeptShelf]) -> bool:
    """Write the YAML of the kept shelves ``new`` (``KeptShelf.yaml``), as a view writes them:
    their entries but their cards in one document, and their cards from :data:`_CARD_YAML` (the
    few not there in another). False when some entry is not as
    :func:`rebis_pbm.present.kept.shelf_view` builds them
    (nothing is kept then)."""
    global _CARD_YAML
    if any(next(reversed(cast("dict[str, object]", kept.view))) != "cards"
           or not kept.view["cards"] for kept in new):
        return False
    heads = _items(dump_yaml({"players": [{"shelves": [
        {k: v for k, v in kept.view.items() if k != "cards"} for kept in new]}]}),
        _SHELVES_AT, _SHELF_MARK, len(new))
    if heads is None:
        return False
    cards = _CARD_YAML
    if len(cards) > kept_entries.KEPT:
        cards = _CARD_YAML = {}
    rows = [[tuple(card.items()) for card in kept.view["cards"]] for kept in new]
    unknown = {key: dict(key) for row in rows for key in row if key not in cards}
    if unknown:
        texts = _items(dump_yaml({"players": [{"shelves": [{"cards": list(unknown.values())}]}]}),
                       _CARDS_AT, _CARD_MARK, len(unknown))
        if texts is None:
            return False
        cards.update(zip(unknown, texts, strict=True))
    for kept, head, row in zip(new, heads, rows, strict=True):
        kept.yaml = head + "    cards:\n" + "".join([cards[key] for key in row])
    return True


def view_yaml(view: View) -> str:
    """``dump_yaml(view)``, the same text, with the YAML of each shelf kept (:func:`kept_shelf`)
    rather than written again: a view's shelves are most of it, and a closed shelf is the same in
    every view of every move. A mapping's entries, and a block sequence's items, are written
    each on their own lines, whatever their neighbours, so the view is written in pieces: the
    entries before ``players``, each player without its shelves, its shelves, the entries after.
    A view any of whose shelves is not kept (not built by
    :func:`rebis_pbm.present.build.build_view`, or changed since) is written whole."""
    data: Mapping[str, object] = view  # read as any mapping: the caller may have changed it
    players = data.get("players")
    if type(players) is not list or not players:
        return dump_yaml(view)
    rows: list[list[KeptShelf]] = []
    for player in players:
        if type(player) is not dict or len(player) < 2 or next(reversed(player)) != "shelves":
            return dump_yaml(view)
        shelves = player["shelves"]
        if type(shelves) is not list or not shelves:
            return dump_yaml(view)
        found = [kept_shelf(shelf) for shelf in shelves]
        if None in found:
            return dump_yaml(view)
        rows.append(cast("list[KeptShelf]", found))
    new = list({id(kept): kept for row in rows for kept in row if kept.yaml is None}.values())
    if new and not _shelves_yaml(new):
        return dump_yaml(view)
    parts = []
    for player, row in zip(players, rows, strict=True):
        head = dump_yaml({"players": [{k: v for k, v in player.items() if k != "shelves"}]})
        parts.append(head[len("players:\n"):])
        parts.append("  shelves:\n")
        parts += (kept.yaml or "" for kept in row)  # each written by _shelves_yaml
    keys = list(data)
    at = keys.index("players")
    before = dump_yaml({k: data[k] for k in keys[:at]}) if at else ""
    after = dump_yaml({k: data[k] for k in keys[at + 1:]}) if at + 1 < len(keys) else ""
    if any(piece.endswith("...\n") for piece in (before, *parts)):
        return dump_yaml(view)  # a piece that ends its document: not a piece of a mapping
    return before + "players:\n" + "".join(parts) + after


