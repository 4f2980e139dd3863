"""rebis-pbm, the referee of the card game Rebis played by e-mail or git: its layers are
its packages (docs/architecture.md)."""
