/* The native half of the other languages' extraction (rdx.languages.engine.extract_all).
 *
 * Each language's spec is a tree-sitter query: patterns that capture a definition and its
 * name, and patterns that capture a name used (a call, a type, a base) with what qualifies it.
 * py-tree-sitter's QueryCursor.matches builds a Python dictionary, lists and a Node object per
 * capture of every match, which costs about half a parse. Here the same query runs with the
 * runtime's own cursor and hands Python what the engine reads of it:
 * - the definitions, one per node range (the first pattern that matched it wins), in source
 *   order, each with its node (a py-tree-sitter Node: the spec's hooks read around it) and its
 *   name's range and position;
 * - the references, one per name (the first match wins), in source order, as the engine's
 *   Reference records, each with the innermost definition that encloses it.
 * The rules are those of the engine's Python path (engine.py: _symbols, _references), which
 * stays the one definition of what is extracted: tests/test_native_query.py compares both.
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
    uint32_t start, end, pattern, order;
    uint32_t kind; /* the capture id that named the definition's kind */
    TSNode node, name;
} Definition;

/* A reference: its name's range and position, what qualifies it, the match order. */
typedef struct {
    uint32_t start, end, row, column, order;
    uint32_t kind; /* 0, 1, 2: call, type, base */
    uint32_t qualifier_start, qualifier_end;
    bool qualified;
} Use;

