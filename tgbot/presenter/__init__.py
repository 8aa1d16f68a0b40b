"""What players see, as pure functions: no I/O, no python-telegram-bot objects.

Given a game's state, its new events, who reads (the group, or one player's private chat,
in their language and the group's time zone) and the clock's now, the presenter returns
typed outgoing messages (:mod:`tgbot.presenter.messages`) for the outbox to deliver:

- :mod:`~tgbot.presenter.narration`: one narration per event type, for live play and
  replays alike (:mod:`~tgbot.presenter.results`: a round's and the game's end);
- :mod:`~tgbot.presenter.announce`: a batch of new events as the messages they call for;
- :mod:`~tgbot.presenter.roundlog`: the round so far, one line per move: the board's last
  moves, the 📜 log message, a prompt's moves since its player's last one, the Mini App's
  log;
- :mod:`~tgbot.presenter.prompt`, :mod:`~tgbot.presenter.board`,
  :mod:`~tgbot.presenter.lobby`: a player's prompt, the group's board, the lobby;
- :mod:`~tgbot.presenter.icons`: one set of icons and its legend;
- :mod:`~tgbot.presenter.audience`, :mod:`~tgbot.presenter.caption`: who reads, and
  captions that fit.

Every private message is built from :func:`domain.view.view_for` of its reader.
"""
