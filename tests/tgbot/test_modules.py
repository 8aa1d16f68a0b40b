"""How the bot's modules depend on each other."""

from __future__ import annotations

import subprocess
import sys


def test_the_announcer_loads_without_the_history_handlers() -> None:
    # The announcer runs in every bot process; /history and its read models are a handler's.
    code = (
        "import sys, tgbot.delivery.announcer; "
        "print(sorted(m for m in sys.modules if m in "
        "('tgbot.telegram.handlers.history', 'infra.history', 'tgbot.replay.gif')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "[]"
