"""Sentences that the shells can translate: an English template and its parameters.

The engine speaks English only (it stays pure: no catalogs, no files). A sentence addressed to a
player is a :class:`Phrase`: its ``template`` is an English ``str.format`` template marked with
:func:`N_` (so that ``pybabel extract`` finds it, docs/i18n: ``make catalogs``), its ``params``
fill the template's ``{fields}``. ``str(phrase)`` is the English sentence;
:func:`rebis_pbm.i18n.translate` gives it in a player's language, translating the template and
every parameter that is itself a :class:`Phrase`.

>>> str(Phrase(N_("turn {turn} is {player}'s"), {"turn": 3, "player": "bob"}))
"turn 3 is bob's"
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple


def N_(message: str) -> str:
    """Mark ``message`` for extraction into the catalogs; returns it unchanged (English)."""
    return message


class Phrase(NamedTuple):
    """An English ``str.format`` template (``{name}`` fields; ``{{`` for a brace) and the
    values of its fields: numbers, names, or other phrases (translated with it)."""

    template: str
    params: Mapping[str, object] = {}

    def __str__(self) -> str:
        return self.template.format(**{k: str(v) if isinstance(v, Phrase) else v
                                       for k, v in self.params.items()})


__all__ = ["N_", "Phrase"]
