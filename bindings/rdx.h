/*
 * rdx.h: the C ABI of rdx, a semantic code graph for Ruby.
 *
 * This header is written by hand and is the single source of truth for the ABI: the build
 * (bindings/build_capi.py) feeds the region between the "rdx-cdef" markers to cffi, the
 * Ruby wrapper (bindings/ruby/lib/rdx.rb) mirrors it, and tests check that the status codes
 * below equal the Python error table (rdx.ErrorCode). Link with -lrdx (bindings/build/librdx.so,
 * built by `make capi`). The library starts an embedded Python interpreter on the first call
 * into the graph and finds its own Python packages; no environment variables are needed.
 *
 * Conventions
 * -----------
 * Status.  Almost every function returns rdx_status_t: RDX_OK (0) on success, a negative
 *   RDX_ERR_* code on failure, or RDX_DONE (1, not an error) from an iterator that has no
 *   more items. On failure nothing is written to the out parameters and
 *   rdx_last_error_message() says what went wrong, quoting the offending value.
 *
 * Handles.  rdx_graph_t, rdx_declaration_t and the other rdx_*_t types are opaque. A handle
 *   is a 64-bit id that the library looks up in a table; it is never dereferenced. Passing
 *   NULL, a freed handle, a handle of another type or an invented value returns
 *   RDX_ERR_INVALID_HANDLE (NULL: RDX_ERR_INVALID_ARGUMENT) and never crashes.
 *
 * Ownership.  Every handle a function gives you is yours and must be released with the
 *   matching rdx_<type>_free. Freeing a graph also releases every handle obtained from it
 *   (declarations, definitions, references, diagnostics, iterators); afterwards those handles
 *   are invalid and any call with them returns RDX_ERR_INVALID_HANDLE. Strings returned
 *   through `char **` are malloc'ed copies owned by the caller: release them with
 *   rdx_string_free. Arrays of strings returned through `char ***` with a count (comments,
 *   the *_names functions) are a malloc'ed array of malloc'ed strings, NULL when the count is
 *   0: release both with rdx_string_array_free(array, count). Strings returned through
 *   `const char **` (kinds) are static, owned by the library and valid for the life of the
 *   process: never free them. Structs the library fills (rdx_location_t, rdx_open_stats_t)
 *   belong to the caller.
 *
 * Snapshots.  A declaration, definition or reference handle describes the graph at the
 *   revision it was obtained (as rdx's Python objects do). After index_* or delete_document,
 *   fetch handles again to see the change; queries on a changed graph resolve it first, so
 *   RDX_ERR_NOT_RESOLVED is never returned by this version.
 *
 * Text.  Names, URIs, paths and source text are passed as (pointer, length in bytes); pass
 *   RDX_NTS as the length for a NUL-terminated string. Names and URIs must be valid UTF-8
 *   without NUL bytes (else RDX_ERR_ENCODING or RDX_ERR_INVALID_ARGUMENT); source text must be
 *   valid UTF-8 (RDX_ERR_ENCODING). File system paths are bytes as the OS takes them, without
 *   NUL bytes. Returned strings are UTF-8 and NUL-terminated. A length above 1 GiB (other than
 *   RDX_NTS) is RDX_ERR_INVALID_ARGUMENT, refused before any byte is read; error messages quote
 *   at most 80 characters of a bad argument, followed by its size.
 *
 * Threads.  Every function may be called from any thread. Calls on one graph are serialized
 *   by a lock per graph, and the embedded interpreter runs one call at a time, so threads
 *   get safety rather than parallelism. The last error message is kept per thread.
 *
 * Locations.  Lines are 1-based, columns 0-based byte offsets, as in rdx's Python API.
 */
#ifndef RDX_H
#define RDX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes; rdx_abi_version() returns the library's. Any
 * incompatible change to a type or function below increments it; adding functions or types
 * does not. Version 1 later gained persistent projects (rdx_graph_open, rdx_graph_save,
 * rdx_graph_open_stats, rdx_open_stats_t) and the batch calls rdx_declaration_*_names: a
 * program that uses them needs a library that has them (it fails to link or load otherwise). */
