"""Describing methods: a class's description is made once per worker, not once per method."""

import dataclasses

from lacuna_agent import describe


@dataclasses.dataclass
class Item:
    name: str
    price: int


class Cart:
    def __init__(self, items: list):
        self.items = items

    def add(self, item: Item, count: int = 1) -> None:
        self.items.extend([item] * count)

    def total(self, discount: float) -> float:
        return sum(i.price for i in self.items) * (1 - discount)


def project(cls):
    return cls in (Item, Cart)


def test_the_receiver_is_described_once_for_all_its_methods(monkeypatch):
    describe._CLASSES.clear()
    walks = []
    real = describe._describe_class

    def counting(cls, is_project_class, depth):
        walks.append((cls.__name__, depth))
        return real(cls, is_project_class, depth)

    monkeypatch.setattr(describe, "_describe_class", counting)
    add = describe.describe(Cart.add, Cart, project)
    total = describe.describe(Cart.total, Cart, project)
    assert add["owner"] is total["owner"]
    assert add["owner"]["class"].endswith(":Cart")
    assert [m["name"] for m in add["owner"]["methods"]] == ["add", "total"]
    # `Cart` as the receiver once; `Item` once as `add`'s parameter (depth 1) and once inside
    # the receiver's description of `add` (depth 2).
    assert sorted(walks) == [("Cart", 1), ("Item", 1), ("Item", 2)]
    describe.describe(Cart.add, Cart, project)
    assert len(walks) == 3, "nothing walked again"
