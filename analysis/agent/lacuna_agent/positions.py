"""Where each conditional jump of a code object tests its value, in source positions.

A jump is mapped through the instruction that produced the value it tests (skipping `COPY`,
`TO_BOOL`, `NOT`, `NOP`, `EXTENDED_ARG`…): on 3.11 the jump of the last operand of `or`/`and`
reports its sibling's columns, so the jump's own position cannot be trusted. A `POP_JUMP_IF_NONE`
keeps its own position (the whole `x is None`). Comparisons of a chain `a < b < c` all report the
whole chain; they are numbered (`link`) in the order they appear.
"""

import dis
import sys

from .codemap import CodeMap

HAS_POSITIONS = sys.version_info >= (3, 11)

_TRANSPARENT = {"COPY", "TO_BOOL", "UNARY_NOT", "NOT", "NOP", "EXTENDED_ARG", "CACHE",
                "COPY_FREE_VARS"}

# The links of a chained comparison can mix these (`a is b in c < d`).
_COMPARISONS = {"COMPARE_OP", "IS_OP", "CONTAINS_OP"}

# Instructions that push two values (3.13).
_SUPERINSTRUCTIONS = {"LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST", "STORE_FAST_STORE_FAST",
                      "LOAD_FAST_AND_CLEAR"}

_COMPREHENSIONS = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}

# An assignment expression (`if (x := f()):`) stores a copy of the tested value first.
_STORES = {"STORE_FAST", "STORE_NAME", "STORE_DEREF", "STORE_GLOBAL"}


class Jump:
    """One conditional jump: `sense` tells the tested condition's value from whether the jump
    was taken; `target` is where it goes when taken."""

    __slots__ = ("offset", "target", "sense", "pos", "link", "pair", "loop", "stmt", "item")

    def __init__(self, offset, target, sense, pos, link, pair, loop, stmt=None, item=None):
        self.offset = offset
        self.target = target
        self.sense = sense
        self.pos = pos
        self.link = link
        self.pair = pair
        self.loop = loop
        # A loop's `FOR_ITER` position: the whole `for` statement (3.11, 3.12) or its
        # iterable (3.13+), which finds the statement where `pos` (the value iterated, e.g.
        # the `[]` of `xs or []`) cannot.
        self.stmt = stmt
        # An `async for` statement's step (see `_async_step`): the offset where it has an item.
        self.item = item

    def value(self, taken):
        """The tested condition's value given whether the jump was taken (for a loop: whether
        the iteration continues)."""
        return taken == self.sense


def _pos(ins):
    if not HAS_POSITIONS:
        return None
    p = ins.positions
    if p is None or p.lineno is None:
        return None
    return (p.lineno, p.col_offset, p.end_lineno, p.end_col_offset)


def _source_of(code, pos, lines_of):
    lines = lines_of(code.co_filename)
    if not lines or pos is None or pos[1] is None or pos[0] != pos[2]:
        return ""
    try:
        line = lines[pos[0] - 1].encode("utf-8")
        return line[pos[1]:pos[3]].decode("utf-8", "replace")
    except (IndexError, UnicodeError):
        return ""


