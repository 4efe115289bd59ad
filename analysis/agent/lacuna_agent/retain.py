"""What a program point keeps of its samples once it holds its share (`SAMPLES` samples, its
variables, the variables of the test or of the run): a fair sample of the calls read, in which
what is rare still shows.

A new sample that shows something no kept sample shows — a variable or a coverage profile not
seen at the point, a boolean or short text value not seen, a number beyond the kept range —
replaces a kept sample that is the only one to show nothing of the kind. Any other new sample
replaces one with the probability reservoir sampling gives it (the kept samples over the
distinct samples offered), so the kept ones stay a uniform sample of what the point saw. A
sample that is not kept, and one that is replaced, take their calls with them: the point's
`read` is always the calls its samples stand for, and an invariant learned from it counts
those. Nothing here calls user code: samples are the observer's tuples of
`(variable, (kind, text))`.
"""

import math

# Distinct short values (booleans, texts) remembered per variable to tell a new one.
VALUES = 8
# Random draws for a sample that holds nothing before the kept ones are searched in order.
DRAWS = 16


class Features:
    """What the kept samples of a full point show, and how many features each sample is the
    one to show (a sample showing none can be replaced without losing any)."""

    def __init__(self, samples, sides):
        self.kinds = set()  # (variable, kind) seen
        self.values = {}    # variable -> set of short values seen
        self.low = {}       # variable -> [number, index of the sample holding it]
        self.high = {}
        self.profiles = set()
        self.held = {}      # index -> number of features it is the one to show
        for i, items in enumerate(samples):
            self.take(i, self.new(items, sides[i] if i < len(sides) else ()))

    def new(self, items, profile):
        """What `items` (with its invocation's `profile`) shows that no kept sample does."""
        out = []
        if profile not in self.profiles:
            out.append(("profile", profile, None))
        for name, (kind, value) in items:
            if (name, kind) not in self.kinds:
                out.append(("kind", name, kind))
            number = _number(kind, value)
            if number is None:
                seen = self.values.get(name)
                if seen is None or (value not in seen and len(seen) < VALUES):
                    out.append(("value", name, value))
                continue
            low = self.low.get(name)
            if low is None or number < low[0]:
                out.append(("low", name, number))
            high = self.high.get(name)
            if high is None or number > high[0]:
                out.append(("high", name, number))
        return out

    def take(self, i, features):
        """Sample `i` is now the one to show `features` (from `new`)."""
        for what, name, value in features:
            if what == "profile":
                self.profiles.add(name)
            elif what == "kind":
                self.kinds.add((name, value))
            elif what == "value":
                self.values.setdefault(name, set()).add(value)
            else:
                bounds = self.low if what == "low" else self.high
                old = bounds.get(name)
                if old is not None:
                    self._release(old[1])
                bounds[name] = [value, i]
            self.held[i] = self.held.get(i, 0) + 1

    def _release(self, i):
        n = self.held.get(i, 0) - 1
        if n > 0:
            self.held[i] = n
        else:
            self.held.pop(i, None)

    def replaceable(self, count, draw):
        """A kept sample (of `count`) that is the one to show nothing, or None."""
        for _ in range(DRAWS):
            i = int(draw() * count)
            if i < count and i not in self.held:
                return i
        start = int(draw() * count)
        for k in range(count):
            i = (start + k) % count
            if i not in self.held:
                return i
        return None


def _number(kind, value):
    """A finite number a variable holds, or None (not a number, NaN, an infinity)."""
    if kind not in ("int", "float"):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def offer(point, items, profile, count, share, draw, test=None):
    """Offers `point` a new sample (`items`, its profile, the `count` calls that gave it, the
    `test` it came from). `share` is `(samples, variables, room)`: the samples and variables
    the point may hold, and `room(size)`, whether the run's or the test's share holds `size`
    more variables (negative: fewer), counting them when it does. Returns the index the sample
    is kept at, or None; keeps `read`, `variables` and the test index (a test's own point) in
    step with the samples kept."""
    most, variables, room = share
    size = len(items)
    samples = point["samples"]
    point["offered"] += 1
    if point["features"] is None:
        if len(samples) < most and point["variables"] + size <= variables and room(size):
            i = len(samples)
            samples.append(items)
            point["sides"].append(profile)
            point["counts"].append(count)
            if "index" in point:
                point["index"][(items, profile)] = i
            else:
                point["tests"].append(test)
            point["variables"] += size
            return i
        point["features"] = Features(samples, point["sides"])
    features = point["features"]
    new = features.new(items, profile)
    if not samples or (not new and draw() * point["offered"] >= len(samples)):
        point["read"] -= count
        return None
    i = features.replaceable(len(samples), draw)
    old = None if i is None else samples[i]
    if old is None or point["variables"] - len(old) + size > variables \
            or not room(size - len(old)):
        point["read"] -= count
        return None
    point["read"] -= point["counts"][i]
    point["variables"] += size - len(old)
    if "index" in point:
        del point["index"][(old, point["sides"][i])]
        point["index"][(items, profile)] = i
    else:
        point["tests"][i] = test
    samples[i] = items
    point["sides"][i] = profile
    point["counts"][i] = count
    features.take(i, new)
    return i

