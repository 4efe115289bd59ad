"""The truth value of a value a decision passes on (`return key and pattern.match(key)`) is read
only when reading it runs no Python code: builtin values, objects whose `__bool__` and `__len__`
are C code or absent (a regular expression's match, a deque, a plain instance), and the objects
external calls return, through the agent's wrapper. A `__bool__` or `__len__` written in Python
is never run."""

import collections
import enum
import re
import types
import weakref

from lacuna_agent import interpose
from lacuna_agent.sym import truth_of


class Plain:
    pass


class Sized:
    def __init__(self):
        self.calls = 0

    def __len__(self):
        self.calls += 1
        return 0


class Truthy:
    def __init__(self):
        self.calls = 0

    def __bool__(self):
        self.calls += 1
        return False


class Items(list):
    pass


class CountedItems(list):
    def __len__(self):
        raise AssertionError("project code ran")


class CountedMapping(dict):
    def __len__(self):
        raise AssertionError("project code ran")


class Colour(enum.Enum):
    RED = 1


def test_values_whose_truth_is_c_code_are_read():
    assert truth_of(re.match("a", "abc")) == (True, None)
    assert truth_of(re.match("a", "xyz")) == (False, None)
    assert truth_of(collections.deque()) == (False, None)
    assert truth_of(collections.deque([1])) == (True, None)
    assert truth_of(Plain()) == (True, None)
    assert truth_of(Items()) == (False, None)
    assert truth_of(Colour.RED) == (True, None)


def test_a_truth_written_in_python_is_never_run():
    sized, truthy = Sized(), Truthy()
    assert truth_of(sized) == (None, None)
    assert truth_of(truthy) == (None, None)
    assert truth_of(CountedItems([1])) == (None, None)
    assert (sized.calls, truthy.calls) == (0, 0)


def test_an_external_calls_returned_object_has_the_truth_of_what_it_wraps():
    match = interpose.wrap_returned(re.compile("^4").match("4242"), "$ret:0")
    assert isinstance(match, interpose.ReturnedObject)
    assert truth_of(match) == (True, None)
    wrapped = interpose.wrap_returned(Truthy(), "$ret:1")
    assert truth_of(wrapped) == (None, None)


def test_a_c_proxy_that_asks_the_object_it_stands_for_is_not_read():
    truthy, sized = Truthy(), Sized()
    assert truth_of(weakref.proxy(truthy)) == (None, None)
    assert truth_of(weakref.proxy(lambda: None)) == (None, None)
    assert truth_of(types.MappingProxyType({})) == (None, None)
    assert truth_of(types.MappingProxyType(CountedMapping())) == (None, None)
    assert truth_of(weakref.ref(truthy)) == (True, None)
    assert (truthy.calls, sized.calls) == (0, 0)
