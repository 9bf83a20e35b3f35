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
 * Collecting (advance() with its eleven more arguments), it also does the plain cases of the
 * hottest handlers itself: a call, operator, element reference, identifier, constant or block
 * argument whose handler would only append one record (two for an op-assignment) gets a tuple
 * (kinds, names, byte offsets, receiver text or constant path) in a list, from which the walker
 * makes the very records, in walk order, before its next handler runs; an assignment to a
 * local variable or a call, and a parameter list, note their local variables (or setter call)
 * as their handlers would, an assignment to an instance, class or global variable gets its
 * definition's tuple; a block gets one too (and the call before it what self is there), and so
 * do a plain ``def``, class or module, whose body's scope the step then follows itself. Each collect_*
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
    TSFieldId method, receiver, block, operator_, left, operand, object, pattern, name, scope, parameters, superclass, body;
    PyObject *special;
    PyObject *write;
    PyObject *iterators;
    PyObject *evals;
    PyObject *hooks;
    long max_nesting;
    PyObject *visibility;
} Spec;

static const char SPEC_NAME[] = "rdx.native._walk.Spec";

static void spec_free(PyObject *capsule) {
    Spec *spec = PyCapsule_GetPointer(capsule, SPEC_NAME);
    if (spec == NULL) return;
    Py_XDECREF(spec->special);
    Py_XDECREF(spec->write);
    Py_XDECREF(spec->iterators);
    Py_XDECREF(spec->evals);
    Py_XDECREF(spec->hooks);
    Py_XDECREF(spec->visibility);
    PyMem_Free(spec);
}

/* spec((method, receiver, block, operator, left, operand, object, pattern, name, scope, parameters, superclass, body),
 *      special, write, iterators, evals, hooks, max_nesting, visibility)
 *     -> capsule (write: the value ``Walker.setter_calls`` gives an assignment's target; iterators: the
 *     methods that run their block on the self around it, on any receiver; evals: those that run
 *     it with the receiver as self; hooks: the method names whose definitions Python must see;
 *     sets of str; max_nesting: ``MAX_NESTING``; visibility: the words a bare identifier in a
 *     namespace body marks (``Walker._scan_marks``), a set of bytes) */
static PyObject *make_spec(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 8 || !PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 13 || !PyAnySet_Check(args[1]) || !PyAnySet_Check(args[3]) ||
        !PyAnySet_Check(args[4]) || !PyAnySet_Check(args[5]) || !PyLong_Check(args[6]) || !PyAnySet_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, "spec() takes a tuple of 13 field ids, a set of names, a value, three sets of names, an int and a set");
        return NULL;
    }
    long max_nesting = PyLong_AsLong(args[6]);
    if (max_nesting == -1 && PyErr_Occurred()) return NULL;
    long ids[13];
    for (Py_ssize_t i = 0; i < 13; i++) {
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
    spec->parameters = (TSFieldId)ids[10];
    spec->superclass = (TSFieldId)ids[11];
    spec->body = (TSFieldId)ids[12];
    Py_INCREF(args[1]);
    spec->special = args[1];
    Py_INCREF(args[2]);
    spec->write = args[2];
    Py_INCREF(args[3]);
    spec->iterators = args[3];
    Py_INCREF(args[4]);
    spec->evals = args[4];
    Py_INCREF(args[5]);
    spec->hooks = args[5];
    Py_INCREF(args[7]);
    spec->visibility = args[7];
    spec->max_nesting = max_nesting;
    PyObject *capsule = PyCapsule_New(spec, SPEC_NAME, spec_free);
    if (capsule == NULL) {
        Py_DECREF(spec->special);
        Py_DECREF(spec->write);
        Py_DECREF(spec->iterators);
        Py_DECREF(spec->evals);
        Py_DECREF(spec->hooks);
        Py_DECREF(spec->visibility);
        PyMem_Free(spec);
    }
    return capsule;
}

enum { C_STOP = 0, C_DONE = 1, C_ERROR = -1 };

/* A scope the step opened (collect_method), or the one around it: see Collect. */
typedef struct {
    PyObject *names;
    long long from, until;
    int in_method;
    long depth;
} Frame;

enum { MAX_FRAMES = 64 };

/* The state of one collecting step: the tree's source, the list the records go to, the names
 * of the methods the file defined so far (a set of str), ``Walker.setter_calls``, whether a
 * hook method's scope (``def self.included(base)``) may be open, the local variables of the
 * scope around the nodes from byte ``from`` to byte ``until`` (``names``), whether that
 * scope is a method body and its depth (``Scope.depth``). Methods the step opens push the
 * scope before theirs on ``frames`` (their ``names`` are new sets, owned here), which comes
 * back when the walk reaches ``until``. */
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
    long depth;
    int frame_count;
    Frame frames[MAX_FRAMES];
    PyObject *scopes;
    Py_ssize_t base;
    PyObject *top_locals;
    const TSTreeCursor *cursor;
    int untaken; /* Whether ``Walker.untaken`` holds a branch. */
} Collect;

/* An int attribute of a Scope (rdx.ruby.discover.scope); -1 with an exception set on an error. */
static long long scope_int(PyObject *scope, const char *name) {
    PyObject *value = PyObject_GetAttrString(scope, name);
    if (value == NULL) return -1;
    long long result = PyLong_AsLongLong(value);
    Py_DECREF(value);
    return result;
}

/* Past the end of the walker's scope ``scopes[base]`` (none of its own frames open): the
 * innermost scope below it in ``Walker.scopes`` that has not ended at byte ``start``, as
 * ``Walker._known_locals`` finds it, or the top level (``top_locals``). C_ERROR on an error. */
