"""Accounts and sessions: balances and roles that only change through operations."""

import hashlib
import logging
import time
from typing import List, Optional

from .telemetry import trace

log = logging.getLogger(__name__)

SESSION_TTL_S = 3600


class InsufficientFunds(Exception):
    pass


class Account:
    overdraft_allowed = False

    def __init__(self, owner: str, currency: str = "EUR"):
        if len(currency) != 3:
            raise ValueError("currency codes have three letters")
        self.owner = owner
        self.currency = currency
        self._balance = 0
        self._history: List[int] = []
        self._frozen = False

    def deposit(self, amount: int) -> int:
        trace("account.deposit", owner=self.owner, amount=amount)
        if amount <= 0:  # lacuna: both=covered
            raise ValueError("deposits are positive")
        if self._frozen:  # lacuna: both=covered
            raise RuntimeError("account frozen")
        self._balance += amount
        self._history.append(amount)
        return self._balance

    def withdraw(self, amount: int) -> int:
        trace("account.withdraw", owner=self.owner, amount=amount)
        if amount <= 0:  # lacuna: both=covered
            raise ValueError("withdrawals are positive")
        if amount > self._balance and not self.overdraft_allowed:  # lacuna: both=covered
            raise InsufficientFunds("%s has %d" % (self.owner, self._balance))
        self._balance -= amount
        self._history.append(-amount)
        return self._balance

    def freeze(self) -> None:
        log.warning("freezing the account of %s", self.owner)
        self._frozen = True

    def statement(self) -> str:
        lines = ["%s (%s)" % (self.owner, self.currency)]
        for entry in self._history:
            sign = "+" if entry > 0 else "-"  # lacuna: both=covered
            lines.append("%s%d" % (sign, abs(entry)))
        if len(self._history) > 40:  # lacuna: true=object-creation[Account._history]
            lines.append("(more than 40 operations)")
        return "\n".join(lines)


def transfer(source: Account, target: Account, amount: int) -> None:
    trace("account.transfer", amount=amount)
    if source.currency != target.currency:  # lacuna: both=covered
        raise ValueError("currencies differ")
    source.withdraw(amount)
    target.deposit(amount)


class Session:
    def __init__(self, user: str):
        self.user = user
        self._roles: List[str] = []
        self._started = time.monotonic()
        self._token: Optional[str] = None

    def grant(self, role: str) -> None:
        if role not in self._roles:  # lacuna: both=covered
            self._roles.append(role)

    def login(self, password: str) -> str:
        trace("session.login", user=self.user)
        if not password:  # lacuna: both=covered
            raise ValueError("a password is needed")
        digest = hashlib.sha256((self.user + ":" + password).encode("utf-8")).hexdigest()
        self._token = digest[:32]
        return self._token

    def require(self, role: str) -> None:
        if self._token is None:  # lacuna: both=covered
            raise PermissionError("not logged in")
        if role not in self._roles:  # lacuna: both=covered
            raise PermissionError("%s lacks %s" % (self.user, role))

    def expired(self) -> bool:
        age = time.monotonic() - self._started
        if age > SESSION_TTL_S:  # lacuna: true=external-call[time.monotonic]
            log.info("session of %s expired", self.user)
            return True
        return False
