# frozen_string_literal: true

# Tests of the Ruby binding (bindings/ruby/lib/rdx.rb) over librdx: the whole Ruby API, the
# same answers as rdx's Python API on the same fixture (tests/binding_answers.py, run with the
# project's Python), ancestors as real Ruby reports them, the batch *_names calls against the
# iterators, persistent projects (Graph.open, #save, #open_stats) on a copy of the fixture, the
# error classes against rdx.h and rdx.ErrorCode, finalizers, closing, and threads. Run by
# tests/test_ruby_binding.py, or:
#
#   make capi && ruby -Ibindings/ruby/lib bindings/ruby/test/test_rdx.rb
#
# RDX_LIB overrides the library, RDX_PYTHON the Python that computes the reference answers.

require "fileutils"
require "json"
require "open3"
require "pathname"
require "rbconfig"
require "tmpdir"
require "minitest/autorun"
require "rdx"

ROOT = File.expand_path("../../..", __dir__)
FIXTURE = File.join(ROOT, "rdx", "data", "example")
HEADER = File.join(ROOT, "bindings", "rdx.h")

module Fixture
  module_function

  # One resolved graph shared by the read-only tests.
  def graph
    @graph ||= Rdx::Graph.new.tap do |g|
      raise "fixture has problems" unless g.index_all([FIXTURE], jobs: 1).zero?

      g.resolve
    end
  end

  # What rdx's Python API answers on the same fixture.
  def python
    @python ||= begin
      python = ENV["RDX_PYTHON"] || File.join(ROOT, ".venv", "bin", "python")
      out, err, status = Open3.capture3(python, File.join(ROOT, "tests", "binding_answers.py"), FIXTURE)
      raise "binding_answers.py failed: #{err}" unless status.success?

      JSON.parse(out)
    end
  end

  # Real Ruby's ancestors of `names` (and of their singleton classes) after loading the fixture,
  # in rdx's spelling (#<Class:A::B> is A::B::<B>). A separate `ruby --disable-gems` keeps gems
  # and minitest from adding modules to Object.
  def ruby_ancestors(names)
    script = <<~RUBY
      require #{File.join(FIXTURE, 'lib', 'shop').inspect}
      label = lambda do |m|
        text = m.inspect
        if (inner = text[/\\A#<Class:(.*)>\\z/, 1])
          "\#{inner}::<\#{inner.split('::').last}>"
        else
          text
        end
      end
      #{names.inspect}.each do |name|
        mod = Object.const_get(name)
        puts [name, mod.ancestors.map(&label).join(" "), mod.singleton_class.ancestors.map(&label).join(" ")].join("\\t")
      end
    RUBY
    out, err, status = Open3.capture3(RbConfig.ruby, "--disable-gems", "-e", script)
    raise "ruby failed: #{err}" unless status.success?

    out.lines.to_h { |line| name, ancestors, singleton = line.chomp.split("\t"); [name, [ancestors.split, singleton.split]] }
  end
end

module SameAnswer
  # assert_equal that also accepts nil on both sides (Minitest wants assert_nil for that).
  def assert_same_answer(expected, actual, message = nil)
    expected.nil? ? assert_nil(actual, message) : assert_equal(expected, actual, message)
  end
end

class TestTables < Minitest::Test
  def header
    File.read(HEADER)
  end

  def test_error_classes_match_the_header_and_python
    header_codes = header.scan(/\b(RDX_(?:OK|DONE|ERR_\w+))\s*=\s*(-?\d+)/).to_h { |name, value| [name, Integer(value)] }
    assert_equal 0, header_codes.fetch("RDX_OK")
    assert_equal Rdx::DONE, header_codes.fetch("RDX_DONE")
    python = Fixture.python["error_codes"]
    assert_equal python.size, Rdx::ERRORS.size
    python.each do |entry|
      klass = Rdx.const_get(entry["class"])
      assert_operator klass, :<, Rdx::Error
      assert_equal entry["value"], klass::CODE, entry["class"]
      assert_equal entry["value"], header_codes.fetch("RDX_ERR_#{entry['name']}"), entry["name"]
      assert_same klass, Rdx::ERRORS[entry["value"]]
    end
    assert_equal header_codes.keys.grep(/ERR_/).size, python.size
  end

  def test_every_header_function_is_bound
    declared = header.gsub(%r{/\*.*?\*/}m, " ").scan(/\b(rdx_\w+)\s*\(/).flatten.map(&:to_sym)
    assert_equal declared.sort, Rdx::Native::SIGNATURES.keys.sort
  end

  def test_abi_version
    assert_equal Integer(header[/#define RDX_ABI_VERSION (\d+)/, 1]), Rdx.abi_version
    assert_equal Rdx::ABI_VERSION, Rdx.abi_version
  end
end

class TestAnswers < Minitest::Test
  include SameAnswer

  def graph
    Fixture.graph
  end

  def names(declarations)
    declarations.map(&:name)
  end

  def test_declarations_match_python
    Fixture.python["declarations"].each do |name, expected|
      d = graph[name]
      refute_nil d, name
      assert_equal expected["name"], d.name
      assert_equal expected["kind"], d.kind
      assert_equal expected["unqualified_name"], d.unqualified_name
      assert_equal expected["id"], d.id
      assert_same_answer expected["owner"], d.owner&.name
      assert_equal expected["ancestors"], names(d.ancestors), name
      assert_equal expected["descendants"], names(d.descendants), name
      assert_equal expected["members"], names(d.members), name
      summary = d.summary
      assert_equal d.name, summary["name"]
      assert_equal expected["ancestors"], summary.fetch("ancestors", []) if %w[Class Module SingletonClass].include?(d.kind)
      assert_same_answer expected["singleton_class"], d.singleton_class&.name
      assert_equal expected["singleton_ancestors"], d.singleton_class ? names(d.singleton_class.ancestors) : []
      definitions = d.definitions.map do |defn|
        { "kind" => defn.kind, "name" => defn.name, "location" => defn.location.to_s,
          "comments" => defn.comments, "declaration" => defn.declaration&.name }
      end
      assert_equal expected["definitions"], definitions, name
    end
  end

  def test_batch_names_match_iterators_and_python
    Fixture.python["declarations"].each do |name, expected|
      d = graph[name]
      assert_equal expected["ancestors"], d.ancestor_names, name
      assert_equal names(d.ancestors), d.ancestor_names, name
      assert_equal expected["descendants"], d.descendant_names, name
      assert_equal names(d.descendants), d.descendant_names, name
      assert_equal expected["members"], d.member_names, name
      assert_equal names(d.members), d.member_names, name
      assert_equal expected["singleton_ancestors"], d.singleton_class ? d.singleton_class.ancestor_names : [], name
    end
    assert_equal [], graph["Shop::Models::Product#label()"].member_names
    assert_equal [], graph["Shop::Models::Product#label()"].descendant_names
    assert(graph["Shop::Models::Product"].member_names.all? { |n| n.encoding == Encoding::UTF_8 && n.valid_encoding? })
  end

  def test_ancestors_match_real_ruby
    expected = Fixture.python["declarations"].select { |_, d| %w[Class Module].include?(d["kind"]) }
    real = Fixture.ruby_ancestors(expected.keys)
    expected.each_key do |name|
      d = graph[name]
      assert_equal real[name][0], names(d.ancestors), name
      assert_equal real[name][1], names(d.singleton_class.ancestors), "#{name}.singleton_class"
    end
  end

  def test_references_match_python
    constants = graph.constant_references.map { |r| [r.name, r.location.to_s, r.declaration&.name] }
    assert_equal Fixture.python["constant_references"], constants
    methods = graph.method_references.map { |r| [r.name, r.location.to_s, r.receiver&.name, r.target&.name] }
    assert_equal Fixture.python["method_references"], methods
  end

  def test_resolve_constant_matches_python
    Fixture.python["resolve_constant"].each do |name, nesting, expected|
      assert_same_answer expected, graph.resolve_constant(name, nesting)&.name, "#{name} in #{nesting}"
    end
    assert_nil graph.resolve_constant("Nowhere")
  end

  def test_grep_matches_python
    Fixture.python["grep"].each do |pattern, options, expected|
      found = graph.grep(pattern, **options.transform_keys(&:to_sym))
      assert_equal expected, found, "grep #{pattern} #{options}"
    end
    assert_raises(Rdx::InvalidArgumentError) { graph.grep("(", regex: true) }
    assert_raises(Rdx::InvalidArgumentError) { graph.grep("x", colour: "red") }
  end

  def test_search_matches_python
    Fixture.python["search"].each do |query, mode, kind, limit, expected|
      found = graph.search(query, kind: kind, mode: mode.to_sym, limit: limit.zero? ? nil : limit)
      assert_equal expected, names(found), "#{query} #{mode} #{kind}"
      batch = graph.search_names(query, kind: kind, mode: mode.to_sym, limit: limit.zero? ? nil : limit)
      assert_equal expected, batch, "search_names #{query} #{mode} #{kind}"
    end
  end

  def test_find_member_matches_python
    Fixture.python["find_member"].each do |name, member, expected|
      assert_same_answer expected, graph[name].find_member(member)&.name, "#{name} #{member}"
    end
  end

  def test_every_declaration
    assert_equal Fixture.python["all_declarations"], names(graph.declarations).sort
  end

  def test_declaration_equality_and_inspect
    a = graph["Shop::Models::Product"]
    b = graph["Shop::Models::Item"]
    assert_equal a, graph["Shop::Models::Product"]
    refute_equal a, b
    assert_equal 1, [a, graph["Shop::Models::Product"]].uniq.size
    assert_equal "Shop::Models::Product", a.to_s
    assert_equal "#<Rdx::Declaration Class Shop::Models::Product>", a.inspect
    assert_match(/\A#<Rdx::Definition Class Product at .*product\.rb:4:4-20:7>\z/, a.definitions.first.inspect)
    location = a.definitions.first.location
    assert_equal [4, 4, 20, 7], [location.start_line, location.start_column, location.end_line, location.end_column]
    assert location.uri.start_with?("file://")
    assert_match(/\A#<Rdx::Graph revision=\d+>\z/, graph.inspect)
  end
end

class TestGraphChanges < Minitest::Test
  def setup
    @graph = Rdx::Graph.new
  end

  def teardown
    @graph.close
  end

  def test_diagnostics_match_python
    python = Fixture.python
    @graph.index_all([FIXTURE], jobs: 1)
    assert_equal python["syntax_errors"], @graph.index_source(python["broken_uri"], python["broken_source"])
    got = @graph.diagnostics.map { |d| [d.code, d.severity, d.path, d.location&.to_s, d.message] }
    assert_equal python["diagnostics"], got
    refute_empty got
    assert_match(/syntax error/, @graph.diagnostics.first.to_s)
  end

  def test_index_source_delete_and_snapshots
    revision = @graph.revision
    assert_equal 0, @graph.index_source("file:///a.rb", "class A; end\nclass B < A; end\n")
    assert_operator @graph.revision, :>, revision
    old = @graph["A"]
    assert_equal %w[B A Object Kernel BasicObject], @graph["B"].ancestors.map(&:name)
    @graph.index_source("file:///a.rb", "module A; end\n")
    # A declaration describes the graph as it was fetched; fetching again sees the change.
    assert_equal "Class", old.kind
    assert_equal "Module", @graph["A"].kind
    assert @graph.delete_document("file:///a.rb")
    refute @graph.delete_document("file:///a.rb")
    assert_nil @graph["A"]
    assert_same @graph, @graph.resolve
  end

  def test_index_all_counts_problems_and_accepts_one_path
    dir = File.join(Dir.tmpdir, "rdx-ruby-#{Process.pid}")
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, "ok.rb"), "class Ok; end\n")
    File.write(File.join(dir, "bad.rb"), "class Bad\n  def (\n")
    assert_equal 1, @graph.index_all(dir)
    refute_nil @graph["Ok"]
  ensure
    FileUtils.rm_rf(dir)
  end
end

class TestErrors < Minitest::Test
  def setup
    @graph = Rdx::Graph.new
    @graph.index_source("file:///a.rb", "module M; def m; end; end\nclass A; include M; end\n")
  end

  def teardown
    @graph.close
  end

  # Handles collected after their graph was closed release nothing (closing the graph did):
  # their finalizers leave the thread's last error message as the program's last call left it.
  def test_collecting_the_handles_of_a_closed_graph_keeps_the_last_error
    other = Rdx::Graph.new
    other.index_source("file:///a.rb", "class A\n  def a; end\nend\nB = Missing::X\n")
    200.times { other["A"]&.definitions; other.diagnostics }
    other.close
    assert_raises(Rdx::InvalidArgumentError) { @graph.search("") }
    message = Rdx.last_error_message
    3.times do
      GC.start(full_mark: true, immediate_sweep: true)
      Array.new(1000) { Object.new } # A safe point where deferred finalizers run.
    end
    assert_equal message, Rdx.last_error_message
  end

  def test_absent_answers_are_nil
    assert_nil @graph["Nothing::Here"]
    assert_nil @graph.resolve_constant("Nothing", ["A"])
    assert_nil @graph["M#m()"].singleton_class
    assert_nil @graph["A"].find_member("nothing()")
    assert_equal "M#m()", @graph["A"].find_member("m()").name
  end

  def test_bad_arguments_raise
    error = assert_raises(Rdx::InvalidArgumentError) { @graph["A\0B"] }
    assert_equal(-1, error.code)
    assert_match(/NUL byte at offset 1/, error.message)
    assert_raises(Rdx::EncodingFailureError) { @graph["A\xff".b] }
    assert_raises(Rdx::EncodingFailureError) { @graph.index_source("file:///b.rb", "x = '\xff'".b) }
    assert_raises(Rdx::EncodingFailureError) { @graph.resolve_constant("A", ["M\xfe".b]) }
    assert_raises(Rdx::InvalidArgumentError) { @graph.resolve_constant("lowercase") }
    assert_raises(Rdx::InvalidArgumentError) { @graph.search("A", kind: "Klass") }
    assert_raises(Rdx::InvalidArgumentError) { @graph.search("A", mode: :telepathic) }
    assert_raises(Rdx::InvalidArgumentError) { @graph.search("") }
    error = assert_raises(Rdx::IOFailureError) { @graph.index_all(["/nonexistent/rdx/root"]) }
    assert_match(%r{/nonexistent/rdx/root}, error.message)
    assert_equal error.message, Rdx.last_error_message
    assert_kind_of Rdx::Error, error
  end

  def test_closed_graph_and_its_objects
    decl = @graph["A"]
    definition = decl.definitions.first
    @graph.close
    @graph.close # idempotent
    assert @graph.closed?
    assert decl.closed?
    assert_raises(Rdx::InvalidHandleError) { @graph["A"] }
    assert_raises(Rdx::InvalidHandleError) { @graph.resolve }
    error = assert_raises(Rdx::InvalidHandleError) { decl.name }
    assert_equal(-3, error.code)
    assert_raises(Rdx::InvalidHandleError) { decl.ancestor_names }
    assert_raises(Rdx::InvalidHandleError) { decl.member_names }
    assert_raises(Rdx::InvalidHandleError) { definition.location }
    decl.close # the graph released it already: a no-op
    assert_match(/closed/, @graph.inspect)
  end

  def test_closed_declaration
    decl = @graph["A"]
    decl.close
    decl.close
    assert decl.closed?
    assert_raises(Rdx::InvalidHandleError) { decl.ancestors }
    assert_raises(Rdx::InvalidHandleError) { decl.ancestor_names }
    assert_raises(Rdx::InvalidHandleError) { decl.descendant_names }
    error = assert_raises(Rdx::InvalidHandleError) { decl.member_names }
    assert_match(/not a live rdx_declaration_t/, error.message)
    assert_equal "A", @graph["A"].name
  end

  # The C contract of the batch calls, straight through Fiddle: NULL out parameters are
  # RDX_ERR_INVALID_ARGUMENT, a graph handle where a declaration belongs RDX_ERR_INVALID_HANDLE.
  def test_batch_names_contract
    decl = @graph["A"]
    out = Rdx::Native.out_buffer
    count = Rdx::Native.out_buffer
    handle = decl.send(:handle)
    assert_equal Rdx::InvalidArgumentError::CODE, Rdx::Native.call(:rdx_declaration_ancestor_names, handle, nil, count)
    assert_match(/out_names is NULL/, Rdx.last_error_message)
    assert_equal Rdx::InvalidArgumentError::CODE, Rdx::Native.call(:rdx_declaration_member_names, handle, out, nil)
    assert_match(/out_count is NULL/, Rdx.last_error_message)
    assert_equal Rdx::InvalidArgumentError::CODE, Rdx::Native.call(:rdx_declaration_descendant_names, nil, out, count)
    graph_handle = @graph.instance_variable_get(:@handle)
    assert_equal Rdx::InvalidHandleError::CODE, Rdx::Native.call(:rdx_declaration_ancestor_names, graph_handle, out, count)
    assert_equal Rdx::OK, Rdx::Native.call(:rdx_declaration_ancestor_names, handle, out, count)
    assert_equal %w[A M Object Kernel BasicObject], Rdx::Native.take_string_array(Rdx::Native.word(out), Rdx::Native.word(count))
  end
end

# Graph.open, #save and #open_stats on a copy of the fixture in a temporary directory.
class TestPersistence < Minitest::Test
  PRODUCT = File.join("lib", "shop", "models", "product.rb")
  ORDER = File.join("lib", "shop", "models", "order.rb")

  def setup
    @dir = Dir.mktmpdir("rdx-ruby-open-")
    @project = File.join(@dir, "project")
    FileUtils.cp_r(FIXTURE, @project)
    FileUtils.rm_rf(File.join(@project, ".rdx"))
    # Every file the graph reads: the Ruby files and the example's Python and TypeScript ones.
    @files = Dir.glob(File.join(@project, "**", "*.{rb,py,ts}")).size
    @graphs = []
  end

  def teardown
    @graphs.each(&:close)
    FileUtils.rm_rf(@dir)
  end

  def open_project(**options)
    Rdx::Graph.open(@project, jobs: 1, **options).tap { |graph| @graphs << graph }
  end

  # The batch names of the declarations the answers describe (nil when absent), and the count.
  def answers(graph)
    described = Fixture.python["declarations"].keys.to_h do |name|
      d = graph[name]
      [name, d && [d.ancestor_names, d.descendant_names, d.member_names]]
    end
    described.merge("declarations" => graph.declarations.size)
  end

  def test_second_open_reuses_every_file_and_starts_resolved
    assert_equal 13, @files
    cold = open_project
    assert_equal({ reused: 0, parsed: @files, deleted: 0, snapshot: false, resolved: false }, cold.open_stats)
    assert File.directory?(File.join(@project, ".rdx"))
    first = answers(cold) # asking resolves, which saves the resolved graph for the next open
    Fixture.python["declarations"].each do |name, expected|
      assert_equal [expected["ancestors"], expected["descendants"], expected["members"]], first[name], name
    end
    assert_equal Fixture.python["all_declarations"].size, first["declarations"]
    cold.close
    warm = Rdx::Graph.open(Pathname.new(@project)) # jobs: nil, one per CPU; nothing to parse
    @graphs << warm
    assert_equal({ reused: @files, parsed: 0, deleted: 0, snapshot: true, resolved: true }, warm.open_stats)
    assert_equal first, answers(warm)
    assert_same warm, warm.save
    assert_equal first, answers(open_project)
  end

  def test_changed_and_deleted_files
    open_project.resolve.close
    File.open(File.join(@project, PRODUCT), "a") do |f|
      f.write("\nmodule Shop\n  module Models\n    class Product\n      def discounted; end\n    end\n  end\nend\n")
    end
    changed = open_project
    assert_equal({ reused: @files - 1, parsed: 1, deleted: 0, snapshot: true, resolved: false }, changed.open_stats)
    assert_includes changed["Shop::Models::Product"].member_names, "Shop::Models::Product#discounted()"
    File.delete(File.join(@project, ORDER))
    deleted = open_project
    assert_equal({ reused: @files - 1, parsed: 0, deleted: 1, snapshot: true, resolved: false }, deleted.open_stats)
    assert_nil deleted["Shop::Models::Order"]
    refute_includes deleted["Shop::Models::Record"].descendant_names, "Shop::Models::Order"
  end

  def test_cache_dir_elsewhere
    cache = File.join(@dir, "caches", "project")
    open_project(cache_dir: cache).resolve
    assert File.directory?(cache)
    refute File.exist?(File.join(@project, ".rdx"))
    assert_equal({ reused: @files, parsed: 0, deleted: 0, snapshot: true, resolved: true }, open_project(cache_dir: Pathname.new(cache)).open_stats)
    # The project's own default cache starts empty.
    assert_equal false, open_project.open_stats[:snapshot]
  end

  def test_errors
    error = assert_raises(Rdx::IOFailureError) { Rdx::Graph.open(File.join(@dir, "missing")) }
    assert_match(/missing/, error.message)
    assert_equal(-4, error.code)
    error = assert_raises(Rdx::InvalidArgumentError) { Rdx::Graph.open(@project, jobs: -1) }
    assert_match(/jobs is -1/, error.message)
    assert_raises(Rdx::InvalidArgumentError) { Rdx::Graph.open(@project, cache_dir: "") }
    assert_raises(Rdx::InvalidArgumentError) { Rdx::Graph.open("#{@project}\0x") }
    plain = Rdx::Graph.new
    error = assert_raises(Rdx::InvalidArgumentError) { plain.save }
    assert_match(/only a graph made by rdx_graph_open can be saved/, error.message)
    assert_nil plain.open_stats
    plain.close
    graph = open_project
    graph.close
    assert_raises(Rdx::InvalidHandleError) { graph.save }
    assert_raises(Rdx::InvalidHandleError) { graph.open_stats }
  end
end

class TestMemoryAndThreads < Minitest::Test
  def handles_of_dropped_declarations(graph, count)
    Array.new(count) { graph["Shop::Models::Product"].send(:handle) }
  end

  def test_finalizers_release_handles
    handles = handles_of_dropped_declarations(Fixture.graph, 200)
    3.times { GC.start(full_mark: true, immediate_sweep: true) }
    out = Rdx::Native.out_buffer
    released = handles.count { |h| Rdx::Native.call(:rdx_declaration_name, h, out) == Rdx::InvalidHandleError::CODE }
    # Ruby's conservative stack scan may keep a few objects alive; most must be gone.
    assert_operator released, :>=, 180
  end

  def test_many_graphs
    1000.times { Rdx::Graph.new.close }
    100.times { Rdx::Graph.new } # left to the finalizers
    GC.start
  end

  def test_threads_query_one_graph
    graph = Fixture.graph
    expected = graph["Shop::Models::Product"].ancestors.map(&:name)
    results = Array.new(4) do |i|
      Thread.new do
        Array.new(50) do |j|
          raise "wrong answer" unless graph["Shop::Models::Product"].ancestors.map(&:name) == expected

          graph["Missing#{i}x#{j}"].nil? && graph.search("Prod", limit: 2).size == 2
        end
      end
    end.map(&:value)
    assert(results.flatten.all?)
  end
end
