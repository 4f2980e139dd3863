"""Play by e-mail (docs/mail.md): messages in and out, and the referee's mail jobs."""