def analyse(code, lines_of):
    """The conditional jumps of one code object, by offset; an `async for` statement's step is
    listed under its `END_ASYNC_FOR` (see `_async_step`)."""
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    jumps = {}
    compare_positions = {}
    # Comparisons sharing one position are the links of a chain (`a < b < c`), whether or not
    # each is followed by a jump (the last link of a chain used as a value is not).
    compare_totals = {}
    for ins in instructions:
        if ins.opname in _COMPARISONS:
            p = _pos(ins)
            if p is not None:
                compare_totals[p] = compare_totals.get(p, 0) + 1
    line = None
    for k, ins in enumerate(instructions):
        if HAS_POSITIONS is False and getattr(ins, "starts_line", None):
            line = ins.starts_line
        name = ins.opname
        if name == "FOR_ITER":
            producer = k - 1
            while producer >= 0 and instructions[producer].opname in _TRANSPARENT | {"GET_ITER", "GET_AITER"}:
                producer -= 1
            pos = _pos(instructions[producer]) if producer >= 0 else _pos(ins)
            # A comprehension's own code object (3.11, 3.12) positions its step at the whole
            # comprehension, which may be a `for` statement's iterable: no statement there.
            stmt = None if code.co_name in _COMPREHENSIONS else _pos(ins)
            jumps[ins.offset] = Jump(ins.offset, ins.argval, False, _fallback(pos, line), None,
                                     [ins.offset], True, stmt)
            continue
        if name == "GET_ANEXT":
            jump = _async_step(code, instructions, k, lines_of, line)
            if jump is not None:
                jumps[jump.offset] = jump
            continue
        if "JUMP" not in name or "IF" not in name:
            continue
        if "NONE" in name:
            pos = _pos(ins)
            text = _source_of(code, pos, lines_of)
            jumped_if_none = name.endswith("IF_NONE")
            # A chain ending in `is None` (`a is b is None`): the None test is its last link,
            # after the comparisons that share its position.
            link = compare_totals.get(pos) if pos is not None else None
            if link:
                negated = text.rstrip().endswith(" is not None")
            else:
                negated = " is not " in text
                link = None
            # The condition is `x is None` (or `x is not None`).
            sense = jumped_if_none != negated
            jumps[ins.offset] = Jump(ins.offset, ins.argval, sense, _fallback(pos, line), link,
                                     [ins.offset], False)
            continue
        sense = "IF_TRUE" in name
        producer = k - 1
        to_bool = None
        while producer >= 0:
            op = instructions[producer].opname
            if op == "TO_BOOL" and to_bool is None:
                to_bool = instructions[producer]
            # A `not` executed before the jump (value context: `not x and y`) means the jump
            # tests the negation of the condition it is mapped to.
            if op in ("UNARY_NOT", "NOT"):
                sense = not sense
            elif op in _STORES and producer >= 1 and instructions[producer - 1].opname == "COPY":
                producer -= 1
            elif op not in _TRANSPARENT:
                break
            producer -= 1
        pair = [instructions[j].offset for j in range(max(producer, 0), k + 1)]
        source = instructions[producer] if producer >= 0 else ins
        pos = _pos(source)
        # 3.13's superinstructions push two values under the first one's position: the
        # `TO_BOOL` that tests the second one carries the tested expression's position.
        if source.opname in _SUPERINSTRUCTIONS:
            pos = _pos(to_bool) if to_bool is not None and _pos(to_bool) is not None else _pos(ins)
            # In a value (`x = a or b`) that range is the whole operator: narrow it to the
            # variable loaded, when the range starts with it.
            loaded = source.argval[-1] if isinstance(source.argval, tuple) else None
            text = _source_of(code, pos, lines_of) if pos is not None else ""
            if loaded and text.startswith(loaded) and text != loaded and pos[0] == pos[2]:
                rest = text[len(loaded):len(loaded) + 1]
                if not (rest.isalnum() or rest == "_"):
                    pos = (pos[0], pos[1], pos[2], pos[1] + len(loaded.encode("utf-8")))
        link = None
        if source.opname in _COMPARISONS and pos is not None:
            count = compare_positions.get(pos, 0)
            compare_positions[pos] = count + 1
            link = count
        jumps[ins.offset] = Jump(ins.offset, ins.argval, sense, _fallback(pos, line), link,
                                 pair, False)
    # A comparison is a chain link only when several comparisons share its position.
    for j in jumps.values():
        if j.link is not None and compare_totals.get(j.pos, 0) < 1:
            j.link = None
        elif j.link is not None and j.link == 0 and compare_totals.get(j.pos, 0) == 1:
            # A single comparison is not a chain.
            j.link = None
    # On 3.11 the trace event of a jump with a large target fires on its EXTENDED_ARG prefix:
    # the jump is found under those offsets too.
    offsets = [i.offset for i in instructions]
    names = [i.opname for i in instructions]
    for k, offset in enumerate(offsets):
        jump = jumps.get(offset)
        j = k - 1
        while jump is not None and j >= 0 and names[j] == "EXTENDED_ARG":
            jumps[offsets[j]] = jump
            j -= 1
    return jumps


