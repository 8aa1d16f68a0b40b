"""The in-process fake Telegram Bot API the offline demo talks to.

The fake lives with the tests (``tests/fakebotapi.py``), where it is the bot tests'
Telegram. Running the demo needs a source checkout that includes ``tests/``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


class DevServerUnavailable(RuntimeError):
    """The fake Bot API is not part of this installation."""


def fake_bot_api() -> Any:
    """A new, not yet started fake Bot API server."""
    root = Path(__file__).resolve().parent.parent
    if (root / "tests" / "fakebotapi.py").exists() and str(root) not in sys.path:
        sys.path.append(str(root))  # a source checkout run from another folder
    try:
        from tests.fakebotapi import FakeBotAPI
    except ImportError as error:  # an installed wheel carries no tests/
        raise DevServerUnavailable(
            "the offline demo needs the fake Bot API in tests/fakebotapi.py: "
            "run it from a source checkout of saboteur-bot"
        ) from error
    return FakeBotAPI()
