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


def test_a_guidance_modules_factories_and_mocks_are_described():
    import types

    guidance = types.ModuleType("shop_guidance")

    def make_cart(items: list) -> Cart:
        return Cart(items)

    def now(*args, **kwargs) -> float:
        return 0.0

    make_cart.__module__ = now.__module__ = guidance.__name__
    make_cart.__lacuna_factory__ = True
    now.__lacuna_mock__ = "time.time"
    guidance.make_cart, guidance.now = make_cart, now
    described = describe.guidance(guidance, project)
    assert [m["target"] for m in described["mocks"]] == ["time.time"]
    assert [(f["function"].split(":")[0], f["class"]) for f in described["factories"]] == [
        ("shop_guidance", describe._name(Cart))]
