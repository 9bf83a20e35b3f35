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
 * Collecting (advance() with its seven more arguments), it also does the plain cases of the
 * hottest handlers itself: a call, operator, element reference, identifier or constant whose
 * handler would only append one record gets a tuple (kinds, names, byte offsets, receiver text
 * or constant path) in a list, from which the walker makes the very records, in walk order,
 * before its next handler runs; an assignment to a local variable or a call, and a parameter
 * list, note their local variables (or setter call) as their handlers would. Each collect_*
 * function states the handler's tests it mirrors; whatever falls outside them stops the walk
 * for the handler as before, so the Python walk stays the one definition of the records.
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

/* What the collecting step (advance with 15 arguments) needs to know of the grammar, made once
 * by spec(): field ids, and the method names whose call Python must see (a set of str). */
typedef struct {
    TSFieldId method, receiver, block, operator_, left, operand, object, pattern, name, scope;
    PyObject *special;
    PyObject *write;
} Spec;

static const char SPEC_NAME[] = "rdx.native._walk.Spec";

static void spec_free(PyObject *capsule) {
    Spec *spec = PyCapsule_GetPointer(capsule, SPEC_NAME);
    if (spec == NULL) return;
    Py_XDECREF(spec->special);
    Py_XDECREF(spec->write);
    PyMem_Free(spec);
}

/* spec((method, receiver, block, operator, left, operand, object, pattern, name, scope), special, write)
 *     -> capsule (write: the value ``Walker.setter_calls`` gives an assignment's target) */
static PyObject *make_spec(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 10 || !PyAnySet_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "spec() takes a tuple of 10 field ids, a set of names and a value");
        return NULL;
    }
    long ids[10];
    for (Py_ssize_t i = 0; i < 10; i++) {
        ids[i] = PyLong_AsLong(PyTuple_GET_ITEM(args[0], i));
        if (ids[i] == -1 && PyErr_Occurred()) return NULL;
        if (ids[i] <= 0 || ids[i] > 65535) {
            PyErr_SetString(PyExc_ValueError, "spec(): a field id out of range");
            return NULL;
        }
    }
    Spec *spec = PyMem_Malloc(sizeof(Spec));
    if (spec == NULL) return PyErr_NoMemory();
    spec->method = (TSFieldId)ids[0];
    spec->receiver = (TSFieldId)ids[1];
    spec->block = (TSFieldId)ids[2];
    spec->operator_ = (TSFieldId)ids[3];
    spec->left = (TSFieldId)ids[4];
    spec->operand = (TSFieldId)ids[5];
    spec->object = (TSFieldId)ids[6];
    spec->pattern = (TSFieldId)ids[7];
    spec->name = (TSFieldId)ids[8];
    spec->scope = (TSFieldId)ids[9];
    Py_INCREF(args[1]);
    spec->special = args[1];
    Py_INCREF(args[2]);
    spec->write = args[2];
    PyObject *capsule = PyCapsule_New(spec, SPEC_NAME, spec_free);
    if (capsule == NULL) {
        Py_DECREF(spec->special);
        Py_DECREF(spec->write);
        PyMem_Free(spec);
    }
    return capsule;
}

/* The state of one collecting step: the tree's source, the list the records go to, the names
 * of the methods the file defined so far (a set of str), ``Walker.setter_calls``, whether a
 * hook method's scope (``def self.included(base)``) may be open, the local variables of the
 * scope around the nodes from byte ``from`` to byte ``until`` (``names``) and whether that
 * scope is a method body. */
typedef struct {
    const Spec *spec;
    const char *source;
    Py_ssize_t size;
    PyObject *out;
    PyObject *method_names;
    PyObject *setter_calls;
    int hooks;
    int in_method;
    PyObject *names;
    long long from, until;
} Collect;

enum { C_STOP = 0, C_DONE = 1, C_ERROR = -1 };
enum { RK_IMPLICIT_SELF = 0, RK_SELF = 1, RK_CONSTANT = 2, RK_CONSTANT_INSTANCE = 3, RK_OTHER = 4, CONST_REF = 5 };

static int type_is(TSNode node, const char *name) { return strcmp(ts_node_type(node), name) == 0; }

