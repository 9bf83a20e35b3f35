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
 * Given the walker's ``method_refs`` (and ``const_refs``), the step makes the MethodRefs
 * itself (emit_method_ref), and the ConstRefs of constants and of the scope part of the compact
 * names of the namespaces it records (emit_const_ref), with the index of their scope
 * (scope_index_at: it knows the definitions' indices, as the walker appends them in the
 * order of the tuples); for the definitions it records it also gives the id (BLAKE2b in C,
 * blake2b_8, as rdx.model.ids makes it with hashlib), the comments above (comments_above)
 * and a method's parameters as recorded (params_text), and makes the DefinitionRecord of a
 * plain method with its visibility (method_record), of a plain class or module
 * (namespace_record), of a variable (emit_variable), of a constant assigned a value
 * ``definitions.constant`` does not read further (collect_constant_assignment) and of a
 * plain ``alias`` (collect_alias); it records plain ``require``s too (collect_require), and
 * collects the plain forms of ``include``/``extend``/``prepend``, ``attr_*``, ``private :x``
 * and ``alias_method :a, :b`` (collect_directive) for the walker to finish. It moves the
 * cursor with the runtime's structures (cursor_first_child, cursor_next: the runtime's
 * moves in one pass, passing over the leaves no handler wants, in hidden nodes too).
 * tests/test_native_walk.py and
 * bench/bench_native.py check that the records are byte for byte the Python walk's.
 *
 * This module is compiled against the same tree-sitter runtime version as the installed
 * py-tree-sitter (rdx/native/build.py fetches that version's source), with py-tree-sitter's
 * allocator (PyMem_*), so the runtime's cursor functions work on the cursor py-tree-sitter made.
 * rdx/native/__init__.py checks the version and the walk's result on a sample before use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <tree_sitter/api.h>
/* The runtime's own headers (lib/src of the same version, compiled into this module): the
 * walk moves the cursor with the runtime's data structures directly (cursor_first_child,
 * cursor_next). */
#include "language.h"
#include "subtree.h"
#include "tree.h"
#include "tree_cursor.h"

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

/* The cursor's moves, as ts_tree_cursor_goto_first_child and ts_tree_cursor_goto_next_sibling
 * make them (the same entries on the cursor's stack: subtree, position, child index,
 * structural child index, descendant index), in one pass over a parent's children and
 * without the runtime's per-child calls through a function pointer: the walk moves once per
 * node of the tree, and those calls were most of its cost. A child is visible when its
 * subtree is or the parent's production aliases it (extras are never aliased and take no
 * structural index); a hidden child with visible children is entered (pushed) as the runtime
 * enters it, and left again (popped) when those are all leaves the walk passes over (scan_down),
 * so that the walk stops on no such leaf. tests/test_native_walk.py checks the moves against
 * the runtime's on the corpus. */

/* Whether the stack's entry ``index`` is a visible node (the root always is). */
static inline int entry_visible(const TreeCursor *tc, uint32_t index) {
    const TreeCursorEntry *entry = &tc->stack.contents[index];
    if (index == 0 || ts_subtree_visible(*entry->subtree)) return 1;
    if (ts_subtree_extra(*entry->subtree)) return 0;
    const TreeCursorEntry *parent = &tc->stack.contents[index - 1];
    return ts_language_alias_at(tc->tree->language, parent->subtree->ptr->production_id, entry->structural_child_index) != 0;
}

/* What the walk passes over without stopping on it (see advance): with ``passed`` given, a
 * visible leaf whose kind is 0 in it (and, with ``missing``, that is not missing) is moved
 * past as an invisible node is, since visiting it would do nothing (no handler, no children). */
typedef struct {
    const unsigned char *passed;
    int missing;
} Passing;

/* The fewest visible leaves of a hidden node that scan_down looks through (holds_stop) before
 * entering it. */
enum { PROBED_LEAVES = 16 };

/* Whether the walk would stop anywhere in the hidden subtree ``tree`` (less the leaves
 * ``passing`` passes over): on a visible node with children, a missing leaf when missing ones
 * are reported, or a visible leaf of a kind the walk wants, visibility as push_next_child
 * reads it (aliases, extras). Read straight from the children arrays, pushing nothing on the
 * cursor's stack; deeper than its own stack: 1, as if it would (then the walk enters it). */
static int holds_stop(const TSLanguage *language, Subtree tree, const Passing *passing) {
    struct {
        Subtree tree;
        uint32_t index, structural;
    } stack[64];
    int top = 0;
    stack[0].tree = tree;
    stack[0].index = stack[0].structural = 0;
    for (;;) {
        Subtree parent = stack[top].tree;
        uint32_t i = stack[top].index;
        if (i >= ts_subtree_child_count(parent)) {
            if (top == 0) return 0;
            top--;
            continue;
        }
        stack[top].index = i + 1;
        Subtree child = ts_subtree_children(parent)[i];
        TSSymbol alias = 0;
        if (!ts_subtree_extra(child)) {
            const TSSymbol *aliases = ts_language_alias_sequence(language, parent.ptr->production_id);
            if (aliases != NULL) alias = aliases[stack[top].structural];
            stack[top].structural++;
        }
        if (ts_subtree_visible(child) || alias) {
            if (ts_subtree_child_count(child) > 0 || (passing->missing && ts_subtree_missing(child))) return 1;
            TSSymbol symbol = alias ? alias : ts_subtree_symbol(child);
            if (symbol != ts_builtin_sym_error) symbol = language->public_symbol_map[symbol];
            if (passing->passed[symbol]) return 1;
        } else if (ts_subtree_visible_child_count(child) > 0) {
            if (++top == (int)(sizeof(stack) / sizeof(stack[0]))) return 1;
            stack[top].tree = child;
            stack[top].index = stack[top].structural = 0;
        }
    }
}

/* Scan the children of ``parent`` (the stack's top) from child ``index`` (at ``position``,
 * structural index ``structural``, descendant index ``descendant``) for the first one that is
 * visible or holds visible nodes (less the leaves ``passing`` passes over); push it. 1 for a
 * visible one, 2 for a hidden one (to be entered), 0 for none. */
static inline __attribute__((always_inline)) int push_next_child(TreeCursor *tc, const TreeCursorEntry *parent, uint32_t index, Length position, uint32_t structural,
                                  uint32_t descendant, const Passing *passing) {
    Subtree tree = *parent->subtree;
    uint32_t count = ts_subtree_child_count(tree);
    const Subtree *children = ts_subtree_children(tree);
    const TSSymbol *aliases = ts_language_alias_sequence(tc->tree->language, tree.ptr->production_id);
    for (uint32_t i = index; i < count; i++) {
        Subtree child = children[i];
        int visible = ts_subtree_visible(child);
        uint32_t own_structural = structural;
        if (!ts_subtree_extra(child)) {
            if (aliases != NULL && aliases[structural]) visible = 1;
            structural++;
        }
        if (visible && passing != NULL && ts_subtree_child_count(child) == 0 && !(passing->missing && ts_subtree_missing(child))) {
            TSSymbol alias = ts_subtree_extra(child) || aliases == NULL ? 0 : aliases[own_structural];
            TSSymbol symbol = alias ? alias : ts_subtree_symbol(child);
            /* ts_language_public_symbol, inline (it is called once per leaf). */
            if (symbol != ts_builtin_sym_error) symbol = tc->tree->language->public_symbol_map[symbol];
            if (!passing->passed[symbol]) {
                descendant++; /* Itself: a leaf has no descendants. */
                visible = 0;
            }
        }
        if (visible || ts_subtree_visible_child_count(child) > 0) {
            TreeCursorEntry entry = {&children[i], position, i, own_structural, descendant};
            array_push(&tc->stack, entry);
            return visible ? 1 : 2;
        }
        descendant += ts_subtree_visible_descendant_count(child);
        position = length_add(position, ts_subtree_size(child));
        if (i + 1 < count) position = length_add(position, ts_subtree_padding(children[i + 1]));
    }
    return 0;
}

/* Scan the children of the stack's top entry from child ``index`` (at ``position``, structural
 * index ``structural``, descendant index ``descendant``) in preorder for the first visible
 * node (less the leaves ``passing`` passes over), entering hidden children that hold visible
 * nodes as the runtime enters them (pushed); a hidden child that turns out to hold only passed
 * leaves is left again (popped) and the scan goes on after it. 1 with that node pushed; 0 for
 * none, the stack back at ``floor`` entries (its size when called). */
static inline __attribute__((always_inline)) int scan_down(TreeCursor *tc, uint32_t floor, uint32_t index, Length position, uint32_t structural,
                                                             uint32_t descendant, const Passing *passing) {
    for (;;) {
        int found = push_next_child(tc, &tc->stack.contents[tc->stack.size - 1], index, position, structural, descendant, passing);
        if (found == 1) return 1;
        if (found == 2) {
            const TreeCursorEntry *entry = &tc->stack.contents[tc->stack.size - 1];
            Subtree hidden = *entry->subtree;
            uint32_t visible_children = ts_subtree_visible_child_count(hidden);
            /* A hidden child whose visible nodes are many leaves (its visible descendants are
             * its visible children, at least PROBED_LEAVES), none of which the walk stops on, is
             * left at once, as it would be after a scan of them (holds_stop: a long literal
             * array's elements, say; fewer are not worth the look before entering). */
            if (passing == NULL || visible_children < PROBED_LEAVES || ts_subtree_visible_descendant_count(hidden) != visible_children ||
                holds_stop(tc->tree->language, hidden, passing)) {
                /* Into the hidden child: its first child starts where it does (its padding is
                 * its first child's) and a hidden node counts no descendant of its own. */
                index = 0;
                position = entry->position;
                structural = 0;
                descendant = entry->descendant_index;
                continue;
            }
        } else if (tc->stack.size == floor) {
            return 0;
        }
        /* A hidden child holding only passed leaves: on after it among its parent's children. */
        TreeCursorEntry entry = tc->stack.contents[--tc->stack.size];
        Subtree tree = *tc->stack.contents[tc->stack.size - 1].subtree;
        Subtree child = *entry.subtree;
        index = entry.child_index + 1;
        structural = entry.structural_child_index + (ts_subtree_extra(child) ? 0 : 1);
        descendant = entry.descendant_index + ts_subtree_visible_descendant_count(child);
        position = length_add(entry.position, ts_subtree_size(child));
        if (index < ts_subtree_child_count(tree)) position = length_add(position, ts_subtree_padding(ts_subtree_children(tree)[index]));
    }
}

/* ts_tree_cursor_goto_first_child: into the first visible child, through hidden ones, less
 * the leaves ``passing`` passes over (NULL for none): 0, the stack as it was, when there is
 * no such node below the current one. */
static int cursor_first_child(TreeCursor *tc, const Passing *passing) {
    uint32_t top = tc->stack.size - 1;
    const TreeCursorEntry *parent = &tc->stack.contents[top];
    if (ts_subtree_child_count(*parent->subtree) == 0) return 0;
    uint32_t descendant = parent->descendant_index + (entry_visible(tc, top) ? 1 : 0);
    return scan_down(tc, tc->stack.size, 0, parent->position, 0, descendant, passing);
}

/* The walk's move after a node and its children: ts_tree_cursor_goto_next_sibling, to the next
 * visible node after the current one among its siblings, climbing out of hidden parents and
 * entering hidden siblings, less the leaves ``passing`` passes over (NULL for none): 1; where
 * there is none, ts_tree_cursor_goto_parent, up to the visible node around (the nearest
 * visible entry below the top, as the runtime tests it): 2, or 0 at the root. The climb the
 * sibling's search makes is the parent's: each entry is read once, and the stack's size is
 * kept in a local (written back only to push). */
static int cursor_next(TreeCursor *tc, const Passing *passing) {
    uint32_t initial = tc->stack.size;
    uint32_t size = initial;
    const TSLanguage *language = tc->tree->language;
    while (size > 1) {
        const TreeCursorEntry *entry = &tc->stack.contents[size - 1];
        Subtree tree = *entry[-1].subtree;
        Subtree child = *entry->subtree;
        uint32_t structural = entry->structural_child_index;
        int visible = ts_subtree_visible(child);
        if (!ts_subtree_extra(child)) {
            if (!visible) {
                const TSSymbol *aliases = ts_language_alias_sequence(language, tree.ptr->production_id);
                if (aliases != NULL && aliases[structural]) visible = 1;
            }
            structural++;
        }
        if (visible && size < initial) {
            tc->stack.size = size; /* A visible ancestor, no sibling after: its parent is it. */
            return 2;
        }
        size--;
        uint32_t next = entry->child_index + 1;
        if (next >= ts_subtree_child_count(tree)) continue; /* The last child: on up (nothing to count). */
        Length position = length_add(entry->position, ts_subtree_size(child));
        position = length_add(position, ts_subtree_padding(ts_subtree_children(tree)[next]));
        uint32_t descendant = entry->descendant_index + ts_subtree_visible_descendant_count(child) + (visible ? 1 : 0);
        tc->stack.size = size;
        if (scan_down(tc, size, next, position, structural, descendant, passing)) return 1;
    }
    if (initial == 1) return 0; /* The root: no sibling, no parent. */
    tc->stack.size = 1; /* Hidden nodes up to the root, which is visible. */
    return 2;
}

/* ts_tree_cursor_goto_next_sibling (cursor_next without passing any leaf over: a hidden node
 * it enters holds a visible one, so the entries it climbed over are still on the stack when
 * there is no sibling; it leaves the stack as it was then). */
static int cursor_next_sibling(TreeCursor *tc) {
    uint32_t initial = tc->stack.size;
    if (cursor_next(tc, NULL) == 1) return 1;
    tc->stack.size = initial;
    return 0;
}

static PyTypeObject *cursor_type = NULL;

/* What the collecting step (advance with 15 arguments) needs to know of the grammar, made once
 * by spec(): field ids, and the method names whose call Python must see (a set of str). */
typedef struct {
    TSFieldId method, receiver, block, operator_, left, operand, object, pattern, name, scope, parameters, superclass, body, arguments, right, alias;
    PyObject *special;
    PyObject *write;
    PyObject *iterators;
    PyObject *evals;
    PyObject *hooks;
    long max_nesting;
    PyObject *visibility;
    /* The names of the calls ``directives._mixin`` handles (a set of str), and those
     * ``directives._attr``, ``_visibility`` and ``_alias_method`` handle, each with (its
     * code: DIRECTIVE_ATTR, DIRECTIVE_VISIBILITY or DIRECTIVE_ALIAS, the kind of definition it
     * makes) (a dict); NULL without them: those calls are Python's (collect_directive). */
    PyObject *mixins;
    PyObject *attrs;
    /* The receivers of ``definitions._NAMESPACE_FACTORIES`` (a set of str, or NULL: every
     * constant's assignment of a call is Python's; collect_constant_assignment). */
    PyObject *factories;
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
    Py_XDECREF(spec->mixins);
    Py_XDECREF(spec->attrs);
    Py_XDECREF(spec->factories);
    PyMem_Free(spec);
}

/* spec((method, receiver, block, operator, left, operand, object, pattern, name, scope, parameters, superclass, body[, arguments[, right[, alias]]]),
 *      special, write, iterators, evals, hooks, max_nesting, visibility)
 *     -> capsule (write: the value ``Walker.setter_calls`` gives an assignment's target; iterators: the
 *     methods that run their block on the self around it, on any receiver; evals: those that run
 *     it with the receiver as self; hooks: the method names whose definitions Python must see;
 *     sets of str; max_nesting: ``MAX_NESTING``; visibility: the words a bare identifier in a
 *     namespace body marks (``Walker._scan_marks``), a set of bytes[; mixins, attrs[, factories]: see Spec]) */
static PyObject *make_spec(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if ((nargs != 8 && nargs != 10 && nargs != 11) || (nargs >= 10 && (!PyAnySet_Check(args[8]) || !PyDict_Check(args[9]))) ||
        (nargs == 11 && !PyAnySet_Check(args[10])) || !PyTuple_Check(args[0]) || (PyTuple_GET_SIZE(args[0]) < 13 || PyTuple_GET_SIZE(args[0]) > 16) || !PyAnySet_Check(args[1]) ||
        !PyAnySet_Check(args[3]) ||
        !PyAnySet_Check(args[4]) || !PyAnySet_Check(args[5]) || !PyLong_Check(args[6]) || !PyAnySet_Check(args[7])) {
        PyErr_SetString(PyExc_TypeError, "spec() takes a tuple of 13 to 16 field ids, a set of names, a value, three sets of names, an int and a set");
        return NULL;
    }
    long max_nesting = PyLong_AsLong(args[6]);
    if (max_nesting == -1 && PyErr_Occurred()) return NULL;
    long ids[16] = {0};
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args[0]); i++) {
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
    spec->arguments = (TSFieldId)ids[13]; /* 0 without it: require calls are Python's then (collect_require). */
    spec->right = (TSFieldId)ids[14]; /* 0 without it: constants' assignments are Python's (collect_constant_assignment). */
    spec->alias = (TSFieldId)ids[15]; /* 0 without it: ``alias`` is Python's (collect_alias). */
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
    spec->mixins = nargs >= 10 ? Py_NewRef(args[8]) : NULL;
    spec->attrs = nargs >= 10 ? Py_NewRef(args[9]) : NULL;
    spec->factories = nargs == 11 ? Py_NewRef(args[10]) : NULL;
    spec->max_nesting = max_nesting;
    PyObject *capsule = PyCapsule_New(spec, SPEC_NAME, spec_free);
    if (capsule == NULL) {
        Py_DECREF(spec->special);
        Py_DECREF(spec->write);
        Py_DECREF(spec->iterators);
        Py_DECREF(spec->evals);
        Py_DECREF(spec->hooks);
        Py_DECREF(spec->visibility);
        Py_XDECREF(spec->mixins);
        Py_XDECREF(spec->attrs);
        Py_XDECREF(spec->factories);
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
    long index;
    PyObject *marks;
    Py_ssize_t marks_used;
    PyObject *visibility;
    int module_function;
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
    long index; /* The definition index of the scope of ``names`` (``Scope.index``; -1: the top level). */
    /* For a namespace the step opened: its marks (``Scope.marks``, borrowed), how many of
     * them the walk has passed, and the default visibility and ``module_function`` they leave
     * (``Scope.visibility_at``); ``marks`` is NULL for the walker's own scopes. */
    PyObject *marks;
    Py_ssize_t marks_used;
    PyObject *visibility;
    int module_function;
    int frame_count;
    Frame frames[MAX_FRAMES];
    PyObject *scopes;
    Py_ssize_t base;
    PyObject *top_locals;
    const TSTreeCursor *cursor;
    int untaken; /* Whether ``Walker.untaken`` holds a branch. */
    /* ``b"def\xff" + uri + b"\xff"`` (UTF-8): what ``rdx.model.ids.definition_id`` hashes
     * before a definition's offset and name; NULL when Python makes the ids. */
    const char *id_prefix;
    Py_ssize_t id_prefix_size;
    /* The walker's source and its line table (``Walker.line_starts``, 32-bit offsets). */
    const char *text;
    Py_ssize_t text_size;
    const uint32_t *starts;
    Py_ssize_t rows;
    /* Given (records): ``Walker.method_refs``, which the MethodRefs the step makes go to at
     * once, the types MethodRef and ConstPath, the ReceiverKind members by value, and the
     * index the next definition recorded gets (``len(Walker.definitions)``, then one more for
     * each DEFINITION, METHOD and NAMESPACE tuple). NULL: MethodRefs go to ``out`` as tuples. */
    PyObject *refs;
    PyObject *method_ref_type;
    PyObject *const_path_type;
    PyObject *receiver_kinds[5];
    long next_definition;
    /* Given too: ``Walker.requires`` and the type Require (collect_require); else NULL. */
    PyObject *requires;
    PyObject *require_type;
    /* Given too: the type DefinitionRecord, ``Walker.pending_visibility`` and
     * ``Walker.pending_module_function`` (method_record); else NULL. */
    PyObject *definition_type;
    PyObject *pending_visibility;
    PyObject *pending_module_function;
    /* Where the first METHOD tuple in the walker's scope ``scopes[base]`` starts (-1: none):
     * Python reads its visibility after the step, so no later method may move that scope's
     * marks on past it before (method_visibility). */
    long long tuple_from;
    /* Given too: ``Walker.const_refs``, which the ConstRefs the step makes go to at once (a
     * constant's, collect_constant; the prefix of a compact namespace name's, collect_namespace),
     * the type ConstRef, and a list of one item, in which the step leaves ``skip_const_until``
     * as its records set it; else NULL: CONST_REF tuples go to ``out``. */
    PyObject *const_refs;
    PyObject *const_ref_type;
    PyObject *skip_box;
} Collect;

/* The attribute ``name`` of ``object``, the name made a str once (interned) rather than on
 * every call as PyObject_GetAttrString makes it; ``slot`` keeps it. */
static PyObject *attribute(PyObject *object, PyObject **slot, const char *name) {
    if (*slot == NULL && (*slot = PyUnicode_InternFromString(name)) == NULL) return NULL;
    return PyObject_GetAttr(object, *slot);
}

/* A str made once, for the life of the process: a new reference to it (NULL on an error). */
static PyObject *constant_str(PyObject **slot, const char *text) {
    if (*slot == NULL && (*slot = PyUnicode_InternFromString(text)) == NULL) return NULL;
    return Py_NewRef(*slot);
}

static PyObject *end_name, *body_start_name, *depth_name, *index_name, *locals_name, *is_method_name;

/* An int attribute of a Scope (rdx.ruby.discover.scope), its name's str in ``slot``; -1 with an
 * exception set on an error. */
static long long scope_int(PyObject *scope, PyObject **slot, const char *name) {
    PyObject *value = attribute(scope, slot, name);
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
        long long end = scope_int(PyList_GET_ITEM(c->scopes, i), &end_name, "end");
        if (end == -1 && PyErr_Occurred()) return C_ERROR;
        if ((long long)start < end) break;
    }
    c->base = i;
    c->marks = NULL;
    c->tuple_from = -1;
    if (i < 0) {
        c->names = c->top_locals;
        c->from = 0;
        c->until = 1LL << 62;
        c->in_method = 0;
        c->depth = 0;
        c->index = -1;
        return C_DONE;
    }
    PyObject *scope = PyList_GET_ITEM(c->scopes, i);
    PyObject *names = attribute(scope, &locals_name, "locals");
    if (names == NULL) return C_ERROR;
    Py_DECREF(names); /* Borrowed: the scope keeps it. */
    PyObject *is_method = attribute(scope, &is_method_name, "is_method");
    if (is_method == NULL) return C_ERROR;
    int method = PyObject_IsTrue(is_method);
    Py_DECREF(is_method);
    long long from = scope_int(scope, &body_start_name, "body_start"), until = scope_int(scope, &end_name, "end");
    long long depth = scope_int(scope, &depth_name, "depth"), index = scope_int(scope, &index_name, "index");
    if (method < 0 || PyErr_Occurred() || !PyAnySet_Check(names)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a scope's locals are not a set");
        return C_ERROR;
    }
    c->names = names;
    c->from = from;
    c->until = until;
    c->in_method = method;
    c->depth = (long)depth;
    c->index = (long)index;
    return C_DONE;
}

