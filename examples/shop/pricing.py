"""Prices: discounts by tier and coupon, bulk pricing, shipping, promotions."""

import math
import random
import time
from typing import Optional

from .model import Tier

PROMO_START = 1_700_000_000
PROMO_END = 1_900_000_000


def discount_rate(tier: Tier, total: float, coupon: Optional[str] = None) -> float:
    """The fraction taken off an order's total."""
    rate = 0.0
    if tier is Tier.GOLD and total >= 100.0 or tier is Tier.SILVER and total >= 250.0:
        rate = 0.1
    if coupon is not None and coupon.startswith("SAVE") and len(coupon) == 6:
        rate += int(coupon[4:]) / 100 if coupon[4:].isdigit() else 0.0
    return min(rate, 0.5)


def bulk_unit_price(unit: float, qty: int) -> float:
    """Unit price for a quantity: 5% off from 100 units, 12% off from 1000."""
    if qty <= 0:
        raise ValueError("quantity must be positive")
    if qty > 100:
        unit = unit * 0.95
    if qty >= 1000 and unit > 1.0:
        unit = unit * 0.88 / 0.95
    return round(unit, 2)


def shipping_cost(weight: float, distance: int, express: bool = False) -> float:
    if weight <= 0 or distance < 0:
        raise ValueError("weight must be positive and distance non-negative")
    cost = 4.99 + 0.5 * weight
    if weight * distance > 5000:
        cost *= 1.5
    if express and not (distance > 800 or weight > 30.0):
        cost += 9.99
    elif express:
        raise ValueError("express shipping is not available for this parcel")
    return round(cost, 2)


def within_free_zone(x: int, y: int, radius: int) -> bool:
    """Free delivery inside a circle around the warehouse."""
    return x * x + y * y <= radius * radius


def in_promotion(now: Optional[float] = None) -> bool:
    stamp = time.time() if now is None else now
    return PROMO_START <= stamp < PROMO_END


def flash_sale_price(price: float) -> float:
    # A random tenth of the visitors see the flash price.
    if random.random() < 0.1:
        return round(price * 0.7, 2)
    return price


def price_with_tax(net: float, rate: float) -> float:
    gross = net * (1.0 + rate)
    if math.isclose(gross, round(gross), abs_tol=1e-9) and gross > 0:
        return float(round(gross))
    return round(gross, 2)


def quantity_break(qty: int) -> int:
    """The number of price breaks a quantity passes (one per doubling from 8)."""
    breaks = 0
    level = 8
    while level <= qty:
        breaks += 1
        level *= 2
    if breaks >= 6:
        return 6
    return breaks


def pick_warehouse(stock_a, stock_b, distance_a, distance_b):
    score = (distance_b - distance_a) if stock_a >= 0 and stock_b >= 0 else 0
    return "A" if score >= 0 and stock_a > 0 or stock_b <= 0 else "B"


def percent_off(pct: int) -> float:
    if not 0 < pct <= 100:
        raise ValueError("percentage out of range")
    return pct / 100
