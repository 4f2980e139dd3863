"""How moves and views travel between players and the referee: e-mail (:mod:`.mail`,
:mod:`.mail_jobs`). Each calls :mod:`rebis_pbm.app` for every use case."""
