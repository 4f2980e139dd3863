"""``open``, ``seal`` and ``keygen-referee``: files encrypted with age to their readers, for a
game in a public repository (docs/git.md, "A public repository"). Thin shells around
:mod:`rebis_pbm.app` (:func:`~rebis_pbm.app.decrypt_file`,
:func:`~rebis_pbm.app.seal_move`, :func:`~rebis_pbm.app.make_referee_identity`).
"""

from __future__ import annotations

import click

from rebis_pbm import app as referee
from rebis_pbm.cli import EXIT_CODES, cli


@cli.command("open", epilog=EXIT_CODES)
@click.argument("file", metavar="FILE.age|-")
@click.option("--identity", "-i", required=True, metavar="KEY", type=click.Path(dir_okay=False),
              help="Your SSH private key (e.g. ~/.ssh/id_ed25519) or an age identity file.")
def open_(file: str, identity: str) -> None:
    """Decrypt a file encrypted to you (your view NAME.yaml.age or NAME.txt.age, a refusal
    refusals/turn-NNN-NAME.txt.age) and print it, without the padding that hides its length
    (a last line of spaces). The same as `age -d -i KEY FILE`, which keeps the padding.
    """
    from rebis_pbm.crypto.age import unpadded
    click.echo(unpadded(referee.decrypt_file(file, identity)), nl=False)


@cli.command("seal", epilog=EXIT_CODES)
@click.argument("move_file", metavar="MOVE.yaml", type=click.Path(dir_okay=False))
@click.option("--to", "recipients", multiple=True, metavar="RECIPIENT",
              help="The referee's age recipient (age1...); repeatable. Default: the one the "
              "game's public record or view shows (--game).")
@click.option("--game", metavar="GAME", type=click.Path(dir_okay=False),
              help="The game's record (game.yaml) or its YAML view (e.g. "
              "game.views/public.yaml; not a text view), whose referee_recipient the move is "
              "sealed to when --to is not given; a record also gives the key --key must be "
              "(default: game.yaml here).")
@click.option("--key", "ssh_key", metavar="SSHKEY", type=click.Path(dir_okay=False),
              help="Sign the move first with this SSH private key (ssh-keygen -Y sign -n "
              "rebis-pbm), writing MOVE.yaml.sig; the signature is sealed too. With the record "
              "at hand, a key that is not the one it registers for the mover is refused.")
def seal(move_file: str, recipients: tuple[str, ...], game: str | None,
         ssh_key: str | None) -> None:
    """Seal a move for the referee: pad it to 1024 bytes (a last comment line, written back to
    MOVE.yaml, so that every sealed move has the same length), sign it (with --key), then
    encrypt it (and its signature) to the referee's recipient, writing MOVE.yaml.age (and
    MOVE.yaml.sig.age). Commit those, never the plain move, in a public repository.
    """
    sealed = referee.seal_move(move_file, recipients, ssh_key, game)
    for written in sealed.written:
        click.echo(f"Wrote {written}")
    click.echo("Sealed to " + ", ".join(sealed.recipients))


@cli.command("keygen-referee", epilog=EXIT_CODES)
@click.argument("out", metavar="IDENTITY_FILE", type=click.Path(dir_okay=False), required=False)
@click.option("--ssh", "ssh_out", metavar="FILE", type=click.Path(dir_okay=False),
              help="Also (or only, without IDENTITY_FILE) write an ed25519 SSH key pair for the "
              "referee to sign with (FILE and FILE.pub, by ssh-keygen): new --referee-key FILE.")
def keygen_referee(out: str | None, ssh_out: str | None) -> None:
    """Write a new age identity for the referee (mode 0600) and print its recipient.

    Players seal their moves to the recipient (age1...); the identity file is a secret like the
    seed: store it as the CI secret REBIS_PBM_AGE_IDENTITY's file, never commit it. With --ssh
    FILE, also write the referee's signing key (a secret too: REBIS_PBM_REFEREE_KEY's file).
    """
    if out is None and ssh_out is None:
        raise click.UsageError("give IDENTITY_FILE, --ssh FILE or both")
    if ssh_out is not None:
        from rebis_pbm.app.signing import make_referee_ssh_key
        from rebis_pbm.record.audit import fingerprint
        key = make_referee_ssh_key(ssh_out)
        click.echo(f"Wrote the referee's signing key to {ssh_out} (a secret: keep it like the "
                   f"seed) and {ssh_out}.pub; fingerprint {fingerprint(key)}.")
        if out is None:
            return
    assert out is not None  # one of the two was given
    recipient = referee.make_referee_identity(out)
    click.echo(f"Wrote the referee's identity to {out} (a secret: keep it like the seed).")
    click.echo(f"Recipient (give it to the players): {recipient}")
