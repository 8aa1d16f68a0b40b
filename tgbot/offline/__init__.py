"""The bot without Telegram: a fake Bot API served locally, the offline demo played
against it and the transcripts of its chats. No runtime module imports this package."""
