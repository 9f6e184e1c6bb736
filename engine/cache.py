"""A least-recently-used cache bounded by an estimate of its bytes, not by its entry count.

Entry counts say nothing about memory when entries differ in size by orders of magnitude (a
preset model vs a 1,024-layer custom config). Each entry's size is estimated once, when it
is stored, by walking the object graph (`approx_size`); the cache evicts the oldest entries
until the total is under `max_bytes`. Thread-safe: API handlers run in a thread pool and
Dash callbacks in a2wsgi's.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import fields, is_dataclass
from typing import Any


def approx_size(obj: object, seen: set[int] | None = None) -> int:
    """Bytes held by `obj` and everything it references (each object counted once)."""
    seen = set() if seen is None else seen
    stack = [obj]
    total = 0
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in fields(item))
            stack.extend(getattr(item, "__dict__", {}).values())  # cached_property values
    return total


class ByteLRU:
    def __init__(self, max_bytes: int, sizeof: Callable[[Any], int] = approx_size) -> None:
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
        value = compute()  # outside the lock: a slow parse does not block other keys; errors are not cached
        size = self._sizeof(value) + self._sizeof(key)
        if size > self.max_bytes:
            return value
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (value, size)
                self.bytes += size
                while self.bytes > self.max_bytes:
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self.bytes -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0
