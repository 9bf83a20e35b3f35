# GENERATED FILE - DO NOT EDIT.
#
# Stub of the Ruby core classes and modules, produced by reflection.
# Method bodies, constant values and undefined methods are not modelled.
# Ruby: ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]
# Regenerate: ruby --disable-gems scripts/gen_core.rb > rdx/data/core.rb
# Verify:     ruby --disable-gems scripts/gen_core.rb --check rdx/data/core.rb
#
# Classes: 248, modules: 24, methods: 2265 (instance: 1797, singleton: 468), constants: 489, aliases: 36
# Skipped methods (name not usable in def): 1 TracePoint#self
# Skipped constants: 0
# Unresolved ancestors: 0

# Ruby 3.1's gem_prelude.rb requires these before the program runs (``ruby -e 'puts
# $LOADED_FEATURES'`` lists error_highlight.rb, then did_you_mean.rb): when they are indexed,
# rdx's load order (rdx.ruby.resolve.order, core first, requires before requirers) does the same.
require "error_highlight"
require "did_you_mean"

ARGF = nil # ARGF.class
ARGV = nil # Array
ENV = nil # Object
RUBY_COPYRIGHT = nil # String
RUBY_DESCRIPTION = nil # String
RUBY_ENGINE = nil # String
RUBY_ENGINE_VERSION = nil # String
RUBY_PATCHLEVEL = nil # Integer
RUBY_PLATFORM = nil # String
RUBY_RELEASE_DATE = nil # String
RUBY_REVISION = nil # String
RUBY_VERSION = nil # String
STDERR = nil # IO
STDIN = nil # IO
STDOUT = nil # IO
TOPLEVEL_BINDING = nil # Binding

class BasicObject
  BasicObject = ::BasicObject
  def !; end
  def !=(arg0); end
  def ==(arg0); end
  def __id__; end
  def __send__(*args); end
  def equal?(arg0); end
  def instance_eval(*args); end
  def instance_exec(*args); end
  private
  def initialize; end
  def method_missing(*args); end
  def singleton_method_added(arg0); end
  def singleton_method_removed(arg0); end
  def singleton_method_undefined(arg0); end
end

module Comparable
  def <(arg0); end
  def <=(arg0); end
  def ==(arg0); end
  def >(arg0); end
  def >=(arg0); end
  def between?(arg0, arg1); end
  def clamp(*args); end
end

module Enumerable
  def all?(*args); end
  def any?(*args); end
  def chain(*args); end
  def chunk; end
  def chunk_while; end
  def collect; end
  def collect_concat; end
  def compact; end
  def count(*args); end
  def cycle(*args); end
  def detect(*args); end
  def drop(arg0); end
  def drop_while; end
  def each_cons(arg0); end
  def each_entry(*args); end
  def each_slice(arg0); end
  def each_with_index(*args); end
  def each_with_object(arg0); end
  def entries(*args); end
  def filter; end
  def filter_map; end
  def find(*args); end
  def find_all; end
  def find_index(*args); end
  def first(*args); end
  def flat_map; end
  def grep(arg0); end
  def grep_v(arg0); end
  def group_by; end
  def include?(arg0); end
  def inject(*args); end
  def lazy; end
  def map; end
  def max(*args); end
  def max_by(*args); end
  def member?(arg0); end
  def min(*args); end
  def min_by(*args); end
  def minmax; end
  def minmax_by; end
  def none?(*args); end
  def one?(*args); end
  def partition; end
  def reduce(*args); end
  def reject; end
  def reverse_each(*args); end
  def select; end
  def slice_after(*args); end
  def slice_before(*args); end
  def slice_when; end
  def sort; end
  def sort_by; end
  def sum(*args); end
  def take(arg0); end
  def take_while; end
  def tally(*args); end
  def to_a(*args); end
  def to_h(*args); end
  def uniq; end
  def zip(*args); end
end

module FileTest
  class << self
    def blockdev?(arg0); end
    def chardev?(arg0); end
    def directory?(arg0); end
    def empty?(arg0); end
    def executable?(arg0); end
    def executable_real?(arg0); end
    def exist?(arg0); end
    def exists?(arg0); end
    def file?(arg0); end
    def grpowned?(arg0); end
    def identical?(arg0, arg1); end
    def owned?(arg0); end
    def pipe?(arg0); end
    def readable?(arg0); end
    def readable_real?(arg0); end
    def setgid?(arg0); end
    def setuid?(arg0); end
    def size(arg0); end
    def size?(arg0); end
    def socket?(arg0); end
    def sticky?(arg0); end
    def symlink?(arg0); end
    def world_readable?(arg0); end
    def world_writable?(arg0); end
    def writable?(arg0); end
    def writable_real?(arg0); end
    def zero?(arg0); end
  end
  private
  def blockdev?(arg0); end
  def chardev?(arg0); end
  def directory?(arg0); end
  def empty?(arg0); end
  def executable?(arg0); end
  def executable_real?(arg0); end
  def exist?(arg0); end
  def exists?(arg0); end
  def file?(arg0); end
  def grpowned?(arg0); end
  def identical?(arg0, arg1); end
  def owned?(arg0); end
  def pipe?(arg0); end
  def readable?(arg0); end
  def readable_real?(arg0); end
  def setgid?(arg0); end
  def setuid?(arg0); end
  def size(arg0); end
  def size?(arg0); end
  def socket?(arg0); end
  def sticky?(arg0); end
  def symlink?(arg0); end
  def world_readable?(arg0); end
  def world_writable?(arg0); end
  def writable?(arg0); end
  def writable_real?(arg0); end
  def zero?(arg0); end
end

module GC
  INTERNAL_CONSTANTS = nil # Hash
  OPTS = nil # Array

  module Profiler
    class << self
      def clear; end
      def disable; end
      def enable; end
      def enabled?; end
      def raw_data; end
      def report(*args); end
      def result; end
      def total_time; end
    end
  end

  class << self
    def auto_compact; end
    def auto_compact=(flag); end
    def compact; end
    def count; end
    def disable; end
    def enable; end
    def latest_compact_info; end
    def latest_gc_info(hash_or_key = nil); end
    def measure_total_time; end
    def measure_total_time=(flag); end
    def start(full_mark: nil, immediate_mark: nil, immediate_sweep: nil); end
    def stat(hash_or_key = nil); end
    def stress; end
    def stress=(flag); end
    def total_time; end
    def using_rvargc?; end
    def verify_compaction_references(toward: nil, double_heap: nil); end
    def verify_internal_consistency; end
    def verify_transient_heap_internal_consistency; end
  end
  def garbage_collect(full_mark: nil, immediate_mark: nil, immediate_sweep: nil); end
end

module Kernel
  class << self
    def Array(arg0); end
    def Complex(*args); end
    def Float(arg, exception: nil); end
    def Hash(arg0); end
    def Integer(*args); end
    def Rational(*args); end
    def String(arg0); end
    def __callee__; end
    def __dir__; end
    def __method__; end
    def `(arg0); end
    def abort(*args); end
    def at_exit; end
    def autoload(arg0, arg1); end
    def autoload?(*args); end
    def binding; end
    def block_given?; end
    def caller(*args); end
    def caller_locations(*args); end
    def catch(*args); end
    def eval(*args); end
    def exec(*args); end
    def exit(*args); end
    def exit!(*args); end
    def fail(*args); end
    def fork; end
    def format(*args); end
    def gets(*args); end
    def global_variables; end
    def iterator?; end
    def lambda; end
    def load(*args); end
    def local_variables; end
    def loop; end
    def open(*args); end
    def p(*args); end
    def print(*args); end
    def printf(*args); end
    def proc; end
    def putc(arg0); end
    def puts(*args); end
    def raise(*args); end
    def rand(*args); end
    def readline(*args); end
    def readlines(*args); end
    def require(arg0); end
    def require_relative(arg0); end
    def select(*args); end
    def set_trace_func(arg0); end
    def sleep(*args); end
    def spawn(*args); end
    def sprintf(*args); end
    def srand(*args); end
    def syscall(*args); end
    def system(*args); end
    def test(*args); end
    def throw(*args); end
    def trace_var(*args); end
    def trap(*args); end
    def untrace_var(*args); end
    def warn(*msgs, uplevel: nil, category: nil); end
  end
  def !~(arg0); end
  def <=>(arg0); end
  def ===(arg0); end
  def =~(arg0); end
  def class; end
  def clone(freeze: nil); end
  def define_singleton_method(*args); end
  def display(*args); end
  def dup; end
  def enum_for(*args); end
  def eql?(arg0); end
  def extend(*args); end
  def freeze; end
  def frozen?; end
  def hash; end
  def inspect; end
  def instance_of?(arg0); end
  def instance_variable_defined?(arg0); end
  def instance_variable_get(arg0); end
  def instance_variable_set(arg0, arg1); end
  def instance_variables; end
  def is_a?(arg0); end
  def itself; end
  def kind_of?(arg0); end
  def method(arg0); end
  def methods(*args); end
  def nil?; end
  def object_id; end
  def private_methods(*args); end
  def protected_methods(*args); end
  def public_method(arg0); end
  def public_methods(*args); end
  def public_send(*args); end
  def remove_instance_variable(arg0); end
  def respond_to?(*args); end
  def send(*args); end
  def singleton_class; end
  def singleton_method(arg0); end
  def singleton_methods(*args); end
  def taint; end
  def tainted?; end
  def tap; end
  def then; end
  def to_enum(*args); end
  def to_s; end
  def trust; end
  def untaint; end
  def untrust; end
  def untrusted?; end
  def yield_self; end
  private
  def Array(arg0); end
  def Complex(*args); end
  def Float(arg, exception: nil); end
  def Hash(arg0); end
  def Integer(*args); end
  def Rational(*args); end
  def String(arg0); end
  def __callee__; end
  def __dir__; end
  def __method__; end
  def `(arg0); end
  def abort(*args); end
  def at_exit; end
  def autoload(arg0, arg1); end
  def autoload?(*args); end
  def binding; end
  def block_given?; end
  def caller(*args); end
  def caller_locations(*args); end
  def catch(*args); end
  def eval(*args); end
  def exec(*args); end
  def exit(*args); end
  def exit!(*args); end
  def fail(*args); end
  def fork; end
  def format(*args); end
  def gets(*args); end
  def global_variables; end
  def initialize_clone(*args); end
  def initialize_copy(arg0); end
  def initialize_dup(arg0); end
  def iterator?; end
  def lambda; end
  def load(*args); end
  def local_variables; end
  def loop; end
  def open(*args); end
  def p(*args); end
  def pp(*objs); end
  def print(*args); end
  def printf(*args); end
  def proc; end
  def putc(arg0); end
  def puts(*args); end
  def raise(*args); end
  def rand(*args); end
  def readline(*args); end
  def readlines(*args); end
  def require(arg0); end
  def require_relative(arg0); end
  def respond_to_missing?(arg0, arg1); end
  def select(*args); end
  def set_trace_func(arg0); end
  def sleep(*args); end
  def spawn(*args); end
  def sprintf(*args); end
  def srand(*args); end
  def syscall(*args); end
  def system(*args); end
  def test(*args); end
  def throw(*args); end
  def trace_var(*args); end
  def trap(*args); end
  def untrace_var(*args); end
  def warn(*msgs, uplevel: nil, category: nil); end
end

