/*
 * test_capi.c: tests of librdx through its C ABI, compiled with gcc and run by
 * tests/test_capi.py (or by hand: see bindings/README.md).
 *
 *     test_capi FIXTURE_DIR [answers] [errors] [persist] [threads] [memory]
 *
 * FIXTURE_DIR is rdx's example project (rdx/data/example). The sections:
 *   answers  prints tab-separated facts about the fixture (ancestors, members, definitions,
 *            every constant and method reference, ...) for tests/test_capi.py to compare with
 *            the Python API and with real Ruby; the batch *_names calls must agree with the
 *            iterators;
 *   errors   drives every error path: NULL pointers, invented, freed and wrongly typed
 *            handles, handles outliving their graph, NUL bytes, invalid UTF-8, missing roots;
 *   persist  copies the fixture to a temporary directory and opens it with rdx_graph_open:
 *            cold, warm (every file reused, started resolved, the same answers), after a
 *            change, after a deletion, with a separate cache directory; and the errors of
 *            rdx_graph_open, rdx_graph_save and rdx_graph_open_stats;
 *   threads  four threads query one graph at once, then three query while one edits it;
 *   memory   10,000 cycles of creating and freeing graphs, declarations and iterators, with the
 *            resident set size measured before and after.
 * Every check that fails prints its line and the library's last error message; the exit
 * status is 1 when any check failed. The last line is "checks: N failures: M".
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdx.h"

/* ---- a tiny assertion framework (thread-safe counters) ----------------------------------- */

static atomic_int checks;
static atomic_int failures;

static void fail_at(int line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "test_capi.c:%d: ", line);
    vfprintf(stderr, fmt, args);
    fprintf(stderr, " (last error: %s)\n", rdx_last_error_message());
    va_end(args);
    atomic_fetch_add(&failures, 1);
}

