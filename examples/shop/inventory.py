"""The stock: quantities per SKU, changed only through `add` and `remove`."""

import logging
from typing import Dict, Optional

log = logging.getLogger(__name__)


class OutOfStock(Exception):
    pass


class Stock:
    def __init__(self, capacity: int = 1000):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._items: Dict[str, int] = {}

    def add(self, sku: str, qty: int) -> None:
        if qty <= 0:
            raise ValueError("quantity must be positive")
        if self.total() + qty > self.capacity:
            raise OverflowError("stock is full")
        self._items[sku] = self._items.get(sku, 0) + qty
        log.info("added %s x%d", sku, qty)

    def remove(self, sku: str, qty: int) -> None:
        have = self._items.get(sku, 0)
        if qty > have:
            raise OutOfStock(sku)
        if qty == have:
            del self._items[sku]
        else:
            self._items[sku] = have - qty

    def quantity(self, sku: str) -> int:
        return self._items.get(sku, 0)

    def count(self) -> int:
        """How many distinct SKUs are in stock."""
        return len(self._items)

    def total(self) -> int:
        return sum(self._items.values())

    def restock_plan(self, sku: str, target: int) -> int:
        """How many units of `sku` to order to reach `target`, in crates of 12."""
        missing = target - self.quantity(sku)
        if missing <= 0:
            return 0
        crates = 0
        while crates * 12 < missing:
            crates += 1
        return crates * 12

    def diversity_bonus(self) -> float:
        # Suppliers give a bonus to shops carrying many product lines.
        if self.count() >= 5:
            if self.count() >= 20:
                return 0.1
            return 0.05
        return 0.0


def reorder_level(daily_sales: int, lead_days: int, safety: Optional[int] = None) -> int:
    level = daily_sales * lead_days
    if safety is not None and safety > 0:
        level += safety
    if level < 50:
        if level > 100:
            # Unreachable: a level below 50 is never above 100.
            level = 100
    return level


def days_of_cover(qty: int, daily_sales: int) -> int:
    """Days the stock lasts at a constant rate of sales."""
    if daily_sales <= 0:
        raise ValueError("daily sales must be positive")
    days = 0
    while qty > 0:
        qty -= daily_sales
        days += 1
    if days > 60:
        log.warning("more than two months of stock for %d units", qty)
    return days
