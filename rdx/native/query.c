/* The native half of the other languages' extraction (rdx.languages.engine.extract_all).
 *
 * Each language's spec is a tree-sitter query: patterns that capture a definition and its
 * name, and patterns that capture a name used (a call, a type, a base) with what qualifies it.
 * py-tree-sitter's QueryCursor.matches builds a Python dictionary, lists and a Node object per
 * capture of every match, which costs about half a parse. Here the same query's matches are
 * found in C and Python gets the records the engine makes of them:
 * - the symbols (engine._nest: one definition per node range, the first pattern that matched
 *   it winning, nested by range, with qualified names, signatures and docs), the spec's hooks
 *   called with a py-tree-sitter Node where it has them;
 * - the references, one per name (the first match wins), in source order, as the engine's
 *   Reference records, each with the innermost symbol that encloses it.
 * The matches come from the runtime's query cursor, or, for a query whose patterns
 * rdx/native/patterns.py compiles into a table, from the matcher below (match_tree), which
 * finds the same matches in one walk of the tree's subtrees at a fraction of the cursor's cost.
 * The rules are those of the engine's Python path (engine.py: _symbols, _references, _nest),
 * which stays the one definition of what is extracted: tests/test_native_query.py and
 * bench/bench_polyglot.py --check compare both.
 * Some of the specs' hooks are read here too (Spec.native_owner, native_doc, native_imports):
 * Go's receivers, JavaScript's prototype owners, Python's docstrings, and, through imports(),
 * JavaScript's, Python's and Rust's imports; so are the doc comments (engine._comment_text)
 * when they are ASCII. Where a rule here is not sure to give what the Python function gives (an escape in
 * a docstring, text other than ASCII), the Python function answers.
 *
 * Predicates (#eq?, #match?, #any-of? and their variants) are read from py-tree-sitter's Query
 * object and evaluated as py-tree-sitter evaluates them (query_predicates.c of the binding): a
 * text compared as bytes, a regular expression searched in the text decoded up to its first
 * NUL byte. When the Python path would raise (a text that is not UTF-8 under #match?, a match
 * without the capture its pattern names), run() returns None and the engine takes the Python
 * path, which raises or answers exactly as before.
 *
 * This module is compiled against the same tree-sitter runtime version as the installed
 * py-tree-sitter (rdx/native/build.py fetches that version's source and checks that the object
 * layouts below are the binding's), so the runtime here reads the query and the tree that
 * py-tree-sitter made. rdx/native/query.py checks the version and a sample before use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

/* The runtime's own structures (its source is compiled into this module): the matcher below
 * walks the tree's subtrees as the runtime's tree cursor does, without its bookkeeping. */
#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

/* py-tree-sitter's objects (binding/types.h of the same version). */
typedef struct {
    PyObject_HEAD
    TSNode node;
    PyObject *children;
    PyObject *tree;
} PyNode;

typedef struct {
    PyObject_HEAD
    TSTree *tree;
    PyObject *source;
    PyObject *language;
} PyTree;

typedef struct {
    PyObject_HEAD
    TSQuery *query;
    PyObject *predicates; /* Per pattern, a list of the predicate objects below. */
    PyObject *settings;
    PyObject *assertions;
} PyQuery;

typedef struct {
    PyObject_HEAD
    uint32_t capture1_id;
    uint32_t capture2_id;
    bool is_positive;
    bool is_any;
} PredicateEqCapture;

typedef struct {
    PyObject_HEAD
    uint32_t capture_id;
    PyObject *string_value; /* bytes */
    bool is_positive;
    bool is_any;
} PredicateEqString;

typedef struct {
    PyObject_HEAD
    uint32_t capture_id;
    PyObject *pattern; /* a compiled re.Pattern of str */
    bool is_positive;
    bool is_any;
} PredicateMatch;

typedef struct {
    PyObject_HEAD
    uint32_t capture_id;
    PyObject *values; /* a list of bytes */
    bool is_positive;
} PredicateAnyOf;

static PyTypeObject *node_type = NULL;
static PyTypeObject *query_type = NULL;
static PyObject *search_name = NULL;

/* The bytes a node spans in its tree's source, clamped as a slice of the source is. */
typedef struct {
    const char *data;
    Py_ssize_t size;
} Source;

static inline void node_text(const Source *source, TSNode node, const char **text, Py_ssize_t *length) {
    Py_ssize_t start = (Py_ssize_t)ts_node_start_byte(node), end = (Py_ssize_t)ts_node_end_byte(node);
    if (start > source->size) start = source->size;
    if (end > source->size) end = source->size;
    if (end < start) end = start;
    *text = source->data + start;
    *length = end - start;
}

static inline int same_text(const Source *source, TSNode node, const char *other, Py_ssize_t other_length, bool positive) {
    const char *text;
    Py_ssize_t length;
    node_text(source, node, &text, &length);
    int equal = length == other_length && memcmp(text, other, (size_t)length) == 0;
    return positive ? equal : !equal;
}

/* Whether the predicate loop over a capture's nodes stops after a node that gave ``result``:
 * at the first failure, or with an ``any-`` predicate at the first success. */
static inline bool stops(int result, bool is_any) { return (result != 1 && !is_any) || (result == 1 && is_any); }

/* 1 when the match satisfies its pattern's predicates, 0 when not, -1 when py-tree-sitter
 * would raise (the Python exception is then set). Mirrors query_satisfies_predicates with no
 * predicate callback: predicates of other names are satisfied. */
static int satisfies(PyQuery *query, const TSQueryMatch *match, const Source *source) {
    PyObject *list = PyList_GetItem(query->predicates, match->pattern_index);
    if (list == NULL || !PyList_Check(list)) return -1;
    Py_ssize_t count = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        const char *type = Py_TYPE(item)->tp_name;
        int result = 1;
        if (strcmp(type, "tree_sitter.QueryPredicateEqString") == 0) {
            PredicateEqString *p = (PredicateEqString *)item;
            if (!PyBytes_Check(p->string_value)) return -1;
            for (uint16_t j = 0; j < match->capture_count; j++) {
                if (match->captures[j].index != p->capture_id) continue;
                result = same_text(source, match->captures[j].node, PyBytes_AS_STRING(p->string_value),
                                   PyBytes_GET_SIZE(p->string_value), p->is_positive);
                if (stops(result, p->is_any)) break;
            }
        } else if (strcmp(type, "tree_sitter.QueryPredicateMatch") == 0) {
            PredicateMatch *p = (PredicateMatch *)item;
            for (uint16_t j = 0; j < match->capture_count; j++) {
                if (match->captures[j].index != p->capture_id) continue;
                const char *text;
                Py_ssize_t length;
                node_text(source, match->captures[j].node, &text, &length);
                /* py-tree-sitter passes the text as a C string: up to its first NUL byte. */
                const char *nul = memchr(text, 0, (size_t)length);
                if (nul != NULL) length = nul - text;
                PyObject *string = PyUnicode_DecodeUTF8(text, length, NULL);
                if (string == NULL) return -1;
                PyObject *found = PyObject_CallMethodOneArg(p->pattern, search_name, string);
                Py_DECREF(string);
                if (found == NULL) return -1;
                result = (found != Py_None) == p->is_positive;
                Py_DECREF(found);
                if (stops(result, p->is_any)) break;
            }
        } else if (strcmp(type, "tree_sitter.QueryPredicateEqCapture") == 0) {
            PredicateEqCapture *p = (PredicateEqCapture *)item;
            /* The i-th node of one capture against the i-th of the other, as far as both go. */
            uint16_t a = 0, b = 0;
            for (;;) {
                while (a < match->capture_count && match->captures[a].index != p->capture1_id) a++;
                while (b < match->capture_count && match->captures[b].index != p->capture2_id) b++;
                if (a >= match->capture_count || b >= match->capture_count) break;
                const char *text;
                Py_ssize_t length;
                node_text(source, match->captures[b].node, &text, &length);
                result = same_text(source, match->captures[a].node, text, length, p->is_positive);
                if (stops(result, p->is_any)) break;
                a++;
                b++;
            }
        } else if (strcmp(type, "tree_sitter.QueryPredicateAnyOf") == 0) {
            PredicateAnyOf *p = (PredicateAnyOf *)item;
            if (!PyList_Check(p->values)) return -1;
            Py_ssize_t values = PyList_GET_SIZE(p->values);
            for (uint16_t j = 0; j < match->capture_count && result; j++) {
                if (match->captures[j].index != p->capture_id) continue;
                /* Each node must compare (equal, or with not-any-of unequal) to some value. */
                int found = 0;
                for (Py_ssize_t k = 0; k < values && !found; k++) {
                    PyObject *value = PyList_GET_ITEM(p->values, k);
                    if (!PyBytes_Check(value)) return -1;
                    found = same_text(source, match->captures[j].node, PyBytes_AS_STRING(value), PyBytes_GET_SIZE(value),
                                      p->is_positive);
                }
                if (!found) result = 0;
            }
        }
        if (result != 1) return 0;
    }
    return 1;
}

/* The query, node and source of a run, checked. Returns 0 with a Python exception set when an
 * argument is not what it must be, -1 (no exception) when the tree has no bytes source. */
static int arguments(PyObject *query_object, PyObject *node_object, PyQuery **query, PyNode **node, Source *source) {
    if (query_type == NULL || Py_TYPE(query_object) != query_type) {
        PyErr_SetString(PyExc_TypeError, "needs a tree_sitter.Query");
        return 0;
    }
    if (node_type == NULL || Py_TYPE(node_object) != node_type) {
        PyErr_SetString(PyExc_TypeError, "needs a tree_sitter.Node");
        return 0;
    }
    *query = (PyQuery *)query_object;
    *node = (PyNode *)node_object;
    if ((*query)->query == NULL || (*query)->predicates == NULL || !PyList_Check((*query)->predicates)) {
        PyErr_SetString(PyExc_ValueError, "the query is not compiled");
        return 0;
    }
    PyObject *tree = (*node)->tree;
    PyObject *bytes = tree == NULL ? NULL : ((PyTree *)tree)->source;
    if (bytes == NULL || !PyBytes_Check(bytes)) return -1;
    source->data = PyBytes_AS_STRING(bytes);
    source->size = PyBytes_GET_SIZE(bytes);
    return 1;
}

/* The first node captured as ``id`` in a match (found: 1). */
static inline int first_capture(const TSQueryMatch *match, int64_t id, TSNode *node) {
    if (id < 0) return 0;
    for (uint16_t i = 0; i < match->capture_count; i++) {
        if (match->captures[i].index == (uint32_t)id) {
            *node = match->captures[i].node;
            return 1;
        }
    }
    return 0;
}

/* matches(query, node) -> [(pattern, ((capture, start byte, end byte), ...)), ...] | None
 *
 * Every match of ``query`` under ``node`` that satisfies its predicates, as QueryCursor.matches
 * lists them, with each capture as its id and byte range (None: the tree has no bytes source,
 * or py-tree-sitter would raise). rdx/native/query.py compares it with QueryCursor.matches on a
 * sample before the module is used. */
static PyObject *matches(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "matches() takes 2 arguments");
        return NULL;
    }
    PyQuery *query;
    PyNode *node;
    Source source;
    int status = arguments(args[0], args[1], &query, &node, &source);
    if (status == 0) return NULL;
    if (status < 0) Py_RETURN_NONE;
    PyObject *result = PyList_New(0);
    if (result == NULL) return NULL;
    TSQueryCursor *cursor = ts_query_cursor_new();
    ts_query_cursor_exec(cursor, query->query, node->node);
    TSQueryMatch match;
    int failed = 0;
    while (!failed && ts_query_cursor_next_match(cursor, &match)) {
        int satisfied = satisfies(query, &match, &source);
        if (satisfied < 0) {
            PyErr_Clear();
            Py_CLEAR(result);
            Py_INCREF(Py_None);
            result = Py_None;
            break;
        }
        if (!satisfied) continue;
        PyObject *captures = PyTuple_New(match.capture_count);
        failed = captures == NULL;
        for (uint16_t i = 0; !failed && i < match.capture_count; i++) {
            PyObject *capture = Py_BuildValue("(IkK)", match.captures[i].index, (unsigned long)ts_node_start_byte(match.captures[i].node),
                                              (unsigned long long)ts_node_end_byte(match.captures[i].node));
            failed = capture == NULL;
            if (!failed) PyTuple_SET_ITEM(captures, i, capture);
        }
        PyObject *item = failed ? NULL : Py_BuildValue("(IN)", match.pattern_index, captures);
        if (item == NULL) {
            Py_XDECREF(captures);
            failed = 1;
        } else {
            failed = PyList_Append(result, item) < 0;
            Py_DECREF(item);
        }
    }
    ts_query_cursor_delete(cursor);
    if (failed) {
        Py_XDECREF(result);
        return NULL;
    }
    return result;
}

/* A definition as the engine keys it: its node's range, then the pattern and match order that
 * decide which match of one range wins. */
typedef struct {
    uint32_t start, end, pattern;
    uint64_t order; /* the match's place in the cursor's order (see take_match) */
    uint32_t seq;   /* then the order the run found it in */
    uint32_t kind;  /* the capture id that named the definition's kind */
    TSNode node, name;
} Definition;

/* A reference: its name's range and position, what qualifies it, the match order. */
typedef struct {
    uint32_t start, end, row, column;
    uint64_t order;
    uint32_t seq;
    uint32_t kind; /* 0, 1, 2: call, type, base */
    uint32_t qualifier_start, qualifier_end;
    bool qualified;
} Use;

