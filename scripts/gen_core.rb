# frozen_string_literal: true
#
# gen_core.rb - generate rdx/data/core.rb, a stub Ruby source file that
# describes Ruby's core classes and modules, using Ruby's own reflection.
#
# rdx parses the stub like any other Ruby file, so that user classes get
# Ruby's real core ancestors (superclasses, include/prepend/extend) and
# methods (with visibility and parameter lists).
#
# Usage (run from the repository root, always with --disable-gems so that
# only the true core is visible, i.e. no RubyGems, DidYouMean, ...):
#
#   ruby --disable-gems scripts/gen_core.rb > rdx/data/core.rb
#   ruby --disable-gems scripts/gen_core.rb -o rdx/data/core.rb
#   ruby --disable-gems scripts/gen_core.rb --check rdx/data/core.rb
#
# --check parses an existing stub with Ripper and verifies it against live
# reflection: the set of classes/modules, superclasses, constants, methods
# per visibility, and that Ruby's own linearization of the stub's
# include/prepend/extend lines (replayed on fresh anonymous modules)
# reproduces `Mod.ancestors` and `Mod.singleton_class.ancestors` exactly.
# It exits non-zero on any mismatch.
#
# Layout of the generated stub (deterministic; regenerating with the same
# Ruby gives a byte-identical file):
#   * every named class/module reachable from Object.constants (recursively
#     through nested constants whose value's name equals the constant path)
#     is emitted as nested `class X < ::Super` / `module X`, inside its owner;
#   * siblings are sorted by name, then stably reordered so that a sibling
#     subtree defining a superclass/mixin/alias target used by another
#     sibling subtree comes first (so the stub is also in load order);
#   * body order: include, prepend, extend lines; `NAME = nil # Class` for
#     non-module constants; nested classes/modules; `NAME = ::Target` for
#     module aliases; `class << self` with singleton methods; public,
#     protected, private instance methods (each group sorted by name).
#
# Nothing in this script may define top-level constants or methods other
# than the RdxGenCore module itself (which the reflection walk skips), since
# that would leak into the generated stub.

