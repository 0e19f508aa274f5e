/** @file
 * Table documents for the loader tests (tests/test_libpmucal.c, tests/test_libpmucal_units.c):
 * a case is a base document with one piece of text replaced, and `--dump-cases DIR` writes each
 * one out with an index line, so that other readers (python/tests) are checked against the
 * very same documents.
 */
#ifndef PMUCAL_TESTS_TABLE_CASES_H
#define PMUCAL_TESTS_TABLE_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/** @p base with its first occurrence of @p from replaced by @p to: a new string (free()),
 *  NULL when @p from does not occur. *@p len gets its length. */
char *table_case_doc(const char *base, const char *from, const char *to, size_t *len);

/** One test's cases of one loader: case @p i is made by @p make (a new string, free(); its
 *  length, whether it must load and its name through the pointers). */
struct table_case_set {
        const char *prefix; /* file names PREFIX-NN.json */
        const char *loader; /* "latency" or "tlb" */
        size_t      n;
        char      *(*make)(size_t i, size_t *len, bool *ok, const char **name);
};

/** --dump-cases DIR: every case of @p sets written to DIR/PREFIX-NN.json, and the index
 *  DIR/@p tsv, a line "FILE\tLOADER\t1|0\tNAME" a case (1: it must load). 0, or 1 after
 *  printing why. */
int table_cases_dump(const char *dir, const char *tsv, const struct table_case_set *sets,
                     size_t n_sets);

#endif