#define RDX_ABI_VERSION 1

/* Pass as a length to mean "the string is NUL-terminated". */
#define RDX_NTS ((size_t)-1)

/* rdx-cdef: begin (types, then functions implemented by the embedded interpreter) */

/* Status codes. The RDX_ERR_* values equal rdx.ErrorCode in Python and the CODE constants of
 * the Ruby wrapper's Rdx::Error subclasses. */
typedef int32_t rdx_status_t;
enum rdx_status {
    RDX_OK = 0,
    RDX_DONE = 1,                    /* an iterator has no more items; not an error */
    RDX_ERR_INVALID_ARGUMENT = -1,   /* NULL pointer, bad enum value, NUL byte in a name, ... */
    RDX_ERR_NOT_FOUND = -2,          /* no such declaration, document or target */
    RDX_ERR_INVALID_HANDLE = -3,     /* freed, invented or wrongly typed handle */
    RDX_ERR_IO = -4,                 /* an index root does not exist or cannot be read */
    RDX_ERR_ENCODING = -5,           /* a name, URI or source is not valid UTF-8 */
    RDX_ERR_NOT_RESOLVED = -6,       /* reserved: queries resolve first, so never returned */
    RDX_ERR_INTERNAL = -99           /* a bug in rdx, or the interpreter could not start */
};

/* How rdx_graph_search matches (see rdx.Graph.search; its default there is ranked). */
typedef enum rdx_match_mode {
    RDX_MATCH_FUZZY = 0,    /* sub-word tokens, best first */
    RDX_MATCH_PREFIX = 1,
    RDX_MATCH_EXACT = 2,
    RDX_MATCH_RANKED = 3    /* a description ("parse one CSV line"): names, doc comments (BM25) */
} rdx_match_mode_t;

/* Opaque handles (see "Handles" and "Ownership" above). */
typedef struct rdx_graph rdx_graph_t;
typedef struct rdx_declaration rdx_declaration_t;
typedef struct rdx_definition rdx_definition_t;
typedef struct rdx_constant_reference rdx_constant_reference_t;
typedef struct rdx_method_reference rdx_method_reference_t;
typedef struct rdx_diagnostic rdx_diagnostic_t;
typedef struct rdx_declaration_iter rdx_declaration_iter_t;
typedef struct rdx_definition_iter rdx_definition_iter_t;
typedef struct rdx_constant_reference_iter rdx_constant_reference_iter_t;
typedef struct rdx_method_reference_iter rdx_method_reference_iter_t;
typedef struct rdx_diagnostic_iter rdx_diagnostic_iter_t;

/* A span in a file. The struct belongs to the caller; the library fills it and allocates
 * `path` and `uri`, which the caller releases with rdx_location_free. */
typedef struct rdx_location {
    char *path;             /* file path (or the URI when the document has no path) */
    char *uri;              /* the document's URI, e.g. file:///app/models/user.rb */
    uint32_t start_line;    /* 1-based */
    uint32_t start_column;  /* 0-based, in bytes */
    uint32_t end_line;
    uint32_t end_column;
} rdx_location_t;

/* What rdx_graph_open did to build a graph (see rdx_graph_open_stats). The struct belongs to
 * the caller; it holds no pointers, so there is nothing to free. */
typedef struct rdx_open_stats {
    uint32_t reused;        /* files taken from the snapshot without parsing */
    uint32_t parsed;        /* files parsed: new, changed, or all of them without a snapshot */
    uint32_t deleted;       /* files in the snapshot that no longer exist */
    int32_t had_snapshot;   /* 1 when a usable snapshot was found in the cache directory, else 0 */
    int32_t resolved;       /* 1 when the graph started resolved from the saved resolved graph
                             * (nothing changed since it was saved), else 0 */
} rdx_open_stats_t;

/* ---- Graph ------------------------------------------------------------------------------- */

