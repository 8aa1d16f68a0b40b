"""Time zones: a group shows times in its own zone (``/timezone Europe/Warsaw``), else UTC.

Zones are IANA names, looked up in the ``zoneinfo`` database (the ``tzdata`` package
where the system has none). What a group chose is stored by :mod:`infra.botstate`.

>>> zone_named("europe/warsaw"), zone_named("Mars/Olympus"), zone_named("utc")
('Europe/Warsaw', None, 'UTC')
>>> clock_time(0, zone("Europe/Warsaw")), clock_time(0, zone(None))
('01:00 CET', '00:00 UTC')
"""

from __future__ import annotations

import datetime as dt
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

UTC_NAME = "UTC"


@cache
def _names() -> dict[str, str]:
    """Every zone name by its lower-case spelling."""
    names = {name.lower(): name for name in available_timezones()}
    names[UTC_NAME.lower()] = UTC_NAME
    return names


def zone_named(text: str) -> str | None:
    """The IANA zone a user means by ``text`` (any letter case), or None if none is."""
    return _names().get(text.strip().lower())


def zone(name: str | None) -> dt.tzinfo:
    """The zone called ``name``; UTC for None or a name this system does not know."""
    if not name or name == UTC_NAME:
        return dt.UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return dt.UTC


def clock_time(ms: int, tz: dt.tzinfo) -> str:
    """A moment (Unix milliseconds) as a clock time in ``tz``, with the zone's
    abbreviation or offset: ``14:05 CET``, ``09:05 -03``."""
    moment = dt.datetime.fromtimestamp(ms / 1000, tz=tz)
    return f"{moment:%H:%M} {moment.tzname() or UTC_NAME}"


def date_text(moment: dt.datetime, tz: dt.tzinfo) -> str:
    """A day as ``2025-03-01`` in ``tz``.

    >>> date_text(dt.datetime(2025, 3, 1, 23, 30, tzinfo=dt.UTC), zone("Europe/Warsaw"))
    '2025-03-02'
    """
    if moment.tzinfo is None:  # SQLite hands back naive datetimes: they are UTC
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(tz).strftime("%Y-%m-%d")
