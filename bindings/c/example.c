/*
 * example.c: a small C program using librdx. It indexes the directories given on the command
 * line (or, without arguments, a built-in Ruby snippet), then prints the ancestors of a
 * declaration and every constant reference with what it resolves to.
 *
 *     make capi
 *     gcc -std=c11 -Wall -I bindings bindings/c/example.c -L bindings/build -lrdx \
 *         -Wl,-rpath,"$PWD/bindings/build" -o example
 *     ./example                                  # the built-in snippet
 *     ./example rdx/data/example Shop::Models::Product
 *
 * Every call returns a status; on failure the program prints rdx_last_error_message() and
 * stops. Every handle and string it receives is released with the matching _free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx.h"

static const char SNIPPET[] =
    "module Greeting\n"
    "  def greet = \"hello #{name}\"\n"
    "end\n"
    "\n"
    "class Animal\n"
    "  attr_reader :name\n"
    "end\n"
    "\n"
    "# A dog says hello.\n"
    "class Dog < Animal\n"
    "  include Greeting\n"
    "  BREEDS = [Animal, Greeting].freeze\n"
    "end\n";

/* Stop with the library's explanation when a call fails. */
static void check(rdx_status_t status, const char *what) {
    if (status != RDX_OK) {
        fprintf(stderr, "%s failed: %s: %s\n", what, rdx_status_name(status), rdx_last_error_message());
        exit(1);
    }
}

static void print_location(const rdx_location_t *loc) {
    printf("%s:%u:%u-%u:%u", loc->path, loc->start_line, loc->start_column, loc->end_line, loc->end_column);
}

int main(int argc, char **argv) {
    if (rdx_abi_version() != RDX_ABI_VERSION) {
        fprintf(stderr, "librdx has ABI %d, this program was built for %d\n", rdx_abi_version(), RDX_ABI_VERSION);
        return 1;
    }
    rdx_graph_t *graph;
    check(rdx_graph_new(&graph), "rdx_graph_new");

    const char *name = "Dog";
    if (argc > 1) {
        const char *paths[1] = {argv[1]};
        size_t problems = 0;
        check(rdx_graph_index_all(graph, paths, NULL, 1, 0, &problems), "rdx_graph_index_all");
        printf("indexed %s (%zu problems)\n", argv[1], problems);
        if (argc > 2) {
            name = argv[2];
        }
    } else {
        check(rdx_graph_index_source(graph, "file:///snippet.rb", RDX_NTS, SNIPPET, sizeof SNIPPET - 1, NULL),
              "rdx_graph_index_source");
    }
    check(rdx_graph_resolve(graph), "rdx_graph_resolve");

    /* A declaration, its kind and its ancestors. */
    rdx_declaration_t *decl;
    check(rdx_graph_get_declaration(graph, name, RDX_NTS, &decl), "rdx_graph_get_declaration");
    const char *kind;
    check(rdx_declaration_kind(decl, &kind), "rdx_declaration_kind");
    printf("%s is a %s\nancestors:", name, kind);

    rdx_declaration_iter_t *ancestors;
    check(rdx_declaration_ancestors(decl, &ancestors), "rdx_declaration_ancestors");
    rdx_declaration_t *ancestor;
    rdx_status_t status;
    while ((status = rdx_declaration_iter_next(ancestors, &ancestor)) == RDX_OK) {
        char *ancestor_name;
        check(rdx_declaration_name(ancestor, &ancestor_name), "rdx_declaration_name");
        printf(" %s", ancestor_name);
        rdx_string_free(ancestor_name);
        rdx_declaration_free(ancestor);
    }
    if (status != RDX_DONE) {
        check(status, "rdx_declaration_iter_next");
    }
    printf("\n");
    rdx_declaration_iter_free(ancestors);

    /* Where it is defined, with the comments above each definition. */
    rdx_definition_iter_t *definitions;
    check(rdx_declaration_definitions(decl, &definitions), "rdx_declaration_definitions");
    rdx_definition_t *definition;
    while (rdx_definition_iter_next(definitions, &definition) == RDX_OK) {
        rdx_location_t loc;
        check(rdx_definition_location(definition, &loc), "rdx_definition_location");
        printf("defined at ");
        print_location(&loc);
        printf("\n");
        rdx_location_free(&loc);
        char **comments;
        size_t count;
        check(rdx_definition_comments(definition, &comments, &count), "rdx_definition_comments");
        for (size_t i = 0; i < count; i++) {
            printf("  %s\n", comments[i]);
        }
        rdx_string_array_free(comments, count);
        rdx_definition_free(definition);
    }
    rdx_definition_iter_free(definitions);
    rdx_declaration_free(decl);

    /* Every constant reference outside Ruby core, and its target. */
    rdx_constant_reference_iter_t *refs;
    check(rdx_graph_constant_references(graph, &refs), "rdx_graph_constant_references");
    rdx_constant_reference_t *ref;
    while (rdx_constant_reference_iter_next(refs, &ref) == RDX_OK) {
        rdx_location_t loc;
        check(rdx_constant_reference_location(ref, &loc), "rdx_constant_reference_location");
        if (strncmp(loc.uri, "rdx-core:", 9) != 0) {
            char *ref_name;
            check(rdx_constant_reference_name(ref, &ref_name), "rdx_constant_reference_name");
            printf("reference %s at ", ref_name);
            print_location(&loc);
            rdx_declaration_t *target;
            if (rdx_constant_reference_declaration(ref, &target) == RDX_OK) {
                char *target_name;
                check(rdx_declaration_name(target, &target_name), "rdx_declaration_name");
                printf(" -> %s\n", target_name);
                rdx_string_free(target_name);
                rdx_declaration_free(target);
            } else {
                printf(" -> (unresolved)\n");
            }
            rdx_string_free(ref_name);
        }
        rdx_location_free(&loc);
        rdx_constant_reference_free(ref);
    }
    rdx_constant_reference_iter_free(refs);

    check(rdx_graph_free(graph), "rdx_graph_free");
    return 0;
}