/* A new graph with Ruby core (Object, Kernel, Comparable, ...) already indexed.
 * *out: owned by the caller, release with rdx_graph_free. */
rdx_status_t rdx_graph_new(rdx_graph_t **out);

/* A graph of the project at `root` (a directory, as rdx.Graph.open), with Ruby core, starting
 * warm from the snapshot in `cache_dir`: unchanged files (same size and mtime, or same content)
 * are taken from the snapshot, only new and changed files are parsed, deleted ones are dropped,
 * and the snapshot is rewritten when anything changed. When nothing changed and the resolved
 * graph was saved, the graph starts resolved (rdx_graph_open_stats says which happened).
 * The first resolve of a graph made here (rdx_graph_resolve, or the first query) also saves
 * the resolved graph in `cache_dir` for the next open; rdx_graph_save does after later edits.
 *   root:      the project's root directory; one that does not exist is RDX_ERR_IO.
 *   cache_dir: where the snapshot lives; NULL (its length is then ignored) means `.rdx/` in
 *              `root`; "" is RDX_ERR_INVALID_ARGUMENT. It is created when missing. One that
 *              cannot be read or written is not an error: as in Python, the graph is built
 *              from the files and a "snapshot-rebuilt" or "snapshot-unwritable" warning
 *              appears in rdx_graph_diagnostics. A corrupt snapshot is reported and rebuilt.
 *   jobs:      worker processes for parsing (0: one per CPU; 1: parse in the calling thread,
 *              no fork); negative is RDX_ERR_INVALID_ARGUMENT. Nothing forks when no file
 *              needs parsing.
 * The project's configuration (rdx.toml, or [tool.rdx] in pyproject.toml, in `root`) applies.
 * *out: owned by the caller, release with rdx_graph_free. */
rdx_status_t rdx_graph_open(const char *root, size_t root_length, const char *cache_dir, size_t cache_dir_length,
                            int32_t jobs, rdx_graph_t **out);

/* Write the snapshot of a graph made by rdx_graph_open to its cache directory (atomically,
 * under a lock shared with other rdx processes), and the resolved graph as well when the
 * graph is resolved and current. Documents indexed later with rdx_graph_index_* are included.
 * A graph made by rdx_graph_new has no cache directory: RDX_ERR_INVALID_ARGUMENT. A directory
 * that cannot be written is not an error but a "snapshot-unwritable" warning among the
 * graph's diagnostics, as in Python. */
rdx_status_t rdx_graph_save(rdx_graph_t *graph);

/* What rdx_graph_open did when it made `graph`: files reused from the snapshot, parsed and
 * deleted, and whether it started resolved. It describes the open only; later calls do not
 * change it. RDX_ERR_NOT_FOUND for a graph made by rdx_graph_new. *out belongs to the caller. */
rdx_status_t rdx_graph_open_stats(rdx_graph_t *graph, rdx_open_stats_t *out);

/* Release a graph and every handle obtained from it. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_graph_free(rdx_graph_t *graph);

/* Index every Ruby file under `count` paths (files or directories). `lengths` may be NULL
 * when every path is NUL-terminated. `jobs` is the number of worker processes (0: one per
 * CPU; 1: parse in the calling thread, no fork). A root that does not exist is RDX_ERR_IO and
 * nothing is indexed; a bad file is not an error but a diagnostic. *out_problems (may be NULL)
 * receives the number of per-file problems, which rdx_graph_diagnostics lists. */
rdx_status_t rdx_graph_index_all(rdx_graph_t *graph, const char *const *paths, const size_t *lengths,
                                 size_t count, uint32_t jobs, size_t *out_problems);

/* Index (or re-index) one document from text. `uri` is a URI (file:///x.rb) or a path.
 * *out_problems (may be NULL) receives the number of syntax errors found. */
rdx_status_t rdx_graph_index_source(rdx_graph_t *graph, const char *uri, size_t uri_length,
                                    const char *source, size_t source_length, size_t *out_problems);

/* Forget a document; RDX_ERR_NOT_FOUND when it was not indexed. */
rdx_status_t rdx_graph_delete_document(rdx_graph_t *graph, const char *uri, size_t uri_length);

