"""A view rendered in a format: YAML, JSON, text or a picture (``view --format``).

The one dispatch over the formats, above each of them (:mod:`.yaml_view`, :mod:`.text`,
:mod:`.svg`), so that none of them imports another's.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rebis_pbm.present.text import render_text
from rebis_pbm.present.yaml_view import view_yaml

if TYPE_CHECKING:
    from rebis_pbm.present.shapes import View


def render(view: View, fmt: str, lang: str | None = None) -> str:
    """The view as ``yaml``, ``json``, ``text`` or ``svg`` (a picture of the table); ``lang``
    is the language of the text (default English; build the view in the same language).

    The YAML and the text of a shelf whose entry :func:`rebis_pbm.present.build.build_view`
    built, unchanged since, are written once per way it is seen and language, and kept for the
    next views (:mod:`.kept`): the same text as written afresh.

    Raises:
        ValueError: ``fmt`` is none of these.
    """
    if fmt == "yaml":
        return view_yaml(view)
    if fmt == "json":
        return json.dumps(view, indent=2, ensure_ascii=False) + "\n"
    if fmt == "text":
        return render_text(view, lang)
    if fmt == "svg":
        from rebis_pbm.present.svg import render_svg  # here: only a picture needs it

        return render_svg(view, lang=lang)
    raise ValueError(f"unknown format {fmt!r}: use text, yaml, json or svg")