def _async_step(code, instructions, k, lines_of, line):
    """The step of the `async for` statement whose `GET_ANEXT` is at `k`, as a loop's jump.

    The step has no jump: it awaits the iterator's `__anext__()` and either has an item — the
    await completes and the loop stores it (3.11: `SEND`'s target; 3.12+: `END_SEND`; 3.9,
    3.10: after `YIELD_FROM`), the `item` offset — or ends: the `StopAsyncIteration` raised
    there is handled by the loop's `END_ASYNC_FOR`, which swallows it and goes on to the next
    instruction, the jump's `target`, or raises any other exception again. The jump is keyed by
    the `END_ASYNC_FOR`: "taken" when the instruction after it runs next, the loop ended, as a
    `FOR_ITER` taken. An async comprehension's steps are not a statement's (their position is
    the whole comprehension, not a statement starting with `async`): none is listed."""
    if code.co_name in _COMPREHENSIONS:
        return None
    step = instructions[k]
    stmt = _pos(step)
    if HAS_POSITIONS and not _starts_with(code, stmt, "async", lines_of):
        return None
    end = None
    if HAS_POSITIONS:
        for entry in _exception_entries(code):
            if entry.start <= step.offset < entry.end:
                end = entry.target
                break
    elif k > 0 and instructions[k - 1].opname == "SETUP_FINALLY":
        end = instructions[k - 1].argval
    item = None
    for j in range(k + 1, len(instructions)):
        name = instructions[j].opname
        if name == "SEND":
            item = instructions[j].argval
            break
        if name == "YIELD_FROM" and j + 1 < len(instructions):
            item = instructions[j + 1].offset
            break
    at = {ins.offset: j for j, ins in enumerate(instructions)}
    ends = at.get(end)
    if item is None or ends is None or ends + 1 >= len(instructions) \
            or instructions[ends].opname != "END_ASYNC_FOR":
        return None
    producer = k - 1
    while producer >= 0 and instructions[producer].opname in \
            _TRANSPARENT | {"GET_AITER", "SETUP_FINALLY"}:
        producer -= 1
    pos = _pos(instructions[producer]) if producer >= 0 else stmt
    return Jump(end, instructions[ends + 1].offset, False, _fallback(pos, line), None,
                [step.offset], True, stmt, item)


def _starts_with(code, pos, word, lines_of):
    """Whether the source at `pos` starts with the keyword `word`."""
    lines = lines_of(code.co_filename)
    if not lines or pos is None or pos[1] is None:
        return False
    try:
        text = lines[pos[0] - 1].encode("utf-8")[pos[1]:].decode("utf-8", "replace")
    except (IndexError, UnicodeError):
        return False
    rest = text[len(word):len(word) + 1]
    return text.startswith(word) and not (rest.isalnum() or rest == "_")


def _exception_entries(code):
    return dis.Bytecode(code).exception_entries


def handlers(code):
    """The offsets where the exception handlers of `code` start (3.11+; empty before)."""
    if not HAS_POSITIONS:
        return set()
    return {entry.target for entry in _exception_entries(code)}


# Where a boolean value is consumed without a jump testing it: returned, or stored in a name.
_RETURNS = {"RETURN_VALUE"}
_NAME_STORES = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF", "STORE_FAST_LOAD_FAST",
                "STORE_FAST_STORE_FAST"}
_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP", "JUMP_NO_INTERRUPT"}


class ValueSite:
    """An instruction that consumes the value of a boolean operation or chained comparison
    (`return a or b`, `x = lo <= v < hi`) without testing it. CPython never tests the truth of
    the last operand there, so the tracer reads it from the consumed value: the return value,
    or the name after the store. `pos` is the whole operation's source range; `jumps` are the
    offsets of the operation's jumps (after any of them, the site may come next)."""

    __slots__ = ("offset", "pos", "store", "name", "jumps")

    def __init__(self, offset, pos, store, name):
        self.offset = offset
        self.pos = pos
        self.store = store  # None for a return, else the store's opname
        self.name = name
        self.jumps = set()


