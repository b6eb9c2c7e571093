"""A group's time: the time zone its administrators chose in ``/settings`` (a named zone of
the tz database, daylight saving time and all, or a whole-hour offset from UTC), the day and
hour it is there, and how the zone is named to players.

Named zones come from the tz database (:mod:`zoneinfo`); where a system lacks it, each named
zone falls back to its standard offset (none of the ones offered but Berlin moves its
clocks).
"""

from __future__ import annotations

import datetime
import functools
import zoneinfo

from bot.i18n import Text, t
from bot.storage.base import ZONE_NAMES, valid_zone

#: Each named zone's city, as players read it, and its standard offset (the fallback).
CITIES: dict[str, tuple[Text, int]] = {
    "Europe/Istanbul": (t("Istanbul"), 3),
    "Europe/Moscow": (t("Moscow"), 3),
    "Europe/Berlin": (t("Berlin"), 1),
}
assert tuple(CITIES) == ZONE_NAMES


@functools.cache
def zone_of(name: str) -> datetime.tzinfo:
    """The tzinfo of a group's zone (UTC for one this version does not know)."""
    if not valid_zone(name):
        return datetime.UTC
    if name in CITIES:
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return datetime.timezone(datetime.timedelta(hours=CITIES[name][1]))
    return datetime.timezone(datetime.timedelta(hours=int(name[3:] or 0)))


def local_time(now: float, name: str) -> datetime.datetime:
    """The moment ``now`` (epoch seconds) in the zone ``name``."""
    return datetime.datetime.fromtimestamp(now, zone_of(name))


def day_and_hour(now: float, name: str = "UTC") -> tuple[str, int]:
    """The day (``2027-01-15``) and hour it is in the zone at ``now``."""
    moment = local_time(now, name)
    return moment.date().isoformat(), moment.hour


def offset_hours(now: float, name: str) -> int:
    """The zone's whole hours from UTC at ``now`` (the offsets offered are whole hours)."""
    delta = local_time(now, name).utcoffset() or datetime.timedelta()
    return int(delta.total_seconds() // 3600)


def offset_name(hours: int) -> str:
    """``UTC+3``, ``UTC-5``, ``UTC``: a fixed zone's name, as stored and as shown."""
    return "UTC" if hours == 0 else f"UTC{hours:+d}"


def zone_label(name: str, now: float) -> Text | str:
    """The zone as players read it: ``Istanbul (UTC+3)``, ``UTC+5``."""
    if name in CITIES:
        return t(
            "{city} ({offset})",
            city=CITIES[name][0],
            offset=offset_name(offset_hours(now, name)),
        )
    return offset_name(offset_hours(now, name))
