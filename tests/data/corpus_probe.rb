# Differential-test probe: loads libraries from the Debian corpus (Ruby stdlib, Rails, RuboCop)
# and prints, for every named module defined there, its kind and ancestors as JSON lines.
# With FEATURES_OUT set, also writes the corpus files Ruby loaded (so rdx indexes the same).
require "json"
CORPUS = ["/usr/lib/ruby/", "/usr/share/rubygems-integration/"]
LIBS = %w[
  set json optparse ostruct pp prettyprint logger tempfile tmpdir fileutils open3 uri net/http
  erb csv yaml psych time date digest securerandom forwardable delegate singleton observer
  monitor English benchmark shellwords abbrev find base64 zlib stringio strscan ripper
  rexml/document rake minitest test/unit racc irb reline rdoc bigdecimal openssl ipaddr
  socket weakref timeout tsort getoptlong matrix prime racc/parser webrick
  active_support active_support/all active_model active_record action_controller action_view
  action_dispatch active_job action_mailer rails rubocop parser/current thor i18n tzinfo
  concurrent rack
]
failed = []
LIBS.each do |lib|
  begin
    require lib
  rescue Exception => e
    failed << "#{lib}: #{e.class}"
  end
end
# Touch autoloads of the big frameworks so their modules exist.
[ActiveSupport, ActiveModel, ActiveRecord, ActionController, ActionView, ActionDispatch].each do |ns|
  begin
    ns.eager_load! if ns.respond_to?(:eager_load!)
  rescue Exception => e
    failed << "#{ns}.eager_load!: #{e.class}: #{e.message[0, 80]}"
  end
end if defined?(ActiveSupport)
# Autoloaded constants: referencing them loads their files.
%w[ActiveRecord::Base ActionController::Base ActionController::API ActiveModel::Model ActionView::Base
   ActiveJob::Base ActionMailer::Base RuboCop::Cop::Base].each do |name|
  begin
    Object.const_get(name)
  rescue Exception => e
    failed << "#{name}: #{e.class}"
  end
end
def corpus_file?(loc)
  loc && loc[0] && CORPUS.any? { |c| loc[0].start_with?(c) }
end
# Singleton class -> the module it belongs to (Ruby 3.1 has no Class#attached_object).
ATTACHED = {}.compare_by_identity
ObjectSpace.each_object(Module) { |m| ATTACHED[m.singleton_class] = m unless m.singleton_class? }
out = []
ObjectSpace.each_object(Module) do |m|
  name = (Module.instance_method(:name).bind(m).call rescue nil)
  next unless name && !name.start_with?("#<")
  begin
    next unless Object.const_get(name).equal?(m)
  rescue Exception
    next
  end
  loc = (Object.const_source_location(name) rescue nil)
  next unless corpus_file?(loc)
  anc = m.ancestors.map { |a| Module.instance_method(:name).bind(a).call rescue nil }
  sanc = m.singleton_class.ancestors.map do |a|
    if a.singleton_class?
      attached = ATTACHED[a]
      n = attached && (Module.instance_method(:name).bind(attached).call rescue nil)
      n ? "#{n}::<#{n.split('::').last}>" : nil
    else
      Module.instance_method(:name).bind(a).call rescue nil
    end
  end
  out << { "name" => name, "kind" => (m.is_a?(Class) ? "Class" : "Module"), "file" => loc[0], "ancestors" => anc, "singleton_ancestors" => sanc }
end
STDERR.puts "failed: #{failed.join(', ')}" unless failed.empty?
File.write(ENV["FEATURES_OUT"], $LOADED_FEATURES.select { |f| CORPUS.any? { |c| f.start_with?(c) } }.join("\n")) if ENV["FEATURES_OUT"]
out.sort_by { |h| h["name"] }.each { |h| puts JSON.generate(h) }