def value_sites(code):
    """The value sites of one code object, by offset (empty before Python 3.11, whose
    positions have no columns)."""
    if not HAS_POSITIONS:
        return {}
    instructions = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    at = {ins.offset: k for k, ins in enumerate(instructions)}
    sites = {}

    def consumer(k):
        """The consumer at instruction `k`, following an unconditional forward jump."""
        if k is None or k >= len(instructions):
            return None
        ins = instructions[k]
        if ins.opname in _UNCONDITIONAL and ins.argval is not None and ins.argval > ins.offset:
            k = at.get(ins.argval)
            if k is None:
                return None
            ins = instructions[k]
        if ins.opname in _RETURNS or ins.opname in _NAME_STORES:
            return ins
        return None

    def add(ins, pos):
        if pos is None:
            return
        site = sites.get(ins.offset)
        if site is None:
            name = None
            if ins.opname in _NAME_STORES:
                name = ins.argval[0] if isinstance(ins.argval, tuple) else ins.argval
            site = sites[ins.offset] = ValueSite(
                ins.offset, pos, ins.opname if ins.opname in _NAME_STORES else None, name)
        else:
            site.pos = _union(site.pos, pos)

    # Positions whose comparison was followed by a jump at the same position: the next
    # comparison there is a further link of a chain (a comparison repeated in a `finally`
    # copy is not).
    linked = set()
    value_jumps = []
    for k, ins in enumerate(instructions):
        name = ins.opname
        if name in ("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP") or (
                name.startswith("POP_JUMP") and "NONE" not in name and _copies(instructions, k)):
            pos = _pos(ins)
            if pos is not None:
                linked.add(pos)
                value_jumps.append((ins.offset, pos))
            target = consumer(at.get(ins.argval))
            if target is not None:
                add(target, pos)
        elif name in _COMPARISONS:
            pos = _pos(ins)
            if pos in linked:
                linked.discard(pos)
                # A further link of a chain: its value flows on when the links before it
                # were all true.
                target = consumer(k + 1)
                if target is not None:
                    add(target, pos)
    # A chain that ends a bigger operation (`return lo <= c <= hi or c == 0`) reaches its
    # own copy of the consumer: the site stands for the whole operation.
    for site in sites.values():
        for offset, pos in value_jumps:
            if offset < site.offset and _within(site.pos, pos):
                site.pos = _union(site.pos, pos)
    # After any jump of the operation the site may come next (`x = (a and b) or c`: when `a`
    # is false, `c` is evaluated and stored with no further jump).
    for ins in instructions:
        if "JUMP" in ins.opname and "IF" in ins.opname and _pos(ins) is not None:
            for site in sites.values():
                if ins.offset < site.offset and _within(_pos(ins), site.pos):
                    site.jumps.add(ins.offset)
    return sites


def _within(inner, outer):
    return ((outer[0], outer[1]) <= (inner[0], inner[1])
            and (inner[2], inner[3]) <= (outer[2], outer[3]))


def _copies(instructions, k):
    """Whether the conditional jump at `k` tests a copy of a value that stays on the stack
    (3.12+: `COPY 1`, `TO_BOOL`, jump): a boolean operation used as a value."""
    j = k - 1
    while j >= 0 and instructions[j].opname in ("TO_BOOL", "EXTENDED_ARG"):
        j -= 1
    return j >= 0 and instructions[j].opname == "COPY" and instructions[j].arg == 1


def _union(a, b):
    start = min((a[0], a[1]), (b[0], b[1]))
    end = max((a[2], a[3]), (b[2], b[3]))
    return (start[0], start[1], end[0], end[1])


def _fallback(pos, line):
    if pos is None and line:
        return (line, None, line, None)
    return pos


def code_objects(code):
    """`code` and every code object nested in it."""
    stack = [code]
    while stack:
        c = stack.pop()
        yield c
        stack.extend(k for k in c.co_consts if hasattr(k, "co_code"))


def lines_of_offsets(code, offsets):
    """The source lines of the instructions at `offsets`."""
    offsets = set(offsets)
    lines = set()
    if not offsets:
        return lines
    if hasattr(code, "co_lines"):
        for start, end, line in code.co_lines():
            if line is not None and any(start <= o < end for o in offsets):
                lines.add(line)
    else:
        line = None
        for ins in dis.get_instructions(code):
            if ins.starts_line:
                line = ins.starts_line
            if ins.offset in offsets and line is not None:
                lines.add(line)
    return lines


_offsets = CodeMap()


def position_at(code, lasti):
    """The source range of the instruction at `lasti` (None when unknown)."""
    table = _offsets.get(code)
    if table is None:
        table = {}
        if HAS_POSITIONS:
            for ins in dis.get_instructions(code):
                table[ins.offset] = _pos(ins)
        else:
            line = None
            for ins in dis.get_instructions(code):
                if ins.starts_line:
                    line = ins.starts_line
                table[ins.offset] = (line, None, line, None) if line else None
        _offsets[code] = table
    return table.get(lasti)
