"""``workspace/didChangeWatchedFiles``, registered dynamically: once the client says it is
``initialized``, the server asks it (``client/registerCapability``) to watch the files rdx
indexes and the files that change how it indexes (``Gemfile.lock``, ``rdx.toml`` and the other
languages' project files), when the client can register that capability dynamically; a client
that cannot keeps watching what its own configuration says. The notifications themselves are
handled in ``features.py``."""

from __future__ import annotations

from lsprotocol import types as lsp

from rdx_lsp.server import RdxLanguageServer

__all__ = ["WATCHED", "register"]

# Source files of every language rdx parses, and the files its configuration reads.
WATCHED = [
    "**/*.{rb,rake,gemspec,ru,erb}",
    "**/*.{py,pyi,js,jsx,mjs,cjs,ts,tsx,go,rs,java,c,h,cc,cpp,cxx,hh,hpp,hxx,php,cs,md}",
    "**/{Gemfile,Gemfile.lock,Rakefile,rdx.toml,pyproject.toml,go.mod,Cargo.toml,package.json,tsconfig.json,jsconfig.json}",
]


def register(server: RdxLanguageServer) -> None:
    @server.feature(lsp.INITIALIZED)
    def initialized(ls: RdxLanguageServer, params: lsp.InitializedParams) -> None:
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        options = lsp.DidChangeWatchedFilesRegistrationOptions(watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in WATCHED])
        registration = lsp.Registration(id="rdx-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        ls.client_register_capability(lsp.RegistrationParams(registrations=[registration]))