static int compare_definitions(const void *x, const void *y) {
    const Definition *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1; /* An enclosing node first. */
    if (a->pattern != b->pattern) return a->pattern < b->pattern ? -1 : 1;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int compare_uses(const void *x, const void *y) {
    const Use *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->order != b->order) return a->order < b->order ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A growable array of fixed-size items. */
typedef struct {
    char *items;
    size_t count, capacity, size;
} Buffer;

static void *grow(Buffer *buffer) {
    size_t capacity = buffer->capacity ? buffer->capacity * 2 : 64;
    char *items = PyMem_Realloc(buffer->items, capacity * buffer->size);
    if (items == NULL) return NULL;
    buffer->items = items;
    buffer->capacity = capacity;
    return buffer->items + buffer->size * buffer->count++;
}

static inline void *push(Buffer *buffer) {
    if (__builtin_expect(buffer->count == buffer->capacity, 0)) return grow(buffer);
    return buffer->items + buffer->size * buffer->count++;
}

static PyObject *decode(const Source *source, uint32_t start, uint32_t end) {
    Py_ssize_t s = start, e = end;
    if (s > source->size) s = source->size;
    if (e > source->size) e = source->size;
    if (e < s) e = s;
    return PyUnicode_DecodeUTF8(source->data + s, e - s, "replace");
}

/* The Reference records of the uses (sorted, one per start byte), each with the innermost
 * emitted definition that encloses it: engine._references' merge of two sorted lists. */
static PyObject *references(const Source *source, Use *uses, size_t count, const uint32_t *symbols, size_t symbol_count,
                            PyObject *reference_type, PyObject *const *kinds) {
    PyObject *result = PyList_New(0);
    if (result == NULL) return NULL;
    size_t *stack = PyMem_Malloc((symbol_count + 1) * sizeof(size_t));
    if (stack == NULL) {
        Py_DECREF(result);
        return PyErr_NoMemory();
    }
    size_t depth = 0, next = 0;
    for (size_t i = 0; i < count; i++) {
        const Use *use = &uses[i];
        uint32_t start = use->start;
        while (next < symbol_count && symbols[2 * next] <= start) {
            while (depth && symbols[2 * stack[depth - 1] + 1] <= symbols[2 * next]) depth--;
            stack[depth++] = next++;
        }
        while (depth && symbols[2 * stack[depth - 1] + 1] <= start) depth--;
        int64_t span = (int64_t)use->end - (int64_t)start;
        if (span > 200 || span == 0) continue;
        PyObject *written = NULL;
        if (use->qualified && (int64_t)use->qualifier_end - (int64_t)use->qualifier_start <= 200) {
            Py_ssize_t s = use->qualifier_start, e = use->qualifier_end;
            if (s > source->size) s = source->size;
            if (e > source->size) e = source->size;
            if (e < s) e = s;
            if (memchr(source->data + s, '\n', (size_t)(e - s)) == NULL) {
                written = PyUnicode_DecodeUTF8(source->data + s, e - s, "replace");
                if (written == NULL) goto fail;
            }
        }
        PyObject *name = decode(source, start, use->end);
        if (name == NULL) {
            Py_XDECREF(written);
            goto fail;
        }
        PyObject *call[8] = {
            kinds[use->kind],
            name,
            PyLong_FromUnsignedLong(use->row + 1UL),
            PyLong_FromUnsignedLong(use->column),
            PyLong_FromUnsignedLong(start),
            PyLong_FromUnsignedLong(use->end),
            written != NULL ? written : Py_None,
            PyLong_FromSsize_t(depth ? (Py_ssize_t)stack[depth - 1] : -1),
        };
        PyObject *record = NULL;
        if (call[2] && call[3] && call[4] && call[5] && call[7]) record = PyObject_Vectorcall(reference_type, call, 8, NULL);
        Py_DECREF(name);
        Py_XDECREF(written);
        Py_XDECREF(call[2]);
        Py_XDECREF(call[3]);
        Py_XDECREF(call[4]);
        Py_XDECREF(call[5]);
        Py_XDECREF(call[7]);
        if (record == NULL) goto fail;
        int appended = PyList_Append(result, record);
        Py_DECREF(record);
        if (appended < 0) goto fail;
    }
    PyMem_Free(stack);
    return result;
fail:
    PyMem_Free(stack);
    Py_DECREF(result);
    return NULL;
}

/* Where a definition's signature ends (engine._signature_end): at its body (the child in field
 * ``body_field``), else at the end of its name's line, else at its end. */
static uint32_t signature_end(const Source *source, TSNode node, long body_field, uint32_t name_end, uint32_t node_end) {
    if (body_field > 0) {
        TSNode body = ts_node_child_by_field_id(node, (TSFieldId)body_field);
        if (!ts_node_is_null(body)) return ts_node_start_byte(body);
    }
    /* bytes.find(b"\n", name_end, node_end), clamped as it clamps. */
    Py_ssize_t from = name_end, to = node_end < (uint64_t)source->size ? (Py_ssize_t)node_end : source->size;
    if (from < to) {
        const char *newline = memchr(source->data + from, '\n', (size_t)(to - from));
        if (newline != NULL) return (uint32_t)(newline - source->data);
    }
    return node_end;
}

/* A growable list of byte ranges. */
typedef struct {
    uint32_t (*items)[2];
    size_t count, capacity;
    uint32_t (*inline_items)[2];
} Ranges;

/* Append the byte span of ``node`` to ``found``, growing it off its inline storage. */
static int push_range(Ranges *found, TSNode node) {
    if (found->count == found->capacity) {
        size_t capacity = found->capacity * 2;
        uint32_t(*grown)[2] = PyMem_Malloc(capacity * sizeof(*grown));
        if (grown == NULL) return -1;
        memcpy(grown, found->items, found->count * sizeof(*grown));
        if (found->items != found->inline_items) PyMem_Free(found->items);
        found->items = grown;
        found->capacity = capacity;
    }
    found->items[found->count][0] = ts_node_start_byte(node);
    found->items[found->count][1] = ts_node_end_byte(node);
    found->count++;
    return 0;
}

/* The comments right above a definition (engine._comment_ranges), nearest first, as (start
 * byte, end byte) pairs: above the node, or above the first ancestor that has a comment before
 * it through wrappers and ancestors with one named child (never the root); then each comment
 * whose last row is at most one above the row of what follows it. ``table`` flags node kinds:
 * 1, a comment; 2, a wrapper. 0, or -1 without memory. */
static int comments_above(TSNode node, const unsigned char *table, Ranges *found) {
    found->count = 0;
    TSNode current = node;
    TSNode previous = ts_node_prev_sibling(current);
    while (ts_node_is_null(previous) || !(table[ts_node_symbol(previous)] & 1)) {
        TSNode parent = ts_node_parent(current);
        if (ts_node_is_null(parent)) return 0;
        if (!((table[ts_node_symbol(parent)] & 2) || ts_node_named_child_count(parent) == 1)) return 0;
        if (ts_node_is_null(ts_node_parent(parent))) return 0;
        current = parent;
        previous = ts_node_prev_sibling(current);
    }
    int64_t next_row = ts_node_start_point(current).row;
    while (!ts_node_is_null(previous) && (table[ts_node_symbol(previous)] & 1) && (int64_t)ts_node_end_point(previous).row >= next_row - 1) {
        if (push_range(found, previous) < 0) return -1;
        next_row = ts_node_start_point(previous).row;
        previous = ts_node_prev_sibling(previous);
    }
    return 0;
}

/* The same answer as comments_above, from the visible children of the nodes on the path from the
 * root down to the definition rather than from ts_node_prev_sibling and ts_node_parent, each of
 * which walks down from the root again (about 7 % of a parse of a Rust file, where fields and
 * variants are definitions). The definitions come in source order, enclosing ones first, so the
 * path's lists carry over from one definition to the next: each node's children are listed
 * once. A node's visible children are those ts_node_iterate_children gives, flattened through
 * hidden nodes: its visible parent's list, in which the entry before a node is its
 * ts_node_prev_sibling, and the node whose list holds it is its ts_node_parent (for a node that
 * is not empty; an empty one, or one not found so, takes comments_above). */
#define MAX_PATH_DEPTH 4000

typedef struct {
    const Subtree *subtree;
    Length position;
    TSSymbol alias;
} Place;

typedef struct {
    const Subtree *id; /* the node whose children ``children`` lists (NULL: none yet) */
    Buffer children;   /* of Place */
    size_t at;         /* the entry on the last path found through this level */
} PathLevel;

typedef struct {
    const TSTree *tree;
    PathLevel *levels;
    size_t capacity;
} Paths;

static int list_visible(const TSLanguage *language, const Subtree *parent, Length position, Buffer *out) {
    uint32_t count = ts_subtree_child_count(*parent);
    if (count == 0) return 0;
    const Subtree *children = ts_subtree_children(*parent);
    const TSSymbol *aliases = ts_language_alias_sequence(language, parent->ptr->production_id);
    uint32_t structural = 0;
    for (uint32_t i = 0; i < count; i++) {
        const Subtree *child = &children[i];
        if (i > 0) position = length_add(position, ts_subtree_padding(*child));
        TSSymbol alias = 0;
        if (!ts_subtree_extra(*child)) {
            if (aliases) alias = aliases[structural];
            structural++;
        }
        if (ts_subtree_visible(*child) || alias) {
            Place *place = push(out);
            if (place == NULL) return -1;
            *place = (Place){child, position, alias};
        } else if (ts_subtree_child_count(*child) > 0 && list_visible(language, child, position, out) < 0) {
            return -1;
        }
        position = length_add(position, ts_subtree_size(*child));
    }
    return 0;
}

/* Finds ``node`` (not empty, not the root): 1 with ``*depth`` levels on its path (levels[j].at
 * is the index of the path's node in level j's list), 0 when not found, -1 without memory. */
static int find_path(Paths *paths, TSNode node, size_t *depth) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    const Subtree *subtree = &paths->tree->root;
    Length position = ts_subtree_padding(*subtree);
    for (size_t j = 0; j <= MAX_PATH_DEPTH; j++) {
        if (j == paths->capacity) {
            size_t capacity = paths->capacity ? paths->capacity * 2 : 16;
            PathLevel *levels = PyMem_Realloc(paths->levels, capacity * sizeof(PathLevel));
            if (levels == NULL) return -1;
            memset(levels + paths->capacity, 0, (capacity - paths->capacity) * sizeof(PathLevel));
            for (size_t k = paths->capacity; k < capacity; k++) levels[k].children.size = sizeof(Place);
            paths->levels = levels;
            paths->capacity = capacity;
        }
        PathLevel *level = &paths->levels[j];
        if (level->id != subtree) {
            level->id = NULL;
            level->children.count = 0;
            level->at = 0;
            if (list_visible(paths->tree->language, subtree, position, &level->children) < 0) return -1;
            level->id = subtree;
        }
        const Place *items = (const Place *)level->children.items;
        size_t count = level->children.count;
        size_t i = level->at < count && items[level->at].position.bytes <= start ? level->at : 0;
        for (; i < count; i++) {
            const Place *place = &items[i];
            if ((const void *)place->subtree == node.id) {
                level->at = i;
                *depth = j + 1;
                return 1;
            }
            if (place->position.bytes > start) return 0;
            if (place->position.bytes + ts_subtree_size(*place->subtree).bytes >= end && ts_subtree_child_count(*place->subtree) > 0) break;
        }
        if (i == count) return 0;
        level->at = i;
        subtree = items[i].subtree;
        position = items[i].position;
    }
    return 0;
}

static inline TSNode place_node(const Paths *paths, const Place *place) { return ts_node_new(paths->tree, place->subtree, place->position, place->alias); }

static int path_comments_above(Paths *paths, TSNode node, const unsigned char *table, Ranges *found) {
    size_t depth = 0;
    int status = 0;
    if (ts_node_start_byte(node) < ts_node_end_byte(node) && node.id != (const void *)&paths->tree->root) status = find_path(paths, node, &depth);
    if (status < 0) return -1;
    if (status == 0) return comments_above(node, table, found);
    found->count = 0;
    size_t c = depth - 1;
    const Place *items = (const Place *)paths->levels[c].children.items;
    size_t at = paths->levels[c].at; /* current: items[at] */
    while (at == 0 || !(table[ts_node_symbol(place_node(paths, &items[at - 1]))] & 1)) {
        if (c == 0) return 0; /* current's parent is the root, which cannot be climbed past */
        const PathLevel *up = &paths->levels[c - 1];
        TSNode parent = place_node(paths, &((const Place *)up->children.items)[up->at]);
        if (!((table[ts_node_symbol(parent)] & 2) || ts_node_named_child_count(parent) == 1)) return 0;
        c--;
        items = (const Place *)up->children.items;
        at = up->at;
    }
    int64_t next_row = ts_node_start_point(place_node(paths, &items[at])).row;
    for (size_t k = at; k > 0; k--) {
        TSNode previous = place_node(paths, &items[k - 1]);
        if (!(table[ts_node_symbol(previous)] & 1) || (int64_t)ts_node_end_point(previous).row < next_row - 1) break;
        if (push_range(found, previous) < 0) return -1;
        next_row = ts_node_start_point(previous).row;
    }
    return 0;
}

static void free_paths(Paths *paths) {
    for (size_t j = 0; j < paths->capacity; j++) PyMem_Free(paths->levels[j].children.items);
    PyMem_Free(paths->levels);
}

static PyObject *ranges_tuple(const Ranges *ranges) {
    PyObject *result = PyTuple_New((Py_ssize_t)ranges->count);
    for (size_t i = 0; result != NULL && i < ranges->count; i++) {
        PyObject *range = Py_BuildValue("(kk)", (unsigned long)ranges->items[i][0], (unsigned long)ranges->items[i][1]);
        if (range == NULL) Py_CLEAR(result);
        else PyTuple_SET_ITEM(result, (Py_ssize_t)i, range);
    }
    return result;
}

/* The symbols' text, as engine._nest reads it. Only text that is all ASCII is read here; other
 * text is handed to the engine's own functions, so the rules for it stay theirs alone. */

/* A character str.strip() and the engine's ``\s`` take for whitespace, among ASCII ones. */
static inline bool ascii_space(unsigned char c) { return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20); }

/* A byte bytes.strip() strips. */
static inline bool bytes_space(unsigned char c) { return (c >= 9 && c <= 13) || c == ' '; }

static inline bool all_ascii(const char *text, Py_ssize_t length) {
    for (Py_ssize_t i = 0; i < length; i++)
        if ((unsigned char)text[i] >= 0x80) return false;
    return true;
}

static PyObject *ascii_string(const char *text, Py_ssize_t length) {
    PyObject *string = PyUnicode_New(length, 127);
    if (string != NULL) memcpy(PyUnicode_DATA(string), text, (size_t)length);
    return string;
}

/* source[start:end] as Python slices it. */
static inline void slice(const Source *source, int64_t start, int64_t end, const char **text, Py_ssize_t *length) {
    if (start < 0) start = 0;
    if (start > source->size) start = source->size;
    if (end > source->size) end = source->size;
    if (end < start) end = start;
    *text = source->data + start;
    *length = (Py_ssize_t)(end - start);
}

static PyObject *strip_name = NULL;

/* source[start:end].decode("utf-8", "replace").strip() */
static PyObject *name_text(const Source *source, uint32_t start, uint32_t end) {
    const char *text;
    Py_ssize_t length;
    slice(source, start, end, &text, &length);
    if (!all_ascii(text, length)) {
        PyObject *decoded = PyUnicode_DecodeUTF8(text, length, "replace");
        if (decoded == NULL) return NULL;
        PyObject *stripped = PyObject_CallMethodNoArgs(decoded, strip_name);
        Py_DECREF(decoded);
        return stripped;
    }
    while (length && ascii_space((unsigned char)text[0])) text++, length--;
    while (length && ascii_space((unsigned char)text[length - 1])) length--;
    return ascii_string(text, length);
}

#define MAX_SIGNATURE 240

/* engine._signature(source, name_end, end) for ASCII text; ``fallback`` (that function) for
 * other text, called with ``source_object``. */
static PyObject *signature_text(const Source *source, uint32_t name_end, uint32_t end, PyObject *fallback, PyObject *source_object) {
    int64_t stop = end;
    if (stop - (int64_t)name_end > 4 * MAX_SIGNATURE) stop = (int64_t)name_end + 4 * MAX_SIGNATURE;
    const char *text;
    Py_ssize_t length;
    slice(source, name_end, stop, &text, &length);
    if (!all_ascii(text, length)) return PyObject_CallFunction(fallback, "OkK", source_object, (unsigned long)name_end, (unsigned long long)end);
    Py_ssize_t i = 0;
    while (i < length && bytes_space((unsigned char)text[i])) i++;
    if (i == length) Py_RETURN_NONE;
    bool collapse = false;
    for (Py_ssize_t j = 0; j < length && !collapse; j++) {
        char c = text[j];
        collapse = c == '\n' || c == '\t' || c == '\r' || (c == ' ' && j + 1 < length && text[j + 1] == ' ');
    }
    char buffer[4 * MAX_SIGNATURE];
    Py_ssize_t size = 0;
    for (Py_ssize_t j = 0; j < length; j++) {
        unsigned char c = (unsigned char)text[j];
        if (collapse && ascii_space(c)) {
            while (j + 1 < length && ascii_space((unsigned char)text[j + 1])) j++;
            buffer[size++] = ' ';
        } else {
            buffer[size++] = (char)c;
        }
    }
    const char *start = buffer;
    while (size && ascii_space((unsigned char)start[0])) start++, size--;
    while (size && ascii_space((unsigned char)start[size - 1])) size--;
    while (size && (start[size - 1] == ':' || start[size - 1] == '{' || start[size - 1] == ';')) size--;
    while (size && ascii_space((unsigned char)start[size - 1])) size--;
    if (size == 0) Py_RETURN_NONE;
    if (size <= MAX_SIGNATURE) return ascii_string(start, size);
    PyObject *result = PyUnicode_New(MAX_SIGNATURE, 0xffff);
    if (result == NULL) return NULL;
    for (Py_ssize_t j = 0; j < MAX_SIGNATURE - 1; j++) PyUnicode_WRITE(PyUnicode_2BYTE_KIND, PyUnicode_DATA(result), j, (Py_UCS4)(unsigned char)start[j]);
    PyUnicode_WRITE(PyUnicode_2BYTE_KIND, PyUnicode_DATA(result), MAX_SIGNATURE - 1, 0x2026); /* … */
    return result;
}

#define MAX_DOC_LINES 40

/* A line break of str.splitlines() at ``text[i]`` among ASCII characters, and its width
 * (``\r\n`` is one break of two). */
static inline Py_ssize_t line_break(const char *text, Py_ssize_t i, Py_ssize_t length) {
    unsigned char c = (unsigned char)text[i];
    if (c == '\r') return i + 1 < length && text[i + 1] == '\n' ? 2 : 1;
    return c == '\n' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e;
}

/* len(text.splitlines()) of ASCII text. */
static Py_ssize_t count_lines(const char *text, Py_ssize_t length) {
    Py_ssize_t lines = 0, start = 0;
    for (Py_ssize_t i = 0; i < length;) {
        Py_ssize_t width = line_break(text, i, length);
        if (width) {
            lines++;
            i += width;
            start = i;
        } else {
            i++;
        }
    }
    return lines + (start < length);
}

/* engine._strip_comment of one ASCII line, appended at ``out + *size``: the comment marker
 * ``^\s*(///?|//!|/\*\*?|\*\/|\*|#|--)\s?`` removed (only when there is one: then the
 * spaces before it go too), trailing spaces, then a trailing ``*\/``, then spaces again. */
