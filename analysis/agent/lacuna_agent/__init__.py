"""Lacuna's agent: runs one function of a Python project at a time on generated inputs, in a
sandbox, and reports the branches taken, the symbolic conditions behind them and the external
calls made. Standard library only; CPython 3.9-3.13."""

PROTOCOL = 1