/* Open a scope (collect_method, collect_namespace) over the current one: its locals ``names``
 * (a reference given to the frame), from byte ``from`` to ``until``, a method body or not,
 * ``weight`` levels deeper, the definition at ``index``. */
static void push_frame(Collect *c, PyObject *names, long long from, long long until, int in_method, long weight, long index) {
    Frame *frame = &c->frames[c->frame_count++];
    frame->names = c->names;
    frame->from = c->from;
    frame->until = c->until;
    frame->in_method = c->in_method;
    frame->depth = c->depth;
    frame->index = c->index;
    frame->marks = c->marks;
    frame->marks_used = c->marks_used;
    frame->visibility = c->visibility;
    frame->module_function = c->module_function;
    c->marks = NULL;
    c->names = names;
    c->from = from;
    c->until = until;
    c->in_method = in_method;
    c->depth += weight;
    c->index = index;
}

/* ``Walker._scope(at).index`` (-1 for none) for a record of the node being visited, ``at``
 * within it: the scope of ``names`` from its body's start; before it (a class's superclass,
 * say) the scope around: the frame below, or the walker's scope below ``scopes[base]``.
 * -2 with an exception set on an error. */
static long scope_index_at(Collect *c, long long at) {
    if (at >= c->from) return c->index;
    if (c->frame_count) return c->frames[c->frame_count - 1].index;
    if (c->base <= 0) return -1;
    long long index = scope_int(PyList_GET_ITEM(c->scopes, c->base - 1), &index_name, "index");
    return index == -1 && PyErr_Occurred() ? -2 : (long)index;
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
    c->index = frame->index;
    c->marks = frame->marks;
    c->marks_used = frame->marks_used;
    c->visibility = frame->visibility;
    c->module_function = frame->module_function;
}

enum { RK_IMPLICIT_SELF = 0, RK_SELF = 1, RK_CONSTANT = 2, RK_CONSTANT_INSTANCE = 3, RK_OTHER = 4, CONST_REF = 5, DEFINITION = 6, BLOCK_SELF = 7, BLOCK = 8, METHOD = 9,
       NAMESPACE = 10, METHOD_RECORD = 11, RECORD = 12, MIXIN = 13, ATTRS = 14, CONSTANT = 15, VISIBILITY = 16, ALIAS = 17 };
/* ``BlockSelf`` (rdx.ruby.discover.scope) */
enum { SELF_SAME = 0, SELF_UNKNOWN = 3 };

static int type_is(TSNode node, const char *name) { return strcmp(ts_node_type(node), name) == 0; }

/* A new tuple of ``count`` items, each a new reference given to it (NULL items: the tuple is
 * not made, the others are released): Py_BuildValue without parsing a format on every record. */
static PyObject *tuple_steal(Py_ssize_t count, PyObject **items) {
    PyObject *tuple = NULL;
    int complete = 1;
    for (Py_ssize_t i = 0; i < count; i++) complete = complete && items[i] != NULL;
    if (complete) tuple = PyTuple_New(count);
    if (tuple == NULL) {
        for (Py_ssize_t i = 0; i < count; i++) Py_XDECREF(items[i]);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) PyTuple_SET_ITEM(tuple, i, items[i]);
    return tuple;
}

/* Short ASCII texts (method names, constants, identifiers, operators) recur from node to node
 * and from file to file: the str last made of each hash's slot is kept (direct-mapped, never
 * freed), so that a name seen before costs no allocation nor decoding, its hash is already
 * computed for the set and dict lookups that follow, and the records share it. The same
 * value as ``bytes.decode("utf-8", "replace")`` of the text: ASCII only, compared in full. */
enum { NAME_CACHE_SLOTS = 4096, NAME_CACHE_LONGEST = 40 };
static PyObject *name_cache[NAME_CACHE_SLOTS];

static PyObject *decoded_name(const char *text, Py_ssize_t size) {
    if (size <= 0 || size > NAME_CACHE_LONGEST) return PyUnicode_DecodeUTF8(text, size, "replace");
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (Py_ssize_t i = 0; i < size; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch >= 0x80) return PyUnicode_DecodeUTF8(text, size, "replace");
        hash = (hash ^ ch) * 16777619u;
    }
    PyObject **slot = &name_cache[(hash ^ (hash >> 15)) & (NAME_CACHE_SLOTS - 1)];
    PyObject *cached = *slot;
    if (cached != NULL && PyUnicode_GET_LENGTH(cached) == size && memcmp(PyUnicode_DATA(cached), text, (size_t)size) == 0) return Py_NewRef(cached);
    PyObject *made = PyUnicode_DecodeUTF8(text, size, "replace");
    if (made != NULL && PyUnicode_IS_COMPACT_ASCII(made)) Py_XSETREF(*slot, Py_NewRef(made));
    return made;
}

/* The same for the bytes of identifiers, which the walk looks up in the sets of known local
 * variables (any byte: bytes compare as they are). */
static PyObject *bytes_cache[NAME_CACHE_SLOTS];

static PyObject *cached_bytes(const char *text, Py_ssize_t size) {
    if (size <= 0 || size > NAME_CACHE_LONGEST) return PyBytes_FromStringAndSize(text, size);
    uint32_t hash = 2166136261u;
    for (Py_ssize_t i = 0; i < size; i++) hash = (hash ^ (unsigned char)text[i]) * 16777619u;
    PyObject **slot = &bytes_cache[(hash ^ (hash >> 15)) & (NAME_CACHE_SLOTS - 1)];
    PyObject *cached = *slot;
    if (cached != NULL && PyBytes_GET_SIZE(cached) == size && memcmp(PyBytes_AS_STRING(cached), text, (size_t)size) == 0) return Py_NewRef(cached);
    PyObject *made = PyBytes_FromStringAndSize(text, size);
    if (made != NULL) Py_XSETREF(*slot, Py_NewRef(made));
    return made;
}

/* The node's text as ``Node.text.decode("utf-8", "replace")``; NULL with *ok = 1 when the
 * node does not lie within the source (then Python must see it). */
static PyObject *text_of(Collect *c, TSNode node, int *ok) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    *ok = 1;
    if (end < start || (Py_ssize_t)end > c->size) return NULL;
    *ok = 0;
    return decoded_name(c->source + start, (Py_ssize_t)(end - start));
}

static int text_equals(Collect *c, TSNode node, const char *word) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    size_t n = strlen(word);
    return end >= start && (Py_ssize_t)end <= c->size && end - start == n && memcmp(c->source + start, word, n) == 0;
}

/* BLAKE2b (RFC 7693) with an 8-byte digest and no key, as ``hashlib.blake2b(data,
 * digest_size=8)`` computes it: ``rdx.model.ids`` takes its ids from that digest. Done here
 * rather than through hashlib so that an id costs no Python object but the int;
 * rdx/native/__init__.py checks it against hashlib before the module is used. */
