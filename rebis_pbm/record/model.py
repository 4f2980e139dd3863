"""The game record in memory: its header, its entries and its digests' links (docs/formats.md).

The record holds the header (format, game id, resolved ruleset, players in seat order, the seed's
commitment, the header digest), the accepted moves in order, each with its keyed state digest and
its chain digest, and a status written for people. Everything else is replayed from the seed (R5)
by the engine (:class:`Replay`).

The record is public: it holds nothing a player may not know. A play that closes a shelf lays its
card face down (R8.1), so the record keeps that card sealed
(:func:`~rebis_pbm.record.digests.seal_card`): only the seed opens the seal (docs/views.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from rebis_pbm.engine import Move, Ruleset, State, score_table, winners
from rebis_pbm.engine import events as ev
from rebis_pbm.engine.state import FINISHED, PLAY, RED_TOKEN
from rebis_pbm.errors import CorruptRecord, SeedError
from rebis_pbm.record.digests import (
    chain_digest,
    commitment,
    header_digest,
    insecure_salt,
    record_digest,
    record_document,
    salted,
    seal_card,
    state_digest,
    unsalted,
)
from rebis_pbm.record.entries import Document as Document
from rebis_pbm.record.entries import Join as Join
from rebis_pbm.record.entries import Link as Link
from rebis_pbm.record.entries import MovesRead, reveals, two_round_waiting
from rebis_pbm.record.entries import Proof as Proof
from rebis_pbm.record.entries import SealedMove as SealedMove
from rebis_pbm.record.entries import entry_from_dict as entry_from_dict
from rebis_pbm.record.versions import ABSENCE_FIELDS, BEFORE_V4, BEFORE_V5, check_absence_fields

FORMAT = "rebis-pbm/6"  # the format new games are written in
# every format this version reads, verifies and appends to
FORMATS = ("rebis-pbm/1", "rebis-pbm/2", "rebis-pbm/3", "rebis-pbm/4", "rebis-pbm/5",
           "rebis-pbm/6")

REFEREE_DEAL = "referee"  # a rebis-pbm/2 deal from the referee's seed alone (new --referee-deal)
FAIR_DEAL = "players"  # from the referee's seed and every player's join entropy (docs/shuffle.md)


# The docstring's long s (RUF002: "did you mean f?") is meant: it is the example of a folding.
def ascii_lower(text: str) -> str:
    """``text`` with A-Z lowered and nothing else changed: addresses compare by ASCII case only,
    so that no Unicode folding (``ſ`` -> ``s``, the Kelvin sign -> ``k``) makes two addresses
    one."""  # noqa: RUF002
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

# rebis-pbm/2 adds: the header's ``created``, ``deadline`` and ``missed`` (the missed-move
# policy), each move entry's ``at`` (when it was applied) and, for a move the referee made for a
# player, ``by: referee`` with its ``reason`` and ``bot``; and the referee's logged ``actions``
# (docs/formats.md). None of it is read by a replay: time never changes a game.
V1 = "rebis-pbm/1"
# rebis-pbm/3 adds ``langs`` (player -> language, for the players who chose one other than
# English: where and how a player is spoken to, like ``addresses``; not covered by a digest).
BEFORE_V3 = ("rebis-pbm/1", "rebis-pbm/2")
ASCII_NAMES = ("rebis-pbm/1", "rebis-pbm/2", "rebis-pbm/3")  # rebis-pbm/4 (names): accents
HEADER_EXTRA = ("created", "deadline", "missed")  # v2 header fields the header digest covers
STAMP_FIELDS = ("at", "by", "reason", "bot")       # v2 move-entry fields beside the move
# rebis-pbm/3 adds the game's encryption settings (a game in a public repository, docs/git.md):
# ``encrypt_views`` (every private view is written only encrypted to its player's key) and
# ``referee_recipient`` (the age recipient players seal their moves to). Header fields, covered
# by the header digest; an older record never carries them.
ENCRYPTION_FIELDS = ("encrypt_views", "referee_recipient")
# rebis-pbm/3 also adds ``record_hmac``: the keyed record digest (digests.record_digest), which
# binds the header, the chains' heads and the fields no digest covered (addresses, langs,
# public_addresses) to the seed; every write recomputes it, every read with the seed checks it.
# rebis-pbm/4 (issue 27) adds, for the history a move answers: each move file's ``after`` (the
# chain digest its player's view witnessed), required of a player with a key and checked by
# ``verify`` in the signed file, so a signature cannot be carried into another history; and a
# referee deal shuffled from the whole ``SALT:SEED`` secret (:meth:`Record.deal_seed`).
# rebis-pbm/4 also adds the referee's key (issue 27 item 2; docs/formats.md, docs/audit.md):
# ``referee_key`` (header, covered by the header digest: new --referee-key); ``witness_signature``
# (top level: the referee's signature over the witness of the record's last entry);
# ``referee_signature`` on each move entry the referee made (by: referee) and on each logged
# action. Signatures sit beside the chain digests, not under them: what each one signs names the
# chain digest (rebis_pbm.record.acts).
# BEFORE_V4 and BEFORE_V5 are defined once, in record/versions.py
REFEREE_FIELDS = ("referee_key",)  # v4 header fields the header digest covers
REFEREE_SIGNATURE = "referee_signature"  # a stand-in move entry's and a logged action's


def check_seed(record: Record, seed: str) -> None:
    """Raises SeedError unless ``seed`` (for rebis-pbm/2, the ``SALT:SEED`` secret) matches
    ``record.seed_sha256``; CorruptRecord (via :func:`check_relabelled`) when it matches as a
    record of another format."""
    if commitment(record.format, seed) != record.seed_sha256:
        check_relabelled(record, seed, "the record")
        raise SeedError(f"the seed given does not match game {record.game}'s commitment "
                        f"(seed_sha256); it belongs to another game")


def check_relabelled(record: Record, seed: str, where: str) -> None:
    """The downgrade attack: ``seed`` does not match ``record``'s commitment as its format says,
    but does as another format's (each salted format commits in its own domain,
    :data:`rebis_pbm.record.digests.COMMITMENT_DOMAINS`): the record's ``format`` was rewritten,
    e.g. rebis-pbm/3 relabelled rebis-pbm/2 to shed ``record_hmac``.

    Raises:
        CorruptRecord: so it is (exit 3); nothing else is raised.
    """
    for other in FORMATS:
        if other != record.format and commitment(other, seed) == record.seed_sha256:
            raise CorruptRecord(f"{where} of game {record.game} says format {record.format}, but "
                                f"its seed commits to it as a {other} record: the record was "
                                f"rewritten (its format changed) and is refused; restore it "
                                f"from the repository's history or a player's copy")


@dataclass(frozen=True, repr=False)  # repr below: the generated one would print every move
class Record:
    """A game record in memory.

    Attributes:
        game: the game id.
        ruleset: the resolved ruleset (R1-R4).
        players: names in seat order (R5).
        seed_sha256: the seed's commitment (see :func:`seed_commitment`).
        moves: the accepted moves, in order, as the public record shows them: a play that closed a
            shelf is a :class:`SealedMove` (see :meth:`with_move`).
        links: each move's digests, in the same order (as read from the file, or as computed by
            :meth:`with_move`).
        header_sha256: the header digest, the chain's first link; computed when not given (a new
            game), kept as read otherwise (so that an edited header shows).
        seed: the seed once revealed (game over, or abandoned by ``reveal``); None before.
        written_status: the ``status`` as read from a file (checked by :func:`read_game`), None
            for a record built in memory.
        addresses: player name -> e-mail address, for the players who gave one (docs/mail.md);
            the mail transport writes to them and ``apply --as`` checks a move's sender with
            them. Players without one play by files.
        public_addresses: whether views show the addresses (``new --public-addresses``).
        langs: rebis-pbm/3 only: player name -> language code (``fr``, ``pt``) for the players
            spoken to in a language other than English (``new --lang``, a join's ``lang:``,
            ``replace-player --lang``); :meth:`lang` gives any player's.
        record_hmac: rebis-pbm/3 only: the keyed record digest as read (None for a record built
            in memory, or an older format): :meth:`keyed` computes it, and
            :func:`~rebis_pbm.record.codec.dump_record` writes it.
        format: the record's format (one of :data:`FORMATS`), fixed when the game was created:
            the header digest covers it, so a game keeps its format to the end.
        deal: rebis-pbm/2 only: :data:`REFEREE_DEAL` or :data:`FAIR_DEAL` (None for rebis-pbm/1,
            whose deal is the referee's).
        keys: rebis-pbm/2 only: player -> OpenSSH public key lines (``TYPE BASE64``) registered
            with ``new --key``; the header digest covers them. A join move may register one more.
        joins: rebis-pbm/2 fair deal: the join entries so far, in the order they came.
        proofs: rebis-pbm/2: per move, its :class:`Proof` (None for a player without a key);
            empty means none at all.
        referee_signatures: rebis-pbm/4: per move, the referee's armoured signature of a move
            it made (``by: referee``; :func:`~rebis_pbm.record.acts.move_act_text`), else None.
        witness_signature: rebis-pbm/4: the referee's armoured signature of the witness of the
            record's last entry (:func:`~rebis_pbm.record.acts.witness_text`), or None.
        moves_read: the moves' text as read, which the writer copies (:class:`MovesRead`).

    For rebis-pbm/2 the ``seed`` (and the secret passed around as ``seed``) is the
    ``SALT:SEED`` text of :func:`~rebis_pbm.record.digests.salted`.
    """

    game: str
    ruleset: Ruleset
    players: tuple[str, ...]
    seed_sha256: str
    moves: tuple[Move | SealedMove, ...] = ()
    links: tuple[Link, ...] = ()
    header_sha256: str | None = None
    seed: str | None = None
    addresses: dict[str, str] = field(default_factory=dict, hash=False)
    public_addresses: bool = False
    format: str = FORMAT
    written_status: Document | None = field(default=None, compare=False, hash=False)
    deal: str | None = None
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict, hash=False)
    joins: tuple[Join, ...] = ()
    proofs: tuple[Proof | None, ...] = ()
    header_extra: Document = field(default_factory=dict, hash=False)
    stamps: tuple[Document, ...] = ()
    actions: tuple[Document, ...] = ()
    langs: dict[str, str] = field(default_factory=dict, hash=False)
    record_hmac: str | None = field(default=None, compare=False, hash=False)
    time_zones: dict[str, str] = field(default_factory=dict, hash=False)  # rebis-pbm/4 (absences)
    referee_signatures: tuple[str | None, ...] = ()  # rebis-pbm/4 (the referee's key)
    witness_signature: str | None = field(default=None, compare=False, hash=False)
    moves_read: MovesRead | None = field(default=None, compare=False, hash=False)  # issue 31

    def __repr__(self) -> str:
        """Which game and how far: ``Record(game='g-1', format='rebis-pbm/3', players=('ann',
        'bo'), moves=12)``. A record's every field would be the whole game, digests included."""
        return (f"Record(game={self.game!r}, format={self.format!r}, players={self.players!r}, "
                f"moves={len(self.moves)})")

    def __post_init__(self) -> None:
        if self.format != V1 and self.deal is None:
            object.__setattr__(self, "deal", REFEREE_DEAL)
        if len(self.proofs) < len(self.moves):
            object.__setattr__(self, "proofs",
                               self.proofs + (None,) * (len(self.moves) - len(self.proofs)))
        if not self.stamps and self.moves:
            object.__setattr__(self, "stamps", ({},) * len(self.moves))
        if len(self.referee_signatures) < len(self.moves):
            object.__setattr__(self, "referee_signatures", self.referee_signatures
                               + (None,) * (len(self.moves) - len(self.referee_signatures)))
        if self.format in BEFORE_V4 and (
                "referee_key" in self.header_extra or self.witness_signature is not None
                or any(self.referee_signatures)
                or any(REFEREE_SIGNATURE in a for a in self.actions)):
            raise ValueError(f"a {self.format} record has no referee_key or referee's "
                             f"signatures: the referee's key came with rebis-pbm/4, so this "
                             f"record is damaged (edited by hand)")
        if self.format in BEFORE_V3 and any(f in self.header_extra for f in ENCRYPTION_FIELDS):
            raise ValueError(f"a {self.format} record has no encrypt_views or referee_recipient: "
                             f"a game's encryption settings came with rebis-pbm/3, so this "
                             f"record is damaged (edited by hand)")
        if self.format == V1 and (self.header_extra or self.actions or any(self.stamps)
                                  or self.keys or self.joins or any(self.proofs)):
            raise ValueError("a rebis-pbm/1 record has no deadline, times, referee's moves, "
                             "actions, keys, joins or signatures: those fields came with "
                             "rebis-pbm/2")
        if self.format in ASCII_NAMES and not all(name.isascii() for name in self.players):
            raise ValueError(f"a {self.format} record has ASCII names only (accents: rebis-pbm/4)")
        if self.langs and self.format in BEFORE_V3:
            raise ValueError(f"a {self.format} record has no langs: the players' languages came "
                             f"with rebis-pbm/3")
        check_absence_fields(self.format, self.players, self.time_zones,  # rebis-pbm/4
                             self.header_extra, self.actions)
        if self.record_hmac is not None and self.format in BEFORE_V3:
            raise ValueError(f"a {self.format} record has no record_hmac: the keyed record "
                             f"digest came with rebis-pbm/3")
        if self.header_sha256 is None:
            object.__setattr__(self, "header_sha256", self.computed_header_sha256())
        if len(self.links) != len(self.moves):
            raise ValueError(f"a record needs one link per move ({len(self.moves)} moves, "
                             f"{len(self.links)} links)")

    def computed_header_sha256(self) -> str:
        """The header digest of the header as it now is (compare with :attr:`header_sha256`)."""
        return header_digest(self.format, self.game, self.ruleset, self.players,
                             self.seed_sha256, self._header_extra())

    def computed_record_hmac(self, seed: str) -> str:
        """``record_hmac`` of the record as it now is (rebis-pbm/3), keyed by ``seed`` (the
        game's ``SALT:SEED`` secret): compare with :attr:`record_hmac`.

        Raises:
            ValueError: as :func:`~rebis_pbm.record.digests.canonical`.
        """
        shown = self._address_fields()
        return record_digest(seed, record_document(
            str(self.header_sha256), self.last_digest(),
            str(self.actions[-1].get("chain_sha256")) if self.actions else None,
            shown.get("addresses", {}), self.public_addresses, shown.get("langs", {}),
            shown.get("time_zones")))

    def keyed(self, seed: str) -> Record:
        """The record with its ``record_hmac`` computed with ``seed`` (rebis-pbm/3; an older
        record is returned as it is): what every write does last."""
        if self.format in BEFORE_V3:
            return self
        return replace(self, record_hmac=self.computed_record_hmac(seed))

    def _header_extra(self) -> Document:
        # Every rebis-pbm/2 header field the header digest covers beyond the five of
        # rebis-pbm/1 (whose header digest is unchanged): created, deadline, missed (when
        # present), the deal kind, and the keys registered with new --key (when any).
        if self.format == V1:
            return {}
        return {**self.header_extra, **self._trust_fields()}

    def _trust_fields(self) -> Document:
        fields: Document = {"deal": self.deal}
        if self.keys:
            fields["keys"] = {p: list(self.keys[p]) for p in self.players if p in self.keys}
        return fields

    def prev_digest(self, index: int) -> str:
        """The ``prev`` of move ``index`` (0-based): the previous chain digest, or the last
        join's (rebis-pbm/2 fair deal), or the header's."""
        if index:
            return self.links[index - 1].chain_sha256
        return self.joins[-1].chain_sha256 if self.joins else self._first_link()

    def join_prev(self, index: int) -> str:
        """The ``prev`` of join ``index`` (0-based)."""
        return self.joins[index - 1].chain_sha256 if index else self._first_link()

    def _first_link(self) -> str:
        """The header digest, the chain's first link (computed when the record is made)."""
        assert self.header_sha256 is not None  # set by __post_init__
        return self.header_sha256

    def last_digest(self) -> str:
        """The chain digest after the record's last entry (the header's when it has none): what
        a witness holds (docs/audit.md, "Witnesses")."""
        return self.prev_digest(len(self.moves))

    def joining(self) -> bool:
        """Whether the game is in its join phase: a fair deal waiting for some player's join
        (rebis-pbm/5: or commitment)."""
        return self.deal == FAIR_DEAL and len(reveals(self.joins)) < len(self.players)

    @property
    def two_rounds(self) -> bool:
        """Whether this game's fair deal takes a commitment, then a join (rebis-pbm/5)."""
        return self.deal == FAIR_DEAL and self.format not in BEFORE_V5

    def join_round(self) -> int:
        """The join phase's round: 1 (commitments) or 2 (joins) in rebis-pbm/5; else 1."""
        return two_round_waiting(self.players, self.joins)[0] if self.two_rounds else 1

    def waiting_for(self) -> tuple[str, ...]:
        """The players whose join (rebis-pbm/5: commitment in round 1) the fair deal still
        waits for, in seat order."""
        if self.two_rounds:
            return two_round_waiting(self.players, self.joins)[1]
        joined = {j.player for j in self.joins}
        return tuple(p for p in self.players if p not in joined) if self.deal == FAIR_DEAL else ()

    @property
    def pins_history(self) -> bool:
        """Whether this game's move files name the history they answer (``after``, the chain
        digest their player's view witnessed): rebis-pbm/4 on (issue 27)."""
        return self.format not in BEFORE_V4

    @property
    def views_encrypted(self) -> bool:
        """Whether every private view of this game is written only encrypted to its player
        (``new --encrypt-views``, rebis-pbm/3): a game in a public repository."""
        return self.header_extra.get("encrypt_views") is True

    @property
    def referee_recipient(self) -> str | None:
        """The referee's age recipient (``age1...``) players seal their moves to
        (``new --referee-recipient``, rebis-pbm/3), or None."""
        found = self.header_extra.get("referee_recipient")
        return None if found is None else str(found)

    @property
    def referee_key(self) -> str | None:
        """The referee's SSH public key (``TYPE BASE64``) that signs its witnesses and acts
        (``new --referee-key``, rebis-pbm/4), or None."""
        found = self.header_extra.get("referee_key")
        return None if found is None else str(found)

    def with_referee_signatures(self, moves: dict[int, str], actions: dict[int, str],
                                witness: str | None) -> Record:
        """The record with the referee's signatures filled in (rebis-pbm/4): ``moves`` and
        ``actions`` map an index (0-based) to the signature of that move entry or logged
        action; ``witness`` signs the witness of the last entry. No digest changes."""
        signatures = tuple(moves.get(i, s) for i, s in enumerate(self.referee_signatures))
        acts = tuple({**a, REFEREE_SIGNATURE: actions[i]} if i in actions else a
                     for i, a in enumerate(self.actions))
        return replace(self, referee_signatures=signatures, actions=acts,
                       witness_signature=witness)

    def player_keys(self, player: str, before: int | None = None) -> tuple[str, ...]:
        """The public keys ``player`` registered (``new --key`` or their join); () for none.
        A ``replace_player`` action with a ``key`` replaces them from its place on: ``before``
        (a number of moves) gives the keys in force for the move after that many moves
        (default: now, for the next move)."""
        keys = tuple(self.keys.get(player, ()))
        for join in self.joins:
            if join.player == player and join.key is not None:
                keys += (join.key,)
        for action in self.actions:
            if (action.get("action") == "replace_player" and action.get("player") == player
                    and "key" in action and (before is None or action["after"] <= before)):
                keys = (str(action["key"]),)
        return keys

    def join_keys(self, player: str) -> tuple[str, ...]:
        """The keys a signature on ``player``'s join may be made with: those the header
        registered (``new --key``) and those a ``replace_player`` action logged before the first
        move. Only the header's prove the join is the player's (an action's may have come after
        the join: the record does not order them; ``verify`` names such a join's player)."""
        keys = tuple(self.keys.get(player, ()))
        for action in self.actions:
            if (action.get("action") == "replace_player" and action.get("player") == player
                    and "key" in action and action.get("after") == 0):
                keys += (str(action["key"]),)
        return keys

    def deal_seed(self, secret: str) -> str:
        """The text the deck is shuffled from (docs/shuffle.md): the seed for rebis-pbm/1; the
        seed part of ``SALT:SEED`` for a rebis-pbm/2 and /3 referee deal; for a rebis-pbm/4
        referee deal the whole ``SALT:SEED`` (the seed alone when the salt is the seed's
        :func:`~rebis_pbm.record.digests.insecure_salt`: ``new --insecure-seed``); the fair
        deal's combination of the whole ``SALT:SEED`` and every player's entropy in seat order
        (:func:`fair_deal_seed`) otherwise: with the random salt in it, a player cannot test
        guesses of a weak seed against their own hand.

        Raises:
            ValueError: a rebis-pbm/2 secret that is not ``SALT:SEED``, or a fair deal whose
                joins are not all in.
        """
        if self.format == V1:
            return secret
        seed, salt = unsalted(secret)
        if self.deal != FAIR_DEAL:
            # rebis-pbm/4 (issue 27): the salt is shuffled in, so a seed guessed is not a deal
            # guessed; a game of --insecure-seed (its salt derived from the seed) deals as before.
            if self.format in BEFORE_V4 or salt == insecure_salt(seed):
                return seed
            return secret
        entropy = {p: j.entropy for p, j in reveals(self.joins).items()}
        if set(entropy) != set(self.players):
            raise ValueError("the deal waits for " + ", ".join(self.waiting_for()))
        from rebis_pbm.engine.shuffle import fair_deal_seed

        return fair_deal_seed(secret, [(p, entropy[p]) for p in self.players])

    def with_join(self, join: Join) -> Record:
        """The record with ``join`` appended (its chain digest computed here)."""
        entry = join._replace(chain_sha256="").entry()
        digest = chain_digest(self.join_prev(len(self.joins)), entry)
        return replace(self, joins=self.joins + (join._replace(chain_sha256=digest),))

    def entry(self, index: int) -> Document:
        """Move ``index``'s record entry without its ``chain_sha256``: what the chain digest
        covers."""
        doc = {**self.moves[index].as_dict(), **self.stamps[index],
               "state_hmac": self.links[index].state_hmac}
        proof = self.proofs[index] if index < len(self.proofs) else None
        if proof is not None:
            doc.update(proof.as_dict())
        return doc

    def with_move(self, move: Move, state: State, seed: str, events: Sequence[ev.Event],
                  stamp: Document | None = None,
                  signed: tuple[bytes, str] | None = None) -> Record:
        """The record with ``move`` appended; ``state`` and ``events`` are what ``apply_move``
        returned for it, ``seed`` the game's seed (for the keyed state digest, and for the seal of
        a closing play's card, which lies face down: R8.1, :func:`seal_card`). ``signed``: the
        move file's bytes and their armoured signature, kept in the record (rebis-pbm/2); a
        closing play's bytes are kept sealed (:func:`~rebis_pbm.crypto.signatures.seal_signed`)."""
        proof = None
        entered: Move | SealedMove = move
        if closes_shelf(events):
            assert move.play is not None  # closing a shelf is a play
            entered = SealedMove.of(move, seal_card(seed, self.game, move.turn,
                                                    move.play.cards[0]))
            if signed is not None:
                from rebis_pbm.crypto.signatures import seal_signed
                proof = Proof("", None, seal_signed(seed, self.game, move.turn, signed[0],
                                                    signed[1]))
        elif signed is not None:
            proof = Proof(signed[1], signed[0].decode("utf-8"))
        stamp = dict(stamp or {}) if self.format != V1 else {}
        state_hmac = state_digest(state, seed)
        entry = {**entered.as_dict(), **stamp, "state_hmac": state_hmac}
        if proof is not None:
            entry.update(proof.as_dict())
        link = Link(state_hmac, chain_digest(self.prev_digest(len(self.moves)), entry))
        return replace(self, moves=self.moves + (entered,), links=self.links + (link,),
                       proofs=self.proofs + (proof,), stamps=self.stamps + (stamp,),
                       referee_signatures=self.referee_signatures + (None,))

    def with_action(self, action: Document) -> Record:
        """The record with the referee's logged ``action`` appended (a rebis-pbm/2 record):
        ``action`` holds ``action`` (its kind), ``at`` and its own fields; ``after`` (the number
        of moves before it; in a rebis-pbm/5 join phase also ``joins``, the join-phase entries
        before it) and ``chain_sha256`` (chaining it to the action before it, or to
        the header) are added here, so that an edited action fails verification."""
        if self.format == V1:
            raise ValueError("a rebis-pbm/1 record cannot log the referee's actions")
        body = {"after": len(self.moves), **action}
        if self.two_rounds and not self.moves:  # rebis-pbm/5: where in the join phase
            body["joins"] = len(self.joins)
        prev = self.actions[-1]["chain_sha256"] if self.actions else self._first_link()
        return replace(self, actions=self.actions + (
            {**body, "chain_sha256": chain_digest(prev, body)},))

    def broken_action(self) -> int | None:
        """The index of the first logged action whose chain digest does not match, or None."""
        for index, action in enumerate(self.actions):
            if self.action_digest(index) != action.get("chain_sha256"):
                return index
        return None

    def action_digest(self, index: int) -> str:
        """The chain digest logged action ``index`` should carry: of the action as it reads now
        (its ``chain_sha256`` aside) after the one before it as recorded (the header digest for
        the first). Raises IndexError for an index past the actions."""
        prev = self._first_link() if index == 0 else self.actions[index - 1]["chain_sha256"]
        body = {k: v for k, v in self.actions[index].items()
                if k not in ("chain_sha256", REFEREE_SIGNATURE)}  # the signature names the digest
        return chain_digest(prev, body)

    def holds(self, move: Move) -> bool:
        """Whether the recorded move of ``move.turn`` is ``move``, as far as the public record
        shows: a sealed card is not compared, since telling whoever resends a closing play whether
        its card is the one played would open the seal for them (R8.1)."""
        if not 1 <= move.turn <= len(self.moves):
            return False
        entry = self.moves[move.turn - 1]
        if isinstance(entry, SealedMove):
            return (move.play is not None and len(move.play.cards) == 1
                    and SealedMove.of(move, entry.seal) == entry)
        return entry == move

    def revealed(self, seed: str) -> Record:
        """The record with its seed revealed.

        Raises:
            SeedError: ``seed`` does not match the commitment.
        """
        check_seed(self, seed)
        return replace(self, seed=seed)

    def abandoned(self, state: State | None) -> bool:
        """Whether the game was abandoned: its seed revealed (``reveal``) before the end.
        ``state`` is the state after the record's last move (None in the join phase). No move
        can be played any more."""
        return self.seed is not None and (state is None or state.phase != FINISHED)

    def status(self, state: State | None) -> Document:
        """The ``status`` to write with this record; ``state`` is the state after its last move
        (None in the join phase: :func:`join_status`). A seed revealed before the end marks the
        game abandoned."""
        result = join_status(self) if state is None else status(state)
        if self.abandoned(state):
            result["abandoned"] = True
        return result

    def player_at(self, address: str) -> str | None:
        """The player registered with e-mail ``address`` (compared ignoring ASCII case only:
        :func:`ascii_lower`), or None."""
        wanted = ascii_lower(address.strip())
        for player, registered in self.addresses.items():
            if ascii_lower(registered) == wanted:
                return player
        return None

    def lang(self, player: str | None) -> str:
        """The language ``player`` is spoken to in (``en`` unless they chose another; ``en``
        for None, the spectator)."""
        return self.langs.get(player, "en") if player is not None else "en"

    def shown_addresses(self) -> dict[str, str]:
        """The addresses views may show: all of them with ``public_addresses``, else none."""
        return dict(self.addresses) if self.public_addresses else {}

    def to_dict(self, state: State | None) -> Document:
        """The record as written, keys in file order; ``state`` is the replayed state after the
        last move (it gives the status)."""
        doc: Document = {
            "format": self.format,
            "game": self.game,
            "ruleset": self.ruleset.as_dict(),
            "players": list(self.players),
            **self._address_fields(),
            **self.header_extra,
            "seed_sha256": self.seed_sha256,
        }
        if self.format != V1:
            doc.update(self._trust_fields())
        if self.seed is not None:
            if self.format == V1:
                doc["seed"] = self.seed
            else:
                doc["seed"], doc["salt"] = unsalted(self.seed)
        doc["header_sha256"] = self.header_sha256
        if self.deal == FAIR_DEAL:
            doc["joins"] = [{**j.entry(), "chain_sha256": j.chain_sha256} for j in self.joins]
        doc["moves"] = [{**self.entry(i), "chain_sha256": link.chain_sha256,
                         **_signed(self.referee_signatures[i])}
                        for i, link in enumerate(self.links)]
        if self.actions:
            doc["actions"] = [dict(a) for a in self.actions]
        if self.witness_signature is not None:  # rebis-pbm/4
            doc["witness_signature"] = self.witness_signature
        if self.record_hmac is not None:
            doc["record_hmac"] = self.record_hmac
        doc["status"] = self.status(state)
        return doc

    def _address_fields(self) -> Document:
        # Optional fields, written only when used, so that file-only records stay as they were.
        fields: Document = {}
        if self.addresses:
            fields["addresses"] = {p: self.addresses[p] for p in self.players
                                   if p in self.addresses}
        if self.public_addresses:
            fields["public_addresses"] = True
        if self.langs:
            fields["langs"] = {p: self.langs[p] for p in self.players if p in self.langs}
        fields.update({"time_zones": dict(self.time_zones)} if self.time_zones else {})  # v4
        return fields

    @classmethod
    def from_dict(cls, data: Document) -> Record:
        """Build a record from a schema-valid document (digests kept as read). Names, digests
        and the seed are taken with ``str``, numbers with ``int``, as :meth:`Move.from_dict`
        does: a no-op on a valid document, and a document of the wrong types then no longer
        matches :meth:`to_dict` (which :func:`read_game` relies on).

        Raises:
            ValueError: the ruleset is out of range, or an address is given for a name that is
                not a player.
        """
        addresses = dict(data.get("addresses", {}))
        strangers = [name for name in addresses if name not in data["players"]]
        if strangers:
            raise ValueError(f"addresses: {', '.join(strangers)} is not a player of this game "
                             f"(players: {', '.join(data['players'])})")
        langs = {str(p): str(code) for p, code in data.get("langs", {}).items()}
        strangers = [name for name in langs if name not in data["players"]]
        if strangers:
            raise ValueError(f"langs: {', '.join(strangers)} is not a player of this game "
                             f"(players: {', '.join(data['players'])})")
        return cls(
            game=str(data["game"]),
            ruleset=Ruleset.from_dict(data["ruleset"]),
            players=tuple(str(p) for p in data["players"]),
            seed_sha256=str(data["seed_sha256"]),
            moves=tuple(entry_from_dict(m) for m in data["moves"]),
            links=tuple(Link(str(m["state_hmac"]), str(m["chain_sha256"])) for m in data["moves"]),
            header_sha256=str(data["header_sha256"]),
            seed=None if data.get("seed") is None else (
                str(data["seed"]) if "salt" not in data
                else salted(str(data["seed"]), str(data["salt"]))),
            addresses=addresses,
            public_addresses=data.get("public_addresses", False),
            format=str(data["format"]),
            written_status=data["status"],
            deal=None if data.get("deal") is None else str(data["deal"]),
            keys={str(p): tuple(str(k) for k in ks) for p, ks in data.get("keys", {}).items()},
            joins=tuple(Join.from_entry(j) for j in data.get("joins", ())),
            proofs=tuple(Proof.from_entry(m) for m in data["moves"]),
            header_extra={k: data[k] for k in HEADER_EXTRA + ENCRYPTION_FIELDS + ABSENCE_FIELDS
                          + REFEREE_FIELDS
                          if k in data},
            stamps=tuple({k: m[k] for k in STAMP_FIELDS if k in m} for m in data["moves"]),
            actions=tuple(dict(a) for a in data.get("actions", ())),
            langs=langs,
            record_hmac=None if data.get("record_hmac") is None else str(data["record_hmac"]),
            time_zones={str(p): str(z) for p, z in data.get("time_zones", {}).items()},
            referee_signatures=tuple(None if m.get(REFEREE_SIGNATURE) is None
                                     else str(m[REFEREE_SIGNATURE]) for m in data["moves"]),
            witness_signature=None if data.get("witness_signature") is None
            else str(data["witness_signature"]),
        )


def _signed(signature: str | None) -> Document:
    """A move entry's ``referee_signature`` field (rebis-pbm/4), when it has one."""
    return {} if signature is None else {REFEREE_SIGNATURE: signature}


JOIN = "join"  # the status phase of a fair deal waiting for joins (rebis-pbm/2)


def join_status(record: Record) -> Document:
    """The ``status`` of a game in its join phase: ``{"phase": "join", "waiting": [names]}``,
    and in rebis-pbm/5 ``round`` (1: commitments, 2: joins)."""
    found: Document = {"phase": JOIN, "waiting": list(record.waiting_for())}
    if record.two_rounds:
        found["round"] = record.join_round()
    return found


def status(state: State) -> Document:
    """The record's ``status``: whose move and which turn, or how the game ended."""
    if state.phase in (PLAY, RED_TOKEN):
        return {"phase": state.phase, "turn": state.turn, "player": state.player_to_move}
    return {
        "phase": FINISHED,
        "end": state.end_reason,
        "scores": {p.player: p.total for p in score_table(state)},
        "winners": list(winners(state)),
    }


class Replay(NamedTuple):
    """A record played through from its seed.

    Attributes:
        state: the state after the last recorded move.
        setup_events: the events of the deal and of turn 1's draw.
        history: for each recorded move, ``(move, events)``.
    """

    state: State
    setup_events: tuple[ev.Event, ...]
    history: tuple[tuple[Move, tuple[ev.Event, ...]], ...] = ()


def closes_shelf(events: Iterable[ev.Event]) -> bool:
    """Whether a move's events include closing a shelf (R8.1)."""
    return any(isinstance(e, ev.Closed) for e in events)