module Marshal
  MAJOR_VERSION = nil # Integer
  MINOR_VERSION = nil # Integer
  class << self
    def dump(*args); end
    def load(source, proc = nil, freeze: nil); end
    def restore(source, proc = nil, freeze: nil); end
  end
  private
  def dump(*args); end
end

class Object < ::BasicObject
  include ::Kernel
end

class Array < ::Object
  include ::Enumerable
  class << self
    def [](*args); end
    def try_convert(arg0); end
  end
  def &(arg0); end
  def *(arg0); end
  def +(arg0); end
  def -(arg0); end
  def <<(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def [](*args); end
  def []=(*args); end
  def all?(*args); end
  def any?(*args); end
  def append(*args); end
  def assoc(arg0); end
  def at(arg0); end
  def bsearch; end
  def bsearch_index; end
  def clear; end
  def collect; end
  def collect!; end
  def combination(arg0); end
  def compact; end
  def compact!; end
  def concat(*args); end
  def count(*args); end
  def cycle(*args); end
  def deconstruct; end
  def delete(arg0); end
  def delete_at(arg0); end
  def delete_if; end
  def difference(*args); end
  def dig(*args); end
  def drop(arg0); end
  def drop_while; end
  def each; end
  def each_index; end
  def empty?; end
  def eql?(arg0); end
  def fetch(*args); end
  def fill(*args); end
  def filter; end
  def filter!; end
  def find_index(*args); end
  def first(*args); end
  def flatten(*args); end
  def flatten!(*args); end
  def hash; end
  def include?(arg0); end
  def index(*args); end
  def insert(*args); end
  def inspect; end
  def intersect?(arg0); end
  def intersection(*args); end
  def join(*args); end
  def keep_if; end
  def last(*args); end
  def length; end
  def map; end
  def map!; end
  def max(*args); end
  def min(*args); end
  def minmax; end
  def none?(*args); end
  def one?(*args); end
  def pack(fmt, buffer: nil); end
  def permutation(*args); end
  def pop(*args); end
  def prepend(*args); end
  def product(*args); end
  def push(*args); end
  def rassoc(arg0); end
  def reject; end
  def reject!; end
  def repeated_combination(arg0); end
  def repeated_permutation(arg0); end
  def replace(arg0); end
  def reverse; end
  def reverse!; end
  def reverse_each; end
  def rindex(*args); end
  def rotate(*args); end
  def rotate!(*args); end
  def sample(n = nil, random: nil); end
  def select; end
  def select!; end
  def shift(*args); end
  def shuffle(random: nil); end
  def shuffle!(random: nil); end
  def size; end
  def slice(*args); end
  def slice!(*args); end
  def sort; end
  def sort!; end
  def sort_by!; end
  def sum(*args); end
  def take(arg0); end
  def take_while; end
  def to_a; end
  def to_ary; end
  def to_h; end
  def to_s; end
  def transpose; end
  def union(*args); end
  def uniq; end
  def uniq!; end
  def unshift(*args); end
  def values_at(*args); end
  def zip(*args); end
  def |(arg0); end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class Binding < ::Object
  def clone; end
  def dup; end
  def eval(*args); end
  def irb; end
  def local_variable_defined?(arg0); end
  def local_variable_get(arg0); end
  def local_variable_set(arg0, arg1); end
  def local_variables; end
  def receiver; end
  def source_location; end
end

class Dir < ::Object
  include ::Enumerable
  class << self
    def [](*args, base: nil, sort: nil); end
    def chdir(*args); end
    def children(*args); end
    def chroot(arg0); end
    def delete(arg0); end
    def each_child(*args); end
    def empty?(arg0); end
    def entries(*args); end
    def exist?(arg0); end
    def exists?(arg0); end
    def foreach(*args); end
    def getwd; end
    def glob(pattern, _flags = nil, flags: nil, base: nil, sort: nil); end
    def home(*args); end
    def mkdir(*args); end
    def open(name, encoding: nil, &block); end
    def pwd; end
    def rmdir(arg0); end
    def unlink(arg0); end
  end
  def children; end
  def close; end
  def each; end
  def each_child; end
  def fileno; end
  def inspect; end
  def path; end
  def pos; end
  def pos=(arg0); end
  def read; end
  def rewind; end
  def seek(arg0); end
  def tell; end
  def to_path; end
  private
  def initialize(name, encoding: nil); end
end

class Enumerator < ::Object
  include ::Enumerable

  class ArithmeticSequence < ::Enumerator
    def ==(arg0); end
    def ===(arg0); end
    def begin; end
    def each; end
    def end; end
    def eql?(arg0); end
    def exclude_end?; end
    def first(*args); end
    def hash; end
    def inspect; end
    def last(*args); end
    def size; end
    def step; end
  end

  class Chain < ::Enumerator
    def each(*args); end
    def inspect; end
    def rewind; end
    def size; end
    private
    def initialize(*args); end
    def initialize_copy(arg0); end
  end

  class Generator < ::Object
    include ::Enumerable
    def each(*args); end
    private
    def initialize(*args); end
    def initialize_copy(arg0); end
  end

  class Lazy < ::Enumerator
    def chunk(*args); end
    def chunk_while(*args); end
    def collect; end
    def collect_concat; end
    def compact; end
    def drop(arg0); end
    def drop_while; end
    def eager; end
    def enum_for(*args); end
    def filter; end
    def filter_map; end
    def find_all; end
    def flat_map; end
    def force(*args); end
    def grep(arg0); end
    def grep_v(arg0); end
    def lazy; end
    def map; end
    def reject; end
    def select; end
    def slice_after(*args); end
    def slice_before(*args); end
    def slice_when(*args); end
    def take(arg0); end
    def take_while; end
    def to_enum(*args); end
    def uniq; end
    def with_index(*args); end
    def zip(*args); end
    private
    def _enumerable_collect; end
    def _enumerable_collect_concat; end
    def _enumerable_drop(arg0); end
    def _enumerable_drop_while; end
    def _enumerable_filter; end
    def _enumerable_filter_map; end
    def _enumerable_find_all; end
    def _enumerable_flat_map; end
    def _enumerable_grep(arg0); end
    def _enumerable_grep_v(arg0); end
    def _enumerable_map; end
    def _enumerable_reject; end
    def _enumerable_select; end
    def _enumerable_take(arg0); end
    def _enumerable_take_while; end
    def _enumerable_uniq; end
    def _enumerable_with_index(*args); end
    def _enumerable_zip(*args); end
    def initialize(*args); end
  end

  class Producer < ::Object
    def each; end
  end

  class Yielder < ::Object
    def <<(arg0); end
    def to_proc; end
    def yield(*args); end
    private
    def initialize; end
  end

  class << self
    def produce(*args); end
  end
  def +(arg0); end
  def each(*args); end
  def each_with_index; end
  def each_with_object(arg0); end
  def feed(arg0); end
  def inspect; end
  def next; end
  def next_values; end
  def peek; end
  def peek_values; end
  def rewind; end
  def size; end
  def with_index(*args); end
  def with_object(arg0); end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class Exception < ::Object
  class << self
    def exception(*args); end
    def to_tty?; end
  end
  def ==(arg0); end
  def backtrace; end
  def backtrace_locations; end
  def cause; end
  def exception(*args); end
  def full_message(*args); end
  def inspect; end
  def message; end
  def respond_to?(*args); end
  def set_backtrace(arg0); end
  def to_s; end
  private
  def initialize(*args); end
  def method_missing(*args); end
  def respond_to_missing?(arg0, arg1); end
end

class FalseClass < ::Object
  def &(arg0); end
  def ===(arg0); end
  def ^(arg0); end
  def inspect; end
  def to_s; end
  def |(arg0); end
end

class Fiber < ::Object
  class << self
    def blocking?; end
    def current; end
    def current_scheduler; end
    def schedule(*args); end
    def scheduler; end
    def set_scheduler(arg0); end
    def yield(*args); end
  end
  def alive?; end
  def backtrace(*args); end
  def backtrace_locations(*args); end
  def blocking?; end
  def inspect; end
  def raise(*args); end
  def resume(*args); end
  def to_s; end
  def transfer(*args); end
  private
  def initialize(*args); end
end

class Hash < ::Object
  include ::Enumerable
  class << self
    def [](*args); end
    def ruby2_keywords_hash(arg0); end
    def ruby2_keywords_hash?(arg0); end
    def try_convert(arg0); end
  end
  def <(arg0); end
  def <=(arg0); end
  def ==(arg0); end
  def >(arg0); end
  def >=(arg0); end
  def [](arg0); end
  def []=(arg0, arg1); end
  def any?(*args); end
  def assoc(arg0); end
  def clear; end
  def compact; end
  def compact!; end
  def compare_by_identity; end
  def compare_by_identity?; end
  def deconstruct_keys(arg0); end
  def default(*args); end
  def default=(arg0); end
  def default_proc; end
  def default_proc=(arg0); end
  def delete(arg0); end
  def delete_if; end
  def dig(*args); end
  def each; end
  def each_key; end
  def each_pair; end
  def each_value; end
  def empty?; end
  def eql?(arg0); end
  def except(*args); end
  def fetch(*args); end
  def fetch_values(*args); end
  def filter; end
  def filter!; end
  def flatten(*args); end
  def has_key?(arg0); end
  def has_value?(arg0); end
  def hash; end
  def include?(arg0); end
  def inspect; end
  def invert; end
  def keep_if; end
  def key(arg0); end
  def key?(arg0); end
  def keys; end
  def length; end
  def member?(arg0); end
  def merge(*args); end
  def merge!(*args); end
  def rassoc(arg0); end
  def rehash; end
  def reject; end
  def reject!; end
  def replace(arg0); end
  def select; end
  def select!; end
  def shift; end
  def size; end
  def slice(*args); end
  def store(arg0, arg1); end
  def to_a; end
  def to_h; end
  def to_hash; end
  def to_proc; end
  def to_s; end
  def transform_keys(*args); end
  def transform_keys!(*args); end
  def transform_values; end
  def transform_values!; end
  def update(*args); end
  def value?(arg0); end
  def values; end
  def values_at(*args); end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class MatchData < ::Object
  def ==(arg0); end
  def [](*args); end
  def begin(arg0); end
  def captures; end
  def end(arg0); end
  def eql?(arg0); end
  def hash; end
  def inspect; end
  def length; end
  def match(arg0); end
  def match_length(arg0); end
  def named_captures; end
  def names; end
  def offset(arg0); end
  def post_match; end
  def pre_match; end
  def regexp; end
  def size; end
  def string; end
  def to_a; end
  def to_s; end
  def values_at(*args); end
  private
  def initialize_copy(arg0); end
end

class Method < ::Object
  def <<(arg0); end
  def ==(arg0); end
  def ===(*args); end
  def >>(arg0); end
  def [](*args); end
  def arity; end
  def call(*args); end
  def clone; end
  def curry(*args); end
  def eql?(arg0); end
  def hash; end
  def inspect; end
  def name; end
  def original_name; end
  def owner; end
  def parameters; end
  def private?; end
  def protected?; end
  def public?; end
  def receiver; end
  def source_location; end
  def super_method; end
  def to_proc; end
  def to_s; end
  def unbind; end
end

class Module < ::Object
  class << self
    def constants(*args); end
    def nesting; end
    def used_modules; end
  end
  def <(arg0); end
  def <=(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def >(arg0); end
  def >=(arg0); end
  def alias_method(arg0, arg1); end
  def ancestors; end
  def attr(*args); end
  def attr_accessor(*args); end
  def attr_reader(*args); end
  def attr_writer(*args); end
  def autoload(arg0, arg1); end
  def autoload?(*args); end
  def class_eval(*args); end
  def class_exec(*args); end
  def class_variable_defined?(arg0); end
  def class_variable_get(arg0); end
  def class_variable_set(arg0, arg1); end
  def class_variables(*args); end
  def const_defined?(*args); end
  def const_get(*args); end
  def const_missing(arg0); end
  def const_set(arg0, arg1); end
  def const_source_location(*args); end
  def constants(*args); end
  def define_method(*args); end
  def deprecate_constant(*args); end
  def freeze; end
  def include(*args); end
  def include?(arg0); end
  def included_modules; end
  def inspect; end
  def instance_method(arg0); end
  def instance_methods(*args); end
  def method_defined?(*args); end
  def module_eval(*args); end
  def module_exec(*args); end
  def name; end
  def prepend(*args); end
  def private_class_method(*args); end
  def private_constant(*args); end
  def private_instance_methods(*args); end
  def private_method_defined?(*args); end
  def protected_instance_methods(*args); end
  def protected_method_defined?(*args); end
  def public_class_method(*args); end
  def public_constant(*args); end
  def public_instance_method(arg0); end
  def public_instance_methods(*args); end
  def public_method_defined?(*args); end
  def remove_class_variable(arg0); end
  def remove_method(*args); end
  def singleton_class?; end
  def to_s; end
  def undef_method(*args); end
  private
  def append_features(arg0); end
  def extend_object(arg0); end
  def extended(arg0); end
  def included(arg0); end
  def initialize; end
  def initialize_clone(*args); end
  def initialize_copy(arg0); end
  def method_added(arg0); end
  def method_removed(arg0); end
  def method_undefined(arg0); end
  def module_function(*args); end
  def prepend_features(arg0); end
  def prepended(arg0); end
  def private(*args); end
  def protected(*args); end
  def public(*args); end
  def refine(arg0); end
  def remove_const(arg0); end
  def ruby2_keywords(*args); end
  def using(arg0); end
end

class Class < ::Module
  class << self
    def allocate; end
  end
  def allocate; end
  def new(*args); end
  def subclasses; end
  def superclass; end
  private
  def inherited(arg0); end
  def initialize(*args); end
end

class NilClass < ::Object
  def &(arg0); end
  def ===(arg0); end
  def =~(arg0); end
  def ^(arg0); end
  def inspect; end
  def nil?; end
  def rationalize(*args); end
  def to_a; end
  def to_c; end
  def to_f; end
  def to_h; end
  def to_i; end
  def to_r; end
  def to_s; end
  def |(arg0); end
end

class NoMemoryError < ::Exception
end

class Numeric < ::Object
  include ::Comparable
  def %(arg0); end
  def +@; end
  def -@; end
  def <=>(arg0); end
  def abs; end
  def abs2; end
  def angle; end
  def arg; end
  def ceil(*args); end
  def clone(*args); end
  def coerce(arg0); end
  def conj; end
  def conjugate; end
  def denominator; end
  def div(arg0); end
  def divmod(arg0); end
  def dup; end
  def eql?(arg0); end
  def fdiv(arg0); end
  def finite?; end
  def floor(*args); end
  def i; end
  def imag; end
  def imaginary; end
  def infinite?; end
  def integer?; end
  def magnitude; end
  def modulo(arg0); end
  def negative?; end
  def nonzero?; end
  def numerator; end
  def phase; end
  def polar; end
  def positive?; end
  def quo(arg0); end
  def real; end
  def real?; end
  def rect; end
  def rectangular; end
  def remainder(arg0); end
  def round(*args); end
  def singleton_method_added(arg0); end
  def step(*args); end
  def to_c; end
  def to_int; end
  def truncate(*args); end
  def zero?; end
end

class Complex < ::Numeric
  I = nil # Complex
  class << self
    def polar(*args); end
    def rect(*args); end
    def rectangular(*args); end
    private
    def convert(*args); end
  end
  def *(arg0); end
  def **(arg0); end
  def +(arg0); end
  def -(arg0); end
  def -@; end
  def /(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def abs; end
  def abs2; end
  def angle; end
  def arg; end
  def coerce(arg0); end
  def conj; end
  def conjugate; end
  def denominator; end
  def eql?(arg0); end
  def fdiv(arg0); end
  def finite?; end
  def hash; end
  def imag; end
  def imaginary; end
  def infinite?; end
  def inspect; end
  def magnitude; end
  def numerator; end
  def phase; end
  def polar; end
  def quo(arg0); end
  def rationalize(*args); end
  def real; end
  def real?; end
  def rect; end
  def rectangular; end
  def to_c; end
  def to_f; end
  def to_i; end
  def to_r; end
  def to_s; end
  private
  def marshal_dump; end
end

class Float < ::Numeric
  DIG = nil # Integer
  EPSILON = nil # Float
  INFINITY = nil # Float
  MANT_DIG = nil # Integer
  MAX = nil # Float
  MAX_10_EXP = nil # Integer
  MAX_EXP = nil # Integer
  MIN = nil # Float
  MIN_10_EXP = nil # Integer
  MIN_EXP = nil # Integer
  NAN = nil # Float
  RADIX = nil # Integer
  def %(arg0); end
  def *(arg0); end
  def **(arg0); end
  def +(arg0); end
  def -(arg0); end
  def -@; end
  def /(arg0); end
  def <(arg0); end
  def <=(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def >(arg0); end
  def >=(arg0); end
  def abs; end
  def angle; end
  def arg; end
  def ceil(*args); end
  def coerce(arg0); end
  def denominator; end
  def divmod(arg0); end
  def eql?(arg0); end
  def fdiv(arg0); end
  def finite?; end
  def floor(*args); end
  def hash; end
  def infinite?; end
  def inspect; end
  def magnitude; end
  def modulo(arg0); end
  def nan?; end
  def negative?; end
  def next_float; end
  def numerator; end
  def phase; end
  def positive?; end
  def prev_float; end
  def quo(arg0); end
  def rationalize(*args); end
  def round(*args); end
  def to_f; end
  def to_i; end
  def to_int; end
  def to_r; end
  def to_s; end
  def truncate(*args); end
  def zero?; end
end

class Integer < ::Numeric
  GMP_VERSION = nil # String
  class << self
    def sqrt(arg0); end
    def try_convert(arg0); end
  end
  def %(arg0); end
  def &(arg0); end
  def *(arg0); end
  def **(arg0); end
  def +(arg0); end
  def -(arg0); end
  def -@; end
  def /(arg0); end
  def <(arg0); end
  def <<(arg0); end
  def <=(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def >(arg0); end
  def >=(arg0); end
  def >>(arg0); end
  def [](*args); end
  def ^(arg0); end
  def abs; end
  def allbits?(arg0); end
  def anybits?(arg0); end
  def bit_length; end
  def ceil(*args); end
  def chr(*args); end
  def coerce(arg0); end
  def denominator; end
  def digits(*args); end
  def div(arg0); end
  def divmod(arg0); end
  def downto(arg0); end
  def even?; end
  def fdiv(arg0); end
  def floor(*args); end
  def gcd(arg0); end
  def gcdlcm(arg0); end
  def inspect(*args); end
  def integer?; end
  def lcm(arg0); end
  def magnitude; end
  def modulo(arg0); end
  def next; end
  def nobits?(arg0); end
  def numerator; end
  def odd?; end
  def ord; end
  def pow(*args); end
  def pred; end
  def rationalize(*args); end
  def remainder(arg0); end
  def round(*args); end
  def size; end
  def succ; end
  def times; end
  def to_f; end
  def to_i; end
  def to_int; end
  def to_r; end
  def to_s(*args); end
  def truncate(*args); end
  def upto(arg0); end
  def zero?; end
  def |(arg0); end
  def ~; end
end

module ObjectSpace
  class WeakMap < ::Object
    include ::Enumerable
    def [](arg0); end
    def []=(arg0, arg1); end
    def each; end
    def each_key; end
    def each_pair; end
    def each_value; end
    def include?(arg0); end
    def inspect; end
    def key?(arg0); end
    def keys; end
    def length; end
    def member?(arg0); end
    def size; end
    def values; end
  end

  class << self
    def _id2ref(arg0); end
    def count_objects(*args); end
    def define_finalizer(*args); end
    def each_object(*args); end
    def garbage_collect(full_mark: nil, immediate_mark: nil, immediate_sweep: nil); end
    def undefine_finalizer(arg0); end
  end
  private
  def _id2ref(arg0); end
  def count_objects(*args); end
  def define_finalizer(*args); end
  def each_object(*args); end
  def garbage_collect(full_mark: nil, immediate_mark: nil, immediate_sweep: nil); end
  def undefine_finalizer(arg0); end
end

class Proc < ::Object
  class << self
    def new(*args); end
  end
  def <<(arg0); end
  def ==(arg0); end
  def ===(*args); end
  def >>(arg0); end
  def [](*args); end
  def arity; end
  def binding; end
  def call(*args); end
  def clone; end
  def curry(*args); end
  def dup; end
  def eql?(arg0); end
  def hash; end
  def inspect; end
  def lambda?; end
  def parameters; end
  def ruby2_keywords; end
  def source_location; end
  def to_proc; end
  def to_s; end
  def yield(*args); end
end

class Random < ::Random::Base
  module Formatter
    def rand(*args); end
    def random_number(*args); end
  end

  class Base < ::Object
    include ::Random::Formatter
    extend ::Random::Formatter
    def bytes(arg0); end
    def rand(*args); end
    def seed; end
    private
    def initialize(*args); end
  end

  DEFAULT = ::Random
  class << self
    def bytes(arg0); end
    def new_seed; end
    def rand(*args); end
    def seed; end
    def srand(*args); end
    def urandom(arg0); end
    private
    def left; end
    def state; end
  end
  def ==(arg0); end
  private
  def initialize_copy(arg0); end
  def left; end
  def marshal_dump; end
  def marshal_load(arg0); end
  def state; end
end

class Range < ::Object
  include ::Enumerable
  def %(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def begin; end
  def bsearch; end
  def count(*args); end
  def cover?(arg0); end
  def each; end
  def end; end
  def entries; end
  def eql?(arg0); end
  def exclude_end?; end
  def first(*args); end
  def hash; end
  def include?(arg0); end
  def inspect; end
  def last(*args); end
  def max(*args); end
  def member?(arg0); end
  def min(*args); end
  def minmax; end
  def size; end
  def step(*args); end
  def to_a; end
  def to_s; end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class Rational < ::Numeric
  class << self
    private
    def convert(*args); end
  end
  def *(arg0); end
  def **(arg0); end
  def +(arg0); end
  def -(arg0); end
  def -@; end
  def /(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def abs; end
  def ceil(*args); end
  def coerce(arg0); end
  def denominator; end
  def fdiv(arg0); end
  def floor(*args); end
  def hash; end
  def inspect; end
  def magnitude; end
  def negative?; end
  def numerator; end
  def positive?; end
  def quo(arg0); end
  def rationalize(*args); end
  def round(*args); end
  def to_f; end
  def to_i; end
  def to_r; end
  def to_s; end
  def truncate(*args); end
  private
  def marshal_dump; end
end

class Refinement < ::Module
  private
  def import_methods(*args); end
end

class Regexp < ::Object
  EXTENDED = nil # Integer
  FIXEDENCODING = nil # Integer
  IGNORECASE = nil # Integer
  MULTILINE = nil # Integer
  NOENCODING = nil # Integer
  class << self
    def compile(*args); end
    def escape(arg0); end
    def last_match(*args); end
    def quote(arg0); end
    def try_convert(arg0); end
    def union(*args); end
  end
  def ==(arg0); end
  def ===(arg0); end
  def =~(arg0); end
  def casefold?; end
  def encoding; end
  def eql?(arg0); end
  def fixed_encoding?; end
  def hash; end
  def inspect; end
  def match(*args); end
  def match?(*args); end
  def named_captures; end
  def names; end
  def options; end
  def source; end
  def to_s; end
  def ~; end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class RubyVM < ::Object
  DEFAULT_PARAMS = nil # Hash
  INSTRUCTION_NAMES = nil # Array
  OPTS = nil # Array

  module AbstractSyntaxTree
    class Node < ::Object
      def children; end
      def first_column; end
      def first_lineno; end
      def inspect; end
      def last_column; end
      def last_lineno; end
      def node_id; end
      def script_lines; end
      def source; end
      def type; end
    end

    class << self
      def of(body, keep_script_lines: nil); end
      def parse(string, keep_script_lines: nil); end
      def parse_file(pathname, keep_script_lines: nil); end
    end
  end

  class InstructionSequence < ::Object
    class << self
      def compile(*args); end
      def compile_file(*args); end
      def compile_option; end
      def compile_option=(arg0); end
      def disasm(arg0); end
      def disassemble(arg0); end
      def load_from_binary(arg0); end
      def load_from_binary_extra_data(arg0); end
      def new(*args); end
      def of(arg0); end
    end
    def absolute_path; end
    def base_label; end
    def disasm; end
    def disassemble; end
    def each_child; end
    def eval; end
    def first_lineno; end
    def inspect; end
    def label; end
    def path; end
    def script_lines; end
    def to_a; end
    def to_binary(*args); end
    def trace_points; end
  end

  module MJIT
    class << self
      def enabled?; end
      def pause(*args); end
      def resume; end
    end
  end

  module YJIT
    class << self
      def enabled?; end
      def reset_stats!; end
      def runtime_stats; end
      def simulate_oom!; end
      def stats_enabled?; end
      private
      def _print_stats; end
      def print_counters(counters, prefix:, prompt:); end
      def print_sorted_exit_counts(stats, prefix:, how_many: nil, left_pad: nil); end
      def total_exit_count(stats, prefix: nil); end
    end
  end

  class << self
    def keep_script_lines; end
    def keep_script_lines=(arg0); end
    def stat(*args); end
  end
end

class ScriptError < ::Exception
end

class LoadError < ::ScriptError
  def path; end
end

class NotImplementedError < ::ScriptError
end

class SecurityError < ::Exception
end

module Signal
  class << self
    def list; end
    def signame(arg0); end
    def trap(*args); end
  end
  private
  def list; end
  def signame(arg0); end
  def trap(*args); end
end

class SignalException < ::Exception
  def signm; end
  def signo; end
  private
  def initialize(*args); end
end

class Interrupt < ::SignalException
  private
  def initialize(*args); end
end

class StandardError < ::Exception
end

class ArgumentError < ::StandardError
end

class EncodingError < ::StandardError
end

class Encoding < ::Object
  ANSI_X3_4_1968 = nil # Encoding
  ASCII = nil # Encoding
  ASCII_8BIT = nil # Encoding
  BIG5 = nil # Encoding
  BIG5_HKSCS = nil # Encoding
  BIG5_HKSCS_2008 = nil # Encoding
  BIG5_UAO = nil # Encoding
  BINARY = nil # Encoding
  Big5 = nil # Encoding
  Big5_HKSCS = nil # Encoding
  Big5_HKSCS_2008 = nil # Encoding
  Big5_UAO = nil # Encoding
  CESU_8 = nil # Encoding
  CP1250 = nil # Encoding
  CP1251 = nil # Encoding
  CP1252 = nil # Encoding
  CP1253 = nil # Encoding
  CP1254 = nil # Encoding
  CP1255 = nil # Encoding
  CP1256 = nil # Encoding
  CP1257 = nil # Encoding
  CP1258 = nil # Encoding
  CP437 = nil # Encoding
  CP50220 = nil # Encoding
  CP50221 = nil # Encoding
  CP51932 = nil # Encoding
  CP65000 = nil # Encoding
  CP65001 = nil # Encoding
  CP720 = nil # Encoding
  CP737 = nil # Encoding
  CP775 = nil # Encoding
  CP850 = nil # Encoding
  CP852 = nil # Encoding
  CP855 = nil # Encoding
  CP857 = nil # Encoding
  CP860 = nil # Encoding
  CP861 = nil # Encoding
  CP862 = nil # Encoding
  CP863 = nil # Encoding
  CP864 = nil # Encoding
  CP865 = nil # Encoding
  CP866 = nil # Encoding
  CP869 = nil # Encoding
  CP874 = nil # Encoding
  CP878 = nil # Encoding
  CP932 = nil # Encoding
  CP936 = nil # Encoding
  CP949 = nil # Encoding
  CP950 = nil # Encoding
  CP951 = nil # Encoding
  CSWINDOWS31J = nil # Encoding
  CsWindows31J = nil # Encoding
  EBCDIC_CP_US = nil # Encoding
  EMACS_MULE = nil # Encoding
  EUCCN = nil # Encoding
  EUCJP = nil # Encoding
  EUCJP_MS = nil # Encoding
  EUCKR = nil # Encoding
  EUCTW = nil # Encoding
  EUC_CN = nil # Encoding
  EUC_JISX0213 = nil # Encoding
  EUC_JIS_2004 = nil # Encoding
  EUC_JP = nil # Encoding
  EUC_JP_MS = nil # Encoding
  EUC_KR = nil # Encoding
  EUC_TW = nil # Encoding
  Emacs_Mule = nil # Encoding
  EucCN = nil # Encoding
  EucJP = nil # Encoding
  EucJP_ms = nil # Encoding
  EucKR = nil # Encoding
  EucTW = nil # Encoding
  GB12345 = nil # Encoding
  GB18030 = nil # Encoding
  GB1988 = nil # Encoding
  GB2312 = nil # Encoding
  GBK = nil # Encoding
  IBM037 = nil # Encoding
  IBM437 = nil # Encoding
  IBM720 = nil # Encoding
  IBM737 = nil # Encoding
  IBM775 = nil # Encoding
  IBM850 = nil # Encoding
  IBM852 = nil # Encoding
  IBM855 = nil # Encoding
  IBM857 = nil # Encoding
  IBM860 = nil # Encoding
  IBM861 = nil # Encoding
  IBM862 = nil # Encoding
  IBM863 = nil # Encoding
  IBM864 = nil # Encoding
  IBM865 = nil # Encoding
  IBM866 = nil # Encoding
  IBM869 = nil # Encoding
  ISO2022_JP = nil # Encoding
  ISO2022_JP2 = nil # Encoding
  ISO8859_1 = nil # Encoding
  ISO8859_10 = nil # Encoding
  ISO8859_11 = nil # Encoding
  ISO8859_13 = nil # Encoding
  ISO8859_14 = nil # Encoding
  ISO8859_15 = nil # Encoding
  ISO8859_16 = nil # Encoding
  ISO8859_2 = nil # Encoding
  ISO8859_3 = nil # Encoding
  ISO8859_4 = nil # Encoding
  ISO8859_5 = nil # Encoding
  ISO8859_6 = nil # Encoding
  ISO8859_7 = nil # Encoding
  ISO8859_8 = nil # Encoding
  ISO8859_9 = nil # Encoding
  ISO_2022_JP = nil # Encoding
  ISO_2022_JP_2 = nil # Encoding
  ISO_2022_JP_KDDI = nil # Encoding
  ISO_8859_1 = nil # Encoding
  ISO_8859_10 = nil # Encoding
  ISO_8859_11 = nil # Encoding
  ISO_8859_13 = nil # Encoding
  ISO_8859_14 = nil # Encoding
  ISO_8859_15 = nil # Encoding
  ISO_8859_16 = nil # Encoding
  ISO_8859_2 = nil # Encoding
  ISO_8859_3 = nil # Encoding
  ISO_8859_4 = nil # Encoding
  ISO_8859_5 = nil # Encoding
  ISO_8859_6 = nil # Encoding
  ISO_8859_7 = nil # Encoding
  ISO_8859_8 = nil # Encoding
  ISO_8859_9 = nil # Encoding
  KOI8_R = nil # Encoding
  KOI8_U = nil # Encoding
  MACCENTEURO = nil # Encoding
  MACCROATIAN = nil # Encoding
  MACCYRILLIC = nil # Encoding
  MACGREEK = nil # Encoding
  MACICELAND = nil # Encoding
  MACJAPAN = nil # Encoding
  MACJAPANESE = nil # Encoding
  MACROMAN = nil # Encoding
  MACROMANIA = nil # Encoding
  MACTHAI = nil # Encoding
  MACTURKISH = nil # Encoding
  MACUKRAINE = nil # Encoding
  MacCentEuro = nil # Encoding
  MacCroatian = nil # Encoding
  MacCyrillic = nil # Encoding
  MacGreek = nil # Encoding
  MacIceland = nil # Encoding
  MacJapan = nil # Encoding
  MacJapanese = nil # Encoding
  MacRoman = nil # Encoding
  MacRomania = nil # Encoding
  MacThai = nil # Encoding
  MacTurkish = nil # Encoding
  MacUkraine = nil # Encoding
  PCK = nil # Encoding
  SHIFT_JIS = nil # Encoding
  SJIS = nil # Encoding
  SJIS_DOCOMO = nil # Encoding
  SJIS_DoCoMo = nil # Encoding
  SJIS_KDDI = nil # Encoding
  SJIS_SOFTBANK = nil # Encoding
  SJIS_SoftBank = nil # Encoding
  STATELESS_ISO_2022_JP = nil # Encoding
  STATELESS_ISO_2022_JP_KDDI = nil # Encoding
  Shift_JIS = nil # Encoding
  Stateless_ISO_2022_JP = nil # Encoding
  Stateless_ISO_2022_JP_KDDI = nil # Encoding
  TIS_620 = nil # Encoding
  UCS_2BE = nil # Encoding
  UCS_4BE = nil # Encoding
  UCS_4LE = nil # Encoding
  US_ASCII = nil # Encoding
  UTF8_DOCOMO = nil # Encoding
  UTF8_DoCoMo = nil # Encoding
  UTF8_KDDI = nil # Encoding
  UTF8_MAC = nil # Encoding
  UTF8_SOFTBANK = nil # Encoding
  UTF8_SoftBank = nil # Encoding
  UTF_16 = nil # Encoding
  UTF_16BE = nil # Encoding
  UTF_16LE = nil # Encoding
  UTF_32 = nil # Encoding
  UTF_32BE = nil # Encoding
  UTF_32LE = nil # Encoding
  UTF_7 = nil # Encoding
  UTF_8 = nil # Encoding
  UTF_8_HFS = nil # Encoding
  UTF_8_MAC = nil # Encoding
  WINDOWS_1250 = nil # Encoding
  WINDOWS_1251 = nil # Encoding
  WINDOWS_1252 = nil # Encoding
  WINDOWS_1253 = nil # Encoding
  WINDOWS_1254 = nil # Encoding
  WINDOWS_1255 = nil # Encoding
  WINDOWS_1256 = nil # Encoding
  WINDOWS_1257 = nil # Encoding
  WINDOWS_1258 = nil # Encoding
  WINDOWS_31J = nil # Encoding
  WINDOWS_874 = nil # Encoding
  Windows_1250 = nil # Encoding
  Windows_1251 = nil # Encoding
  Windows_1252 = nil # Encoding
  Windows_1253 = nil # Encoding
  Windows_1254 = nil # Encoding
  Windows_1255 = nil # Encoding
  Windows_1256 = nil # Encoding
  Windows_1257 = nil # Encoding
  Windows_1258 = nil # Encoding
  Windows_31J = nil # Encoding
  Windows_874 = nil # Encoding

  class CompatibilityError < ::EncodingError
  end

  class Converter < ::Object
    AFTER_OUTPUT = nil # Integer
    CRLF_NEWLINE_DECORATOR = nil # Integer
    CR_NEWLINE_DECORATOR = nil # Integer
    INVALID_MASK = nil # Integer
    INVALID_REPLACE = nil # Integer
    PARTIAL_INPUT = nil # Integer
    UNDEF_HEX_CHARREF = nil # Integer
    UNDEF_MASK = nil # Integer
    UNDEF_REPLACE = nil # Integer
    UNIVERSAL_NEWLINE_DECORATOR = nil # Integer
    XML_ATTR_CONTENT_DECORATOR = nil # Integer
    XML_ATTR_QUOTE_DECORATOR = nil # Integer
    XML_TEXT_DECORATOR = nil # Integer
    class << self
      def asciicompat_encoding(arg0); end
      def search_convpath(*args); end
    end
    def ==(arg0); end
    def convert(arg0); end
    def convpath; end
    def destination_encoding; end
    def finish; end
    def insert_output(arg0); end
    def inspect; end
    def last_error; end
    def primitive_convert(*args); end
    def primitive_errinfo; end
    def putback(*args); end
    def replacement; end
    def replacement=(arg0); end
    def source_encoding; end
    private
    def initialize(*args); end
  end

  class ConverterNotFoundError < ::EncodingError
  end

  class InvalidByteSequenceError < ::EncodingError
    def destination_encoding; end
    def destination_encoding_name; end
    def error_bytes; end
    def incomplete_input?; end
    def readagain_bytes; end
    def source_encoding; end
    def source_encoding_name; end
  end

  class UndefinedConversionError < ::EncodingError
    def destination_encoding; end
    def destination_encoding_name; end
    def error_char; end
    def source_encoding; end
    def source_encoding_name; end
  end

  class << self
    def _load(arg0); end
    def aliases; end
    def compatible?(arg0, arg1); end
    def default_external; end
    def default_external=(arg0); end
    def default_internal; end
    def default_internal=(arg0); end
    def find(arg0); end
    def list; end
    def locale_charmap; end
    def name_list; end
  end
  def _dump(*args); end
  def ascii_compatible?; end
  def dummy?; end
  def inspect; end
  def name; end
  def names; end
  def replicate(arg0); end
  def to_s; end
end

class FiberError < ::StandardError
end

class IOError < ::StandardError
end

class EOFError < ::IOError
end

class IndexError < ::StandardError
end

class KeyError < ::IndexError
  def key; end
  def receiver; end
  private
  def initialize(*args); end
end

class LocalJumpError < ::StandardError
  def exit_value; end
  def reason; end
end

module Math
  E = nil # Float
  PI = nil # Float

  class DomainError < ::StandardError
  end

  class << self
    def acos(arg0); end
    def acosh(arg0); end
    def asin(arg0); end
    def asinh(arg0); end
    def atan(arg0); end
    def atan2(arg0, arg1); end
    def atanh(arg0); end
    def cbrt(arg0); end
    def cos(arg0); end
    def cosh(arg0); end
    def erf(arg0); end
    def erfc(arg0); end
    def exp(arg0); end
    def frexp(arg0); end
    def gamma(arg0); end
    def hypot(arg0, arg1); end
    def ldexp(arg0, arg1); end
    def lgamma(arg0); end
    def log(*args); end
    def log10(arg0); end
    def log2(arg0); end
    def sin(arg0); end
    def sinh(arg0); end
    def sqrt(arg0); end
    def tan(arg0); end
    def tanh(arg0); end
  end
  private
  def acos(arg0); end
  def acosh(arg0); end
  def asin(arg0); end
  def asinh(arg0); end
  def atan(arg0); end
  def atan2(arg0, arg1); end
  def atanh(arg0); end
  def cbrt(arg0); end
  def cos(arg0); end
  def cosh(arg0); end
  def erf(arg0); end
  def erfc(arg0); end
  def exp(arg0); end
  def frexp(arg0); end
  def gamma(arg0); end
  def hypot(arg0, arg1); end
  def ldexp(arg0, arg1); end
  def lgamma(arg0); end
  def log(*args); end
  def log10(arg0); end
  def log2(arg0); end
  def sin(arg0); end
  def sinh(arg0); end
  def sqrt(arg0); end
  def tan(arg0); end
  def tanh(arg0); end
end

class NameError < ::StandardError
  def local_variables; end
  def name; end
  def receiver; end
  private
  def initialize(*args); end
end

class NoMatchingPatternError < ::StandardError
end

class NoMatchingPatternKeyError < ::NoMatchingPatternError
  def key; end
  def matchee; end
  private
  def initialize(*args); end
end

class NoMethodError < ::NameError
  def args; end
  def private_call?; end
  private
  def initialize(*args); end
end

class RangeError < ::StandardError
end

class FloatDomainError < ::RangeError
end

class RegexpError < ::StandardError
end

class RuntimeError < ::StandardError
end

class FrozenError < ::RuntimeError
  def receiver; end
  private
  def initialize(*args); end
end

class StopIteration < ::IndexError
  def result; end
end

class ClosedQueueError < ::StopIteration
end

class Ractor < ::Object
  class ClosedError < ::StopIteration
  end

  class Error < ::RuntimeError
  end

  class IsolationError < ::Ractor::Error
  end

  class MovedError < ::Ractor::Error
  end

  class MovedObject < ::BasicObject
    def !(*args); end
    def !=(*args); end
    def ==(*args); end
    def __id__(*args); end
    def __send__(*args); end
    def equal?(*args); end
    def instance_eval(*args); end
    def instance_exec(*args); end
    def method_missing(*args); end
  end

  class RemoteError < ::Ractor::Error
    def ractor; end
  end

  class UnsafeError < ::Ractor::Error
  end

  class << self
    def count; end
    def current; end
    def main; end
    def make_shareable(obj, copy: nil); end
    def new(*args, name: nil, &block); end
    def receive; end
    def receive_if(&b); end
    def recv; end
    def select(*ractors, yield_value: nil, move: nil); end
    def shareable?(obj); end
    def yield(obj, move: nil); end
  end
  def <<(obj, move: nil); end
  def [](sym); end
  def []=(sym, val); end
  def close_incoming; end
  def close_outgoing; end
  def inspect; end
  def name; end
  def send(obj, move: nil); end
  def take; end
  def to_s; end
  private
  def receive; end
  def receive_if(&b); end
  def recv; end
end

class String < ::Object
  include ::Comparable
  class << self
    def try_convert(arg0); end
  end
  def %(arg0); end
  def *(arg0); end
  def +(arg0); end
  def +@; end
  def -@; end
  def <<(arg0); end
  def <=>(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def =~(arg0); end
  def [](*args); end
  def []=(*args); end
  def ascii_only?; end
  def b; end
  def bytes; end
  def bytesize; end
  def byteslice(*args); end
  def capitalize(*args); end
  def capitalize!(*args); end
  def casecmp(arg0); end
  def casecmp?(arg0); end
  def center(*args); end
  def chars; end
  def chomp(*args); end
  def chomp!(*args); end
  def chop; end
  def chop!; end
  def chr; end
  def clear; end
  def codepoints; end
  def concat(*args); end
  def count(*args); end
  def crypt(arg0); end
  def delete(*args); end
  def delete!(*args); end
  def delete_prefix(arg0); end
  def delete_prefix!(arg0); end
  def delete_suffix(arg0); end
  def delete_suffix!(arg0); end
  def downcase(*args); end
  def downcase!(*args); end
  def dump; end
  def each_byte; end
  def each_char; end
  def each_codepoint; end
  def each_grapheme_cluster; end
  def each_line(*args); end
  def empty?; end
  def encode(*args); end
  def encode!(*args); end
  def encoding; end
  def end_with?(*args); end
  def eql?(arg0); end
  def force_encoding(arg0); end
  def freeze; end
  def getbyte(arg0); end
  def grapheme_clusters; end
  def gsub(*args); end
  def gsub!(*args); end
  def hash; end
  def hex; end
  def include?(arg0); end
  def index(*args); end
  def insert(arg0, arg1); end
  def inspect; end
  def intern; end
  def length; end
  def lines(*args); end
  def ljust(*args); end
  def lstrip; end
  def lstrip!; end
  def match(*args); end
  def match?(*args); end
  def next; end
  def next!; end
  def oct; end
  def ord; end
  def partition(arg0); end
  def prepend(*args); end
  def replace(arg0); end
  def reverse; end
  def reverse!; end
  def rindex(*args); end
  def rjust(*args); end
  def rpartition(arg0); end
  def rstrip; end
  def rstrip!; end
  def scan(arg0); end
  def scrub(*args); end
  def scrub!(*args); end
  def setbyte(arg0, arg1); end
  def size; end
  def slice(*args); end
  def slice!(*args); end
  def split(*args); end
  def squeeze(*args); end
  def squeeze!(*args); end
  def start_with?(*args); end
  def strip; end
  def strip!; end
  def sub(*args); end
  def sub!(*args); end
  def succ; end
  def succ!; end
  def sum(*args); end
  def swapcase(*args); end
  def swapcase!(*args); end
  def to_c; end
  def to_f; end
  def to_i(*args); end
  def to_r; end
  def to_s; end
  def to_str; end
  def to_sym; end
  def tr(arg0, arg1); end
  def tr!(arg0, arg1); end
  def tr_s(arg0, arg1); end
  def tr_s!(arg0, arg1); end
  def undump; end
  def unicode_normalize(*args); end
  def unicode_normalize!(*args); end
  def unicode_normalized?(*args); end
  def unpack(fmt, offset: nil); end
  def unpack1(fmt, offset: nil); end
  def upcase(*args); end
  def upcase!(*args); end
  def upto(*args); end
  def valid_encoding?; end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class Struct < ::Object
  include ::Enumerable
  class << self
    def new(*args); end
  end
  def ==(arg0); end
  def [](arg0); end
  def []=(arg0, arg1); end
  def deconstruct; end
  def deconstruct_keys(arg0); end
  def dig(*args); end
  def each; end
  def each_pair; end
  def eql?(arg0); end
  def filter(*args); end
  def hash; end
  def inspect; end
  def length; end
  def members; end
  def select(*args); end
  def size; end
  def to_a; end
  def to_h; end
  def to_s; end
  def values; end
  def values_at(*args); end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class Symbol < ::Object
  include ::Comparable
  class << self
    def all_symbols; end
  end
  def <=>(arg0); end
  def ==(arg0); end
  def ===(arg0); end
  def =~(arg0); end
  def [](*args); end
  def capitalize(*args); end
  def casecmp(arg0); end
  def casecmp?(arg0); end
  def downcase(*args); end
  def empty?; end
  def encoding; end
  def end_with?(*args); end
  def id2name; end
  def inspect; end
  def intern; end
  def length; end
  def match(*args); end
  def match?(*args); end
  def name; end
  def next; end
  def size; end
  def slice(*args); end
  def start_with?(*args); end
  def succ; end
  def swapcase(*args); end
  def to_proc; end
  def to_s; end
  def to_sym; end
  def upcase(*args); end
end

class SyntaxError < ::ScriptError
  private
  def initialize(*args); end
end

class SystemCallError < ::StandardError
  class << self
    def ===(arg0); end
  end
  def errno; end
  private
  def initialize(*args); end
end

module Errno
  class E2BIG < ::SystemCallError
    Errno = nil # Integer
  end

  class EACCES < ::SystemCallError
    Errno = nil # Integer
  end

  class EADDRINUSE < ::SystemCallError
    Errno = nil # Integer
  end

  class EADDRNOTAVAIL < ::SystemCallError
    Errno = nil # Integer
  end

  class EADV < ::SystemCallError
    Errno = nil # Integer
  end

  class EAFNOSUPPORT < ::SystemCallError
    Errno = nil # Integer
  end

  class EAGAIN < ::SystemCallError
    Errno = nil # Integer
  end

  class EALREADY < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADE < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADF < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADFD < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADMSG < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADR < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADRQC < ::SystemCallError
    Errno = nil # Integer
  end

  class EBADSLT < ::SystemCallError
    Errno = nil # Integer
  end

  class EBFONT < ::SystemCallError
    Errno = nil # Integer
  end

  class EBUSY < ::SystemCallError
    Errno = nil # Integer
  end

  class ECANCELED < ::SystemCallError
    Errno = nil # Integer
  end

  class ECHILD < ::SystemCallError
    Errno = nil # Integer
  end

  class ECHRNG < ::SystemCallError
    Errno = nil # Integer
  end

  class ECOMM < ::SystemCallError
    Errno = nil # Integer
  end

  class ECONNABORTED < ::SystemCallError
    Errno = nil # Integer
  end

  class ECONNREFUSED < ::SystemCallError
    Errno = nil # Integer
  end

  class ECONNRESET < ::SystemCallError
    Errno = nil # Integer
  end

  class EDEADLK < ::SystemCallError
    Errno = nil # Integer
  end

  class EDESTADDRREQ < ::SystemCallError
    Errno = nil # Integer
  end

  class EDOM < ::SystemCallError
    Errno = nil # Integer
  end

  class EDOTDOT < ::SystemCallError
    Errno = nil # Integer
  end

  class EDQUOT < ::SystemCallError
    Errno = nil # Integer
  end

  class EEXIST < ::SystemCallError
    Errno = nil # Integer
  end

  class EFAULT < ::SystemCallError
    Errno = nil # Integer
  end

  class EFBIG < ::SystemCallError
    Errno = nil # Integer
  end

  class EHOSTDOWN < ::SystemCallError
    Errno = nil # Integer
  end

  class EHOSTUNREACH < ::SystemCallError
    Errno = nil # Integer
  end

  class EHWPOISON < ::SystemCallError
    Errno = nil # Integer
  end

  class EIDRM < ::SystemCallError
    Errno = nil # Integer
  end

  class EILSEQ < ::SystemCallError
    Errno = nil # Integer
  end

  class EINPROGRESS < ::SystemCallError
    Errno = nil # Integer
  end

  class EINTR < ::SystemCallError
    Errno = nil # Integer
  end

  class EINVAL < ::SystemCallError
    Errno = nil # Integer
  end

  class EIO < ::SystemCallError
    Errno = nil # Integer
  end

  class EISCONN < ::SystemCallError
    Errno = nil # Integer
  end

  class EISDIR < ::SystemCallError
    Errno = nil # Integer
  end

  class EISNAM < ::SystemCallError
    Errno = nil # Integer
  end

  class EKEYEXPIRED < ::SystemCallError
    Errno = nil # Integer
  end

  class EKEYREJECTED < ::SystemCallError
    Errno = nil # Integer
  end

  class EKEYREVOKED < ::SystemCallError
    Errno = nil # Integer
  end

  class EL2HLT < ::SystemCallError
    Errno = nil # Integer
  end

  class EL2NSYNC < ::SystemCallError
    Errno = nil # Integer
  end

  class EL3HLT < ::SystemCallError
    Errno = nil # Integer
  end

  class EL3RST < ::SystemCallError
    Errno = nil # Integer
  end

  class ELIBACC < ::SystemCallError
    Errno = nil # Integer
  end

  class ELIBBAD < ::SystemCallError
    Errno = nil # Integer
  end

  class ELIBEXEC < ::SystemCallError
    Errno = nil # Integer
  end

  class ELIBMAX < ::SystemCallError
    Errno = nil # Integer
  end

  class ELIBSCN < ::SystemCallError
    Errno = nil # Integer
  end

  class ELNRNG < ::SystemCallError
    Errno = nil # Integer
  end

  class ELOOP < ::SystemCallError
    Errno = nil # Integer
  end

  class EMEDIUMTYPE < ::SystemCallError
    Errno = nil # Integer
  end

  class EMFILE < ::SystemCallError
    Errno = nil # Integer
  end

  class EMLINK < ::SystemCallError
    Errno = nil # Integer
  end

  class EMSGSIZE < ::SystemCallError
    Errno = nil # Integer
  end

  class EMULTIHOP < ::SystemCallError
    Errno = nil # Integer
  end

  class ENAMETOOLONG < ::SystemCallError
    Errno = nil # Integer
  end

  class ENAVAIL < ::SystemCallError
    Errno = nil # Integer
  end

  class ENETDOWN < ::SystemCallError
    Errno = nil # Integer
  end

  class ENETRESET < ::SystemCallError
    Errno = nil # Integer
  end

  class ENETUNREACH < ::SystemCallError
    Errno = nil # Integer
  end

  class ENFILE < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOANO < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOBUFS < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOCSI < ::SystemCallError
    Errno = nil # Integer
  end

  class ENODATA < ::SystemCallError
    Errno = nil # Integer
  end

  class ENODEV < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOENT < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOEXEC < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOKEY < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOLCK < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOLINK < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOMEDIUM < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOMEM < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOMSG < ::SystemCallError
    Errno = nil # Integer
  end

  class ENONET < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOPKG < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOPROTOOPT < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOSPC < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOSR < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOSTR < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOSYS < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTBLK < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTCONN < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTDIR < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTEMPTY < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTNAM < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTRECOVERABLE < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTSOCK < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTSUP < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTTY < ::SystemCallError
    Errno = nil # Integer
  end

  class ENOTUNIQ < ::SystemCallError
    Errno = nil # Integer
  end

  class ENXIO < ::SystemCallError
    Errno = nil # Integer
  end

  class EOVERFLOW < ::SystemCallError
    Errno = nil # Integer
  end

  class EOWNERDEAD < ::SystemCallError
    Errno = nil # Integer
  end

  class EPERM < ::SystemCallError
    Errno = nil # Integer
  end

  class EPFNOSUPPORT < ::SystemCallError
    Errno = nil # Integer
  end

  class EPIPE < ::SystemCallError
    Errno = nil # Integer
  end

  class EPROTO < ::SystemCallError
    Errno = nil # Integer
  end

  class EPROTONOSUPPORT < ::SystemCallError
    Errno = nil # Integer
  end

  class EPROTOTYPE < ::SystemCallError
    Errno = nil # Integer
  end

  class ERANGE < ::SystemCallError
    Errno = nil # Integer
  end

  class EREMCHG < ::SystemCallError
    Errno = nil # Integer
  end

  class EREMOTE < ::SystemCallError
    Errno = nil # Integer
  end

  class EREMOTEIO < ::SystemCallError
    Errno = nil # Integer
  end

  class ERESTART < ::SystemCallError
    Errno = nil # Integer
  end

  class ERFKILL < ::SystemCallError
    Errno = nil # Integer
  end

  class EROFS < ::SystemCallError
    Errno = nil # Integer
  end

  class ESHUTDOWN < ::SystemCallError
    Errno = nil # Integer
  end

  class ESOCKTNOSUPPORT < ::SystemCallError
    Errno = nil # Integer
  end

  class ESPIPE < ::SystemCallError
    Errno = nil # Integer
  end

  class ESRCH < ::SystemCallError
    Errno = nil # Integer
  end

  class ESRMNT < ::SystemCallError
    Errno = nil # Integer
  end

  class ESTALE < ::SystemCallError
    Errno = nil # Integer
  end

  class ESTRPIPE < ::SystemCallError
    Errno = nil # Integer
  end

  class ETIME < ::SystemCallError
    Errno = nil # Integer
  end

  class ETIMEDOUT < ::SystemCallError
    Errno = nil # Integer
  end

  class ETOOMANYREFS < ::SystemCallError
    Errno = nil # Integer
  end

  class ETXTBSY < ::SystemCallError
    Errno = nil # Integer
  end

  class EUCLEAN < ::SystemCallError
    Errno = nil # Integer
  end

  class EUNATCH < ::SystemCallError
    Errno = nil # Integer
  end

  class EUSERS < ::SystemCallError
    Errno = nil # Integer
  end

  class EXDEV < ::SystemCallError
    Errno = nil # Integer
  end

  class EXFULL < ::SystemCallError
    Errno = nil # Integer
  end

  class NOERROR < ::SystemCallError
    Errno = nil # Integer
  end

  EAUTH = ::Errno::NOERROR
  EBADARCH = ::Errno::NOERROR
  EBADEXEC = ::Errno::NOERROR
  EBADMACHO = ::Errno::NOERROR
  EBADRPC = ::Errno::NOERROR
  ECAPMODE = ::Errno::NOERROR
  EDEADLOCK = ::Errno::EDEADLK
  EDEVERR = ::Errno::NOERROR
  EDOOFUS = ::Errno::NOERROR
  EFTYPE = ::Errno::NOERROR
  EIPSEC = ::Errno::NOERROR
  ELAST = ::Errno::NOERROR
  ENEEDAUTH = ::Errno::NOERROR
  ENOATTR = ::Errno::NOERROR
  ENOPOLICY = ::Errno::NOERROR
  ENOTCAPABLE = ::Errno::NOERROR
  EOPNOTSUPP = ::Errno::ENOTSUP
  EPROCLIM = ::Errno::NOERROR
  EPROCUNAVAIL = ::Errno::NOERROR
  EPROGMISMATCH = ::Errno::NOERROR
  EPROGUNAVAIL = ::Errno::NOERROR
  EPWROFF = ::Errno::NOERROR
  EQFULL = ::Errno::NOERROR
  ERPCMISMATCH = ::Errno::NOERROR
  ESHLIBVERS = ::Errno::NOERROR
  EWOULDBLOCK = ::Errno::EAGAIN
end

class SystemExit < ::Exception
  def status; end
  def success?; end
  private
  def initialize(*args); end
end

class SystemStackError < ::Exception
end

class Thread < ::Object
  class Backtrace < ::Object
    class Location < ::Object
      def absolute_path; end
      def base_label; end
      def inspect; end
      def label; end
      def lineno; end
      def path; end
      def to_s; end
    end

    class << self
      def limit; end
    end
  end

  class ConditionVariable < ::Object
    def broadcast; end
    def marshal_dump; end
    def signal; end
    def wait(*args); end
    private
    def initialize; end
  end

  class Mutex < ::Object
    def lock; end
    def locked?; end
    def owned?; end
    def sleep(*args); end
    def synchronize; end
    def try_lock; end
    def unlock; end
    private
    def initialize; end
  end

  class Queue < ::Object
    def <<(arg0); end
    def clear; end
    def close; end
    def closed?; end
    def deq(*args); end
    def empty?; end
    def enq(arg0); end
    def length; end
    def marshal_dump; end
    def num_waiting; end
    def pop(*args); end
    def push(arg0); end
    def shift(*args); end
    def size; end
    private
    def initialize(*args); end
  end

  class SizedQueue < ::Thread::Queue
    def <<(*args); end
    def clear; end
    def close; end
    def deq(*args); end
    def empty?; end
    def enq(*args); end
    def length; end
    def max; end
    def max=(arg0); end
    def num_waiting; end
    def pop(*args); end
    def push(*args); end
    def shift(*args); end
    def size; end
    private
    def initialize(arg0); end
  end

  class << self
    def abort_on_exception; end
    def abort_on_exception=(arg0); end
    def current; end
    def exit; end
    def fork(*args); end
    def handle_interrupt(arg0); end
    def ignore_deadlock; end
    def ignore_deadlock=(arg0); end
    def kill(arg0); end
    def list; end
    def main; end
    def new(*args); end
    def pass; end
    def pending_interrupt?(*args); end
    def report_on_exception; end
    def report_on_exception=(arg0); end
    def start(*args); end
    def stop; end
  end
  def [](arg0); end
  def []=(arg0, arg1); end
  def abort_on_exception; end
  def abort_on_exception=(arg0); end
  def add_trace_func(arg0); end
  def alive?; end
  def backtrace(*args); end
  def backtrace_locations(*args); end
  def exit; end
  def fetch(*args); end
  def group; end
  def inspect; end
  def join(*args); end
  def key?(arg0); end
  def keys; end
  def kill; end
  def name; end
  def name=(arg0); end
  def native_thread_id; end
  def pending_interrupt?(*args); end
  def priority; end
  def priority=(arg0); end
  def raise(*args); end
  def report_on_exception; end
  def report_on_exception=(arg0); end
  def run; end
  def set_trace_func(arg0); end
  def status; end
  def stop?; end
  def terminate; end
  def thread_variable?(arg0); end
  def thread_variable_get(arg0); end
  def thread_variable_set(arg0, arg1); end
  def thread_variables; end
  def to_s; end
  def value; end
  def wakeup; end
  private
  def initialize(*args); end
end

module Process
  CLOCK_BOOTTIME = nil # Integer
  CLOCK_BOOTTIME_ALARM = nil # Integer
  CLOCK_MONOTONIC = nil # Integer
  CLOCK_MONOTONIC_COARSE = nil # Integer
  CLOCK_MONOTONIC_RAW = nil # Integer
  CLOCK_PROCESS_CPUTIME_ID = nil # Integer
  CLOCK_REALTIME = nil # Integer
  CLOCK_REALTIME_ALARM = nil # Integer
  CLOCK_REALTIME_COARSE = nil # Integer
  CLOCK_TAI = nil # Integer
  CLOCK_THREAD_CPUTIME_ID = nil # Integer
  PRIO_PGRP = nil # Integer
  PRIO_PROCESS = nil # Integer
  PRIO_USER = nil # Integer
  RLIMIT_AS = nil # Integer
  RLIMIT_CORE = nil # Integer
  RLIMIT_CPU = nil # Integer
  RLIMIT_DATA = nil # Integer
  RLIMIT_FSIZE = nil # Integer
  RLIMIT_MEMLOCK = nil # Integer
  RLIMIT_MSGQUEUE = nil # Integer
  RLIMIT_NICE = nil # Integer
  RLIMIT_NOFILE = nil # Integer
  RLIMIT_NPROC = nil # Integer
  RLIMIT_RSS = nil # Integer
  RLIMIT_RTPRIO = nil # Integer
  RLIMIT_RTTIME = nil # Integer
  RLIMIT_SIGPENDING = nil # Integer
  RLIMIT_STACK = nil # Integer
  RLIM_INFINITY = nil # Integer
  RLIM_SAVED_CUR = nil # Integer
  RLIM_SAVED_MAX = nil # Integer
  WNOHANG = nil # Integer
  WUNTRACED = nil # Integer

  module GID
    class << self
      def change_privilege(arg0); end
      def eid; end
      def eid=(arg0); end
      def from_name(arg0); end
      def grant_privilege(arg0); end
      def re_exchange; end
      def re_exchangeable?; end
      def rid; end
      def sid_available?; end
      def switch; end
    end
    private
    def change_privilege(arg0); end
    def eid; end
    def from_name(arg0); end
    def grant_privilege(arg0); end
    def re_exchange; end
    def re_exchangeable?; end
    def rid; end
    def sid_available?; end
    def switch; end
  end

  class Status < ::Object
    class << self
      def wait(*args); end
    end
    def &(arg0); end
    def ==(arg0); end
    def >>(arg0); end
    def coredump?; end
    def exited?; end
    def exitstatus; end
    def inspect; end
    def pid; end
    def signaled?; end
    def stopped?; end
    def stopsig; end
    def success?; end
    def termsig; end
    def to_i; end
    def to_s; end
  end

  module Sys
    class << self
      def getegid; end
      def geteuid; end
      def getgid; end
      def getuid; end
      def issetugid; end
      def setegid(arg0); end
      def seteuid(arg0); end
      def setgid(arg0); end
      def setregid(arg0, arg1); end
      def setresgid(arg0, arg1, arg2); end
      def setresuid(arg0, arg1, arg2); end
      def setreuid(arg0, arg1); end
      def setrgid; end
      def setruid; end
      def setuid(arg0); end
    end
    private
    def getegid; end
    def geteuid; end
    def getgid; end
    def getuid; end
    def issetugid; end
    def setegid(arg0); end
    def seteuid(arg0); end
    def setgid(arg0); end
    def setregid(arg0, arg1); end
    def setresgid(arg0, arg1, arg2); end
    def setresuid(arg0, arg1, arg2); end
    def setreuid(arg0, arg1); end
    def setrgid; end
    def setruid; end
    def setuid(arg0); end
  end

  class Tms < ::Struct
    class << self
      def [](*args); end
      def inspect; end
      def keyword_init?; end
      def members; end
      def new(*args); end
    end
    def cstime; end
    def cstime=(_); end
    def cutime; end
    def cutime=(_); end
    def stime; end
    def stime=(_); end
    def utime; end
    def utime=(_); end
  end

  module UID
    class << self
      def change_privilege(arg0); end
      def eid; end
      def eid=(arg0); end
      def from_name(arg0); end
      def grant_privilege(arg0); end
      def re_exchange; end
      def re_exchangeable?; end
      def rid; end
      def sid_available?; end
      def switch; end
    end
    private
    def change_privilege(arg0); end
    def eid; end
    def from_name(arg0); end
    def grant_privilege(arg0); end
    def re_exchange; end
    def re_exchangeable?; end
    def rid; end
    def sid_available?; end
    def switch; end
  end

  class Waiter < ::Thread
    def pid; end
  end

  class << self
    def _fork; end
    def abort(*args); end
    def argv0; end
    def clock_getres(*args); end
    def clock_gettime(*args); end
    def daemon(*args); end
    def detach(arg0); end
    def egid; end
    def egid=(arg0); end
    def euid; end
    def euid=(arg0); end
    def exec(*args); end
    def exit(*args); end
    def exit!(*args); end
    def fork; end
    def getpgid(arg0); end
    def getpgrp; end
    def getpriority(arg0, arg1); end
    def getrlimit(arg0); end
    def getsid(*args); end
    def gid; end
    def gid=(arg0); end
    def groups; end
    def groups=(arg0); end
    def initgroups(arg0, arg1); end
    def kill(*args); end
    def last_status; end
    def maxgroups; end
    def maxgroups=(arg0); end
    def pid; end
    def ppid; end
    def setpgid(arg0, arg1); end
    def setpgrp; end
    def setpriority(arg0, arg1, arg2); end
    def setproctitle(arg0); end
    def setrlimit(*args); end
    def setsid; end
    def spawn(*args); end
    def times; end
    def uid; end
    def uid=(arg0); end
    def wait(*args); end
    def wait2(*args); end
    def waitall; end
    def waitpid(*args); end
    def waitpid2(*args); end
  end
  private
  def argv0; end
  def clock_getres(*args); end
  def clock_gettime(*args); end
  def daemon(*args); end
  def detach(arg0); end
  def egid; end
  def egid=(arg0); end
  def euid; end
  def euid=(arg0); end
  def getpgid(arg0); end
  def getpgrp; end
  def getpriority(arg0, arg1); end
  def getrlimit(arg0); end
  def getsid(*args); end
  def gid; end
  def gid=(arg0); end
  def groups; end
  def groups=(arg0); end
  def initgroups(arg0, arg1); end
  def kill(*args); end
  def maxgroups; end
  def maxgroups=(arg0); end
  def pid; end
  def ppid; end
  def setpgid(arg0, arg1); end
  def setpgrp; end
  def setpriority(arg0, arg1, arg2); end
  def setproctitle(arg0); end
  def setrlimit(*args); end
  def setsid; end
  def times; end
  def uid; end
  def uid=(arg0); end
  def wait(*args); end
  def wait2(*args); end
  def waitall; end
  def waitpid(*args); end
  def waitpid2(*args); end
end

class ThreadError < ::StandardError
end

class ThreadGroup < ::Object
  Default = nil # ThreadGroup
  def add(arg0); end
  def enclose; end
  def enclosed?; end
  def list; end
end

class Time < ::Object
  include ::Comparable
  class << self
    def at(time, subsec = nil, unit = nil, in: nil); end
    def gm(*args); end
    def local(*args); end
    def mktime(*args); end
    def now(in: nil); end
    def utc(*args); end
    private
    def _load(arg0); end
  end
  def +(arg0); end
  def -(arg0); end
  def <=>(arg0); end
  def asctime; end
  def ceil(*args); end
  def ctime; end
  def day; end
  def dst?; end
  def eql?(arg0); end
  def floor(*args); end
  def friday?; end
  def getgm; end
  def getlocal(*args); end
  def getutc; end
  def gmt?; end
  def gmt_offset; end
  def gmtime; end
  def gmtoff; end
  def hash; end
  def hour; end
  def inspect; end
  def isdst; end
  def localtime(*args); end
  def mday; end
  def min; end
  def mon; end
  def monday?; end
  def month; end
  def nsec; end
  def round(*args); end
  def saturday?; end
  def sec; end
  def strftime(arg0); end
  def subsec; end
  def sunday?; end
  def thursday?; end
  def to_a; end
  def to_f; end
  def to_i; end
  def to_r; end
  def to_s; end
  def tuesday?; end
  def tv_nsec; end
  def tv_sec; end
  def tv_usec; end
  def usec; end
  def utc; end
  def utc?; end
  def utc_offset; end
  def wday; end
  def wednesday?; end
  def yday; end
  def year; end
  def zone; end
  private
  def _dump(*args); end
  def initialize(year = nil, mon = nil, mday = nil, hour = nil, min = nil, sec = nil, zone = nil, in: nil); end
  def initialize_copy(arg0); end
end

class TracePoint < ::Object
  class << self
    def allow_reentry; end
    def new(*events); end
    def stat; end
    def trace(*events); end
  end
  def binding; end
  def callee_id; end
  def defined_class; end
  def disable; end
  def enable(target: nil, target_line: nil, target_thread: nil); end
  def enabled?; end
  def eval_script; end
  def event; end
  def inspect; end
  def instruction_sequence; end
  def lineno; end
  def method_id; end
  def parameters; end
  def path; end
  def raised_exception; end
  def return_value; end
end

class TrueClass < ::Object
  def &(arg0); end
  def ===(arg0); end
  def ^(arg0); end
  def inspect; end
  def to_s; end
  def |(arg0); end
end

class TypeError < ::StandardError
end

class UnboundMethod < ::Object
  def ==(arg0); end
  def arity; end
  def bind(arg0); end
  def bind_call(*args); end
  def clone; end
  def eql?(arg0); end
  def hash; end
  def inspect; end
  def name; end
  def original_name; end
  def owner; end
  def parameters; end
  def private?; end
  def protected?; end
  def public?; end
  def source_location; end
  def super_method; end
  def to_s; end
end

class UncaughtThrowError < ::ArgumentError
  def tag; end
  def to_s; end
  def value; end
  private
  def initialize(*args); end
end

module UnicodeNormalize
end

module Warning
  extend ::Warning
  class << self
    def [](arg0); end
    def []=(arg0, arg1); end
  end
  def warn(*args); end
end

class ZeroDivisionError < ::StandardError
end

class IO < ::Object
  include ::Enumerable
  include ::File::Constants
  PRIORITY = nil # Integer
  READABLE = nil # Integer
  SEEK_CUR = nil # Integer
  SEEK_DATA = nil # Integer
  SEEK_END = nil # Integer
  SEEK_HOLE = nil # Integer
  SEEK_SET = nil # Integer
  WRITABLE = nil # Integer

  class Buffer < ::Object
    include ::Comparable
    BIG_ENDIAN = nil # Integer
    DEFAULT_SIZE = nil # Integer
    EXTERNAL = nil # Integer
    HOST_ENDIAN = nil # Integer
    INTERNAL = nil # Integer
    LITTLE_ENDIAN = nil # Integer
    LOCKED = nil # Integer
    MAPPED = nil # Integer
    NETWORK_ENDIAN = nil # Integer
    PAGE_SIZE = nil # Integer
    PRIVATE = nil # Integer
    READONLY = nil # Integer

    class AccessError < ::RuntimeError
    end

    class AllocationError < ::RuntimeError
    end

    class InvalidatedError < ::RuntimeError
    end

    class LockedError < ::RuntimeError
    end

    class << self
      def for(arg0); end
      def map(*args); end
    end
    def <=>(arg0); end
    def clear(*args); end
    def copy(*args); end
    def empty?; end
    def external?; end
    def free; end
    def get_string(*args); end
    def get_value(arg0, arg1); end
    def hexdump; end
    def inspect; end
    def internal?; end
    def locked; end
    def locked?; end
    def mapped?; end
    def null?; end
    def pread(arg0, arg1, arg2); end
    def pwrite(arg0, arg1, arg2); end
    def read(arg0, arg1); end
    def readonly?; end
    def resize(arg0); end
    def set_string(*args); end
    def set_value(arg0, arg1, arg2); end
    def size; end
    def slice(arg0, arg1); end
    def to_s; end
    def transfer; end
    def valid?; end
    def write(arg0, arg1); end
    private
    def initialize(*args); end
  end

  module WaitReadable
  end

  class EAGAINWaitReadable < ::Errno::EAGAIN
    include ::IO::WaitReadable
  end

  class EINPROGRESSWaitReadable < ::Errno::EINPROGRESS
    include ::IO::WaitReadable
  end

  module WaitWritable
  end

  class EAGAINWaitWritable < ::Errno::EAGAIN
    include ::IO::WaitWritable
  end

  class EINPROGRESSWaitWritable < ::Errno::EINPROGRESS
    include ::IO::WaitWritable
  end

  EWOULDBLOCKWaitReadable = ::IO::EAGAINWaitReadable
  EWOULDBLOCKWaitWritable = ::IO::EAGAINWaitWritable
  class << self
    def binread(*args); end
    def binwrite(*args); end
    def copy_stream(*args); end
    def for_fd(*args); end
    def foreach(*args); end
    def new(*args); end
    def open(*args); end
    def pipe(*args); end
    def popen(*args); end
    def read(*args); end
    def readlines(*args); end
    def select(*args); end
    def sysopen(*args); end
    def try_convert(arg0); end
    def write(*args); end
  end
  def <<(arg0); end
  def advise(*args); end
  def autoclose=(arg0); end
  def autoclose?; end
  def binmode; end
  def binmode?; end
  def close; end
  def close_on_exec=(arg0); end
  def close_on_exec?; end
  def close_read; end
  def close_write; end
  def closed?; end
  def each(*args); end
  def each_byte; end
  def each_char; end
  def each_codepoint; end
  def each_line(*args); end
  def eof; end
  def eof?; end
  def external_encoding; end
  def fcntl(*args); end
  def fdatasync; end
  def fileno; end
  def flush; end
  def fsync; end
  def getbyte; end
  def getc; end
  def gets(*args); end
  def inspect; end
  def internal_encoding; end
  def ioctl(*args); end
  def isatty; end
  def lineno; end
  def lineno=(arg0); end
  def pid; end
  def pos; end
  def pos=(arg0); end
  def pread(*args); end
  def print(*args); end
  def printf(*args); end
  def putc(arg0); end
  def puts(*args); end
  def pwrite(arg0, arg1); end
  def read(*args); end
  def read_nonblock(len, buf = nil, exception: nil); end
  def readbyte; end
  def readchar; end
  def readline(*args); end
  def readlines(*args); end
  def readpartial(*args); end
  def reopen(*args); end
  def rewind; end
  def seek(*args); end
  def set_encoding(*args); end
  def set_encoding_by_bom; end
  def stat; end
  def sync; end
  def sync=(arg0); end
  def sysread(*args); end
  def sysseek(*args); end
  def syswrite(arg0); end
  def tell; end
  def to_i; end
  def to_io; end
  def tty?; end
  def ungetbyte(arg0); end
  def ungetc(arg0); end
  def write(*args); end
  def write_nonblock(buf, exception: nil); end
  private
  def initialize(*args); end
  def initialize_copy(arg0); end
end

class File < ::IO
  ALT_SEPARATOR = nil # NilClass
  PATH_SEPARATOR = nil # String
  SEPARATOR = nil # String
  Separator = nil # String

  module Constants
    APPEND = nil # Integer
    BINARY = nil # Integer
    CREAT = nil # Integer
    DIRECT = nil # Integer
    DSYNC = nil # Integer
    EXCL = nil # Integer
    FNM_CASEFOLD = nil # Integer
    FNM_DOTMATCH = nil # Integer
    FNM_EXTGLOB = nil # Integer
    FNM_NOESCAPE = nil # Integer
    FNM_PATHNAME = nil # Integer
    FNM_SHORTNAME = nil # Integer
    FNM_SYSCASE = nil # Integer
    LOCK_EX = nil # Integer
    LOCK_NB = nil # Integer
    LOCK_SH = nil # Integer
    LOCK_UN = nil # Integer
    NOATIME = nil # Integer
    NOCTTY = nil # Integer
    NOFOLLOW = nil # Integer
    NONBLOCK = nil # Integer
    NULL = nil # String
    RDONLY = nil # Integer
    RDWR = nil # Integer
    RSYNC = nil # Integer
    SHARE_DELETE = nil # Integer
    SYNC = nil # Integer
    TMPFILE = nil # Integer
    TRUNC = nil # Integer
    WRONLY = nil # Integer
  end

  class Stat < ::Object
    include ::Comparable
    def <=>(arg0); end
    def atime; end
    def birthtime; end
    def blksize; end
    def blockdev?; end
    def blocks; end
    def chardev?; end
    def ctime; end
    def dev; end
    def dev_major; end
    def dev_minor; end
    def directory?; end
    def executable?; end
    def executable_real?; end
    def file?; end
    def ftype; end
    def gid; end
    def grpowned?; end
    def ino; end
    def inspect; end
    def mode; end
    def mtime; end
    def nlink; end
    def owned?; end
    def pipe?; end
    def rdev; end
    def rdev_major; end
    def rdev_minor; end
    def readable?; end
    def readable_real?; end
    def setgid?; end
    def setuid?; end
    def size; end
    def size?; end
    def socket?; end
    def sticky?; end
    def symlink?; end
    def uid; end
    def world_readable?; end
    def world_writable?; end
    def writable?; end
    def writable_real?; end
    def zero?; end
    private
    def initialize(arg0); end
    def initialize_copy(arg0); end
  end

  class << self
    def absolute_path(*args); end
    def absolute_path?(arg0); end
    def atime(arg0); end
    def basename(*args); end
    def birthtime(arg0); end
    def blockdev?(arg0); end
    def chardev?(arg0); end
    def chmod(*args); end
    def chown(*args); end
    def ctime(arg0); end
    def delete(*args); end
    def directory?(arg0); end
    def dirname(*args); end
    def empty?(arg0); end
    def executable?(arg0); end
    def executable_real?(arg0); end
    def exist?(arg0); end
    def exists?(arg0); end
    def expand_path(*args); end
    def extname(arg0); end
    def file?(arg0); end
    def fnmatch(*args); end
    def fnmatch?(*args); end
    def ftype(arg0); end
    def grpowned?(arg0); end
    def identical?(arg0, arg1); end
    def join(*args); end
    def lchmod(*args); end
    def lchown(*args); end
    def link(arg0, arg1); end
    def lstat(arg0); end
    def lutime(*args); end
    def mkfifo(*args); end
    def mtime(arg0); end
    def owned?(arg0); end
    def path(arg0); end
    def pipe?(arg0); end
    def readable?(arg0); end
    def readable_real?(arg0); end
    def readlink(arg0); end
    def realdirpath(*args); end
    def realpath(*args); end
    def rename(arg0, arg1); end
    def setgid?(arg0); end
    def setuid?(arg0); end
    def size(arg0); end
    def size?(arg0); end
    def socket?(arg0); end
    def split(arg0); end
    def stat(arg0); end
    def sticky?(arg0); end
    def symlink(arg0, arg1); end
    def symlink?(arg0); end
    def truncate(arg0, arg1); end
    def umask(*args); end
    def unlink(*args); end
    def utime(*args); end
    def world_readable?(arg0); end
    def world_writable?(arg0); end
    def writable?(arg0); end
    def writable_real?(arg0); end
    def zero?(arg0); end
  end
  def atime; end
  def birthtime; end
  def chmod(arg0); end
  def chown(arg0, arg1); end
  def ctime; end
  def flock(arg0); end
  def lstat; end
  def mtime; end
  def path; end
  def size; end
  def to_path; end
  def truncate(arg0); end
  private
  def initialize(*args); end
end
Bignum = ::Integer
ConditionVariable = ::Thread::ConditionVariable
Fixnum = ::Integer
Mutex = ::Thread::Mutex
Queue = ::Thread::Queue
SizedQueue = ::Thread::SizedQueue
