"""``db/schema.rb`` columns become methods of the models that own the tables, by Rails' naming
rules. The oracle is ActiveRecord 6.1 itself (Debian's ruby-activerecord with ruby-sqlite3):
it loads the same schema.rb on an in-memory database and the same model files, and answers
each model's ``table_name``, its columns and the attribute methods it generates."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from test_incremental import dump

import rdx
from rdx.model.records import FileResult
from rdx.rails.schema import COLUMN_FORMS, table_names
from rdx.workspace.pool import discover_source

SCHEMA = """\
ActiveRecord::Schema.define(version: 2021_06_01_000000) do
  create_table "admin_users", force: :cascade do |t|
    t.string "name", null: false
    t.string "email", "phone"
    t.timestamps
  end

  create_table "people", force: :cascade do |t|
    t.references :org, polymorphic: true
    t.belongs_to :team
    t.column "nickname", :string
    t.index ["nickname"]
  end

  create_table "person_notes", id: false, force: :cascade do |t|
    t.text "body"
  end

  create_table "old_things", primary_key: "code", id: :string, force: :cascade do |t|
    t.string "type"
    t.integer "size"
  end

  create_table "companies" do |t|
    t.string "title"
  end

  create_table "reports" do |t|
    t.string "title"
    t.integer "pages"
  end
end
"""

# Load order for Ruby (a namespace before what it holds); rdx reads them in any order.
MODELS = {
    "app/models/application_record.rb": "class ApplicationRecord < ActiveRecord::Base\n  self.abstract_class = true\nend\n",
    "app/models/admin.rb": 'module Admin\n  def self.table_name_prefix\n    "admin_"\n  end\nend\n',
    "app/models/admin/user.rb": "module Admin\n  class User < ApplicationRecord\n  end\nend\n",
    "app/models/admin/setting.rb": "class Admin::Setting < ::ApplicationRecord\nend\n",
    "app/models/person.rb": "class Person < ApplicationRecord\n  class Note < ApplicationRecord\n  end\nend\n",
    "app/models/legacy.rb": 'class Legacy < ApplicationRecord\n  self.table_name = "old_things"\nend\n\nclass Special < Legacy\nend\n',
    "app/models/company.rb": "class Company < ApplicationRecord\nend\n",
    "app/models/misc.rb": "class HTTPRequest < ApplicationRecord\nend\n\nclass Status < ApplicationRecord\nend\n\nclass Child < ApplicationRecord\nend\n",
    # Not a model: a table named after it gives it nothing.
    "app/models/report.rb": "class Report\nend\n",
}
CLASSES = ["Admin::User", "Admin::Setting", "Person", "Person::Note", "Legacy", "Special", "Company", "HTTPRequest", "Status", "Child", "Report"]

ORACLE = """
require "active_record"
require "json"
root = ARGV[0]
ActiveRecord::Base.establish_connection(adapter: "sqlite3", database: ":memory:")
ActiveRecord::Migration.verbose = false
load File.join(root, "db/schema.rb")
JSON.parse(File.read(File.join(root, "models.json"))).each { |path| load File.join(root, path) }
out = {"columns" => {}}
# ActiveRecord's own bookkeeping tables are not the schema's.
internal = [ActiveRecord::SchemaMigration.table_name, ActiveRecord::InternalMetadata.table_name]
(ActiveRecord::Base.connection.tables - internal).each { |t| out["columns"][t] = ActiveRecord::Base.connection.columns(t).map(&:name) }
JSON.parse(File.read(File.join(root, "asked.json"))).each do |name, names|
  model = Object.const_get(name)
  row = {}
  if model < ActiveRecord::Base
    row["table"] = model.table_name
    if model.table_exists?
      model.define_attribute_methods  # ActiveRecord defines attribute methods on first use otherwise.
      row["generated"] = model.send(:generated_attribute_methods).instance_methods(false).map(&:to_s)
    end
  end
  row["defined"] = names.select { |m| model.method_defined?(m) }
  out[name] = row
