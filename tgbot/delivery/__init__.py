"""From the event log to the chats: the announcer, the delivery driver and the outbox,
at least once and with their effects once."""
