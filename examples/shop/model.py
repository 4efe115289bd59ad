"""Plain data of the shop: items, customers and their loyalty tiers, order states."""

import enum
from dataclasses import dataclass, field
from typing import List


class Tier(enum.Enum):
    BASIC = "basic"
    SILVER = "silver"
    GOLD = "gold"


class Status(enum.Enum):
    DRAFT = 1
    SUBMITTED = 2
    SHIPPED = 3
    CANCELLED = 4


@dataclass
class Item:
    sku: str
    price: float
    weight: float = 0.5
    tags: List[str] = field(default_factory=list)

    def is_fragile(self) -> bool:
        return "fragile" in self.tags or self.weight > 20.0


class Customer:
    """A customer; the tier can be changed, the order history only grows through `record`."""

    registered = 0

    def __init__(self, name: str, tier: Tier = Tier.BASIC):
        self.name = name
        self._tier = tier
        self._orders = []
        Customer.registered += 1

    @property
    def tier(self) -> Tier:
        return self._tier

    @tier.setter
    def tier(self, value: Tier) -> None:
        if not isinstance(value, Tier):
            raise TypeError("tier must be a Tier")
        self._tier = value

    def record(self, order_id: int) -> None:
        self._orders.append(order_id)

    def is_loyal(self) -> bool:
        # Loyalty needs history: ten orders recorded, or gold with at least three.
        return len(self._orders) >= 10 or (self._tier is Tier.GOLD and len(self._orders) >= 3)
