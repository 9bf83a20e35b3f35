# frozen_string_literal: true

# rdx.rb: the Ruby binding of librdx, rdx's C ABI (bindings/rdx.h), with an API shaped like
# Rubydex's Ruby gem. It uses Fiddle from Ruby's standard library, so nothing is compiled:
# `make capi` builds librdx.so and `require "rdx"` (with -I bindings/ruby/lib) loads it from
# ENV["RDX_LIB"] or bindings/build/librdx.so.
#
#   graph = Rdx::Graph.new
#   graph.index_all(["app", "lib"])
#   graph.resolve
#   product = graph["Shop::Models::Product"]        # nil when absent
#   product.ancestors.map(&:name)
#   graph.resolve_constant("OutOfStock", ["Shop", "Models::Order"])
#   product.ancestor_names                           # one call, names only
#
#   project = Rdx::Graph.open("path/to/app")         # warm from path/to/app/.rdx/ when unchanged
#   project.open_stats                               # {reused: 120, parsed: 0, ..., resolved: true}
#
# This file owns only the translation between Ruby objects and C calls: every answer comes
# from the library. Status codes become Rdx::Error subclasses whose CODE equals the RDX_ERR_*
# value of rdx.h and rdx.ErrorCode in Python. Each object holds one native handle, released by
# #close or, failing that, by a finalizer; closing a Graph releases every handle obtained from
# it, and objects derived from a graph keep the graph alive.

require "fiddle"
require "json"

