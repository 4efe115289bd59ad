"""Entropy an execution draws, taken from the execution's seed: `os.urandom` (and `uuid.uuid4`,
`secrets`, `random.SystemRandom`, which read it) and every `random.Random()` made without a
seed (`tempfile`'s and `multiprocessing`'s names) — so that an input does the same thing
each time it runs, in every worker: a shared-memory name drawn from the system's entropy made
a stop reason differ from one run to the next. `random`'s shared generator is seeded by the
execution itself (`random_seed`). What the operating system's own randomness gives C code
directly (`getrandom` from an extension) is not covered."""

import operator
import os
import random

_REAL_URANDOM = os.urandom
_REAL_RANDOM_URANDOM = getattr(random, "_urandom", None)
_REAL_SEED = random.Random.seed


def begin(seed):
    """Draws entropy from `seed` until `end()`."""
    source = random.Random("lacuna-entropy-%d" % seed)

    def urandom(size):
        size = operator.index(size)
        if size < 0:
            raise ValueError("negative argument not allowed")
        return source.getrandbits(size * 8).to_bytes(size, "little") if size else b""

    def seeded(self, a=None, version=2):
        if a is None:
            a = source.getrandbits(64)
        return _REAL_SEED(self, a, version)

    os.urandom = urandom
    if _REAL_RANDOM_URANDOM is not None:
        random._urandom = urandom
    random.Random.seed = seeded


def end():
    """The system's entropy again."""
    os.urandom = _REAL_URANDOM
    if _REAL_RANDOM_URANDOM is not None:
        random._urandom = _REAL_RANDOM_URANDOM
    random.Random.seed = _REAL_SEED
