"""Connecting to Ray: the one place that imports it for the driver, so a missing extra or an
unreachable cluster is one clear ``rdx`` error instead of a traceback from inside Ray.
"""

from __future__ import annotations

import socket
from typing import Any

import rdx

__all__ = ["connect", "ray_module"]


def ray_module() -> Any:
    """The ``ray`` module, or an error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise rdx.InvalidArgumentError("rdx fleet needs Ray; install it with pip install 'rdx[fleet]'") from None
    return ray


def _check_reachable(address: str) -> None:
    """Fail at once, not after Ray's minute of retries, when nothing listens at HOST:PORT."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except (OSError, ValueError) as exc:
        raise rdx.IOFailureError(
            f"cannot reach the Ray cluster at {rdx.excerpt(address)}: {exc}; start it with ray start --head or check --address"
        ) from None


def connect(address: str | None = None, *, num_cpus: int | None = None) -> Any:
    """Ray, initialised: attached to the cluster at ``address`` (``auto``, ``HOST:PORT`` or
    ``ray://HOST:PORT``), or a local one when ``address`` is None. Already initialised: as is."""
    ray = ray_module()
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if address is None:
        kwargs["num_cpus"] = num_cpus
    if address and address != "auto" and not address.startswith("ray://"):
        _check_reachable(address)
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = rdx.excerpt(address or "a local cluster")
        raise rdx.IOFailureError(f"cannot reach the Ray cluster at {where}: {rdx.excerpt(str(exc), 200)}; start it with ray start --head or check --address") from None
    return ray