/* Resolve names, ancestors and references. Optional: queries resolve a changed graph first. */
rdx_status_t rdx_graph_resolve(rdx_graph_t *graph);

/* The graph's revision, which increases with every change. */
rdx_status_t rdx_graph_revision(rdx_graph_t *graph, uint64_t *out);

/* The declaration with a fully qualified name ("Foo::Bar", "Foo#baz()", "Foo::<Foo>"), or
 * RDX_ERR_NOT_FOUND. *out: owned by the caller, release with rdx_declaration_free. */
rdx_status_t rdx_graph_get_declaration(rdx_graph_t *graph, const char *name, size_t name_length,
                                       rdx_declaration_t **out);

/* What constant `name` written inside `nesting` (lexical scopes as written, outermost first,
 * e.g. {"Shop", "Models::Order"}) refers to, or RDX_ERR_NOT_FOUND. `nesting` may be NULL when
 * `nesting_count` is 0; `nesting_lengths` may be NULL when every scope is NUL-terminated.
 * *out: owned by the caller, release with rdx_declaration_free. */
rdx_status_t rdx_graph_resolve_constant(rdx_graph_t *graph, const char *name, size_t name_length,
                                        const char *const *nesting, const size_t *nesting_lengths,
                                        size_t nesting_count, rdx_declaration_t **out);

/* Declarations whose names match `query`, best first. `kind` is NULL (any) or a NUL-terminated
 * declaration kind such as "Class" or "Method"; `limit` 0 means no limit.
 * *out: owned by the caller, release with rdx_declaration_iter_free. */
rdx_status_t rdx_graph_search(rdx_graph_t *graph, const char *query, size_t query_length, const char *kind,
                              rdx_match_mode_t mode, size_t limit, rdx_declaration_iter_t **out);

/* Batch call: the fully qualified names rdx_graph_search would yield, in the same order. Same
 * arguments; *out_names is a malloc'ed array of *out_count malloc'ed strings (NULL when the
 * count is 0), released with rdx_string_array_free(*out_names, *out_count). */
rdx_status_t rdx_graph_search_names(rdx_graph_t *graph, const char *query, size_t query_length, const char *kind,
                                    rdx_match_mode_t mode, size_t limit, char ***out_names, size_t *out_count);

/* Lines of the project's text files (every language) matching pattern, as rdx.Graph.grep
 * finds them, in one JSON document: {"total", "files", "offset", "complete", "hits": [{"path",
 * "line", "column", "end_column", "text", "language", "before", "after"}]} (line 1-based,
 * columns 0-based bytes, hits sorted by path, line, column). options_json is NULL or a JSON
 * object with any of "regex" and "ignore_case" (booleans), "glob", "language" and "path" (a
 * string or a list of strings), "context", "limit", "offset" (integers) and "timeout" (seconds,
 * null for no limit; default 5); an unknown key, a value of the wrong type or a bad value (an
 * invalid regex or glob, a pattern over 4 KiB) is RDX_ERR_INVALID_ARGUMENT. A search that runs
 * out of time answers what it found with "complete": false; until then other calls on the same
 * graph wait. *out is released with rdx_string_free. */
rdx_status_t rdx_graph_grep_json(rdx_graph_t *graph, const char *pattern, size_t pattern_length, const char *options_json,
                                 char **out);

/* Every declaration, Ruby core's included, in no particular order. */
rdx_status_t rdx_graph_declarations(rdx_graph_t *graph, rdx_declaration_iter_t **out);

/* Every constant reference, in document order. */
rdx_status_t rdx_graph_constant_references(rdx_graph_t *graph, rdx_constant_reference_iter_t **out);

/* Every method call, in document order. */
rdx_status_t rdx_graph_method_references(rdx_graph_t *graph, rdx_method_reference_iter_t **out);

/* Every problem: unreadable files, syntax errors, and what resolution could not resolve. */
rdx_status_t rdx_graph_diagnostics(rdx_graph_t *graph, rdx_diagnostic_iter_t **out);