static const uint64_t BLAKE2B_IV[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t BLAKE2B_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static inline uint64_t rotr64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

/* The compression of one 128-byte block, ``bytes`` counted so far (this block included). */
static void blake2b_compress(uint64_t h[8], const unsigned char block[128], uint64_t bytes, int last) {
    uint64_t m[16], v[16];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(m, block, sizeof m); /* The words are little-endian, as the host's. */
#else
    for (int i = 0; i < 16; i++) {
        uint64_t word = 0;
        for (int b = 7; b >= 0; b--) word = (word << 8) | block[i * 8 + b];
        m[i] = word;
    }
#endif
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[i + 8] = BLAKE2B_IV[i];
    }
    v[12] ^= bytes; /* The counter's high word stays 0: no id hashes 2**64 bytes. */
    if (last) v[14] = ~v[14];
#define BLAKE2B_G(a, b, c, d, x, y)                      \
    do {                                                 \
        v[a] += v[b] + (x);                              \
        v[d] = rotr64(v[d] ^ v[a], 32);                  \
        v[c] += v[d];                                    \
        v[b] = rotr64(v[b] ^ v[c], 24);                  \
        v[a] += v[b] + (y);                              \
        v[d] = rotr64(v[d] ^ v[a], 16);                  \
        v[c] += v[d];                                    \
        v[b] = rotr64(v[b] ^ v[c], 63);                  \
    } while (0)
    /* The twelve rounds written out, so that each message word's index is a constant and the
     * state stays in registers (a loop over the rounds read them through the table). */
#define BLAKE2B_ROUND(r)                                                                      \
    do {                                                                                      \
        BLAKE2B_G(0, 4, 8, 12, m[BLAKE2B_SIGMA[r][0]], m[BLAKE2B_SIGMA[r][1]]);             \
        BLAKE2B_G(1, 5, 9, 13, m[BLAKE2B_SIGMA[r][2]], m[BLAKE2B_SIGMA[r][3]]);             \
        BLAKE2B_G(2, 6, 10, 14, m[BLAKE2B_SIGMA[r][4]], m[BLAKE2B_SIGMA[r][5]]);            \
        BLAKE2B_G(3, 7, 11, 15, m[BLAKE2B_SIGMA[r][6]], m[BLAKE2B_SIGMA[r][7]]);            \
        BLAKE2B_G(0, 5, 10, 15, m[BLAKE2B_SIGMA[r][8]], m[BLAKE2B_SIGMA[r][9]]);            \
        BLAKE2B_G(1, 6, 11, 12, m[BLAKE2B_SIGMA[r][10]], m[BLAKE2B_SIGMA[r][11]]);          \
        BLAKE2B_G(2, 7, 8, 13, m[BLAKE2B_SIGMA[r][12]], m[BLAKE2B_SIGMA[r][13]]);           \
        BLAKE2B_G(3, 4, 9, 14, m[BLAKE2B_SIGMA[r][14]], m[BLAKE2B_SIGMA[r][15]]);           \
    } while (0)
    BLAKE2B_ROUND(0);
    BLAKE2B_ROUND(1);
    BLAKE2B_ROUND(2);
    BLAKE2B_ROUND(3);
    BLAKE2B_ROUND(4);
    BLAKE2B_ROUND(5);
    BLAKE2B_ROUND(6);
    BLAKE2B_ROUND(7);
    BLAKE2B_ROUND(8);
    BLAKE2B_ROUND(9);
    BLAKE2B_ROUND(10);
    BLAKE2B_ROUND(11);
#undef BLAKE2B_ROUND
#undef BLAKE2B_G
    for (int i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
}

/* The state after the whole 128-byte blocks of the last prefix hashed (blake2b_8): every id
 * of a file hashes the same prefix (its uri's) first, and a uri over 120 bytes or so fills a
 * block, so each id of such a file costs one compression fewer. */
static struct {
    char *prefix;
    size_t size;
    uint64_t h[8];
} prefix_state = {NULL, 0, {0}};

/* The digest of the concatenation of ``count`` pieces, as ``int.from_bytes(digest, "little")``;
 * the first piece's whole blocks from prefix_state when it is the prefix hashed last (more
 * always follows it: its blocks are never the last). */
static uint64_t blake2b_8(const char *const *pieces, const size_t *sizes, int count) {
    uint64_t h[8];
    unsigned char block[128];
    size_t filled = 0;
    uint64_t total = 0;
    size_t whole = count > 1 ? sizes[0] / 128 * 128 : 0;
    int first = 0;
    if (whole && prefix_state.prefix != NULL && prefix_state.size == sizes[0] && memcmp(prefix_state.prefix, pieces[0], sizes[0]) == 0) {
        memcpy(h, prefix_state.h, sizeof h);
        total = whole;
        first = 1;
        size_t rest = sizes[0] - whole;
        memcpy(block, pieces[0] + whole, rest);
        filled = rest;
    } else {
        memcpy(h, BLAKE2B_IV, sizeof h);
        h[0] ^= 0x01010000ULL ^ 8; /* Digest length 8, no key, fanout and depth 1. */
        if (whole) {
            for (size_t at = 0; at < whole; at += 128) {
                total += 128;
                blake2b_compress(h, (const unsigned char *)pieces[0] + at, total, 0);
            }
            char *copy = PyMem_RawMalloc(sizes[0]);
            if (copy != NULL) {
                PyMem_RawFree(prefix_state.prefix);
                memcpy(copy, pieces[0], sizes[0]);
                prefix_state.prefix = copy;
                prefix_state.size = sizes[0];
                memcpy(prefix_state.h, h, sizeof h);
            }
            size_t rest = sizes[0] - whole;
            memcpy(block, pieces[0] + whole, rest);
            filled = rest;
            first = 1;
        }
    }
    for (int p = first; p < count; p++) {
        const char *at = pieces[p];
        size_t left = sizes[p];
        while (left) {
            if (filled == 128) { /* Full, and more follows: not the last block. */
                total += 128;
                blake2b_compress(h, block, total, 0);
                filled = 0;
            }
            size_t n = 128 - filled < left ? 128 - filled : left;
            memcpy(block + filled, at, n);
            filled += n;
            at += n;
            left -= n;
        }
    }
    memset(block + filled, 0, 128 - filled);
    total += filled;
    blake2b_compress(h, block, total, 1);
    return h[0];
}

/* ``rdx.model.ids.definition_id(uri, start, name)`` (a new int), or None when the step has
 * no prefix (Python makes the id then): blake2b of the prefix, the offset and the name. */
static PyObject *definition_id_of(Collect *c, uint32_t start, PyObject *name) {
    if (c->id_prefix == NULL) Py_RETURN_NONE;
    Py_ssize_t name_size;
    PyObject *encoded = NULL; /* For a name with lone surrogates, which ``rdx.model.ids`` passes through. */
    const char *utf8 = PyUnicode_AsUTF8AndSize(name, &name_size);
    if (utf8 == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear();
        encoded = PyUnicode_AsEncodedString(name, "utf-8", "surrogatepass");
        if (encoded == NULL) return NULL;
        utf8 = PyBytes_AS_STRING(encoded);
        name_size = PyBytes_GET_SIZE(encoded);
    }
    char digits[16], *offset = digits + sizeof digits; /* ``b"%d\xff" % start`` */
    *--offset = (char)0xff;
    do *--offset = (char)('0' + start % 10); while ((start /= 10) != 0);
    int offset_size = (int)(digits + sizeof digits - offset);
    const char *pieces[3] = {c->id_prefix, offset, utf8};
    size_t sizes[3] = {(size_t)c->id_prefix_size, (size_t)offset_size, (size_t)name_size};
    uint64_t id = blake2b_8(pieces, sizes, 3);
    Py_XDECREF(encoded);
    return PyLong_FromUnsignedLongLong(id);
}

/* definition_id(prefix, offset, name) -> int: definition_id_of, for the check against
 * ``rdx.model.ids.definition_id`` (rdx/native/__init__.py). */
static PyObject *definition_id(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyLong_Check(args[1]) || !PyUnicode_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "definition_id() takes bytes, an int and a str");
        return NULL;
    }
    unsigned long offset = PyLong_AsUnsignedLong(args[1]);
    if (offset == (unsigned long)-1 && PyErr_Occurred()) return NULL;
    if (offset > UINT32_MAX) {
        PyErr_SetString(PyExc_OverflowError, "definition_id(): an offset over 4 GB");
        return NULL;
    }
    Collect c = {0};
    c.id_prefix = PyBytes_AS_STRING(args[0]);
    c.id_prefix_size = PyBytes_GET_SIZE(args[0]);
    return definition_id_of(&c, (uint32_t)offset, args[2]);
}

/* What ``bytes.isspace`` (and ``\s`` in a bytes pattern) calls space. */
static int byte_space(unsigned char ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); }

static const char *skip_space(const char *at, const char *end) {
    while (at < end && byte_space((unsigned char)*at)) at++;
    return at;
}

/* Whether ``word`` is at ``*at`` (before ``end``); if so ``*at`` moves past it. */
static int take_word(const char **at, const char *end, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(end - *at) < n || memcmp(*at, word, n) != 0) return 0;
    *at += n;
    return 1;
}

/* Whether a comment line (stripped, from its ``#``) is an instruction to Ruby or a tool, as
 * ``parse._DIRECTIVE_COMMENT`` matches it: ``#``, spaces, then a magic comment's name and a
 * colon, ``rubocop:`` or ``standard:`` and a command, ``-*-`` or ``:nocov:``. */
static int directive_comment(const char *line, const char *end) {
    static const char *const MAGIC[] = {"frozen_string_literal", "encoding", "coding", "warn_indent", "warn_past_scope", "shareable_constant_value", "typed", NULL};
    const char *after = skip_space(line + 1, end);
    for (const char *const *word = MAGIC; *word != NULL; word++) {
        const char *at = after;
        if (take_word(&at, end, *word) && (at = skip_space(at, end)) < end && *at == ':') return 1;
    }
    const char *at = after;
    if (take_word(&at, end, "rubocop") && (at = skip_space(at, end)) < end && *at == ':') {
        at = skip_space(at + 1, end);
        const char *rest = at;
        if (take_word(&rest, end, "disable") || (rest = at, take_word(&rest, end, "enable")) || (rest = at, take_word(&rest, end, "todo"))) return 1;
    }
    at = after;
    if (take_word(&at, end, "-*-")) return 1;
    at = after;
    if (take_word(&at, end, ":nocov:")) return 1;
    at = after;
    if (take_word(&at, end, "standard") && (at = skip_space(at, end)) < end && *at == ':') {
        at = skip_space(at + 1, end);
        const char *rest = at;
        if (take_word(&rest, end, "disable") || (rest = at, take_word(&rest, end, "enable"))) return 1;
    }
    return 0;
}

/* ``Walker._comments_at_row(row)``, for a definition starting on ``row``: the full-line ``#``
 * comments right above that line of the walker's source (by its line table: the tree may have
 * been parsed from a patched copy, ``gaps.reparse_spelling_gaps``), top first, each stripped
 * and decoded as UTF-8 ("replace"), less the directives (directive_comment); a new tuple.
 * None when the row is past the table (Python's then). */
static PyObject *comments_above(Collect *c, uint32_t row) {
    if ((Py_ssize_t)row >= c->rows) Py_RETURN_NONE;
    const char *source = c->text;
    Py_ssize_t line = (Py_ssize_t)c->starts[row];
    /* The lines above, bottom first: (begin, end) of each kept comment, stripped. */
    Py_ssize_t kept[64][2];
    int count = 0;
    PyObject *more = NULL; /* Past 64 kept lines: a list of str, bottom first. */
    while (row > 0) {
        Py_ssize_t end = line, begin = (Py_ssize_t)c->starts[--row];
        if (begin > end || end > c->text_size) break; /* Not a table of this source: no comment read. */
        const char *a = source + begin, *b = source + end;
        while (a < b && byte_space((unsigned char)*a)) a++;
        while (b > a && byte_space((unsigned char)b[-1])) b--;
        if (a == b || *a != '#') break;
        line = begin;
        if (directive_comment(a, b)) continue; /* Each holds a colon or ``-*-``: Python tests for those first, to the same end. */
        if (count < 64) {
            kept[count][0] = a - source;
            kept[count][1] = b - source;
            count++;
            continue;
        }
        if (more == NULL && (more = PyList_New(0)) == NULL) return NULL;
        PyObject *text = PyUnicode_DecodeUTF8(a, b - a, "replace");
        if (text == NULL || PyList_Append(more, text) < 0) {
            Py_XDECREF(text);
            Py_DECREF(more);
            return NULL;
        }
        Py_DECREF(text);
    }
    Py_ssize_t extra = more != NULL ? PyList_GET_SIZE(more) : 0;
    PyObject *out = PyTuple_New(count + extra);
    if (out == NULL) {
        Py_XDECREF(more);
        return NULL;
    }
    Py_ssize_t at = 0;
    for (Py_ssize_t i = extra - 1; i >= 0; i--, at++) PyTuple_SET_ITEM(out, at, Py_NewRef(PyList_GET_ITEM(more, i)));
    Py_XDECREF(more);
    for (int i = count - 1; i >= 0; i--, at++) {
        PyObject *text = PyUnicode_DecodeUTF8(source + kept[i][0], kept[i][1] - kept[i][0], "replace");
        if (text == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, at, text);
    }
    return out;
}

/* ``definitions._params`` of a parameter list's text (the bytes from ``start`` to ``end``):
 * its runs of white space as one space, trimmed, in parentheses, cut to 400 characters. NULL
 * without an exception for text that is not ASCII (whose white space ``str.split`` reads with
 * Unicode's table: Python's then). */
static PyObject *params_text(Collect *c, uint32_t start, uint32_t end) {
    enum { MAX_PARAMS = 400 };
    const unsigned char *text = (const unsigned char *)c->source + start;
    size_t size = end - start;
    for (size_t i = 0; i < size; i++)
        if (text[i] >= 0x80) return NULL;
    char *out = PyMem_Malloc(size + 3);
    if (out == NULL) return PyErr_NoMemory();
    size_t n = 1;
    out[0] = '(';
    int space = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned char ch = text[i];
        /* ``str.isspace`` of ASCII: \t to \r, the separators \x1c to \x1f, the space. */
        if (byte_space(ch) || (ch >= 0x1c && ch <= 0x1f)) {
            space = n > 1;
            continue;
        }
        if (space) out[n++] = ' ';
        space = 0;
        out[n++] = (char)ch;
    }
    const char *body = out + 1;
    size_t body_size = n - 1;
    if (body_size && body[0] == '(') {
        body = out + 1;
    } else {
        out[n++] = ')';
        body = out;
        body_size = n;
    }
    PyObject *result;
    if (body_size > MAX_PARAMS) {
        char cut[MAX_PARAMS];
        memcpy(cut, body, MAX_PARAMS - 4);
        memcpy(cut + MAX_PARAMS - 4, "...)", 4);
        result = PyUnicode_DecodeASCII(cut, MAX_PARAMS, "strict");
    } else {
        result = PyUnicode_DecodeASCII(body, (Py_ssize_t)body_size, "strict");
    }
    PyMem_Free(out);
    return result;
}

/* Whether ``names`` is the set of local variables of the scope at byte ``start``. */
static int knows_locals(Collect *c, uint32_t start) { return c->names != NULL && (long long)start >= c->from && (long long)start < c->until; }

static int in_method_at(Collect *c, TSNode node) { return c->in_method && knows_locals(c, ts_node_start_byte(node)); }

/* ``Walker._const_path`` of a ``constant`` or ``scope_resolution`` node as (segments,
 * absolute) in *path (a new reference): the segments' text as ``node_text`` reads it, a
 * missing ``name`` as "". C_STOP for a dynamic path (``foo::Bar``) and for text outside the
 * source: Python reads those. */
static int const_path(Collect *c, TSNode node, PyObject **path) {
    *path = NULL;
    int outside;
    if (type_is(node, "constant")) {
        PyObject *text = text_of(c, node, &outside);
        if (text == NULL) return outside ? C_STOP : C_ERROR;
        PyObject *segments = PyTuple_New(1);
        if (segments == NULL) {
            Py_DECREF(text);
            return C_ERROR;
        }
        PyTuple_SET_ITEM(segments, 0, text);
        PyObject *items[2] = {segments, Py_NewRef(Py_False)};
        *path = tuple_steal(2, items);
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
        PyObject *items[2] = {tuple, tuple == NULL ? NULL : Py_NewRef(absolute ? Py_True : Py_False)};
        *path = tuple_steal(2, items);
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
static int receiver_kind(Collect *c, TSNode recv, int constant, int other, int *kind, PyObject **extra) {
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
        PyObject *items[3] = {path, PyLong_FromUnsignedLong(ts_node_start_byte(path_node)), PyLong_FromUnsignedLong(ts_node_end_byte(path_node))};
        *extra = tuple_steal(3, items);
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

/* The MethodRef ``Walker._record_batch`` makes of a tuple of receiver kind ``kind`` (see
 * emit), made here and appended to ``Walker.method_refs``; steals name and text. */
static int emit_method_ref(Collect *c, PyObject *name, uint32_t start, uint32_t end, uint32_t at, int kind, PyObject *text) {
    PyObject *receiver = NULL, *receiver_text = NULL, *ref = NULL;
    int result = C_ERROR;
    long index = scope_index_at(c, (long long)at);
    if (index == -2) goto done;
    if (text == NULL || text == Py_None || kind == RK_OTHER) {
        receiver = Py_NewRef(Py_None);
        receiver_text = text == NULL ? Py_NewRef(Py_None) : Py_NewRef(text);
    } else { /* ((segments, absolute), start, end) */
        PyObject *path = PyTuple_GET_ITEM(text, 0);
        PyObject *path_args[4] = {PyTuple_GET_ITEM(path, 0), PyTuple_GET_ITEM(path, 1), PyTuple_GET_ITEM(text, 1), PyTuple_GET_ITEM(text, 2)};
        receiver = PyObject_Vectorcall(c->const_path_type, path_args, 4, NULL);
        if (receiver == NULL) goto done;
        receiver_text = Py_NewRef(Py_None);
    }
    PyObject *numbers[3] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end), PyLong_FromLong(index)};
    if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL) {
        PyObject *args[7] = {name, numbers[0], numbers[1], numbers[2], c->receiver_kinds[kind], receiver, receiver_text};
        ref = PyObject_Vectorcall(c->method_ref_type, args, 7, NULL);
    }
    for (int i = 0; i < 3; i++) Py_XDECREF(numbers[i]);
    if (ref != NULL && PyList_Append(c->refs, ref) == 0) result = C_DONE;
done:
    Py_XDECREF(ref);
    Py_XDECREF(receiver);
    Py_XDECREF(receiver_text);
    Py_DECREF(name);
    Py_XDECREF(text);
    return result;
}

