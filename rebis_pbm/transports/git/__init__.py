"""Play through a git repository (docs/git.md): the referee's CI job."""
