import pytest

from shop.inventory import OutOfStock, Stock, reorder_level


def test_add_and_remove():
    stock = Stock(capacity=100)
    stock.add("apple", 10)
    stock.add("apple", 5)
    stock.remove("apple", 3)
    assert stock.quantity("apple") == 12
    assert stock.count() == 1


def test_remove_everything_forgets_the_sku():
    stock = Stock()
    stock.add("pear", 2)
    stock.remove("pear", 2)
    assert stock.count() == 0


def test_out_of_stock():
    stock = Stock()
    with pytest.raises(OutOfStock):
        stock.remove("plum", 1)


def test_capacity():
    stock = Stock(capacity=10)
    with pytest.raises(OverflowError):
        stock.add("fig", 11)


def test_restock_plan_rounds_to_crates():
    stock = Stock()
    stock.add("kiwi", 5)
    assert stock.restock_plan("kiwi", 30) == 36
    assert stock.restock_plan("kiwi", 3) == 0


def test_reorder_level():
    assert reorder_level(10, 3) == 30
    assert reorder_level(10, 3, safety=5) == 35