/* The node's text as ``Node.text.decode("utf-8", "replace")``; NULL with *ok = 1 when the
 * node does not lie within the source (then Python must see it). */
static PyObject *text_of(const Collect *c, TSNode node, int *ok) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    *ok = 1;
    if (end < start || (Py_ssize_t)end > c->size) return NULL;
    *ok = 0;
    return PyUnicode_DecodeUTF8(c->source + start, (Py_ssize_t)(end - start), "replace");
}

static int text_equals(const Collect *c, TSNode node, const char *word) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    size_t n = strlen(word);
    return end >= start && (Py_ssize_t)end <= c->size && end - start == n && memcmp(c->source + start, word, n) == 0;
}

/* Whether ``names`` is the set of local variables of the scope at byte ``start``. */
static int knows_locals(const Collect *c, uint32_t start) { return c->names != NULL && (long long)start >= c->from && (long long)start < c->until; }

static int in_method_at(const Collect *c, TSNode node) { return c->in_method && knows_locals(c, ts_node_start_byte(node)); }

/* ``Walker._const_path`` of a ``constant`` or ``scope_resolution`` node as (segments,
 * absolute) in *path (a new reference): the segments' text as ``node_text`` reads it, a
 * missing ``name`` as "". C_STOP for a dynamic path (``foo::Bar``) and for text outside the
 * source: Python reads those. */
static int const_path(const Collect *c, TSNode node, PyObject **path) {
    *path = NULL;
    int outside;
    if (type_is(node, "constant")) {
        PyObject *text = text_of(c, node, &outside);
        if (text == NULL) return outside ? C_STOP : C_ERROR;
        *path = Py_BuildValue("((N)O)", text, Py_False);
        return *path == NULL ? C_ERROR : C_DONE;
    }
    if (!type_is(node, "scope_resolution")) return C_STOP;
    PyObject *segments = PyList_New(0);
    if (segments == NULL) return C_ERROR;
    int absolute = 0, result = C_DONE;
    TSNode cur = node;
    for (;;) {
        TSNode name = ts_node_child_by_field_id(cur, c->spec->name);
        PyObject *text = ts_node_is_null(name) ? PyUnicode_FromString("") : text_of(c, name, &outside);
        if (text == NULL || PyList_Append(segments, text) < 0) {
            Py_XDECREF(text);
            result = text == NULL && outside ? C_STOP : C_ERROR;
            break;
        }
        Py_DECREF(text);
        TSNode scope = ts_node_child_by_field_id(cur, c->spec->scope);
        if (ts_node_is_null(scope)) {
            absolute = 1;
            break;
        }
        if (type_is(scope, "scope_resolution")) {
            cur = scope;
            continue;
        }
        if (type_is(scope, "constant")) {
            text = text_of(c, scope, &outside);
            if (text == NULL || PyList_Append(segments, text) < 0) {
                Py_XDECREF(text);
                result = text == NULL && outside ? C_STOP : C_ERROR;
                break;
            }
            Py_DECREF(text);
        } else {
            result = C_STOP; /* dynamic */
        }
        break;
    }
    if (result == C_DONE && PyList_Reverse(segments) < 0) result = C_ERROR;
    if (result == C_DONE) {
        PyObject *tuple = PyList_AsTuple(segments);
        *path = tuple == NULL ? NULL : Py_BuildValue("(NO)", tuple, absolute ? Py_True : Py_False);
        if (*path == NULL) result = C_ERROR;
    }
    Py_DECREF(segments);
    return result;
}

/* ``calls.receiver_of``: none (IMPLICIT_SELF), ``self`` (SELF), a constant or a constant path
 * (CONSTANT, its path in *extra as (segments, absolute, start, end)), ``Const.new`` (the same,
 * CONSTANT_INSTANCE), anything else (OTHER, its text cut to 200 characters in *extra). C_STOP
 * for a dynamic constant path (Python reads it as OTHER), for CONSTANT when ``constant`` is
 * false and for OTHER when ``other`` is false. */
