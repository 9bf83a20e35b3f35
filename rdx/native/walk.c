/* The native half of Ruby discovery's walk (rdx.ruby.discover.parse.Walker.walk).
 *
 * The walker visits a tree-sitter tree in preorder with a py-tree-sitter TreeCursor and calls a
 * Python handler for the node kinds that matter (classes, calls, constants, ...). Most nodes
 * are not such kinds (keywords, punctuation, literals, argument lists): here the walk moves the
 * Python cursor over them in C, stopping only where Python has something to do. It also passes
 * over nodes of those kinds whose handler would return at its first test (a read of a known
 * local variable, a constant inside a path already recorded, a hash pair with a value): each
 * such rule is stated in advance()'s comment and mirrors that test. The cursor is the walker's
 * own, so handlers still read their position from it (field, ancestors).
 *
 * This module is compiled against the same tree-sitter runtime version as the installed
 * py-tree-sitter (rdx/native/build.py fetches that version's source), with py-tree-sitter's
 * allocator (PyMem_*), so the runtime's cursor functions work on the cursor py-tree-sitter made.
 * rdx/native/__init__.py checks the version and the walk's result on a sample before use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <tree_sitter/api.h>

/* py-tree-sitter's TreeCursor object (binding/types.h of the same version): the runtime's
 * cursor by value, then the node it last handed out (created on demand), then its tree. */
typedef struct {
    PyObject_HEAD
    TSTreeCursor cursor;
    PyObject *node;
    PyObject *tree;
} PyTreeCursor;

/* py-tree-sitter's Tree object: the runtime's tree, the source it was parsed from (what
 * ``Node.text`` slices), its language. */
typedef struct {
    PyObject_HEAD
    TSTree *tree;
    PyObject *source;
    PyObject *language;
} PyTree;

enum { WALK_END = 0, WALK_HANDLER = 1, WALK_MISSING = 2, WALK_TOO_DEEP = 3 };

static PyTypeObject *cursor_type = NULL;

/* advance(cursor, kinds, fields, descend, check_missing, max_depth, depth, names, until, skip_until)
 *     -> event | depth << 2
 *
 * From the node the cursor is at (already visited), move in preorder to the next node that
 * Python must see, by its kind (``kind_id``) in ``kinds`` (a 65,536-byte table):
 * - 1: always;
 * - 2 (identifiers): unless in a field (``field_id``) flagged in ``fields`` (a 65,536-byte
 *   table: the handler of such a node in such a field does nothing), or, when ``names`` is a
 *   set, starting before byte ``until`` with its text (``Node.text``) in ``names`` (the
 *   handler does nothing either: a read of a local variable the walk knows);
 * - 3 (constants): unless starting before byte ``skip_until`` (part of a constant path the
 *   walk has recorded whole: the handler does nothing);
 * - 4 (hash pairs): only with one named child (``{k:}``; the handler does nothing with two);
 * - with ``check_missing``, a missing node of a kind that is 0 there.
 * With ``descend`` false the current node's children are skipped. At ``max_depth`` a node
 * with children is not entered: the cursor stays on it and the event is WALK_TOO_DEEP.
 * WALK_END: the walk is over. */
