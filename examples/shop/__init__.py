"""Stock, pricing and order processing for a small online shop."""

from .model import Customer, Item, Status, Tier
from .inventory import Stock
from .orders import Order

__all__ = ["Customer", "Item", "Order", "Status", "Stock", "Tier"]