static int leave_base(Collect *c, uint32_t start) {
    Py_ssize_t i = c->base;
    while (--i >= 0) {
        long long end = scope_int(PyList_GET_ITEM(c->scopes, i), "end");
        if (end == -1 && PyErr_Occurred()) return C_ERROR;
        if ((long long)start < end) break;
    }
    c->base = i;
    if (i < 0) {
        c->names = c->top_locals;
        c->from = 0;
        c->until = 1LL << 62;
        c->in_method = 0;
        c->depth = 0;
        return C_DONE;
    }
    PyObject *scope = PyList_GET_ITEM(c->scopes, i);
    PyObject *names = PyObject_GetAttrString(scope, "locals");
    if (names == NULL) return C_ERROR;
    Py_DECREF(names); /* Borrowed: the scope keeps it. */
    PyObject *is_method = PyObject_GetAttrString(scope, "is_method");
    if (is_method == NULL) return C_ERROR;
    int method = PyObject_IsTrue(is_method);
    Py_DECREF(is_method);
    long long from = scope_int(scope, "body_start"), until = scope_int(scope, "end"), depth = scope_int(scope, "depth");
    if (method < 0 || PyErr_Occurred() || !PyAnySet_Check(names)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a scope's locals are not a set");
        return C_ERROR;
    }
    c->names = names;
    c->from = from;
    c->until = until;
    c->in_method = method;
    c->depth = (long)depth;
    return C_DONE;
}

/* Open a scope (collect_method, collect_namespace) over the current one: its locals ``names``
 * (a reference given to the frame), from byte ``from`` to ``until``, a method body or not,
 * ``weight`` levels deeper. */
static void push_frame(Collect *c, PyObject *names, long long from, long long until, int in_method, long weight) {
    Frame *frame = &c->frames[c->frame_count++];
    frame->names = c->names;
    frame->from = c->from;
    frame->until = c->until;
    frame->in_method = c->in_method;
    frame->depth = c->depth;
    c->names = names;
    c->from = from;
    c->until = until;
    c->in_method = in_method;
    c->depth += weight;
}

/* Back to the scope around the innermost one the step opened. */
static void pop_frame(Collect *c) {
    Frame *frame = &c->frames[--c->frame_count];
    Py_DECREF(c->names);
    c->names = frame->names;
    c->from = frame->from;
    c->until = frame->until;
    c->in_method = frame->in_method;
    c->depth = frame->depth;
}

enum { RK_IMPLICIT_SELF = 0, RK_SELF = 1, RK_CONSTANT = 2, RK_CONSTANT_INSTANCE = 3, RK_OTHER = 4, CONST_REF = 5, DEFINITION = 6, BLOCK_SELF = 7, BLOCK = 8, METHOD = 9,
       NAMESPACE = 10 };
/* ``BlockSelf`` (rdx.ruby.discover.scope) */
enum { SELF_SAME = 0, SELF_UNKNOWN = 3 };

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
 * kind: a receiver kind (extra: see receiver_kind), CONST_REF (name: (segments, absolute),
 * extra: None), DEFINITION (emit_variable), BLOCK_SELF (collect_call), BLOCK (collect_block) or
 * METHOD (collect_method): ``Walker._record_batch`` reads them. */
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

/* What ``Walker.setter_calls`` holds for the node's range: nothing (ROLE_NONE), the mark of
 * an assignment's target (ROLE_WRITE), any other mark (ROLE_OTHER: an op-assignment's target,
 * which Python records); -1 on an error. */
enum { ROLE_NONE = 0, ROLE_WRITE = 1, ROLE_OTHER = 2 };
static int setter_role(const Collect *c, TSNode node) {
    if (PyDict_GET_SIZE(c->setter_calls) == 0) return ROLE_NONE;
    PyObject *key = Py_BuildValue("(kk)", (unsigned long)ts_node_start_byte(node), (unsigned long)ts_node_end_byte(node));
    if (key == NULL) return -1;
    PyObject *role = PyDict_GetItemWithError(c->setter_calls, key); /* borrowed */
    Py_DECREF(key);
    if (role == NULL) return PyErr_Occurred() ? -1 : ROLE_NONE;
    int write = PyObject_RichCompareBool(role, c->spec->write, Py_EQ);
    return write < 0 ? -1 : write ? ROLE_WRITE : ROLE_OTHER;
}

/* Whether the node the walk is at lies in a method body with no namespace (nor the top level)
 * between: there ``literals._assignment`` finds no constant's value (it walks the same
 * ancestors up and gives None at the method), so neither ``literal_collection`` nor
 * ``constant_names`` does. Read with a copy of the walk's cursor (``goto_parent`` is O(1)). */
static int in_method_body(const Collect *c) {
    TSTreeCursor up = ts_tree_cursor_copy(c->cursor);
    int found = 0;
    while (ts_tree_cursor_goto_parent(&up)) {
        const char *type = ts_node_type(ts_tree_cursor_current_node(&up));
        if (strcmp(type, "method") == 0 || strcmp(type, "singleton_method") == 0) {
            found = 1;
            break;
        }
        if (strcmp(type, "class") == 0 || strcmp(type, "module") == 0 || strcmp(type, "singleton_class") == 0 || strcmp(type, "program") == 0) break;
    }
    ts_tree_cursor_delete(&up);
    return found;
}

/* Whether ``register_loop`` (rdx.ruby.evaluate.loops) does nothing for a call's ``block`` on
 * ``recv``: when the block has no parameters or one that is not a plain name, or the receiver
 * is none or of a type that is neither a literal list or hash nor a constant (which may hold
 * one), or a constant read in a method body (in_method_body). Then ``Walker._block_self``
 * finds no loop at the block either. */
