"""Orders: lines, totals, validation and submission."""

import datetime
import os
import random
from typing import List, Optional

from .inventory import Stock
from .model import Customer, Item, Status
from .pricing import discount_rate

MAX_LINES = 50


class Order:
    next_id = 1

    def __init__(self, customer: Customer, note: Optional[str] = None):
        self.id = Order.next_id
        Order.next_id += 1
        self.customer = customer
        self.note = note
        self.status = Status.DRAFT
        self._lines: List[tuple] = []

    def add_line(self, item: Item, qty: int) -> None:
        if self.status is not Status.DRAFT:
            raise RuntimeError("order is no longer editable")
        if qty <= 0 or qty > 999:
            raise ValueError("bad quantity")
        if len(self._lines) >= MAX_LINES:
            raise OverflowError("too many lines")
        self._lines.append((item, qty))

    def line_count(self) -> int:
        return len(self._lines)

    def subtotal(self) -> float:
        return sum(item.price * qty for item, qty in self._lines)

    def total(self, coupon: Optional[str] = None) -> float:
        subtotal = self.subtotal()
        rate = discount_rate(self.customer.tier, subtotal, coupon)
        # Big baskets: an extra 2% from 20 lines on.
        if self.line_count() >= 20:
            rate += 0.02
        return round(subtotal * (1 - rate), 2)

    def label(self, prefix: Optional[str] = None) -> str:
        name = prefix or "ORDER"
        return "{}-{:05d}".format(name, self.id)

    def submit(self, stock: Stock) -> Status:
        if not self._lines:
            raise ValueError("empty order")
        now = datetime.datetime.now()
        if now.hour < 6 or now.hour >= 22:
            raise RuntimeError("orders are accepted between 06:00 and 22:00")
        for item, qty in self._lines:
            stock.remove(item.sku, qty)
        if random.random() < 0.05:
            # A sample of orders is audited before shipping.
            self.note = (self.note or "") + " [audit]"
        self.status = Status.SUBMITTED
        self.customer.record(self.id)
        return self.status


def validate(qty: int, price: float, express: bool, country: str, weight: float) -> List[str]:
    problems = []
    if qty <= 0 or price <= 0.0:
        problems.append("quantity and price must be positive")
    if express and (country != "FR" and country != "DE" or weight > 30.0):
        problems.append("express shipping only within FR and DE, up to 30 kg")
    if not (country.isalpha() and len(country) == 2) or country.islower():
        problems.append("country must be a two-letter upper-case code")
    if qty >= 10 and qty > 0 and price * qty > 10_000:
        problems.append("large orders need approval")
    return problems


def can_ship_today(order_count: int, weekend: bool, holiday: bool) -> bool:
    cutoff_passed = datetime.datetime.now().hour >= 15
    return not weekend and not holiday and (order_count < 200 or not cutoff_passed)


def warehouse_open() -> bool:
    if os.environ.get("SHOP_MAINTENANCE") == "1":
        return False
    return True


def priority(order: Order, express: bool) -> str:
    level = "high" if express else "normal"
    if order.customer.is_loyal() and order.subtotal() > 500.0:
        level = "high"
    assert level in ("high", "normal")
    return level