/* The ConstRef of the path (segments, absolute) from ``start`` to ``end``, in the scope at
 * byte ``at`` (scope_index_at), appended to ``Walker.const_refs`` as the walker would make it
 * from a CONST_REF tuple; steals path. */
static int emit_const_ref(Collect *c, PyObject *path, uint32_t start, uint32_t end, uint32_t at) {
    int result = C_ERROR;
    long index = scope_index_at(c, (long long)at);
    PyObject *numbers[3] = {NULL, NULL, NULL}, *const_path = NULL, *ref = NULL;
    if (index == -2) goto done;
    numbers[0] = PyLong_FromUnsignedLong(start);
    numbers[1] = PyLong_FromUnsignedLong(end);
    numbers[2] = PyLong_FromLong(index);
    if (numbers[0] == NULL || numbers[1] == NULL || numbers[2] == NULL) goto done;
    PyObject *path_args[4] = {PyTuple_GET_ITEM(path, 0), PyTuple_GET_ITEM(path, 1), numbers[0], numbers[1]};
    const_path = PyObject_Vectorcall(c->const_path_type, path_args, 4, NULL);
    if (const_path == NULL) goto done;
    PyObject *ref_args[2] = {const_path, numbers[2]};
    ref = PyObject_Vectorcall(c->const_ref_type, ref_args, 2, NULL);
    if (ref != NULL && PyList_Append(c->const_refs, ref) == 0) result = C_DONE;
done:
    Py_XDECREF(ref);
    Py_XDECREF(const_path);
    for (int i = 0; i < 3; i++) Py_XDECREF(numbers[i]);
    Py_DECREF(path);
    return result;
}

/* Append (name, start, end, scope, kind, extra) to the records; steals name and extra.
 * RECORD: extra is a DefinitionRecord the step made (emit_variable), for the definitions.
 * kind: a receiver kind (extra: see receiver_kind), CONST_REF (name: (segments, absolute),
 * extra: None), DEFINITION (emit_variable), BLOCK_SELF (collect_call: start and end are the
 * block's), BLOCK (collect_block), METHOD (collect_method), NAMESPACE (collect_namespace) or
 * METHOD_RECORD: ``Walker._record_batch`` reads them. ``scope``: for references, variables
 * and namespaces the index of the scope at byte ``at`` (scope_index_at, as ``Walker._scope``
 * would find it), for METHOD the byte ``at`` itself (Python reads its scope), else 0. */
static int emit(Collect *c, PyObject *name, uint32_t start, uint32_t end, uint32_t at, int kind, PyObject *text) {
    if (kind < CONST_REF && c->refs != NULL) return emit_method_ref(c, name, start, end, at, kind, text);
    /* The scope index itself where the walker needs no more of the scope (scope_index_at). */
    long long where = at;
    if (kind < CONST_REF || kind == CONST_REF || kind == DEFINITION || kind == NAMESPACE) {
        long index = scope_index_at(c, (long long)at);
        if (index == -2) {
            Py_DECREF(name);
            Py_XDECREF(text);
            return C_ERROR;
        }
        where = index;
    }
    if (kind == DEFINITION || kind == METHOD || kind == NAMESPACE || kind == METHOD_RECORD || kind == RECORD || kind == CONSTANT) c->next_definition++;
    if (text == NULL) {
        text = Py_None;
        Py_INCREF(text);
    }
    PyObject *items[6] = {name, PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end), PyLong_FromLongLong(where), PyLong_FromLong(kind), text};
    PyObject *record = tuple_steal(6, items);
    if (record == NULL) return C_ERROR;
    int failed = PyList_Append(c->out, record);
    Py_DECREF(record);
    return failed ? C_ERROR : C_DONE;
}

/* What ``Walker.setter_calls`` holds for the node's range: nothing (ROLE_NONE), the mark of
 * an assignment's target (ROLE_WRITE), any other mark (ROLE_OTHER: an op-assignment's target,
 * which Python records); -1 on an error. */
enum { ROLE_NONE = 0, ROLE_WRITE = 1, ROLE_OTHER = 2 };
static int setter_role(Collect *c, TSNode node) {
    if (PyDict_GET_SIZE(c->setter_calls) == 0) return ROLE_NONE;
    PyObject *items[2] = {PyLong_FromUnsignedLong(ts_node_start_byte(node)), PyLong_FromUnsignedLong(ts_node_end_byte(node))};
    PyObject *key = tuple_steal(2, items);
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
static int in_method_body(Collect *c) {
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
static int no_loop(Collect *c, TSNode block, TSNode recv) {
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
/* ``directives._require`` of a ``require``/``require_relative`` call (``node``) on nothing,
 * without a block, whose record the step makes: nothing unless it has one argument; an
 * identifier (perhaps a glob's path: ``glob_required``) is Python's, and so is the call when
 * its scope is not the one of ``names`` or, outside a method body, ``Walker.untaken`` holds a
 * branch (``untaken_at``); a plain string (``symbol_name``: one ``string_content`` or none)
 * is required, deferred in a method body: a Require appended to ``Walker.requires`` at
 * once (nothing else appends to it while the step runs). Any other argument: nothing. */
static int collect_require(Collect *c, TSNode node, int relative) {
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    if (!knows_locals(c, start)) return C_STOP;
    TSNode args = ts_node_child_by_field_id(node, c->spec->arguments);
    if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1) return C_DONE;
    TSNode arg = ts_node_named_child(args, 0);
    if (type_is(arg, "identifier")) return C_STOP;
    if (!type_is(arg, "string")) return C_DONE;
    int deferred = c->in_method;
    if (!deferred && c->untaken) return C_STOP;
    uint32_t count = ts_node_named_child_count(arg);
    PyObject *value;
    if (count == 0) {
        value = PyUnicode_FromString("");
    } else {
        TSNode content = ts_node_named_child(arg, 0);
        if (count != 1 || !type_is(content, "string_content")) return C_DONE;
        int outside;
        value = text_of(c, content, &outside);
        if (value == NULL && outside) return C_STOP;
    }
    if (value == NULL) return C_ERROR;
    PyObject *numbers[2] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end)};
    PyObject *record = NULL;
    if (numbers[0] != NULL && numbers[1] != NULL) {
        PyObject *fields[5] = {value, relative ? Py_True : Py_False, numbers[0], numbers[1], deferred ? Py_True : Py_False};
        record = PyObject_Vectorcall(c->require_type, fields, 5, NULL);
    }
    Py_XDECREF(numbers[0]);
    Py_XDECREF(numbers[1]);
    Py_DECREF(value);
    int failed = record == NULL || PyList_Append(c->requires, record) < 0;
    Py_XDECREF(record);
    return failed ? C_ERROR : C_DONE;
}

/* What collect_directive records of a call (Spec.attrs gives the last three by name). */
enum { DIRECTIVE_MIXIN = -1, DIRECTIVE_ATTR = 0, DIRECTIVE_VISIBILITY = 1, DIRECTIVE_ALIAS = 2 };

/* A call on nothing without a block, outside a method body, of a name ``directives._mixin``
 * handles (``code`` DIRECTIVE_MIXIN), ``directives._attr`` does (DIRECTIVE_ATTR, ``kind``
 * the kind of its definitions), ``directives._visibility`` does (DIRECTIVE_VISIBILITY) or
 * ``directives._alias_method`` does (DIRECTIVE_ALIAS): C_DONE after its tuple, C_STOP for
 * Python. Handled here only where the handlers' tests are plain: in a scope that is no
 * method body (``_directive_scope`` gives it), the name no method of the file (``note_call``),
 * and
 * - a mixin: the call is a statement of a class or module body (its parent a
 *   ``body_statement`` whose parent is the namespace) that is the scope of ``names`` (the
 *   same end byte: no other scope the walk opens ends there), so ``Walker.in_arguments`` is
 *   false, no block lies between (``self_block``: None) and ``mixin_self`` gives that
 *   namespace's scope; ``Walker.untaken`` holds no branch (``untaken_at``); each argument is
 *   ``self`` or a constant path that is not dynamic (else ``_mixin_targets``' loops or a
 *   diagnostic: Python's). MIXIN tuple: name the verb, start and end the call's, scope the
 *   namespace's index, extra per argument None for ``self`` or (segments, absolute, start, end).
 * - the others: at least one argument (exactly two for ``alias_method``), each a
 *   ``simple_symbol`` (``symbol_name`` reads ``:name``; anything else may need
 *   ``expand_names``, and ``private`` alone moves the scope's default: Python's). ATTRS (name:
 *   the kind), VISIBILITY or ALIAS tuple (name: the verb), extra: (the call's row, ((name,
 *   start, end) per argument)).
 * ``Walker._record_batch`` does the rest as the handler would (the scope's ``calls``, its
 * visibility at the call, the comments above). */
static int collect_directive(Collect *c, TSNode node, PyObject *verb, int code, PyObject *kind) {
    uint32_t start = ts_node_start_byte(node);
    if (!knows_locals(c, start) || c->in_method || c->index < 0 || c->refs == NULL || c->definition_type == NULL) return C_STOP;
    if (code == DIRECTIVE_MIXIN && c->untaken) return C_STOP;
    int known = PySet_Contains(c->method_names, verb);
    if (known) return known < 0 ? C_ERROR : C_STOP;
    if (code == DIRECTIVE_MIXIN) {
        TSTreeCursor up = ts_tree_cursor_copy(c->cursor);
        int plain = ts_tree_cursor_goto_parent(&up) && type_is(ts_tree_cursor_current_node(&up), "body_statement") && ts_tree_cursor_goto_parent(&up);
        if (plain) {
            TSNode owner = ts_tree_cursor_current_node(&up);
            plain = (type_is(owner, "class") || type_is(owner, "module")) && (long long)ts_node_end_byte(owner) == c->until;
        }
        ts_tree_cursor_delete(&up);
        if (!plain) return C_STOP;
    }
    TSNode args = ts_node_child_by_field_id(node, c->spec->arguments);
    if (ts_node_is_null(args)) return code == DIRECTIVE_MIXIN ? C_DONE : C_STOP; /* ``_mixin`` does nothing then. */
    uint32_t count = ts_node_named_child_count(args);
    if (code != DIRECTIVE_MIXIN && (count == 0 || (code == DIRECTIVE_ALIAS && count != 2))) return C_STOP;
    PyObject *items = PyTuple_New(count);
    if (items == NULL) return C_ERROR;
    int outside;
    for (uint32_t i = 0; i < count; i++) {
        TSNode arg = ts_node_named_child(args, i);
        PyObject *item = NULL;
        if (code != DIRECTIVE_MIXIN) {
            if (!type_is(arg, "simple_symbol")) goto stop;
            PyObject *text = text_of(c, arg, &outside);
            if (text == NULL) {
                if (outside) goto stop;
                goto fail;
            }
            PyObject *parts[3] = {PyUnicode_Substring(text, 1, PyUnicode_GET_LENGTH(text)), PyLong_FromUnsignedLong(ts_node_start_byte(arg)),
                                  PyLong_FromUnsignedLong(ts_node_end_byte(arg))};
            Py_DECREF(text);
            item = tuple_steal(3, parts);
        } else if (type_is(arg, "self")) {
            item = Py_NewRef(Py_None);
        } else {
            PyObject *path;
            int found = const_path(c, arg, &path);
            if (found == C_STOP) goto stop;
            if (found != C_DONE) goto fail;
            PyObject *parts[4] = {Py_NewRef(PyTuple_GET_ITEM(path, 0)), Py_NewRef(PyTuple_GET_ITEM(path, 1)),
                                  PyLong_FromUnsignedLong(ts_node_start_byte(arg)), PyLong_FromUnsignedLong(ts_node_end_byte(arg))};
            Py_DECREF(path);
            item = tuple_steal(4, parts);
        }
        if (item == NULL) goto fail;
        PyTuple_SET_ITEM(items, i, item);
    }
    PyObject *extra = items;
    int tuple_kind = MIXIN;
    if (code != DIRECTIVE_MIXIN) {
        PyObject *pair[2] = {PyLong_FromUnsignedLong(ts_node_start_point(node).row), items};
        extra = tuple_steal(2, pair);
        if (extra == NULL) return C_ERROR;
        /* Python reads the scope's visibility at the call after the step (method_visibility). */
        if (code == DIRECTIVE_ATTR && !c->frame_count && c->tuple_from < 0) c->tuple_from = start;
        c->next_definition += code == DIRECTIVE_ALIAS ? 1 : (long)count;
        tuple_kind = code == DIRECTIVE_ATTR ? ATTRS : code == DIRECTIVE_VISIBILITY ? VISIBILITY : ALIAS;
    }
    PyObject *label = Py_NewRef(code == DIRECTIVE_ATTR ? kind : verb);
    return emit(c, label, start, ts_node_end_byte(node), (uint32_t)c->index, tuple_kind, extra);
stop:
    Py_DECREF(items);
    return C_STOP;
fail:
    Py_DECREF(items);
    return C_ERROR;
}

static int collect_call(Collect *c, TSNode node) {
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
    if (c->requires != NULL && spec->arguments && role == ROLE_NONE && !has_block && ts_node_is_null(recv) &&
        (text_equals(c, meth, "require") || text_equals(c, meth, "require_relative"))) {
        /* ``on_call`` then ``directives._require``, unless a method of the file has the name
         * (``note_call``, as below). */
        int known = in_method ? 0 : PySet_Contains(c->method_names, name);
        int done = known < 0 ? C_ERROR : known ? C_STOP : collect_require(c, node, text_equals(c, meth, "require_relative"));
        if (done != C_DONE) {
            Py_DECREF(name);
            return done;
        }
        return emit(c, name, ts_node_start_byte(meth), ts_node_end_byte(meth), ts_node_start_byte(node), RK_IMPLICIT_SELF, NULL);
    }
    if (spec->mixins != NULL && role == ROLE_NONE && !has_block && ts_node_is_null(recv) && !in_method) {
        /* ``include M``, ``attr_reader :a``, ``private :a``, ``alias_method :a, :b`` (collect_directive). */
        int mixin = PySet_Contains(spec->mixins, name);
        PyObject *entry = mixin ? NULL : PyDict_GetItemWithError(spec->attrs, name); /* borrowed: (code, kind) */
        if (mixin < 0 || (entry == NULL && PyErr_Occurred())) {
            Py_DECREF(name);
            return C_ERROR;
        }
        if (mixin || entry != NULL) {
            int code = DIRECTIVE_MIXIN;
            PyObject *kind = NULL;
            if (entry != NULL) {
                if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2 || (code = (int)PyLong_AsLong(PyTuple_GET_ITEM(entry, 0))) < DIRECTIVE_ATTR ||
                    code > DIRECTIVE_ALIAS) {
                    Py_DECREF(name);
                    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "spec(): a directive's code out of range");
                    return C_ERROR;
                }
                kind = PyTuple_GET_ITEM(entry, 1);
            }
            int done = collect_directive(c, node, name, code, kind);
            if (done != C_DONE) {
                Py_DECREF(name);
                return done;
            }
            return emit(c, name, ts_node_start_byte(meth), ts_node_end_byte(meth), ts_node_start_byte(node), RK_IMPLICIT_SELF, NULL);
        }
    }
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
    /* A constant receiver outside a method body: ``RECEIVER_DIRECTIVES`` and ``literal_call``
     * look at the call, but for ``Const.new(...)`` without a block, which neither takes. */
    int found = receiver_kind(c, recv, in_method || (!has_block && text_equals(c, meth, "new")), !c->hooks, &kind, &text);
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
        if (self_value == NULL || emit(c, name, ts_node_start_byte(block), ts_node_end_byte(block), 0, BLOCK_SELF, self_value) != C_DONE) {
            Py_DECREF(name);
            Py_XDECREF(text);
            return C_ERROR;
        }
    }
    return emit(c, name, ts_node_start_byte(meth), ts_node_end_byte(meth), ts_node_start_byte(node), kind, text);
}

