"""Turn notices by webhook (docs/league.md): the referee's URLs (:mod:`.settings`), the bodies
(:mod:`.payloads`), the queue beside the record and its posting (:mod:`.jobs`)."""
