/** @file The empty symbol table: host builds and the first link pass (see sample.h). */
#include "pmu/sample.h"

const struct pmu_sym pmu_harness_syms[1] = { { 0, NULL } };
const size_t         pmu_harness_n_syms  = 0;