static void strip_comment(const char *line, Py_ssize_t length, char *out, Py_ssize_t *size) {
    Py_ssize_t i = 0;
    while (i < length && ascii_space((unsigned char)line[i])) i++;
    const char *p = line + i;
    Py_ssize_t rest = length - i, marker = 0;
    if (rest >= 2 && p[0] == '/' && p[1] == '/') marker = rest >= 3 && p[2] == '/' ? 3 : 2; /* (``//!`` is read as ``//``) */
    else if (rest >= 2 && p[0] == '/' && p[1] == '*') marker = rest >= 3 && p[2] == '*' ? 3 : 2;
    else if (rest >= 2 && p[0] == '*' && p[1] == '/') marker = 2;
    else if (rest >= 1 && (p[0] == '*' || p[0] == '#')) marker = 1;
    else if (rest >= 2 && p[0] == '-' && p[1] == '-') marker = 2;
    if (marker) {
        i += marker;
        if (i < length && ascii_space((unsigned char)line[i])) i++;
    } else {
        i = 0;
    }
    Py_ssize_t end = length;
    while (end > i && ascii_space((unsigned char)line[end - 1])) end--;
    if (end - i >= 2 && line[end - 2] == '*' && line[end - 1] == '/') end -= 2;
    while (end > i && ascii_space((unsigned char)line[end - 1])) end--;
    memcpy(out + *size, line + i, (size_t)(end - i));
    *size += end - i;
}

/* engine._comment_text of the comments ``ranges`` (nearest first) when their text is all
 * ASCII; ``fallback`` (that function) otherwise. */
static PyObject *comment_text(const Source *source, const Ranges *ranges, PyObject *fallback, PyObject *source_object) {
    if (ranges->count == 0) Py_RETURN_NONE;
    size_t taken = 0;
    Py_ssize_t lines = 0, bytes = 0;
    for (; taken < ranges->count && lines < MAX_DOC_LINES; taken++) {
        const char *text;
        Py_ssize_t length;
        slice(source, ranges->items[taken][0], ranges->items[taken][1], &text, &length);
        if (!all_ascii(text, length)) {
            PyObject *tuple = ranges_tuple(ranges);
            if (tuple == NULL) return NULL;
            PyObject *result = PyObject_CallFunctionObjArgs(fallback, source_object, tuple, NULL);
            Py_DECREF(tuple);
            return result;
        }
        lines += count_lines(text, length);
        bytes += length + 1;
    }
    char *out = PyMem_Malloc((size_t)bytes + 1);
    if (out == NULL) return PyErr_NoMemory();
    Py_ssize_t size = 0;
    bool first = true;
    for (size_t k = taken; k-- > 0;) { /* the farthest comment first: source order */
        const char *text;
        Py_ssize_t length;
        slice(source, ranges->items[k][0], ranges->items[k][1], &text, &length);
        Py_ssize_t start = 0;
        for (Py_ssize_t i = 0; i <= length;) {
            Py_ssize_t width = i < length ? line_break(text, i, length) : 0;
            if (width || (i == length && start < length)) {
                if (!first) out[size++] = '\n';
                first = false;
                strip_comment(text + start, i - start, out, &size);
                i += width ? width : 1;
                start = i;
            } else {
                i++;
            }
        }
    }
    const char *begin = out;
    while (size && ascii_space((unsigned char)begin[0])) begin++, size--;
    while (size && ascii_space((unsigned char)begin[size - 1])) size--;
    PyObject *result = size ? ascii_string(begin, size) : Py_NewRef(Py_None);
    PyMem_Free(out);
    return result;
}

/* The hooks of the specs that query.c reads itself (engine.NATIVE_HOOKS names them), with the
 * rules of the Python hooks, which stay their one definition: where a rule here is not sure to
 * give what the Python hook gives, the Python hook answers. */

static inline bool is_type(TSNode node, const char *type) { return !ts_node_is_null(node) && strcmp(ts_node_type(node), type) == 0; }

/* A field's id by name, remembered per language and name (the names here are literals, so
 * their addresses tell them apart): ts_language_field_id_for_name compares it with every field's
 * name of the language at each call. */
typedef struct {
    const TSLanguage *language;
    const char *name;
    TSFieldId id;
} KnownField;

static TSFieldId field_id(const TSLanguage *language, const char *name) {
    static KnownField known[64];
    static unsigned count = 0;
    for (unsigned i = 0; i < count; i++)
        if (known[i].name == name && known[i].language == language) return known[i].id;
    TSFieldId id = ts_language_field_id_for_name(language, name, (uint32_t)strlen(name));
    if (count < 64) known[count++] = (KnownField){language, name, id};
    return id;
}

static inline TSNode field(TSNode node, const char *name) {
    return ts_node_is_null(node) ? node : ts_node_child_by_field_id(node, field_id(ts_node_language(node), name));
}

static PyObject *node_string(const Source *source, TSNode node) { return decode(source, ts_node_start_byte(node), ts_node_end_byte(node)); }

/* The first type_identifier among the named descendants of ``node``, in preorder (specs/go.py,
 * _receiver): 1 found, 0 none, -1 too deep to look here. */
static int first_type_identifier(TSNode node, TSNode *found, int depth) {
    if (depth > 64) return -1;
    uint32_t count = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < count; i++) {
        TSNode child = ts_node_named_child(node, i);
        if (is_type(child, "type_identifier")) {
            *found = child;
            return 1;
        }
        int status = first_type_identifier(child, found, depth + 1);
        if (status) return status;
    }
    return 0;
}

enum { OWNER_GO_RECEIVER = 1, OWNER_JS_PROTOTYPE = 2, DOC_PYTHON = 1, IMPORTS_PYTHON = 1, IMPORTS_JAVASCRIPT = 2, IMPORTS_RUST = 3, IMPORTS_GO = 4, IMPORTS_C = 5 };

/* A spec's owner hook read here: 1 with ``*owner`` (a new reference, or NULL for None), 0 when
 * the Python hook must answer, -1 on an error. */
static int native_owner(int code, const Source *source, TSNode node, PyObject **owner) {
    *owner = NULL;
    if (code == OWNER_GO_RECEIVER) {
        if (!is_type(node, "method_declaration")) return 1;
        TSNode receiver = field(node, "receiver"), found;
        if (ts_node_is_null(receiver)) return 1;
        int status = first_type_identifier(receiver, &found, 0);
        if (status < 0) return 0;
        if (status == 0) return 1;
        *owner = node_string(source, found);
        return *owner == NULL ? -1 : 1;
    }
    if (code == OWNER_JS_PROTOTYPE) {
        if (!is_type(node, "assignment_expression")) return 1;
        TSNode target = field(field(node, "left"), "object");
        if (!is_type(target, "member_expression")) return 1;
        TSNode property = field(target, "property"), object = field(target, "object");
        if (ts_node_is_null(property) || ts_node_is_null(object)) return 1;
        const char *text;
        Py_ssize_t length;
        slice(source, ts_node_start_byte(property), ts_node_end_byte(property), &text, &length);
        if (length != 9 || memcmp(text, "prototype", 9) != 0) return 1;
        *owner = node_string(source, object);
        return *owner == NULL ? -1 : 1;
    }
    return 0;
}

/* specs/python.py's _docstring: 1 with ``*doc`` (a new reference, Py_None for none), 0 when
 * the Python hook must answer, -1 on an error. Read here: a string without prefix or
 * backslash, NUL or carriage return, whose text Python's tokenizer reads as one string
 * literal (``ast.literal_eval`` gives its content). */
static int python_docstring(const Source *source, TSNode node, long body_field, PyObject **doc) {
    *doc = Py_None;
    TSNode body = body_field > 0 ? ts_node_child_by_field_id(node, (TSFieldId)body_field) : field(node, "body");
    if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0) goto none;
    TSNode first = ts_node_named_child(body, 0);
    if (is_type(first, "expression_statement") && ts_node_named_child_count(first) == 1) first = ts_node_named_child(first, 0);
    if (!is_type(first, "string")) goto none;
    const char *text;
    Py_ssize_t length;
    slice(source, ts_node_start_byte(first), ts_node_end_byte(first), &text, &length);
    if (length < 2 || (text[0] != '"' && text[0] != '\'')) return 0;
    char quote = text[0];
    const char *content;
    Py_ssize_t size;
    bool triple = length >= 3 && text[1] == quote && text[2] == quote;
    if (triple) {
        if (length < 6 || text[length - 1] != quote || text[length - 2] != quote || text[length - 3] != quote) return 0;
        content = text + 3;
        size = length - 6;
        /* The literal ends at the first three quotes: none inside, and no quote just before. */
        if (size && content[size - 1] == quote) return 0;
        for (Py_ssize_t i = 0; i + 2 < size; i++)
            if (content[i] == quote && content[i + 1] == quote && content[i + 2] == quote) return 0;
    } else {
        if (text[length - 1] != quote) return 0;
        content = text + 1;
        size = length - 2;
        if (memchr(content, quote, (size_t)size) != NULL || memchr(content, '\n', (size_t)size) != NULL) return 0;
    }
    if (memchr(content, '\\', (size_t)size) != NULL || memchr(content, '\r', (size_t)size) != NULL || memchr(content, 0, (size_t)size) != NULL)
        return 0;
    if (all_ascii(content, size)) {
        while (size && ascii_space((unsigned char)content[0])) content++, size--;
        while (size && ascii_space((unsigned char)content[size - 1])) size--;
        if (size == 0) goto none;
        *doc = ascii_string(content, size);
        return *doc == NULL ? -1 : 1;
    }
    PyObject *decoded = PyUnicode_DecodeUTF8(content, size, "replace");
    if (decoded == NULL) return -1;
    PyObject *stripped = PyObject_CallMethodNoArgs(decoded, strip_name);
    Py_DECREF(decoded);
    if (stripped == NULL) return -1;
    if (PyUnicode_GET_LENGTH(stripped) == 0) {
        Py_DECREF(stripped);
        goto none;
    }
    *doc = stripped;
    return 1;
none:
    *doc = Py_NewRef(Py_None);
    return 1;
}

/* How a run nests its definitions into symbols (engine._nest): read from run()'s ``nest``
 * argument, a tuple (capture names, Symbol, "method", separator, member separator or None,
 * owner hook or None, doc hook or None, engine._signature, engine._comment_text, the code of
 * the owner hook's rule here (0: none, the hook answers; see native_owner), that of the doc
 * hook's (see python_docstring)). */
typedef struct {
    PyObject *names, *symbol_type, *method, *separator, *member_separator, *owner, *doc, *signature, *comment_text;
    long owner_code, doc_code;
} Nest;

static int read_nest(PyObject *tuple, Nest *nest) {
    if (!PyTuple_Check(tuple) || PyTuple_GET_SIZE(tuple) != 11) {
        PyErr_SetString(PyExc_TypeError, "run() needs a nest tuple of 11 items");
        return 0;
    }
    PyObject **items = &PyTuple_GET_ITEM(tuple, 0);
    *nest = (Nest){items[0], items[1], items[2], items[3], items[4], items[5], items[6], items[7], items[8], PyLong_AsLong(items[9]),
                   PyLong_AsLong(items[10])};
    if (PyErr_Occurred()) return 0;
    if (!PyTuple_Check(nest->names) || !PyUnicode_Check(nest->separator) || !PyUnicode_Check(nest->method)) {
        PyErr_SetString(PyExc_TypeError, "run() needs capture names, a separator and the method kind as strings");
        return 0;
    }
    if (nest->member_separator == Py_None || (PyUnicode_Check(nest->member_separator) && PyUnicode_GET_LENGTH(nest->member_separator) == 0))
        nest->member_separator = NULL;
    if (nest->owner == Py_None) nest->owner = NULL;
    if (nest->doc == Py_None) nest->doc = NULL;
    return 1;
}

static inline bool truthy_string(PyObject *value) { return value != NULL && value != Py_None && PyUnicode_Check(value) && PyUnicode_GET_LENGTH(value) > 0; }

/* A definition's place among the others while nesting. */
typedef struct {
    PyObject *qualified;
    Py_ssize_t parent, emitted;
    bool type;
} Nested;

/* A py-tree-sitter Node of ``node`` in ``tree`` (for the hooks written in Python). */
static PyObject *py_node(TSNode node, PyObject *tree) {
    PyNode *made = PyObject_New(PyNode, node_type);
    if (made == NULL) return NULL;
    made->node = node;
    made->children = NULL;
    made->tree = Py_NewRef(tree);
    return (PyObject *)made;
}

static PyObject *long_of(uint64_t value) { return PyLong_FromUnsignedLongLong((unsigned long long)value); }

/* engine._nest over the sorted, distinct definitions: the Symbol records, and the ranges of
 * those emitted (``ranges``: start and end per symbol) for the references' scopes. NULL with an
 * exception on an error, NULL without one (``*fallback`` set) where the engine's Python path
 * must answer (a hook returned what the engine would not read as text). */
static PyObject *nest_symbols(const Source *source, const Definition *defs, size_t count, const unsigned char *flags, uint32_t captures,
                              const Nest *nest, PyObject *prefix, PyObject *source_object, PyObject *tree, long body_field,
                              const unsigned char *node_kinds, uint32_t *ranges, size_t *range_count, int *fallback) {
    PyObject *symbols = PyList_New(0);
    Nested *info = PyMem_Calloc(count + 1, sizeof(Nested));
    size_t *stack = PyMem_Malloc((count + 1) * sizeof(size_t));
    PyObject *empty = PyUnicode_New(0, 0);
    bool failed = symbols == NULL || info == NULL || stack == NULL || empty == NULL;
    if (failed && !PyErr_Occurred()) PyErr_NoMemory();
    if (!failed && prefix != Py_None && !PyUnicode_Check(prefix)) {
        failed = true;
        *fallback = 1;
    }
    bool has_prefix = !failed && truthy_string(prefix);
    size_t depth = 0;
    *range_count = 0;
    uint32_t inline_comments[16][2];
    Ranges comment_ranges = {inline_comments, 0, 16, inline_comments}, *comments = &comment_ranges;
    Paths paths = {count ? defs[0].node.tree : NULL, NULL, 0};
    for (size_t i = 0; !failed && i < count; i++) {
        const Definition *d = &defs[i];
        while (depth && defs[stack[depth - 1]].end <= d->start) depth--;
        Py_ssize_t parent = depth ? (Py_ssize_t)stack[depth - 1] : -1;
        unsigned char kind_flags = d->kind < captures ? flags[d->kind] : 0;
        bool in_type = parent >= 0 && info[parent].type;
        bool method = (kind_flags & 8) && in_type;
        PyObject *name = name_text(source, ts_node_start_byte(d->name), ts_node_end_byte(d->name));
        PyObject *node = NULL, *owner = NULL, *base = NULL, *full = NULL;
        if (name == NULL) goto failure;
        int native = 0;
        if (nest->owner != NULL && nest->owner_code) {
            native = native_owner((int)nest->owner_code, source, d->node, &owner);
            if (native < 0) goto failure;
        }
        if (nest->owner != NULL && !native) {
            if (node == NULL && (node = py_node(d->node, tree)) == NULL) goto failure;
            owner = PyObject_CallFunctionObjArgs(nest->owner, node, source_object, NULL);
            if (owner == NULL) goto failure;
            if (owner == Py_None) {
                Py_CLEAR(owner);
            } else if (!PyUnicode_Check(owner)) {
                *fallback = 1;
                goto failure;
            }
        }
        if (owner != NULL) {
            method = true;
            base = has_prefix ? PyUnicode_Concat(prefix, nest->separator) : Py_NewRef(empty);
            if (base != NULL) {
                PyObject *joined = PyUnicode_Concat(base, owner);
                Py_SETREF(base, joined);
            }
        } else if (parent >= 0) {
            base = Py_NewRef(info[parent].qualified);
        } else {
            base = Py_NewRef(has_prefix ? prefix : empty);
        }
        if (base == NULL) goto failure;
        if (PyUnicode_GET_LENGTH(base) > 0) {
            PyObject *join = nest->member_separator != NULL && (owner != NULL || in_type) ? nest->member_separator : nest->separator;
            PyObject *head = PyUnicode_Concat(base, join);
            full = head == NULL ? NULL : PyUnicode_Concat(head, name);
            Py_XDECREF(head);
            if (full == NULL) goto failure;
        } else {
            full = Py_NewRef(name);
        }
        info[i] = (Nested){full, parent, -1, !method && (kind_flags & 4)};
        full = NULL; /* info owns it now */
        stack[depth++] = i;
        if (!method && (kind_flags & 2)) goto next; /* a scope: qualifies, is not a symbol */
        Py_ssize_t visible = parent;
        while (visible >= 0 && info[visible].emitted < 0) visible = info[visible].parent;
        info[i].emitted = PyList_GET_SIZE(symbols);
        ranges[2 * *range_count] = d->start;
        ranges[2 * *range_count + 1] = d->end;
        (*range_count)++;
        {
            uint32_t name_start = ts_node_start_byte(d->name), name_end = ts_node_end_byte(d->name);
            PyObject *signature = signature_text(source, name_end, signature_end(source, d->node, body_field, name_end, d->end), nest->signature, source_object);
            if (signature == NULL) goto failure;
            PyObject *doc = NULL;
            native = 0;
            if (nest->doc != NULL && nest->doc_code == DOC_PYTHON) {
                native = python_docstring(source, d->node, body_field, &doc);
                if (native < 0) {
                    Py_DECREF(signature);
                    goto failure;
                }
                if (native && doc == Py_None) Py_CLEAR(doc);
            }
            if (nest->doc != NULL && !native) {
                if (node == NULL && (node = py_node(d->node, tree)) == NULL) {
                    Py_DECREF(signature);
                    goto failure;
                }
                doc = PyObject_CallFunctionObjArgs(nest->doc, node, source_object, NULL);
                if (doc != NULL && doc != Py_None && !PyUnicode_Check(doc)) {
                    Py_DECREF(doc);
                    Py_DECREF(signature);
                    *fallback = 1;
                    goto failure;
                }
                if (doc != NULL && !truthy_string(doc)) Py_CLEAR(doc);
                else if (doc == NULL) {
                    Py_DECREF(signature);
                    goto failure;
                }
            }
            if (doc == NULL) {
                if (path_comments_above(&paths, d->node, node_kinds, comments) < 0) {
                    Py_DECREF(signature);
                    PyErr_NoMemory();
                    goto failure;
                }
                doc = comment_text(source, comments, nest->comment_text, source_object);
                if (doc == NULL) {
                    Py_DECREF(signature);
                    goto failure;
                }
            }
            TSPoint point = ts_node_start_point(d->name);
            PyObject *call[12] = {
                name,
                method ? nest->method : PyTuple_GET_ITEM(nest->names, d->kind),
                info[i].qualified,
                long_of(point.row + 1ULL),
                long_of(point.column),
                long_of(d->start),
                long_of(d->end),
                long_of(name_start),
                long_of(name_end),
                PyLong_FromSsize_t(visible >= 0 ? info[visible].emitted : -1),
                signature,
                doc,
            };
            PyObject *symbol = NULL;
            if (call[3] && call[4] && call[5] && call[6] && call[7] && call[8] && call[9]) symbol = PyObject_Vectorcall(nest->symbol_type, call, 12, NULL);
            for (int k = 3; k < 10; k++) Py_XDECREF(call[k]);
            Py_DECREF(signature);
            Py_DECREF(doc);
            if (symbol == NULL) goto failure;
            int appended = PyList_Append(symbols, symbol);
            Py_DECREF(symbol);
            if (appended < 0) goto failure;
        }
    next:
        Py_XDECREF(node);
        Py_XDECREF(owner);
        Py_XDECREF(base);
        Py_DECREF(name);
        continue;
    failure:
        Py_XDECREF(node);
        Py_XDECREF(owner);
        Py_XDECREF(base);
        Py_XDECREF(full);
        Py_XDECREF(name);
        failed = true;
    }
    for (size_t i = 0; info != NULL && i < count; i++) Py_XDECREF(info[i].qualified);
    if (comment_ranges.items != inline_comments) PyMem_Free(comment_ranges.items);
    free_paths(&paths);
    PyMem_Free(info);
    PyMem_Free(stack);
    Py_XDECREF(empty);
    if (failed) {
        Py_XDECREF(symbols);
        if (*fallback) PyErr_Clear();
        return NULL;
    }
    return symbols;
}

