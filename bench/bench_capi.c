/*
 * bench_capi.c: the timing half of bench/bench_capi.py. It measures, through librdx's C ABI,
 * the per-call cost of rdx_graph_get_declaration (with the rdx_declaration_free that every
 * caller must pair with it) and of walking a declaration's ancestors with an iterator.
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
    check(rdx_declaration_free(decl), "declaration_free");
    check(rdx_graph_free(graph), "graph_free");
    printf("index_s=%.3f get_ns=%.1f free_ns=%.1f ancestors_ns=%.1f ancestors=%zu\n", index_s, get_ns, free_ns, walk_ns, count);
    return 0;
}
