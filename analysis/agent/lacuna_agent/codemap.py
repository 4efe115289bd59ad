"""Tables keyed by code objects and frames, which the tracer looks up at every event — without
what makes that slow. Hashing a code object hashes its bytecode and constants (several
microseconds on 3.12), and `id()`, `frame.f_code` and `sys._getframe()` each raise an audit
event, so every one of them runs the sandbox's audit hook, a Python function.

A code object is found by where it is defined (file, first line, name: strings whose hashes
are cached) and then by identity among the few defined there; an entry holds its code object,
so it stays what it was. A frame is keyed by `frame_key`: its hash, which is its address (frames
do not define `__hash__`) — what `id()` gives, without the audit event."""

frame_key = hash


def _where(code):
    return (code.co_filename, code.co_firstlineno, code.co_name)


class CodeMap:
    """A dict from code objects to values, compared by identity."""

    __slots__ = ("_entries", "_size")

    def __init__(self):
        self._entries = {}
        self._size = 0

    def get(self, code, default=None):
        bucket = self._entries.get((code.co_filename, code.co_firstlineno, code.co_name))
        if bucket is not None:
            for known, value in bucket:
                if known is code:
                    return value
        return default

    def __setitem__(self, code, value):
        bucket = self._entries.setdefault(_where(code), [])
        for i, (known, _) in enumerate(bucket):
            if known is code:
                bucket[i] = (code, value)
                return
        bucket.append((code, value))
        self._size += 1

    def __contains__(self, code):
        return any(known is code for known, _ in self._entries.get(_where(code), ()))

    def pop(self, code):
        bucket = self._entries.get(_where(code), [])
        for i, (known, value) in enumerate(bucket):
            if known is code:
                del bucket[i]
                self._size -= 1
                return value
        return None

    def __len__(self):
        return self._size

    def keys(self):
        return [code for bucket in self._entries.values() for code, _ in bucket]

    def values(self):
        return [value for bucket in self._entries.values() for _, value in bucket]

    def clear(self):
        self._entries.clear()
        self._size = 0


class CodeSet:
    """A set of code objects, compared by identity."""

    __slots__ = ("_codes",)

    def __init__(self):
        self._codes = CodeMap()

    def add(self, code):
        self._codes[code] = True

    def discard(self, code):
        self._codes.pop(code)

    def __contains__(self, code):
        return code in self._codes

    def __iter__(self):
        return iter(self._codes.keys())

    def __len__(self):
        return len(self._codes)

    def clear(self):
        self._codes.clear()