static int receiver_kind(const Collect *c, TSNode recv, int constant, int other, int *kind, PyObject **extra) {
    *extra = NULL;
    if (ts_node_is_null(recv)) {
        *kind = RK_IMPLICIT_SELF;
        return C_DONE;
    }
    const char *type = ts_node_type(recv);
    TSNode path_node = recv;
    if (strcmp(type, "self") == 0) {
        *kind = RK_SELF;
        return C_DONE;
    }
    if (strcmp(type, "constant") == 0 || strcmp(type, "scope_resolution") == 0) {
        if (!constant) return C_STOP;
        *kind = RK_CONSTANT;
    } else {
        *kind = RK_OTHER;
        if (strcmp(type, "call") == 0) {
            TSNode inner = ts_node_child_by_field_id(recv, c->spec->receiver);
            TSNode inner_m = ts_node_child_by_field_id(recv, c->spec->method);
            if (!ts_node_is_null(inner) && !ts_node_is_null(inner_m) && (type_is(inner, "constant") || type_is(inner, "scope_resolution")) &&
                text_equals(c, inner_m, "new")) {
                *kind = RK_CONSTANT_INSTANCE;
                path_node = inner;
            }
        }
    }
    if (*kind != RK_OTHER) {
        PyObject *path;
        int found = const_path(c, path_node, &path);
        if (found != C_DONE) return found;
        *extra = Py_BuildValue("(Nkk)", path, (unsigned long)ts_node_start_byte(path_node), (unsigned long)ts_node_end_byte(path_node));
        return *extra == NULL ? C_ERROR : C_DONE;
    }
    if (!other) return C_STOP;
    int outside;
    PyObject *full = text_of(c, recv, &outside);
    if (full == NULL) return outside ? C_STOP : C_ERROR;
    if (PyUnicode_GET_LENGTH(full) > 200) {
        *extra = PyUnicode_Substring(full, 0, 200);
        Py_DECREF(full);
        if (*extra == NULL) return C_ERROR;
    } else {
        *extra = full;
    }
    return C_DONE;
}

/* Append (name, start, end, scope_at, kind, extra) to the records; steals name and extra.
 * kind: a receiver kind (extra: see receiver_kind), or CONST_REF (name: (segments, absolute),
 * extra: None). */
static int emit(const Collect *c, PyObject *name, uint32_t start, uint32_t end, uint32_t at, int kind, PyObject *text) {
    if (text == NULL) {
        text = Py_None;
        Py_INCREF(text);
    }
    PyObject *record = Py_BuildValue("(NkkkiN)", name, (unsigned long)start, (unsigned long)end, (unsigned long)at, kind, text);
    if (record == NULL) return C_ERROR;
    int failed = PyList_Append(c->out, record);
    Py_DECREF(record);
    return failed ? C_ERROR : C_DONE;
}

/* Whether ``Walker.setter_calls`` holds the node's range (C_STOP: an assignment's target). */
static int is_setter(const Collect *c, TSNode node) {
    if (PyDict_GET_SIZE(c->setter_calls) == 0) return 0;
    PyObject *key = Py_BuildValue("(kk)", (unsigned long)ts_node_start_byte(node), (unsigned long)ts_node_end_byte(node));
    if (key == NULL) return -1;
    int found = PyDict_Contains(c->setter_calls, key);
    Py_DECREF(key);
    return found;
}

/* A ``call`` (``Walker.on_call``): without a ``method`` field the handler does nothing
 * (C_DONE, no record). Recorded here: a call without a block, not an assignment's target
 * (``setter_calls``), whose name is not in the special set (directives, ``send``, mixins,
 * ``class_methods``, ``included``), nor, outside a method body, a method of the file
 * (``note_call``), with a receiver ``receiver_kind`` records: a constant one only in a method
 * body (elsewhere ``RECEIVER_DIRECTIVES`` and ``literal_call`` look at it), an OTHER one only
 * when no hook scope is open (``hook_mixin``). Then on_call appends exactly one MethodRef, at
 * the method's name, scoped at the call's start. */