#define CHECK(cond)                                                \
    do {                                                           \
        atomic_fetch_add(&checks, 1);                              \
        if (!(cond)) fail_at(__LINE__, "CHECK(%s) failed", #cond); \
    } while (0)

#define EXPECT(call, expected)                                                              \
    do {                                                                                    \
        rdx_status_t got_ = (call);                                                         \
        atomic_fetch_add(&checks, 1);                                                       \
        if (got_ != (expected))                                                             \
            fail_at(__LINE__, "%s returned %s, expected %s", #call, rdx_status_name(got_), \
                    rdx_status_name(expected));                                             \
    } while (0)

#define OK(call) EXPECT(call, RDX_OK)

/* The last error message contains `needle`. */
#define EXPECT_MESSAGE(needle)                                                                  \
    do {                                                                                        \
        atomic_fetch_add(&checks, 1);                                                           \
        if (strstr(rdx_last_error_message(), (needle)) == NULL)                                 \
            fail_at(__LINE__, "last error message does not mention \"%s\"", (needle));          \
    } while (0)

/* ---- helpers ----------------------------------------------------------------------------- */

/* A growable string, for joining names. */
typedef struct {
    char *data;
    size_t length, capacity;
} buffer_t;

static void buffer_add(buffer_t *b, const char *text) {
    size_t n = strlen(text);
    if (b->length + n + 1 > b->capacity) {
        b->capacity = (b->length + n + 1) * 2;
        b->data = realloc(b->data, b->capacity);
        if (b->data == NULL) {
            perror("realloc");
            exit(2);
        }
    }
    memcpy(b->data + b->length, text, n + 1);
    b->length += n;
}

static char *declaration_name(rdx_declaration_t *decl) {
    char *name = NULL;
    if (rdx_declaration_name(decl, &name) != RDX_OK) {
        fail_at(__LINE__, "rdx_declaration_name failed");
        return strdup("?");
    }
    return name;
}

/* The names an iterator yields, separated by spaces; the iterator is freed. Caller frees. */
static char *join_declarations(rdx_declaration_iter_t *it) {
    buffer_t b = {0};
    buffer_add(&b, "");
    rdx_declaration_t *d;
    rdx_status_t st;
    while ((st = rdx_declaration_iter_next(it, &d)) == RDX_OK) {
        char *name = declaration_name(d);
        if (b.length) buffer_add(&b, " ");
        buffer_add(&b, name);
        rdx_string_free(name);
        OK(rdx_declaration_free(d));
    }
    EXPECT(st, RDX_DONE);
    OK(rdx_declaration_iter_free(it));
    return b.data;
}

/* The names a batch call (rdx_declaration_ancestor_names, ...) returns, separated by spaces;
 * the array is released. Caller frees. */
typedef rdx_status_t (*names_fn)(rdx_declaration_t *, char ***, size_t *);

static char *join_names(names_fn fn, rdx_declaration_t *decl) {
    buffer_t b = {0};
    buffer_add(&b, "");
    char **names = NULL;
    size_t count = 0;
    rdx_status_t st = fn(decl, &names, &count);
    if (st != RDX_OK) {
        fail_at(__LINE__, "a *_names call returned %s", rdx_status_name(st));
        return b.data;
    }
    CHECK((count == 0) == (names == NULL));
    for (size_t i = 0; i < count; i++) {
        if (b.length) buffer_add(&b, " ");
        buffer_add(&b, names[i]);
    }
    rdx_string_array_free(names, count);
    return b.data;
}

/* The same list through an iterator and through the batch call; they must agree. Returns the
 * joined names (caller frees). */
static char *list_both_ways(rdx_declaration_t *decl, rdx_status_t (*iter_fn)(rdx_declaration_t *, rdx_declaration_iter_t **),
                            names_fn batch_fn, const char *what) {
    rdx_declaration_iter_t *it;
    OK(iter_fn(decl, &it));
    char *iterated = join_declarations(it);
    char *batched = join_names(batch_fn, decl);
    if (strcmp(iterated, batched) != 0) fail_at(__LINE__, "%s: iterator \"%s\", batch \"%s\"", what, iterated, batched);
    free(batched);
    return iterated;
}

static char *ancestors_of(rdx_graph_t *graph, const char *name) {
    rdx_declaration_t *decl;
    if (rdx_graph_get_declaration(graph, name, RDX_NTS, &decl) != RDX_OK) {
        fail_at(__LINE__, "no declaration %s", name);
        return strdup("");
    }
    rdx_declaration_iter_t *it;
    OK(rdx_declaration_ancestors(decl, &it));
    char *joined = join_declarations(it);
    OK(rdx_declaration_free(decl));
    return joined;
}

static void print_location(const rdx_location_t *loc) {
    printf("%s:%u:%u-%u:%u", loc->path, loc->start_line, loc->start_column, loc->end_line, loc->end_column);
}

/* Print the name of the declaration a call stored in *target (or "-" when `status` says there
 * is none) and free it. It takes the address because the call's arguments are evaluated in
 * no particular order: the handle is read only after the call has returned. */
static void print_target(rdx_status_t status, rdx_declaration_t **target) {
    if (status == RDX_OK) {
        char *name = declaration_name(*target);
        printf("%s", name);
        rdx_string_free(name);
        OK(rdx_declaration_free(*target));
    } else {
        CHECK(status == RDX_ERR_NOT_FOUND);
        printf("-");
    }
}

static long resident_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (f == NULL) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static rdx_graph_t *fixture_graph(const char *dir) {
    rdx_graph_t *graph;
    OK(rdx_graph_new(&graph));
    const char *paths[] = {dir};
    size_t problems = 99;
    OK(rdx_graph_index_all(graph, paths, NULL, 1, 1, &problems));
    CHECK(problems == 0);
    OK(rdx_graph_resolve(graph));
    return graph;
}

/* ---- answers ----------------------------------------------------------------------------- */

/* Files the graph reads in the example project: 7 Ruby, 3 Python and 2 TypeScript files. */
#define FIXTURE_FILES 13

static const char *NAMES[] = {
    "Shop",           "Shop::Models::Product", "Shop::Models::Record", "Shop::Models::Order", "Shop::Pricing",
    "Shop::Comparable", "Shop::OutOfStock",    "Shop::Models::Item",   "Shop::Models::Product#label()",
    /* Other languages through the same calls: a Python class, a TypeScript function. */
    "receipts.printer.Printer", "formatMoney",
};

static void print_declaration(rdx_graph_t *graph, const char *name) {
    rdx_declaration_t *decl;
    OK(rdx_graph_get_declaration(graph, name, RDX_NTS, &decl));
    char *unqualified;
    const char *kind;
    uint64_t id;
    OK(rdx_declaration_unqualified_name(decl, &unqualified));
    OK(rdx_declaration_kind(decl, &kind));
    OK(rdx_declaration_id(decl, &id));
    rdx_declaration_t *owner = NULL;
    printf("DECL\t%s\t%s\t%s\t%llu\t", name, kind, unqualified, (unsigned long long)id);
    print_target(rdx_declaration_owner(decl, &owner), &owner);
    printf("\n");
    rdx_string_free(unqualified);

    rdx_declaration_iter_t *it;
    size_t count = 0;
    OK(rdx_declaration_ancestors(decl, &it));
    OK(rdx_declaration_iter_count(it, &count));
    char *joined = join_declarations(it);
    printf("ANCESTORS\t%s\t%s\n", name, joined);
    CHECK(count == 0 || strchr(joined, ' ') != NULL || count == 1);
    free(joined);
    OK(rdx_declaration_descendants(decl, &it));
    joined = join_declarations(it);
    printf("DESCENDANTS\t%s\t%s\n", name, joined);
    free(joined);
    OK(rdx_declaration_members(decl, &it));
    joined = join_declarations(it);
    printf("MEMBERS\t%s\t%s\n", name, joined);
    free(joined);
    /* The batch calls, printed for the comparison with Python and checked against the iterators. */
    joined = list_both_ways(decl, rdx_declaration_ancestors, rdx_declaration_ancestor_names, "ancestors");
    printf("NAMES\t%s\tancestors\t%s\n", name, joined);
    free(joined);
    joined = list_both_ways(decl, rdx_declaration_descendants, rdx_declaration_descendant_names, "descendants");
    printf("NAMES\t%s\tdescendants\t%s\n", name, joined);
    free(joined);
    joined = list_both_ways(decl, rdx_declaration_members, rdx_declaration_member_names, "members");
    printf("NAMES\t%s\tmembers\t%s\n", name, joined);
    free(joined);
    char *summary = NULL;
    OK(rdx_declaration_summary_json(decl, &summary));
    CHECK(summary != NULL && strstr(summary, "\"name\":") != NULL);
    printf("SUMMARY\t%s\t%s\n", name, summary);
    rdx_string_free(summary);

    rdx_declaration_t *singleton;
    rdx_status_t st = rdx_declaration_singleton_class(decl, &singleton);
    if (st == RDX_OK) {
        char *singleton_name = declaration_name(singleton);
        joined = list_both_ways(singleton, rdx_declaration_ancestors, rdx_declaration_ancestor_names, "singleton ancestors");
        printf("SINGLETON\t%s\t%s\t%s\n", name, singleton_name, joined);
        free(joined);
        rdx_string_free(singleton_name);
        OK(rdx_declaration_free(singleton));
    } else {
        EXPECT(st, RDX_ERR_NOT_FOUND);
        printf("SINGLETON\t%s\t-\t\n", name);
    }

    rdx_definition_iter_t *defs;
    OK(rdx_declaration_definitions(decl, &defs));
    rdx_definition_t *def;
    while ((st = rdx_definition_iter_next(defs, &def)) == RDX_OK) {
        const char *def_kind;
        char *def_name;
        rdx_location_t loc;
        char **comments;
        size_t n;
        OK(rdx_definition_kind(def, &def_kind));
        OK(rdx_definition_name(def, &def_name));
        OK(rdx_definition_location(def, &loc));
        OK(rdx_definition_comments(def, &comments, &n));
        printf("DEF\t%s\t%s\t%s\t", name, def_kind, def_name);
        print_location(&loc);
        printf("\t");
        for (size_t i = 0; i < n; i++) printf("%s%s", i ? "|" : "", comments[i]);
        printf("\t");
        rdx_declaration_t *back;
        print_target(rdx_definition_declaration(def, &back), &back);
        printf("\n");
        rdx_string_array_free(comments, n);
        rdx_location_free(&loc);
        CHECK(loc.path == NULL && loc.uri == NULL);
        rdx_string_free(def_name);
        OK(rdx_definition_free(def));
    }
    EXPECT(st, RDX_DONE);
    OK(rdx_definition_iter_free(defs));
    OK(rdx_declaration_free(decl));
}

static void print_references(rdx_graph_t *graph) {
    rdx_constant_reference_iter_t *crefs;
    rdx_constant_reference_t *cref;
    size_t count = 0, seen = 0;
    OK(rdx_graph_constant_references(graph, &crefs));
    OK(rdx_constant_reference_iter_count(crefs, &count));
    while (rdx_constant_reference_iter_next(crefs, &cref) == RDX_OK) {
        char *name;
        rdx_location_t loc;
        rdx_declaration_t *target;
        OK(rdx_constant_reference_name(cref, &name));
        OK(rdx_constant_reference_location(cref, &loc));
        printf("CREF\t%s\t", name);
        print_location(&loc);
        printf("\t");
        print_target(rdx_constant_reference_declaration(cref, &target), &target);
        printf("\n");
        rdx_location_free(&loc);
        rdx_string_free(name);
        OK(rdx_constant_reference_free(cref));
        seen++;
    }
    CHECK(seen == count);
    OK(rdx_constant_reference_iter_free(crefs));

    rdx_method_reference_iter_t *mrefs;
    rdx_method_reference_t *mref;
    OK(rdx_graph_method_references(graph, &mrefs));
    OK(rdx_method_reference_iter_count(mrefs, &count));
    seen = 0;
    while (rdx_method_reference_iter_next(mrefs, &mref) == RDX_OK) {
        char *name;
        rdx_location_t loc;
        rdx_declaration_t *target;
        OK(rdx_method_reference_name(mref, &name));
        OK(rdx_method_reference_location(mref, &loc));
        printf("MREF\t%s\t", name);
        print_location(&loc);
        printf("\t");
        print_target(rdx_method_reference_receiver(mref, &target), &target);
        printf("\t");
        print_target(rdx_method_reference_method(mref, &target), &target);
        printf("\n");
        rdx_location_free(&loc);
        rdx_string_free(name);
        OK(rdx_method_reference_free(mref));
        seen++;
    }
    CHECK(seen == count);
    OK(rdx_method_reference_iter_free(mrefs));
}

static void answers(const char *dir) {
    rdx_graph_t *graph = fixture_graph(dir);
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) print_declaration(graph, NAMES[i]);
    print_references(graph);

    /* Constant resolution with a lexical nesting as written. */
    const char *nesting[] = {"Shop", "Models::Order"};
    rdx_declaration_t *found;
    printf("RESOLVE\tOutOfStock\tShop,Models::Order\t");
    print_target(rdx_graph_resolve_constant(graph, "OutOfStock", RDX_NTS, nesting, NULL, 2, &found), &found);
    printf("\nRESOLVE\tRecord\tShop,Models::Order\t");
    print_target(rdx_graph_resolve_constant(graph, "Record", 6, nesting, (const size_t[]){4, 13}, 2, &found), &found);
    printf("\nRESOLVE\tModels::Record\tShop\t");
    print_target(rdx_graph_resolve_constant(graph, "Models::Record", RDX_NTS, nesting, NULL, 1, &found), &found);
    printf("\nRESOLVE\tRecord\t\t");
    print_target(rdx_graph_resolve_constant(graph, "Record", RDX_NTS, NULL, NULL, 0, &found), &found);
    printf("\n");

    /* Search, every mode. */
    static const char *modes[] = {"fuzzy", "prefix", "exact", "ranked"};
    static const char *queries[] = {"Prod", "Shop::Models::Product", "label"};
    for (int mode = 0; mode < 4; mode++) {
        for (int q = 0; q < 3; q++) {
            rdx_declaration_iter_t *it;
            OK(rdx_graph_search(graph, queries[q], RDX_NTS, NULL, (rdx_match_mode_t)mode, 10, &it));
            char *joined = join_declarations(it);
            printf("SEARCH\t%s\t%s\t-\t%s\n", queries[q], modes[mode], joined);
            free(joined);
        }
    }
    rdx_declaration_iter_t *it;
    OK(rdx_graph_search(graph, "label", RDX_NTS, "Method", RDX_MATCH_FUZZY, 0, &it));
    char *joined = join_declarations(it);
    printf("SEARCH\tlabel\tfuzzy\tMethod\t%s\n", joined);
    /* The batch call gives the same names in the same order. */
    char **found_names = NULL;
    size_t found_count = 0;
    OK(rdx_graph_search_names(graph, "label", RDX_NTS, "Method", RDX_MATCH_FUZZY, 0, &found_names, &found_count));
    buffer_t batch = {0};
    buffer_add(&batch, "");
    for (size_t i = 0; i < found_count; i++) {
        if (batch.length) buffer_add(&batch, " ");
        buffer_add(&batch, found_names[i]);
    }
    rdx_string_array_free(found_names, found_count);
    if (strcmp(batch.data, joined) != 0) fail_at(__LINE__, "search: iterator \"%s\", batch \"%s\"", joined, batch.data);
    CHECK(found_count > 0);
    free(batch.data);
    EXPECT(rdx_graph_search_names(graph, "label", RDX_NTS, NULL, RDX_MATCH_FUZZY, 0, NULL, &found_count), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_search_names(graph, "", RDX_NTS, NULL, RDX_MATCH_FUZZY, 0, &found_names, &found_count), RDX_ERR_INVALID_ARGUMENT);
    free(joined);

    /* grep: one JSON document per search; bad options are argument errors. */
    char *grep = NULL;
    OK(rdx_graph_grep_json(graph, "def ", RDX_NTS, NULL, &grep));
    printf("GREP\tdef \t-\t%s\n", grep);
    rdx_string_free(grep);
    OK(rdx_graph_grep_json(graph, "price|label", RDX_NTS, "{\"regex\": true, \"glob\": \"*.rb\", \"context\": 1, \"limit\": 3}", &grep));
    printf("GREP\tprice|label\t{\"regex\": true, \"glob\": \"*.rb\", \"context\": 1, \"limit\": 3}\t%s\n", grep);
    rdx_string_free(grep);
    EXPECT(rdx_graph_grep_json(graph, "(", RDX_NTS, "{\"regex\": true}", &grep), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_grep_json(graph, "x", RDX_NTS, "{\"colour\": 1}", &grep), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_grep_json(graph, "x", RDX_NTS, "[1]", &grep), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_grep_json(graph, "x", RDX_NTS, NULL, NULL), RDX_ERR_INVALID_ARGUMENT);

    /* Every declaration, counted; the diagnostics of a file with problems. */
    size_t count = 0;
    OK(rdx_graph_declarations(graph, &it));
    OK(rdx_declaration_iter_count(it, &count));
    OK(rdx_declaration_iter_free(it));
    printf("COUNT\tdeclarations\t%zu\n", count);

    OK(rdx_graph_index_source(graph, "file:///broken.rb", RDX_NTS, "class Broken\n  def x(\nend\nFoo::Missing\n", RDX_NTS,
                              &count));
    printf("COUNT\tsyntax_errors\t%zu\n", count);
    rdx_diagnostic_iter_t *diags;
    rdx_diagnostic_t *diag;
    OK(rdx_graph_diagnostics(graph, &diags));
    while (rdx_diagnostic_iter_next(diags, &diag) == RDX_OK) {
        char *code, *message, *path;
        const char *severity;
        rdx_location_t loc;
        OK(rdx_diagnostic_code(diag, &code));
        OK(rdx_diagnostic_message(diag, &message));
        OK(rdx_diagnostic_severity(diag, &severity));
        OK(rdx_diagnostic_path(diag, &path));
        printf("DIAG\t%s\t%s\t%s\t", code, severity, path);
        rdx_status_t st = rdx_diagnostic_location(diag, &loc);
        if (st == RDX_OK) {
            print_location(&loc);
            rdx_location_free(&loc);
        } else {
            EXPECT(st, RDX_ERR_NOT_FOUND);
            printf("-");
        }
        printf("\t%s\n", message);
        rdx_string_free(code);
        rdx_string_free(message);
        rdx_string_free(path);
        OK(rdx_diagnostic_free(diag));
    }
    OK(rdx_diagnostic_iter_free(diags));

    /* Handles are snapshots: a declaration fetched before an edit still describes the graph
     * it came from; fetching again sees the edit. */
    uint64_t before, after;
    rdx_declaration_t *old_decl, *new_decl;
    OK(rdx_graph_revision(graph, &before));
    OK(rdx_graph_get_declaration(graph, "Broken", RDX_NTS, &old_decl));
    OK(rdx_graph_index_source(graph, "file:///broken.rb", RDX_NTS, "module Broken; end\n", RDX_NTS, NULL));
    OK(rdx_graph_revision(graph, &after));
    CHECK(after > before);
    const char *old_kind, *new_kind;
    OK(rdx_declaration_kind(old_decl, &old_kind));
    OK(rdx_graph_get_declaration(graph, "Broken", RDX_NTS, &new_decl));
    OK(rdx_declaration_kind(new_decl, &new_kind));
    printf("SNAPSHOT\t%s\t%s\n", old_kind, new_kind);
    OK(rdx_declaration_free(old_decl));
    OK(rdx_declaration_free(new_decl));
    OK(rdx_graph_delete_document(graph, "file:///broken.rb", RDX_NTS));
    EXPECT(rdx_graph_get_declaration(graph, "Broken", RDX_NTS, &new_decl), RDX_ERR_NOT_FOUND);

    OK(rdx_graph_free(graph));
}

