"""The application layer: each use case of a referee, a player or an auditor, once.

Every shell calls only this package: the command line (:mod:`rebis_pbm.cli`), the mail transport
(:mod:`rebis_pbm.transports.mail.jobs`), the git job and the bots' command. It reads and writes
files (records, secrets, views) and raises the project's errors (:mod:`rebis_pbm.errors`), each
carrying its exit code; it never prints and never imports click. The rules are the engine's
(:mod:`rebis_pbm.engine`), the record's form and checks :mod:`rebis_pbm.record`'s, what a viewer
may know :mod:`rebis_pbm.present.views`'s.

The use cases: :func:`create_game`, :func:`submit_move` (the one way a move enters a game, for
every transport), :func:`check_move_file`, :func:`player_view`, :func:`legal_moves_listing`,
:func:`score`, :func:`verify`, :func:`reveal`, :func:`bot_move`. A program may call them as they
are (docs/api.md):

>>> import tempfile, os
>>> from rebis_pbm.app import create_game
>>> folder = tempfile.mkdtemp()
>>> game = os.path.join(folder, "game.yaml")
>>> created = create_game(game, ["ann", "ben"], seed="doctest seed", game_id="doc",
...                       insecure_seed=True)
>>> created.record.players, created.state.player_to_move
(('ann', 'ben'), 'ann')

This module is the package's façade: it re-exports the use cases, each defined in the module of
its family (one concern each; a module imports only those listed before it, never this façade):

- :mod:`rebis_pbm.app.games`: reading a game (record, seed, replay; the process's cache).
- :mod:`rebis_pbm.app.sealing`: sealing moves to the referee with age, opening them.
- :mod:`rebis_pbm.app.signing`: the referee's key, signing its witnesses, acts and refusals
  (rebis-pbm/4).
- :mod:`rebis_pbm.app.views`: each viewer's view, and writing the views folder.
- :mod:`rebis_pbm.app.options`: ``NAME=VALUE`` options and a new game's ruleset.
- :mod:`rebis_pbm.app.create`: creating a game.
- :mod:`rebis_pbm.app.moves`: a move entering a game.
- :mod:`rebis_pbm.app.reading`: reading a game for people (score, verify, reveal, site, bots).
- :mod:`rebis_pbm.app.player`: a player's own tools, from their view.
- :mod:`rebis_pbm.app.deadlines`: deadlines, missed moves, the referee's logged actions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # at run time each name is imported when first used (__getattr__ below)
    from rebis_pbm.app.create import Created, create_game
    from rebis_pbm.app.deadlines import log_action as log_action
    from rebis_pbm.app.deadlines import move_for as move_for
    from rebis_pbm.app.deadlines import tick as tick
    from rebis_pbm.app.games import KEPT_MAX as KEPT_MAX
    from rebis_pbm.app.games import Game, for_mover, open_game, read_record, require_record
    from rebis_pbm.app.games import games_kept as games_kept
    from rebis_pbm.app.moves import JoinMove as JoinMove
    from rebis_pbm.app.moves import (
        Submitted,
        already_applied,
        check_move_file,
        check_sender,
        mover_of,
        read_move,
        submit_move,
    )
    from rebis_pbm.app.moves import check_signature as check_signature
    from rebis_pbm.app.moves import swapped_arguments as swapped_arguments
    from rebis_pbm.app.options import name_value as name_value
    from rebis_pbm.app.options import ruleset_from
    from rebis_pbm.app.player import check_against_view, legal_moves_from_view, read_view
    from rebis_pbm.app.player import view_language as view_language
    from rebis_pbm.app.reading import (
        Revealed,
        bot_move,
        legal_moves_listing,
        public_game,
        record_paths,
        reveal,
        score,
        verify,
        verify_many,
        write_site,
    )
    from rebis_pbm.app.sealing import Sealed as Sealed
    from rebis_pbm.app.sealing import check_referee_identity as check_referee_identity
    from rebis_pbm.app.sealing import decrypt_file as decrypt_file
    from rebis_pbm.app.sealing import make_referee_identity as make_referee_identity
    from rebis_pbm.app.sealing import open_sealed_move as open_sealed_move
    from rebis_pbm.app.sealing import referee_recipient_of as referee_recipient_of
    from rebis_pbm.app.sealing import seal_move as seal_move
    from rebis_pbm.app.signing import make_referee_ssh_key as make_referee_ssh_key
    from rebis_pbm.app.signing import signed_refusal as signed_refusal
    from rebis_pbm.app.views import kept_rendering as kept_rendering
    from rebis_pbm.app.views import kept_view as kept_view
    from rebis_pbm.app.views import picture as picture
    from rebis_pbm.app.views import player_view, write_encrypted_views, write_views
    from rebis_pbm.app.views import public_game_state as public_game_state
    from rebis_pbm.app.views import record_view as record_view
    from rebis_pbm.app.views import registered_view_keys as registered_view_keys
    from rebis_pbm.app.views import rendered_view as rendered_view
    from rebis_pbm.app.views import stand_in_reason as stand_in_reason
    from rebis_pbm.app.views import stand_ins as stand_ins
    from rebis_pbm.files.names import ENCRYPTED as ENCRYPTED
    from rebis_pbm.files.names import default_views_dir, move_file_name
    from rebis_pbm.record import secret_path

# Where each name of the façade lives: a command imports only the modules it uses, so that
# `view` does not pay for `new` or `tick` (start-up, docs/performance.md).
_HOME = {
    "Created": "rebis_pbm.app.create",
    "create_game": "rebis_pbm.app.create",
    "log_action": "rebis_pbm.app.deadlines",
    "move_for": "rebis_pbm.app.deadlines",
    "tick": "rebis_pbm.app.deadlines",
    "KEPT_MAX": "rebis_pbm.app.games",
    "Game": "rebis_pbm.app.games",
    "for_mover": "rebis_pbm.app.games",
    "open_game": "rebis_pbm.app.games",
    "read_record": "rebis_pbm.app.games",
    "require_record": "rebis_pbm.app.games",
    "games_kept": "rebis_pbm.app.games",
    "JoinMove": "rebis_pbm.app.moves",
    "Submitted": "rebis_pbm.app.moves",
    "already_applied": "rebis_pbm.app.moves",
    "check_move_file": "rebis_pbm.app.moves",
    "check_sender": "rebis_pbm.app.moves",
    "mover_of": "rebis_pbm.app.moves",
    "read_move": "rebis_pbm.app.moves",
    "submit_move": "rebis_pbm.app.moves",
    "check_signature": "rebis_pbm.app.moves",
    "swapped_arguments": "rebis_pbm.app.moves",
    "name_value": "rebis_pbm.app.options",
    "ruleset_from": "rebis_pbm.app.options",
    "check_against_view": "rebis_pbm.app.player",
    "legal_moves_from_view": "rebis_pbm.app.player",
    "read_view": "rebis_pbm.app.player",
    "view_language": "rebis_pbm.app.player",
    "Revealed": "rebis_pbm.app.reading",
    "bot_move": "rebis_pbm.app.reading",
    "legal_moves_listing": "rebis_pbm.app.reading",
    "public_game": "rebis_pbm.app.reading",
    "record_paths": "rebis_pbm.app.reading",
    "reveal": "rebis_pbm.app.reading",
    "score": "rebis_pbm.app.reading",
    "verify": "rebis_pbm.app.reading",
    "verify_many": "rebis_pbm.app.reading",
    "write_site": "rebis_pbm.app.reading",
    "Sealed": "rebis_pbm.app.sealing",
    "check_referee_identity": "rebis_pbm.app.sealing",
    "decrypt_file": "rebis_pbm.app.sealing",
    "make_referee_identity": "rebis_pbm.app.sealing",
    "open_sealed_move": "rebis_pbm.app.sealing",
    "referee_recipient_of": "rebis_pbm.app.sealing",
    "seal_move": "rebis_pbm.app.sealing",
    "make_referee_ssh_key": "rebis_pbm.app.signing",
    "signed_refusal": "rebis_pbm.app.signing",
    "kept_rendering": "rebis_pbm.app.views",
    "kept_view": "rebis_pbm.app.views",
    "picture": "rebis_pbm.app.views",
    "player_view": "rebis_pbm.app.views",
    "write_encrypted_views": "rebis_pbm.app.views",
    "write_views": "rebis_pbm.app.views",
    "public_game_state": "rebis_pbm.app.views",
    "record_view": "rebis_pbm.app.views",
    "registered_view_keys": "rebis_pbm.app.views",
    "rendered_view": "rebis_pbm.app.views",
    "stand_in_reason": "rebis_pbm.app.views",
    "stand_ins": "rebis_pbm.app.views",
    "ENCRYPTED": "rebis_pbm.files.names",
    "default_views_dir": "rebis_pbm.files.names",
    "move_file_name": "rebis_pbm.files.names",
    "secret_path": "rebis_pbm.record",
}


def __getattr__(name: str) -> object:
    """The façade's name ``name``, imported from its module on first use (PEP 562)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'rebis_pbm.app' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


# The public API (docs/api.md). The names imported ``as`` themselves above are reached through
# the façade too, outside it: use cases and helpers that the command line, the transports and
# the tests call by these names (the alias exports them for mypy).
__all__ = [
    "Created",
    "Game",
    "Revealed",
    "Submitted",
    "already_applied",
    "bot_move",
    "check_against_view",
    "check_move_file",
    "check_sender",
    "create_game",
    "default_views_dir",
    "for_mover",
    "legal_moves_from_view",
    "legal_moves_listing",
    "move_file_name",
    "mover_of",
    "open_game",
    "player_view",
    "public_game",
    "read_move",
    "read_record",
    "read_view",
    "record_paths",
    "require_record",
    "reveal",
    "ruleset_from",
    "score",
    "secret_path",
    "submit_move",
    "verify",
    "verify_many",
    "write_encrypted_views",
    "write_site",
    "write_views",
]