/* What the run keeps of each match (the body of the match loop, shared by tree-sitter's cursor
 * and the matcher below). */
typedef struct {
    PyQuery *query;
    const Source *source;
    const int32_t *kinds;
    const unsigned char *flags;
    uint32_t patterns, captures;
    long split, name_id, qualifier_id, use_ids[3];
    Buffer *definitions, *uses;
} Taker;

/* Keeps a match as a definition or a use (the rules of engine._symbols and _references): 0,
 * or 1 when the Python path must answer, -1 on an error. ``order`` is the match's place in
 * the cursor's order. */
static int take_match(const Taker *t, const TSQueryMatch *match, uint64_t order) {
    int satisfied = satisfies(t->query, match, t->source);
    if (satisfied < 0) return 1;
    if (!satisfied) return 0;
    int32_t kind = match->pattern_index < t->patterns ? t->kinds[match->pattern_index] : -1;
    if ((long)match->pattern_index < t->split) {
        TSNode name, node;
        if (!first_capture(match, t->name_id, &name)) return 0;
        uint32_t kind_id;
        if (kind >= 0) {
            if (!first_capture(match, kind, &node)) return 1; /* engine: captures[kind] raises */
            kind_id = (uint32_t)kind;
        } else {
            uint16_t i = 0;
            while (i < match->capture_count && (match->captures[i].index >= t->captures || (t->flags[match->captures[i].index] & 1))) i++;
            if (i == match->capture_count) return 0;
            node = match->captures[i].node;
            kind_id = match->captures[i].index;
        }
        Definition *definition = push(t->definitions);
        if (definition == NULL) return -1;
        *definition = (Definition){ts_node_start_byte(node), ts_node_end_byte(node), match->pattern_index, order, t->definitions->count, kind_id, node, name};
        return 0;
    }
    TSNode node;
    uint32_t use_kind;
    if (kind >= 0) {
        if (kind > 2 || !first_capture(match, t->use_ids[kind], &node)) return 1;
        use_kind = (uint32_t)kind;
    } else {
        use_kind = 0;
        while (use_kind < 3 && !first_capture(match, t->use_ids[use_kind], &node)) use_kind++;
        if (use_kind == 3) return 0;
    }
    Use *use = push(t->uses);
    if (use == NULL) return -1;
    TSPoint point = ts_node_start_point(node);
    TSNode qualifier;
    bool qualified = first_capture(match, t->qualifier_id, &qualifier);
    *use = (Use){ts_node_start_byte(node), ts_node_end_byte(node), point.row, point.column, order, (uint32_t)t->uses->count, use_kind,
                 qualified ? ts_node_start_byte(qualifier) : 0, qualified ? ts_node_end_byte(qualifier) : 0, qualified};
    return 0;
}

/* The matcher: the patterns of a table that rdx/native/patterns.py compiled from the query,
 * matched in one walk of the tree instead of with tree-sitter's query cursor, with the cursor's
 * rules (query.c of the runtime): a step's node is a visible child of its parent step's node
 * (hidden nodes' children count as their parent's), of the step's type (``(_)``: any named
 * node but an error), in the step's field, after the node of the step before it at the same
 * depth; an anchored step cannot skip a named node; a step anchored last has no named node
 * after it; a step's node has none of its negated fields. Every way a pattern matches is a
 * match, in the cursor's order: by the node its last step matched (in the walk's order), then
 * its root's depth, its pattern, the order they were found. A pattern with a wildcard root is
 * matched at every node with children, as the cursor does (from the child, with any parent).
 * Predicates are the query's own, evaluated as for the cursor's matches (``satisfies``). */
typedef struct {
    int32_t depth, symbol, supertype, field, immediate, last, optional, captures[3], negated[3];
} MatchStep;

typedef struct {
    const MatchStep *steps;
    uint32_t count, index;
} MatchPattern;

#define MAX_SUPERTYPES 8

/* A visible node: its subtree, position, alias, type (the public symbol), field, whether it is
 * named, and its index in the walk's order. */
typedef struct {
    const Subtree *subtree;
    Length position;
    TSSymbol alias, symbol;
    TSFieldId field;
    bool named;
    uint32_t index;
    TSSymbol supertypes[MAX_SUPERTYPES];
    uint8_t supertype_count;
} Child;

#define MAX_MATCH_DEPTH 64
#define STEP_SIZE (sizeof(MatchStep) / sizeof(int32_t))
#define MAX_WALK_DEPTH 4000

typedef struct {
    const Taker *taker;
    const TSTree *tree;
    const TSLanguage *language;
    MatchPattern *patterns;
    uint32_t pattern_count;
    const int32_t *roots; /* per symbol, the first of its patterns in ``order`` (-1: none) */
    const int32_t *order; /* pattern ids by root symbol, each run ended by -1 */
    const int32_t *wildcards; /* patterns with a wildcard root, ended by -1 */
    /* The types of those patterns' children (none when more than 32 or 64 patterns), and per
     * pattern its type's bit. */
    TSSymbol wild_symbols[32];
    uint8_t wild_count, wild_bits[64];
    /* Whether a step of a type may match an anonymous node (else anonymous leaves are not
     * listed, but under a hidden supertype node, where a supertype's step may match them). */
    bool anonymous;
    /* Per public symbol below ``kind_count``, whether it is the type of a wildcard-rooted
     * pattern's child. */
    const uint8_t *wild_types;
    uint32_t kind_count;
    /* Per entry, a bit (its type modulo 64) for each of its steps of depth 1 that has a type
     * and is not optional: an entry can match only at a node with a child of each of them. */
    const uint64_t *needs;
    Buffer children;      /* of Child, a stack of the lists the matching reads */
    TSQueryCapture captures[64];
    uint16_t capture_count;
    uint32_t root_depth;
    int status;
} Matcher;

/* Appends the visible children of ``parent`` (flattening hidden ones) to the matcher's list;
 * ``index`` is the walk's index of the first. A child's field and supertypes are those the
 * query cursor reads (ts_tree_cursor_current_status): its own field, else that of the nearest
 * hidden ancestor that has one (an extra node has none of its own), up to an ancestor whose
 * kind is a visible one; the supertypes among those ancestors. ``inherited`` and ``supers``
 * are what the hidden ancestors of ``parent``'s children give. */
/* ts_language_symbol_metadata, inlined. */
static inline TSSymbolMetadata metadata_of(const TSLanguage *language, TSSymbol symbol) {
    if (symbol == ts_builtin_sym_error) return (TSSymbolMetadata){.visible = true, .named = true};
    if (symbol == ts_builtin_sym_error_repeat) return (TSSymbolMetadata){.visible = false, .named = false};
    return language->symbol_metadata[symbol];
}

static void collect(Matcher *m, const Subtree *parent, Length position, uint32_t index, TSFieldId inherited, const TSSymbol *supers,
                    uint8_t super_count) {
    uint32_t count = ts_subtree_child_count(*parent);
    if (count == 0) return;
    const Subtree *children = ts_subtree_children(*parent);
    uint16_t production = parent->ptr->production_id;
    const TSSymbol *aliases = ts_language_alias_sequence(m->language, production);
    const TSFieldMapEntry *fields, *fields_end;
    ts_language_field_map(m->language, production, &fields, &fields_end);
    uint32_t structural = 0;
    for (uint32_t i = 0; i < count && m->status == 0; i++) {
        const Subtree *child = &children[i];
        /* (The walk is bound by the reads of the children's data: the next ones' are asked for
         * ahead.) */
        if (i + 2 < count && !children[i + 2].data.is_inline) __builtin_prefetch(children[i + 2].ptr);
        if (i > 0) position = length_add(position, ts_subtree_padding(*child));
        TSSymbol alias = 0;
        TSFieldId field = 0;
        bool extra = ts_subtree_extra(*child);
        if (!extra && aliases) alias = aliases[structural];
        bool visible = ts_subtree_visible(*child) || alias;
        bool named = visible && (alias ? metadata_of(m->language, alias).named : ts_subtree_named(*child));
        if (visible && !named && !m->anonymous && !super_count && ts_subtree_child_count(*child) == 0) {
            /* An anonymous leaf, when no step matches anonymous nodes (but a supertype's, under
             * a hidden node of that supertype): nothing to list. */
            if (!extra) structural++;
            index++;
            position = length_add(position, ts_subtree_size(*child));
            continue;
        }
        if (!extra) {
            for (const TSFieldMapEntry *f = fields; f < fields_end; f++) {
                if (!f->inherited && f->child_index == structural) {
                    field = f->field_id;
                    break;
                }
            }
            structural++;
        }
        if (!field) field = inherited;
        if (visible) {
            Child *item = push(&m->children);
            if (item == NULL) {
                m->status = -1;
                return;
            }
            TSSymbol raw = alias ? alias : ts_subtree_symbol(*child);
            TSSymbol public = raw == ts_builtin_sym_error ? raw : m->language->public_symbol_map[raw]; /* ts_language_public_symbol */
            item->subtree = child;
            item->position = position;
            item->alias = alias;
            item->symbol = public;
            item->field = field;
            item->named = named;
            item->index = index;
            item->supertype_count = super_count;
            if (super_count) memcpy(item->supertypes, supers, super_count * sizeof(TSSymbol));
            index += ts_subtree_visible_descendant_count(*child) + 1;
        } else {
            TSSymbol symbol = ts_subtree_symbol(*child);
            TSSymbolMetadata metadata = metadata_of(m->language, symbol);
            TSSymbol below[MAX_SUPERTYPES];
            uint8_t below_count = 0;
            if (!metadata.visible) {
                below_count = super_count;
                if (super_count) memcpy(below, supers, super_count * sizeof(TSSymbol));
                if (metadata.supertype && below_count < MAX_SUPERTYPES) below[below_count++] = symbol;
            }
            collect(m, child, position, index, metadata.visible ? 0 : field, below, below_count);
            index += ts_subtree_visible_descendant_count(*child);
        }
        position = length_add(position, ts_subtree_size(*child));
    }
}

static inline TSNode node_of(const Matcher *m, const Child *c) { return ts_node_new(m->tree, c->subtree, c->position, c->alias); }

static inline Child *child_at(Matcher *m, size_t i) { return (Child *)m->children.items + i; }

/* The lists of children open at each depth of a pattern: where in the matcher's list, how
 * many, and the first that a step there may match. */
typedef struct {
    size_t offset, count, next, limit; /* limit: the last child the next step may match */
} Level;

static inline bool step_matches(Matcher *m, const MatchStep *step, const Level *level, size_t j) {
    const Child *c = child_at(m, level->offset + j);
    if (step->symbol == -1) { /* (_) */
        if (!c->named || c->symbol == ts_builtin_sym_error) return false;
    } else if (step->symbol == -2) { /* a supertype: any node but an error, under a hidden node of that type */
        if (c->symbol == ts_builtin_sym_error) return false;
        bool found = false;
        for (uint8_t k = 0; k < c->supertype_count && !found; k++) found = c->supertypes[k] == (TSSymbol)step->supertype;
        if (!found) return false;
    } else if (c->symbol != (TSSymbol)step->symbol) {
        return false;
    }
    if (step->field && c->field != (TSFieldId)step->field) return false;
    if (step->last) {
        for (size_t k = j + 1; k < level->count; k++)
            if (child_at(m, level->offset + k)->named) return false;
    }
    if (step->negated[0]) {
        TSNode node = node_of(m, c);
        for (int k = 0; k < 3 && step->negated[k]; k++)
            if (!ts_node_is_null(ts_node_child_by_field_id(node, (TSFieldId)step->negated[k]))) return false;
    }
    return true;
}

static inline bool add_captures(Matcher *m, const MatchStep *step, TSNode node) {
    for (int k = 0; k < 3 && step->captures[k] >= 0; k++) {
        if (m->capture_count == 64) return false;
        m->captures[m->capture_count++] = (TSQueryCapture){node, (uint32_t)step->captures[k]};
    }
    return true;
}

static void emit(Matcher *m, const MatchPattern *p, uint32_t last_index) {
    TSQueryMatch match = {0, (uint16_t)p->index, m->capture_count, m->captures};
    uint64_t depth = m->root_depth > 0xffff ? 0xffff : m->root_depth;
    uint64_t order = ((uint64_t)last_index << 32) | (depth << 16) | (p->index & 0xffff);
    int status = take_match(m->taker, &match, order);
    if (status) m->status = status;
}

/* Matches steps ``k`` on of ``p`` (levels[d - 1] holds the children the depth-d step reads). */
static void match_from(Matcher *m, const MatchPattern *p, uint32_t k, Level *levels, uint32_t last_index) {
    if (m->status) return;
    if (k == p->count) {
        emit(m, p, last_index);
        return;
    }
    const MatchStep *step = &p->steps[k];
    Level *level = &levels[step->depth - 1];
    size_t saved_next = level->next, saved_limit = level->limit;
    uint16_t saved_captures = m->capture_count;
    size_t first_taken = SIZE_MAX;
    level->limit = SIZE_MAX;
    for (size_t j = level->next; j < level->count && j <= saved_limit && m->status == 0; j++) {
        if (step_matches(m, step, level, j)) {
            if (first_taken == SIZE_MAX) first_taken = j;
            Child c = *child_at(m, level->offset + j);
            if (!add_captures(m, step, node_of(m, &c))) {
                m->status = 2;
                break;
            }
            level->next = j + 1;
            size_t mark = m->children.count;
            if (k + 1 < p->count && p->steps[k + 1].depth > step->depth) {
                Level *inner = &levels[step->depth];
                size_t offset = m->children.count;
                collect(m, c.subtree, c.position, c.index + 1, 0, NULL, 0);
                *inner = (Level){offset, m->children.count - offset, 0, SIZE_MAX};
            }
            match_from(m, p, k + 1, levels, c.index);
            m->children.count = mark;
            level->next = saved_next;
            m->capture_count = saved_captures;
        }
        if (step->immediate && child_at(m, level->offset + j)->named) break;
    }
    if (step->optional && m->status == 0) {
        /* Without this step's node: the cursor's state that skipped it gives way to one that
         * took a node (the longest match) once that one exists, so its next step may match only
         * up to the first node this step could take. */
        level->limit = first_taken < saved_limit ? first_taken : saved_limit;
        match_from(m, p, k + 1, levels, last_index);
    }
    level->limit = saved_limit;
}

