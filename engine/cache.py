"""A least-recently-used cache bounded by an estimate of its bytes, not by its entry count.

Entry counts say nothing about memory when entries differ in size by orders of magnitude (a
preset model vs a 1,024-layer custom config). Each entry's size is estimated once, when it
is stored, by walking the object graph (`approx_size`); the cache evicts the oldest entries
until the total is under `max_bytes`. Thread-safe: API handlers run in a thread pool and
Dash callbacks in a2wsgi's.
"""

from __future__ import annotations

import functools
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
        total += _own_size(item)
        stack.extend(_children(item))
    return total


def _own_size(item: object) -> int:
    # a numpy array's buffer: getsizeof counts it only when the array owns it (not a view)
    return max(sys.getsizeof(item), getattr(item, "nbytes", 0) if hasattr(item, "dtype") else 0)


def _children(item: object) -> list:
    if isinstance(item, dict):
        return [*item.keys(), *item.values()]
    if isinstance(item, (list, tuple, set, frozenset)):
        return list(item)
    if is_dataclass(item) and not isinstance(item, type):
        return [*(getattr(item, f.name) for f in fields(item)), *getattr(item, "__dict__", {}).values()]
    return []


def sampled_size(obj: object, sample: int = 32) -> int:
    """`approx_size` for large regular data (a slider grid: 154 stops of ~100 marks of the same
    shape), measured on a sample: a list, tuple or dict longer than `sample` is walked at
    `sample` evenly spaced items and scaled by its length. Walking a 2 MB payload object by
    object took ~0.4 s, as long as computing it; this takes milliseconds and errs high when
    the items share objects (each sampled item counted whole)."""
    seen: set[int] = set()

    def size(item: object, depth: int) -> int:
        if id(item) in seen or depth > 64:
            return 0
        seen.add(id(item))
        children = _children(item)
        if len(children) <= 2 * sample:
            return _own_size(item) + sum(size(c, depth + 1) for c in children)
        step = len(children) / sample
        picked = [children[int(k * step)] for k in range(sample)]
        return _own_size(item) + int(sum(size(c, depth + 1) for c in picked) * step)

    return size(obj, 0)


class ByteLRU:
    """`shared(key)`, when given, names an object many keys hold (the model in an op-list
    cache's (model, scenario) keys): it is measured once, with `approx_size`, when the first
    entry holding it is stored, and its bytes leave the total with the last such entry. So a
    key that holds a 1,024-layer model is counted with it, and a thousand keys sharing one
    preset count it once. `key_sizeof` measures a key (default: `sizeof`), e.g. without the
    shared object it holds."""

    def __init__(
        self,
        max_bytes: int,
        sizeof: Callable[[Any], int] = approx_size,
        shared: Callable[[Hashable], object | None] | None = None,
        key_sizeof: Callable[[Hashable], int] | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self._key_sizeof = key_sizeof or sizeof
        self._shared_of = shared
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._shared: dict[int, list] = {}  # id(object) -> [bytes, entries holding it]
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
        size = self._sizeof(value) + self._key_sizeof(key)
        held = self._shared_of(key) if self._shared_of is not None else None
        held_size = 0
        if held is not None:
            with self._lock:
                known = self._shared.get(id(held))
            held_size = known[0] if known is not None else approx_size(held)
        if size + held_size > self.max_bytes:
            return value
        with self._lock:
            if key not in self._entries:
                self._entries[key] = (value, size)
                self.bytes += size
                if held is not None:
                    self._hold(held, held_size)
                while self.bytes > self.max_bytes and self._entries:
                    self._evict_oldest()
        return value

    def _hold(self, held: object, held_size: int) -> None:
        entry = self._shared.setdefault(id(held), [held_size, 0])
        if entry[1] == 0:
            self.bytes += entry[0]
        entry[1] += 1

    def _evict_oldest(self) -> None:
        key, (_, dropped) = self._entries.popitem(last=False)
        self.bytes -= dropped
        held = self._shared_of(key) if self._shared_of is not None else None
        entry = self._shared.get(id(held)) if held is not None else None
        if entry is not None:
            entry[1] -= 1
            if entry[1] == 0:
                self.bytes -= entry[0]
                del self._shared[id(held)]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._shared.clear()
            self.bytes = 0


def byte_lru_cache(max_bytes: int) -> Callable[[Callable], Callable]:
    """functools.lru_cache for a function whose first argument is a model, bounded in bytes
    instead of entries: a ByteLRU keyed by the positional arguments. The model is measured
    once and counted once however many entries hold it (ByteLRU's `shared`); each entry counts
    its value and the rest of its key. An entry count says nothing of memory when each key may
    pin a user's model (512 entries held 125 MB of custom configs)."""

    def decorate(function: Callable) -> Callable:
        store = ByteLRU(
            max_bytes,
            shared=lambda key: key[0],
            key_sizeof=lambda key: approx_size(key, {id(key[0])}),
        )

        @functools.wraps(function)
        def cached(*args: Hashable) -> Any:
            return store.get_or_compute(args, lambda: function(*args))

        cached.cache = store  # type: ignore[attr-defined]
        cached.cache_clear = store.clear  # type: ignore[attr-defined]
        return cached

    return decorate