end
puts JSON.generate(out)
"""

def discover(uri: str, text: str) -> FileResult:
    return discover_source(uri, text.encode(), uri.removeprefix("file://"))


def put(g: rdx.Graph, path: str, text: str) -> None:
    g.index_source(f"file:///app/{path}", text)


def project(files: dict[str, str]) -> rdx.Graph:
    g = rdx.Graph()
    for path, text in files.items():
        put(g, path, text)
    g.resolve()
    return g


def ask_active_record(tmp_path: Path, files: dict[str, str], asked: dict[str, list[str]]) -> dict[str, Any]:
    ruby = shutil.which("ruby")
    assert ruby is not None, "ruby is required (make test installs it)"
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "models.json").write_text(json.dumps([p for p in files if p.startswith("app/")]))
    (tmp_path / "asked.json").write_text(json.dumps(asked))
    (tmp_path / "oracle.rb").write_text(ORACLE)
    proc = subprocess.run([ruby, str(tmp_path / "oracle.rb"), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"ActiveRecord failed (make test installs ruby-rails and ruby-sqlite3):\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def schema_methods(g: rdx.Graph, model: str) -> set[str]:
    """The methods of ``model`` (its own or inherited) that schema.rb defines."""
    out: set[str] = set()
    for ancestor in g[model].ancestors:
        for member in ancestor.members:
            if member.kind == "Method" and any(d.uri.endswith("db/schema.rb") for d in member.definitions):
                out.add(member.unqualified_name.removesuffix("()"))
    return out


def test_columns_define_what_active_record_defines(tmp_path: Path) -> None:
    files = {"db/schema.rb": SCHEMA, **MODELS}
    g = project(files)
    ours = {model: schema_methods(g, model) for model in CLASSES}
    owners = table_names(g._store.documents)
    table_of = {model: table for table, models in owners.items() for model in models}
    answers = ask_active_record(tmp_path, files, {model: sorted(names) for model, names in ours.items()})
    # The columns, in Rails' order (the primary key first, references and timestamps expanded).
    facts = discover("file:///app/db/schema.rb", SCHEMA).rails
    assert facts is not None
    assert {t.name: [c.name for c in t.columns] for t in facts.tables} == answers["columns"]
    for model in CLASSES:
        answer = answers[model]
        # Every method rdx gives a model from schema.rb, ActiveRecord defines.
        assert sorted(ours[model]) == sorted(answer["defined"]), (model, ours[model] - set(answer["defined"]))
        if "table" not in answer:
            assert not ours[model] and model not in table_of  # Not a model: nothing.
            continue
        # Rails' naming rules: rdx's table of each model is ActiveRecord's (STI subclasses share
        # their base class's table, whose methods they inherit).
        base = "Legacy" if model == "Special" else model
        assert table_of.get(base) == answer["table"], model
        # And the other way: every attribute method ActiveRecord generated, rdx has.
        assert set(answer.get("generated", ())) <= ours[model], (model, set(answer.get("generated", ())) - ours[model])
    # What the columns are expected to yield (the oracle checked each exists above).
    assert {"name", "name=", "name?", "email_changed?", "phone_was", "created_at", "updated_at=", "id", "restore_name!"} <= ours["Admin::User"]
    assert {"org_id", "org_type", "team_id", "nickname?"} <= ours["Person"] and "nickname_was" in ours["Person"]
    assert {"body", "body="} <= ours["Person::Note"] and "id" not in ours["Person::Note"]
    assert {"code", "code=", "type", "size"} <= ours["Legacy"] and ours["Special"] == ours["Legacy"]
    assert not ours["Report"] and not ours["HTTPRequest"]
    assert len(COLUMN_FORMS) == 21


def test_column_methods_are_navigable() -> None:
    g = project({"db/schema.rb": SCHEMA, **MODELS, "app/use.rb": "Admin::User.new.email\nCompany.new.title = 1\n"})
    email = g["Admin::User#email()"]
    line = SCHEMA.splitlines().index('    t.string "email", "phone"') + 1
    assert email.location is not None and email.location.path.endswith("db/schema.rb") and email.location.start_line == line
    assert email.definitions[0].name_location.start_column == SCHEMA.splitlines()[line - 1].index('"email"')
    assert [r.location.start_line for r in g.references_to("Admin::User#email()")] == [1]
    assert [r.location.start_line for r in g.references_to("Company#title=()")] == [2]
    # The primary key is named at the table name; timestamps at the ``timestamps`` call.
    assert g["Company#id()"].location.start_line == SCHEMA.splitlines().index('  create_table "companies" do |t|') + 1
    assert g["Admin::User#created_at()"].location.start_line == SCHEMA.splitlines().index("    t.timestamps") + 1


def test_no_model_no_methods_and_no_invented_class() -> None:
    g = project({"db/schema.rb": SCHEMA, "app/models/report.rb": MODELS["app/models/report.rb"]})
    assert "Company" not in g and "Person" not in g and not schema_methods(g, "Report")


CHANGES = [
    # A column added to schema.rb.
    ("db/schema.rb", lambda s: s.replace('    t.text "body"\n', '    t.text "body"\n    t.string "mood"\n'),
     lambda g: "mood" in schema_methods(g, "Person::Note")),
    # A model's table changes: Company now reads the reports table.
    ("app/models/company.rb", lambda s: s.replace("class Company < ApplicationRecord\n", 'class Company < ApplicationRecord\n  self.table_name = "reports"\n'),
     lambda g: "pages" in schema_methods(g, "Company")),
    # The module's prefix changes: Admin::User's table is now staff_users, which does not exist.
    ("app/models/admin.rb", lambda s: s.replace('"admin_"', '"staff_"'), lambda g: not schema_methods(g, "Admin::User")),
    # Person stops being a model: Person::Note's table is now ``notes`` (no longer ``person_notes``).
    ("app/models/person.rb", lambda s: s.replace("class Person < ApplicationRecord", "class Person"),
     lambda g: not schema_methods(g, "Person") and not schema_methods(g, "Person::Note")),
]


def test_edits_flow_through_resolve_like_a_fresh_graph() -> None:
    files = {"db/schema.rb": SCHEMA, **MODELS}
    g = project(files)
    for path, change, expected in CHANGES:
        assert not expected(g), path
        files[path] = change(files[path])
        put(g, path, files[path])
        g.resolve()
        assert expected(g), path
        assert dump(g) == dump(project(files)), path
    # Removing the model file removes its methods; the class is not kept alive by schema.rb.
    g.delete_document("file:///app/app/models/company.rb")
    g.resolve()
    assert "Company" not in g
    assert dump(g) == dump(project({p: t for p, t in files.items() if p != "app/models/company.rb"}))


def test_migrations_define_no_columns() -> None:
    migration = 'class CreateThings < ActiveRecord::Migration[6.1]\n  def change\n    create_table "companies" do |t|\n      t.string "x"\n    end\n  end\nend\n'
    assert discover("file:///app/db/migrate/1_create_things.rb", migration).rails is None


def test_discovery_records_rails_facts() -> None:
    g = rdx.Graph()
    for path, text in {"db/schema.rb": SCHEMA, **MODELS}.items():
        g.index_source(f"file:///app/{path}", text)
    assert "title" in schema_methods(g, "Company")