/* Matches ``p`` rooted at ``node`` (whose children are ``offset``, ``count`` in the list). */
static void match_at(Matcher *m, const MatchPattern *p, const Child *node, size_t offset, size_t count, uint32_t depth) {
    Level levels[MAX_MATCH_DEPTH];
    levels[0] = (Level){offset, count, 0, SIZE_MAX};
    m->capture_count = 0;
    m->root_depth = depth;
    const MatchStep *root = &p->steps[0];
    if (root->negated[0]) { /* a root step's negated fields, as step_matches checks a child's */
        TSNode found = node_of(m, node);
        for (int k = 0; k < 3 && root->negated[k]; k++)
            if (!ts_node_is_null(ts_node_child_by_field_id(found, (TSFieldId)root->negated[k]))) return;
    }
    if (!add_captures(m, root, node_of(m, node))) {
        m->status = 2;
        return;
    }
    match_from(m, p, 1, levels, node->index);
}

/* Matches the patterns with a wildcard root at ``node`` (whose children are ``offset``,
 * ``count`` in the list). (The cursor starts such a pattern from the child only when the parent
 * is not an error: it takes such a pattern for one with several roots.) */
static void match_wildcards(Matcher *m, const Child *node, size_t offset, size_t count, uint32_t depth) {
    if (!count || node->symbol == ts_builtin_sym_error || m->wildcards[0] < 0) return;
    /* Which of the types the wildcard patterns' children have are among the children (all of
     * them when there are too many types to tell). */
    uint32_t present = m->wild_count ? 0 : UINT32_MAX;
    for (size_t j = 0; j < count && m->wild_count; j++) {
        TSSymbol symbol = child_at(m, offset + j)->symbol;
        for (uint8_t k = 0; k < m->wild_count; k++)
            if (symbol == m->wild_symbols[k]) present |= 1u << k;
    }
    for (size_t i = 0; present && m->wildcards[i] >= 0 && m->status == 0; i++) {
        if (m->wild_count && !(present & (1u << m->wild_bits[i]))) continue;
        /* Only where a child is of the type (and in the field) of the pattern's child. */
        const MatchStep *step = &m->patterns[m->wildcards[i]].steps[1];
        bool found = false;
        for (size_t j = 0; j < count && !found; j++) {
            const Child *c = child_at(m, offset + j);
            found = c->symbol == (TSSymbol)step->symbol && (!step->field || c->field == (TSFieldId)step->field);
        }
        if (found) match_at(m, &m->patterns[m->wildcards[i]], node, offset, count, depth);
    }
}

static void visit_children(Matcher *m, const Subtree *parent, Length position, uint32_t index, uint32_t depth, uint64_t *types, bool *wild);

/* The walk at a visible node (``node``: its subtree, position, alias, type and index; its
 * children are not listed) of depth ``depth``: its children, then the patterns rooted at it.
 * The walk through the children tells which types they have (modulo 64: ``types``), and
 * whether one is of the type of a wildcard-rooted pattern's child (or of a type past the
 * table): only the entries rooted at the node that may match with such children are tried,
 * and the children are listed (``collect``) only where one is. (The order in which the walk
 * finds the matches does not matter: each carries its place in the cursor's order, which the
 * run sorts by.) */
static void visit(Matcher *m, const Child *node, uint32_t depth) {
    if (depth > MAX_WALK_DEPTH) {
        m->status = 2;
        return;
    }
    uint64_t types = 0;
    bool wild = false;
    bool wildcards = node->symbol != ts_builtin_sym_error && m->wildcards[0] >= 0;
    if (ts_subtree_child_count(*node->subtree) > 0)
        visit_children(m, node->subtree, node->position, node->index + 1, depth + 1, &types, wildcards ? &wild : NULL);
    int32_t first = m->roots[node->symbol];
    bool rooted = false;
    if (first >= 0) {
        for (const int32_t *p = &m->order[first]; *p >= 0 && !rooted; p++) rooted = (m->needs[*p] & ~types) == 0;
    }
    if (m->status || !(rooted || wild)) return;
    size_t offset = m->children.count;
    collect(m, node->subtree, node->position, node->index + 1, 0, NULL, 0);
    size_t count = m->children.count - offset;
    if (rooted) {
        for (const int32_t *p = &m->order[first]; *p >= 0 && m->status == 0; p++)
            if ((m->needs[*p] & ~types) == 0) match_at(m, &m->patterns[*p], node, offset, count, depth);
    }
    if (wild && m->status == 0) match_wildcards(m, node, offset, count, depth);
    m->children.count = offset;
}

/* Visits the visible children of ``parent`` (through its hidden ones) that have children or
 * where a pattern is rooted; ``index`` is the walk's index of the first. Each one's type sets
 * its bit (modulo 64) in ``*types``; ``*wild`` is set when one is of a type a wildcard-rooted
 * pattern's child has (``wild``: NULL when not asked). */
static void visit_children(Matcher *m, const Subtree *parent, Length position, uint32_t index, uint32_t depth, uint64_t *types, bool *wild) {
    uint32_t count = ts_subtree_child_count(*parent);
    if (count == 0) return;
    const Subtree *children = ts_subtree_children(*parent);
    const TSSymbol *aliases = ts_language_alias_sequence(m->language, parent->ptr->production_id);
    const TSSymbol *public_map = m->language->public_symbol_map;
    uint32_t structural = 0;
    for (uint32_t i = 0; i < count && m->status == 0; i++) {
        const Subtree *child = &children[i];
        if (child->data.is_inline) {
            /* A leaf kept in place (subtree.h's accessors, read once for the one branch). */
            if (i > 0) position = length_add(position, (Length){child->data.padding_bytes, {child->data.padding_rows, child->data.padding_columns}});
            TSSymbol alias = 0;
            if (!child->data.extra) {
                if (aliases) alias = aliases[structural];
                structural++;
            }
            if (alias || child->data.visible) {
                TSSymbol raw = alias ? alias : child->data.symbol;
                TSSymbol public = raw == ts_builtin_sym_error ? raw : public_map[raw];
                *types |= 1ull << (public & 63);
                if (wild != NULL && (public >= m->kind_count || m->wild_types[public])) *wild = true;
                if (m->roots[public] >= 0) {
                    Child node = {.subtree = child, .position = position, .alias = alias, .symbol = public, .index = index};
                    visit(m, &node, depth);
                }
                index++;
            }
            position = length_add(position, (Length){child->data.size_bytes, {0, child->data.size_bytes}});
            continue;
        }
        if (i + 2 < count && !children[i + 2].data.is_inline) __builtin_prefetch(children[i + 2].ptr);
        const SubtreeHeapData *data = child->ptr;
        if (i > 0) position = length_add(position, data->padding);
        TSSymbol alias = 0;
        if (!data->extra) {
            if (aliases) alias = aliases[structural];
            structural++;
        }
        uint32_t below = data->child_count;
        if (alias || data->visible) {
            TSSymbol raw = alias ? alias : data->symbol;
            TSSymbol public = raw == ts_builtin_sym_error ? raw : public_map[raw];
            *types |= 1ull << (public & 63);
            if (wild != NULL && (public >= m->kind_count || m->wild_types[public])) *wild = true;
            if (below > 0 || m->roots[public] >= 0) {
                Child node = {.subtree = child, .position = position, .alias = alias, .symbol = public, .index = index};
                visit(m, &node, depth);
            }
            index += (below ? data->visible_descendant_count : 0) + 1;
        } else if (below > 0) {
            visit_children(m, child, position, index, depth, types, wild);
            index += data->visible_descendant_count;
        }
        position = length_add(position, data->size);
    }
}

/* How many trees the matcher answered for (``matched()``): the tests check that it runs. */
static unsigned long long matched_trees = 0;

/* A table read for the matcher (match_tree): its patterns, its lookups, and what the walk reads
 * of them. */
typedef struct {
    PyObject *table, *index; /* the objects read (a prepared table keeps a reference to each) */
    const TSLanguage *language;
    uint32_t query_patterns;
    MatchPattern *patterns;
    uint32_t count;
    const int32_t *lists;
    bool anonymous;
    TSSymbol wild_symbols[32];
    uint8_t wild_count, wild_bits[64];
    uint8_t *wild_types;
    uint32_t kind_count;
    uint64_t *needs;
} Prepared;

static void release_prepared(Prepared *p) {
    PyMem_Free(p->patterns);
    PyMem_Free(p->wild_types);
    PyMem_Free(p->needs);
    p->patterns = NULL;
    p->wild_types = NULL;
    p->needs = NULL;
}

/* Reads ``values`` (``size`` 32-bit integers) and ``lists`` (``listed`` of them) as a table and
 * its lookups for ``language`` and a query of ``query_patterns`` patterns: 0, 2 when this
 * module does not read them, -1 without memory. */
static int prepare(const int32_t *values, size_t size, const int32_t *lists, size_t listed, const TSLanguage *language,
                   uint32_t query_patterns, Prepared *p) {
    *p = (Prepared){.language = language, .query_patterns = query_patterns, .lists = lists};
    /* index: 65536 roots, then the order and wildcard lists. */
    if (size < 1 || listed < 65536 + 2) return 2;
    uint32_t count = (uint32_t)values[0];
    p->count = count;
    p->patterns = PyMem_Calloc(count + 1, sizeof(MatchPattern));
    if (p->patterns == NULL) return -1;
    MatchPattern *patterns = p->patterns;
    size_t at = 1;
    for (uint32_t i = 0; i < count; i++) {
        if (at + 2 > size) return 2;
        uint32_t pattern = (uint32_t)values[at++];
        uint32_t steps = (uint32_t)values[at++];
        if (pattern >= query_patterns || steps == 0 || at + (size_t)steps * STEP_SIZE > size) return 2;
        patterns[i] = (MatchPattern){(const MatchStep *)&values[at], steps, pattern};
        for (uint32_t k = 1; k < steps; k++) {
            int32_t depth = patterns[i].steps[k].depth;
            if (depth < 1 || depth >= MAX_MATCH_DEPTH || depth > patterns[i].steps[k - 1].depth + 1) return 2;
        }
        at += (size_t)steps * STEP_SIZE;
    }
    if (lists[65536] < 0 || listed < 65536 + 2 + (size_t)lists[65536]) return 2;
    /* Every entry the lookups name exists, and one with a wildcard root has a typed child. */
    size_t entries = listed - 65536 - 1;
    for (size_t i = 0; i < entries; i++) {
        int32_t entry = lists[65536 + 1 + i];
        if (entry >= (int32_t)count) return 2;
        if (i >= (size_t)lists[65536] && entry >= 0 && (patterns[entry].count < 2 || patterns[entry].steps[1].symbol < 0)) return 2;
    }
    p->kind_count = language->symbol_count + language->alias_count; /* ts_language_symbol_count */
    for (uint32_t i = 0; i < count && !p->anonymous; i++) {
        for (uint32_t k = 0; k < patterns[i].count && !p->anonymous; k++) {
            int32_t symbol = patterns[i].steps[k].symbol;
            p->anonymous = symbol >= 0 && ((uint32_t)symbol >= p->kind_count || !metadata_of(language, (TSSymbol)symbol).named);
        }
    }
    const int32_t *wildcards = lists + 65536 + 1 + lists[65536];
    for (size_t i = 0; wildcards[i] >= 0; i++) {
        if (i == 64) {
            p->wild_count = 0;
            break;
        }
        TSSymbol symbol = (TSSymbol)patterns[wildcards[i]].steps[1].symbol;
        uint8_t k = 0;
        while (k < p->wild_count && p->wild_symbols[k] != symbol) k++;
        if (k == 32) {
            p->wild_count = 0;
            break;
        }
        if (k == p->wild_count) p->wild_symbols[p->wild_count++] = symbol;
        p->wild_bits[i] = k;
    }
    p->wild_types = PyMem_Calloc(p->kind_count + 1, 1);
    p->needs = PyMem_Calloc(count + 1, sizeof(uint64_t));
    if (p->wild_types == NULL || p->needs == NULL) return -1;
    for (uint32_t i = 0; i < count; i++) {
        for (uint32_t k = 1; k < patterns[i].count; k++) {
            const MatchStep *step = &patterns[i].steps[k];
            if (step->depth == 1 && step->symbol >= 0 && !step->optional) p->needs[i] |= 1ull << (step->symbol & 63);
        }
    }
    for (size_t i = 0; wildcards[i] >= 0; i++) {
        int32_t symbol = patterns[wildcards[i]].steps[1].symbol;
        if ((uint32_t)symbol < p->kind_count) p->wild_types[symbol] = 1;
    }
    return 0;
}

/* The tables read so far, by the bytes objects they were read from (a spec's plan keeps its
 * own for the life of the process): read once rather than at every tree. */
#define MOST_PREPARED 32
static Prepared prepared_tables[MOST_PREPARED];
static int prepared_count = 0;

/* Walks the tree from its root with the prepared table. */
static int match_prepared(const Taker *t, const Prepared *p, const TSTree *tree) {
    Matcher m = {.taker = t,
                 .tree = tree,
                 .language = tree->language,
                 .patterns = p->patterns,
                 .pattern_count = p->count,
                 .roots = p->lists,
                 .order = p->lists + 65536 + 1,
                 .wildcards = p->lists + 65536 + 1 + p->lists[65536],
                 .wild_count = p->wild_count,
                 .anonymous = p->anonymous,
                 .wild_types = p->wild_types,
                 .needs = p->needs,
                 .kind_count = p->kind_count,
                 .children = {NULL, 0, 0, sizeof(Child)}};
    memcpy(m.wild_symbols, p->wild_symbols, sizeof(m.wild_symbols));
    memcpy(m.wild_bits, p->wild_bits, sizeof(m.wild_bits));
    const Subtree *top = &tree->root;
    Child start = {top, ts_subtree_padding(*top), 0, ts_language_public_symbol(tree->language, ts_subtree_symbol(*top)), 0,
                   ts_subtree_named(*top), 0, {0}, 0};
    visit(&m, &start, 0);
    PyMem_Free(m.children.items);
    if (m.status == 0) matched_trees++;
    return m.status;
}

/* Runs the matcher of ``table`` (patterns.py: per entry, a pattern's index and its steps) over
 * the tree of ``root`` (with ``index``, its lookups by entry: see engine._matcher): 0, or 1 when
 * the Python path must answer, -1 on an error, 2 when the cursor must answer instead (a tree
 * too deep, a table this module does not read). */
static int match_tree(const Taker *t, PyObject *table, PyObject *index, PyNode *root) {
    const TSTree *tree = root->node.tree;
    /* Only a whole tree, from its root. */
    if (root->node.id != (const void *)&tree->root) return 2;
    if (PyBytes_CheckExact(table) && PyBytes_CheckExact(index)) {
        for (int i = 0; i < prepared_count; i++) {
            Prepared *p = &prepared_tables[i];
            if (p->table == table && p->index == index && p->language == tree->language && p->query_patterns == t->patterns)
                return p->patterns == NULL ? 2 : match_prepared(t, p, tree);
        }
        Prepared p;
        int status = prepare((const int32_t *)PyBytes_AS_STRING(table), (size_t)PyBytes_GET_SIZE(table) / sizeof(int32_t),
                             (const int32_t *)PyBytes_AS_STRING(index), (size_t)PyBytes_GET_SIZE(index) / sizeof(int32_t), tree->language,
                             t->patterns, &p);
        if (status != 0) release_prepared(&p);
        if (status < 0) return -1;
        if (prepared_count < MOST_PREPARED) {
            /* (A table this module does not read is remembered so too, with no patterns.) */
            p.table = Py_NewRef(table);
            p.index = Py_NewRef(index);
            prepared_tables[prepared_count++] = p;
            return status ? status : match_prepared(t, &prepared_tables[prepared_count - 1], tree);
        }
        if (status) return status;
        status = match_prepared(t, &p, tree);
        release_prepared(&p);
        return status;
    }
    Py_buffer table_view, index_view;
    if (PyObject_GetBuffer(table, &table_view, PyBUF_SIMPLE) < 0) return -1;
    if (PyObject_GetBuffer(index, &index_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&table_view);
        return -1;
    }
    Prepared p;
    int status = prepare(table_view.buf, (size_t)table_view.len / sizeof(int32_t), index_view.buf, (size_t)index_view.len / sizeof(int32_t),
                         tree->language, t->patterns, &p);
    if (status == 0) status = match_prepared(t, &p, tree);
    release_prepared(&p);
    PyBuffer_Release(&table_view);
    PyBuffer_Release(&index_view);
    return status;
}