/* ---- Declarations ------------------------------------------------------------------------ */

/* The stable 64-bit id of the declaration (the same as rdx.Declaration.id); two handles name
 * the same declaration when their ids are equal. */
rdx_status_t rdx_declaration_id(rdx_declaration_t *declaration, uint64_t *out);

/* Fully qualified name, e.g. "Shop::Models::Product#label()". *out: rdx_string_free. */
rdx_status_t rdx_declaration_name(rdx_declaration_t *declaration, char **out);

/* The last segment, e.g. "label()". *out: rdx_string_free. */
rdx_status_t rdx_declaration_unqualified_name(rdx_declaration_t *declaration, char **out);

/* Everything `rdx show` and the MCP server's get_declaration report, as one JSON object (the
 * Python API's Declaration.summary()): name, kind, revision, owner, visibility (methods),
 * target (constant aliases), definitions (kind, location, comments, signature), ancestors
 * (namespaces), members (name, unqualified, kind, location) and origin ("dependency" for what
 * only the project's gems define, "core" for Ruby's core; absent for the project's own);
 * absent keys mean none. *out: rdx_string_free. */
rdx_status_t rdx_declaration_summary_json(rdx_declaration_t *declaration, char **out);

/* "Class", "Module", "SingletonClass", "Constant", "ConstantAlias", "Method", ...
 * *out: static, owned by the library. */
rdx_status_t rdx_declaration_kind(rdx_declaration_t *declaration, const char **out);

/* The namespace that owns the declaration; RDX_ERR_NOT_FOUND when it has none.
 * *out: release with rdx_declaration_free. */
rdx_status_t rdx_declaration_owner(rdx_declaration_t *declaration, rdx_declaration_t **out);

/* The singleton class of a class or module; RDX_ERR_NOT_FOUND for other kinds.
 * *out: release with rdx_declaration_free. */
rdx_status_t rdx_declaration_singleton_class(rdx_declaration_t *declaration, rdx_declaration_t **out);

/* Look a member ("bar()", "Baz", "@x") up through the ancestors, as Ruby would, or
 * RDX_ERR_NOT_FOUND. *out: release with rdx_declaration_free. */
rdx_status_t rdx_declaration_find_member(rdx_declaration_t *declaration, const char *name, size_t name_length,
                                         rdx_declaration_t **out);

/* The linearized ancestors (prepends, itself, includes, superclasses), as Module#ancestors. */
rdx_status_t rdx_declaration_ancestors(rdx_declaration_t *declaration, rdx_declaration_iter_t **out);

/* Every declaration that has this one among its ancestors, sorted by name. */
rdx_status_t rdx_declaration_descendants(rdx_declaration_t *declaration, rdx_declaration_iter_t **out);

/* The declaration's own members (methods, constants, variables), sorted by name. */
rdx_status_t rdx_declaration_members(rdx_declaration_t *declaration, rdx_declaration_iter_t **out);

/* Every definition of the declaration (each reopening of a class, each `def`). */
rdx_status_t rdx_declaration_definitions(rdx_declaration_t *declaration, rdx_definition_iter_t **out);

/* Batch calls: the fully qualified names of what rdx_declaration_ancestors,
 * rdx_declaration_descendants and rdx_declaration_members yield, in the same order, in one
 * call instead of a handle, a name call and a free per item. *out_names is a malloc'ed array
 * of *out_count malloc'ed strings (NULL when the count is 0); release it with
 * rdx_string_array_free(*out_names, *out_count). Both out parameters are required. */
rdx_status_t rdx_declaration_ancestor_names(rdx_declaration_t *declaration, char ***out_names, size_t *out_count);
rdx_status_t rdx_declaration_descendant_names(rdx_declaration_t *declaration, char ***out_names, size_t *out_count);
rdx_status_t rdx_declaration_member_names(rdx_declaration_t *declaration, char ***out_names, size_t *out_count);

/* Release a declaration handle. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_declaration_free(rdx_declaration_t *declaration);

/* ---- Definitions ------------------------------------------------------------------------- */