/* The visibility (a str) and the ``module_function`` flag a scope gave (new references, or NULL
 * with an exception set), taken into ``method_visibility``'s results: the visibility borrowed
 * (the scope keeps it, or it is one of the words of its marks), the flag as a truth value. */
static int take_visibility(PyObject *found, PyObject *flag, PyObject **visibility, int *module_function) {
    int truth = flag == NULL ? -1 : PyObject_IsTrue(flag);
    Py_XDECREF(flag);
    if (truth < 0 || !PyUnicode_Check(found)) {
        Py_XDECREF(found);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a scope's visibility is not a str");
        return C_ERROR;
    }
    *visibility = found;
    Py_DECREF(found);
    *module_function = truth;
    return C_DONE;
}

/* A ``method`` (``definitions.on_method``), or a ``singleton_method`` on ``self``, with a name,
 * where ``names`` is the set of the scope around (knows_locals), that nests no deeper than
 * ``max_nesting`` (``Walker.too_deep``) and is not named as one of Ruby's hooks (whose
 * parameter the handler may note): its record (name, start, end, name range, parameters' text
 * or None, the row it starts on, a new set for its locals, whether it is defined on ``self``),
 * and the scope of its body opens
 * here too (Frame), from the end of its name to its end, a method body one level deeper. The
 * name joins ``method_names`` at once, as the handler adds it. */
/* The visibility ``definitions.method_definition`` gives a plain method starting at byte
 * ``start`` in the scope of ``names`` (a borrowed str in *visibility, its ``module_function``
 * in *module_function): public on ``self`` or in a method body, private at the top level,
 * else the default of the namespace there, after its marks before ``start`` (the step's own
 * namespace: its marks, passed as the walker would; the walker's: ``Scope.visibility_at`` and
 * ``module_function_at``, which the walker calls at that byte too). C_STOP when the walker
 * holds an inline visibility or ``module_function`` for it (``private def x``: Python's). */
static int method_visibility(Collect *c, uint32_t start, int on_self, PyObject **visibility, int *module_function) {
    static PyObject *public_ = NULL, *private_ = NULL, *module_function_word = NULL;
    static PyObject *marks_name = NULL, *visibility_name = NULL, *module_function_name = NULL;
    if (public_ == NULL) {
        public_ = PyUnicode_InternFromString("public");
        private_ = PyUnicode_InternFromString("private");
        module_function_word = PyUnicode_InternFromString("module_function");
        marks_name = PyUnicode_InternFromString("marks");
        visibility_name = PyUnicode_InternFromString("_visibility");
        module_function_name = PyUnicode_InternFromString("_module_function");
        if (public_ == NULL || private_ == NULL || module_function_word == NULL || marks_name == NULL || visibility_name == NULL
            || module_function_name == NULL)
            return C_ERROR;
    }
    PyObject *key = PyLong_FromUnsignedLong(start);
    if (key == NULL) return C_ERROR;
    int pending = PyDict_GET_SIZE(c->pending_visibility) ? PyDict_Contains(c->pending_visibility, key) : 0;
    if (pending == 0 && PySet_GET_SIZE(c->pending_module_function)) pending = PySet_Contains(c->pending_module_function, key);
    Py_DECREF(key);
    if (pending) return pending < 0 ? C_ERROR : C_STOP;
    *module_function = 0;
    if (on_self || c->in_method) {
        *visibility = public_;
        return C_DONE;
    }
    if (c->index < 0) {
        *visibility = private_;
        return C_DONE;
    }
    if (c->frame_count) {
        if (c->marks == NULL || !PyList_Check(c->marks)) return C_STOP;
        while (c->marks_used < PyList_GET_SIZE(c->marks)) {
            PyObject *mark = PyList_GET_ITEM(c->marks, c->marks_used);
            long long at = PyLong_AsLongLong(PyTuple_GET_ITEM(mark, 0));
            if (at == -1 && PyErr_Occurred()) return C_ERROR;
            if (at >= (long long)start) break;
            PyObject *word = PyTuple_GET_ITEM(mark, 1);
            int is_module_function = PyUnicode_Compare(word, module_function_word) == 0;
            c->visibility = is_module_function ? private_ : word;
            c->module_function = is_module_function;
            c->marks_used++;
        }
        *visibility = c->visibility != NULL ? c->visibility : public_;
        *module_function = c->module_function;
        return C_DONE;
    }
    if (c->base < 0 || c->base >= PyList_GET_SIZE(c->scopes)) return C_STOP;
    PyObject *scope = PyList_GET_ITEM(c->scopes, c->base);
    if (c->tuple_from >= 0) {
        /* A METHOD tuple of this scope before: Python reads its visibility later, so the marks
         * between it and ``start`` must stay (``Scope.visibility_at`` pops those it passes). */
        PyObject *marks = PyObject_GetAttrString(scope, "marks");
        if (marks == NULL) return C_ERROR;
        int between = !PyList_Check(marks);
        for (Py_ssize_t i = 0; !between && i < PyList_GET_SIZE(marks); i++) {
            PyObject *mark = PyList_GET_ITEM(marks, i);
            long long at = PyTuple_Check(mark) && PyTuple_GET_SIZE(mark) == 2 ? PyLong_AsLongLong(PyTuple_GET_ITEM(mark, 0)) : -1;
            if (at == -1 && PyErr_Occurred()) {
                Py_DECREF(marks);
                return C_ERROR;
            }
            between = at < 0 || (at >= c->tuple_from && at < (long long)start);
        }
        Py_DECREF(marks);
        if (between) return C_STOP;
    }
    /* With no marks left, ``visibility_at`` and ``module_function_at`` return the scope's
     * ``_visibility`` and ``_module_function`` as they are: read here without the two calls. */
    PyObject *left = PyObject_GetAttr(scope, marks_name);
    if (left == NULL) return C_ERROR;
    int none_left = PyList_CheckExact(left) && PyList_GET_SIZE(left) == 0;
    Py_DECREF(left);
    if (none_left) {
        PyObject *found = PyObject_GetAttr(scope, visibility_name);
        return take_visibility(found, found == NULL ? NULL : PyObject_GetAttr(scope, module_function_name), visibility, module_function);
    }
    PyObject *offset = PyLong_FromUnsignedLong(start);
    if (offset == NULL) return C_ERROR;
    PyObject *found = PyObject_CallMethod(scope, "visibility_at", "O", offset);
    PyObject *flag = found == NULL ? NULL : PyObject_CallMethod(scope, "module_function_at", "O", offset);
    Py_DECREF(offset);
    return take_visibility(found, flag, visibility, module_function);
}

/* ``definitions.method_definition``'s record of a plain method (see collect_method), made
 * here: a new DefinitionRecord, or NULL without an exception for C_STOP (method_visibility). */
static PyObject *method_record(Collect *c, PyObject *name, uint32_t start, uint32_t end, uint32_t name_start, uint32_t name_end, PyObject *params,
                               int on_self, PyObject *ident, PyObject *comments) {
    static PyObject *keywords = NULL, *method_kind = NULL;
    if (keywords == NULL) {
        method_kind = PyUnicode_InternFromString("Method");
        static const char *const names[13] = {"id", "kind", "name", "start", "end", "name_start", "name_end", "parent", "visibility", "params",
                                              "comments", "self_receiver", "module_function"};
        PyObject *words[13];
        /* Interned: msgspec matches keywords to fields by identity first. */
        for (int i = 0; i < 13; i++) words[i] = PyUnicode_InternFromString(names[i]);
        keywords = tuple_steal(13, words);
        if (keywords == NULL || method_kind == NULL) return NULL;
    }
    PyObject *visibility;
    int module_function;
    int found = method_visibility(c, start, on_self, &visibility, &module_function);
    if (found != C_DONE) return NULL;
    PyObject *numbers[5] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end), PyLong_FromUnsignedLong(name_start),
                            PyLong_FromUnsignedLong(name_end), PyLong_FromLong(c->index)};
    PyObject *record = NULL;
    if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && numbers[3] != NULL && numbers[4] != NULL) {
        PyObject *args[13] = {ident, method_kind, name, numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], visibility, params, comments,
                              on_self ? Py_True : Py_False, module_function ? Py_True : Py_False};
        record = PyObject_Vectorcall(c->definition_type, args, 0, keywords);
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(numbers[i]);
    return record;
}

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
    PyObject *params = NULL;
    int ready = 1; /* Whether ``params`` is ``definitions._params``' text (else the list's own). */
    if (ts_node_is_null(params_node)) {
        static PyObject *no_params = NULL;
        params = constant_str(&no_params, "()");
    } else {
        uint32_t params_start = ts_node_start_byte(params_node), params_end = ts_node_end_byte(params_node);
        if (params_end < params_start || (Py_ssize_t)params_end > c->size) {
            Py_DECREF(name);
            return C_STOP;
        }
        params = params_text(c, params_start, params_end);
        if (params == NULL && !PyErr_Occurred()) {
            ready = 0;
            params = text_of(c, params_node, &outside);
        }
    }
    if (params == NULL) {
        Py_DECREF(name);
        return C_ERROR;
    }
    PyObject *names = PySet_New(NULL);
    if (names == NULL || PySet_Add(c->method_names, name) < 0) {
        Py_XDECREF(names);
        Py_DECREF(name);
        Py_DECREF(params);
        return C_ERROR;
    }
    uint32_t name_end = ts_node_end_byte(name_node), end = ts_node_end_byte(node);
    PyObject *ident = definition_id_of(c, start, name);
    PyObject *comments = ident == NULL ? NULL : comments_above(c, ts_node_start_point(node).row);
    if (comments != NULL && c->definition_type != NULL && ready && ident != Py_None && comments != Py_None) {
        /* The record itself (METHOD_RECORD), when method_record can say the visibility. */
        PyObject *record = method_record(c, name, start, end, ts_node_start_byte(name_node), name_end, params, self_receiver, ident, comments);
        if (record != NULL) {
            Py_DECREF(params);
            Py_DECREF(ident);
            Py_DECREF(comments);
            PyObject *items[3] = {record, PyLong_FromUnsignedLong(name_end), Py_NewRef(names)};
            PyObject *extra = tuple_steal(3, items);
            if (extra == NULL || emit(c, name, start, end, start, METHOD_RECORD, extra) != C_DONE) {
                if (extra == NULL) Py_DECREF(name);
                Py_DECREF(names);
                return C_ERROR;
            }
            push_frame(c, names, name_end, end, 1, 1, c->next_definition - 1); /* names: the reference made above. */
            return C_DONE;
        }
        if (PyErr_Occurred()) {
            Py_DECREF(params);
            Py_DECREF(ident);
            Py_DECREF(comments);
            Py_DECREF(names);
            Py_DECREF(name);
            return C_ERROR;
        }
    }
    PyObject *extra = NULL;
    if (comments != NULL) {
        PyObject *items[9] = {PyLong_FromUnsignedLong(ts_node_start_byte(name_node)), PyLong_FromUnsignedLong(name_end), params, Py_NewRef(ready ? Py_True : Py_False),
                              Py_NewRef(names), Py_NewRef(self_receiver ? Py_True : Py_False), ident, comments, PyLong_FromUnsignedLong(ts_node_start_point(node).row)};
        extra = tuple_steal(9, items);
    }
    if (extra == NULL) {
        if (comments == NULL) {
            Py_XDECREF(ident);
            Py_DECREF(params);
        }
        Py_DECREF(names);
        Py_DECREF(name);
        return C_ERROR;
    }
    if (!c->frame_count && c->tuple_from < 0) c->tuple_from = start;
    if (emit(c, name, start, end, start, METHOD, extra) != C_DONE) {
        Py_DECREF(names);
        return C_ERROR;
    }
    push_frame(c, names, name_end, end, 1, 1, c->next_definition - 1); /* names: the reference made above. */
    return C_DONE;
}

/* ``definitions.namespace_definition``'s record of a plain class or module (collect_namespace):
 * named ``text`` (``ConstPath.text``), its path (segments, absolute) over the name's range,
 * its superclass (segments, absolute, start, end) or NULL, in the scope at its start
 * (scope_index_at); a new DefinitionRecord, NULL with an exception on an error. */