/* run(query, node, split, kinds, flags, name, qualifier, uses, reference, reference_kinds,
 *     body_field, node_kinds, nest, prefix, source, table, index) -> (symbols, references) | None
 *
 * ``query``'s matches under ``node`` (the root of a tree parsed from bytes), as the engine
 * reads them. Patterns before ``split`` are definitions', the rest references'. ``kinds``
 * holds a 32-bit integer per pattern (native byte order): for a definition's pattern the id
 * of the capture that names its kind, for a reference's pattern the index (0, 1, 2) in
 * ``uses`` of the one capture it names a reference with; -1 when the pattern has several,
 * which then take the general rule. ``flags`` holds a byte per capture id: 1, not a kind
 * (``@name``, ``@_x``); 2, a scope (a definition that qualifies what it contains but is not a
 * symbol); 4, a type's kind (functions in it are methods); 8, ``function``. ``name`` and
 * ``qualifier`` are the ids of those captures (-1: none), ``uses`` the ids of the ``call``,
 * ``type`` and ``base`` captures (-1: none) and ``reference_kinds`` their kind strings;
 * ``reference`` is the Reference record type. ``body_field`` is the id of the field ``body``
 * (-1: none) and ``node_kinds`` a 65,536-byte table of node kinds: 1, a comment; 2, a wrapper
 * (see comments_above). ``nest`` is what nesting reads (see read_nest), ``prefix`` the module
 * prefix (or None) and ``source`` the bytes the hooks are called with. ``table`` and ``index``
 * are the matcher's (see match_tree), or None: tree-sitter's query cursor finds the matches.
 *
 * Definitions: the first node of a match's kind capture (general rule: of its first capture
 * that is not flagged 1), when the match has a name; one per node range, that of the lowest
 * pattern (then the earliest match); sorted by start, enclosing ranges first; nested into
 * the engine's Symbol records (nest_symbols).
 * References: the first node of the match's reference capture (general rule: the first of
 * ``uses`` it has), with its qualifier's first node; one per start byte, the earliest match;
 * in source order, as Reference(kind, name, line, column, start, end, qualifier, scope): a
 * name of 1 to 200 bytes, a qualifier of at most 200 bytes on one line (else None), the scope
 * the index of the innermost symbol that encloses it (-1: none).
 * None: the Python path must answer (no bytes source, or py-tree-sitter or the engine would
 * raise, or a hook returned what the engine would not read as text). */
static PyObject *run(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 17) {
        PyErr_SetString(PyExc_TypeError, "run() takes 17 arguments");
        return NULL;
    }
    PyQuery *query;
    PyNode *root;
    Source source;
    int status = arguments(args[0], args[1], &query, &root, &source);
    if (status == 0) return NULL;
    if (status < 0) Py_RETURN_NONE;
    long split = PyLong_AsLong(args[2]);
    long name_id = PyLong_AsLong(args[5]);
    long qualifier_id = PyLong_AsLong(args[6]);
    long body_field = PyLong_AsLong(args[10]);
    if (PyErr_Occurred()) return NULL;
    if (!PyTuple_Check(args[7]) || PyTuple_GET_SIZE(args[7]) != 3 || !PyTuple_Check(args[9]) || PyTuple_GET_SIZE(args[9]) != 3) {
        PyErr_SetString(PyExc_TypeError, "run() needs three reference captures and three reference kinds");
        return NULL;
    }
    long use_ids[3];
    PyObject *use_kinds[3];
    for (int i = 0; i < 3; i++) {
        use_ids[i] = PyLong_AsLong(PyTuple_GET_ITEM(args[7], i));
        use_kinds[i] = PyTuple_GET_ITEM(args[9], i);
    }
    if (PyErr_Occurred()) return NULL;
    PyObject *reference_type = args[8];
    Nest nest;
    if (!read_nest(args[12], &nest)) return NULL;
    uint32_t patterns = ts_query_pattern_count(query->query);
    uint32_t captures = ts_query_capture_count(query->query);
    Py_buffer kinds_view, flags_view, table_view;
    if (PyObject_GetBuffer(args[3], &kinds_view, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[4], &flags_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&kinds_view);
        return NULL;
    }
    if (PyObject_GetBuffer(args[11], &table_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&kinds_view);
        PyBuffer_Release(&flags_view);
        return NULL;
    }
    if ((size_t)kinds_view.len < patterns * sizeof(int32_t) || (size_t)flags_view.len < captures || table_view.len < 65536) {
        PyBuffer_Release(&kinds_view);
        PyBuffer_Release(&flags_view);
        PyBuffer_Release(&table_view);
        PyErr_SetString(PyExc_ValueError, "run() needs a kind per pattern, a flag per capture and a 65536-byte node kind table");
        return NULL;
    }
    if (PyTuple_GET_SIZE(nest.names) < (Py_ssize_t)captures) {
        PyBuffer_Release(&kinds_view);
        PyBuffer_Release(&flags_view);
        PyBuffer_Release(&table_view);
        PyErr_SetString(PyExc_ValueError, "run() needs a name per capture");
        return NULL;
    }
    const int32_t *kinds = kinds_view.buf;
    const unsigned char *flags = flags_view.buf;
    const unsigned char *node_kinds = table_view.buf;

    Buffer definitions = {NULL, 0, 0, sizeof(Definition)}, uses = {NULL, 0, 0, sizeof(Use)};
    PyObject *result = NULL;
    int fallback = 0, failed = 0;
    Taker taker = {query, &source, kinds, flags, patterns, captures, split, name_id, qualifier_id, {use_ids[0], use_ids[1], use_ids[2]},
                   &definitions, &uses};
    int matched = 2;
    if (args[15] != Py_None) matched = match_tree(&taker, args[15], args[16], root);
    if (matched == 2) { /* no table, or the matcher handed over: tree-sitter's cursor */
        definitions.count = uses.count = 0;
        matched = 0;
        uint64_t order = 0;
        TSQueryCursor *cursor = ts_query_cursor_new();
        ts_query_cursor_exec(cursor, query->query, root->node);
        TSQueryMatch match;
        while (matched == 0 && ts_query_cursor_next_match(cursor, &match)) matched = take_match(&taker, &match, ++order);
        ts_query_cursor_delete(cursor);
    }
    if (matched < 0) failed = 1;
    if (matched == 1) fallback = 1;
    PyBuffer_Release(&kinds_view);
    if (failed) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    if (fallback) {
        PyErr_Clear();
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }

    /* One definition per range, nested into symbols; the emitted ones' ranges for the
     * references' scopes. */
    Definition *defs = (Definition *)definitions.items;
    if (definitions.count > 1) qsort(defs, definitions.count, sizeof(Definition), compare_definitions);
    size_t kept = 0;
    for (size_t i = 0; i < definitions.count; i++) {
        if (kept && defs[kept - 1].start == defs[i].start && defs[kept - 1].end == defs[i].end) continue;
        defs[kept++] = defs[i];
    }
    uint32_t *symbols = PyMem_Malloc((kept + 1) * 2 * sizeof(uint32_t));
    if (symbols == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    size_t symbol_count = 0;
    PyObject *found = nest_symbols(&source, defs, kept, flags, captures, &nest, args[13], args[14], root->tree, body_field, node_kinds,
                                   symbols, &symbol_count, &fallback);
    if (found == NULL) {
        PyMem_Free(symbols);
        if (fallback) {
            Py_INCREF(Py_None);
            result = Py_None;
        }
        goto done;
    }
    PyObject *refs = NULL;
    if (!failed) {
        Use *all = (Use *)uses.items;
        if (uses.count > 1) qsort(all, uses.count, sizeof(Use), compare_uses);
        size_t distinct = 0;
        for (size_t i = 0; i < uses.count; i++) {
            if (distinct && all[distinct - 1].start == all[i].start) continue;
            all[distinct++] = all[i];
        }
        refs = references(&source, all, distinct, symbols, symbol_count, reference_type, use_kinds);
    }
    PyMem_Free(symbols);
    if (refs == NULL) {
        Py_DECREF(found);
        goto done;
    }
    result = PyTuple_Pack(2, found, refs);
    Py_DECREF(found);
    Py_DECREF(refs);
done:
    PyBuffer_Release(&flags_view);
    PyBuffer_Release(&table_view);
    PyMem_Free(definitions.items);
    PyMem_Free(uses.items);
    return result;
}

/* The imports of a file, for the specs whose imports hook query.c reads itself (``imports``
 * below): specs/javascript.py's, specs/python.py's and specs/rust.py's _imports, whose rules
 * stay the one definition (bench/bench_polyglot.py --check and tests/test_native_query.py compare both). */

typedef struct {
    const Source *source;
    PyObject *import_type;
    PyObject *result;
    bool fallback; /* the Python hook must answer */
} Importer;

static inline bool word_byte(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* The letters by how rarely they occur in source code, rarest first: a word is looked for at
 * its rarest letter. */
static const char rarity[] = "zqxjkvbpygfwmucldrhsnioate";

/* engine.word_spans: where ``words`` occur as whole words, by start (each word's in order). */
static int word_spans(const Source *source, const char *const *words, int count, Buffer *found) {
    found->count = 0;
    for (int w = 0; w < count; w++) {
        const char *word = words[w];
        size_t length = strlen(word);
        if (length == 0) continue;
        /* Every occurrence has the word's rarest letter at the same offset: memchr finds those
         * places (``e`` and ``r`` are everywhere, ``q``, ``x`` or ``p`` much less so), and the
         * word is compared around each. (memmem costs several instructions a byte.) */
        size_t offset = 0, best = sizeof(rarity);
        for (size_t i = 0; i < length; i++) {
            const char *rank = memchr(rarity, word[i], sizeof(rarity) - 1);
            size_t r = rank == NULL ? sizeof(rarity) - 1 : (size_t)(rank - rarity);
            if (r < best) {
                best = r;
                offset = i;
            }
        }
        const char *data = source->data, *end = data + source->size;
        char letter = word[offset];
        for (const char *at = data + offset; at < end;) {
            const char *hit = memchr(at, letter, (size_t)(end - at));
            if (hit == NULL) break;
            at = hit + 1;
            Py_ssize_t start = (hit - data) - (Py_ssize_t)offset, stop = start + (Py_ssize_t)length;
            if (stop > source->size || memcmp(data + start, word, length) != 0) continue;
            if ((start == 0 || !word_byte((unsigned char)data[start - 1])) && (stop == source->size || !word_byte((unsigned char)data[stop]))) {
                uint32_t *span = push(found);
                if (span == NULL) return -1;
                span[0] = (uint32_t)start;
                span[1] = (uint32_t)stop;
            }
        }
    }
    return 0;
}

static int compare_spans(const void *x, const void *y) {
    const uint32_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* Import(module, line, column, start, end, names, alias) of ``node``, appended; steals
 * ``module``, ``names`` and ``alias`` (NULL: None). */
static int add_import(Importer *im, TSNode node, PyObject *module, PyObject *names, PyObject *alias) {
    TSPoint point = ts_node_start_point(node);
    PyObject *call[7] = {module,
                         PyLong_FromUnsignedLong(point.row + 1UL),
                         PyLong_FromUnsignedLong(point.column),
                         PyLong_FromUnsignedLong(ts_node_start_byte(node)),
                         PyLong_FromUnsignedLong(ts_node_end_byte(node)),
                         names,
                         alias != NULL ? alias : Py_None};
    PyObject *record = NULL;
    if (call[1] && call[2] && call[3] && call[4]) record = PyObject_Vectorcall(im->import_type, call, 7, NULL);
    for (int k = 1; k < 5; k++) Py_XDECREF(call[k]);
    Py_DECREF(module);
    Py_DECREF(names);
    Py_XDECREF(alias);
    if (record == NULL) return -1;
    int appended = PyList_Append(im->result, record);
    Py_DECREF(record);
    return appended;
}

/* (first, second) appended to ``names``; steals both. */
static int add_pair(PyObject *names, PyObject *first, PyObject *second) {
    if (first == NULL || second == NULL) {
        Py_XDECREF(first);
        Py_XDECREF(second);
        return -1;
    }
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(first);
        Py_DECREF(second);
        return -1;
    }
    PyTuple_SET_ITEM(pair, 0, first);
    PyTuple_SET_ITEM(pair, 1, second);
    int appended = PyList_Append(names, pair);
    Py_DECREF(pair);
    return appended;
}

/* JavaScript's _js_string: a string literal's text without its quotes (1, ``*text`` set), or
 * 0 for anything else. */
static int js_string(Importer *im, TSNode node, PyObject **text) {
    if (!is_type(node, "string")) return 0;
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (end - start < 2 || end < start) return 0;
    *text = decode(im->source, start + 1, end - 1);
    return *text == NULL ? -1 : 1;
}

/* _js_name: a string's value, else the node's text; "" for no node. */
static PyObject *js_name(Importer *im, TSNode node) {
    if (ts_node_is_null(node)) return PyUnicode_New(0, 0);
    PyObject *text = NULL;
    int status = js_string(im, node, &text);
    if (status < 0) return NULL;
    return status ? text : node_string(im->source, node);
}

/* _specifiers: the (name, alias) pairs of a clause's specifiers of type ``kind``. */
static int js_specifiers(Importer *im, TSNode clause, const char *kind, PyObject *names) {
    uint32_t count = ts_node_named_child_count(clause);
    for (uint32_t i = 0; i < count; i++) {
        TSNode specifier = ts_node_named_child(clause, i);
        if (!is_type(specifier, kind)) continue;
        PyObject *name = js_name(im, field(specifier, "name"));
        if (name == NULL) return -1;
        TSNode alias = field(specifier, "alias");
        if (add_pair(names, Py_NewRef(name), ts_node_is_null(alias) ? Py_NewRef(name) : js_name(im, alias)) < 0) {
            Py_DECREF(name);
            return -1;
        }
        Py_DECREF(name);
    }
    return 0;
}

static int js_import_statement(Importer *im, TSNode statement) {
    PyObject *module = NULL, *names = PyList_New(0), *alias = NULL;
    if (names == NULL || js_string(im, field(statement, "source"), &module) < 0) goto fail;
    uint32_t count = ts_node_named_child_count(statement);
    for (uint32_t i = 0; i < count; i++) {
        TSNode child = ts_node_named_child(statement, i);
        if (is_type(child, "import_require_clause")) {
            Py_CLEAR(module);
            if (js_string(im, field(child, "source"), &module) < 0) goto fail;
            uint32_t parts = ts_node_named_child_count(child);
            for (uint32_t j = 0; j < parts; j++) {
                TSNode part = ts_node_named_child(child, j);
                if (!is_type(part, "identifier")) continue;
                Py_XSETREF(alias, js_name(im, part));
                if (alias == NULL) goto fail;
            }
        } else if (is_type(child, "import_clause")) {
            uint32_t parts = ts_node_named_child_count(child);
            for (uint32_t j = 0; j < parts; j++) {
                TSNode part = ts_node_named_child(child, j);
                if (is_type(part, "identifier")) {
                    if (add_pair(names, PyUnicode_FromString("default"), js_name(im, part)) < 0) goto fail;
                } else if (is_type(part, "namespace_import")) {
                    uint32_t inner = ts_node_named_child_count(part);
                    for (uint32_t k = 0; k < inner; k++) {
                        Py_XSETREF(alias, js_name(im, ts_node_named_child(part, k)));
                        if (alias == NULL) goto fail;
                    }
                } else if (is_type(part, "named_imports")) {
                    if (js_specifiers(im, part, "import_specifier", names) < 0) goto fail;
                }
            }
        }
    }
    if (module == NULL) {
        Py_DECREF(names);
        Py_XDECREF(alias);
        return 0;
    }
    return add_import(im, statement, module, names, alias);
fail:
    Py_XDECREF(module);
    Py_XDECREF(names);
    Py_XDECREF(alias);
    return -1;
}

static int js_reexport(Importer *im, TSNode statement) {
    PyObject *module = NULL, *names = NULL, *alias = NULL;
    int status = js_string(im, field(statement, "source"), &module);
    if (status <= 0) return status; /* an export of the file's own names */
    names = PyList_New(0);
    if (names == NULL) goto fail;
    uint32_t count = ts_node_child_count(statement);
    for (uint32_t i = 0; i < count; i++) {
        TSNode child = ts_node_child(statement, i);
        if (is_type(child, "*")) {
            if (add_pair(names, PyUnicode_FromString("*"), PyUnicode_FromString("*")) < 0) goto fail;
        } else if (is_type(child, "namespace_export")) {
            uint32_t inner = ts_node_named_child_count(child);
            for (uint32_t k = 0; k < inner; k++) {
                Py_XSETREF(alias, js_name(im, ts_node_named_child(child, k)));
                if (alias == NULL) goto fail;
            }
        } else if (is_type(child, "export_clause")) {
            if (js_specifiers(im, child, "export_specifier", names) < 0) goto fail;
        }
    }
    return add_import(im, statement, module, names, alias);
fail:
    Py_XDECREF(module);
    Py_XDECREF(names);
    Py_XDECREF(alias);
    return -1;
}

/* _call: ``require("x")`` or ``import("x")``, with what a declaration binds from a require. */
static int js_call(Importer *im, TSNode call, TSNode function) {
    TSNode callee = field(call, "function"), arguments = field(call, "arguments");
    if (!is_type(call, "call_expression") || ts_node_is_null(callee) || ts_node_start_byte(callee) != ts_node_start_byte(function) ||
        ts_node_is_null(arguments))
        return 0;
    if (ts_node_named_child_count(arguments) != 1) return 0;
    PyObject *module = NULL, *names = NULL, *alias = NULL;
    int status = js_string(im, ts_node_named_child(arguments, 0), &module);
    if (status <= 0) return status; /* a computed path: nothing to resolve */
    names = PyList_New(0);
    if (names == NULL) goto fail;
    TSNode holder = ts_node_parent(call);
    if (is_type(function, "identifier") && !ts_node_is_null(holder)) {
        TSNode target = {{0}, NULL, NULL};
        if (is_type(holder, "variable_declarator") && ts_node_eq(field(holder, "value"), call)) target = field(holder, "name");
        else if (is_type(holder, "assignment_expression") && ts_node_eq(field(holder, "right"), call)) target = field(holder, "left");
        if (is_type(target, "identifier")) {
            alias = js_name(im, target);
            if (alias == NULL) goto fail;
        } else if (is_type(target, "object_pattern")) {
            uint32_t count = ts_node_named_child_count(target);
            for (uint32_t i = 0; i < count; i++) {
                TSNode part = ts_node_named_child(target, i);
                if (is_type(part, "shorthand_property_identifier_pattern")) {
                    PyObject *name = js_name(im, part);
                    if (name == NULL || add_pair(names, Py_NewRef(name), name) < 0) goto fail;
                } else if (is_type(part, "pair_pattern")) {
                    TSNode key = field(part, "key"), value = field(part, "value");
                    if (!ts_node_is_null(key) && is_type(value, "identifier") && add_pair(names, js_name(im, key), js_name(im, value)) < 0) goto fail;
                }
            }
        }
    }
    return add_import(im, call, module, names, alias);
fail:
    Py_XDECREF(module);
    Py_XDECREF(names);
    Py_XDECREF(alias);
    return -1;
}

static int javascript_imports(Importer *im, TSNode root) {
    static const char *const words[] = {"import", "export", "require"};
    Buffer spans = {NULL, 0, 0, 2 * sizeof(uint32_t)};
    int status = word_spans(im->source, words, 3, &spans);
    if (spans.count > 1) qsort(spans.items, spans.count, spans.size, compare_spans);
    for (size_t i = 0; status == 0 && i < spans.count; i++) {
        const uint32_t *span = (const uint32_t *)(spans.items + i * spans.size);
        TSNode keyword = ts_node_descendant_for_byte_range(root, span[0], span[1]);
        if (ts_node_is_null(keyword)) continue;
        TSNode parent = ts_node_parent(keyword);
        if (ts_node_is_null(parent)) continue;
        if (is_type(keyword, "import") && is_type(parent, "import_statement")) status = js_import_statement(im, parent);
        else if (is_type(keyword, "export") && is_type(parent, "export_statement")) status = js_reexport(im, parent);
        else if (is_type(keyword, "import") && is_type(parent, "import")) {
            TSNode call = ts_node_parent(parent);
            if (!ts_node_is_null(call)) status = js_call(im, call, parent);
        } else if (is_type(keyword, "identifier") && is_type(parent, "call_expression") && span[1] - span[0] == 7 &&
                   memcmp(im->source->data + span[0], "require", 7) == 0)
            status = js_call(im, parent, keyword);
        if (status > 0) status = 0;
    }
    PyMem_Free(spans.items);
    return status;
}

/* Python's _py_text: a dotted name without its whitespace; NULL without an exception where the
 * Python hook must answer (text other than ASCII, whose whitespace is Unicode's). */
static PyObject *py_text(Importer *im, TSNode node) {
    const char *text;
    Py_ssize_t length;
    slice(im->source, ts_node_start_byte(node), ts_node_end_byte(node), &text, &length);
    if (!all_ascii(text, length)) {
        im->fallback = true;
        return NULL;
    }
    PyObject *result = PyUnicode_New(length, 127);
    if (result == NULL) return NULL;
    Py_UCS1 *out = PyUnicode_1BYTE_DATA(result);
    Py_ssize_t size = 0;
    for (Py_ssize_t i = 0; i < length; i++)
        if (!ascii_space((unsigned char)text[i])) out[size++] = (Py_UCS1)text[i];
    if (size == length) return result;
    PyObject *shorter = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, out, size);
    Py_DECREF(result);
    return shorter;
}