module Rdx
  # The ABI this file was written for; the library must report the same.
  ABI_VERSION = 1

  OK = 0
  DONE = 1

  # Base of every error the library reports; #code is the rdx_status_t it returned.
  class Error < StandardError
    attr_reader :code

    def initialize(message = nil, code = self.class.const_defined?(:CODE) ? self.class::CODE : nil)
      super(message)
      @code = code
    end
  end

  # NULL pointer, bad enum value, NUL byte in a name, malformed constant path, ...
  class InvalidArgumentError < Error; CODE = -1; end
  # No such declaration, document or target (query methods return nil instead).
  class NotFoundError < Error; CODE = -2; end
  # A closed object, or one whose graph was closed.
  class InvalidHandleError < Error; CODE = -3; end
  # An index root does not exist or cannot be read.
  class IOFailureError < Error; CODE = -4; end
  # A name, URI or source is not valid UTF-8.
  class EncodingFailureError < Error; CODE = -5; end
  # Reserved: queries resolve a changed graph first.
  class NotResolvedError < Error; CODE = -6; end
  # A bug in rdx, or its embedded interpreter could not start.
  class InternalError < Error; CODE = -99; end

  ERRORS = [
    InvalidArgumentError, NotFoundError, InvalidHandleError, IOFailureError,
    EncodingFailureError, NotResolvedError, InternalError
  ].to_h { |klass| [klass::CODE, klass] }.freeze

  # The C functions, bound with Fiddle. Private to this file: use the classes below.
  module Native
    path = ENV["RDX_LIB"] || File.expand_path("../../build/librdx.so", __dir__)
    begin
      LIBRARY = Fiddle::Handle.new(path)
    rescue Fiddle::DLError => e
      raise LoadError, "cannot load librdx from #{path} (#{e.message}); build it with `make capi` or set RDX_LIB"
    end
    # Finalizers may run at exit after Fiddle's own; the library must stay mapped for them.
    LIBRARY.disable_close
    LIBRARY_PATH = path

    P = Fiddle::TYPE_VOIDP
    I32 = Fiddle::TYPE_INT32_T
    U32 = -Fiddle::TYPE_INT32_T
    SIZE = Fiddle::TYPE_SIZE_T
    VOID = Fiddle::TYPE_VOID

    # Every function of rdx.h with its argument and return types; the tests check that this
    # table and the header list the same functions.
    SIGNATURES = {
      rdx_abi_version: [[], I32],
      rdx_last_error_message: [[], P],
      rdx_status_name: [[I32], P],
      rdx_string_free: [[P], VOID],
      rdx_string_array_free: [[P, SIZE], VOID],
      rdx_location_free: [[P], VOID],
      rdx_graph_new: [[P], I32],
      rdx_graph_open: [[P, SIZE, P, SIZE, I32, P], I32],
      rdx_graph_save: [[P], I32],
      rdx_graph_free: [[P], I32],
      rdx_graph_index_all: [[P, P, P, SIZE, U32, P], I32],
      rdx_graph_index_source: [[P, P, SIZE, P, SIZE, P], I32],
      rdx_graph_delete_document: [[P, P, SIZE], I32],
      rdx_graph_resolve: [[P], I32],
      rdx_graph_revision: [[P, P], I32],
      rdx_graph_get_declaration: [[P, P, SIZE, P], I32],
      rdx_graph_resolve_constant: [[P, P, SIZE, P, P, SIZE, P], I32],
      rdx_graph_search: [[P, P, SIZE, P, I32, SIZE, P], I32],
      rdx_graph_search_names: [[P, P, SIZE, P, I32, SIZE, P, P], I32],
      rdx_graph_grep_json: [[P, P, SIZE, P, P], I32],
      rdx_declaration_find_member: [[P, P, SIZE, P], I32],
      rdx_definition_comments: [[P, P, P], I32],
      rdx_declaration_ancestor_names: [[P, P, P], I32],
      rdx_declaration_descendant_names: [[P, P, P], I32],
      rdx_declaration_member_names: [[P, P, P], I32]
    }
    # The rest share a shape: (handle, out) -> status, or (handle) -> status for _free.
    %w[
      rdx_graph_open_stats
      rdx_graph_declarations rdx_graph_constant_references rdx_graph_method_references rdx_graph_diagnostics
      rdx_declaration_id rdx_declaration_name rdx_declaration_unqualified_name rdx_declaration_kind
      rdx_declaration_summary_json
      rdx_declaration_owner rdx_declaration_singleton_class rdx_declaration_ancestors
      rdx_declaration_descendants rdx_declaration_members rdx_declaration_definitions
      rdx_definition_kind rdx_definition_name rdx_definition_location rdx_definition_declaration
      rdx_constant_reference_name rdx_constant_reference_location rdx_constant_reference_declaration
      rdx_method_reference_name rdx_method_reference_location rdx_method_reference_receiver
      rdx_method_reference_method
      rdx_diagnostic_code rdx_diagnostic_message rdx_diagnostic_severity rdx_diagnostic_path
      rdx_diagnostic_location
    ].each { |name| SIGNATURES[name.to_sym] = [[P, P], I32] }
    %w[declaration definition constant_reference method_reference diagnostic].each do |noun|
      SIGNATURES[:"rdx_#{noun}_free"] = [[P], I32]
      SIGNATURES[:"rdx_#{noun}_iter_count"] = [[P, P], I32]
      SIGNATURES[:"rdx_#{noun}_iter_next"] = [[P, P], I32]
      SIGNATURES[:"rdx_#{noun}_iter_free"] = [[P], I32]
    end
    SIGNATURES.freeze

    FUNCTIONS = SIGNATURES.to_h do |name, (args, ret)|
      [name, Fiddle::Function.new(LIBRARY[name.to_s], args, ret, name: name.to_s)]
    end.freeze

    WORD = Fiddle::SIZEOF_VOIDP
    # struct rdx_location: two pointers, then four uint32_t.
    LOCATION_SIZE = 2 * WORD + 16
    # struct rdx_open_stats: three uint32_t, then two int32_t.
    OPEN_STATS_SIZE = 20

    module_function

    def call(name, *args)
      FUNCTIONS.fetch(name).call(*args)
    end

    # Raise the Rdx::Error for a failed status, with the library's message for this thread.
    def check!(status)
      return status if status == OK || status == DONE

      message = FUNCTIONS[:rdx_last_error_message].call.to_s.force_encoding(Encoding::UTF_8)
      raise ERRORS.fetch(status) { InternalError }.new(message, status)
    end

    def invoke(name, *args)
      check!(call(name, *args))
    end

    # Calls whose "no answer" is RDX_ERR_NOT_FOUND return nil instead of raising.
    def optional
      yield
    rescue NotFoundError
      nil
    end

    def out_buffer(size = WORD)
      Fiddle::Pointer.malloc(size, Fiddle::RUBY_FREE)
    end

    def word(buffer)
      buffer[0, WORD].unpack1("J")
    end

    # Call `name` with `args` and a fresh out pointer; return the pointer-sized value written.
    def fetch(name, *args)
      out = out_buffer
      invoke(name, *args, out)
      word(out)
    end

    # A string the library allocated: copy it into Ruby and release it.
    def take_string(address)
      string = Fiddle::Pointer.new(address).to_s.force_encoding(Encoding::UTF_8)
      call(:rdx_string_free, address)
      string
    end

    # An array of `count` strings the library allocated (NULL when empty): copy the strings
    # into Ruby and release the array and every string in it.
    def take_string_array(address, count)
      return [] if count.zero?

      begin
        Fiddle::Pointer.new(address)[0, count * WORD].unpack("J*").map do |pointer|
          Fiddle::Pointer.new(pointer).to_s.force_encoding(Encoding::UTF_8)
        end
      ensure
        call(:rdx_string_array_free, address, count)
      end
    end

    # Call `name` with `args`, an out array and an out count; return the strings.
    def fetch_strings(name, *args)
      array = out_buffer
      count = out_buffer
      invoke(name, *args, array, count)
      take_string_array(word(array), word(count))
    end

    # A file system path (String, Pathname, anything with #to_path) as bytes for C. Not
    # File.path, which rejects NUL bytes itself: the library reports them, like any misuse.
    def path_bytes(path)
      String(path.respond_to?(:to_path) ? path.to_path : path).b
    end

    # A static string owned by the library: copy it, never free it.
    def static_string(address)
      Fiddle::Pointer.new(address).to_s.force_encoding(Encoding::UTF_8).freeze
    end

    def location(name, handle)
      out = out_buffer(LOCATION_SIZE)
      invoke(name, handle, out)
      path, uri, start_line, start_column, end_line, end_column = out[0, LOCATION_SIZE].unpack("JJL4")
      result = Location.new(
        Fiddle::Pointer.new(path).to_s.force_encoding(Encoding::UTF_8),
        Fiddle::Pointer.new(uri).to_s.force_encoding(Encoding::UTF_8),
        start_line, start_column, end_line, end_column
      )
      call(:rdx_location_free, out)
      result
    end

    # Ruby strings as a C array of pointers and an array of lengths. `keep` must stay
    # referenced until the call returns, so that the strings are not collected under it.
    def string_array(strings)
      keep = strings.map { |s| String(s).b }
      pointers = keep.map { |s| Fiddle::Pointer[s].to_i }
      [pointers.pack("J*"), keep.map(&:bytesize).pack("J*"), keep]
    end

    # A finalizer that releases `handle` with `free`; it captures integers and the graph's
    # `life` cell only, never the object being finalized (which would keep it alive forever).
    # A graph's finalizer marks the cell dead; a handle's skips the call once its graph is
    # gone (freeing the graph released it, and a call on a dead handle would replace the
    # thread's last error message under whatever the program is doing).
    def releaser(free, handle, life, graph: false)
      function = FUNCTIONS.fetch(free)
      return proc { life[0] = false; function.call(handle) } if graph

      proc { function.call(handle) if life[0] }
    end
  end

  unless Native.call(:rdx_abi_version) == ABI_VERSION
    raise LoadError, "#{Native::LIBRARY_PATH} has ABI #{Native.call(:rdx_abi_version)}, rdx.rb expects #{ABI_VERSION}"
  end

  def self.abi_version
    Native.call(:rdx_abi_version)
  end

  # What went wrong in the most recent failed call on this thread ("" if none).
  def self.last_error_message
    Native.call(:rdx_last_error_message).to_s.force_encoding(Encoding::UTF_8)
  end

  Location = Struct.new(:path, :uri, :start_line, :start_column, :end_line, :end_column) do
    def to_s
      "#{path}:#{start_line}:#{start_column}-#{end_line}:#{end_column}"
    end
  end

  # One native handle: released by #close, or by a finalizer when the object is collected.
  class Handle
    attr_reader :graph

    def initialize(graph, handle)
      @graph = graph
      @handle = handle
      @closed = false
      ObjectSpace.define_finalizer(self, Native.releaser(self.class::FREE, handle, graph.life))
    end

    # Release the native handle now. Idempotent; a no-op once the graph is closed (closing
    # the graph released it already).
    def close
      return if @closed

      @closed = true
      ObjectSpace.undefine_finalizer(self)
      Native.invoke(self.class::FREE, @handle) unless @graph.closed?
      nil
    end

    def closed?
      @closed || @graph.closed?
    end

    private

    # The handle for a call. A closed object still passes its (freed) handle, so that the
    # library itself reports Rdx::InvalidHandleError.
    attr_reader :handle

    def string(function)
      Native.take_string(Native.fetch(function, @handle))
    end

    def static(function)
      Native.static_string(Native.fetch(function, @handle))
    end

    # The declaration a function returns, or nil when it says RDX_ERR_NOT_FOUND.
    def related_declaration(function)
      Native.optional { Declaration.new(@graph, Native.fetch(function, @handle)) }
    end

    def items(function, noun, klass)
      Graph.collect(@graph, Native.fetch(function, @handle), noun, klass)
    end

    def strings(function)
      Native.fetch_strings(function, @handle)
    end
  end

  # A fully qualified entity with all its definitions (Rubydex's naming: Foo::Bar, Foo#bar(),
  # Foo::<Foo> for a singleton class). It describes the graph as it was when it was fetched.
  class Declaration < Handle
    FREE = :rdx_declaration_free

    def id
      Native.fetch(:rdx_declaration_id, handle)
    end

    def name
      string(:rdx_declaration_name)
    end

    def unqualified_name
      string(:rdx_declaration_unqualified_name)
    end

    # Everything `rdx show` reports, as a Hash with string keys (the C ABI's JSON summary).
    def summary
      JSON.parse(string(:rdx_declaration_summary_json))
    end

    def kind
      static(:rdx_declaration_kind)
    end

    def owner
      related_declaration(:rdx_declaration_owner)
    end

    # nil for declarations that are not classes or modules.
    def singleton_class
      related_declaration(:rdx_declaration_singleton_class)
    end

    def ancestors
      items(:rdx_declaration_ancestors, "declaration", Declaration)
    end

    def descendants
      items(:rdx_declaration_descendants, "declaration", Declaration)
    end

    def members
      items(:rdx_declaration_members, "declaration", Declaration)
    end

    def definitions
      items(:rdx_declaration_definitions, "definition", Definition)
    end

    # The names of #ancestors, #descendants and #members, in the same order, each in one call
    # to the library rather than one object (and several calls) per item.
    def ancestor_names
      strings(:rdx_declaration_ancestor_names)
    end

    def descendant_names
      strings(:rdx_declaration_descendant_names)
    end

    def member_names
      strings(:rdx_declaration_member_names)
    end

    # Look "bar()", "Baz" or "@x" up through the ancestors, as Ruby would; nil when absent.
    def find_member(member)
      member = String(member)
      Native.optional { Declaration.new(graph, Native.fetch(:rdx_declaration_find_member, handle, member, member.bytesize)) }
    end

    def ==(other)
      other.is_a?(Declaration) && other.id == id
    end
    alias eql? ==

    def hash
      id.hash
    end

    def to_s
      name
    end

    def inspect
      "#<Rdx::Declaration #{kind} #{name}>"
    end
  end

  # One definition at one place: a class body, a def, an attr_reader, a constant assignment.
  class Definition < Handle
    FREE = :rdx_definition_free

    def kind
      static(:rdx_definition_kind)
    end

    def name
      string(:rdx_definition_name)
    end

    def location
      Native.location(:rdx_definition_location, handle)
    end

    # The comment lines right above the definition, as written.
    def comments
      strings(:rdx_definition_comments)
    end

    def declaration
      related_declaration(:rdx_definition_declaration)
    end

    def inspect
      "#<Rdx::Definition #{kind} #{name} at #{location}>"
    end
  end

  # A constant as written somewhere, and what it resolves to (#declaration, nil if unresolved).
  class ConstantReference < Handle
    FREE = :rdx_constant_reference_free

    def name
      string(:rdx_constant_reference_name)
    end

    def location
      Native.location(:rdx_constant_reference_location, handle)
    end

    def declaration
      related_declaration(:rdx_constant_reference_declaration)
    end

    def inspect
      "#<Rdx::ConstantReference #{name} at #{location}>"
    end
  end

  # A method call: #receiver is where the method is looked up (Foo.bar -> Foo::<Foo>), #target
  # the method it reaches through the receiver's ancestors (Python's MethodReference.method).
  class MethodReference < Handle
    FREE = :rdx_method_reference_free

    def name
      string(:rdx_method_reference_name)
    end

    def location
      Native.location(:rdx_method_reference_location, handle)
    end

    def receiver
      related_declaration(:rdx_method_reference_receiver)
    end

    def target
      related_declaration(:rdx_method_reference_method)
    end

    def inspect
      "#<Rdx::MethodReference #{name} at #{location}>"
    end
  end

  # A problem with a file or a place in it: syntax errors, unresolved constants, unreadable files.
  class Diagnostic < Handle
    FREE = :rdx_diagnostic_free

    def code
      string(:rdx_diagnostic_code)
    end

    def message
      string(:rdx_diagnostic_message)
    end

    def severity
      static(:rdx_diagnostic_severity)
    end

    def path
      string(:rdx_diagnostic_path)
    end

    # nil for problems with a whole file.
    def location
      Native.optional { Native.location(:rdx_diagnostic_location, handle) }
    end

    def to_s
      "#{location || path}: #{severity}: #{message} [#{code}]"
    end
  end

  # A semantic graph of a Ruby codebase, with Ruby core already indexed.
  class Graph
    MATCH_MODES = { fuzzy: 0, prefix: 1, exact: 2, ranked: 3 }.freeze

    # Every item of a C iterator wrapped in `klass`; the iterator is freed even when wrapping
    # fails half way.
    def self.collect(graph, iterator, noun, klass)
      items = []
      out = Native.out_buffer
      begin
        while Native.invoke(:"rdx_#{noun}_iter_next", iterator, out) == OK
          items << klass.new(graph, Native.word(out))
        end
      ensure
        Native.call(:"rdx_#{noun}_iter_free", iterator)
      end
      items
    end

    # A graph of the project at `root`, starting warm from the snapshot in `cache_dir` (default:
    # .rdx/ in root): only new and changed files are parsed, and when nothing changed since a
    # resolved graph was saved it starts resolved (see #open_stats). Resolving it saves the
    # resolved graph for the next open. jobs: worker processes (nil or 0: one per CPU, 1: in
    # this process). A missing root raises Rdx::IOFailureError.
    def self.open(root, cache_dir: nil, jobs: nil)
      root = Native.path_bytes(root)
      cache = cache_dir.nil? ? nil : Native.path_bytes(cache_dir)
      handle = Native.fetch(:rdx_graph_open, root, root.bytesize, cache, cache ? cache.bytesize : 0, Integer(jobs || 0))
      allocate.tap { |graph| graph.send(:adopt, handle) }
    end

    def initialize
      adopt(Native.fetch(:rdx_graph_new))
    end

    # Release the graph and everything obtained from it. Idempotent.
    def close
      return if @closed

      @closed = true
      @life[0] = false
      ObjectSpace.undefine_finalizer(self)
      Native.invoke(:rdx_graph_free, @handle)
      nil
    end

    def closed?
      @closed
    end

    # Whether the graph's native side is alive, as a cell its handles' finalizers share.
    attr_reader :life

    # Index every Ruby file under `paths`; returns the number of per-file problems (see
    # #diagnostics). jobs: worker processes (0: one per CPU, 1: in this process).
    def index_all(paths, jobs: 0)
      paths = [paths] unless paths.is_a?(Array)
      pointers, lengths, keep = Native.string_array(paths.map(&:to_s))
      out = Native.out_buffer
      Native.invoke(:rdx_graph_index_all, @handle, pointers, lengths, keep.size, jobs, out)
      Native.word(out)
    end

    # Index (or re-index) one document from text; returns the number of syntax errors.
    def index_source(uri, source)
      uri = String(uri)
      source = String(source)
      out = Native.out_buffer
      Native.invoke(:rdx_graph_index_source, @handle, uri, uri.bytesize, source, source.bytesize, out)
      Native.word(out)
    end

    # Forget a document; false when it was not indexed.
    def delete_document(uri)
      uri = String(uri)
      Native.invoke(:rdx_graph_delete_document, @handle, uri, uri.bytesize)
      true
    rescue NotFoundError
      false
    end

    def resolve
      Native.invoke(:rdx_graph_resolve, @handle)
      self
    end

    def revision
      Native.fetch(:rdx_graph_revision, @handle)
    end

    # Write the snapshot (and the resolved graph, when resolved and current) to the cache
    # directory. Only for graphs made by Graph.open: others raise Rdx::InvalidArgumentError.
    # An unwritable cache directory is a "snapshot-unwritable" warning in #diagnostics.
    def save
      Native.invoke(:rdx_graph_save, @handle)
      self
    end

    # What Graph.open did: {reused:, parsed:, deleted: (file counts), snapshot: (one was found),
    # resolved: (started resolved)}; nil for a graph made by Graph.new.
    def open_stats
      out = Native.out_buffer(Native::OPEN_STATS_SIZE)
      Native.optional do
        Native.invoke(:rdx_graph_open_stats, @handle, out)
        reused, parsed, deleted, snapshot, resolved = out[0, Native::OPEN_STATS_SIZE].unpack("L3l2")
        { reused: reused, parsed: parsed, deleted: deleted, snapshot: snapshot == 1, resolved: resolved == 1 }
      end
    end

    # The declaration named `name`, or nil.
    def [](name)
      name = String(name)
      Native.optional { Declaration.new(self, Native.fetch(:rdx_graph_get_declaration, @handle, name, name.bytesize)) }
    end

    # What constant `name` written inside `nesting` (outermost first, as written) refers to.
    def resolve_constant(name, nesting = [])
      name = String(name)
      pointers, lengths, keep = Native.string_array(nesting)
      Native.optional do
        handle = Native.fetch(:rdx_graph_resolve_constant, @handle, name, name.bytesize, pointers, lengths, keep.size)
        Declaration.new(self, handle)
      end
    end

    # Declarations whose names match `query`, best first.
    def search(query, kind: nil, mode: :ranked, limit: nil)
      query = String(query)
      code = match_code(mode)
      iterator = Native.fetch(:rdx_graph_search, @handle, query, query.bytesize, kind&.to_s, code, limit || 0)
      Graph.collect(self, iterator, "declaration", Declaration)
    end

    # The library's code for a match mode (:fuzzy, :prefix, :exact).
    def match_code(mode)
      MATCH_MODES.fetch(mode.to_sym) { raise InvalidArgumentError.new("unknown match mode #{mode.inspect}", InvalidArgumentError::CODE) }
    end
    private :match_code

    # The names `search` would return, in one native call (no object per result).
    def search_names(query, kind: nil, mode: :ranked, limit: nil)
      query = String(query)
      code = match_code(mode)
      Native.fetch_strings(:rdx_graph_search_names, @handle, query, query.bytesize, kind&.to_s, code, limit || 0)
    end

    # Lines of the project's text files matching `pattern` (a literal, or an RE2 regex with
    # regex: true), as rdx.Graph.grep: a Hash with "total", "files", "offset", "complete" and "hits".
    def grep(pattern, **options)
      pattern = String(pattern)
      json = options.empty? ? nil : JSON.generate(options.transform_keys(&:to_s))
      JSON.parse(Native.take_string(Native.fetch(:rdx_graph_grep_json, @handle, pattern, pattern.bytesize, json)))
    end

    def declarations
      each_item(:rdx_graph_declarations, "declaration", Declaration)
    end

    def constant_references
      each_item(:rdx_graph_constant_references, "constant_reference", ConstantReference)
    end

    def method_references
      each_item(:rdx_graph_method_references, "method_reference", MethodReference)
    end

    def diagnostics
      each_item(:rdx_graph_diagnostics, "diagnostic", Diagnostic)
    end

    def inspect
      closed? ? "#<Rdx::Graph closed>" : "#<Rdx::Graph revision=#{revision}>"
    end

    private

    def adopt(handle)
      @handle = handle
      @closed = false
      @life = [true]
      ObjectSpace.define_finalizer(self, Native.releaser(:rdx_graph_free, @handle, @life, graph: true))
    end

    def each_item(function, noun, klass)
      Graph.collect(self, Native.fetch(function, @handle), noun, klass)
    end
  end
end