static PyObject *namespace_record(Collect *c, int is_class, PyObject *text, uint32_t start, uint32_t end, uint32_t name_start, uint32_t name_end,
                                  PyObject *path, PyObject *superclass, PyObject *ident, PyObject *comments) {
    static PyObject *keywords = NULL, *class_kind = NULL, *module_kind = NULL;
    if (keywords == NULL) {
        static const char *const names[11] = {"id", "kind", "name", "start", "end", "name_start", "name_end", "parent", "path", "superclass", "comments"};
        PyObject *interned[11];
        for (int i = 0; i < 11; i++) interned[i] = PyUnicode_InternFromString(names[i]);
        class_kind = PyUnicode_InternFromString("Class");
        module_kind = PyUnicode_InternFromString("Module");
        keywords = tuple_steal(11, interned);
        if (keywords == NULL || class_kind == NULL || module_kind == NULL) return NULL;
    }
    long parent = scope_index_at(c, (long long)start);
    if (parent == -2) return NULL;
    PyObject *numbers[5] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end), PyLong_FromUnsignedLong(name_start), PyLong_FromUnsignedLong(name_end),
                            PyLong_FromLong(parent)};
    PyObject *record = NULL, *const_path = NULL, *super_path = NULL;
    if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && numbers[3] != NULL && numbers[4] != NULL) {
        PyObject *path_args[4] = {PyTuple_GET_ITEM(path, 0), PyTuple_GET_ITEM(path, 1), numbers[2], numbers[3]};
        const_path = PyObject_Vectorcall(c->const_path_type, path_args, 4, NULL);
        if (const_path != NULL && superclass != NULL) {
            PyObject *super_args[4] = {PyTuple_GET_ITEM(superclass, 0), PyTuple_GET_ITEM(superclass, 1), PyTuple_GET_ITEM(superclass, 2),
                                       PyTuple_GET_ITEM(superclass, 3)};
            super_path = PyObject_Vectorcall(c->const_path_type, super_args, 4, NULL);
        }
        if (const_path != NULL && (superclass == NULL || super_path != NULL)) {
            PyObject *args[11] = {ident, is_class ? class_kind : module_kind, text, numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], const_path,
                                  super_path != NULL ? super_path : Py_None, comments};
            record = PyObject_Vectorcall(c->definition_type, args, 0, keywords);
        }
    }
    for (int i = 0; i < 5; i++) Py_XDECREF(numbers[i]);
    Py_XDECREF(const_path);
    Py_XDECREF(super_path);
    return record;
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
        /* The runtime's moves (cursor_first_child, cursor_next_sibling: the same children). */
        if (cursor_first_child((TreeCursor *)&cursor, NULL)) {
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
            } while (cursor_next_sibling((TreeCursor *)&cursor));
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
    /* The name ``ConstPath.text`` gives the path, for the definition's id. */
    static PyObject *separator_str = NULL;
    PyObject *separator = constant_str(&separator_str, "::");
    PyObject *joined = separator == NULL ? NULL : PyUnicode_Join(separator, PyTuple_GET_ITEM(path, 0));
    PyObject *text = joined == NULL || PyTuple_GET_ITEM(path, 1) != Py_True ? joined : PyUnicode_Concat(separator, joined);
    if (text != joined) Py_XDECREF(joined);
    Py_XDECREF(separator);
    PyObject *ident = text == NULL ? NULL : definition_id_of(c, start, text);
    PyObject *comments = ident == NULL ? NULL : comments_above(c, ts_node_start_point(node).row);
    if (comments == NULL) {
        Py_XDECREF(text);
        Py_XDECREF(ident);
        Py_DECREF(path);
        goto error;
    }
    /* The record itself, as ``definitions.namespace_definition`` makes it, when the step has
     * the id, the comments and the record type; else None (Python makes it from the parts). */
    PyObject *record = NULL;
    if (c->definition_type != NULL && ident != Py_None && comments != Py_None) {
        record = namespace_record(c, type_is(node, "class"), text, start, end, ts_node_start_byte(name_node), name_end, path, superclass, ident, comments);
        if (record == NULL) {
            Py_DECREF(text);
            Py_DECREF(ident);
            Py_DECREF(comments);
            Py_DECREF(path);
            goto error;
        }
    } else {
        record = Py_NewRef(Py_None);
    }
    Py_XDECREF(text);
    PyObject *items[13] = {
        Py_NewRef(type_is(node, "class") ? Py_True : Py_False), Py_NewRef(PyTuple_GET_ITEM(path, 0)), Py_NewRef(PyTuple_GET_ITEM(path, 1)),
        PyLong_FromUnsignedLong(ts_node_start_byte(name_node)), PyLong_FromUnsignedLong(name_end), superclass != NULL ? superclass : Py_NewRef(Py_None),
        PyLong_FromUnsignedLong(body_start), ident, comments, PyLong_FromUnsignedLong(ts_node_start_point(node).row), marks, Py_NewRef(names), record,
    };
    PyObject *extra = tuple_steal(13, items);
    superclass = NULL;
    marks = NULL;
    /* The ConstRef of the scope part of a compact name (``A`` of ``class A::B``), as
     * ``Walker._prefix_ref`` makes it, where the walker would make it (before the namespace
     * opens), when the step makes the ConstRefs. */
    Py_ssize_t segment_count = PyTuple_GET_SIZE(PyTuple_GET_ITEM(path, 0));
    if (extra != NULL && c->const_refs != NULL && segment_count > 1) {
        PyObject *segments = PyTuple_GET_ITEM(path, 0);
        Py_ssize_t last = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(segments, segment_count - 1));
        PyObject *items[2] = {PyTuple_GetSlice(segments, 0, segment_count - 1), Py_NewRef(PyTuple_GET_ITEM(path, 1))};
        PyObject *prefix = items[0] == NULL ? NULL : tuple_steal(2, items);
        if (items[0] == NULL) Py_DECREF(items[1]);
        uint32_t name_start = ts_node_start_byte(name_node);
        if (prefix == NULL || emit_const_ref(c, prefix, name_start, (uint32_t)((long long)name_end - last - 2), start) != C_DONE) {
            Py_DECREF(path);
            Py_DECREF(extra); /* With the names it holds. */
            names = NULL;
            goto error;
        }
    }
    Py_DECREF(path);
    if (extra == NULL) goto error;
    Py_INCREF(Py_None);
    if (emit(c, Py_None, start, end, start, NAMESPACE, extra) != C_DONE) goto error;
    *skip_until = name_end;
    push_frame(c, names, body_start, end, 0, weight, c->next_definition - 1);
    c->marks = PyTuple_GET_ITEM(extra, 10); /* Borrowed: ``out`` keeps the tuple. */
    c->marks_used = 0;
    c->visibility = NULL; /* "public" */
    c->module_function = 0;
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
static int collect_block_argument(Collect *c, TSNode node) {
    if (ts_node_named_child_count(node) != 1) return C_DONE;
    TSNode sym = ts_node_named_child(node, 0);
    if (type_is(sym, "delimited_symbol")) return C_STOP;
    if (!type_is(sym, "simple_symbol")) return C_DONE;
    uint32_t start = ts_node_start_byte(sym), end = ts_node_end_byte(sym);
    if (end <= start || (Py_ssize_t)end > c->size || c->source[start] != ':') return C_STOP;
    if (end == start + 1) return C_DONE; /* No name. */
    PyObject *name = decoded_name(c->source + start + 1, (Py_ssize_t)(end - start - 1));
    if (name == NULL) return C_ERROR;
    return emit(c, name, start + 1, end, start + 1, RK_OTHER, NULL);
}

/* A block (``{ }``, ``do ... end``, a lambda: ``Walker.on_block``), always: its range, for the
 * walker to open it with what the call before said of its self. */
static int collect_block(Collect *c, TSNode node) {
    Py_INCREF(Py_None);
    return emit(c, Py_None, ts_node_start_byte(node), ts_node_end_byte(node), 0, BLOCK, NULL);
}

/* The call record of ``method`` (an operator, ``[]``) on a receiver of ``kind`` and ``text``
 * (whose reference it takes), from ``start`` to ``end`` and scoped at ``start``. */
static int emit_operator(Collect *c, const char *method, uint32_t start, uint32_t end, int kind, PyObject *text) {
    PyObject *name = decoded_name(method, (Py_ssize_t)strlen(method));
    if (name == NULL) {
        Py_XDECREF(text);
        return C_ERROR;
    }
    return emit(c, name, start, end, start, kind, text);
}

/* A ``binary`` (``calls.on_binary``): nothing without an operator or for ``&&``, ``||``,
 * ``and``, ``or``; else the operator called on ``left``, scoped at the operator. */
static int collect_binary(Collect *c, TSNode node) {
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
static int collect_unary(Collect *c, TSNode node) {
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
static int collect_element_reference(Collect *c, TSNode node) {
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
static int add_local(Collect *c, TSNode left) {
    uint32_t start = ts_node_start_byte(left), end = ts_node_end_byte(left);
    if (!knows_locals(c, start) || end < start || (Py_ssize_t)end > c->size) return C_STOP;
    PyObject *text = cached_bytes(c->source + start, (Py_ssize_t)(end - start));
    if (text == NULL) return C_ERROR;
    int failed = PySet_Add(c->names, text);
    Py_DECREF(text);
    return failed ? C_ERROR : C_DONE;
}

/* The definition record of a variable of ``kind`` (variable_kind) assigned at ``left`` by the
 * assignment ``node`` (named by its text, scoped at the assignment's start); C_STOP, with
 * nothing recorded, when its text is not in the source. */
static int emit_variable(Collect *c, TSNode node, TSNode left, int kind) {
    static PyObject *keywords = NULL, *kinds[3] = {NULL, NULL, NULL};
    int outside;
    PyObject *name = text_of(c, left, &outside);
    if (name == NULL) return outside ? C_STOP : C_ERROR;
    uint32_t start = ts_node_start_byte(left), end = ts_node_end_byte(left);
    PyObject *ident = definition_id_of(c, start, name);
    if (ident != NULL && ident != Py_None && c->definition_type != NULL) {
        /* The record itself (RECORD), as ``Walker._add_at`` makes it: named by its text, its
         * name's range its own, in the scope at the assignment's start. */
        if (keywords == NULL) {
            static const char *const names[8] = {"id", "kind", "name", "start", "end", "name_start", "name_end", "parent"};
            static const char *const words[3] = {"InstanceVariable", "ClassVariable", "GlobalVariable"};
            PyObject *interned[8];
            for (int i = 0; i < 8; i++) interned[i] = PyUnicode_InternFromString(names[i]);
            for (int i = 0; i < 3; i++)
                if ((kinds[i] = PyUnicode_InternFromString(words[i])) == NULL) return C_ERROR;
            keywords = tuple_steal(8, interned);
            if (keywords == NULL) return C_ERROR;
        }
        long index = scope_index_at(c, (long long)ts_node_start_byte(node));
        PyObject *record = NULL;
        if (index != -2) {
            PyObject *numbers[5] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end), PyLong_FromUnsignedLong(start),
                                    PyLong_FromUnsignedLong(end), PyLong_FromLong(index)};
            if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && numbers[3] != NULL && numbers[4] != NULL) {
                PyObject *args[8] = {ident, kinds[kind], name, numbers[0], numbers[1], numbers[2], numbers[3], numbers[4]};
                record = PyObject_Vectorcall(c->definition_type, args, 0, keywords);
            }
            for (int i = 0; i < 5; i++) Py_XDECREF(numbers[i]);
        }
        Py_DECREF(ident);
        if (record == NULL) {
            Py_DECREF(name);
            return C_ERROR;
        }
        return emit(c, name, start, end, 0, RECORD, record);
    }
    PyObject *items[2] = {PyLong_FromLong(kind), ident};
    PyObject *which = tuple_steal(2, items);
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
static int assign_target(Collect *c, TSNode node, TSNode left, int check, int others) {
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
        PyObject *items[2] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(end)};
        PyObject *key = tuple_steal(2, items);
        if (key == NULL) return C_ERROR;
        int failed = PyDict_SetItem(c->setter_calls, key, c->spec->write);
        Py_DECREF(key);
        return failed ? C_ERROR : C_DONE;
    }
    return others && strcmp(type, "constant") != 0 && strcmp(type, "scope_resolution") != 0 ? C_DONE : C_STOP;
}

/* The values of a constant's assignment ``X = value`` that ``definitions.constant`` reads
 * further (an assignment's target, the branch a conditional takes): Python's. Constants and
 * calls are read below; any other value gives a plain ``Constant``. */
static const char *const READ_CONSTANT_VALUES[] = {
    "assignment", "operator_assignment", "if", "unless", "case", "conditional", "parenthesized_statements", NULL,
};

static int read_constant_value(TSNode value) {
    const char *type = ts_node_type(value);
    for (const char *const *read = READ_CONSTANT_VALUES; *read != NULL; read++)
        if (strcmp(type, *read) == 0) return 1;
    return 0;
}

/* ``definitions._assign_target`` of ``X = value`` (``node``, ``left`` a ``constant``, not a
 * path: no prefix to refer to), where ``names`` is the scope's, with a value it does not
 * read further (READ_CONSTANT_VALUES) and that is no call of a namespace factory
 * (``Struct.new``...: a call on a constant named in Spec.factories, or on ``::`` one, is
 * Python's, and so is ``x.freeze`` on a call ``x``, which ``definitions.constant`` may read
 * instead): ``definitions.constant``'s record, a ``Constant`` named by its text over the
 * assignment, its name the constant, with its ConstPath and the comments above; or with a
 * constant path that is not dynamic as the value, the ``ConstantAlias`` of it (its
 * ``target``). Constants up to the name's end are then passed over (``skip_const_until``).
 * The CONSTANT tuple (name, the name's range, extra: the DefinitionRecord); C_STOP when a
 * part cannot be read here. */
static int collect_constant_assignment(Collect *c, TSNode node, TSNode left, long long *skip_until) {
    static PyObject *keywords = NULL, *alias_keywords = NULL, *kind = NULL, *alias_kind = NULL;
    uint32_t start = ts_node_start_byte(node);
    TSNode right = ts_node_child_by_field_id(node, c->spec->right);
    if (!c->spec->right || ts_node_is_null(right) || !knows_locals(c, start) || c->definition_type == NULL || c->const_path_type == NULL) return C_STOP;
    PyObject *target = NULL; /* A ConstantAlias's (segments, absolute) */
    if (type_is(right, "constant") || type_is(right, "scope_resolution")) {
        int found = const_path(c, right, &target);
        if (found != C_DONE) return found;
    } else if (read_constant_value(right)) {
        return C_STOP;
    } else if (type_is(right, "call")) {
        TSNode method = ts_node_child_by_field_id(right, c->spec->method), receiver = ts_node_child_by_field_id(right, c->spec->receiver);
        if (ts_node_is_null(method) || c->spec->factories == NULL) return C_STOP;
        if (!ts_node_is_null(receiver)) {
            if (type_is(receiver, "call") && text_equals(c, method, "freeze")) return C_STOP;
            TSNode named = receiver; /* ``_factory_key``'s receiver: a constant, or ``::`` one. */
            if (type_is(receiver, "scope_resolution") && ts_node_is_null(ts_node_child_by_field_id(receiver, c->spec->scope)))
                named = ts_node_child_by_field_id(receiver, c->spec->name);
            if (!ts_node_is_null(named) && type_is(named, "constant")) {
                int outside;
                PyObject *text = text_of(c, named, &outside);
                if (text == NULL) return outside ? C_STOP : C_ERROR;
                int factory = PySet_Contains(c->spec->factories, text);
                Py_DECREF(text);
                if (factory) return factory < 0 ? C_ERROR : C_STOP;
            }
        }
    }
    if (keywords == NULL) {
        static const char *const names[11] = {"id", "kind", "name", "start", "end", "name_start", "name_end", "parent", "path", "comments", "target"};
        PyObject *interned[11], *again[10];
        for (int i = 0; i < 11; i++) interned[i] = PyUnicode_InternFromString(names[i]);
        for (int i = 0; i < 10; i++) again[i] = PyUnicode_InternFromString(names[i]);
        kind = PyUnicode_InternFromString("Constant");
        alias_kind = PyUnicode_InternFromString("ConstantAlias");
        alias_keywords = tuple_steal(11, interned);
        keywords = tuple_steal(10, again);
        if (keywords == NULL || alias_keywords == NULL || kind == NULL || alias_kind == NULL) {
            Py_XDECREF(target);
            return C_ERROR;
        }
    }
    int outside;
    PyObject *name = text_of(c, left, &outside);
    if (name == NULL) {
        Py_XDECREF(target);
        return outside ? C_STOP : C_ERROR;
    }
    PyObject *comments = comments_above(c, ts_node_start_point(node).row);
    PyObject *ident = comments == NULL || comments == Py_None ? NULL : definition_id_of(c, start, name);
    if (ident == NULL || ident == Py_None) {
        int failed = comments == NULL || (ident == NULL && comments != Py_None);
        Py_XDECREF(comments);
        Py_XDECREF(ident);
        Py_DECREF(name);
        Py_XDECREF(target);
        return failed ? C_ERROR : C_STOP;
    }
    uint32_t name_start = ts_node_start_byte(left), name_end = ts_node_end_byte(left);
    long index = scope_index_at(c, (long long)start);
    PyObject *record = NULL;
    if (index != -2) {
        PyObject *segments = PyTuple_Pack(1, name);
        PyObject *path_numbers[2] = {PyLong_FromUnsignedLong(name_start), PyLong_FromUnsignedLong(name_end)};
        PyObject *path = NULL;
        if (segments != NULL && path_numbers[0] != NULL && path_numbers[1] != NULL) {
            PyObject *path_args[4] = {segments, Py_False, path_numbers[0], path_numbers[1]};
            path = PyObject_Vectorcall(c->const_path_type, path_args, 4, NULL);
        }
        PyObject *numbers[3] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(ts_node_end_byte(node)), PyLong_FromLong(index)};
        PyObject *aliased = NULL;
        if (target != NULL) {
            PyObject *target_args[4] = {PyTuple_GET_ITEM(target, 0), PyTuple_GET_ITEM(target, 1), PyLong_FromUnsignedLong(ts_node_start_byte(right)),
                                        PyLong_FromUnsignedLong(ts_node_end_byte(right))};
            if (target_args[2] != NULL && target_args[3] != NULL) aliased = PyObject_Vectorcall(c->const_path_type, target_args, 4, NULL);
            Py_XDECREF(target_args[2]);
            Py_XDECREF(target_args[3]);
        }
        if (path != NULL && numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && (target == NULL || aliased != NULL)) {
            PyObject *args[11] = {ident, target != NULL ? alias_kind : kind, name, numbers[0], numbers[1], path_numbers[0], path_numbers[1], numbers[2], path,
                                  comments, aliased};
            record = PyObject_Vectorcall(c->definition_type, args, 0, target != NULL ? alias_keywords : keywords);
        }
        Py_XDECREF(aliased);
        Py_XDECREF(segments);
        Py_XDECREF(path);
        for (int i = 0; i < 2; i++) Py_XDECREF(path_numbers[i]);
        for (int i = 0; i < 3; i++) Py_XDECREF(numbers[i]);
    }
    Py_DECREF(ident);
    Py_DECREF(comments);
    Py_XDECREF(target);
    if (record == NULL) {
        Py_DECREF(name);
        return C_ERROR;
    }
    *skip_until = name_end;
    return emit(c, name, name_start, name_end, 0, CONSTANT, record);
}

