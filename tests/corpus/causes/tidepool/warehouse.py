"""Stock in a warehouse: goods received, reserved for orders and released, within a capacity."""

import logging
from typing import Dict

from .telemetry import trace

log = logging.getLogger(__name__)


class OutOfStock(Exception):
    pass


class Warehouse:
    def __init__(self, name: str, capacity: int = 1000):
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.name = name
        self.capacity = capacity
        self._stock: Dict[str, int] = {}
        self._reserved: Dict[str, int] = {}

    def receive(self, sku: str, qty: int) -> int:
        trace("warehouse.receive", sku=sku, qty=qty)
        if qty <= 0:  # lacuna: both=covered
            raise ValueError("received quantities are positive")
        if sum(self._stock.values()) + qty > self.capacity:  # lacuna: both=covered
            raise OverflowError("%s is full" % self.name)
        self._stock[sku] = self._stock.get(sku, 0) + qty
        return self._stock[sku]

    def available(self, sku: str) -> int:
        return self._stock.get(sku, 0) - self._reserved.get(sku, 0)

    def reserve(self, sku: str, qty: int) -> None:
        trace("warehouse.reserve", sku=sku, qty=qty)
        if qty <= 0:  # lacuna: both=covered
            raise ValueError("reserved quantities are positive")
        if self.available(sku) < qty:
            raise OutOfStock("%d of %s wanted" % (qty, sku))
        self._reserved[sku] = self._reserved.get(sku, 0) + qty

    def release(self, sku: str, qty: int) -> None:
        trace("warehouse.release", sku=sku, qty=qty)
        held = self._reserved.get(sku, 0)
        if qty > held:  # lacuna: both=covered
            raise ValueError("only %d of %s reserved" % (held, sku))
        self._reserved[sku] = held - qty
        if self._reserved[sku] == 0:  # lacuna: both=covered
            del self._reserved[sku]

    def utilisation(self) -> float:
        used = sum(self._stock.values())
        if used * 10 >= self.capacity * 9:  # lacuna: both=covered
            log.warning("%s is over 90%% full", self.name)
        return used / self.capacity