static int no_loop(const Collect *c, TSNode block, TSNode recv) {
    TSNode params = ts_node_child_by_field_id(block, c->spec->parameters);
    if (ts_node_is_null(params)) return 1;
    uint32_t count = ts_node_named_child_count(params);
    if (count == 0) return 1;
    for (uint32_t i = 0; i < count; i++)
        if (!type_is(ts_node_named_child(params, i), "identifier")) return 1;
    if (ts_node_is_null(recv)) return 1;
    const char *type = ts_node_type(recv);
    if (strcmp(type, "constant") == 0) return in_method_body(c);
    return strcmp(type, "array") != 0 && strcmp(type, "symbol_array") != 0 && strcmp(type, "string_array") != 0 && strcmp(type, "hash") != 0;
}

/* A ``call`` (``Walker.on_call``): without a ``method`` field the handler does nothing
 * (C_DONE, no record). Recorded here: a call without a block or whose block no loop is
 * registered for (no_loop), not an op-assignment's target (an assignment's calls ``name=``,
 * the name the tests below read), whose name is not in the special set (directives, ``send``,
 * mixins, ``class_methods``, ``included``), nor, outside a method body, a method of the file
 * (``note_call``), with a receiver ``receiver_kind`` records: a constant one only in a method
 * body (elsewhere ``RECEIVER_DIRECTIVES`` and ``literal_call`` look at it), an OTHER one only
 * when no hook scope is open (``hook_mixin``). Then on_call appends exactly one MethodRef, at
 * the method's name, scoped at the call's start; with a block, ``_block_self`` says SAME for a
 * core iterator on a receiver and UNKNOWN otherwise, unless the call is an ``*_eval``/``*_exec``
 * or ``new``/``define`` on a constant (Python's then): a BLOCK_SELF tuple carries it. */