/* A method name of ``alias new old`` as ``directives.on_alias`` reads it: an identifier's
 * text, a ``simple_symbol``'s less its colon (``symbol_name``); NULL with *plain = 0 for
 * any other node (Python's), NULL with *plain = 1 on an error. */
static PyObject *alias_name(Collect *c, TSNode node, int *plain) {
    int identifier = type_is(node, "identifier");
    *plain = identifier || type_is(node, "simple_symbol");
    if (!*plain) return NULL;
    int outside;
    PyObject *text = text_of(c, node, &outside);
    if (text == NULL) {
        *plain = !outside;
        return NULL;
    }
    if (identifier) return text;
    PyObject *name = PyUnicode_Substring(text, 1, PyUnicode_GET_LENGTH(text));
    Py_DECREF(text);
    return name;
}

/* ``alias new old`` (``directives.on_alias``) outside a method body (whose namespace
 * ``Walker._namespace_scope`` finds), where ``names`` is the scope's, both names identifiers
 * or plain symbols: the ``MethodAlias`` record, named ``new`` over the node, in that scope,
 * with ``old`` and the comments above (a RECORD tuple). Global variables' aliases and
 * anything else: Python's. */
static int collect_alias(Collect *c, TSNode node) {
    static PyObject *keywords = NULL, *kind = NULL;
    uint32_t start = ts_node_start_byte(node);
    if (!c->spec->alias || !knows_locals(c, start) || c->in_method || c->definition_type == NULL) return C_STOP;
    TSNode new_node = ts_node_child_by_field_id(node, c->spec->name), old_node = ts_node_child_by_field_id(node, c->spec->alias);
    if (ts_node_is_null(new_node) || ts_node_is_null(old_node)) return C_STOP;
    if (keywords == NULL) {
        static const char *const names[10] = {"id", "kind", "name", "start", "end", "name_start", "name_end", "parent", "old_name", "comments"};
        PyObject *interned[10];
        for (int i = 0; i < 10; i++) interned[i] = PyUnicode_InternFromString(names[i]);
        if ((kind = PyUnicode_InternFromString("MethodAlias")) == NULL) return C_ERROR;
        keywords = tuple_steal(10, interned);
        if (keywords == NULL) return C_ERROR;
    }
    int plain;
    PyObject *new_name = alias_name(c, new_node, &plain);
    if (new_name == NULL) return plain ? C_ERROR : C_STOP;
    PyObject *old_name = alias_name(c, old_node, &plain);
    if (old_name == NULL) {
        Py_DECREF(new_name);
        return plain ? C_ERROR : C_STOP;
    }
    PyObject *comments = comments_above(c, ts_node_start_point(node).row);
    PyObject *ident = comments == NULL || comments == Py_None ? NULL : definition_id_of(c, start, new_name);
    long index = scope_index_at(c, (long long)start);
    PyObject *record = NULL;
    int result = C_ERROR;
    if (ident != NULL && ident != Py_None && index != -2) {
        PyObject *numbers[5] = {PyLong_FromUnsignedLong(start), PyLong_FromUnsignedLong(ts_node_end_byte(node)), PyLong_FromUnsignedLong(ts_node_start_byte(new_node)),
                                PyLong_FromUnsignedLong(ts_node_end_byte(new_node)), PyLong_FromLong(index)};
        if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && numbers[3] != NULL && numbers[4] != NULL) {
            PyObject *args[10] = {ident, kind, new_name, numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], old_name, comments};
            record = PyObject_Vectorcall(c->definition_type, args, 0, keywords);
        }
        for (int i = 0; i < 5; i++) Py_XDECREF(numbers[i]);
    } else if (comments == Py_None || ident == Py_None) {
        result = C_STOP; /* Comments or the id Python's. */
    }
    Py_XDECREF(ident);
    Py_XDECREF(comments);
    Py_DECREF(old_name);
    if (record == NULL) {
        Py_DECREF(new_name);
        return result;
    }
    return emit(c, new_name, start, ts_node_end_byte(node), 0, RECORD, record);
}

/* An ``assignment`` (``definitions.on_assignment``, not an operator assignment): nothing
 * without a ``left``; assign_target for a single target; for a ``left_assignment_list``, each
 * of its named children (a ``rest_assignment``'s named child for it), once none is a constant
 * nor can stop. Any other target is Python's. */
