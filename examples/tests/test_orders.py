import pytest

from shop.model import Customer, Item, Tier
from shop.orders import Order, validate


def make_order():
    return Order(Customer("Ada", Tier.GOLD))


def test_total_with_gold_discount():
    order = make_order()
    order.add_line(Item("book", 20.0), 6)
    assert order.total() == 108.0


def test_bad_quantity():
    order = make_order()
    with pytest.raises(ValueError):
        order.add_line(Item("pen", 1.0), 0)


def test_label():
    order = make_order()
    assert order.label().startswith("ORDER-")
    assert order.label("WEB").startswith("WEB-")


def test_validate_accepts_a_normal_order():
    assert validate(2, 9.5, False, "FR", 1.0) == []


def test_validate_rejects_bad_country():
    assert validate(2, 9.5, False, "france", 1.0) == ["country must be a two-letter upper-case code"]


def test_customer_tier_setter():
    customer = Customer("Bob")
    customer.tier = Tier.SILVER
    assert customer.tier is Tier.SILVER
    with pytest.raises(TypeError):
        customer.tier = "gold"