static int collect_call(const Collect *c, TSNode node) {
    const Spec *spec = c->spec;
    TSNode meth = ts_node_child_by_field_id(node, spec->method);
    if (ts_node_is_null(meth)) return C_DONE;
    if (!ts_node_is_null(ts_node_child_by_field_id(node, spec->block))) return C_STOP;
    int setter = is_setter(c, node);
    if (setter) return setter < 0 ? C_ERROR : C_STOP;
    int outside;
    PyObject *name = text_of(c, meth, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    int in_method = in_method_at(c, node);
    int special = PySet_Contains(spec->special, name);
    if (special == 0 && !in_method) special = PySet_Contains(c->method_names, name);
    if (special) {
        Py_DECREF(name);
        return special < 0 ? C_ERROR : C_STOP;
    }
    int kind;
    PyObject *text;
    int found = receiver_kind(c, ts_node_child_by_field_id(node, spec->receiver), in_method, !c->hooks, &kind, &text);
    if (found != C_DONE) {
        Py_DECREF(name);
        return found;
    }
    return emit(c, name, ts_node_start_byte(meth), ts_node_end_byte(meth), ts_node_start_byte(node), kind, text);
}

/* The call record of ``method`` (an operator, ``[]``) on a receiver of ``kind`` and ``text``
 * (whose reference it takes), from ``start`` to ``end`` and scoped at ``start``. */
static int emit_operator(const Collect *c, const char *method, uint32_t start, uint32_t end, int kind, PyObject *text) {
    PyObject *name = PyUnicode_FromString(method);
    if (name == NULL) {
        Py_XDECREF(text);
        return C_ERROR;
    }
    return emit(c, name, start, end, start, kind, text);
}

/* A ``binary`` (``calls.on_binary``): nothing without an operator or for ``&&``, ``||``,
 * ``and``, ``or``; else the operator called on ``left``, scoped at the operator. */
static int collect_binary(const Collect *c, TSNode node) {
    TSNode op = ts_node_child_by_field_id(node, c->spec->operator_);
    if (ts_node_is_null(op)) return C_DONE;
    const char *type = ts_node_type(op);
    if (strcmp(type, "&&") == 0 || strcmp(type, "||") == 0 || strcmp(type, "and") == 0 || strcmp(type, "or") == 0) return C_DONE;
    int kind;
    PyObject *text;
    int found = receiver_kind(c, ts_node_child_by_field_id(node, c->spec->left), 1, 1, &kind, &text);
    if (found != C_DONE) return found;
    return emit_operator(c, type, ts_node_start_byte(op), ts_node_end_byte(op), kind, text);
}

/* A ``unary`` (``calls.on_unary``): ``!``/``not`` call ``!``, ``-``/``+`` call ``-@``/``+@``
 * (nothing on a numeric literal), ``~`` calls ``~``, on the operand; nothing otherwise. */
static int collect_unary(const Collect *c, TSNode node) {
    TSNode op = ts_node_child_by_field_id(node, c->spec->operator_);
    TSNode operand = ts_node_child_by_field_id(node, c->spec->operand);
    if (ts_node_is_null(op) || ts_node_is_null(operand)) return C_DONE;
    const char *type = ts_node_type(op), *method;
    if (strcmp(type, "!") == 0 || strcmp(type, "not") == 0) method = "!";
    else if (strcmp(type, "-") == 0) method = "-@";
    else if (strcmp(type, "+") == 0) method = "+@";
    else if (strcmp(type, "~") == 0) method = "~";
    else return C_DONE;
    if (method[1] == '@' &&
        (type_is(operand, "integer") || type_is(operand, "float") || type_is(operand, "rational") || type_is(operand, "complex")))
        return C_DONE;
    int kind;
    PyObject *text;
    int found = receiver_kind(c, operand, 1, 1, &kind, &text);
    if (found != C_DONE) return found;
    return emit_operator(c, method, ts_node_start_byte(op), ts_node_end_byte(op), kind, text);
}

/* An ``element_reference`` (``calls.on_element_reference``): nothing without an ``object``
 * or an anonymous ``[``; not an assignment's target (``setter_calls``): ``[]`` called on the
 * object, from the bracket to the node's end. */
static int collect_element_reference(const Collect *c, TSNode node) {
    TSNode object = ts_node_child_by_field_id(node, c->spec->object);
    if (ts_node_is_null(object)) return C_DONE;
    uint32_t count = ts_node_child_count(node);
    TSNode bracket = {{0}, NULL, NULL};
    int has_bracket = 0;
    for (uint32_t i = 0; i < count; i++) {
        TSNode child = ts_node_child(node, i);
        if (!ts_node_is_named(child) && type_is(child, "[")) {
            bracket = child;
            has_bracket = 1;
            break;
        }
    }
    if (!has_bracket) return C_DONE;
    int setter = is_setter(c, node);
    if (setter) return setter < 0 ? C_ERROR : C_STOP;
    int kind;
    PyObject *text;
    int found = receiver_kind(c, object, 1, 1, &kind, &text);
    if (found != C_DONE) return found;
    return emit_operator(c, "[]", ts_node_start_byte(bracket), ts_node_end_byte(node), kind, text);
}

/* An ``assignment`` (``definitions.on_assignment``, not an operator assignment): nothing
 * without a ``left``; a local variable (``identifier``) joins ``names`` when that is the set
 * of the scope there (``Walker._locals``; else C_STOP), a call or element reference becomes a
 * setter call (``setter_calls[(start, end)] = WRITE``); any other target is Python's. */
static int collect_assignment(const Collect *c, TSNode node) {
    TSNode left = ts_node_child_by_field_id(node, c->spec->left);
    if (ts_node_is_null(left)) return C_DONE;
    const char *type = ts_node_type(left);
    if (strcmp(type, "identifier") == 0) {
        uint32_t start = ts_node_start_byte(left), end = ts_node_end_byte(left);
        if (!knows_locals(c, start) || end < start || (Py_ssize_t)end > c->size) return C_STOP;
        PyObject *text = PyBytes_FromStringAndSize(c->source + start, (Py_ssize_t)(end - start));
        if (text == NULL) return C_ERROR;
        int failed = PySet_Add(c->names, text);
        Py_DECREF(text);
        return failed ? C_ERROR : C_DONE;
    }
    if (strcmp(type, "call") == 0 || strcmp(type, "element_reference") == 0) {
        PyObject *key = Py_BuildValue("(kk)", (unsigned long)ts_node_start_byte(left), (unsigned long)ts_node_end_byte(left));
        if (key == NULL) return C_ERROR;
        int failed = PyDict_SetItem(c->setter_calls, key, c->spec->write);
        Py_DECREF(key);
        return failed ? C_ERROR : C_DONE;
    }
    return C_STOP;
}

/* A node binding local variables (``Walker.on_binding``: parameter lists, assignment target
 * lists, rescue variables, patterns), when ``names`` is the set of the scope there (else
 * C_STOP): its ``identifier`` children join ``names``, and so do the names of its children
 * whose type ends in ``parameter`` or is ``rest_assignment`` (their ``name`` field, else their
 * first named child) that are identifiers. */
static int collect_binding(const Collect *c, TSNode node) {
    if (!knows_locals(c, ts_node_start_byte(node))) return C_STOP;
    uint32_t count = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < count; i++) {
        TSNode child = ts_node_named_child(node, i), bound;
        const char *type = ts_node_type(child);
        size_t n = strlen(type);
        if (strcmp(type, "identifier") == 0) {
            bound = child;
        } else if ((n >= 9 && strcmp(type + n - 9, "parameter") == 0) || strcmp(type, "rest_assignment") == 0) {
            bound = ts_node_child_by_field_id(child, c->spec->name);
            if (ts_node_is_null(bound) && ts_node_named_child_count(child)) bound = ts_node_named_child(child, 0);
            if (ts_node_is_null(bound) || !type_is(bound, "identifier")) continue;
        } else {
            continue;
        }
        uint32_t start = ts_node_start_byte(bound), end = ts_node_end_byte(bound);
        if (end < start || (Py_ssize_t)end > c->size) return C_STOP; /* Python adds them all (again: a set). */
        PyObject *text = PyBytes_FromStringAndSize(c->source + start, (Py_ssize_t)(end - start));
        if (text == NULL) return C_ERROR;
        int failed = PySet_Add(c->names, text);
        Py_DECREF(text);
        if (failed) return C_ERROR;
    }
    return C_DONE;
}