/* ---- errors ------------------------------------------------------------------------------ */

static void *other_thread_error(void *arg) {
    (void)arg;
    /* A thread that has not failed yet sees no message, whatever other threads did. */
    CHECK(strcmp(rdx_last_error_message(), "") == 0);
    EXPECT(rdx_graph_new(NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("out is NULL");
    return NULL;
}

static void errors(const char *dir) {
    rdx_graph_t *graph = fixture_graph(dir);
    rdx_declaration_t *decl;
    rdx_declaration_iter_t *it;
    char *text;
    uint64_t revision;

    /* Status names and the ABI version. */
    CHECK(rdx_abi_version() == RDX_ABI_VERSION);
    CHECK(strcmp(rdx_status_name(RDX_ERR_INVALID_HANDLE), "RDX_ERR_INVALID_HANDLE") == 0);
    CHECK(strcmp(rdx_status_name(12345), "RDX_UNKNOWN_STATUS") == 0);

    /* NULL out pointers and NULL handles. */
    EXPECT(rdx_graph_new(NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("out is NULL");
    EXPECT(rdx_graph_resolve(NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("graph is NULL");
    EXPECT(rdx_graph_get_declaration(graph, "Shop", RDX_NTS, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_get_declaration(graph, NULL, 4, &decl), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("name is NULL");
    EXPECT(rdx_declaration_name(NULL, &text), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_declaration_iter_next(NULL, &decl), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_index_all(graph, NULL, NULL, 1, 1, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_resolve_constant(graph, "Record", RDX_NTS, NULL, NULL, 2, &decl), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_definition_comments(NULL, NULL, NULL), RDX_ERR_INVALID_ARGUMENT);
    /* Freeing NULL is a no-op, as with free(). */
    OK(rdx_graph_free(NULL));
    OK(rdx_declaration_free(NULL));
    OK(rdx_definition_free(NULL));
    OK(rdx_constant_reference_free(NULL));
    OK(rdx_method_reference_free(NULL));
    OK(rdx_diagnostic_free(NULL));
    OK(rdx_declaration_iter_free(NULL));
    OK(rdx_definition_iter_free(NULL));
    OK(rdx_constant_reference_iter_free(NULL));
    OK(rdx_method_reference_iter_free(NULL));
    OK(rdx_diagnostic_iter_free(NULL));
    rdx_string_free(NULL);
    rdx_string_array_free(NULL, 0);
    rdx_location_free(NULL);

    /* Invented handles, and handles of the wrong type. */
    rdx_graph_t *invented = (rdx_graph_t *)(uintptr_t)0xdeadbeef;
    EXPECT(rdx_graph_resolve(invented), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("0xdeadbeef");
    EXPECT(rdx_graph_free(invented), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_declaration_name((rdx_declaration_t *)(uintptr_t)1, &text), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_declaration_iter_next((rdx_declaration_iter_t *)(uintptr_t)UINT64_MAX, &decl), RDX_ERR_INVALID_HANDLE);
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product", RDX_NTS, &decl));
    EXPECT(rdx_graph_resolve((rdx_graph_t *)decl), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("rdx_declaration_t, not a rdx_graph_t");
    EXPECT(rdx_definition_free((rdx_definition_t *)decl), RDX_ERR_INVALID_HANDLE);
    OK(rdx_declaration_name(decl, &text)); /* the wrong-type free left it alone */
    CHECK(strcmp(text, "Shop::Models::Product") == 0);
    rdx_string_free(text);

    /* Freed handles. */
    OK(rdx_declaration_free(decl));
    EXPECT(rdx_declaration_name(decl, &text), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("not a live rdx_declaration_t");
    EXPECT(rdx_declaration_free(decl), RDX_ERR_INVALID_HANDLE);
    rdx_graph_t *other;
    OK(rdx_graph_new(&other));
    OK(rdx_graph_free(other));
    EXPECT(rdx_graph_revision(other, &revision), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_graph_free(other), RDX_ERR_INVALID_HANDLE);

    /* Handles that outlive their graph. */
    OK(rdx_graph_new(&other));
    OK(rdx_graph_index_source(other, "file:///a.rb", RDX_NTS, "class A; end\n", RDX_NTS, NULL));
    OK(rdx_graph_get_declaration(other, "A", RDX_NTS, &decl));
    OK(rdx_declaration_ancestors(decl, &it));
    rdx_definition_iter_t *defs;
    OK(rdx_declaration_definitions(decl, &defs));
    OK(rdx_graph_free(other));
    EXPECT(rdx_declaration_name(decl, &text), RDX_ERR_INVALID_HANDLE);
    char **names;
    size_t names_count;
    EXPECT(rdx_declaration_ancestor_names(decl, &names, &names_count), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("not a live rdx_declaration_t");
    EXPECT(rdx_declaration_iter_next(it, &decl), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_definition_iter_free(defs), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_declaration_iter_free(it), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_declaration_free(decl), RDX_ERR_INVALID_HANDLE);

    /* Batch names: NULL out parameters, NULL, invented, wrongly typed and freed handles. On
     * failure the out parameters are left alone. */
    char *sentinel_text = "untouched";
    char **sentinel = &sentinel_text;
    names = sentinel;
    names_count = 77;
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product", RDX_NTS, &decl));
    EXPECT(rdx_declaration_ancestor_names(decl, NULL, &names_count), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("out_names is NULL");
    EXPECT(rdx_declaration_descendant_names(decl, &names, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("out_count is NULL");
    EXPECT(rdx_declaration_member_names(decl, NULL, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_declaration_member_names(NULL, &names, &names_count), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("declaration is NULL");
    EXPECT(rdx_declaration_ancestor_names((rdx_declaration_t *)(uintptr_t)0xdeadbeef, &names, &names_count), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("0xdeadbeef");
    EXPECT(rdx_declaration_descendant_names((rdx_declaration_t *)graph, &names, &names_count), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("rdx_graph_t, not a rdx_declaration_t");
    CHECK(names == sentinel && names_count == 77);
    OK(rdx_declaration_ancestor_names(decl, &names, &names_count));
    CHECK(names_count == 8 && strcmp(names[0], "Shop::Models::Product") == 0 && strcmp(names[7], "BasicObject") == 0);
    rdx_string_array_free(names, names_count);
    OK(rdx_declaration_free(decl));
    names = sentinel;
    names_count = 77;
    EXPECT(rdx_declaration_member_names(decl, &names, &names_count), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("not a live rdx_declaration_t");
    CHECK(names == sentinel && names_count == 77);
    /* An empty answer is a NULL array and a count of 0. */
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product#label()", RDX_NTS, &decl));
    OK(rdx_declaration_member_names(decl, &names, &names_count));
    CHECK(names == NULL && names_count == 0);
    rdx_string_array_free(names, names_count);
    OK(rdx_declaration_descendant_names(decl, &names, &names_count));
    CHECK(names == NULL && names_count == 0);
    OK(rdx_declaration_free(decl));

    /* A comment with a NUL byte inside still comes back as one string per line (cut at the NUL,
     * as C reads it), the lines after it intact. */
    OK(rdx_graph_index_source(graph, "file:///nul.rb", RDX_NTS, "# one\n# be\0fore\n# three\nclass NulComment; end\n", 46, NULL));
    OK(rdx_graph_get_declaration(graph, "NulComment", RDX_NTS, &decl));
    rdx_definition_iter_t *nul_defs;
    rdx_definition_t *nul_def;
    OK(rdx_declaration_definitions(decl, &nul_defs));
    OK(rdx_definition_iter_next(nul_defs, &nul_def));
    OK(rdx_definition_comments(nul_def, &names, &names_count));
    CHECK(names_count == 3 && strcmp(names[0], "# one") == 0 && strcmp(names[1], "# be") == 0 && strcmp(names[2], "# three") == 0);
    rdx_string_array_free(names, names_count);
    OK(rdx_definition_free(nul_def));
    OK(rdx_definition_iter_free(nul_defs));
    OK(rdx_declaration_free(decl));
    OK(rdx_graph_delete_document(graph, "file:///nul.rb", RDX_NTS));

    /* Names: embedded NUL, invalid UTF-8, unknown. */
    EXPECT(rdx_graph_get_declaration(graph, "Shop\0::Models", 13, &decl), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("NUL byte at offset 4");
    EXPECT(rdx_graph_get_declaration(graph, "Shop\xff", RDX_NTS, &decl), RDX_ERR_ENCODING);
    EXPECT_MESSAGE("not valid UTF-8");
    EXPECT(rdx_graph_get_declaration(graph, "Shop\xc3", 5, &decl), RDX_ERR_ENCODING);
    EXPECT(rdx_graph_get_declaration(graph, "Shop::Nothing", RDX_NTS, &decl), RDX_ERR_NOT_FOUND);
    EXPECT_MESSAGE("'Shop::Nothing'");
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Productive", 21, &decl)); /* length wins over NUL */
    OK(rdx_declaration_free(decl));
    EXPECT(rdx_graph_resolve_constant(graph, "Missing", RDX_NTS, NULL, NULL, 0, &decl), RDX_ERR_NOT_FOUND);
    EXPECT(rdx_graph_resolve_constant(graph, "lowercase", RDX_NTS, NULL, NULL, 0, &decl), RDX_ERR_INVALID_ARGUMENT);
    const char *bad_nesting[] = {"Shop", "Mod\xfe"};
    EXPECT(rdx_graph_resolve_constant(graph, "Record", RDX_NTS, bad_nesting, NULL, 2, &decl), RDX_ERR_ENCODING);
    EXPECT_MESSAGE("nesting[1]");

    /* Sources and URIs. */
    EXPECT(rdx_graph_index_source(graph, "file:///bad.rb", RDX_NTS, "x = \"\xff\"\n", RDX_NTS, NULL), RDX_ERR_ENCODING);
    EXPECT(rdx_graph_index_source(graph, "file:///bad\xff.rb", RDX_NTS, "x = 1\n", RDX_NTS, NULL), RDX_ERR_ENCODING);
    EXPECT(rdx_graph_index_source(graph, "file:///a\0b.rb", 14, "x = 1\n", RDX_NTS, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_index_source(graph, "", RDX_NTS, "x = 1\n", RDX_NTS, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_delete_document(graph, "file:///never.rb", RDX_NTS), RDX_ERR_NOT_FOUND);

    /* Index roots. */
    const char *missing[] = {"/nonexistent/rdx/root"};
    EXPECT(rdx_graph_index_all(graph, missing, NULL, 1, 1, NULL), RDX_ERR_IO);
    EXPECT_MESSAGE("/nonexistent/rdx/root");
    const char *with_nul[] = {"/tmp\0/x"};
    EXPECT(rdx_graph_index_all(graph, with_nul, (const size_t[]){7}, 1, 1, NULL), RDX_ERR_INVALID_ARGUMENT);

    /* Search arguments. */
    EXPECT(rdx_graph_search(graph, "Prod", RDX_NTS, NULL, (rdx_match_mode_t)7, 0, &it), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("match mode 7");
    EXPECT(rdx_graph_search(graph, "Prod", RDX_NTS, "Klass", RDX_MATCH_FUZZY, 0, &it), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("Klass");
    EXPECT(rdx_graph_search(graph, "", RDX_NTS, NULL, RDX_MATCH_FUZZY, 0, &it), RDX_ERR_INVALID_ARGUMENT);

    /* Absent answers are RDX_ERR_NOT_FOUND. */
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product#label()", RDX_NTS, &decl));
    rdx_declaration_t *none;
    EXPECT(rdx_declaration_singleton_class(decl, &none), RDX_ERR_NOT_FOUND);
    EXPECT_MESSAGE("no singleton class");
    EXPECT(rdx_declaration_find_member(decl, "nothing()", RDX_NTS, &none), RDX_ERR_NOT_FOUND);
    OK(rdx_declaration_free(decl));
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product", RDX_NTS, &decl));
    OK(rdx_declaration_find_member(decl, "id()", RDX_NTS, &none));
    text = declaration_name(none);
    CHECK(strcmp(text, "Shop::Models::Record#id()") == 0);
    rdx_string_free(text);
    OK(rdx_declaration_free(none));

    /* Iterators end with RDX_DONE and keep saying so. */
    OK(rdx_declaration_ancestors(decl, &it));
    size_t count = 0, produced = 0;
    OK(rdx_declaration_iter_count(it, &count));
    rdx_declaration_t *item;
    while (rdx_declaration_iter_next(it, &item) == RDX_OK) {
        produced++;
        OK(rdx_declaration_free(item));
    }
    CHECK(produced == count && count == 8);
    EXPECT(rdx_declaration_iter_next(it, &item), RDX_DONE);
    EXPECT(rdx_declaration_iter_next(it, NULL), RDX_ERR_INVALID_ARGUMENT);
    OK(rdx_declaration_iter_free(it));
    EXPECT(rdx_declaration_iter_next(it, &item), RDX_ERR_INVALID_HANDLE);
    OK(rdx_declaration_free(decl));

    /* An unresolved constant reference has no declaration. */
    OK(rdx_graph_index_source(graph, "file:///dangling.rb", RDX_NTS, "Nowhere::ToBeFound\n", RDX_NTS, NULL));
    rdx_constant_reference_iter_t *crefs;
    rdx_constant_reference_t *cref;
    int unresolved = 0;
    OK(rdx_graph_constant_references(graph, &crefs));
    while (rdx_constant_reference_iter_next(crefs, &cref) == RDX_OK) {
        if (rdx_constant_reference_declaration(cref, &decl) == RDX_ERR_NOT_FOUND) {
            unresolved++;
            EXPECT_MESSAGE("unresolved");
        } else {
            OK(rdx_declaration_free(decl));
        }
        OK(rdx_constant_reference_free(cref));
    }
    OK(rdx_constant_reference_iter_free(crefs));
    CHECK(unresolved >= 1);
    OK(rdx_graph_delete_document(graph, "file:///dangling.rb", RDX_NTS));

    /* The last error message is per thread, and successful calls leave it alone. */
    EXPECT(rdx_graph_resolve(invented), RDX_ERR_INVALID_HANDLE);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, other_thread_error, NULL) == 0);
    pthread_join(thread, NULL);
    EXPECT_MESSAGE("0xdeadbeef");
    OK(rdx_graph_revision(graph, &revision));
    EXPECT_MESSAGE("0xdeadbeef");

    OK(rdx_graph_free(graph));
    printf("ERRORS\tdone\n");
}

/* ---- persist ----------------------------------------------------------------------------- */

/* Copying and removing directory trees with nftw, whose callback has no user argument. */
static const char *copy_from;
static const char *copy_to;

static int copy_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)ftw;
    char target[4096];
    snprintf(target, sizeof target, "%s%s", copy_to, path + strlen(copy_from));
    if (strstr(path + strlen(copy_from), "/.rdx") != NULL) return 0; /* a cache left in the fixture */
    if (type == FTW_D) return mkdir(target, 0755) == 0 || path[strlen(copy_from)] == '\0' ? 0 : -1;
    if (type != FTW_F) return 0;
    FILE *in = fopen(path, "rb"), *out = fopen(target, "wb");
    char chunk[8192];
    size_t n;
    int ok = in != NULL && out != NULL;
    while (ok && (n = fread(chunk, 1, sizeof chunk, in)) > 0) ok = fwrite(chunk, 1, n, out) == n;
    if (in) fclose(in);
    if (out && fclose(out) != 0) ok = 0;
    (void)sb;
    return ok ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb, (void)type, (void)ftw;
    return remove(path);
}

static void write_file(const char *dir, const char *relative, const char *mode, const char *text) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    FILE *f = fopen(path, mode);
    CHECK(f != NULL);
    if (f == NULL) return;
    fputs(text, f);
    fclose(f);
}

/* Everything the tests compare between opens: the batch names (checked against the iterators)
 * of the declarations the answers section describes, or "-" for those that are absent, and
 * the number of declarations. Caller frees. */
static char *describe_graph(rdx_graph_t *graph) {
    buffer_t b = {0};
    buffer_add(&b, "");
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
        rdx_declaration_t *decl;
        buffer_add(&b, NAMES[i]);
        rdx_status_t st = rdx_graph_get_declaration(graph, NAMES[i], RDX_NTS, &decl);
        if (st != RDX_OK) {
            EXPECT(st, RDX_ERR_NOT_FOUND);
            buffer_add(&b, " -\n");
            continue;
        }
        char *lists[3] = {
            list_both_ways(decl, rdx_declaration_ancestors, rdx_declaration_ancestor_names, "ancestors"),
            list_both_ways(decl, rdx_declaration_descendants, rdx_declaration_descendant_names, "descendants"),
            list_both_ways(decl, rdx_declaration_members, rdx_declaration_member_names, "members"),
        };
        for (int k = 0; k < 3; k++) {
            buffer_add(&b, k ? " | " : ": ");
            buffer_add(&b, lists[k]);
            free(lists[k]);
        }
        buffer_add(&b, "\n");
        OK(rdx_declaration_free(decl));
    }
    rdx_declaration_iter_t *it;
    size_t count = 0;
    char line[64];
    OK(rdx_graph_declarations(graph, &it));
    OK(rdx_declaration_iter_count(it, &count));
    OK(rdx_declaration_iter_free(it));
    snprintf(line, sizeof line, "declarations: %zu\n", count);
    buffer_add(&b, line);
    return b.data;
}

/* Open `root` (with `cache_dir`, NULL for the default), print and return its open statistics. */
static rdx_graph_t *open_project(const char *label, const char *root, const char *cache_dir, int32_t jobs,
                                 rdx_open_stats_t *stats) {
    rdx_graph_t *graph = NULL;
    memset(stats, 0xff, sizeof *stats);
    OK(rdx_graph_open(root, RDX_NTS, cache_dir, cache_dir ? strlen(cache_dir) : 0, jobs, &graph));
    OK(rdx_graph_open_stats(graph, stats));
    printf("OPEN\t%s\t%u\t%u\t%u\t%d\t%d\n", label, stats->reused, stats->parsed, stats->deleted, stats->had_snapshot,
           stats->resolved);
    return graph;
}

static int exists(const char *dir, const char *relative) {
    char path[4096];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, relative);
    return stat(path, &sb) == 0;
}

static void persist(const char *fixture) {
    char project[] = "/tmp/rdx-capi-project-XXXXXX";
    char cache_parent[] = "/tmp/rdx-capi-cache-XXXXXX";
    if (mkdtemp(project) == NULL || mkdtemp(cache_parent) == NULL) {
        fail_at(__LINE__, "mkdtemp failed");
        return;
    }
    copy_from = fixture;
    copy_to = project;
    CHECK(nftw(fixture, copy_entry, 16, FTW_PHYS) == 0);
    rdx_open_stats_t stats;
    rdx_graph_t *graph;

    /* The reference: the same files indexed with rdx_graph_index_all. */
    rdx_graph_t *indexed = fixture_graph(project);
    char *expected = describe_graph(indexed);
    OK(rdx_graph_free(indexed));
    CHECK(strstr(expected, "Shop::Models::Product: Shop::Models::Product Shop::Comparable") != NULL);

    /* Cold: no snapshot, every file parsed, not resolved; the answers are those of index_all.
     * Asking resolves the graph, which saves the resolved graph for the next open. */
    graph = open_project("cold", project, NULL, 1, &stats);
    CHECK(stats.reused == 0 && stats.parsed == FIXTURE_FILES && stats.deleted == 0 && !stats.had_snapshot && !stats.resolved);
    CHECK(exists(project, ".rdx"));
    char *cold = describe_graph(graph);
    if (strcmp(cold, expected) != 0) fail_at(__LINE__, "cold open answers:\n%s\nindex_all answers:\n%s", cold, expected);
    OK(rdx_graph_free(graph));

    /* Warm: every file reused, started resolved, the same answers. jobs 0 (one per CPU) is
     * accepted; nothing needs parsing, so nothing forks. */
    graph = open_project("warm", project, NULL, 0, &stats);
    CHECK(stats.reused == FIXTURE_FILES && stats.parsed == 0 && stats.deleted == 0 && stats.had_snapshot == 1 && stats.resolved == 1);
    char *warm = describe_graph(graph);
    if (strcmp(warm, cold) != 0) fail_at(__LINE__, "warm open answers:\n%s\ncold open answers:\n%s", warm, cold);
    OK(rdx_graph_save(graph)); /* nothing changed: rewriting is harmless */
    OK(rdx_graph_free(graph));
    graph = open_project("saved", project, NULL, 1, &stats);
    CHECK(stats.reused == FIXTURE_FILES && stats.parsed == 0 && stats.resolved == 1);
    OK(rdx_graph_free(graph));

    /* A changed file is parsed again, the others are reused, and the change is seen. */
    write_file(project, "lib/shop/models/product.rb", "a",
               "\nmodule Shop\n  module Models\n    class Product\n      def discounted; end\n    end\n  end\nend\n");
    graph = open_project("changed", project, NULL, 1, &stats);
    CHECK(stats.reused == FIXTURE_FILES - 1 && stats.parsed == 1 && stats.deleted == 0 && stats.had_snapshot == 1 && stats.resolved == 0);
    rdx_declaration_t *decl;
    OK(rdx_graph_get_declaration(graph, "Shop::Models::Product#discounted()", RDX_NTS, &decl));
    OK(rdx_declaration_free(decl));
    char *changed = describe_graph(graph);
    CHECK(strcmp(changed, cold) != 0 && strstr(changed, "Shop::Models::Product#discounted()") != NULL);
    OK(rdx_graph_free(graph));
    graph = open_project("unchanged", project, NULL, 1, &stats);
    CHECK(stats.reused == FIXTURE_FILES && stats.parsed == 0 && stats.resolved == 1);
    char *again = describe_graph(graph);
    CHECK(strcmp(again, changed) == 0);
    OK(rdx_graph_free(graph));

    /* A deleted file is dropped. */
    char path[4096];
    snprintf(path, sizeof path, "%s/lib/shop/models/order.rb", project);
    CHECK(remove(path) == 0);
    graph = open_project("deleted", project, NULL, 1, &stats);
    CHECK(stats.reused == FIXTURE_FILES - 1 && stats.parsed == 0 && stats.deleted == 1 && stats.resolved == 0);
    EXPECT(rdx_graph_get_declaration(graph, "Shop::Models::Order", RDX_NTS, &decl), RDX_ERR_NOT_FOUND);
    OK(rdx_graph_free(graph));

    /* A cache directory elsewhere (created when missing); the project's .rdx/ is not used. */
    char cache[4096];
    snprintf(cache, sizeof cache, "%s/nested/cache", cache_parent);
    graph = open_project("elsewhere-cold", project, cache, 1, &stats);
    CHECK(stats.reused == 0 && stats.parsed == FIXTURE_FILES - 1 && !stats.had_snapshot && !stats.resolved);
    CHECK(exists(cache_parent, "nested/cache"));
    OK(rdx_graph_resolve(graph));
    OK(rdx_graph_free(graph));
    graph = open_project("elsewhere-warm", project, cache, 1, &stats);
    CHECK(stats.reused == FIXTURE_FILES - 1 && stats.parsed == 0 && stats.had_snapshot == 1 && stats.resolved == 1);
    OK(rdx_graph_free(graph));

    /* A cache directory that cannot be written is a warning, as in Python, not an error. */
    graph = open_project("unwritable", project, "/dev/null/rdx-cache", 1, &stats);
    CHECK(stats.reused == 0 && stats.parsed == FIXTURE_FILES - 1);
    rdx_diagnostic_iter_t *diags;
    rdx_diagnostic_t *diag;
    int unwritable = 0;
    OK(rdx_graph_diagnostics(graph, &diags));
    while (rdx_diagnostic_iter_next(diags, &diag) == RDX_OK) {
        char *code;
        OK(rdx_diagnostic_code(diag, &code));
        unwritable += strcmp(code, "snapshot-unwritable") == 0;
        rdx_string_free(code);
        OK(rdx_diagnostic_free(diag));
    }
    OK(rdx_diagnostic_iter_free(diags));
    CHECK(unwritable >= 1);
    OK(rdx_graph_save(graph));
    OK(rdx_graph_free(graph));

    /* Errors; on failure *out is left alone. */
    rdx_graph_t *const sentinel = (rdx_graph_t *)(uintptr_t)0x5e5e;
    graph = sentinel;
    EXPECT(rdx_graph_open("/nonexistent/rdx/root", RDX_NTS, NULL, 0, 1, &graph), RDX_ERR_IO);
    EXPECT_MESSAGE("/nonexistent/rdx/root");
    EXPECT(rdx_graph_open("", RDX_NTS, NULL, 0, 1, &graph), RDX_ERR_IO);
    EXPECT(rdx_graph_open(project, RDX_NTS, NULL, 0, -1, &graph), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("jobs is -1");
    EXPECT(rdx_graph_open(NULL, 0, NULL, 0, 1, &graph), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("root is NULL");
    EXPECT(rdx_graph_open(project, RDX_NTS, NULL, 0, 1, NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("out is NULL");
    EXPECT(rdx_graph_open(project, RDX_NTS, "", RDX_NTS, 1, &graph), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("cache_dir is empty");
    EXPECT(rdx_graph_open("/tmp\0/x", 7, NULL, 0, 1, &graph), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("NUL byte");
    EXPECT(rdx_graph_open(project, RDX_NTS, "/tmp\0/x", 7, 1, &graph), RDX_ERR_INVALID_ARGUMENT);
    CHECK(graph == sentinel);

    rdx_graph_t *plain;
    OK(rdx_graph_new(&plain));
    EXPECT(rdx_graph_save(plain), RDX_ERR_INVALID_ARGUMENT);
    EXPECT_MESSAGE("only a graph made by rdx_graph_open can be saved");
    memset(&stats, 0xab, sizeof stats);
    EXPECT(rdx_graph_open_stats(plain, &stats), RDX_ERR_NOT_FOUND);
    EXPECT_MESSAGE("no open statistics");
    CHECK(stats.reused == 0xabababab);
    OK(rdx_graph_get_declaration(plain, "Object", RDX_NTS, &decl));
    EXPECT(rdx_graph_save((rdx_graph_t *)decl), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_graph_open_stats((rdx_graph_t *)decl, &stats), RDX_ERR_INVALID_HANDLE);
    OK(rdx_declaration_free(decl));
    OK(rdx_graph_free(plain));
    EXPECT(rdx_graph_save(plain), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_graph_save(NULL), RDX_ERR_INVALID_ARGUMENT);
    EXPECT(rdx_graph_open_stats(NULL, &stats), RDX_ERR_INVALID_ARGUMENT);
    graph = open_project("freed", project, NULL, 1, &stats);
    EXPECT(rdx_graph_open_stats(graph, NULL), RDX_ERR_INVALID_ARGUMENT);
    OK(rdx_graph_free(graph));
    EXPECT(rdx_graph_save(graph), RDX_ERR_INVALID_HANDLE);
    EXPECT(rdx_graph_open_stats(graph, &stats), RDX_ERR_INVALID_HANDLE);
    EXPECT_MESSAGE("not a live rdx_graph_t");

    free(expected);
    free(cold);
    free(warm);
    free(changed);
    free(again);
    CHECK(nftw(project, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
    CHECK(nftw(cache_parent, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
    printf("PERSIST\tdone\n");
}

/* ---- threads ----------------------------------------------------------------------------- */

typedef struct {
    rdx_graph_t *graph;
    const char *expected; /* ancestors of Shop::Models::Product */
    int iterations;
    int writer;
} worker_t;

static void *reader(void *arg) {
    worker_t *w = arg;
    for (int i = 0; i < w->iterations; i++) {
        char *got = ancestors_of(w->graph, "Shop::Models::Product");
        if (strcmp(got, w->expected) != 0) fail_at(__LINE__, "thread saw ancestors \"%s\"", got);
        free(got);
        rdx_declaration_t *decl;
        OK(rdx_graph_get_declaration(w->graph, "Shop::Models::Product", RDX_NTS, &decl));
        got = join_names(rdx_declaration_ancestor_names, decl);
        if (strcmp(got, w->expected) != 0) fail_at(__LINE__, "thread saw ancestor names \"%s\"", got);
        free(got);
        OK(rdx_declaration_free(decl));
        OK(rdx_graph_get_declaration(w->graph, "Shop::Models::Order", RDX_NTS, &decl));
        rdx_declaration_iter_t *it;
        OK(rdx_declaration_members(decl, &it));
        size_t count = 0;
        OK(rdx_declaration_iter_count(it, &count));
        CHECK(count > 3);
        OK(rdx_declaration_iter_free(it));
        OK(rdx_declaration_free(decl));
        /* Each thread's own error message, undisturbed by the others. */
        char name[64];
        snprintf(name, sizeof name, "Missing%lu_%d", (unsigned long)pthread_self() % 100000, i);
        EXPECT(rdx_graph_get_declaration(w->graph, name, RDX_NTS, &decl), RDX_ERR_NOT_FOUND);
        EXPECT_MESSAGE(name);
    }
    return NULL;
}

static void *writer(void *arg) {
    worker_t *w = arg;
    for (int i = 0; i < w->iterations; i++) {
        char source[128];
        snprintf(source, sizeof source, "module Scratch%d\n  class Thing < Shop::Models::Record; end\nend\n", i);
        OK(rdx_graph_index_source(w->graph, "file:///scratch.rb", RDX_NTS, source, RDX_NTS, NULL));
        char name[64];
        snprintf(name, sizeof name, "Scratch%d::Thing", i);
        char *got = ancestors_of(w->graph, name);
        CHECK(strstr(got, "Shop::Models::Record Object") != NULL);
        free(got);
    }
    OK(rdx_graph_delete_document(w->graph, "file:///scratch.rb", RDX_NTS));
    return NULL;
}

static void run_workers(rdx_graph_t *graph, const char *expected, int writers) {
    pthread_t threads[4];
    worker_t work[4];
    for (int i = 0; i < 4; i++) {
        work[i] = (worker_t){graph, expected, i < writers ? 20 : 150, i < writers};
        CHECK(pthread_create(&threads[i], NULL, work[i].writer ? writer : reader, &work[i]) == 0);
    }
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
}

static void threads(const char *dir) {
    rdx_graph_t *graph = fixture_graph(dir);
    char *expected = ancestors_of(graph, "Shop::Models::Product");
    run_workers(graph, expected, 0); /* four readers */
    run_workers(graph, expected, 1); /* three readers and a writer */
    char *after = ancestors_of(graph, "Shop::Models::Product");
    CHECK(strcmp(after, expected) == 0);
    free(after);
    free(expected);
    OK(rdx_graph_free(graph));
    printf("THREADS\tdone\n");
}

/* ---- memory ------------------------------------------------------------------------------ */

static void cycle(rdx_graph_t *fixture) {
    rdx_graph_t *graph;
    OK(rdx_graph_new(&graph));
    OK(rdx_graph_free(graph));
    rdx_declaration_t *decl;
    OK(rdx_graph_get_declaration(fixture, "Shop::Models::Product", RDX_NTS, &decl));
    rdx_declaration_iter_t *it;
    OK(rdx_declaration_ancestors(decl, &it));
    free(join_declarations(it));
    free(join_names(rdx_declaration_ancestor_names, decl));
    free(join_names(rdx_declaration_member_names, decl));
    free(join_names(rdx_declaration_descendant_names, decl));
    rdx_definition_iter_t *defs;
    OK(rdx_declaration_definitions(decl, &defs));
    rdx_definition_t *def;
    while (rdx_definition_iter_next(defs, &def) == RDX_OK) {
        rdx_location_t loc;
        char **comments;
        size_t n;
        OK(rdx_definition_location(def, &loc));
        OK(rdx_definition_comments(def, &comments, &n));
        rdx_string_array_free(comments, n);
        rdx_location_free(&loc);
        OK(rdx_definition_free(def));
    }
    OK(rdx_definition_iter_free(defs));
    EXPECT(rdx_declaration_find_member(decl, "nothing()", RDX_NTS, &decl), RDX_ERR_NOT_FOUND);
    OK(rdx_declaration_free(decl));
}

static void memory(const char *dir) {
    rdx_graph_t *fixture = fixture_graph(dir);
    /* Warm up: the interpreter's caches and allocator pools settle first. */
    for (int i = 0; i < 1000; i++) cycle(fixture);
    long before = resident_kib();
    for (int i = 0; i < 10000; i++) cycle(fixture);
    long after = resident_kib();
    printf("MEMORY\t%ld\t%ld\t%ld\n", before, after, after - before);
    /* Leaking one graph or a few handles per cycle would add tens of megabytes. */
    CHECK(before > 0 && after - before < 4096);
    OK(rdx_graph_free(fixture));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIXTURE_DIR [answers] [errors] [persist] [threads] [memory]\n", argv[0]);
        return 2;
    }
    int all = argc == 2;
    for (int i = all ? 1 : 2; i < (all ? 2 : argc); i++) {
        const char *section = all ? NULL : argv[i];
        if (all || strcmp(section, "answers") == 0) answers(argv[1]);
        if (all || strcmp(section, "errors") == 0) errors(argv[1]);
        if (all || strcmp(section, "persist") == 0) persist(argv[1]);
        if (all || strcmp(section, "threads") == 0) threads(argv[1]);
        if (all || strcmp(section, "memory") == 0) memory(argv[1]);
    }
    printf("checks: %d failures: %d\n", atomic_load(&checks), atomic_load(&failures));
    fflush(stdout);
    return atomic_load(&failures) == 0 ? 0 : 1;
}
