"""Sentences that the shells can translate: an English template and its parameters.

The engine speaks English only (it stays pure: no catalogs, no files). A sentence addressed to a
player is a :class:`Phrase`: its ``template`` is an English ``str.format`` template marked with
:func:`N_` (so that ``pybabel extract`` finds it, docs/i18n: ``make catalogs``), its ``params``
fill the template's ``{fields}``. ``str(phrase)`` is the English sentence;
:func:`rebis_pbm.present.i18n.translate` gives it in a player's language, translating the template
and
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


class Named(str):
    """Words that name something in a sentence (``"the attachment m.yaml"``, ``"the message's
    text"``): a ``str``, the English words, wherever a plain name is expected (a file's source
    in an error), that also carries them as a :class:`Phrase` (``phrase``), so that a sentence
    with it as a parameter is translated whole (:func:`rebis_pbm.present.i18n.translate`).

    >>> source = Named(Phrase(N_("the attachment {name}"), {"name": "m.yaml"}))
    >>> source, source.phrase.params["name"]
    ('the attachment m.yaml', 'm.yaml')
    """

    phrase: Phrase

    def __new__(cls, phrase: Phrase) -> Named:
        named = super().__new__(cls, str(phrase))
        named.phrase = phrase
        return named


__all__ = ["N_", "Named", "Phrase"]