/* "Class", "Module", "Method", "AttrAccessor", "Constant", ... *out: static. */
rdx_status_t rdx_definition_kind(rdx_definition_t *definition, const char **out);

/* The name as written at the definition ("Product", "label"). *out: rdx_string_free. */
rdx_status_t rdx_definition_name(rdx_definition_t *definition, char **out);

/* Where the definition is. Release the strings in *out with rdx_location_free. */
rdx_status_t rdx_definition_location(rdx_definition_t *definition, rdx_location_t *out);

/* The comment lines directly above the definition, as written ("# A product."). *out is an
 * array of *out_count strings (NULL when there are none); release with rdx_string_array_free. */
rdx_status_t rdx_definition_comments(rdx_definition_t *definition, char ***out, size_t *out_count);

/* The declaration this definition contributes to. *out: release with rdx_declaration_free. */
rdx_status_t rdx_definition_declaration(rdx_definition_t *definition, rdx_declaration_t **out);

/* Release a definition handle. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_definition_free(rdx_definition_t *definition);

/* ---- Constant references ----------------------------------------------------------------- */

/* The constant path as written ("Pricing", "Shop::Comparable"). *out: rdx_string_free. */
rdx_status_t rdx_constant_reference_name(rdx_constant_reference_t *reference, char **out);

/* Where the constant path is written. Release the strings in *out with rdx_location_free. */
rdx_status_t rdx_constant_reference_location(rdx_constant_reference_t *reference, rdx_location_t *out);

/* The declaration the reference resolves to, or RDX_ERR_NOT_FOUND when it is unresolved.
 * *out: release with rdx_declaration_free. */
rdx_status_t rdx_constant_reference_declaration(rdx_constant_reference_t *reference, rdx_declaration_t **out);

/* Release a constant reference handle. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_constant_reference_free(rdx_constant_reference_t *reference);

/* ---- Method references ------------------------------------------------------------------- */

/* The method name as called ("label", "price="). *out: rdx_string_free. */
rdx_status_t rdx_method_reference_name(rdx_method_reference_t *reference, char **out);

/* Where the call's method name is. Release the strings in *out with rdx_location_free. */
rdx_status_t rdx_method_reference_location(rdx_method_reference_t *reference, rdx_location_t *out);

/* Where the method is looked up: `Foo.bar` -> Foo::<Foo>, `Foo.new.bar` -> Foo; implicit self
 * -> the enclosing namespace. RDX_ERR_NOT_FOUND when the receiver is unknown.
 * *out: release with rdx_declaration_free. */
rdx_status_t rdx_method_reference_receiver(rdx_method_reference_t *reference, rdx_declaration_t **out);

/* The method the call reaches through the receiver's ancestors, or RDX_ERR_NOT_FOUND.
 * *out: release with rdx_declaration_free. */
rdx_status_t rdx_method_reference_method(rdx_method_reference_t *reference, rdx_declaration_t **out);

/* Release a method reference handle. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_method_reference_free(rdx_method_reference_t *reference);

/* ---- Diagnostics ------------------------------------------------------------------------- */

/* A short machine-readable code, e.g. "syntax-error", "unresolved-constant". *out: rdx_string_free. */
rdx_status_t rdx_diagnostic_code(rdx_diagnostic_t *diagnostic, char **out);

/* One sentence for people. *out: rdx_string_free. */
rdx_status_t rdx_diagnostic_message(rdx_diagnostic_t *diagnostic, char **out);

/* "error" or "warning". *out: static. */
rdx_status_t rdx_diagnostic_severity(rdx_diagnostic_t *diagnostic, const char **out);

/* The file (or directory, for walk problems) concerned. *out: rdx_string_free. */
rdx_status_t rdx_diagnostic_path(rdx_diagnostic_t *diagnostic, char **out);

/* The place in the file, or RDX_ERR_NOT_FOUND for problems with a whole file.
 * Release the strings in *out with rdx_location_free. */