module RdxGenCore
  # Unbound core methods, so reflection cannot be fooled by overrides
  # (e.g. Module.constants has a singleton variant with different meaning).
  MOD_NAME = Module.instance_method(:name)
  MOD_CONSTANTS = Module.instance_method(:constants)
  MOD_CONST_GET = Module.instance_method(:const_get)
  MOD_AUTOLOAD_P = Module.instance_method(:autoload?)
  KERNEL_CLASS = Kernel.instance_method(:class)
  IS_A = Kernel.instance_method(:is_a?)

  IDENT_RE = /\A[a-z_][A-Za-z0-9_]*\z/.freeze
  KEYWORDS = %w[
    BEGIN END __ENCODING__ __END__ __FILE__ __LINE__ alias and begin break
    case class def defined? do else elsif end ensure false for if in module
    next nil not or redo rescue retry return self super then true undef
    unless until when while yield
  ].freeze
  VISIBILITIES = %i[public protected private].freeze
  # Valid Ruby def names that tree-sitter-ruby (0.23) cannot parse (it
  # yields an ERROR node); treated as invalid and skipped, e.g.
  # TracePoint#self.
  PARSER_UNFRIENDLY_NAMES = %w[self super].freeze

  module_function

  # ------------------------------------------------------------------
  # Reflection
  # ------------------------------------------------------------------

  def mod_name(mod)
    MOD_NAME.bind_call(mod)
  end

  def module?(value)
    IS_A.bind_call(value, Module)
  end

  def join_path(owner_path, name)
    owner_path ? "#{owner_path}::#{name}" : name.to_s
  end

  def new_node(mod, path)
    {
      mod: mod, path: path, name: path && path.split('::').last,
      kind: mod.nil? ? :root : (mod.is_a?(Class) ? :class : :module),
      children: [], consts: [], aliases: [],
      includes: [], prepends: [], extends: [], sprepends: [],
      methods: { false => {}, true => {} }, superclass: nil
    }
  end

  # Collects the whole model. Returns [root_node, nodes_by_path, stats].
  def collect
    stats = { skipped_consts: [], anonymous: [], skipped_methods: [],
              unresolved: [] }
    root = new_node(nil, nil)
    nodes = {}
    walk_constants(root, Object, nil, nodes, stats, true)
    nodes.each_value { |node| fill_node(node, nodes, stats) }
    [root, nodes, stats]
  end

  def walk_constants(node, mod, owner_path, nodes, stats, top)
    names = top ? MOD_CONSTANTS.bind_call(Object) : MOD_CONSTANTS.bind_call(mod, false)
    names.map(&:to_s).sort.each do |cname|
      path = join_path(owner_path, cname)
      if MOD_AUTOLOAD_P.bind_call(mod, cname.to_sym)
        stats[:skipped_consts] << "#{path} (autoload)"
        next
      end
      begin
        value = MOD_CONST_GET.bind_call(mod, cname.to_sym, false)
      rescue Exception => e # rubocop:disable Lint/RescueException
        stats[:skipped_consts] << "#{path} (#{e.class})"
        next
      end
      next if value.equal?(RdxGenCore)

      if module?(value)
        vname = mod_name(value)
        if vname.nil?
          stats[:anonymous] << path
        elsif vname == path
          child = new_node(value, path)
          nodes[path] = child
          node[:children] << child
          # Object's constants are the top level itself; don't recurse.
          unless value.equal?(Object)
            walk_constants(child, value, path, nodes, stats, false)
          end
        else
          node[:aliases] << [cname, vname]
        end
      else
        klass = KERNEL_CLASS.bind_call(value)
        node[:consts] << [cname, mod_name(klass) || klass.inspect]
      end
    end
  end

  def display(mod)
    mod.singleton_class? ? mod.inspect : mod_name(mod)
  end

  # Modules to emit for the part of `chain` strictly between index a and b.
  def mixins_between(node, chain, nodes, stats, what)
    chain.map do |m|
      n = m.singleton_class? ? nil : mod_name(m)
      if n.nil? || !nodes.key?(n)
        stats[:unresolved] << "#{node[:path]}: #{what} #{m.inspect}"
        nil
      else
        n
      end
    end.compact
  end

  def fill_node(node, nodes, stats)
    mod = node[:mod]
    anc = mod.ancestors
    i = anc.index(mod)
    if node[:kind] == :class && mod.superclass
      sup = mod.superclass
      node[:superclass] = mod_name(sup)
      unless nodes.key?(node[:superclass].to_s)
        stats[:unresolved] << "#{node[:path]}: superclass #{sup.inspect}"
      end
      j = anc.index(sup)
    else
      j = anc.size
    end
    node[:includes] = mixins_between(node, anc[(i + 1)...j], nodes, stats, 'include').reverse
    node[:prepends] = mixins_between(node, anc[0...i], nodes, stats, 'prepend').reverse

    sc = mod.singleton_class
    sanc = sc.ancestors
    si = sanc.index(sc)
    sj = ((si + 1)...sanc.size).find do |k|
      m = sanc[k]
      m.singleton_class? || m.equal?(Class) || m.equal?(Module)
    end || sanc.size
    node[:extends] = mixins_between(node, sanc[(si + 1)...sj], nodes, stats, 'extend').reverse
    node[:sprepends] = mixins_between(node, sanc[0...si], nodes, stats, 'singleton prepend').reverse

    [[false, mod], [true, sc]].each do |singleton, target|
      VISIBILITIES.each do |vis|
        names = target.send(:"#{vis}_instance_methods", false).map(&:to_s).sort.uniq
        defs = []
        names.each do |mname|
          line = def_line(mname, target.instance_method(mname.to_sym).parameters)
          if line
            defs << [mname, line]
          else
            stats[:skipped_methods] << "#{node[:path]}#{singleton ? '.' : '#'}#{mname}"
          end
        end
        node[:methods][singleton][vis] = defs
      end
    end
  end

  # ------------------------------------------------------------------
  # Method signatures
  # ------------------------------------------------------------------

  def local_name?(name)
    !name.nil? && IDENT_RE.match?(name.to_s) && !KEYWORDS.include?(name.to_s)
  end

  def render_params(params)
    used = params.map { |_, n| n.to_s if n && IDENT_RE.match?(n.to_s) }.compact
    fresh = lambda do |base|
      cand = base
      k = 1
      while used.include?(cand)
        cand = "#{base}#{k}"
        k += 1
      end
      used << cand
      cand
    end
    pos = 0
    params.map do |kind, name|
      # Keyword parameters may be named like keywords (Time.at(in: nil)).
      ok = %i[key keyreq].include?(kind) ? IDENT_RE.match?(name.to_s) : local_name?(name)
      nm = ok ? name.to_s : nil
      case kind
      when :req
        pos += 1
        nm || fresh.call("arg#{pos - 1}")
      when :opt
        pos += 1
        "#{nm || fresh.call("arg#{pos - 1}")} = nil"
      when :rest then "*#{nm || fresh.call('args')}"
      when :keyreq then "#{nm || fresh.call('key')}:"
      when :key then "#{nm || fresh.call('key')}: nil"
      when :keyrest then "**#{nm || fresh.call('kwargs')}"
      when :block then "&#{nm || fresh.call('block')}"
      when :nokey then '**nil'
      else raise "unknown parameter kind #{kind.inspect}"
      end
    end.join(', ')
  end

  def valid_ruby?(src)
    RubyVM::InstructionSequence.compile(src)
    true
  rescue SyntaxError
    false
  end

  # Returns the `def` line for a method, or nil if the name cannot be
  # written as a def name.
  def def_line(name, params)
    return nil if PARSER_UNFRIENDLY_NAMES.include?(name)

    plist = render_params(params)
    line = plist.empty? ? "def #{name}; end" : "def #{name}(#{plist}); end"
    return line if valid_ruby?(line)
    return nil unless valid_ruby?("def #{name}; end")

    "def #{name}(*args, **kwargs, &block); end" # should not happen
  end

  # ------------------------------------------------------------------
  # Ordering
  # ------------------------------------------------------------------

  def own_deps(node)
    [node[:superclass], *node[:includes], *node[:prepends], *node[:extends],
     *node[:sprepends], *node[:aliases].map(&:last)].compact
  end

  def subtree_deps(node)
    node[:children].flat_map { |c| subtree_deps(c) } + own_deps(node)
  end

  # Children sorted by name, then topologically (Kahn, name tie-break) so a
  # sibling subtree that defines something another sibling subtree needs
  # comes first. Core has one real cycle (File < IO, but IO includes
  # File::Constants); cycles are broken by preferring a child whose unmet
  # dependencies are only mixins/aliases, never superclasses.
  def ordered_children(node)
    kids = node[:children].sort_by { |c| c[:name] }
    by_name = kids.to_h { |c| [c[:name], c] }
    prefix = node[:path] ? "#{node[:path]}::" : ''
    preds = kids.to_h { |c| [c[:name], {}] } # name => {sibling => strong?}
    kids.each do |c|
      subtree_supers(c).map { |d| [d, true] }.concat(subtree_deps(c).map { |d| [d, false] }).each do |dep, strong|
        next unless dep.start_with?(prefix)

        seg = dep[prefix.size..].split('::').first
        next if seg == c[:name] || !by_name.key?(seg)

        preds[c[:name]][seg] ||= strong
      end
    end
    out = []
    done = {}
    until out.size == kids.size
      todo = kids.reject { |c| done[c[:name]] }
      nxt = todo.find { |c| preds[c[:name]].keys.all? { |p| done[p] } } ||
            todo.find { |c| preds[c[:name]].none? { |p, strong| strong && !done[p] } } ||
            todo.first
      done[nxt[:name]] = true
      out << nxt
    end
    out
  end

  def subtree_supers(node)
    node[:children].flat_map { |c| subtree_supers(c) } + [node[:superclass]].compact
  end

  # ------------------------------------------------------------------
  # Emission
  # ------------------------------------------------------------------

  def emit_methods(lines, defs_by_vis, ind)
    defs_by_vis[:public].each { |_, l| lines << "#{ind}#{l}" }
    %i[protected private].each do |vis|
      next if defs_by_vis[vis].empty?

      lines << "#{ind}#{vis}"
      defs_by_vis[vis].each { |_, l| lines << "#{ind}#{l}" }
    end
  end

  def emit_body(lines, node, depth)
    ind = '  ' * depth
    start = lines.size
    node[:includes].each { |m| lines << "#{ind}include ::#{m}" }
    node[:prepends].each { |m| lines << "#{ind}prepend ::#{m}" }
    node[:extends].each { |m| lines << "#{ind}extend ::#{m}" }
    node[:consts].each { |n, k| lines << "#{ind}#{n} = nil # #{k}" }
    kids = ordered_children(node)
    kids.each do |child|
      lines << '' if lines.size > start
      emit_node(lines, child, depth)
    end
    lines << '' if !kids.empty? && node[:kind] != :root
    node[:aliases].each { |n, t| lines << "#{ind}#{n} = ::#{t}" }
    return if node[:kind] == :root

    lines.pop if lines.last == '' && !kids.empty? && body_empty_after_children?(node)

    smeth = node[:methods][true]
    if !node[:sprepends].empty? || VISIBILITIES.any? { |v| !smeth[v].empty? }
      lines << "#{ind}class << self"
      node[:sprepends].each { |m| lines << "#{ind}  prepend ::#{m}" }
      emit_methods(lines, smeth, "#{ind}  ")
      lines << "#{ind}end"
    end
    emit_methods(lines, node[:methods][false], ind)
  end

  def body_empty_after_children?(node)
    node[:aliases].empty? && node[:sprepends].empty? &&
      [true, false].all? { |s| VISIBILITIES.all? { |v| node[:methods][s][v].empty? } }
  end

  def emit_node(lines, node, depth)
    ind = '  ' * depth
    lines << if node[:kind] == :module
               "#{ind}module #{node[:name]}"
             elsif node[:superclass]
               "#{ind}class #{node[:name]} < ::#{node[:superclass]}"
             else
               "#{ind}class #{node[:name]}"
             end
    emit_body(lines, node, depth + 1)
    lines << "#{ind}end"
  end

  def counts(nodes)
    c = Hash.new(0)
    nodes.each_value do |n|
      c[n[:kind]] += 1
      c[:consts] += n[:consts].size
      c[:aliases] += n[:aliases].size
      [false, true].each do |s|
        VISIBILITIES.each { |v| c[s ? :smethods : :imethods] += n[:methods][s][v].size }
      end
    end
    c
  end

  def generate
    root, nodes, stats = collect
    body = []
    emit_body(body, root, 0)
    c = counts(nodes)
    c[:consts] += root[:consts].size
    c[:aliases] += root[:aliases].size
    header = [
      '# GENERATED FILE - DO NOT EDIT.',
      '#',
      '# Stub of the Ruby core classes and modules, produced by reflection.',
      '# Method bodies, constant values and undefined methods are not modelled.',
      "# Ruby: #{RUBY_DESCRIPTION}",
      '# Regenerate: ruby --disable-gems scripts/gen_core.rb > rdx/data/core.rb',
      '# Verify:     ruby --disable-gems scripts/gen_core.rb --check rdx/data/core.rb',
      '#',
      "# Classes: #{c[:class]}, modules: #{c[:module]}, " \
      "methods: #{c[:imethods] + c[:smethods]} " \
      "(instance: #{c[:imethods]}, singleton: #{c[:smethods]}), " \
      "constants: #{c[:consts]}, aliases: #{c[:aliases]}",
      "# Skipped methods (name not usable in def): #{stats[:skipped_methods].size}" \
      "#{stats[:skipped_methods].empty? ? '' : " #{stats[:skipped_methods].sort.join(' ')}"}",
      "# Skipped constants: #{stats[:skipped_consts].size + stats[:anonymous].size}" \
      "#{(stats[:skipped_consts] + stats[:anonymous].map { |p| "#{p} (anonymous)" }).sort.map { |s| " #{s}" }.join}",
      "# Unresolved ancestors: #{stats[:unresolved].size}" \
      "#{stats[:unresolved].sort.map { |s| " [#{s}]" }.join}",
      '',
      "# Ruby 3.1's gem_prelude.rb requires these before the program runs (``ruby -e 'puts",
      "# $LOADED_FEATURES'`` lists error_highlight.rb, then did_you_mean.rb): when they are indexed,",
      "# rdx's load order (rdx.ruby.resolve.order, core first, requires before requirers) does the same.",
      'require "error_highlight"',
      'require "did_you_mean"',
      ''
    ]
    stats[:unresolved].each { |u| $stderr.puts "gen_core: unresolved #{u}" }
    "#{(header + body).join("\n")}\n"
  end

  # ------------------------------------------------------------------
  # --check
  # ------------------------------------------------------------------

  def sexp_const_path(sx)
    case sx[0]
    when :const_ref, :var_ref then sx[1][1]
    when :top_const_ref then "::#{sx[1][1]}"
    when :const_path_ref then "#{sexp_const_path(sx[1])}::#{sx[2][1]}"
    else raise "unexpected constant expression #{sx.inspect[0, 200]}"
    end
  end

  def top_path!(sx, errors, what)
    p = sexp_const_path(sx)
    errors << "#{what}: #{p} is not ::-qualified" unless p.start_with?('::')
    p.delete_prefix('::')
  end

  def parse_stub(src, errors)
    require 'ripper'
    sexp = Ripper.sexp(src)
    raise 'stub does not parse' unless sexp

    recs = {}
    recs[nil] = new_rec(:root, nil)
    parse_stmts(sexp[1], nil, false, recs, errors)
    recs
  end

  def new_rec(kind, sup)
    { kind: kind, super: sup, ops: [], consts: [], aliases: [],
      methods: Hash.new { |h, k| h[k] = [] } }
  end

  def parse_stmts(stmts, scope, singleton, recs, errors)
    vis = :public
    rec = recs[scope]
    stmts.each do |st|
      case st[0]
      when :class, :module
        path = join_path(scope, sexp_const_path(st[1]))
        errors << "#{path} defined twice" if recs.key?(path)
        sup = st[0] == :class && st[2] ? top_path!(st[2], errors, path) : nil
        recs[path] = new_rec(st[0], sup)
        parse_stmts((st[0] == :class ? st[3] : st[2])[1], path, false, recs, errors)
      when :sclass
        parse_stmts(st[2][1], scope, true, recs, errors)
      when :command
        verb = st[1][1]
        arg = st[2][1][0]
        op = singleton ? :"singleton_#{verb}" : verb.to_sym
        rec[:ops] << [op, top_path!(arg, errors, "#{scope} #{verb}")]
      when :vcall, :var_ref
        vis = st[1][1].to_sym
      when :def
        rec[:methods][[singleton, vis]] << st[1][1]
      when :assign
        name = st[1][1][1]
        if st[2][0] == :var_ref && st[2][1][1] == 'nil'
          rec[:consts] << name
        else
          rec[:aliases] << [name, top_path!(st[2], errors, "#{scope}::#{name}")]
        end
      when :void_stmt then nil
      else errors << "unexpected statement #{st[0]} in #{scope}"
      end
    end
  end

  def check(file)
    root, nodes, stats = collect # before loading ripper (adds ::Ripper)
    errors = []
    recs = parse_stub(File.read(file), errors)

    # Structure, superclasses, constants, methods.
    want = nodes.keys.sort
    got = recs.keys.compact.sort
    errors << "missing in stub: #{(want - got).join(', ')}" unless (want - got).empty?
    errors << "extra in stub: #{(got - want).join(', ')}" unless (got - want).empty?
    ([[nil, root]] + nodes.to_a).each do |path, node|
      rec = recs[path] or next
      errors << "#{path}: kind #{rec[:kind]}" unless rec[:kind] == node[:kind]
      errors << "#{path}: superclass #{rec[:super].inspect}" unless rec[:super] == node[:superclass]
      errors << "#{path}: constants differ" unless rec[:consts].sort == node[:consts].map(&:first).sort
      errors << "#{path}: aliases differ" unless rec[:aliases].sort == node[:aliases].sort
      next if path.nil?

      [false, true].each do |s|
        VISIBILITIES.each do |v|
          exp = node[:methods][s][v].map(&:first).sort
          act = rec[:methods][[s, v]].sort
          errors << "#{path}: #{s ? 'singleton' : 'instance'} #{v} methods differ: " \
                    "missing #{(exp - act).first(5)} extra #{(act - exp).first(5)}" unless exp == act
        end
      end
    end

    # Replay the stub's hierarchy on fresh anonymous modules and compare the
    # linearization Ruby computes with the real one.
    fresh = {}.compare_by_identity
    built = {}
    build = lambda do |path, stack|
      return built[path] if built.key?(path)
      raise "cycle at #{path}" if stack.include?(path)

      rec = recs.fetch(path)
      deps = [rec[:super], *rec[:ops].map(&:last)].compact.uniq - [path]
      deps.each { |d| build.call(d, stack + [path]) }
      m = if rec[:kind] == :module then Module.new
          elsif rec[:super].nil? then Class.new(BasicObject)
          else Class.new(built.fetch(rec[:super]))
          end
      built[path] = m
      fresh[m] = path
      rec[:ops].each do |op, target|
        t = built.fetch(target)
        case op
        when :include then m.send(:include, t)
        when :prepend then m.send(:prepend, t)
        when :extend then m.extend(t)
        when :singleton_prepend then m.singleton_class.send(:prepend, t)
        else raise "bad op #{op}"
        end
      end
      m
    end
    recs.each_key { |p| build.call(p, []) if p }
    built.each { |p, m| fresh[m.singleton_class] = "#<Class:#{p}>" }
    fresh_names = ->(list) { list.take_while { |x| fresh.key?(x) }.map { |x| fresh[x] } }
    real_names = lambda do |list|
      list.take_while { |x| !x.equal?(Class) && !x.equal?(Module) }
          .map { |x| display(x) }
    end
    checked = 0
    nodes.each do |path, node|
      next unless built.key?(path)

      mod = node[:mod]
      exp = mod.ancestors.map { |x| display(x) }
      act = fresh_names.call(built[path].ancestors)
      errors << "#{path}: ancestors #{act} != #{exp}" unless exp == act
      exp = real_names.call(mod.singleton_class.ancestors)
      act = fresh_names.call(built[path].singleton_class.ancestors)
      errors << "#{path}: singleton ancestors #{act} != #{exp}" unless exp == act
      checked += 1
    end

    errors.each { |e| $stderr.puts "MISMATCH: #{e}" }
    puts "checked #{checked} classes/modules; #{errors.size} mismatches; " \
         "#{stats[:skipped_methods].size} skipped methods"
    errors.empty?
  end

  # ------------------------------------------------------------------
  # CLI
  # ------------------------------------------------------------------

  def main(argv)
    if defined?(::Gem) || defined?(::DidYouMean)
      abort 'gen_core: run with `ruby --disable-gems` so only the core is reflected'
    end
    $VERBOSE = nil
    Warning[:deprecated] = false
    case argv
    in [] then $stdout.write(generate)
    in ['-o' | '--output', path] then File.write(path, generate)
    in ['--check', path] then exit(check(path) ? 0 : 1)
    else
      abort 'usage: ruby --disable-gems scripts/gen_core.rb [-o OUT | --check FILE]'
    end
  end
end

RdxGenCore.main(ARGV)