static int collect_call(const Collect *c, TSNode node) {
    const Spec *spec = c->spec;
    TSNode meth = ts_node_child_by_field_id(node, spec->method);
    if (ts_node_is_null(meth)) return C_DONE;
    TSNode block = ts_node_child_by_field_id(node, spec->block);
    TSNode recv = ts_node_child_by_field_id(node, spec->receiver);
    int has_block = !ts_node_is_null(block);
    if (has_block && !no_loop(c, block, recv)) return C_STOP;
    int role = setter_role(c, node);
    if (role < 0) return C_ERROR;
    if (role == ROLE_OTHER) return C_STOP;
    int outside;
    PyObject *name = text_of(c, meth, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    if (role == ROLE_WRITE) { /* ``x.y = 1`` calls ``y=``: the name the tests below read too. */
        PyObject *setter = PyUnicode_FromFormat("%U=", name);
        Py_DECREF(name);
        if (setter == NULL) return C_ERROR;
        name = setter;
    }
    int in_method = in_method_at(c, node);
    int special = PySet_Contains(spec->special, name);
    if (special == 0 && !in_method) special = PySet_Contains(c->method_names, name);
    if (special) {
        Py_DECREF(name);
        return special < 0 ? C_ERROR : C_STOP;
    }
    int self_kind = SELF_UNKNOWN;
    if (has_block) {
        /* ``Walker._block_self``: no loop (no_loop), a core iterator on a receiver keeps self, an
         * ``*_eval``/``*_exec`` call or ``Class.new``-like factory is Python's; else UNKNOWN. */
        int eval = PySet_Contains(spec->evals, name);
        if (eval) {
            Py_DECREF(name);
            return eval < 0 ? C_ERROR : C_STOP;
        }
        if (!ts_node_is_null(recv)) {
            int iterator = PySet_Contains(spec->iterators, name);
            if (iterator < 0) {
                Py_DECREF(name);
                return C_ERROR;
            }
            if (iterator) self_kind = SELF_SAME;
        }
    }
    int kind;
    PyObject *text;
    int found = receiver_kind(c, recv, in_method, !c->hooks, &kind, &text);
    if (found != C_DONE) {
        Py_DECREF(name);
        return found;
    }
    if (has_block && self_kind != SELF_SAME && kind == RK_CONSTANT && (text_equals(c, meth, "new") || text_equals(c, meth, "define"))) {
        Py_DECREF(name);
        Py_XDECREF(text);
        return C_STOP; /* Perhaps ``Class.new do``: an anonymous namespace's body. */
    }
    if (has_block) {
        /* What self is in the block, for its record (collect_block or ``Walker.on_block``). */
        PyObject *self_value = PyLong_FromLong(self_kind);
        if (self_value != NULL) Py_INCREF(name); /* emit steals one reference. */
        if (self_value == NULL || emit(c, name, ts_node_start_byte(block), 0, 0, BLOCK_SELF, self_value) != C_DONE) {
            Py_DECREF(name);
            Py_XDECREF(text);
            return C_ERROR;
        }
    }
    return emit(c, name, ts_node_start_byte(meth), ts_node_end_byte(meth), ts_node_start_byte(node), kind, text);
}

/* A ``method`` (``definitions.on_method``), or a ``singleton_method`` on ``self``, with a name,
 * where ``names`` is the set of the scope around (knows_locals), that nests no deeper than
 * ``max_nesting`` (``Walker.too_deep``) and is not named as one of Ruby's hooks (whose
 * parameter the handler may note): its record (name, start, end, name range, parameters' text
 * or None, the row it starts on, a new set for its locals, whether it is defined on ``self``),
 * and the scope of its body opens
 * here too (Frame), from the end of its name to its end, a method body one level deeper. The
 * name joins ``method_names`` at once, as the handler adds it. */
static int collect_method(Collect *c, TSNode node) {
    TSNode name_node = ts_node_child_by_field_id(node, c->spec->name);
    uint32_t start = ts_node_start_byte(node);
    if (ts_node_is_null(name_node) || !knows_locals(c, start) || c->depth + 1 > c->spec->max_nesting || c->frame_count >= MAX_FRAMES) return C_STOP;
    int self_receiver = type_is(node, "singleton_method");
    if (self_receiver) {
        TSNode object = ts_node_child_by_field_id(node, c->spec->object);
        if (ts_node_is_null(object) || !type_is(object, "self")) return C_STOP;
    }
    int outside;
    PyObject *name = text_of(c, name_node, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    int hook = PySet_Contains(c->spec->hooks, name);
    if (hook) {
        Py_DECREF(name);
        return hook < 0 ? C_ERROR : C_STOP;
    }
    TSNode params_node = ts_node_child_by_field_id(node, c->spec->parameters);
    PyObject *params = Py_None;
    Py_INCREF(params);
    if (!ts_node_is_null(params_node)) {
        Py_DECREF(params);
        params = text_of(c, params_node, &outside);
        if (params == NULL) {
            Py_DECREF(name);
            return outside ? C_STOP : C_ERROR;
        }
    }
    PyObject *names = PySet_New(NULL);
    if (names == NULL || PySet_Add(c->method_names, name) < 0) {
        Py_XDECREF(names);
        Py_DECREF(name);
        Py_DECREF(params);
        return C_ERROR;
    }
    uint32_t name_end = ts_node_end_byte(name_node), end = ts_node_end_byte(node);
    PyObject *extra = Py_BuildValue("(kkNkOO)", (unsigned long)ts_node_start_byte(name_node), (unsigned long)name_end, params,
                                    (unsigned long)ts_node_start_point(node).row, names, self_receiver ? Py_True : Py_False);
    if (extra == NULL) {
        Py_DECREF(names);
        Py_DECREF(name);
        return C_ERROR;
    }
    if (emit(c, name, start, end, start, METHOD, extra) != C_DONE) {
        Py_DECREF(names);
        return C_ERROR;
    }
    push_frame(c, names, name_end, end, 1, 1); /* names: the reference made above. */
    return C_DONE;
}

/* A ``class`` or ``module`` (``definitions.on_namespace``) with a name, where ``names`` is the set
 * of the scope around (knows_locals): nothing without a name; recorded here when its name is a
 * constant path (const_path; a dynamic one is Python's, which warns) that nests no deeper than
 * ``max_nesting`` (``Walker.too_deep``, each segment a level) and it has no superclass or one
 * whose last named child is a constant path too, ``Walker.untaken`` holding no branch (which
 * may drop it). The record: (whether a class, the name's segments, absolute, its range, the
 * superclass as (segments, absolute, start, end) or None, where the body starts (after the name
 * or the superclass), the row it starts on, the body's marks (``Walker._scan_marks``: its
 * identifiers named in ``visibility``, as (start, word)), a new set for its locals). Its
 * body's scope opens here (Frame) and the constants of its name are passed over
 * (``skip_const_until``). */
static int collect_namespace(Collect *c, TSNode node, long long *skip_until) {
    const Spec *spec = c->spec;
    TSNode name_node = ts_node_child_by_field_id(node, spec->name);
    if (ts_node_is_null(name_node)) return C_DONE;
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (!knows_locals(c, start) || c->frame_count >= MAX_FRAMES) return C_STOP;
    TSNode sup = ts_node_child_by_field_id(node, spec->superclass);
    TSNode expr = {{0}, NULL, NULL};
    if (!ts_node_is_null(sup)) {
        uint32_t count = ts_node_named_child_count(sup);
        if (c->untaken || count == 0) return C_STOP;
        expr = ts_node_named_child(sup, count - 1);
        if (!type_is(expr, "constant") && !type_is(expr, "scope_resolution")) return C_STOP;
    }
    PyObject *path, *superclass = NULL;
    int found = const_path(c, name_node, &path);
    if (found != C_DONE) return found;
    Py_ssize_t weight = PyTuple_GET_SIZE(PyTuple_GET_ITEM(path, 0));
    if (c->depth + weight > spec->max_nesting) {
        Py_DECREF(path);
        return C_STOP;
    }
    if (!ts_node_is_null(sup)) {
        PyObject *sup_path;
        found = const_path(c, expr, &sup_path);
        if (found != C_DONE) {
            Py_DECREF(path);
            return found;
        }
        superclass = Py_BuildValue("(OOkk)", PyTuple_GET_ITEM(sup_path, 0), PyTuple_GET_ITEM(sup_path, 1), (unsigned long)ts_node_start_byte(expr),
                                   (unsigned long)ts_node_end_byte(expr));
        Py_DECREF(sup_path);
        if (superclass == NULL) {
            Py_DECREF(path);
            return C_ERROR;
        }
    }
    /* The marks: the body's named children that are identifiers with a visibility word. */
    PyObject *marks = PyList_New(0);
    PyObject *names = PySet_New(NULL);
    if (marks == NULL || names == NULL) goto error;
    TSNode body = ts_node_child_by_field_id(node, spec->body);
    if (!ts_node_is_null(body)) {
        TSTreeCursor cursor = ts_tree_cursor_new(body);
        int failed = 0;
        if (ts_tree_cursor_goto_first_child(&cursor)) {
            do {
                TSNode child = ts_tree_cursor_current_node(&cursor);
                if (!ts_node_is_named(child) || !type_is(child, "identifier")) continue;
                uint32_t word_start = ts_node_start_byte(child), word_end = ts_node_end_byte(child);
                if (word_end < word_start || (Py_ssize_t)word_end > c->size) {
                    failed = C_STOP;
                    break;
                }
                PyObject *word = PyBytes_FromStringAndSize(c->source + word_start, (Py_ssize_t)(word_end - word_start));
                int marked = word == NULL ? -1 : PySet_Contains(spec->visibility, word);
                PyObject *mark = marked > 0 ? Py_BuildValue("(kN)", (unsigned long)word_start, PyUnicode_FromEncodedObject(word, "utf-8", "strict")) : NULL;
                Py_XDECREF(word);
                if (marked < 0 || (marked > 0 && (mark == NULL || PyList_Append(marks, mark) < 0))) {
                    Py_XDECREF(mark);
                    failed = C_ERROR;
                    break;
                }
                Py_XDECREF(mark);
            } while (ts_tree_cursor_goto_next_sibling(&cursor));
        }
        ts_tree_cursor_delete(&cursor);
        if (failed) {
            Py_DECREF(path);
            Py_XDECREF(superclass);
            Py_DECREF(marks);
            Py_DECREF(names);
            return failed;
        }
    }
    uint32_t name_end = ts_node_end_byte(name_node);
    uint32_t body_start = ts_node_is_null(sup) ? name_end : ts_node_end_byte(sup);
    PyObject *extra = Py_BuildValue("(OOOkkNkkNO)", type_is(node, "class") ? Py_True : Py_False, PyTuple_GET_ITEM(path, 0), PyTuple_GET_ITEM(path, 1),
                                    (unsigned long)ts_node_start_byte(name_node), (unsigned long)name_end, superclass != NULL ? superclass : Py_NewRef(Py_None),
                                    (unsigned long)body_start, (unsigned long)ts_node_start_point(node).row, marks, names);
    superclass = NULL;
    marks = NULL;
    Py_DECREF(path);
    if (extra == NULL) goto error;
    Py_INCREF(Py_None);
    if (emit(c, Py_None, start, end, start, NAMESPACE, extra) != C_DONE) goto error;
    *skip_until = name_end;
    push_frame(c, names, body_start, end, 0, weight);
    return C_DONE;
error:
    Py_XDECREF(superclass);
    Py_XDECREF(marks);
    Py_XDECREF(names);
    return C_ERROR;
}

/* A ``block_argument`` (``calls.on_block_argument``): nothing unless it has one named child,
 * a symbol with a name; ``&:name`` (a ``simple_symbol``) calls ``name`` on an unknown receiver,
 * from after the colon to the symbol's end, scoped there. A ``delimited_symbol`` is Python's. */
static int collect_block_argument(const Collect *c, TSNode node) {
    if (ts_node_named_child_count(node) != 1) return C_DONE;
    TSNode sym = ts_node_named_child(node, 0);
    if (type_is(sym, "delimited_symbol")) return C_STOP;
    if (!type_is(sym, "simple_symbol")) return C_DONE;
    uint32_t start = ts_node_start_byte(sym), end = ts_node_end_byte(sym);
    if (end <= start || (Py_ssize_t)end > c->size || c->source[start] != ':') return C_STOP;
    if (end == start + 1) return C_DONE; /* No name. */
    PyObject *name = PyUnicode_DecodeUTF8(c->source + start + 1, (Py_ssize_t)(end - start - 1), "replace");
    if (name == NULL) return C_ERROR;
    return emit(c, name, start + 1, end, start + 1, RK_OTHER, NULL);
}

/* A block (``{ }``, ``do ... end``, a lambda: ``Walker.on_block``), always: its range, for the
 * walker to open it with what the call before said of its self. */
static int collect_block(const Collect *c, TSNode node) {
    Py_INCREF(Py_None);
    return emit(c, Py_None, ts_node_start_byte(node), ts_node_end_byte(node), 0, BLOCK, NULL);
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
    int role = setter_role(c, node);
    if (role < 0) return C_ERROR;
    if (role == ROLE_OTHER) return C_STOP;
    int kind;
    PyObject *text;
    int found = receiver_kind(c, object, 1, 1, &kind, &text);
    if (found != C_DONE) return found;
    return emit_operator(c, role == ROLE_WRITE ? "[]=" : "[]", ts_node_start_byte(bracket), ts_node_end_byte(node), kind, text);
}

/* Which variable an assignment to ``left`` defines (``definitions._assign_target``): 0 for an
 * instance variable, 1 for a class variable, 2 for a global one; -1 for any other target. */
static int variable_kind(TSNode left) {
    const char *type = ts_node_type(left);
    if (strcmp(type, "instance_variable") == 0) return 0;
    if (strcmp(type, "class_variable") == 0) return 1;
    if (strcmp(type, "global_variable") == 0) return 2;
    return -1;
}

/* A local variable assigned (``left``, an ``identifier``) joins ``names`` when that is the set of
 * the scope there (``Walker._locals``); else C_STOP, with nothing done. */
static int add_local(const Collect *c, TSNode left) {
    uint32_t start = ts_node_start_byte(left), end = ts_node_end_byte(left);
    if (!knows_locals(c, start) || end < start || (Py_ssize_t)end > c->size) return C_STOP;
    PyObject *text = PyBytes_FromStringAndSize(c->source + start, (Py_ssize_t)(end - start));
    if (text == NULL) return C_ERROR;
    int failed = PySet_Add(c->names, text);
    Py_DECREF(text);
    return failed ? C_ERROR : C_DONE;
}

/* The definition record of a variable of ``kind`` (variable_kind) assigned at ``left`` by the
 * assignment ``node`` (named by its text, scoped at the assignment's start); C_STOP, with
 * nothing recorded, when its text is not in the source. */
static int emit_variable(const Collect *c, TSNode node, TSNode left, int kind) {
    int outside;
    PyObject *name = text_of(c, left, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    PyObject *which = PyLong_FromLong(kind);
    if (which == NULL) {
        Py_DECREF(name);
        return C_ERROR;
    }
    return emit(c, name, ts_node_start_byte(left), ts_node_end_byte(left), ts_node_start_byte(node), DEFINITION, which);
}

/* ``definitions._assign_target`` of an assignment ``node`` to ``left``: a local variable
 * (``identifier``) joins ``names`` (add_local), an instance, class or global variable is
 * defined (emit_variable), a call or element reference becomes a setter call
 * (``setter_calls[(start, end)] = WRITE``). With ``check``, nothing is done: C_DONE when the
 * target is one of those (or, ``others``, of a type the handler does nothing with) and doing
 * it cannot stop, C_STOP otherwise (a constant's assignment is Python's). */
static int assign_target(const Collect *c, TSNode node, TSNode left, int check, int others) {
    const char *type = ts_node_type(left);
    uint32_t start = ts_node_start_byte(left), end = ts_node_end_byte(left);
    if (strcmp(type, "identifier") == 0) {
        if (check) return knows_locals(c, start) && end >= start && (Py_ssize_t)end <= c->size ? C_DONE : C_STOP;
        return add_local(c, left);
    }
    int variable = variable_kind(left);
    if (variable >= 0) {
        if (check) return end >= start && (Py_ssize_t)end <= c->size ? C_DONE : C_STOP;
        return emit_variable(c, node, left, variable);
    }
    if (strcmp(type, "call") == 0 || strcmp(type, "element_reference") == 0) {
        if (check) return C_DONE;
        PyObject *key = Py_BuildValue("(kk)", (unsigned long)start, (unsigned long)end);
        if (key == NULL) return C_ERROR;
        int failed = PyDict_SetItem(c->setter_calls, key, c->spec->write);
        Py_DECREF(key);
        return failed ? C_ERROR : C_DONE;
    }
    return others && strcmp(type, "constant") != 0 && strcmp(type, "scope_resolution") != 0 ? C_DONE : C_STOP;
}

/* An ``assignment`` (``definitions.on_assignment``, not an operator assignment): nothing
 * without a ``left``; assign_target for a single target; for a ``left_assignment_list``, each
 * of its named children (a ``rest_assignment``'s named child for it), once none is a constant
 * nor can stop. Any other target is Python's. */
static int collect_assignment(const Collect *c, TSNode node) {
    TSNode left = ts_node_child_by_field_id(node, c->spec->left);
    if (ts_node_is_null(left)) return C_DONE;
    if (!type_is(left, "left_assignment_list")) return assign_target(c, node, left, 0, 0);
    uint32_t count = ts_node_named_child_count(left);
    for (int check = 1; check >= 0; check--) {
        for (uint32_t i = 0; i < count; i++) {
            TSNode target = ts_node_named_child(left, i);
            if (type_is(target, "rest_assignment") && ts_node_named_child_count(target)) target = ts_node_named_child(target, 0);
            int done = assign_target(c, node, target, check, 1);
            if (done != C_DONE) return done; /* C_STOP only while checking. */
        }
    }
    return C_DONE;
}

/* An ``operator_assignment`` (``definitions.on_assignment`` then ``calls.op_assignment``) to a
 * local variable (add_local) or an instance, class or global variable (emit_variable): then,
 * unless the operator is ``||=`` or ``&&=`` (or missing), the operator less its ``=`` called
 * on the target, from the operator's start to one byte before its end. Any other target is
 * Python's; so is the node when a part cannot be read here (decided before anything is done). */
static int collect_op_assignment(const Collect *c, TSNode node) {
    TSNode left = ts_node_child_by_field_id(node, c->spec->left);
    if (ts_node_is_null(left)) return C_DONE;
    int local = type_is(left, "identifier");
    int variable = local ? -1 : variable_kind(left);
    if (!local && variable < 0) return C_STOP;
    if (local && !knows_locals(c, ts_node_start_byte(left))) return C_STOP;
    TSNode op = ts_node_child_by_field_id(node, c->spec->operator_);
    char method[16] = {0};
    int kind = 0;
    PyObject *text = NULL;
    if (!ts_node_is_null(op)) {
        const char *type = ts_node_type(op);
        size_t n = strlen(type);
        if (n < 2 || n >= sizeof method) return C_STOP;
        if (strcmp(type, "||=") != 0 && strcmp(type, "&&=") != 0) {
            memcpy(method, type, n - 1);
            int found = receiver_kind(c, left, 1, 1, &kind, &text);
            if (found != C_DONE) return found;
        }
    }
    int done = local ? add_local(c, left) : emit_variable(c, node, left, variable);
    if (done != C_DONE || method[0] == 0) {
        Py_XDECREF(text);
        return done;
    }
    return emit_operator(c, method, ts_node_start_byte(op), ts_node_end_byte(op) - 1, kind, text);
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
 *         [, spec, out, method_names, setter_calls, hooks, in_method, names_from, scope_depth, scopes, base, top_locals, untaken])
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
 * - 5 to 16 (calls, binary and unary operators, element references, assignments, bindings of
 *   local variables, conditional statements, blocks, operator assignments, methods, block
 *   arguments, classes and modules): always, unless collecting (below);
 * - with ``check_missing``, a missing node of a kind that is 0 there.
 * With ``descend`` false the current node's children are skipped. At ``max_depth`` a node
 * with children is not entered: the cursor stays on it and the event is WALK_TOO_DEEP.
 * WALK_END: the walk is over.
 *
 * Collecting (twelve more arguments: a ``spec()``, a list, ``Walker.method_names``,
 * ``Walker.setter_calls``, whether a hook scope may be open, whether the scope whose locals
 * ``names`` holds is a method body, the byte from which it holds them, that scope's depth,
 * ``Walker.scopes``, that scope's index there (-1: ``names`` is ``top_locals``, the top
 * level's), ``Walker.top_locals``, whether ``Walker.untaken`` holds a branch): a node of
 * kind 5 to 16, a constant of kind 3, or an identifier of kind 2 that is not a known local
 * (``names`` is a set and it starts from ``names_from`` and before ``until``), whose handler
 * would only append records the collect_*
 * functions say it would, is passed over, and what those records need is appended to ``out``
 * as tuples (name, start, end, scope_at, kind, extra; see emit): the walker makes the records
 * from them, in order, before it runs the next handler (scope_at: the byte whose scope the
 * handler asks for). One whose handler does nothing at all is passed over too: a conditional
 * statement (11) in a method body (``Walker.on_conditional``). So are an assignment (9) whose
 * handler only notes a local variable or a setter call (collect_assignment) and a binding of
 * local variables (10, collect_binding), which it notes itself. A method or namespace it
 * records (14, 16: collect_method, collect_namespace) opens its body's scope here too (Frame),
 * and when the walk leaves the scope of ``names`` the step goes on with the one around
 * (leave_base), as ``_known_locals`` would. */
static PyObject *advance(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 10 && nargs != 22) {
        PyErr_SetString(PyExc_TypeError, "advance() takes 10 arguments (22 to collect records)");
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
    if (nargs == 22) {
        collect.spec = PyCapsule_GetPointer(args[10], SPEC_NAME);
        if (collect.spec == NULL) return NULL;
        if (!PyList_Check(args[11]) || !PyAnySet_Check(args[12]) || !PyDict_Check(args[13]) || !PyList_Check(args[18]) || !PyAnySet_Check(args[20])) {
            PyErr_SetString(PyExc_TypeError, "advance() collects into a list, with a set of method names, a dict of setter calls, a list of scopes, a set");
            return NULL;
        }
        collect.scopes = args[18];
        collect.base = PyLong_AsSsize_t(args[19]);
        collect.top_locals = args[20];
        collect.untaken = PyObject_IsTrue(args[21]);
        if (collect.untaken < 0) return NULL;
        if (collect.base > PyList_GET_SIZE(collect.scopes)) collect.base = PyList_GET_SIZE(collect.scopes);
        collect.out = args[11];
        collect.method_names = args[12];
        collect.setter_calls = args[13];
        collect.hooks = PyObject_IsTrue(args[14]);
        collect.in_method = PyObject_IsTrue(args[15]);
        names_from = PyLong_AsLongLong(args[16]);
        collect.depth = PyLong_AsLong(args[17]);
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
    collect.cursor = cursor;
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
        if (collecting && (long long)ts_node_start_byte(node) >= collect.until) {
            /* The walk left the scope of ``names``: back to the one around (Frame, leave_base). */
            uint32_t start = ts_node_start_byte(node);
            while (collect.frame_count && (long long)start >= collect.until) pop_frame(&collect);
            if (!collect.frame_count && (long long)start >= collect.until && collect.names != NULL && leave_base(&collect, start) != C_DONE) goto error;
            names = collect.names;
            until = collect.until;
            names_from = collect.from;
        }
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
                else if (wanted == 12) collected = collect_block(&collect, node);
                else if (wanted == 13) collected = collect_op_assignment(&collect, node);
                else if (wanted == 15) collected = collect_block_argument(&collect, node);
                else if (wanted == 16 && (collected = collect_namespace(&collect, node, &skip_until)) == C_DONE) {
                    names = collect.names;
                    until = collect.until;
                    names_from = collect.from;
                }
                else if (wanted == 14 && (collected = collect_method(&collect, node)) == C_DONE) {
                    names = collect.names;
                    until = collect.until;
                    names_from = collect.from;
                }
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
    while (collect.frame_count) pop_frame(&collect);
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&fields);
    if (moved) Py_CLEAR(self->node); /* The cursor's cached node is no longer where it is. */
    return PyLong_FromLong((long)event | (depth << 2));
error:
    while (collect.frame_count) pop_frame(&collect);
    PyBuffer_Release(&kinds);
    PyBuffer_Release(&fields);
    Py_CLEAR(self->node);
    return NULL;
}

/* The node types ``loadfacts._foreign_calls`` reads statements in (``_STATEMENT_CONTAINERS``),
 * and those of namespaces, whose bodies it reads. */
static const char *const STATEMENT_CONTAINERS[] = {
    "program", "body_statement", "then", "if", "unless", "if_modifier", "unless_modifier", "begin",
    "parenthesized_statements", "rescue_modifier", "binary", "ensure", NULL,
};

static int type_in(const char *type, const char *const *types) {
    for (; *types != NULL; types++)
        if (strcmp(type, *types) == 0) return 1;
    return 0;
}

static int is_namespace(const char *type) { return strcmp(type, "class") == 0 || strcmp(type, "module") == 0 || strcmp(type, "singleton_class") == 0; }

/* statement_calls(cursor, scopes) -> [(start, end, scope), ...] (calls and bare identifiers)
 *
 * ``loadfacts._foreign_calls``' reading of a tree (the cursor is at its root), in C: from the
 * root, in source order, the statements of statement containers (STATEMENT_CONTAINERS), the
 * body (field ``body``) of each namespace whose start is a key of ``scopes`` (a dict of int to
 * int: the scope index its statements get), a ``call`` or a bare ``identifier`` giving its
 * range and scope. Only the calls ``_foreign_call`` may keep are returned: those without a
 * receiver, with a constant (``constant``, ``scope_resolution``) one or with ``self`` (field
 * ``receiver``). */
static PyObject *statement_calls(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || cursor_type == NULL || Py_TYPE(args[0]) != cursor_type || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "statement_calls() takes a tree_sitter.TreeCursor and a dict");
        return NULL;
    }
    const TSLanguage *language = ts_tree_language(((PyTree *)((PyTreeCursor *)args[0])->tree)->tree);
    TSFieldId body_field = ts_language_field_id_for_name(language, "body", 4);
    TSFieldId receiver_field = ts_language_field_id_for_name(language, "receiver", 8);
    if (body_field == 0 || receiver_field == 0) {
        PyErr_SetString(PyExc_ValueError, "statement_calls(): the language has no body or receiver field");
        return NULL;
    }
    PyObject *scopes = args[1];
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    typedef struct {
        TSNode node;
        long scope;
    } Item;
    Py_ssize_t size = 0, capacity = 64;
    Item *stack = PyMem_Malloc((size_t)capacity * sizeof(Item));
    TSNode *children = NULL;
    Py_ssize_t children_capacity = 0;
    if (stack == NULL) goto nomemory;
    stack[size++] = (Item){ts_tree_cursor_current_node(&((PyTreeCursor *)args[0])->cursor), -1};
    while (size) {
        Item item = stack[--size];
        const char *type = ts_node_type(item.node);
        if (is_namespace(type)) {
            TSNode body = ts_node_child_by_field_id(item.node, body_field);
            if (ts_node_is_null(body)) continue;
            PyObject *key = PyLong_FromUnsignedLong(ts_node_start_byte(item.node));
            if (key == NULL) goto error;
            PyObject *index = PyDict_GetItemWithError(scopes, key); /* borrowed */
            Py_DECREF(key);
            if (index == NULL) {
                if (PyErr_Occurred()) goto error;
                continue;
            }
            long scope = PyLong_AsLong(index);
            if (scope == -1 && PyErr_Occurred()) goto error;
            if (size == capacity) {
                Item *grown = PyMem_Realloc(stack, (size_t)(capacity *= 2) * sizeof(Item));
                if (grown == NULL) goto nomemory;
                stack = grown;
            }
            stack[size++] = (Item){body, scope};
        } else if (strcmp(type, "identifier") == 0) {
            /* A bare word: a call when the walk read it as one (loadfacts._read_statement). */
            PyObject *found = Py_BuildValue("(kkl)", (unsigned long)ts_node_start_byte(item.node), (unsigned long)ts_node_end_byte(item.node), item.scope);
            if (found == NULL) goto error;
            int failed = PyList_Append(out, found);
            Py_DECREF(found);
            if (failed) goto error;
        } else if (strcmp(type, "call") == 0) {
            TSNode receiver = ts_node_child_by_field_id(item.node, receiver_field);
            if (!ts_node_is_null(receiver) && !type_is(receiver, "constant") && !type_is(receiver, "scope_resolution") && !type_is(receiver, "self")) continue;
            PyObject *found = Py_BuildValue("(kkl)", (unsigned long)ts_node_start_byte(item.node), (unsigned long)ts_node_end_byte(item.node), item.scope);
            if (found == NULL) goto error;
            int failed = PyList_Append(out, found);
            Py_DECREF(found);
            if (failed) goto error;
        } else if (type_in(type, STATEMENT_CONTAINERS)) {
            /* Its named children that are namespaces, calls or containers, pushed last first. */
            Py_ssize_t count = 0;
            TSTreeCursor cursor = ts_tree_cursor_new(item.node);
            if (ts_tree_cursor_goto_first_child(&cursor)) {
                do {
                    TSNode child = ts_tree_cursor_current_node(&cursor);
                    if (!ts_node_is_named(child)) continue;
                    const char *child_type = ts_node_type(child);
                    if (!is_namespace(child_type) && strcmp(child_type, "call") != 0 && strcmp(child_type, "identifier") != 0 && !type_in(child_type, STATEMENT_CONTAINERS)) continue;
                    if (count == children_capacity) {
                        children_capacity = children_capacity ? children_capacity * 2 : 64;
                        TSNode *grown = PyMem_Realloc(children, (size_t)children_capacity * sizeof(TSNode));
                        if (grown == NULL) {
                            ts_tree_cursor_delete(&cursor);
                            goto nomemory;
                        }
                        children = grown;
                    }
                    children[count++] = child;
                } while (ts_tree_cursor_goto_next_sibling(&cursor));
            }
            ts_tree_cursor_delete(&cursor);
            while (size + count > capacity) {
                Item *grown = PyMem_Realloc(stack, (size_t)(capacity *= 2) * sizeof(Item));
                if (grown == NULL) goto nomemory;
                stack = grown;
            }
            for (Py_ssize_t i = count - 1; i >= 0; i--) stack[size++] = (Item){children[i], item.scope};
        }
    }
    PyMem_Free(stack);
    PyMem_Free(children);
    return out;
nomemory:
    PyErr_NoMemory();
error:
    PyMem_Free(stack);
    PyMem_Free(children);
    Py_DECREF(out);
    return NULL;
}

/* line_starts(source) -> bytes: ``rdx.model.text.line_starts``, the byte offsets at which the
 * lines of ``source`` start (0, then one past each newline) as native unsigned 32-bit ints. */
static PyObject *line_starts(PyObject *module, PyObject *source) {
    (void)module;
    if (!PyBytes_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "line_starts() takes bytes");
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(source), *end = text + PyBytes_GET_SIZE(source);
    if (PyBytes_GET_SIZE(source) > (Py_ssize_t)UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "line_starts(): a source over 4 GB");
        return NULL;
    }
    Py_ssize_t lines = 1;
    for (const char *at = text; (at = memchr(at, '\n', (size_t)(end - at))) != NULL; at++) lines++;
    PyObject *out = PyBytes_FromStringAndSize(NULL, lines * (Py_ssize_t)sizeof(unsigned int));
    if (out == NULL) return NULL;
    unsigned int *starts = (unsigned int *)PyBytes_AS_STRING(out);
    *starts++ = 0;
    for (const char *at = text; (at = memchr(at, '\n', (size_t)(end - at))) != NULL; at++) *starts++ = (unsigned int)(at - text + 1);
    return out;
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
    {"line_starts", line_starts, METH_O, "rdx.model.text.line_starts, in C."},
    {"statement_calls", (PyCFunction)(void (*)(void))statement_calls, METH_FASTCALL, "The calls loadfacts._foreign_calls reads, in C."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_walk", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk(void) { return PyModuleDef_Init(&module_def); }
