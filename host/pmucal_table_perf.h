/** @file pmucal-table report's input: one sampled load from a line of `perf script` or of
 *  `perf mem report -D`, as perf prints them (host/pmucal_table_perf.c).
 *
 *  `perf script` (tools/perf/builtin-script.c prints its fields in a fixed order, whatever
 *  the -F order: [comm tid cpu time: period event:] addr, data_src with its decoded text
 *  ("|OP LOAD|LVL L1 hit|...|BLK  N/A"), weight, ip, sym): the decoded text anchors the line;
 *  the hex value before it is data_src and the one before that addr; the first decimal after
 *  its last part is the weight, then ip, and the symbol is the rest of the line (C++ names
 *  and "operator new(unsigned long)" hold blanks). Without data_src (--fields without it):
 *  the first "[addr] weight ip" run from the left, the symbol again the rest of the line.
 *
 *  `perf mem report -D` (dump_raw_samples in tools/perf/builtin-mem.c): a "# PID, TID, IP,
 *  ADDR, [PHYS ADDR, ][DATA PAGE SIZE, ]LOCAL WEIGHT, DSRC, SYMBOL" header, then per sample
 *  "PID TID 0xIP 0xADDR [0xPHYS] [PAGE] WEIGHT 0xDSRC DSO:SYMBOL", blank-separated and padded,
 *  or separated by the one character given to -x. Blank-separated ADDR is printed with the
 *  format "0x016%" PRIx64 there, a literal "016" before the unpadded address: an ADDR token
 *  starting "0x016" that is not 18 characters long ("0x" and 16 digits, the padded form of
 *  older perf) has that "016" dropped. The symbol is what follows the DSO's first ':'. A
 *  header line, or a first sample line of two decimals and two 0x-numbers, selects the form
 *  for the whole input. */
#ifndef PMUCAL_TABLE_PERF_H
#define PMUCAL_TABLE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum perf_form {
        PERF_FORM_UNKNOWN = 0, /* not decided: the first sample line decides */
        PERF_FORM_SCRIPT,      /* perf script */
        PERF_FORM_MEM_RAW,     /* perf mem report -D */
};

/** How the lines are read: set once, updated by header lines. */
struct perf_input {
        enum perf_form form;
        bool           have_addr, have_src; /* perf script: --fields has addr, data_src */
        char           sep;                 /* perf mem -D: ' ' (blanks) or -x's character */
        unsigned       n_extra;             /* perf mem -D: PHYS ADDR and DATA PAGE SIZE columns */
        bool           extra_known;         /* n_extra comes from a header */
};

/** One sample; the symbol points into the line. */
struct perf_sample {
        bool        has_weight, has_addr, has_src;
        double      weight;   /* the decimal as written (digits only) */
        uint64_t    addr, data_src;
        const char *sym;      /* NULL: none */
        size_t      sym_len;
};

enum perf_line {
        PERF_LINE_SKIP = 0,   /* blank, a comment or a header */
        PERF_LINE_SAMPLE,     /* a sample (perhaps without a weight: has_weight false) */
};

/** Read line @p line (@p len bytes, no newline) into @p s. */
enum perf_line cli_perf_line_parse(struct perf_input *in, const char *line, size_t len,
                               struct perf_sample *s);

#endif
