"""Fields of project objects made proxies in place for a run, and put back after it."""

from lacuna_agent import objects
from lacuna_agent.sym import Sym


class Account:
    def __init__(self):
        self.balance = 10
        self.owner = "ann"


class Sized:
    __slots__ = ("size",)

    def __init__(self):
        self.size = 3


def _is_project(value):
    return isinstance(value, (Account, Sized))


def test_fields_made_proxies_for_a_run_hold_their_values_again_after_it():
    shared, sized = Account(), Sized()
    objects.wrap(shared, "account", _is_project)
    objects.wrap(sized, "sized", _is_project)
    assert isinstance(shared.balance, Sym) and isinstance(sized.size, Sym)
    shared.owner = "bob"  # what the run did to the object stays
    objects.put_back()
    assert type(shared.balance) is int and shared.balance == 10
    assert shared.owner == "bob"
    assert type(sized.size) is int and sized.size == 3
    # A second run makes them proxies again, named by its own paths.
    objects.wrap(shared, "other", _is_project)
    assert isinstance(shared.balance, Sym)
    objects.put_back()
