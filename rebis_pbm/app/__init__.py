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
- :mod:`rebis_pbm.app.views`: each viewer's view, and writing the views folder.
- :mod:`rebis_pbm.app.options`: ``NAME=VALUE`` options and a new game's ruleset.
- :mod:`rebis_pbm.app.create`: creating a game.
- :mod:`rebis_pbm.app.moves`: a move entering a game.
- :mod:`rebis_pbm.app.reading`: reading a game for people (score, verify, reveal, site, bots).
- :mod:`rebis_pbm.app.player`: a player's own tools, from their view.
- :mod:`rebis_pbm.app.deadlines`: deadlines, missed moves, the referee's logged actions.
"""

from __future__ import annotations

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
