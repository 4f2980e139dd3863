"""Each player's language: French, Portuguese or English (docs/views.md, "Languages").

What is addressed to a player (their text view, the account of each move, their move template's
comments, their mails, the reason a move of theirs was refused) is written in their language;
YAML and JSON views stay English, keys and values alike (they are data), and so does the
referee's own command output.

The translations are gettext catalogs managed with Babel (``make catalogs``: extract, update,
compile), shipped in the package as ``rebis_pbm/locale/LANG/LC_MESSAGES/rebis_pbm.mo`` and read
with the standard library's :mod:`gettext` alone, imported (and a catalog read, once per process)
only when a language other than English is asked for: English readers pay nothing.

The game's own words are those of its French and Portuguese descriptions (docs/glossary.md):
étagère active / prateleira ativa, deck Bibliothèque / baralho da Biblioteca, jetons de mélange
/ fichas de mistura, poussière dorée / pó dourado, jeton doré / ficha dourada, jeton rouge /
ficha vermelha.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from rebis_pbm.engine.phrases import N_, Named, Phrase
from rebis_pbm.errors import UsageError

if TYPE_CHECKING:
    from gettext import NullTranslations

DOMAIN = "rebis_pbm"
ENGLISH = "en"
LANGUAGES = ("en", "fr", "pt")  # every language a player may choose (``new --lang``, ``lang:``)
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "locale")



class _English:
    """English, the language of the source: each message as it is (what
    ``gettext.NullTranslations`` does, without importing gettext for it)."""

    @staticmethod
    def gettext(message: str) -> str:
        return message

    @staticmethod
    def ngettext(singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


_ENGLISH = _English()
_loaded: dict[str, NullTranslations] = {}


def check_language(code: str, given: str | None = None) -> str:
    """``code`` in lower case (as records keep it) if it is a supported language, in any case:
    the one check of a language given to rebis-pbm (every ``--lang``, and the API's ``lang``).

    Raises:
        UsageError: option ``--lang``; one sentence naming the supported languages, after
            ``given`` when given (how the command line said it, e.g. ``--lang ann=xx``).

    >>> check_language("fr"), check_language("PT")
    ('fr', 'pt')
    """
    if code.lower() not in LANGUAGES:
        said = (f"{code!r} is not a language rebis-pbm speaks; use one of "
                f"{', '.join(LANGUAGES)} (English, French, Portuguese)")
        raise UsageError(said if given is None else f"{given}: {said}", "--lang")
    return code.lower()


def translation(lang: str | None) -> NullTranslations | _English:
    """The catalog of ``lang`` (``en``, ``fr``, ``pt``): a ``gettext.GNUTranslations``; for
    None and ``en``, English, with no catalog read. Cached per language.

    Raises:
        UsageError: ``lang`` is not a supported language (:func:`check_language`).
    """
    if not lang or lang == ENGLISH:
        return _ENGLISH
    found = _loaded.get(lang)
    if found is None:
        check_language(lang)
        import gettext

        with open(os.path.join(LOCALE_DIR, lang, "LC_MESSAGES", f"{DOMAIN}.mo"), "rb") as f:
            found = _loaded[lang] = gettext.GNUTranslations(f)
    return found


def gettext_for(lang: str | None) -> Callable[[str], str]:
    """``translation(lang).gettext``: the ``_`` of the functions that write in ``lang``."""
    return translation(lang).gettext


def in_every_language(message: str) -> tuple[str, ...]:
    """``message`` (a msgid) as each language of :data:`LANGUAGES` says it, English first."""
    return tuple(gettext_for(code)(message) for code in LANGUAGES)


def ngettext_for(lang: str | None) -> Callable[[str, str, int], str]:
    """``translation(lang).ngettext``: singular and plural by count."""
    return translation(lang).ngettext


def translate(text: Phrase | str, lang: str | None) -> str:
    """``text`` in ``lang``: a :class:`~rebis_pbm.engine.phrases.Phrase` has its template and
    every parameter that is a phrase (or :class:`~rebis_pbm.engine.phrases.Named` words, such
    as a mail's "the attachment X") translated, then filled in; a plain ``str`` is returned as
    it is (a sentence with no catalog entry stays English)."""
    if not isinstance(text, Phrase):
        return text
    _ = gettext_for(lang)
    return _(text.template).format(**{k: _param(v, lang) for k, v in text.params.items()})


def _param(value: object, lang: str | None) -> object:
    """A phrase's parameter in ``lang``: a phrase, or words that carry one
    (:class:`~rebis_pbm.engine.phrases.Named`), translated; anything else as it is."""
    if isinstance(value, Named):
        value = value.phrase
    return translate(value, lang) if isinstance(value, Phrase) else value


def refusal(exc: BaseException, lang: str | None) -> str:
    """The sentence of a refused move (:class:`~rebis_pbm.errors.Refused`) for its mover, in
    ``lang``: translated when the refusal carries a phrase (the rules' refusals, and the
    referee's own that name one); else ``str(exc)``, which for a language other than English
    is quoted in a sentence of that language (:data:`UNTRANSLATED`: the move file's YAML and
    schema errors, whose detail names the file's own fields)."""
    phrase = getattr(exc, "phrase", None)
    if phrase is not None:
        return translate(phrase, lang)
    if lang is None or lang == ENGLISH:
        return str(exc)
    # A sentence with no translation (the move file's YAML or schema errors, which quote the
    # file's own fields and values): said in the mover's language, its detail in English.
    return gettext_for(lang)(UNTRANSLATED).format(details=str(exc))


UNTRANSLATED = N_("Your move was not accepted; the reason, in English: {details}")


__all__ = ["LANGUAGES", "N_", "Named", "Phrase", "check_language", "gettext_for", "ngettext_for",
           "refusal", "translate", "translation"]
