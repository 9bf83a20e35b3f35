# Probe of tests/test_top_gems.py. Reads gems from standard input, one a line, fields separated by
# tabs: gem name, Debian package, "1" to touch autoloads (else "0"), require paths separated by
# commas. Forks one child per gem (JOBS at a time) from this otherwise idle process, so each gem
# starts from the same state as a fresh `ruby` without paying for Ruby's start-up; the child
# requires the gem, touches the autoloads of the modules it defined, and writes to
# OUT_DIR/<line number>.txt what Ruby built, one record a line, fields separated by tabs:
#   F <path>                          a Ruby file compiled meanwhile (required, loaded or autoloaded)
#   M <name> <kind> <own> <file> <ancestors, comma-separated; unnamed ones empty>
#                                     a named module created meanwhile and defined in a compiled
#                                     file (own = 1 when that file is the gem's own), or created
#                                     by a C extension of the gem and given methods in its files
#                                     (file is then "-")
#   E <text>                          a require or autoload that raised (the test reports these)
#   D                                 the last line: the child finished
# Nothing is required before the fork but what Ruby's prelude loads (RubyGems, did_you_mean,
# error_highlight), so every file the gem needs is in the F records.
NAME = Module.instance_method(:name)
# Libraries of Ruby itself, where the gems that come with Ruby (package libruby*) live.
LIB_DIRS = [RbConfig::CONFIG["rubylibdir"], RbConfig::CONFIG["rubyarchdir"]].compact.uniq
CHILD_SECONDS = 120

def name_of(mod)
  NAME.bind_call(mod)
rescue StandardError
  nil
end

def first_line(error)
  "#{error.class}: #{error.message.lines.first.to_s.strip[0, 160]}"
end

# Which files are the gem's own: those of its Debian package (dpkg knows them exactly; Debian's
# gemspecs often list no files), or, for the gems that come with Ruby, those under its spec's
# require paths or named in its spec's file list relative to Ruby's library directories.
def own_files(gem_name, package)
  unless package.start_with?("libruby")
    packaged = IO.popen(["dpkg-query", "-L", package], err: File::NULL, &:read).split("\n").to_h { |f| [f, true] }
    return ->(path) { packaged.key?(path) }
  end
  spec = begin
    Gem::Specification.find_by_name(gem_name)
  rescue Exception # rubocop:disable Lint/RescueException
    nil
  end
  roots = spec ? spec.full_require_paths.map { |p| p.end_with?("/") ? p : "#{p}/" } : []
  listed = spec ? spec.files.to_h { |f| [f.delete_suffix("/"), true] } : {}
  lambda do |path|
    next true if roots.any? { |r| path.start_with?(r) }
    LIB_DIRS.any? do |dir|
      next false unless path.start_with?("#{dir}/")
      parts = path.delete_prefix("#{dir}/").split("/")
      (1..parts.size).any? { |n| listed[parts[0, n].join("/")] }
    end
  end
end

def probe(gem_name, package, autoloads, requires, out)
  before = {}.compare_by_identity
  ObjectSpace.each_object(Module) { |m| before[m] = true }
  own = own_files(gem_name, package)
  compiled = []
  seen = {}
  trace = TracePoint.new(:script_compiled) do |tp|
    next unless tp.eval_script.nil?
    iseq = tp.instruction_sequence
    path = iseq.absolute_path || iseq.path
    if path && !seen[path] && File.file?(path)
      seen[path] = true
      compiled << File.expand_path(path)
    end
  end
  errors = []
  trace.enable
  requires.each do |lib|
    require lib
  rescue Exception => e # rubocop:disable Lint/RescueException -- a gem may raise anything at load time
    errors << "require #{lib}: #{first_line(e)}"
  end
  # Autoloads of the gem's own modules, touched until none is left (zeitwerk registers autoloads
  # too), so that the modules a gem loads on demand are compared as well; each is tried once (a
  # gem's optional adapters may fail to load: those are reported, not fatal). Its dependencies
  # are probed on their own. Bounded: a gem whose autoloads keep defining modules stops after a
  # few rounds.
  tried = {}
  (autoloads ? 6 : 0).times do
    fresh = []
    ObjectSpace.each_object(Module) { |m| fresh << m unless before[m] || m.singleton_class? }
    touched = false
    fresh.each do |mod|
      name = name_of(mod)
      next unless name && !name.start_with?("#<")
      loc = (Object.const_source_location(name) rescue nil)
      next unless loc && loc[0] && own.call(File.expand_path(loc[0]))
      mod.constants(false).each do |c|
        next unless mod.autoload?(c) && !tried["#{name}::#{c}"]
        tried["#{name}::#{c}"] = true
        touched = true
        begin
          mod.const_get(c, false)
        rescue Exception => e # rubocop:disable Lint/RescueException
          errors << "autoload #{name}::#{c}: #{first_line(e)}"
        end
      end
    rescue Exception => e # rubocop:disable Lint/RescueException
      errors << "constants of #{name}: #{e.class}"
    end
    break unless touched
  end
  trace.disable

  compiled_set = compiled.to_h { |f| [f, true] }
  own_compiled = compiled.select { |f| own.call(f) }.to_h { |f| [f, true] }
  compiled.each { |f| out.puts "F\t#{f}" }
  errors.each { |e| out.puts "E\t#{e.tr("\t\n", '  ')}" }
  ObjectSpace.each_object(Module) do |m|
    next if before[m] || m.singleton_class?
    name = name_of(m)
    next unless name && !name.start_with?("#<")
    begin
      next unless Object.const_get(name, false).equal?(m)
    rescue Exception # rubocop:disable Lint/RescueException
      next
    end
    loc = (Object.const_source_location(name) rescue nil)
    file = loc && loc[0] && File.expand_path(loc[0])
    if file.nil? || !compiled_set[file]
      # Created by a C extension (no source location): compared when the gem's Ruby files give
      # it methods, since rdx then sees it reopened there.
      singleton = m.singleton_methods(false)
      in_ruby = (m.instance_methods(false) + m.private_instance_methods(false) + singleton).any? do |meth|
        src = (singleton.include?(meth) ? m.method(meth) : m.instance_method(meth)).source_location
        src && own_compiled[File.expand_path(src[0])]
      rescue StandardError
        false
      end
      next unless in_ruby
      file = "-"
    end
    ancestors = m.ancestors.map { |a| (n = name_of(a)) && !n.start_with?("#<") ? n : "" }
    out.puts ["M", name, m.is_a?(Class) ? "Class" : "Module", file == "-" || own_compiled[file] ? 1 : 0, file, ancestors.join(",")].join("\t")
  end
  out.puts "D"
end

jobs = Integer(ENV.fetch("JOBS", "2"))
out_dir = ENV.fetch("OUT_DIR")
# The gem specifications, read once here rather than in every child.
Gem::Specification.stubs
running = 0
$stdin.each_line.with_index do |line, index|
  gem_name, package, autoloads, requires = line.chomp.split("\t")
  if running >= jobs
    Process.wait
    running -= 1
  end
  fork do
    Thread.new do
      sleep CHILD_SECONDS
      exit!(3)
    end
    File.open(File.join(out_dir, "#{index}.txt"), "w") do |out|
      probe(gem_name, package, autoloads == "1", requires.split(","), out)
    end
    # Skip the at_exit hooks gems register (sinatra's classic server, test-unit's and
    # minitest's runners, simplecov's report).
    exit!(0)
  end
  running += 1
end
Process.waitall
