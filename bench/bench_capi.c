/*
 * bench_capi.c: the timing half of bench/bench_capi.py. It measures, through librdx's C ABI,
 * the per-call cost of rdx_graph_get_declaration (with the rdx_declaration_free that every
 * caller must pair with it), of walking a declaration's ancestors with an iterator (items
 * only, then with each item's name), and of the batch calls that return the names at once
 * (rdx_declaration_ancestor_names, rdx_declaration_member_names, with rdx_string_array_free);
 * members are timed both ways too.
 *
 *     bench_capi ROOT NAME ITERATIONS
 *
 * prints one line of key=value pairs (nanoseconds per operation). It checks every status, so a
 * broken library cannot look fast.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rdx.h"

static void check(rdx_status_t status, const char *what) {
    if (status != RDX_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, rdx_status_name(status), rdx_last_error_message());
        exit(1);
    }
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One lookup as a C caller does it: get, then release the handle. */
static double get_declaration(rdx_graph_t *graph, const char *name, int n, double *free_share) {
    double get_total = 0, start = now_ns();
    for (int i = 0; i < n; i++) {
        rdx_declaration_t *decl;
        double t0 = now_ns();
        check(rdx_graph_get_declaration(graph, name, RDX_NTS, &decl), "get_declaration");
        get_total += now_ns() - t0;
        check(rdx_declaration_free(decl), "declaration_free");
    }
    double total = now_ns() - start;
    *free_share = (total - get_total) / n;
    return get_total / n;
}

/* Walk the ancestors: make the iterator, take every item (releasing each), free the iterator. */
static double ancestors(rdx_declaration_t *decl, int n, size_t *count) {
    double start = now_ns();
    for (int i = 0; i < n; i++) {
        rdx_declaration_iter_t *it;
        rdx_declaration_t *item;
        rdx_status_t st;
        size_t seen = 0;
        check(rdx_declaration_ancestors(decl, &it), "ancestors");
        while ((st = rdx_declaration_iter_next(it, &item)) == RDX_OK) {
            seen++;
            check(rdx_declaration_free(item), "declaration_free");
        }
        if (st != RDX_DONE) check(st, "iter_next");
        check(rdx_declaration_iter_free(it), "iter_free");
        *count = seen;
    }
    return (now_ns() - start) / n;
}

/* The same walk, fetching each item's name as a caller that wants names must. */
static double names_by_iterator(rdx_declaration_t *decl, rdx_status_t (*list)(rdx_declaration_t *, rdx_declaration_iter_t **),
                                int n, size_t *count) {
    double start = now_ns();
    for (int i = 0; i < n; i++) {
        rdx_declaration_iter_t *it;
        rdx_declaration_t *item;
        rdx_status_t st;
        size_t seen = 0;
        check(list(decl, &it), "list");
        while ((st = rdx_declaration_iter_next(it, &item)) == RDX_OK) {
            char *name;
            check(rdx_declaration_name(item, &name), "declaration_name");
            seen += name[0] != '\0';
            rdx_string_free(name);
            check(rdx_declaration_free(item), "declaration_free");
        }
        if (st != RDX_DONE) check(st, "iter_next");
        check(rdx_declaration_iter_free(it), "iter_free");
        *count = seen;
    }
    return (now_ns() - start) / n;
}

/* The batch call: every name in one call, released with one rdx_string_array_free. */
static double names_by_batch(rdx_declaration_t *decl, rdx_status_t (*names_of)(rdx_declaration_t *, char ***, size_t *), int n,
                             size_t *count) {
    double start = now_ns();
    for (int i = 0; i < n; i++) {
        char **names;
        size_t total, seen = 0;
        check(names_of(decl, &names, &total), "names");
        for (size_t k = 0; k < total; k++) seen += names[k][0] != '\0';
        rdx_string_array_free(names, total);
        *count = seen;
    }
    return (now_ns() - start) / n;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s ROOT NAME ITERATIONS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[3]);
    rdx_graph_t *graph;
    check(rdx_graph_new(&graph), "graph_new");
    const char *roots[] = {argv[1]};
    double t0 = now_ns();
    check(rdx_graph_index_all(graph, roots, NULL, 1, 0, NULL), "index_all");
    check(rdx_graph_resolve(graph), "resolve");
    double index_s = (now_ns() - t0) / 1e9;

    double free_ns;
    get_declaration(graph, argv[2], n / 10 + 1, &free_ns); /* warm-up */
    double get_ns = get_declaration(graph, argv[2], n, &free_ns);

    rdx_declaration_t *decl;
    check(rdx_graph_get_declaration(graph, argv[2], RDX_NTS, &decl), "get_declaration");
    size_t count = 0;
    ancestors(decl, n / 10 + 1, &count); /* warm-up */
    double walk_ns = ancestors(decl, n, &count);

    /* Names: per item through the iterator, then in one batch call; both must see every name. */
    size_t by_iter = 0, by_batch = 0, members_iter = 0, members_batch = 0;
    names_by_iterator(decl, rdx_declaration_ancestors, n / 10 + 1, &by_iter); /* warm-up */
    double names_iter_ns = names_by_iterator(decl, rdx_declaration_ancestors, n, &by_iter);
    names_by_batch(decl, rdx_declaration_ancestor_names, n / 10 + 1, &by_batch);
    double names_batch_ns = names_by_batch(decl, rdx_declaration_ancestor_names, n, &by_batch);
    names_by_iterator(decl, rdx_declaration_members, n / 10 + 1, &members_iter);
    double members_iter_ns = names_by_iterator(decl, rdx_declaration_members, n, &members_iter);
    names_by_batch(decl, rdx_declaration_member_names, n / 10 + 1, &members_batch);
    double members_batch_ns = names_by_batch(decl, rdx_declaration_member_names, n, &members_batch);
    if (by_iter != count || by_batch != count || members_batch != members_iter) {
        fprintf(stderr, "names: %zu ancestors, %zu names by iterator, %zu by batch; members %zu vs %zu\n", count, by_iter, by_batch,
                members_iter, members_batch);
        return 1;
    }
    check(rdx_declaration_free(decl), "declaration_free");
    check(rdx_graph_free(graph), "graph_free");
    printf("index_s=%.3f get_ns=%.1f free_ns=%.1f ancestors_ns=%.1f ancestors=%zu ancestor_names_iter_ns=%.1f "
           "ancestor_names_batch_ns=%.1f members=%zu member_names_iter_ns=%.1f member_names_batch_ns=%.1f\n",
           index_s, get_ns, free_ns, walk_ns, count, names_iter_ns, names_batch_ns, members_iter, members_iter_ns,
           members_batch_ns);
    return 0;
}
