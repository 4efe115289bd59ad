import pytest

from shop.model import Tier
from shop.pricing import (
    bulk_unit_price,
    discount_rate,
    percent_off,
    quantity_break,
    shipping_cost,
    within_free_zone,
)


def test_gold_discount():
    assert discount_rate(Tier.GOLD, 150.0) == 0.1
    assert discount_rate(Tier.BASIC, 150.0) == 0.0


def test_coupon():
    assert discount_rate(Tier.BASIC, 10.0, "SAVE15") == pytest.approx(0.15)


def test_bulk_price():
    assert bulk_unit_price(2.0, 10) == 2.0
    assert bulk_unit_price(2.0, 200) == 1.9


def test_shipping():
    assert shipping_cost(2.0, 10) == 5.99
    with pytest.raises(ValueError):
        shipping_cost(0, 10)


def test_free_zone():
    assert within_free_zone(3, 4, 5)
    assert not within_free_zone(4, 4, 5)


def test_quantity_breaks():
    assert quantity_break(7) == 0
    assert quantity_break(16) == 2


def test_percent_off():
    assert percent_off(25) == 0.25
    with pytest.raises(ValueError):
        percent_off(0)
