"""``rdx serve`` moved to the ``rdx_web`` package (the pages for people and the JSON API under
``/api/``); this module re-exports its entry points for code that imported them from here."""

from rdx_web import MAX_URL_BYTES, TOKEN_ENV, build_app, is_loopback, serve

__all__ = ["MAX_URL_BYTES", "TOKEN_ENV", "build_app", "is_loopback", "serve"]
