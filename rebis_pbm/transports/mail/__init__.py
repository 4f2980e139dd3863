"""Play by e-mail (docs/mail.md): the mail transport, one module per concern.

- :mod:`.policy`: the email policy every message is read and written with; a message's sender.
- :mod:`.inbound`: taking a move (and its signature) out of a message.
- :mod:`.compose`: composing the messages a game sends (views, reminders, replies).
- :mod:`.maildir`: Maildir folders (incoming mail, the queue's files).
- :mod:`.send`: handing message files to an SMTP server or sendmail.
- :mod:`.outbox`: a game's mail queue, and :class:`.outbox.MailOutbox`, the mail
  :class:`rebis_pbm.transports.Outbox`.
- :mod:`.mail_in`: the ``mail in`` job, for one game or a shard (a folder of games).
- :mod:`.mail_out`: the ``mail out`` job, and ``mail retry``.
"""