rdx_status_t rdx_diagnostic_location(rdx_diagnostic_t *diagnostic, rdx_location_t *out);

/* Release a diagnostic handle. NULL is a no-op returning RDX_OK. */
rdx_status_t rdx_diagnostic_free(rdx_diagnostic_t *diagnostic);

/* ---- Iterators --------------------------------------------------------------------------- */
/* An iterator holds the answer computed when it was made. `_count` gives the total number of
 * items; `_next` returns RDX_OK and a new handle in *out (owned by the caller, release with
 * its `_free`), or RDX_DONE when there are no more items (and keeps returning RDX_DONE).
 * `_free` releases the iterator, not the items it produced; NULL is a no-op.
 *
 *     rdx_declaration_t *d;
 *     rdx_status_t st;
 *     while ((st = rdx_declaration_iter_next(it, &d)) == RDX_OK) { ...; rdx_declaration_free(d); }
 *     if (st != RDX_DONE) { error }
 *     rdx_declaration_iter_free(it);
 */
rdx_status_t rdx_declaration_iter_count(rdx_declaration_iter_t *iter, size_t *out);
rdx_status_t rdx_declaration_iter_next(rdx_declaration_iter_t *iter, rdx_declaration_t **out);
rdx_status_t rdx_declaration_iter_free(rdx_declaration_iter_t *iter);

rdx_status_t rdx_definition_iter_count(rdx_definition_iter_t *iter, size_t *out);
rdx_status_t rdx_definition_iter_next(rdx_definition_iter_t *iter, rdx_definition_t **out);
rdx_status_t rdx_definition_iter_free(rdx_definition_iter_t *iter);

rdx_status_t rdx_constant_reference_iter_count(rdx_constant_reference_iter_t *iter, size_t *out);
rdx_status_t rdx_constant_reference_iter_next(rdx_constant_reference_iter_t *iter, rdx_constant_reference_t **out);
rdx_status_t rdx_constant_reference_iter_free(rdx_constant_reference_iter_t *iter);

rdx_status_t rdx_method_reference_iter_count(rdx_method_reference_iter_t *iter, size_t *out);
rdx_status_t rdx_method_reference_iter_next(rdx_method_reference_iter_t *iter, rdx_method_reference_t **out);
rdx_status_t rdx_method_reference_iter_free(rdx_method_reference_iter_t *iter);

rdx_status_t rdx_diagnostic_iter_count(rdx_diagnostic_iter_t *iter, size_t *out);
rdx_status_t rdx_diagnostic_iter_next(rdx_diagnostic_iter_t *iter, rdx_diagnostic_t **out);
rdx_status_t rdx_diagnostic_iter_free(rdx_diagnostic_iter_t *iter);

/* rdx-cdef: native (functions implemented in C; they never start the interpreter) */

/* The RDX_ABI_VERSION the library was built with; compare it with the header's. */
int32_t rdx_abi_version(void);

/* What went wrong in the most recent call on this thread that returned an error. Never NULL
 * ("" before any error). The string is owned by the library and stays valid until the next
 * failing call on the same thread or the thread's exit; copy it to keep it longer. */
const char *rdx_last_error_message(void);

/* The name of a status code ("RDX_OK", "RDX_ERR_NOT_FOUND", ...; "RDX_UNKNOWN_STATUS" for
 * other values). Static, owned by the library. */
const char *rdx_status_name(rdx_status_t status);

/* Release a string returned through `char **`. NULL is a no-op. */
void rdx_string_free(char *string);

/* Release an array of `count` strings returned through `char ***` (rdx_definition_comments,
 * rdx_declaration_*_names) and the array itself. NULL is a no-op, whatever the count. */
void rdx_string_array_free(char **strings, size_t count);

/* Release the strings inside a location filled by the library and set them to NULL (the
 * struct itself belongs to the caller). NULL, or a zeroed location, is a no-op. */
void rdx_location_free(rdx_location_t *location);

/* rdx-cdef: end */

#ifdef __cplusplus
}
#endif

#endif /* RDX_H */