static int collect_assignment(Collect *c, TSNode node, long long *skip_until) {
    TSNode left = ts_node_child_by_field_id(node, c->spec->left);
    if (ts_node_is_null(left)) return C_DONE;
    if (type_is(left, "constant")) return collect_constant_assignment(c, node, left, skip_until);
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
static int collect_op_assignment(Collect *c, TSNode node) {
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
static int collect_binding(Collect *c, TSNode node) {
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
        PyObject *text = cached_bytes(c->source + start, (Py_ssize_t)(end - start));
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
static int collect_constant(Collect *c, TSNode node, long long *skip_until) {
    PyObject *path;
    int found = const_path(c, node, &path);
    if (found != C_DONE) return found; /* A dynamic path: Python sees it (and records nothing). */
    uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
    *skip_until = end;
    if (c->const_refs != NULL) return emit_const_ref(c, path, start, end, start);
    return emit(c, path, start, end, start, CONST_REF, NULL);
}

/* An identifier that is not a name (fields) nor a known local (``Walker.on_identifier``):
 * outside a ``pattern`` field, other than ``end``, in a method body or not named as a method
 * of the file (``note_call``): a call on implicit self at the identifier. */
static int collect_identifier(Collect *c, TSNode node, TSFieldId field) {
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
 *         [, spec, out, method_names, setter_calls, hooks, in_method, names_from, scope_depth, scopes, base, top_locals, untaken,
 *          id_prefix, text, line_starts, records])
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
 * Collecting (sixteen more arguments: a ``spec()``, a list, ``Walker.method_names``,
 * ``Walker.setter_calls``, whether a hook scope may be open, whether the scope whose locals
 * ``names`` holds is a method body, the byte from which it holds them, that scope's depth,
 * ``Walker.scopes``, that scope's index there (-1: ``names`` is ``top_locals``, the top
 * level's), ``Walker.top_locals``, whether ``Walker.untaken`` holds a branch, the prefix of
 * the file's definition ids (``definition_id_of``; None: Python makes them), the walker's
 * source and its line table (``Walker.line_starts``: comments_above), and None or what the
 * step needs to make the MethodRefs itself (see Collect's ``refs``)): a node of
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
    if (nargs != 10 && nargs != 26) {
        PyErr_SetString(PyExc_TypeError, "advance() takes 10 arguments (26 to collect records)");
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
    if (nargs == 26) {
        collect.spec = PyCapsule_GetPointer(args[10], SPEC_NAME);
        if (collect.spec == NULL) return NULL;
        if (args[22] != Py_None) {
            if (!PyBytes_Check(args[22])) {
                PyErr_SetString(PyExc_TypeError, "advance() takes the ids' prefix as bytes or None");
                return NULL;
            }
            collect.id_prefix = PyBytes_AS_STRING(args[22]);
            collect.id_prefix_size = PyBytes_GET_SIZE(args[22]);
        }
        if (collect.spec == NULL) return NULL;
        if (!PyList_Check(args[11]) || !PyAnySet_Check(args[12]) || !PyDict_Check(args[13]) || !PyList_Check(args[18]) || !PyAnySet_Check(args[20])) {
            PyErr_SetString(PyExc_TypeError, "advance() collects into a list, with a set of method names, a dict of setter calls, a list of scopes, a set");
            return NULL;
        }
        collect.scopes = args[18];
        collect.base = PyLong_AsSsize_t(args[19]);
        if (args[25] != Py_None) {
            /* (method_refs, definitions or their number, MethodRef, ConstPath, the ReceiverKind members[, requires, Require[,
             *  DefinitionRecord, pending_visibility, pending_module_function[, const_refs, ConstRef, [skip_const_until]]]]) */
            PyObject *direct = args[25];
            Py_ssize_t size = PyTuple_Check(direct) ? PyTuple_GET_SIZE(direct) : 0;
            if ((size != 5 && size != 7 && size != 10 && size != 13) || !PyList_Check(PyTuple_GET_ITEM(direct, 0)) || !PyTuple_Check(PyTuple_GET_ITEM(direct, 4)) ||
                PyTuple_GET_SIZE(PyTuple_GET_ITEM(direct, 4)) != 5 || (size >= 7 && !PyList_Check(PyTuple_GET_ITEM(direct, 5))) ||
                (size >= 10 && (!PyDict_Check(PyTuple_GET_ITEM(direct, 8)) || !PyAnySet_Check(PyTuple_GET_ITEM(direct, 9)))) ||
                (size == 13 && (!PyList_Check(PyTuple_GET_ITEM(direct, 10)) || !PyList_Check(PyTuple_GET_ITEM(direct, 12)) ||
                                PyList_GET_SIZE(PyTuple_GET_ITEM(direct, 12)) != 1))) {
                PyErr_SetString(PyExc_TypeError, "advance() takes its records as (list, int, type, type, a tuple of 5[, list, type[, type, dict, set[, list, type, [int]]]]) or None");
                return NULL;
            }
            if (size == 13) {
                collect.const_refs = PyTuple_GET_ITEM(direct, 10);
                collect.const_ref_type = PyTuple_GET_ITEM(direct, 11);
                collect.skip_box = PyTuple_GET_ITEM(direct, 12);
            }
            if (size >= 7) {
                collect.requires = PyTuple_GET_ITEM(direct, 5);
                collect.require_type = PyTuple_GET_ITEM(direct, 6);
            }
            if (size >= 10) {
                collect.definition_type = PyTuple_GET_ITEM(direct, 7);
                collect.pending_visibility = PyTuple_GET_ITEM(direct, 8);
                collect.pending_module_function = PyTuple_GET_ITEM(direct, 9);
            }
            collect.refs = PyTuple_GET_ITEM(direct, 0);
            /* The number of definitions so far, or the list of them (``Walker.definitions``). */
            PyObject *defined = PyTuple_GET_ITEM(direct, 1);
            collect.next_definition = PyList_Check(defined) ? (long)PyList_GET_SIZE(defined) : PyLong_AsLong(defined);
            if (collect.next_definition == -1 && PyErr_Occurred()) return NULL;
            collect.method_ref_type = PyTuple_GET_ITEM(direct, 2);
            collect.const_path_type = PyTuple_GET_ITEM(direct, 3);
            for (int i = 0; i < 5; i++) collect.receiver_kinds[i] = PyTuple_GET_ITEM(PyTuple_GET_ITEM(direct, 4), i);
        }
        collect.top_locals = args[20];
        collect.untaken = PyObject_IsTrue(args[21]);
        if (collect.untaken < 0) return NULL;
        if (collect.base > PyList_GET_SIZE(collect.scopes)) collect.base = PyList_GET_SIZE(collect.scopes);
        collect.index = -1;
        collect.tuple_from = -1;
        if (collect.base >= 0 && collect.base < PyList_GET_SIZE(collect.scopes)) {
            long long index = scope_int(PyList_GET_ITEM(collect.scopes, collect.base), &index_name, "index");
            if (index == -1 && PyErr_Occurred()) return NULL;
            collect.index = (long)index;
        }
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
        if (!PyBytes_Check(args[23]) || !PyBytes_Check(args[24])) {
            PyBuffer_Release(&kinds);
            PyBuffer_Release(&fields);
            PyErr_SetString(PyExc_TypeError, "advance() takes the walker's source and line table as bytes");
            return NULL;
        }
        collect.text = PyBytes_AS_STRING(args[23]);
        collect.text_size = PyBytes_GET_SIZE(args[23]);
        collect.starts = (const uint32_t *)PyBytes_AS_STRING(args[24]);
        collect.rows = PyBytes_GET_SIZE(args[24]) / (Py_ssize_t)sizeof(uint32_t);
        collect.names = names;
        if (names == NULL) collect.refs = collect.requires = collect.definition_type = collect.const_refs = NULL; /* Its scopes unknown: Python's. */
        collect.source = PyBytes_AS_STRING(source);
        collect.size = PyBytes_GET_SIZE(source);
        collecting = 1;
    }
    TSTreeCursor *cursor = &self->cursor;
    TreeCursor *moves = (TreeCursor *)cursor;
    /* The leaves the moves pass over: those of a kind no handler wants (0), which have no
     * children to go into (missing ones excepted when they are reported). */
    Passing passing = {table, check_missing};
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
            } else if (cursor_first_child(moves, &passing)) {
                moved = 1;
                depth++;
                goto visit;
            }
        }
        int next;
        while ((next = cursor_next(moves, &passing)) == 2) depth--;
        moved = 1;
        if (next == 0) {
            event = WALK_END;
            goto done;
        }
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
            /* A known local is passed over in any field: looked up first, so that the field (a
             * climb of the cursor's stack through the field maps) is read only for the others. */
            uint32_t start = ts_node_start_byte(node), end = ts_node_end_byte(node);
            int in_range = names != NULL && (long long)start < until && (long long)start >= names_from && end >= start &&
                           (Py_ssize_t)end <= PyBytes_GET_SIZE(source);
            if (in_range) {
                PyObject *text = cached_bytes(PyBytes_AS_STRING(source) + start, (Py_ssize_t)(end - start));
                int known = text == NULL ? -1 : PySet_Contains(names, text);
                Py_XDECREF(text);
                if (known < 0) goto error;
                if (known) {
                    descend = 1;
                    continue;
                }
            }
            TSFieldId field = ts_tree_cursor_current_field_id(cursor);
            if (skipped_fields[field]) {
                descend = 1;
                continue;
            }
            if (!in_range) {
                event = WALK_HANDLER;
                break;
            }
            if (collecting) collected = collect_identifier(&collect, node, field);
            if (collected == C_STOP) {
                event = WALK_HANDLER;
                break;
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
                else if (wanted == 9) collected = collect_assignment(&collect, node, &skip_until);
                else if (wanted == 10) collected = collect_binding(&collect, node);
                else if (wanted == 11) collected = in_method_at(&collect, node) ? C_DONE : C_STOP;
                else if (wanted == 12) collected = collect_block(&collect, node);
                else if (wanted == 13) collected = collect_op_assignment(&collect, node);
                else if (wanted == 15) collected = collect_block_argument(&collect, node);
                else if (wanted == 17) collected = collect_alias(&collect, node);
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
    if (collect.skip_box != NULL) {
        PyObject *skip = PyLong_FromLongLong(skip_until);
        if (skip == NULL) {
            Py_CLEAR(self->node);
            return NULL;
        }
        PyList_SetItem(collect.skip_box, 0, skip); /* Steals skip. */
    }
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

/* What statement_calls does with a node, by its type's name: looked up by the node's public
 * symbol (``ts_node_symbol``, whose name is ``ts_node_type``'s) in a table made once per
 * language (statement_roles): the same names compared once per symbol of the grammar instead
 * of on every node (ERROR and any symbol past the table are compared by name). */
enum { STATEMENT_OTHER = 0, STATEMENT_NAMESPACE, STATEMENT_IDENTIFIER, STATEMENT_CALL, STATEMENT_CONTAINER };

static int statement_role(const char *type) {
    if (type == NULL) return STATEMENT_OTHER;
    if (is_namespace(type)) return STATEMENT_NAMESPACE;
    if (strcmp(type, "identifier") == 0) return STATEMENT_IDENTIFIER;
    if (strcmp(type, "call") == 0) return STATEMENT_CALL;
    return type_in(type, STATEMENT_CONTAINERS) ? STATEMENT_CONTAINER : STATEMENT_OTHER;
}

/* statement_role of each symbol of ``language`` (their number in *count), made on the first
 * call for a language and kept (again for another language); NULL when out of memory. */
static const unsigned char *statement_roles(const TSLanguage *language, uint32_t *count) {
    static const TSLanguage *made_for = NULL;
    static unsigned char *roles = NULL;
    static uint32_t made_count = 0;
    if (roles == NULL || made_for != language) {
        uint32_t symbols = ts_language_symbol_count(language);
        unsigned char *table = PyMem_Malloc(symbols ? symbols : 1);
        if (table == NULL) return NULL;
        for (uint32_t symbol = 0; symbol < symbols; symbol++) table[symbol] = (unsigned char)statement_role(ts_language_symbol_name(language, (TSSymbol)symbol));
        PyMem_Free(roles);
        roles = table;
        made_for = language;
        made_count = symbols;
    }
    *count = made_count;
    return roles;
}

/* Whether scope index ``scope`` is in ``classes`` (a set of int; all are without it); -1 on an error. */
/* Append ``(start, end, scope)`` of a statement call to ``out``; -1 on error. */
static int append_statement(PyObject *out, TSNode node, long scope) {
    PyObject *items[3] = {PyLong_FromUnsignedLong(ts_node_start_byte(node)), PyLong_FromUnsignedLong(ts_node_end_byte(node)), PyLong_FromLong(scope)};
    PyObject *found = tuple_steal(3, items);
    if (found == NULL) return -1;
    int failed = PyList_Append(out, found);
    Py_DECREF(found);
    return failed ? -1 : 0;
}

/* Whether the ``call`` ``node`` (on nothing, ``self`` or a constant) can give no LoadCall
 * whatever the file holds, as ``loadfacts._foreign_call`` and ``_inherited_call`` read it:
 * its method is named in ``dropped`` (``MIXING_CALLS`` and ``new``: ``call_parts`` gives that
 * name, ``send`` and its kin aside, which are never in the set), or it has a block and no
 * receiver but ``self`` (``_inherited_call`` binds no block) or a name in ``core`` (methods
 * every class has, ``attr_reader``: ``_inherited_call`` leaves those to Ruby; NULL: none),
 * or its receiver is a constant and no argument is a constant, a constant path or ``self``
 * (every operand unknown; the arguments ``send`` shifts are among them). -1 on an error. */
static int gives_no_load_call(TSNode node, TSNode receiver, PyObject *dropped, PyObject *core, PyObject *source, const TSLanguage *language) {
    static TSFieldId method_field = 0, block_field = 0, arguments_field = 0;
    if (method_field == 0) {
        method_field = ts_language_field_id_for_name(language, "method", 6);
        block_field = ts_language_field_id_for_name(language, "block", 5);
        arguments_field = ts_language_field_id_for_name(language, "arguments", 9);
        if (method_field == 0 || block_field == 0 || arguments_field == 0) return 0;
    }
    TSNode method = ts_node_child_by_field_id(node, method_field);
    if (ts_node_is_null(method)) return 0;
    uint32_t start = ts_node_start_byte(method), end = ts_node_end_byte(method);
    if (end < start || (Py_ssize_t)end > PyBytes_GET_SIZE(source)) return 0;
    PyObject *name = decoded_name(PyBytes_AS_STRING(source) + start, (Py_ssize_t)(end - start));
    int named = name == NULL ? -1 : PySet_Contains(dropped, name);
    int on_self = ts_node_is_null(receiver) || type_is(receiver, "self");
    if (named == 0 && on_self && core != NULL) named = PySet_Contains(core, name);
    Py_XDECREF(name);
    if (named) return named;
    if (on_self) return !ts_node_is_null(ts_node_child_by_field_id(node, block_field));
    TSNode arguments = ts_node_child_by_field_id(node, arguments_field);
    uint32_t count = ts_node_is_null(arguments) ? 0 : ts_node_named_child_count(arguments);
    for (uint32_t i = 0; i < count; i++) {
        TSNode argument = ts_node_named_child(arguments, i);
        if (type_is(argument, "constant") || type_is(argument, "scope_resolution") || type_is(argument, "self")) return 0;
    }
    return 1;
}

static int in_classes(PyObject *classes, long scope) {
    if (classes == NULL) return 1;
    if (scope < 0) return 0;
    PyObject *key = PyLong_FromLong(scope);
    if (key == NULL) return -1;
    int found = PySet_Contains(classes, key);
    Py_DECREF(key);
    return found;
}

/* statement_calls(cursor, scopes[, classes[, dropped[, core]]]) -> [(start, end, scope), ...] (calls and bare identifiers)
 *
 * ``loadfacts._foreign_calls``' reading of a tree (the cursor is at its root), in C: from the
 * root, in source order, the statements of statement containers (STATEMENT_CONTAINERS), the
 * body (field ``body``) of each namespace whose start is a key of ``scopes`` (a dict of int to
 * int: the scope index its statements get), a ``call`` or a bare ``identifier`` giving its
 * range and scope. Only the calls ``_foreign_call`` may keep are returned: those without a
 * receiver, with a constant (``constant``, ``scope_resolution``) one or with ``self`` (field
 * ``receiver``); given ``classes`` (a set of the scope indices that are classes), a bare
 * identifier and a call without a receiver or on ``self`` only in a class's body (elsewhere
 * ``_read_statement``, ``_foreign_call`` and ``_inherited_call`` keep none); given ``dropped`` too
 * (a set of method names) and perhaps ``core`` (another), not the calls that can give no
 * LoadCall (gives_no_load_call), nor the bare identifiers named in ``core``. */
static PyObject *statement_calls(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    int fitting = nargs >= 2 && nargs <= 5 && cursor_type != NULL && Py_TYPE(args[0]) == cursor_type && PyDict_Check(args[1]);
    for (Py_ssize_t i = 2; fitting && i < nargs; i++) fitting = PyAnySet_Check(args[i]);
    if (!fitting) {
        PyErr_SetString(PyExc_TypeError, "statement_calls() takes a tree_sitter.TreeCursor, a dict and up to three sets");
        return NULL;
    }
    PyObject *classes = nargs >= 3 ? args[2] : NULL;
    PyObject *dropped = nargs >= 4 ? args[3] : NULL;
    PyObject *core = nargs == 5 ? args[4] : NULL;
    PyObject *source = ((PyTree *)((PyTreeCursor *)args[0])->tree)->source;
    if (source == NULL || !PyBytes_Check(source)) dropped = core = NULL; /* No text to read names from: every call kept. */
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
    TSTreeCursor cursor = {0}; /* Made from the root below; deleting it untouched frees nothing. */
    uint32_t symbol_count = 0;
    const unsigned char *roles = statement_roles(language, &symbol_count);
    if (stack == NULL || roles == NULL) goto nomemory;
    TSNode root = ts_tree_cursor_current_node(&((PyTreeCursor *)args[0])->cursor);
    cursor = ts_tree_cursor_new(root);
    stack[size++] = (Item){root, -1};
    while (size) {
        Item item = stack[--size];
        TSSymbol item_symbol = ts_node_symbol(item.node);
        int role = item_symbol < symbol_count ? roles[item_symbol] : statement_role(ts_node_type(item.node));
        if (role == STATEMENT_NAMESPACE) {
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
        } else if (role == STATEMENT_IDENTIFIER) {
            /* A bare word: a call when the walk read it as one (loadfacts._read_statement). */
            int kept = in_classes(classes, item.scope);
            if (kept < 0) goto error;
            if (!kept) continue;
            if (core != NULL && dropped != NULL) {
                uint32_t start = ts_node_start_byte(item.node), end = ts_node_end_byte(item.node);
                if (end >= start && (Py_ssize_t)end <= PyBytes_GET_SIZE(source)) {
                    PyObject *name = decoded_name(PyBytes_AS_STRING(source) + start, (Py_ssize_t)(end - start));
                    int known = name == NULL ? -1 : PySet_Contains(core, name);
                    Py_XDECREF(name);
                    if (known < 0) goto error;
                    if (known) continue;
                }
            }
            if (append_statement(out, item.node, item.scope) < 0) goto error;
        } else if (role == STATEMENT_CALL) {
            TSNode receiver = ts_node_child_by_field_id(item.node, receiver_field);
            if (!ts_node_is_null(receiver) && !type_is(receiver, "constant") && !type_is(receiver, "scope_resolution") && !type_is(receiver, "self")) continue;
            if (ts_node_is_null(receiver) || type_is(receiver, "self")) {
                int kept = in_classes(classes, item.scope);
                if (kept < 0) goto error;
                if (!kept) continue;
            }
            if (dropped != NULL) {
                int nothing = gives_no_load_call(item.node, receiver, dropped, core, source, language);
                if (nothing < 0) goto error;
                if (nothing) continue;
            }
            if (append_statement(out, item.node, item.scope) < 0) goto error;
        } else if (role == STATEMENT_CONTAINER) {
            /* Its named children that are namespaces, calls or containers, pushed last first. */
            Py_ssize_t count = 0;
            /* One cursor for all (its stack is allocated once), moved as the runtime's moves. */
            ts_tree_cursor_reset(&cursor, item.node);
            if (cursor_first_child((TreeCursor *)&cursor, NULL)) {
                do {
                    TSNode child = ts_tree_cursor_current_node(&cursor);
                    if (!ts_node_is_named(child)) continue;
                    TSSymbol child_symbol = ts_node_symbol(child);
                    if ((child_symbol < symbol_count ? roles[child_symbol] : statement_role(ts_node_type(child))) == STATEMENT_OTHER) continue;
                    if (count == children_capacity) {
                        children_capacity = children_capacity ? children_capacity * 2 : 64;
                        TSNode *grown = PyMem_Realloc(children, (size_t)children_capacity * sizeof(TSNode));
                        if (grown == NULL) goto nomemory;
                        children = grown;
                    }
                    children[count++] = child;
                } while (cursor_next_sibling((TreeCursor *)&cursor));
            }
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
    ts_tree_cursor_delete(&cursor);
    return out;
nomemory:
    PyErr_NoMemory();
error:
    PyMem_Free(stack);
    PyMem_Free(children);
    ts_tree_cursor_delete(&cursor);
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

/* find_words(source, words) -> int: bit i set when ``words[i]`` (bytes of two bytes or more; at
 * most 32 words) occurs in ``source``, as ``words[i] in source`` says. A discovery asked about
 * each of the few words it looks for in every file (loadfacts, computed, rails) with a scan of
 * its own; here the words of three bytes or more are looked for together, in one pass that
 * moves by up to m - 1 bytes at a time (m: the shortest of them), as Wu and Manber's search
 * does: the table ``shift`` gives, for the byte pair ending at the window's last byte, how far
 * the window may move without passing the end of any word's first m bytes (0 where the pair
 * ends those of some word: its candidates are compared there); the words of two bytes are
 * found with memchr. The table is kept for the last tuple of words (discovery passes the same). */
enum { SHIFT_BITS = 12, SHIFT_SIZE = 1 << SHIFT_BITS };
static PyObject *shift_words = NULL; /* The tuple ``shift`` was made for (a reference kept). */
static unsigned char shift[SHIFT_SIZE];
static Py_ssize_t shift_span; /* m */

static inline unsigned pair_slot(unsigned char a, unsigned char b) { return ((unsigned)a << 4 ^ (unsigned)b) & (SHIFT_SIZE - 1); }

static PyObject *find_words(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) > 32) {
        PyErr_SetString(PyExc_TypeError, "find_words() takes bytes and a tuple of at most 32 bytes");
        return NULL;
    }
    PyObject *words = args[1];
    Py_ssize_t count = PyTuple_GET_SIZE(words);
    const unsigned char *word[32];
    Py_ssize_t length[32], span = 0;
    uint32_t pending = 0, found = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(words, i);
        if (!PyBytes_Check(item) || PyBytes_GET_SIZE(item) < 2) {
            PyErr_SetString(PyExc_ValueError, "find_words() looks for words of two bytes or more");
            return NULL;
        }
        word[i] = (const unsigned char *)PyBytes_AS_STRING(item);
        length[i] = PyBytes_GET_SIZE(item);
        if (length[i] >= 3) {
            pending |= 1u << i;
            if (span == 0 || length[i] < span) span = length[i];
        }
    }
    const unsigned char *text = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    for (Py_ssize_t i = 0; i < count; i++) { /* The words of two bytes. */
        if (length[i] != 2) continue;
        for (const unsigned char *at = text, *end = text + size - 1; at < end && (at = memchr(at, word[i][0], (size_t)(end - at))) != NULL; at++) {
            if (at[1] == word[i][1]) {
                found |= 1u << i;
                break;
            }
        }
    }
    if (pending == 0 || size < span) return PyLong_FromUnsignedLong(found);
    if (words != shift_words) {
        memset(shift, (int)(span - 1), sizeof shift);
        for (Py_ssize_t i = 0; i < count; i++) {
            if (length[i] < 3) continue;
            for (Py_ssize_t j = 1; j < span; j++) {
                unsigned slot = pair_slot(word[i][j - 1], word[i][j]);
                if (shift[slot] > span - 1 - j) shift[slot] = (unsigned char)(span - 1 - j);
            }
        }
        Py_XSETREF(shift_words, Py_NewRef(words));
        shift_span = span;
    }
    for (Py_ssize_t at = span - 1; at < size;) { /* ``at``: the window's last byte. */
        unsigned moves = shift[pair_slot(text[at - 1], text[at])];
        if (moves) {
            at += moves;
            continue;
        }
        const unsigned char *window = text + at - (span - 1);
        for (uint32_t candidates = pending; candidates;) {
            int i = __builtin_ctz(candidates);
            candidates &= candidates - 1;
            if (word[i][span - 1] == text[at] && word[i][span - 2] == text[at - 1] && length[i] <= size - (window - text) &&
                memcmp(window, word[i], (size_t)length[i]) == 0) {
                found |= 1u << i;
                pending &= ~(1u << i);
            }
        }
        if (pending == 0) break;
        at++;
    }
    return PyLong_FromUnsignedLong(found);
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
    {"definition_id", (PyCFunction)(void (*)(void))definition_id, METH_FASTCALL, "rdx.model.ids.definition_id from its prefix, in C."},
    {"version", version, METH_NOARGS, "The tree-sitter version this module was built against."},
    {"line_starts", line_starts, METH_O, "rdx.model.text.line_starts, in C."},
    {"find_words", (PyCFunction)(void (*)(void))find_words, METH_FASTCALL, "Which of some words occur in a source, in one pass."},
    {"statement_calls", (PyCFunction)(void (*)(void))statement_calls, METH_FASTCALL, "The calls loadfacts._foreign_calls reads, in C."},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_walk", NULL, 0, methods, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk(void) { return PyModuleDef_Init(&module_def); }