/* A ``constant`` or ``scope_resolution`` not inside a path recorded whole
 * (``Walker.on_constant``): a dynamic path records nothing (C_DONE); else a ConstRef scoped at
 * its start, and what follows up to its end is inside it (*skip_until). */
static int collect_constant(const Collect *c, TSNode node, long long *skip_until) {
    PyObject *path;
    int found = const_path(c, node, &path);
    if (found != C_DONE) return found; /* A dynamic path: Python sees it (and records nothing). */
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    *skip_until = end;
    return emit(c, path, start, end, start, CONST_REF, NULL);
}

/* An identifier that is not a name (fields) nor a known local (``Walker.on_identifier``):
 * outside a ``pattern`` field, other than ``end``, in a method body or not named as a method
 * of the file (``note_call``): a call on implicit self at the identifier. */
static int collect_identifier(const Collect *c, TSNode node, TSFieldId field) {
    if (field == c->spec->pattern || text_equals(c, node, "end")) return C_STOP;
    int outside;
    PyObject *name = text_of(c, node, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    int known = in_method_at(c, node) ? 0 : PySet_Contains(c->method_names, name);
    if (known) {
        Py_DECREF(name);
        return known < 0 ? C_ERROR : C_STOP;
    }
    uint32_t start = ts_node_start_byte(node);
    return emit(c, name, start, ts_node_end_byte(node), start, RK_IMPLICIT_SELF, NULL);
}

/* advance(cursor, kinds, fields, descend, check_missing, max_depth, depth, names, until, skip_until
 *         [, spec, out, method_names, setter_calls, hooks, in_method, names_from])
 *     -> event | depth << 2
 *
 * From the node the cursor is at (already visited), move in preorder to the next node that
 * Python must see, by its kind (``kind_id``) in ``kinds`` (a 65,536-byte table):
 * - 1: always;
 * - 2 (identifiers): unless in a field (``field_id``) flagged in ``fields`` (a 65,536-byte
 *   table: the handler of such a node in such a field does nothing), or, when ``names`` is a
 *   set, starting before byte ``until`` (and not before ``names_from``) with its text
 *   (``Node.text``) in ``names`` (the handler does nothing either: a read of a local variable
 *   the walk knows);
 * - 3 (constants): unless starting before byte ``skip_until`` (part of a constant path the
 *   walk has recorded whole: the handler does nothing);
 * - 4 (hash pairs): only with one named child (``{k:}``; the handler does nothing with two);
 * - 5 to 11 (calls, binary and unary operators, element references, assignments, bindings of
 *   local variables, conditional statements): always, unless collecting (below);
 * - with ``check_missing``, a missing node of a kind that is 0 there.
 * With ``descend`` false the current node's children are skipped. At ``max_depth`` a node
 * with children is not entered: the cursor stays on it and the event is WALK_TOO_DEEP.
 * WALK_END: the walk is over.
 *
 * Collecting (seven more arguments: a ``spec()``, a list, ``Walker.method_names``,
 * ``Walker.setter_calls``, whether a hook scope may be open, whether the scope whose locals
 * ``names`` holds is a method body, the byte from which it holds them): a node of kind 5 to
 * 8, a constant of kind 3, or an identifier of kind 2 that is not a known local (``names`` is
 * a set and it starts from ``names_from`` and before ``until``), whose handler would only append one MethodRef or ConstRef (the collect_*
 * functions say when) is passed over, and what that record needs is appended to ``out`` as a
 * tuple (name, start, end, scope_at, kind, extra; see emit): the walker makes the records from
 * them, in order, before it runs the next handler (scope_at: the byte whose scope the handler
 * asks for). One whose handler does nothing at all is passed over too: a conditional
 * statement (11) in a method body (``Walker.on_conditional``). So are an assignment (9) whose
 * handler only notes a local variable or a setter call (collect_assignment) and a binding of
 * local variables (10, collect_binding), which it notes itself. */
static PyObject *advance(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 10 && nargs != 17) {
        PyErr_SetString(PyExc_TypeError, "advance() takes 10 arguments (17 to collect records)");
        return NULL;
    }
    if (cursor_type == NULL || Py_TYPE(args[0]) != cursor_type) {
        PyErr_SetString(PyExc_TypeError, "advance() needs a tree_sitter.TreeCursor");
        return NULL;
    }
    PyTreeCursor *self = (PyTreeCursor *)args[0];
    Collect collect = {0};
    int collecting = 0;
    long long names_from = 0;
    if (nargs == 17) {
        collect.spec = PyCapsule_GetPointer(args[10], SPEC_NAME);
        if (collect.spec == NULL) return NULL;
        if (!PyList_Check(args[11]) || !PyAnySet_Check(args[12]) || !PyDict_Check(args[13])) {
            PyErr_SetString(PyExc_TypeError, "advance() collects into a list, with a set of method names and a dict of setter calls");
            return NULL;
        }
        collect.out = args[11];
        collect.method_names = args[12];
        collect.setter_calls = args[13];
        collect.hooks = PyObject_IsTrue(args[14]);
        collect.in_method = PyObject_IsTrue(args[15]);
        names_from = PyLong_AsLongLong(args[16]);
        if (collect.hooks < 0 || collect.in_method < 0 || PyErr_Occurred()) return NULL;
    }
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
    collect.from = names_from;
    collect.until = until;
    if (descend < 0 || check_missing < 0 || PyErr_Occurred()) {
        PyBuffer_Release(&kinds);
        PyBuffer_Release(&fields);
        return NULL;
    }
    /* The text of identifiers is read from the tree's source, as Node.text reads it. */
    PyObject *source = ((PyTree *)self->tree)->source;
    if (source == NULL || !PyBytes_Check(source)) {
        names = NULL;
    } else if (collect.spec != NULL) {
        collect.names = names;
        collect.source = PyBytes_AS_STRING(source);
        collect.size = PyBytes_GET_SIZE(source);
        collecting = 1;
    }
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
        int collected = C_STOP;
        if (wanted == 0) {
            if (check_missing && ts_node_is_missing(node)) {
                event = WALK_MISSING;
                break;
            }
            descend = 1;
            continue;
        } else if (wanted == 1) {
            event = WALK_HANDLER;
            break;
        } else if (wanted == 2) {
            TSFieldId field = ts_tree_cursor_current_field_id(cursor);
            if (skipped_fields[field]) {
                descend = 1;
                continue;
            }
            uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
            if (names == NULL || (long long)start >= until || (long long)start < names_from || end < start ||
                (Py_ssize_t)end > PyBytes_GET_SIZE(source)) {
                event = WALK_HANDLER;
                break;
            }
            PyObject *text = PyBytes_FromStringAndSize(PyBytes_AS_STRING(source) + start, (Py_ssize_t)(end - start));
            int known = text == NULL ? -1 : PySet_Contains(names, text);
            Py_XDECREF(text);
            if (known < 0) goto error;
            if (!known) {
                if (collecting) collected = collect_identifier(&collect, node, field);
                if (collected == C_STOP) {
                    event = WALK_HANDLER;
                    break;
                }
            }
        } else if (wanted == 3) {
            if ((long long)ts_node_start_byte(node) >= skip_until) {
                if (collecting) collected = collect_constant(&collect, node, &skip_until);
                if (collected == C_STOP) {
                    event = WALK_HANDLER;
                    break;
                }
            }
        } else if (wanted == 4) {
            if (ts_node_named_child_count(node) == 1) {
                event = WALK_HANDLER;
                break;
            }
        } else {
            if (collecting) {
                if (wanted == 5) collected = collect_call(&collect, node);
                else if (wanted == 6) collected = collect_binary(&collect, node);
                else if (wanted == 7) collected = collect_unary(&collect, node);
                else if (wanted == 8) collected = collect_element_reference(&collect, node);
                else if (wanted == 9) collected = collect_assignment(&collect, node);
                else if (wanted == 10) collected = collect_binding(&collect, node);
                else if (wanted == 11) collected = in_method_at(&collect, node) ? C_DONE : C_STOP;
            }
            if (collected == C_STOP) {
                event = WALK_HANDLER;
                break;
            }
        }
        if (collected == C_ERROR) goto error;
        descend = 1;
    }
    }
done:
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&fields);
    if (moved) Py_CLEAR(self->node); /* The cursor's cached node is no longer where it is. */
    return PyLong_FromLong((long)event | (depth << 2));
error:
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&fields);
    Py_CLEAR(self->node);
    return NULL;
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
    {"spec", (PyCFunction)(void (*)(void))make_spec, METH_FASTCALL, "What the collecting advance() needs to know of the grammar."},
    {"version", version, METH_NOARGS, "The tree-sitter version this module was built against."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_walk", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk(void) { return PyModuleDef_Init(&module_def); }
