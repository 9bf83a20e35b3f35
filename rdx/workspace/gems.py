"""The project's gems: what ``Gemfile.lock`` locks and where each locked gem is installed.

``read_lockfile`` parses Bundler's lockfile format (the ``GEM``, ``PATH`` and ``GIT`` sections'
``specs:`` lists, four-space indented ``name (version[-platform])`` lines; the six-space lines
under them are dependencies, not locked gems). ``locate`` finds each gem's installed files:

1. the project's Bundler install path (``BUNDLE_PATH`` in ``.bundle/config``, else
   ``vendor/bundle``), where ``bundle install --path`` puts gems;
2. Ruby's own answer when ``ruby`` runs here: Bundler's (``Bundler.definition.specs``, when the
   root has a ``Gemfile`` and every locked gem is installed), else ``Gem::Specification`` over every gem directory
   RubyGems knows (GEM_HOME, GEM_PATH, Debian's rubygems-integration directories, default gems),
   including gems whose files a distribution moved into ``vendor_ruby`` or ``rubylibdir`` (their
   spec lists the files, found again on ``$LOAD_PATH``);
3. without Ruby, the same well-known gem directories scanned for ``name-version``.

A gem locked at a version that is not installed, but installed at another version, is used at
that version with a warning (Debian ships one version of each gem). A gem installed nowhere is a
``gem-missing`` warning; nothing here raises on a bad lockfile or a broken Ruby.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess

import msgspec

__all__ = ["LockedGem", "InstalledGem", "GemProblem", "read_lockfile", "read_gemfile", "locate", "local_gems", "LOCKFILE", "LOCAL_GEMS"]

LOCKFILE = "Gemfile.lock"
LOCAL_GEMS = "RDX_LOCAL_GEMS"
_SPEC_LINE = re.compile(r"^    ([A-Za-z0-9_.\-]+) \(([^)]+)\)\s*$")
_PLATFORM = re.compile(r"^(\d[\w.]*?)(?:-(?:x86|x64|arm|aarch|universal|java|mingw|mswin|darwin|linux|ruby)[\w.\-]*)?$")
_PROBE_TIMEOUT = 60


class LockedGem(msgspec.Struct, frozen=True):
    """One gem the lockfile locks; ``path`` is set for a ``PATH`` source (relative to the root)."""

    name: str
    version: str
    source: str = "rubygems"  # rubygems | path | git
    path: str | None = None


class InstalledGem(msgspec.Struct, frozen=True):
    """Where a locked gem's Ruby files are: its require directories, or explicit files when a
    distribution spread them over shared directories."""

    name: str
    version: str  # the installed version (may differ from the locked one)
    dirs: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


class GemProblem(msgspec.Struct, frozen=True):
    code: str  # gem-missing | gem-version-mismatch | lockfile-unreadable
    message: str
    severity: str = "warning"


def read_lockfile(text: str) -> list[LockedGem]:
    """The gems a ``Gemfile.lock`` locks, in file order, without duplicates (platform variants
    of one gem count once)."""
    gems: dict[str, LockedGem] = {}
    section = ""
    remote: str | None = None
    in_specs = False
    for line in text.splitlines():
        if line and not line[0].isspace():
            section, remote, in_specs = line.strip(), None, False
            continue
        stripped = line.strip()
        if stripped.startswith("remote:") and line.startswith("  ") and not line.startswith("   "):
            remote = stripped[len("remote:") :].strip()
            continue
        if stripped == "specs:":
            in_specs = True
            continue
        match = _SPEC_LINE.match(line)
        if not (in_specs and match and section in ("GEM", "PATH", "GIT")):
            continue
        name, raw_version = match.groups()
        version_match = _PLATFORM.match(raw_version)
        version = version_match.group(1) if version_match else raw_version
        source = {"GEM": "rubygems", "PATH": "path", "GIT": "git"}[section]
        gems.setdefault(name, LockedGem(name, version, source, remote if source == "path" else None))
    return list(gems.values())


def read_gemfile(source: bytes) -> list[tuple[str, tuple[str, ...] | None, tuple[str, ...]]]:
    """The gems a ``Gemfile`` names, in its order, as ``(name, requires, groups)``: what
    ``Bundler.require`` loads. ``requires`` is None for Bundler's default (the gem's name, or
    its name with ``-`` read as ``/``), the paths of a literal ``require:`` (empty for ``require:
    false``); ``groups`` are the ``group`` blocks and ``group:``/``groups:`` options around and on
    the ``gem`` call (``("default",)`` outside any). A gem named twice keeps its first place.
    Calls that are not literal (a name computed at run time) are left out."""
    import tree_sitter
    import tree_sitter_ruby

    def symbol_name(node: object) -> str | None:
        """A literal symbol's or plain string's text."""
        t = node.type  # type: ignore[attr-defined]
        if t == "simple_symbol":
            return node.text.decode("utf-8", "replace")[1:]  # type: ignore[attr-defined,no-any-return]
        if t in ("string", "delimited_symbol") and node.named_child_count == 1 and node.named_children[0].type == "string_content":  # type: ignore[attr-defined]
            return node.named_children[0].text.decode("utf-8", "replace")  # type: ignore[attr-defined,no-any-return]
        return None

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_ruby.language()))
    out: dict[str, tuple[str, tuple[str, ...] | None, tuple[str, ...]]] = {}

    def names(node: object) -> list[str]:
        """Literal symbols or strings: one, or an array of them."""
        t = node.type  # type: ignore[attr-defined]
        if t == "array":
            return [n for child in node.named_children if (n := symbol_name(child)) is not None]  # type: ignore[attr-defined]
        if t in ("string_array", "symbol_array"):  # %w[a b], %i[a b]
            return [child.text.decode("utf-8", "replace") for child in node.named_children]  # type: ignore[attr-defined]
        n = symbol_name(node)
        return [] if n is None else [n]

    def visit(node: object, groups: tuple[str, ...]) -> None:
        for child in node.named_children:  # type: ignore[attr-defined]
            if child.type != "call" or child.child_by_field_name("receiver") is not None:
                continue
            method = child.child_by_field_name("method")
            verb = method.text.decode() if method is not None else ""
            args = child.child_by_field_name("arguments")
            positional = [a for a in args.named_children if a.type != "pair"] if args is not None else []
            options = {}
            for pair in (a for a in args.named_children if a.type == "pair") if args is not None else ():
                key = pair.child_by_field_name("key")
                value = pair.child_by_field_name("value")
                if key is not None and value is not None:
                    options[key.text.decode().rstrip(":").lstrip(":")] = value
            block = child.child_by_field_name("block")
            if verb == "group" and block is not None:
                inner = tuple(n for a in positional for n in names(a))
                body = block.child_by_field_name("body") or block
                visit(body, inner or groups)
            elif verb in ("platforms", "platform", "source", "git_source", "path", "git") and block is not None:
                visit(block.child_by_field_name("body") or block, groups)
            elif verb == "gem" and positional:
                name = symbol_name(positional[0])
                if name is None or name in out:
                    continue
                own = tuple(n for key in ("group", "groups") if key in options for n in names(options[key]))
                requires: tuple[str, ...] | None = None
                if "require" in options:
                    value = options["require"]
                    requires = () if value.type == "false" else tuple(names(value))
                out[name] = (name, requires, own or groups)

    tree = parser.parse(source)
    visit(tree.root_node, ("default",))
    return list(out.values())


def _bundle_dirs(root: str) -> list[str]:
    """Gem directories of the project's Bundler install path (``BUNDLE_PATH``)."""
    bundle_path = os.path.join(root, "vendor", "bundle")
    config = os.path.join(root, ".bundle", "config")
    try:
        with open(config, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "BUNDLE_PATH":
                    bundle_path = os.path.join(root, value.strip().strip("\"'"))
    except OSError:
        pass
    dirs = sorted(glob.glob(os.path.join(bundle_path, "ruby", "*", "gems")))
    dirs += sorted(glob.glob(os.path.join(bundle_path, "ruby", "*", "bundler", "gems")))
    return dirs


def _well_known_dirs() -> list[str]:
    """Gem directories RubyGems searches by default, for when Ruby cannot be asked."""
    bases = [p for p in os.environ.get("GEM_PATH", "").split(os.pathsep) if p]
    if os.environ.get("GEM_HOME"):
        bases.insert(0, os.environ["GEM_HOME"])
    home = os.path.expanduser("~")
    patterns = [
        f"{home}/.gem/ruby/*", f"{home}/.local/share/gem/ruby/*", "/var/lib/gems/*", "/usr/local/lib/ruby/gems/*",
        "/usr/lib/ruby/gems/*", "/usr/share/rubygems-integration/*", "/usr/lib/*/rubygems-integration/*",
    ]
    for pattern in patterns:
        bases += sorted(glob.glob(pattern))
    return [os.path.join(b, "gems") for b in bases if os.path.isdir(os.path.join(b, "gems"))]


def _scan(gem: LockedGem, dirs: list[str]) -> InstalledGem | None:
    """The gem's ``lib`` in the first directory holding ``name-version`` (platform suffixes
    allowed; a git checkout is ``name-<revision>``)."""
    fallback: InstalledGem | None = None
    for directory in dirs:
        for candidate in sorted(glob.glob(os.path.join(glob.escape(directory), glob.escape(gem.name) + "-*"))):
            rest = os.path.basename(candidate)[len(gem.name) + 1 :]
            lib = os.path.join(candidate, "lib")
            if not os.path.isdir(lib) or not rest[:1].isalnum():
                continue
            version = rest.split("-")[0] if rest[:1].isdigit() else gem.version
            if rest == gem.version or rest.startswith(gem.version + "-") or (gem.source == "git" and not rest[:1].isdigit()):
                return InstalledGem(gem.name, gem.version, (lib,))
            if rest[:1].isdigit() and fallback is None:
                fallback = InstalledGem(gem.name, version, (lib,))
    return fallback


# Asks RubyGems where each gem (name, locked version) is: its installed version and the
# directories (or, for gems a distribution spread out, the files) holding its Ruby code.
_PROBE = r"""
require "json"
out = {}
root, gems = JSON.parse(STDIN.read)
bundled = {}
if File.file?(File.join(root, "Gemfile"))
  begin
    # Bundler's own answer (git gems, BUNDLE_PATH, the exact locked versions) when every gem is there.
    ENV["BUNDLE_GEMFILE"] = File.join(root, "Gemfile")
    require "bundler"
    Bundler.ui = Bundler::UI::Silent.new if defined?(Bundler::UI::Silent)
    Bundler.definition.specs.each { |s| bundled[s.name] = s }
  rescue Exception
    bundled = {}
  end
end
gems.each do |name, version|
  specs = Gem::Specification.find_all_by_name(name)
  spec = bundled[name] || specs.find { |s| s.version.to_s == version } || specs.max_by(&:version)
  next out[name] = nil unless spec
  dirs = spec.full_require_paths.select { |d| File.directory?(d) && !Dir.glob(File.join(d, "**", "*.rb")).empty? }
  files = []
  if dirs.empty?
    prefixes = spec.require_paths.map { |p| p.end_with?("/") ? p : p + "/" }
    spec.files.each do |f|
      next unless f.end_with?(".rb")
      rel = prefixes.map { |p| f.start_with?(p) ? f[p.size..] : nil }.compact.first || f
      hit = $LOAD_PATH.map { |d| File.join(d, rel) }.find { |p| File.file?(p) }
      files << hit if hit
    end
  end
  if dirs.empty? && files.empty? && !File.directory?(spec.full_gem_path)
    # Installed elsewhere without a file list (some distributions do that): the files its name
    # would be required by.
    [name, name.tr("-", "/"), name.tr("-", "_")].uniq.each do |base|
      $LOAD_PATH.each do |d|
        files << File.join(d, base + ".rb") if File.file?(File.join(d, base + ".rb"))
        files.concat(Dir.glob(File.join(d, base, "**", "*.rb"))) if File.directory?(File.join(d, base))
      end
    end
    files.uniq!
  end
  out[name] = { "version" => spec.version.to_s, "dirs" => dirs, "files" => files }
end
# What the answer depends on besides the input, for ``_remembered``: the directories RubyGems
# finds specifications in and the load path (a gem installed or removed changes one), Bundler's
# install path, and each found gem's specification file.
watch = []
begin
  watch = Gem::Specification.dirs + $LOAD_PATH.map(&:to_s)
  watch << Bundler.bundle_path.to_s if defined?(Bundler) && !bundled.empty?
  gems.each do |name, _version|
    spec = bundled[name] || Gem::Specification.find_all_by_name(name).first
    from = spec.respond_to?(:loaded_from) ? spec.loaded_from : nil
    watch << from.to_s if from
  end
rescue Exception
  watch = nil # Not remembered: asked again next time.
end
print JSON.generate({ "gems" => out, "watch" => watch&.uniq })
"""


def _ask_ruby(root: str, gems: list[LockedGem], memo_dir: str | None = None) -> dict[str, dict[str, object] | None] | None:
    """Ruby's answer for ``gems`` (``_PROBE``), or None without Ruby or when it fails.
    ``memo_dir``: where the answer is remembered (``_remembered``), so that a warm open does
    not start Ruby (about a second) when nothing it depends on changed."""
    ruby = shutil.which("ruby")
    if ruby is None or not gems:
        return None
    request = [root, [[g.name, g.version] for g in gems]]
    memo = _memo_path(memo_dir, ruby, request) if memo_dir is not None else None
    if memo is not None:
        remembered = _remembered(memo, root, ruby)
        if remembered is not None:
            return remembered
    try:
        done = subprocess.run(
            [ruby, "-e", _PROBE],
            input=json.dumps(request),
            capture_output=True, text=True, timeout=_PROBE_TIMEOUT, check=False, cwd=root,
        )
        answer = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if not isinstance(answer, dict) or not isinstance(answer.get("gems"), dict):
        return None
    watch = answer.get("watch")
    if memo is not None and isinstance(watch, list):
        _remember(memo, answer["gems"], _watched(root, ruby, [w for w in watch if isinstance(w, str)]))
    gems_answer: dict[str, dict[str, object] | None] = answer["gems"]
    return gems_answer


# Environment variables that change where RubyGems and Bundler look (part of a memo's name).
_RUBY_ENVIRONMENT = ("GEM_HOME", "GEM_PATH", "GEM_SPEC_CACHE", "RUBYLIB", "RUBYOPT", "HOME", "XDG_DATA_HOME")


def _memo_path(memo_dir: str, ruby: str, request: object) -> str:
    environment = sorted((k, v) for k, v in os.environ.items() if k in _RUBY_ENVIRONMENT or k.startswith("BUNDLE_"))
    key = hashlib.blake2b(json.dumps([ruby, request, environment]).encode(), digest_size=10).hexdigest()
    return os.path.join(memo_dir, f"located-{key}.json")


def _identity(path: str) -> list[int] | None:
    """What changes when a file or directory is replaced, written or has entries added or
    removed (the ctime cannot be set back); None when there is nothing there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def _watched(root: str, ruby: str, watch: list[str]) -> list[tuple[str, list[int] | None]]:
    """Every path Ruby's answer depends on, with its identity now: the project's Gemfile, lock
    and Bundler configuration, the Ruby binary and what the probe names (``_PROBE``)."""
    paths = [os.path.join(root, n) for n in ("Gemfile", LOCKFILE, os.path.join(".bundle", "config"))]
    paths += [os.path.realpath(ruby), os.path.join(os.path.expanduser("~"), ".bundle", "config"), *watch]
    return [(p, _identity(p)) for p in dict.fromkeys(paths)]


def _remember(memo: str, answer: dict[str, object], watched: list[tuple[str, list[int] | None]]) -> None:
    """Write the memo atomically; a memo that cannot be written only costs the next probe."""
    try:
        os.makedirs(os.path.dirname(memo), exist_ok=True)
        tmp = f"{memo}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"answer": answer, "watched": watched}, f)
        os.replace(tmp, memo)
    except OSError:
        pass


def _remembered(memo: str, root: str, ruby: str) -> dict[str, dict[str, object] | None] | None:
    """The remembered answer, if every path it depends on is as it was when Ruby answered."""
    try:
        with open(memo, encoding="utf-8") as f:
            saved = json.load(f)
        answer, watched = saved["answer"], saved["watched"]
        if not isinstance(answer, dict) or not isinstance(watched, list):
            return None
        if not all(isinstance(w, list) and len(w) == 2 and isinstance(w[0], str) and _identity(w[0]) == w[1] for w in watched):
            return None
        # The project's files are always among them (a memo of another shape is not trusted).
        if not any(w[0] == os.path.join(root, LOCKFILE) for w in watched) or not any(w[0] == os.path.realpath(ruby) for w in watched):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return answer


def _from_ruby(gem: LockedGem, answer: dict[str, object] | None) -> InstalledGem | None:
    """The installed gem Ruby found (possibly without Ruby code: ``rails`` itself has none)."""
    if not answer:
        return None
    raw_dirs, raw_files = answer.get("dirs"), answer.get("files")
    dirs = tuple(str(d) for d in raw_dirs) if isinstance(raw_dirs, list) else ()
    files = tuple(str(f) for f in raw_files) if isinstance(raw_files, list) else ()
    return InstalledGem(gem.name, str(answer.get("version", gem.version)), dirs, files)


def local_gems() -> dict[str, str]:
    """Gems taken from a checkout rather than where they are installed, whatever their source:
    ``RDX_LOCAL_GEMS``, a JSON object from gem name to directory (as Bundler's ``local.GEM``
    override). Such a gem's files are its checkout's ``lib``, at the locked version plus a
    stamp of those files' contents (``0.3.0+1a2b3c4d``), so an edited checkout is not taken
    from the gem cache (a ``PATH`` gem is stamped the same way). ``rdx fleet`` sets it while
    it opens a repository that locks a gem another repository of the fleet builds; anything
    but such an object is ignored."""
    try:
        value = json.loads(os.environ.get(LOCAL_GEMS) or "{}")
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {k: os.path.abspath(v) for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def _stamp(directory: str) -> str:
    """A short hash of the path and contents of every file under ``directory``: the same
    bytes give the same stamp wherever and whenever they were checked out (as a ``GIT``
    source's revision does), and an edit in place, whatever its size and time, another."""
    h = hashlib.blake2b(digest_size=4)
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                # Without blocking: a FIFO or a device in a checkout is skipped, never read.
                fd = os.open(full, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                with os.fdopen(fd, "rb", closefd=False) as f:
                    digest = hashlib.file_digest(f, "blake2b").hexdigest()
            except OSError:
                continue
            finally:
                os.close(fd)
            h.update(f"{os.path.relpath(full, directory)}\0{digest}\n".encode())
    return h.hexdigest()


def locate(
    root: str, gems: list[LockedGem], *, use_ruby: bool = True, memo_dir: str | None = None
) -> tuple[list[InstalledGem], list[GemProblem]]:
    """Installed locations of ``gems`` (see the module docstring), and one problem per gem that
    is missing or installed at another version. Path gems inside ``root`` are the project's own
    code and are left out; path gems outside it are found at their path, as are the gems
    ``local_gems`` names. ``memo_dir``: where Ruby's answer is remembered, and taken from while
    nothing it depends on changed (``_ask_ruby``)."""
    found: list[InstalledGem] = []
    problems: list[GemProblem] = []
    bundle = _bundle_dirs(root)
    pending: list[LockedGem] = []
    local = local_gems()
    for gem in gems:
        if gem.name in local or (gem.source == "path" and gem.path is not None):
            where = local[gem.name] if gem.name in local else os.path.normpath(os.path.join(root, gem.path or ""))
            if where == root or where.startswith(root.rstrip(os.sep) + os.sep):
                continue
            lib = os.path.join(where, "lib")
            if os.path.isdir(lib):
                # A checkout (a local gem's or a PATH source's) changes under the same
                # version: its contents are in the version taken, and so in the gem cache's key.
                version = f"{gem.version}+{_stamp(lib)}"
                found.append(InstalledGem(gem.name, version, (lib,)))
            else:
                problems.append(GemProblem("gem-missing", f"gem {gem.name} ({gem.version}) has no lib directory at {where}"))
            continue
        hit = _scan(gem, bundle) if bundle else None
        if hit is not None and hit.version == gem.version:
            found.append(hit)
        else:
            pending.append(gem)
    answers = _ask_ruby(root, pending, memo_dir) if use_ruby else None
    well_known = _well_known_dirs() if answers is None else []
    for gem in pending:
        hit = _from_ruby(gem, answers.get(gem.name)) if answers is not None else _scan(gem, well_known)
        if hit is None:
            problems.append(GemProblem("gem-missing", f"gem {gem.name} ({gem.version}) from {LOCKFILE} is not installed; run `bundle install` to index it"))
            continue
        if hit.version != gem.version:
            problems.append(
                GemProblem("gem-version-mismatch", f"gem {gem.name} is locked at {gem.version} but installed at {hit.version}; indexing {hit.version}")
            )
        found.append(hit)
    return found, problems