/* The children of ``node`` in field ``name``, as children_by_field_name lists them. */
static uint32_t children_in_field(TSNode node, const char *name, TSNode *found, uint32_t most) {
    TSFieldId id = field_id(ts_node_language(node), name);
    uint32_t count = 0;
    if (!id) return 0;
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    for (bool ok = ts_tree_cursor_goto_first_child(&cursor); ok; ok = ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (ts_tree_cursor_current_field_id(&cursor) != id) continue;
        if (count == most) {
            count = most + 1;
            break;
        }
        found[count++] = ts_tree_cursor_current_node(&cursor);
    }
    ts_tree_cursor_delete(&cursor);
    return count;
}

#define MOST_IMPORT_NAMES 256

static int python_imports(Importer *im, TSNode root) {
    static const char *const words[] = {"import"};
    Buffer spans = {NULL, 0, 0, 2 * sizeof(uint32_t)};
    TSNode *clauses = PyMem_Malloc(MOST_IMPORT_NAMES * sizeof(TSNode));
    int status = clauses == NULL ? -1 : word_spans(im->source, words, 1, &spans);
    for (size_t i = 0; status == 0 && !im->fallback && i < spans.count; i++) {
        const uint32_t *span = (const uint32_t *)(spans.items + i * spans.size);
        TSNode keyword = ts_node_descendant_for_byte_range(root, span[0], span[1]);
        if (!is_type(keyword, "import")) continue;
        TSNode statement = ts_node_parent(keyword);
        if (ts_node_is_null(statement)) continue;
        uint32_t count = children_in_field(statement, "name", clauses, MOST_IMPORT_NAMES);
        if (count > MOST_IMPORT_NAMES) {
            im->fallback = true;
            break;
        }
        if (is_type(statement, "import_statement")) {
            for (uint32_t j = 0; status == 0 && !im->fallback && j < count; j++) {
                TSNode clause = clauses[j];
                if (is_type(clause, "aliased_import")) {
                    TSNode dotted = field(clause, "name"), alias = field(clause, "alias");
                    if (ts_node_is_null(dotted) || ts_node_is_null(alias)) continue;
                    PyObject *module = py_text(im, dotted), *as = module == NULL ? NULL : py_text(im, alias), *names = PyList_New(0);
                    if (module == NULL || as == NULL || names == NULL) {
                        Py_XDECREF(module);
                        Py_XDECREF(as);
                        Py_XDECREF(names);
                        status = im->fallback ? 0 : -1;
                        continue;
                    }
                    status = add_import(im, clause, module, names, as);
                } else if (is_type(clause, "dotted_name")) {
                    PyObject *module = py_text(im, clause), *names = module == NULL ? NULL : PyList_New(0);
                    if (names == NULL) {
                        Py_XDECREF(module);
                        status = im->fallback ? 0 : -1;
                        continue;
                    }
                    status = add_import(im, clause, module, names, NULL);
                }
            }
        } else if (is_type(statement, "import_from_statement") || is_type(statement, "future_import_statement")) {
            TSNode module_node = field(statement, "module_name");
            PyObject *module = ts_node_is_null(module_node) ? PyUnicode_FromString("__future__") : py_text(im, module_node);
            PyObject *names = module == NULL ? NULL : PyList_New(0);
            if (names == NULL) {
                Py_XDECREF(module);
                status = im->fallback ? 0 : -1;
                continue;
            }
            uint32_t children = ts_node_named_child_count(statement);
            for (uint32_t j = 0; status == 0 && j < children; j++)
                if (is_type(ts_node_named_child(statement, j), "wildcard_import"))
                    status = add_pair(names, PyUnicode_FromString("*"), PyUnicode_FromString("*"));
            for (uint32_t j = 0; status == 0 && !im->fallback && j < count; j++) {
                TSNode clause = clauses[j];
                if (is_type(clause, "aliased_import")) {
                    TSNode name = field(clause, "name"), alias = field(clause, "alias");
                    if (ts_node_is_null(name) || ts_node_is_null(alias)) continue;
                    PyObject *first = py_text(im, name), *second = first == NULL ? NULL : py_text(im, alias);
                    if (first == NULL || second == NULL) {
                        Py_XDECREF(first);
                        status = im->fallback ? 0 : -1;
                    } else {
                        status = add_pair(names, first, second);
                    }
                } else if (is_type(clause, "dotted_name")) {
                    PyObject *text = py_text(im, clause);
                    status = text == NULL ? (im->fallback ? 0 : -1) : add_pair(names, Py_NewRef(text), text);
                }
            }
            if (status == 0 && !im->fallback) status = add_import(im, statement, module, names, NULL);
            else {
                Py_DECREF(module);
                Py_DECREF(names);
            }
        }
    }
    PyMem_Free(spans.items);
    PyMem_Free(clauses);
    return status;
}

/* Rust's _rust_text: a node's text without its whitespace; NULL without an exception where the
 * Python hook must answer (text other than ASCII). */
#define rust_text py_text

/* _rust_path: ``a::b::c`` -> the parts appended to ``parts`` (``::std::io`` -> ``::std``, ``io``). */
static int rust_path(Importer *im, TSNode node, PyObject *parts) {
    PyObject *text = rust_text(im, node);
    if (text == NULL) return im->fallback ? 1 : -1;
    const char *data = (const char *)PyUnicode_1BYTE_DATA(text);
    Py_ssize_t length = PyUnicode_GET_LENGTH(text), from = 0;
    bool lead = length >= 2 && data[0] == ':' && data[1] == ':', first = true;
    int status = 0;
    for (Py_ssize_t i = 0; status == 0 && i <= length; i++) {
        bool cut = i == length || (data[i] == ':' && i + 1 < length && data[i + 1] == ':');
        if (!cut) continue;
        if (i > from) {
            PyObject *part;
            if (first && lead) {
                part = PyUnicode_New(i - from + 2, 127);
                if (part != NULL) {
                    memcpy(PyUnicode_1BYTE_DATA(part), "::", 2);
                    memcpy(PyUnicode_1BYTE_DATA(part) + 2, data + from, (size_t)(i - from));
                }
            } else {
                part = PyUnicode_FromStringAndSize(data + from, i - from);
            }
            status = part == NULL ? -1 : PyList_Append(parts, part);
            Py_XDECREF(part);
            first = false;
        }
        from = i + 2;
        i++;
    }
    Py_DECREF(text);
    return status;
}

static inline bool unicode_is(PyObject *text, const char *ascii) { return PyUnicode_CompareWithASCIIString(text, ascii) == 0; }

/* _inline_modules: the names of the ``mod x { }`` blocks around ``node``, outermost first
 * (NULL: an error, or the Python hook must answer). */
static PyObject *rust_inline_modules(Importer *im, TSNode node) {
    PyObject *names = PyList_New(0);
    for (TSNode outer = ts_node_parent(node); names != NULL && !ts_node_is_null(outer); outer = ts_node_parent(outer)) {
        if (!is_type(outer, "mod_item")) continue;
        TSNode name = field(outer, "name");
        if (ts_node_is_null(name)) continue;
        PyObject *text = rust_text(im, name);
        if (text == NULL || PyList_Append(names, text) < 0) Py_CLEAR(names);
        Py_XDECREF(text);
    }
    if (names != NULL && PyList_Reverse(names) < 0) Py_CLEAR(names);
    return names;
}

/* _from_file: a ``self``/``super`` path written inside inline modules, counted from the file's
 * module (a new list). */
static PyObject *rust_from_file(PyObject *parts, PyObject *inline_modules) {
    Py_ssize_t count = PyList_GET_SIZE(parts);
    if (PyList_GET_SIZE(inline_modules) == 0 || count == 0 ||
        !(unicode_is(PyList_GET_ITEM(parts, 0), "self") || unicode_is(PyList_GET_ITEM(parts, 0), "super")))
        return PyList_GetSlice(parts, 0, count);
    Py_ssize_t base = PyList_GET_SIZE(inline_modules), index = unicode_is(PyList_GET_ITEM(parts, 0), "self") ? 1 : 0, above = 0;
    while (index < count && unicode_is(PyList_GET_ITEM(parts, index), "super")) {
        if (base) base--;
        else above++;
        index++;
    }
    PyObject *result = PyList_New(0);
    if (result == NULL) return NULL;
    int status = 0;
    if (above == 0) {
        PyObject *word = PyUnicode_FromString("self");
        status = word == NULL ? -1 : PyList_Append(result, word);
        Py_XDECREF(word);
    }
    for (Py_ssize_t i = 0; status == 0 && i < above; i++) {
        PyObject *word = PyUnicode_FromString("super");
        status = word == NULL ? -1 : PyList_Append(result, word);
        Py_XDECREF(word);
    }
    for (Py_ssize_t i = 0; status == 0 && i < base; i++) status = PyList_Append(result, PyList_GET_ITEM(inline_modules, i));
    for (Py_ssize_t i = index; status == 0 && i < count; i++) status = PyList_Append(result, PyList_GET_ITEM(parts, i));
    if (status < 0) Py_CLEAR(result);
    return result;
}

/* "::".join(parts[start:stop]) (or ``separator``). */
static PyObject *rust_join(const char *separator, PyObject *parts, Py_ssize_t start, Py_ssize_t stop) {
    PyObject *glue = PyUnicode_FromString(separator), *slice = glue == NULL ? NULL : PyList_GetSlice(parts, start, stop);
    PyObject *joined = slice == NULL ? NULL : PyUnicode_Join(glue, slice);
    Py_XDECREF(glue);
    Py_XDECREF(slice);
    return joined;
}

/* _binding: the import of ``parts`` (stolen) bound as ``alias`` (stolen; NULL: its last part). */
static int rust_binding(Importer *im, TSNode node, PyObject *parts, PyObject *alias) {
    if (parts == NULL) {
        Py_XDECREF(alias);
        return -1;
    }
    Py_ssize_t count = PyList_GET_SIZE(parts);
    if (count && unicode_is(PyList_GET_ITEM(parts, count - 1), "self")) count--;
    int status = 0;
    if (count == 0) goto done;
    PyObject *last = PyList_GET_ITEM(parts, count - 1);
    PyObject *local = alias;
    alias = NULL;
    if (local == NULL) {
        Py_ssize_t length = PyUnicode_GET_LENGTH(last);
        local = length >= 2 && PyUnicode_READ_CHAR(last, 0) == ':' && PyUnicode_READ_CHAR(last, 1) == ':' ? PyUnicode_Substring(last, 2, length)
                                                                                                          : Py_NewRef(last);
        if (local == NULL) {
            status = -1;
            goto done;
        }
    }
    PyObject *names = PyList_New(0);
    if (names == NULL) {
        Py_DECREF(local);
        status = -1;
        goto done;
    }
    if (count == 1) {
        status = add_import(im, node, Py_NewRef(last), names, local);
    } else {
        PyObject *module = rust_join("::", parts, 0, count - 1);
        if (module == NULL) Py_DECREF(local);
        if (module == NULL || add_pair(names, Py_NewRef(last), local) < 0) {
            Py_XDECREF(module);
            Py_DECREF(names);
            status = -1;
        } else {
            status = add_import(im, node, module, names, NULL);
        }
    }
done:
    Py_DECREF(parts);
    Py_XDECREF(alias);
    return status;
}

/* prefix + (the parts of ``node``'s path), a new list (NULL: an error, or the hook answers). */
static PyObject *rust_extended(Importer *im, PyObject *prefix, TSNode node) {
    PyObject *parts = PyList_GetSlice(prefix, 0, PyList_GET_SIZE(prefix));
    if (parts != NULL && rust_path(im, node, parts) != 0) Py_CLEAR(parts);
    return parts;
}

#define MOST_USE_DEPTH 4096

