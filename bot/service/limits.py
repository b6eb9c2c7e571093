"""Guards against abuse: a per-user rate limit and cleaning of display names."""

from __future__ import annotations

import unicodedata
from collections import OrderedDict
from collections.abc import Callable

MAX_NAME = 32


class RateLimiter:
    """A token bucket per key: ``capacity`` actions, refilled over ``window`` seconds.

    Only a bounded number of keys is remembered (the least recently seen are forgotten),
    so a flood of new users cannot grow memory without limit.
    """

    def __init__(
        self,
        capacity: int,
        window: float,
        clock: Callable[[], float],
        max_keys: int = 100_000,
    ) -> None:
        self.capacity = capacity
        self.rate = capacity / window
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[object, tuple[float, float]] = OrderedDict()

    def has(self, key: object) -> bool:
        """Whether ``key`` has a token left, without taking it."""
        tokens, last = self._buckets.get(key, (float(self.capacity), self.clock()))
        return min(self.capacity, tokens + (self.clock() - last) * self.rate) >= 1

    def wait(self, key: object) -> float:
        """Seconds until ``key`` has a token again (0 when it has one now)."""
        tokens, last = self._buckets.get(key, (float(self.capacity), self.clock()))
        tokens = min(self.capacity, tokens + (self.clock() - last) * self.rate)
        return max(0.0, (1 - tokens) / self.rate)

    def allow(self, key: object) -> bool:
        """Take one token for ``key``; False when its bucket is empty."""
        now = self.clock()
        tokens, last = self._buckets.pop(key, (float(self.capacity), now))
        tokens = min(self.capacity, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        if allowed:
            tokens -= 1
        self._buckets[key] = (tokens, now)
        if len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)
        return allowed


def clean_name(name: str, fallback: str = "Player") -> str:
    """A display name safe to show: no control or direction-override characters, one line,
    at most :data:`MAX_NAME` characters."""
    kept = []
    for ch in unicodedata.normalize("NFC", name or ""):
        category = unicodedata.category(ch)
        if category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            continue  # controls, bidi overrides, zero-width joiners, unassigned
        kept.append(" " if category.startswith("Z") else ch)
    text = " ".join("".join(kept).split())
    if len(text) > MAX_NAME:
        text = text[: MAX_NAME - 1].rstrip() + "…"
    return text or fallback
