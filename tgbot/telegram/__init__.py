"""Telegram's side: the python-telegram-bot application and the web process that feeds it
updates, the handlers, and the gateway, the only code that calls the Bot API."""