/* _use_tree: the paths a ``use`` tree binds, in source order. */
static int rust_use_tree(Importer *im, TSNode argument, PyObject *inline_modules) {
    typedef struct {
        TSNode node;
        PyObject *prefix;
    } Pending;
    Buffer stack = {NULL, 0, 0, sizeof(Pending)};
    int status = 0;
    Pending *first = push(&stack);
    PyObject *empty = PyList_New(0);
    if (first == NULL || empty == NULL) {
        Py_XDECREF(empty);
        PyMem_Free(stack.items);
        return -1;
    }
    *first = (Pending){argument, empty};
    while (stack.count && status == 0 && !im->fallback) {
        Pending top = ((Pending *)stack.items)[--stack.count];
        TSNode node = top.node;
        PyObject *prefix = top.prefix;
        if (is_type(node, "use_list")) {
            uint32_t count = ts_node_named_child_count(node);
            if (stack.count + count > MOST_USE_DEPTH) im->fallback = true;
            for (uint32_t i = count; i > 0 && !im->fallback; i--) {
                Pending *item = push(&stack);
                if (item == NULL) {
                    status = -1;
                    break;
                }
                *item = (Pending){ts_node_named_child(node, i - 1), Py_NewRef(prefix)};
            }
        } else if (is_type(node, "scoped_use_list")) {
            TSNode path = field(node, "path"), group = field(node, "list");
            if (!ts_node_is_null(group)) {
                PyObject *inner = ts_node_is_null(path) ? Py_NewRef(prefix) : rust_extended(im, prefix, path);
                Pending *item = inner == NULL ? NULL : push(&stack);
                if (item == NULL) {
                    Py_XDECREF(inner);
                    if (!im->fallback) status = -1;
                } else {
                    *item = (Pending){group, inner};
                }
            }
        } else if (is_type(node, "use_wildcard")) {
            PyObject *parts = PyList_GetSlice(prefix, 0, PyList_GET_SIZE(prefix));
            uint32_t count = ts_node_named_child_count(node);
            for (uint32_t i = 0; parts != NULL && i < count; i++)
                if (rust_path(im, ts_node_named_child(node, i), parts) != 0) Py_CLEAR(parts);
            PyObject *found = parts == NULL ? NULL : rust_from_file(parts, inline_modules);
            Py_XDECREF(parts);
            if (found == NULL) {
                if (!im->fallback) status = -1;
            } else if (PyList_GET_SIZE(found) == 0) {
                Py_DECREF(found);
            } else {
                PyObject *module = rust_join("::", found, 0, PyList_GET_SIZE(found)), *names = PyList_New(0);
                Py_DECREF(found);
                if (module == NULL || names == NULL || add_pair(names, PyUnicode_FromString("*"), PyUnicode_FromString("*")) < 0) {
                    Py_XDECREF(module);
                    Py_XDECREF(names);
                    status = -1;
                } else {
                    status = add_import(im, node, module, names, NULL);
                }
            }
        } else if (is_type(node, "use_as_clause")) {
            TSNode path = field(node, "path"), alias = field(node, "alias");
            if (!ts_node_is_null(path) && !ts_node_is_null(alias)) {
                PyObject *parts = rust_extended(im, prefix, path), *found = parts == NULL ? NULL : rust_from_file(parts, inline_modules);
                Py_XDECREF(parts);
                PyObject *as = found == NULL ? NULL : rust_text(im, alias);
                if (as == NULL) {
                    Py_XDECREF(found);
                    if (!im->fallback) status = -1;
                } else {
                    status = rust_binding(im, node, found, as);
                }
            }
        } else if (is_type(node, "identifier") || is_type(node, "scoped_identifier") || is_type(node, "self") || is_type(node, "crate") ||
                   is_type(node, "super") || is_type(node, "metavariable")) {
            PyObject *parts = rust_extended(im, prefix, node), *found = parts == NULL ? NULL : rust_from_file(parts, inline_modules);
            Py_XDECREF(parts);
            if (found == NULL) {
                if (!im->fallback) status = -1;
            } else {
                status = rust_binding(im, node, found, NULL);
            }
        }
        Py_DECREF(prefix);
    }
    while (stack.count) Py_DECREF(((Pending *)stack.items)[--stack.count].prefix);
    PyMem_Free(stack.items);
    return status;
}

/* _mod_declaration: a ``mod foo;``'s import (0: none). */
static int rust_mod_declaration(Importer *im, TSNode item) {
    TSNode name = field(item, "name");
    if (ts_node_is_null(name)) return 0;
    PyObject *inline_modules = rust_inline_modules(im, item);
    if (inline_modules == NULL) return im->fallback ? 0 : -1;
    int status = 0;
    for (TSNode before = ts_node_prev_named_sibling(item); !ts_node_is_null(before); before = ts_node_prev_named_sibling(before)) {
        bool attribute_item = is_type(before, "attribute_item");
        if (!attribute_item && !is_type(before, "line_comment") && !is_type(before, "block_comment")) break;
        TSNode attribute = attribute_item && ts_node_named_child_count(before) ? ts_node_named_child(before, 0) : (TSNode){{0}, NULL, NULL};
        if (ts_node_is_null(attribute)) continue;
        TSNode value = field(attribute, "value");
        if (!is_type(value, "string_literal") || ts_node_end_byte(value) - ts_node_start_byte(value) < 2) continue;
        TSNode head = ts_node_named_child_count(attribute) ? ts_node_named_child(attribute, 0) : (TSNode){{0}, NULL, NULL};
        if (ts_node_is_null(head)) continue;
        const char *text;
        Py_ssize_t length;
        slice(im->source, ts_node_start_byte(head), ts_node_end_byte(head), &text, &length);
        if (length != 4 || memcmp(text, "path", 4) != 0) continue;
        PyObject *path = decode(im->source, ts_node_start_byte(value) + 1, ts_node_end_byte(value) - 1);
        if (path == NULL || PyList_Append(inline_modules, path) < 0) {
            Py_XDECREF(path);
            Py_DECREF(inline_modules);
            return -1;
        }
        Py_DECREF(path);
        PyObject *module = rust_join("/", inline_modules, 0, PyList_GET_SIZE(inline_modules)), *names = module == NULL ? NULL : PyList_New(0);
        Py_DECREF(inline_modules);
        if (names == NULL) {
            Py_XDECREF(module);
            return -1;
        }
        return add_import(im, item, module, names, NULL);
    }
    PyObject *text = rust_text(im, name), *self = text == NULL ? NULL : PyUnicode_FromString("self");
    PyObject *parts = self == NULL ? NULL : PyList_New(0);
    if (parts != NULL) {
        status = PyList_Append(parts, self);
        for (Py_ssize_t i = 0; status == 0 && i < PyList_GET_SIZE(inline_modules); i++) status = PyList_Append(parts, PyList_GET_ITEM(inline_modules, i));
        if (status == 0) status = PyList_Append(parts, text);
    }
    PyObject *module = parts == NULL || status < 0 ? NULL : rust_join("::", parts, 0, PyList_GET_SIZE(parts));
    PyObject *names = module == NULL ? NULL : PyList_New(0);
    Py_XDECREF(text);
    Py_XDECREF(self);
    Py_XDECREF(parts);
    Py_DECREF(inline_modules);
    if (names == NULL) {
        Py_XDECREF(module);
        return im->fallback ? 0 : -1;
    }
    return add_import(im, item, module, names, NULL);
}

static int rust_imports(Importer *im, TSNode root) {
    static const char *const words[] = {"use", "mod"};
    Buffer spans = {NULL, 0, 0, 2 * sizeof(uint32_t)};
    int status = word_spans(im->source, words, 2, &spans);
    if (spans.count > 1) qsort(spans.items, spans.count, spans.size, compare_spans);
    for (size_t i = 0; status == 0 && !im->fallback && i < spans.count; i++) {
        const uint32_t *span = (const uint32_t *)(spans.items + i * spans.size);
        TSNode keyword = ts_node_descendant_for_byte_range(root, span[0], span[1]);
        if (ts_node_is_null(keyword)) continue;
        TSNode item = ts_node_parent(keyword);
        if (ts_node_is_null(item)) continue;
        if (is_type(keyword, "use") && is_type(item, "use_declaration")) {
            TSNode argument = field(item, "argument");
            if (ts_node_is_null(argument)) continue;
            PyObject *inline_modules = rust_inline_modules(im, item);
            if (inline_modules == NULL) {
                if (!im->fallback) status = -1;
                continue;
            }
            status = rust_use_tree(im, argument, inline_modules);
            Py_DECREF(inline_modules);
        } else if (is_type(keyword, "mod") && is_type(item, "mod_item") && ts_node_is_null(field(item, "body"))) {
            status = rust_mod_declaration(im, item);
        }
    }
    PyMem_Free(spans.items);
    return status;
}

/* Go's _imports (specs/go.py): the import specs of the import declarations that come first in
 * the file (after the package clause and comments), in preorder of the declarations and their
 * spec lists; module, the path without its quotes; alias, the name written before it. */
static int go_import_specs(Importer *im, TSNode node, int depth) {
    if (is_type(node, "import_declaration") || is_type(node, "import_spec_list")) {
        if (depth > 64) {
            im->fallback = true; /* (deeper than any Go the grammar reads: the hook answers) */
            return 0;
        }
        uint32_t count = ts_node_named_child_count(node);
        for (uint32_t i = 0; i < count && !im->fallback; i++)
            if (go_import_specs(im, ts_node_named_child(node, i), depth + 1) < 0) return -1;
        return 0;
    }
    if (!is_type(node, "import_spec")) return 0;
    TSNode path = field(node, "path"), name = field(node, "name");
    if (ts_node_is_null(path) || ts_node_end_byte(path) - ts_node_start_byte(path) < 2 || ts_node_end_byte(path) < ts_node_start_byte(path))
        return 0;
    PyObject *module = decode(im->source, ts_node_start_byte(path) + 1, ts_node_end_byte(path) - 1);
    if (module == NULL) return -1;
    PyObject *alias = NULL;
    if (!ts_node_is_null(name) && (alias = node_string(im->source, name)) == NULL) {
        Py_DECREF(module);
        return -1;
    }
    PyObject *names = PyList_New(0);
    if (names == NULL) {
        Py_DECREF(module);
        Py_XDECREF(alias);
        return -1;
    }
    return add_import(im, node, module, names, alias);
}

static int go_imports(Importer *im, TSNode root) {
    uint32_t count = ts_node_named_child_count(root);
    for (uint32_t i = 0; i < count && !im->fallback; i++) {
        TSNode declaration = ts_node_named_child(root, i);
        if (ts_node_is_null(declaration)) break;
        if (is_type(declaration, "package_clause") || is_type(declaration, "comment")) continue;
        if (!is_type(declaration, "import_declaration")) break;
        if (go_import_specs(im, declaration, 0) < 0) return -1;
    }
    return 0;
}

/* C's _imports (specs/c.py): at each ``#[ \t]*include\b`` of the text, the include directive
 * whose token it is, when its path is a string or a system path; module, the path without its
 * delimiters; the import spans the directive up to the end of its path. */
static int c_imports(Importer *im, TSNode root) {
    const char *data = im->source->data;
    Py_ssize_t size = im->source->size;
    for (Py_ssize_t at = 0; at < size;) {
        const char *hash = memchr(data + at, '#', (size_t)(size - at));
        if (hash == NULL) break;
        Py_ssize_t start = hash - data, end = start + 1;
        at = end;
        while (end < size && (data[end] == ' ' || data[end] == '\t')) end++;
        if (size - end < 7 || memcmp(data + end, "include", 7) != 0) continue;
        end += 7;
        if (end < size && word_byte((unsigned char)data[end])) continue;
        at = end;
        TSNode token = ts_node_descendant_for_byte_range(root, (uint32_t)start, (uint32_t)end);
        if (ts_node_is_null(token)) continue;
        TSNode directive = ts_node_parent(token);
        if (!is_type(directive, "preproc_include")) continue;
        TSNode path = field(directive, "path");
        bool system = is_type(path, "system_lib_string");
        if (!system && !is_type(path, "string_literal")) continue;
        uint32_t path_start = ts_node_start_byte(path), path_end = ts_node_end_byte(path);
        if (path_end < path_start || path_end - path_start < 2) continue;
        PyObject *module = decode(im->source, path_start + 1, path_end - 1);
        if (module == NULL) return -1;
        TSPoint point = ts_node_start_point(directive);
        PyObject *names = PyList_New(0);
        PyObject *call[8] = {module,
                             PyLong_FromUnsignedLong(point.row + 1UL),
                             PyLong_FromUnsignedLong(point.column),
                             PyLong_FromUnsignedLong(ts_node_start_byte(directive)),
                             PyLong_FromUnsignedLong(path_end),
                             names,
                             Py_None,
                             system ? Py_True : Py_False};
        PyObject *record = NULL;
        if (call[1] && call[2] && call[3] && call[4] && names) record = PyObject_Vectorcall(im->import_type, call, 8, NULL);
        for (int k = 0; k < 6; k++) Py_XDECREF(call[k]);
        if (record == NULL) return -1;
        int appended = PyList_Append(im->result, record);
        Py_DECREF(record);
        if (appended < 0) return -1;
    }
    return 0;
}

/* imports(code, node, Import) -> [Import, ...] | None
 *
 * The imports of the tree of ``node`` (its root, parsed from bytes) by the rules of the hook
 * ``code`` names (1: specs/python.py, 2: specs/javascript.py, 3: specs/rust.py, 4: specs/go.py,
 * 5: specs/c.py), as Import
 * records; None where that hook must answer (no bytes source, text it reads otherwise than
 * here). */
static PyObject *imports(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "imports() takes 3 arguments");
        return NULL;
    }
    long code = PyLong_AsLong(args[0]);
    if (code == -1 && PyErr_Occurred()) return NULL;
    if (node_type == NULL || Py_TYPE(args[1]) != node_type) {
        PyErr_SetString(PyExc_TypeError, "imports() needs a tree_sitter.Node");
        return NULL;
    }
    PyNode *node = (PyNode *)args[1];
    PyObject *tree = node->tree;
    PyObject *bytes = tree == NULL ? NULL : ((PyTree *)tree)->source;
    if (bytes == NULL || !PyBytes_Check(bytes) || code < IMPORTS_PYTHON || code > IMPORTS_C) Py_RETURN_NONE;
    Source source = {PyBytes_AS_STRING(bytes), PyBytes_GET_SIZE(bytes)};
    Importer im = {&source, args[2], PyList_New(0), false};
    if (im.result == NULL) return NULL;
    int status = code == IMPORTS_PYTHON ? python_imports(&im, node->node)
                 : code == IMPORTS_RUST ? rust_imports(&im, node->node)
                 : code == IMPORTS_GO   ? go_imports(&im, node->node)
                 : code == IMPORTS_C    ? c_imports(&im, node->node)
                                        : javascript_imports(&im, node->node);
    if (status < 0) {
        Py_DECREF(im.result);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return NULL;
    }
    if (im.fallback) {
        Py_DECREF(im.result);
        Py_RETURN_NONE;
    }
    return im.result;
}

static PyObject *matched(PyObject *module, PyObject *Py_UNUSED(args)) {
    (void)module;
    return PyLong_FromUnsignedLongLong(matched_trees);
}

static PyObject *version(PyObject *module, PyObject *Py_UNUSED(args)) {
    (void)module;
    return PyUnicode_FromString(RDX_TREE_SITTER_VERSION);
}

static PyTypeObject *type_of(PyObject *module, const char *name) {
    PyObject *type = PyObject_GetAttrString(module, name);
    if (type == NULL) return NULL;
    if (!PyType_Check(type)) {
        Py_DECREF(type);
        PyErr_Format(PyExc_TypeError, "tree_sitter.%s is not a type", name);
        return NULL;
    }
    return (PyTypeObject *)type; /* Kept for the life of the process. */
}

static int exec_module(PyObject *module) {
    PyObject *ts = PyImport_ImportModule("tree_sitter");
    if (ts == NULL) return -1;
    node_type = type_of(ts, "Node");
    query_type = node_type == NULL ? NULL : type_of(ts, "Query");
    Py_DECREF(ts);
    if (query_type == NULL) return -1;
    /* The layouts build.py checked in the binding's source, checked again in the binary. */
    if (node_type->tp_basicsize != (Py_ssize_t)sizeof(PyNode) || query_type->tp_basicsize != (Py_ssize_t)sizeof(PyQuery)) {
        PyErr_SetString(PyExc_ImportError, "tree_sitter.Node or tree_sitter.Query is laid out otherwise than query.c reads it");
        return -1;
    }
    search_name = PyUnicode_InternFromString("search");
    strip_name = PyUnicode_InternFromString("strip");
    if (search_name == NULL || strip_name == NULL) return -1;
    /* The version of the functions' arguments and answers, checked by query.py (_API). */
    if (PyModule_AddIntConstant(module, "API", 2) < 0) return -1;
    return PyModule_AddIntConstant(module, "ABI_VERSION", TREE_SITTER_LANGUAGE_VERSION);
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "A query's definitions and references, as the engine reads them."},
    {"matches", (PyCFunction)(void (*)(void))matches, METH_FASTCALL, "A query's matches as capture ids and byte ranges."},
    {"imports", (PyCFunction)(void (*)(void))imports, METH_FASTCALL, "A file's imports by the rules of a spec's hook."},
    {"matched", matched, METH_NOARGS, "How many trees the runner's own matcher answered for."},
    {"version", version, METH_NOARGS, "The tree-sitter version this module was built against."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_query", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__query(void) { return PyModuleDef_Init(&module_def); }