static PyObject *advance(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "advance() takes 10 arguments");
        return NULL;
    }
    if (cursor_type == NULL || Py_TYPE(args[0]) != cursor_type) {
        PyErr_SetString(PyExc_TypeError, "advance() needs a tree_sitter.TreeCursor");
        return NULL;
    }
    PyTreeCursor *self = (PyTreeCursor *)args[0];
    Py_buffer kinds, fields;
    if (PyObject_GetBuffer(args[1], &kinds, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[2], &fields, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&kinds);
        return NULL;
    }
    if (kinds.len < 65536 || fields.len < 65536) {
        PyBuffer_Release(&kinds);
        PyBuffer_Release(&fields);
        PyErr_SetString(PyExc_ValueError, "advance() needs 65536-byte kind and field tables");
        return NULL;
    }
    const unsigned char *table = kinds.buf;
    const unsigned char *skipped_fields = fields.buf;
    int descend = PyObject_IsTrue(args[3]);
    int check_missing = PyObject_IsTrue(args[4]);
    long max_depth = PyLong_AsLong(args[5]);
    long depth = PyLong_AsLong(args[6]);
    PyObject *names = PyAnySet_Check(args[7]) ? args[7] : NULL;
    long long until = PyLong_AsLongLong(args[8]);
    long long skip_until = PyLong_AsLongLong(args[9]);
    if (descend < 0 || check_missing < 0 || PyErr_Occurred()) {
        PyBuffer_Release(&kinds);
        PyBuffer_Release(&fields);
        return NULL;
    }
    /* The text of identifiers is read from the tree's source, as Node.text reads it. */
    PyObject *source = ((PyTree *)self->tree)->source;
    if (source == NULL || !PyBytes_Check(source)) names = NULL;
    TSTreeCursor *cursor = &self->cursor;
    int moved = 0;
    int event;
    for (;;) {
        if (descend) {
            if (depth >= max_depth) {
                if (ts_node_child_count(ts_tree_cursor_current_node(cursor))) {
                    event = WALK_TOO_DEEP;
                    break;
                }
            } else if (ts_tree_cursor_goto_first_child(cursor)) {
                moved = 1;
                depth++;
                goto visit;
            }
        }
        while (!ts_tree_cursor_goto_next_sibling(cursor)) {
            moved = 1;
            if (!ts_tree_cursor_goto_parent(cursor)) {
                event = WALK_END;
                goto done;
            }
            depth--;
        }
        moved = 1;
    visit: {
        /* Whether Python must see the node; otherwise the walk goes on into its children. A
         * node of a kind with a handler is never reported missing: the handler sees it. */
        TSNode node = ts_tree_cursor_current_node(cursor);
        unsigned char wanted = table[ts_node_symbol(node)];
        if (wanted == 0) {
            if (check_missing && ts_node_is_missing(node)) {
                event = WALK_MISSING;
                break;
            }
        } else if (wanted == 1) {
            event = WALK_HANDLER;
            break;
        } else if (wanted == 2) {
            if (skipped_fields[ts_tree_cursor_current_field_id(cursor)]) {
                descend = 1;
                continue;
            }
            uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
            if (names == NULL || (long long)start >= until || end < start || (Py_ssize_t)end > PyBytes_GET_SIZE(source)) {
                event = WALK_HANDLER;
                break;
            }
            PyObject *text = PyBytes_FromStringAndSize(PyBytes_AS_STRING(source) + start, (Py_ssize_t)(end - start));
            int known = text == NULL ? -1 : PySet_Contains(names, text);
            Py_XDECREF(text);
            if (known < 0) {
                PyBuffer_Release(&kinds);
                PyBuffer_Release(&fields);
                Py_CLEAR(self->node);
                return NULL;
            }
            if (!known) {
                event = WALK_HANDLER;
                break;
            }
        } else if (wanted == 3) {
            if ((long long)ts_node_start_byte(node) >= skip_until) {
                event = WALK_HANDLER;
                break;
            }
        } else if (ts_node_named_child_count(node) == 1) {
            event = WALK_HANDLER; /* 4 */
            break;
        }
        descend = 1;
    }
    }
done:
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&fields);
    if (moved) Py_CLEAR(self->node); /* The cursor's cached node is no longer where it is. */
    return PyLong_FromLong((long)event | (depth << 2));
}

static PyObject *version(PyObject *module, PyObject *Py_UNUSED(args)) {
    (void)module;
    return PyUnicode_FromString(RDX_TREE_SITTER_VERSION);
}

static int exec_module(PyObject *module) {
    /* The runtime allocates as py-tree-sitter's does, so a cursor's stack can grow here. */
    ts_set_allocator(PyMem_Malloc, PyMem_Calloc, PyMem_Realloc, PyMem_Free);
    PyObject *ts = PyImport_ImportModule("tree_sitter");
    if (ts == NULL) return -1;
    PyObject *type = PyObject_GetAttrString(ts, "TreeCursor");
    Py_DECREF(ts);
    if (type == NULL) return -1;
    if (!PyType_Check(type)) {
        Py_DECREF(type);
        PyErr_SetString(PyExc_TypeError, "tree_sitter.TreeCursor is not a type");
        return -1;
    }
    cursor_type = (PyTypeObject *)type; /* Kept for the life of the process. */
    return PyModule_AddIntConstant(module, "ABI_VERSION", TREE_SITTER_LANGUAGE_VERSION);
}

static PyMethodDef methods[] = {
    {"advance", (PyCFunction)(void (*)(void))advance, METH_FASTCALL, "Move the walk's cursor to the next node Python must see."},
    {"version", version, METH_NOARGS, "The tree-sitter version this module was built against."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_walk", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk(void) { return PyModuleDef_Init(&module_def); }