static int compare_definitions(const void *x, const void *y) {
    const Definition *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1; /* An enclosing node first. */
    if (a->pattern != b->pattern) return a->pattern < b->pattern ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int compare_uses(const void *x, const void *y) {
    const Use *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* A growable array of fixed-size items. */
typedef struct {
    char *items;
    size_t count, capacity, size;
} Buffer;

static void *push(Buffer *buffer) {
    if (buffer->count == buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 64;
        char *items = PyMem_Realloc(buffer->items, capacity * buffer->size);
        if (items == NULL) return NULL;
        buffer->items = items;
        buffer->capacity = capacity;
    }
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

/* The comments right above a definition (engine._comment_ranges), nearest first, as (start
 * byte, end byte) pairs: above the node, or above the first ancestor that has a comment before
 * it through wrappers and ancestors with one named child (never the root); then each comment
 * whose last row is at most one above the row of what follows it. ``table`` flags node kinds:
 * 1, a comment; 2, a wrapper. An empty tuple: none. */
static PyObject *comments_above(TSNode node, const unsigned char *table) {
    TSNode current = node;
    TSNode previous = ts_node_prev_sibling(current);
    while (ts_node_is_null(previous) || !(table[ts_node_symbol(previous)] & 1)) {
        TSNode parent = ts_node_parent(current);
        if (ts_node_is_null(parent)) return PyTuple_New(0);
        if (!((table[ts_node_symbol(parent)] & 2) || ts_node_named_child_count(parent) == 1)) return PyTuple_New(0);
        if (ts_node_is_null(ts_node_parent(parent))) return PyTuple_New(0);
        current = parent;
        previous = ts_node_prev_sibling(current);
    }
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    int64_t next_row = ts_node_start_point(current).row;
    while (!ts_node_is_null(previous) && (table[ts_node_symbol(previous)] & 1) && (int64_t)ts_node_end_point(previous).row >= next_row - 1) {
        PyObject *range = Py_BuildValue("(kk)", (unsigned long)ts_node_start_byte(previous), (unsigned long)ts_node_end_byte(previous));
        if (range == NULL || PyList_Append(found, range) < 0) {
            Py_XDECREF(range);
            Py_DECREF(found);
            return NULL;
        }
        Py_DECREF(range);
        next_row = ts_node_start_point(previous).row;
        previous = ts_node_prev_sibling(previous);
    }
    PyObject *result = PyList_AsTuple(found);
    Py_DECREF(found);
    return result;
}

/* run(query, node, split, kinds, flags, name, qualifier, uses, reference, reference_kinds,
 *     body_field, node_kinds) -> (definitions, references) | None
 *
 * ``query``'s matches under ``node`` (the root of a tree parsed from bytes), as the engine
 * reads them. Patterns before ``split`` are definitions', the rest references'. ``kinds``
 * holds a 32-bit integer per pattern (native byte order): for a definition's pattern the id
 * of the capture that names its kind, for a reference's pattern the index (0, 1, 2) in
 * ``uses`` of the one capture it names a reference with; -1 when the pattern has several,
 * which then take the general rule. ``flags`` holds a byte per capture id: 1, not a kind
 * (``@name``, ``@_x``); 2, a scope (a definition that qualifies what it contains but is not a
 * symbol). ``name`` and ``qualifier`` are the ids of those captures (-1: none), ``uses`` the
 * ids of the ``call``, ``type`` and ``base`` captures (-1: none) and ``reference_kinds`` their
 * kind strings; ``reference`` is the Reference record type. ``body_field`` is the id of the
 * field ``body`` (-1: none) and ``node_kinds`` a 65,536-byte table of node kinds: 1, a comment;
 * 2, a wrapper (see comments_above).
 *
 * Definitions: the first node of a match's kind capture (general rule: of its first capture
 * that is not flagged 1), when the match has a name; one per node range, that of the lowest
 * pattern (then the earliest match); sorted by start, enclosing ranges first; each as
 * (start, end, kind capture id, Node, name start, name end, name row, name column, where its
 * signature ends, the comments above it).
 * References: the first node of the match's reference capture (general rule: the first of
 * ``uses`` it has), with its qualifier's first node; one per start byte, the earliest match;
 * in source order, as Reference(kind, name, line, column, start, end, qualifier, scope): a
 * name of 1 to 200 bytes, a qualifier of at most 200 bytes on one line (else None), the scope
 * the index among the definitions not flagged 2 of the innermost enclosing one (-1: none).
 * None: the Python path must answer (no bytes source, or py-tree-sitter or the engine would
 * raise). */
static PyObject *run(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "run() takes 12 arguments");
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
    const int32_t *kinds = kinds_view.buf;
    const unsigned char *flags = flags_view.buf;
    const unsigned char *node_kinds = table_view.buf;

    Buffer definitions = {NULL, 0, 0, sizeof(Definition)}, uses = {NULL, 0, 0, sizeof(Use)};
    PyObject *result = NULL;
    int fallback = 0, failed = 0;
    uint32_t order = 0;
    TSQueryCursor *cursor = ts_query_cursor_new();
    ts_query_cursor_exec(cursor, query->query, root->node);
    TSQueryMatch match;
    while (ts_query_cursor_next_match(cursor, &match)) {
        order++;
        int satisfied = satisfies(query, &match, &source);
        if (satisfied < 0) {
            fallback = 1;
            break;
        }
        if (!satisfied) continue;
        int32_t kind = match.pattern_index < patterns ? kinds[match.pattern_index] : -1;
        if ((long)match.pattern_index < split) {
            TSNode name, node;
            if (!first_capture(&match, name_id, &name)) continue;
            uint32_t kind_id;
            if (kind >= 0) {
                if (!first_capture(&match, kind, &node)) { /* engine: captures[kind] raises */
                    fallback = 1;
                    break;
                }
                kind_id = (uint32_t)kind;
            } else {
                uint16_t i = 0;
                while (i < match.capture_count && (match.captures[i].index >= captures || (flags[match.captures[i].index] & 1))) i++;
                if (i == match.capture_count) continue;
                node = match.captures[i].node;
                kind_id = match.captures[i].index;
            }
            Definition *definition = push(&definitions);
            if (definition == NULL) {
                failed = 1;
                break;
            }
            *definition = (Definition){ts_node_start_byte(node), ts_node_end_byte(node), match.pattern_index, order, kind_id, node, name};
        } else {
            TSNode node;
            uint32_t use_kind;
            if (kind >= 0) {
                if (kind > 2 || !first_capture(&match, use_ids[kind], &node)) {
                    fallback = 1;
                    break;
                }
                use_kind = (uint32_t)kind;
            } else {
                use_kind = 0;
                while (use_kind < 3 && !first_capture(&match, use_ids[use_kind], &node)) use_kind++;
                if (use_kind == 3) continue;
            }
            Use *use = push(&uses);
            if (use == NULL) {
                failed = 1;
                break;
            }
            TSPoint point = ts_node_start_point(node);
            TSNode qualifier;
            bool qualified = first_capture(&match, qualifier_id, &qualifier);
            *use = (Use){ts_node_start_byte(node), ts_node_end_byte(node), point.row, point.column, order, use_kind,
                         qualified ? ts_node_start_byte(qualifier) : 0, qualified ? ts_node_end_byte(qualifier) : 0, qualified};
        }
    }
    ts_query_cursor_delete(cursor);
    PyBuffer_Release(&kinds_view);
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    if (fallback) {
        PyErr_Clear();
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }

    /* One definition per range, then the emitted ones' ranges for the references' scopes. */
    Definition *defs = (Definition *)definitions.items;
    if (definitions.count > 1) qsort(defs, definitions.count, sizeof(Definition), compare_definitions);
    size_t kept = 0;
    for (size_t i = 0; i < definitions.count; i++) {
        if (kept && defs[kept - 1].start == defs[i].start && defs[kept - 1].end == defs[i].end) continue;
        defs[kept++] = defs[i];
    }
    uint32_t *symbols = PyMem_Malloc((kept + 1) * 2 * sizeof(uint32_t));
    PyObject *found = PyList_New((Py_ssize_t)kept);
    if (symbols == NULL || found == NULL) {
        PyMem_Free(symbols);
        Py_XDECREF(found);
        PyErr_NoMemory();
        goto done;
    }
    size_t symbol_count = 0;
    for (size_t i = 0; i < kept; i++) {
        const Definition *d = &defs[i];
        if (!(d->kind < captures && (flags[d->kind] & 2))) {
            symbols[2 * symbol_count] = d->start;
            symbols[2 * symbol_count + 1] = d->end;
            symbol_count++;
        }
        PyNode *node = PyObject_New(PyNode, node_type);
        if (node == NULL) {
            failed = 1;
            break;
        }
        node->node = d->node;
        node->children = NULL;
        node->tree = Py_NewRef(root->tree);
        TSPoint point = ts_node_start_point(d->name);
        uint32_t name_end = ts_node_end_byte(d->name);
        PyObject *comments = comments_above(d->node, node_kinds);
        if (comments == NULL) {
            Py_DECREF(node);
            failed = 1;
            break;
        }
        PyObject *item = Py_BuildValue("(kkkNkkkkkN)", (unsigned long)d->start, (unsigned long)d->end, (unsigned long)d->kind, (PyObject *)node,
                                       (unsigned long)ts_node_start_byte(d->name), (unsigned long)name_end, (unsigned long)point.row,
                                       (unsigned long)point.column, (unsigned long)signature_end(&source, d->node, body_field, name_end, d->end),
                                       comments);
        if (item == NULL) {
            failed = 1;
            break;
        }
        PyList_SET_ITEM(found, (Py_ssize_t)i, item);
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
    if (search_name == NULL) return -1;
    return PyModule_AddIntConstant(module, "ABI_VERSION", TREE_SITTER_LANGUAGE_VERSION);
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_FASTCALL, "A query's definitions and references, as the engine reads them."},
    {"matches", (PyCFunction)(void (*)(void))matches, METH_FASTCALL, "A query's matches as capture ids and byte ranges."},
    {"version", version, METH_NOARGS, "The tree-sitter version this module was built against."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_query", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__query(void) { return PyModuleDef_Init(&module_def); }
