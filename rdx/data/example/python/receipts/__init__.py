"""Receipts for the shop: the Python side of the example project."""

from .printer import Printer

__all__ = ["Printer"]
