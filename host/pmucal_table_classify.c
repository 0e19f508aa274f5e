/** @file pmucal-table classify and classify-tlb: latencies from the command line, or one per
 *  line from standard input ('-'), each printed with its level or TLB class. The stream is
 *  read in large blocks, parsed without libc's strtod on the common path and written through
 *  one buffer, so a file of samples goes at tens of millions of lines a second. Every input
 *  line gives one output line, in order, so that the output joins the input line by line: a
 *  line without a latency gives the placeholder PLACEHOLDER (a bad one with its reason on
 *  stderr, the first MAX_REPORTED of them). From a pipe or a terminal the output is flushed
 *  after every read, i.e. per line when the lines come one at a time. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/pmucal_table.h"

#define IN_BYTES     (1u << 20)
#define OUT_BYTES    (1u << 20)
#define MAX_REPORTED 20
#define PLACEHOLDER  "-" /* the bucket of a line without a latency */

/* PLACEHOLDER with the 32 bytes of slack out_line copies */
static const char placeholder[33] = PLACEHOLDER;

/* What a line is sorted into: a latency table's levels or one TLB curve's classes. */
struct sorter {
        const struct pmucal_table *t;
        const struct pmucal_tlb   *k;
        enum pmucal_tlb_side       side;
        uint64_t                   page_bytes;
        const char                *path;
        enum pmucal_unit           dflt;
        unsigned                   field;      /* 0: the whole line; else its N-th field */
        bool                       interactive;/* stdin is a pipe or a terminal */
        const char                *names[260]; /* escaped level/class names, [0] = beyond */
        size_t                     name_len[260];
};

/* The name of result @p r (a level or class index, or PMUCAL_LEVEL_BEYOND). */
static const char *name_of(const struct sorter *s, int r, size_t *len)
{
        *len = s->name_len[r + 1];
        return s->names[r + 1];
}

/* A copy with 32 readable bytes after its end (out_line copies 32 at a time). */
static char *dup_slack(const char *s)
{
        size_t n = strlen(s);
        char  *d = calloc(1, n + 33);

        return d ? memcpy(d, s, n) : NULL;
}

static void set_names(struct sorter *s)
{
        size_t n = 0;

        s->names[0] = "beyond\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
        if (s->t)
                for (; n < s->t->n_levels && n + 1 < 260; n++)
                        s->names[n + 1] = dup_slack(cli_esc(s->t->levels[n].name));
        if (s->k) {
                const struct pmucal_tlb_curve *cv;
                pmucal_tlb_find_curve(s->k, s->side, s->page_bytes, &cv);
                for (; n < cv->n_classes && n + 1 < 260; n++)
                        s->names[n + 1] = dup_slack(cli_esc(cv->classes[n].label));
        }
        for (size_t i = 0; i <= n; i++)
                s->name_len[i] = s->names[i] ? strlen(s->names[i]) : 0;
}

static void free_names(struct sorter *s)
{
        for (size_t i = 1; i < 260; i++)
                free((char *)s->names[i]);
}

static enum pmucal_err sort_one(const struct sorter *s, double v, enum pmucal_unit u, int *r)
{
        const struct pmucal_tlb_class *c;
        enum pmucal_err                e;

        if (s->t)
                return pmucal_table_classify(s->t, v, u, r);
        if ((e = pmucal_tlb_classify(s->k, s->side, s->page_bytes, v, u, &c)) == PMUCAL_OK) {
                const struct pmucal_tlb_curve *cv;
                pmucal_tlb_find_curve(s->k, s->side, s->page_bytes, &cv);
                *r = (int)(c - cv->classes);
        }
        return e;
}

static const char *why(enum pmucal_err e, enum pmucal_unit u)
{
        if (e == PMUCAL_E_NO_RATIO)
                return u == PMUCAL_UNIT_CORE
                        ? "core cycles: this table has no core:TSC ratio (no counter read the core "
                          "clock and no estimate was recorded); give the core clock the samples "
                          "ran at with --core-ghz GHZ, or classify in ns or TSC ticks (--unit ns)"
                        : u == PMUCAL_UNIT_NS ? "ns: this table has no TSC rate to convert its "
                                                "ticks; classify in TSC ticks (--unit tsc)"
                                              : "this table cannot convert that unit";
        return e == PMUCAL_E_RANGE ? "not a finite non-negative latency" : pmucal_strerror(e);
}

/* Why the text of a latency that cli_parse_latency refused is not one: NaN, infinite,
 * negative and too large each by name. */
static const char *bad_reason(const char *p, size_t len)
{
        char   buf[96], *end;
        size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
        double v;

        memcpy(buf, p, n);
        buf[n] = '\0';
        for (size_t k = n; k > 0 && isalpha((unsigned char)buf[k - 1]); k--) /* a unit suffix */
                if (!strcmp(buf + k - 1, "ns") || !strcmp(buf + k - 1, "tsc") ||
                    !strcmp(buf + k - 1, "core")) {
                        buf[k - 1] = '\0';
                        break;
                }
        errno = 0;
        v     = strtod(buf, &end);
        while (*end == ' ' || *end == '\t')
                end++;
        if (end == buf || *end)
                return "not a number with an optional unit suffix (12.5, 12.5ns, 40tsc, 60core)";
        if (isnan(v))
                return "NaN is not a latency";
        if (v < 0 || (v == 0 && signbit(v) && buf[0] == '-'))
                return "a negative latency";
        if (isinf(v) && errno != ERANGE)
                return "an infinite latency";
        if (isinf(v) || errno == ERANGE)
                return "too large: beyond the range of a double";
        return "not a plain decimal latency (no sign, no hex)";
}

/* Latencies given as arguments: all parsed first (a malformed one is a usage error). */
static int sort_args(const struct sorter *s, int n, char **lat)
{
        for (int i = 0; i < n; i++) {
                double           v;
                enum pmucal_unit u;
                if (!cli_parse_latency(lat[i], strlen(lat[i]), s->dflt, &v, &u)) {
                        fprintf(stderr, "pmucal-table: latency \"%s\": %s\n", cli_esc(lat[i]),
                                bad_reason(lat[i], strlen(lat[i])));
                        return EXIT_USAGE;
                }
        }
        for (int i = 0; i < n; i++) {
                double           v;
                enum pmucal_unit u;
                int              r;
                size_t           len;
                enum pmucal_err  e;

                cli_parse_latency(lat[i], strlen(lat[i]), s->dflt, &v, &u);
                if ((e = sort_one(s, v, u, &r)) != PMUCAL_OK) {
                        fprintf(stderr, "pmucal-table: %s: %s: %s\n", cli_esc(s->path), cli_esc(lat[i]),
                                why(e, u));
                        return EXIT_BAD;
                }
                printf("%s %s\n", cli_esc(lat[i]), name_of(s, r, &len));
        }
        return 0;
}

struct out {
        char  *p;
        size_t n;
};

/* Copy @p n bytes; short ones with one fixed-size copy into the buffer's slack (the bytes
 * past n are overwritten by the next copy), which beats a libc call per field. */
static inline char *put(char *d, const char *s, size_t n)
{
        if (n <= 32)
                memcpy(d, s, 32);
        else
                memcpy(d, s, n);
        return d + n;
}

/* "TOKEN NAME\n"; the input buffer and the names have 32 bytes of slack after them. */
static void out_line(struct out *o, const char *tok, size_t len, const char *name, size_t nlen)
{
        char *d;

        if (o->n + len + nlen + 2 + 64 > OUT_BYTES) {
                fwrite(o->p, 1, o->n, stdout);
                o->n = 0;
        }
        d = o->p + o->n;
        if (len) {
                d    = put(d, tok, len);
                *d++ = ' ';
        }
        d    = put(d, name, nlen);
        *d++ = '\n';
        o->n = (size_t)(d - o->p);
}

/* Lines parsed but not yet sorted: sorted a batch at a time, one library call per unit. */
#define BATCH 8192
enum line_state { L_SORT = 0, L_EMPTY, L_BAD };

struct batch {
        const char      *tok[BATCH];
        uint32_t         len[BATCH];
        uint8_t          state[BATCH];
        unsigned long    no[BATCH];
        double           v[BATCH];
        enum pmucal_unit unit[BATCH];
        size_t           n;
        double           vals[BATCH];
        int              res[BATCH], idx[BATCH];
};

static void report_bad(unsigned long *bad, unsigned long no, const char *p, size_t len,
                       const char *what)
{
        char text[256];

        if (++*bad > MAX_REPORTED)
                return;
        snprintf(text, sizeof(text), "%.*s", (int)(len < 200 ? len : 200), p);
        fprintf(stderr, "pmucal-table: <stdin>:%lu: \"%s\": %s; output \"%s\"\n", no, cli_esc(text),
                what, PLACEHOLDER);
}

/* Sort the batch: for each unit, its latencies in one batch call; then print in order. */
static void flush(const struct sorter *s, struct batch *b, struct out *o, unsigned long *bad)
{
        for (int u = PMUCAL_UNIT_TABLE; u <= PMUCAL_UNIT_NS; u++) {
                size_t          m = 0;
                enum pmucal_err e;
                for (size_t i = 0; i < b->n; i++)
                        if (b->state[i] == L_SORT && b->unit[i] == (enum pmucal_unit)u) {
                                b->idx[m]    = (int)i;
                                b->vals[m++] = b->v[i];
                        }
                if (!m)
                        continue;
                e = s->t ? pmucal_table_classify_batch(s->t, b->vals, m, (enum pmucal_unit)u, b->res, NULL)
                         : pmucal_tlb_classify_batch(s->k, s->side, s->page_bytes, b->vals, m,
                                                     (enum pmucal_unit)u, b->res, NULL);
                for (size_t j = 0; j < m; j++) /* INVALID marks a line; so does a unit error */
                        b->res[j] = e == PMUCAL_OK ? b->res[j] : -10 - (int)e;
                for (size_t j = 0; j < m; j++)
                        b->vals[j] = b->res[j]; /* park the result by its line */
                for (size_t j = 0; j < m; j++)
                        b->v[b->idx[j]] = b->vals[j];
        }
        for (size_t i = 0; i < b->n; i++) {
                int    r = (int)b->v[i];
                size_t nlen;
                if (b->state[i] != L_SORT) {
                        out_line(o, b->tok[i], b->len[i], placeholder, sizeof(PLACEHOLDER) - 1);
                        continue;
                }
                if (r == PMUCAL_LEVEL_INVALID || r <= -10) {
                        enum pmucal_err e = r <= -10 ? (enum pmucal_err)(-10 - r) : PMUCAL_E_RANGE;
                        report_bad(bad, b->no[i], b->tok[i], b->len[i], why(e, b->unit[i]));
                        out_line(o, b->tok[i], b->len[i], placeholder, sizeof(PLACEHOLDER) - 1);
                        continue;
                }
                const char *name = name_of(s, r, &nlen);
                out_line(o, b->tok[i], b->len[i], name, nlen);
        }
        b->n = 0;
}

/* Field @p k (1-based) of [p, end), blank-separated; false when the line has fewer. */
static bool nth_field(const char **p, const char **end, unsigned k)
{
        const char *q = *p;

        for (;;) {
                while (q < *end && (*q == ' ' || *q == '\t'))
                        q++;
                if (q == *end)
                        return false;
                const char *f = q;
                while (q < *end && *q != ' ' && *q != '\t')
                        q++;
                if (--k == 0) {
                        *p   = f;
                        *end = q;
                        return true;
                }
        }
}

/* One line of the stream (without its newline): parsed into the batch as a latency to sort,
 * a line without one (blank, '#'), or a bad one (reported now, output in its place). */
static void take_line(const struct sorter *s, struct batch *b, const char *line, size_t len,
                      unsigned long no, unsigned long *bad)
{
        const char *p = line, *end = line + len;
        size_t      i = b->n++;

        while (p < end && (*p == ' ' || *p == '\t'))
                p++;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                end--;
        b->tok[i]   = p;
        b->len[i]   = 0;
        b->no[i]    = no;
        b->state[i] = L_EMPTY;
        if (p == end || *p == '#')
                return; /* blank lines and comments: the placeholder alone */
        if (s->field && !nth_field(&p, &end, s->field)) {
                report_bad(bad, no, p, (size_t)(end - p), "has no such field (--field)");
                b->state[i] = L_BAD;
                return;
        }
        b->tok[i] = p;
        b->len[i] = (uint32_t)(end - p);
        if (!cli_parse_latency(p, (size_t)(end - p), s->dflt, &b->v[i], &b->unit[i])) {
                report_bad(bad, no, p, (size_t)(end - p), bad_reason(p, (size_t)(end - p)));
                b->state[i] = L_BAD;
                return;
        }
        b->state[i] = L_SORT;
}

/* Latencies from standard input, one per line. A line longer than the input buffer (1 MiB)
 * is one bad line. */
static int sort_stream(const struct sorter *s)
{
        char         *in = calloc(1, IN_BYTES + 32); /* 32 bytes of slack for out_line */
        struct out    o  = { malloc(OUT_BYTES), 0 };
        struct batch *b  = malloc(sizeof(*b));
        size_t        have = 0;
        unsigned long no = 0, bad = 0;
        bool          skipping = false; /* inside a line that was too long */
        ssize_t       k;

        if (!in || !o.p || !b) {
                free(in);
                free(o.p);
                free(b);
                fprintf(stderr, "pmucal-table: out of memory\n");
                return EXIT_BAD;
        }
        b->n = 0;
        do {
                k = read(0, in + have, IN_BYTES - have);
                if (k < 0) {
                        perror("pmucal-table: reading standard input");
                        bad++;
                        break;
                }
                have += (size_t)k;
                char *p = in, *nl, *end = in + have;
                if (skipping && (nl = memchr(p, '\n', have))) {
                        p        = nl + 1;
                        skipping = false;
                } else if (skipping) {
                        p = end;
                }
                while (!skipping && (nl = memchr(p, '\n', (size_t)(end - p)))) {
                        take_line(s, b, p, (size_t)(nl - p), ++no, &bad);
                        if (b->n == BATCH)
                                flush(s, b, &o, &bad);
                        p = nl + 1;
                }
                if (!skipping && k == 0 && p < end) { /* the last line has no newline */
                        take_line(s, b, p, (size_t)(end - p), ++no, &bad);
                        p = end;
                }
                flush(s, b, &o, &bad); /* the lines point into the buffer: sort them now */
                if (s->interactive && o.n) { /* a pipe or a terminal: each read's lines now */
                        fwrite(o.p, 1, o.n, stdout);
                        fflush(stdout);
                        o.n = 0;
                }
                if (!skipping && p == in && have == IN_BYTES) {
                        report_bad(&bad, ++no, "", 0, "longer than 1 MiB");
                        out_line(&o, "", 0, placeholder, sizeof(PLACEHOLDER) - 1);
                        skipping = true;
                        p        = end;
                }
                have = (size_t)(end - p);
                memmove(in, p, have);
        } while (k > 0);
        fwrite(o.p, 1, o.n, stdout);
        fflush(stdout);
        if (bad > MAX_REPORTED)
                fprintf(stderr, "pmucal-table: ... and %lu more bad lines\n", bad - MAX_REPORTED);
        if (bad)
                fprintf(stderr, "pmucal-table: %lu of %lu lines were not latencies (output \"%s\")\n",
                        bad, no, PLACEHOLDER);
        free(in);
        free(o.p);
        free(b);
        return bad ? EXIT_FOUND : 0;
}

/* The leading options: --unit U, --core-ghz G (latency tables), --field N; returns the index
 * of the first other argument, or -1 (printed). */
static int sort_opts(int argc, char **argv, struct sorter *s, const char **core_ghz)
{
        int i = 0;

        s->dflt   = PMUCAL_UNIT_TABLE;
        *core_ghz = NULL;
        while (i + 1 < argc && !strncmp(argv[i], "--", 2)) {
                if (!strcmp(argv[i], "--unit")) {
                        if (!cli_parse_unit(argv[i + 1], &s->dflt)) {
                                fprintf(stderr, "pmucal-table: --unit \"%s\" is not table, tsc, core "
                                                "or ns\n", cli_esc(argv[i + 1]));
                                return -1;
                        }
                } else if (!strcmp(argv[i], "--core-ghz")) {
                        *core_ghz = argv[i + 1];
                } else if (!strcmp(argv[i], "--field")) {
                        char         *end;
                        unsigned long k = strtoul(argv[i + 1], &end, 10);
                        if (*end || end == argv[i + 1] || !k || k > 4096) {
                                fprintf(stderr, "pmucal-table: --field \"%s\" is not a field number "
                                                "1..4096\n", cli_esc(argv[i + 1]));
                                return -1;
                        }
                        s->field = (unsigned)k;
                } else {
                        break;
                }
                i += 2;
        }
        return i;
}

/* Whether the table can serve the default unit at all: checked before a stream is read, so
 * that a unit it cannot serve fails at once with the fix, not once per line. */
static int unit_served(const struct sorter *s)
{
        const struct pmucal_tlb_class *c;
        enum pmucal_err                e;
        int                            lvl;

        e = s->t ? pmucal_table_classify(s->t, 0, s->dflt, &lvl)
                 : pmucal_tlb_classify(s->k, s->side, s->page_bytes, 0, s->dflt, &c);
        if (e == PMUCAL_OK)
                return 0;
        fprintf(stderr, "pmucal-table: %s: --unit %s: %s\n", cli_esc(s->path),
                pmucal_unit_name(s->dflt), why(e, s->dflt));
        return EXIT_BAD;
}

static bool stdin_interactive(void)
{
        struct stat st;

        return isatty(0) || (!fstat(0, &st) && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));
}

static int run(struct sorter *s, int n, char **lat)
{
        int rc;

        if (n == 1 && !strcmp(lat[0], "-") && (rc = unit_served(s)))
                return rc;
        set_names(s);
        s->interactive = stdin_interactive();
        rc = n == 1 && !strcmp(lat[0], "-") ? sort_stream(s) : sort_args(s, n, lat);
        free_names(s);
        return rc;
}

int cmd_classify(int argc, char **argv)
{
        struct sorter s = { 0 };
        const char   *ghz;
        int           i = sort_opts(argc, argv, &s, &ghz), rc;

        if (i < 0)
                return EXIT_USAGE;
        if (argc - i < 2) {
                fprintf(stderr, "pmucal-table: classify: wrong number of arguments ([--unit U] "
                                "[--core-ghz G] [--field N] FILE LATENCY...|-)\n");
                return EXIT_USAGE;
        }
        s.path = argv[i];
        if (!(s.t = cli_load_table(s.path)))
                return EXIT_BAD;
        if (ghz && (rc = cli_core_ghz(s.path, (struct pmucal_table *)s.t, ghz))) {
                pmucal_table_free((struct pmucal_table *)s.t);
                return rc;
        }
        rc = run(&s, argc - i - 1, argv + i + 1);
        pmucal_table_free((struct pmucal_table *)s.t);
        return rc;
}

/* "dtlb:4k", "itlb:2m", "1g" (dtlb), or a byte count; 0 when malformed. */
static uint64_t parse_page(const char *a, enum pmucal_tlb_side *side)
{
        char    *end;
        uint64_t v;

        *side = PMUCAL_TLB_DTLB;
        if (!strncmp(a, "dtlb:", 5) || !strncmp(a, "itlb:", 5)) {
                *side = a[0] == 'i' ? PMUCAL_TLB_ITLB : PMUCAL_TLB_DTLB;
                a += 5;
        }
        if (!strcmp(a, "4k"))
                return 4096;
        if (!strcmp(a, "2m"))
                return 2u << 20;
        if (!strcmp(a, "1g"))
                return 1u << 30;
        v = strtoull(a, &end, 0);
        return end != a && !*end && (v == 4096 || v == 2u << 20 || v == 1u << 30) ? v : 0;
}

int cmd_classify_tlb(int argc, char **argv)
{
        struct sorter                  s = { 0 };
        const struct pmucal_tlb_curve *cv;
        const char                    *ghz;
        int                            i = sort_opts(argc, argv, &s, &ghz), rc;

        if (i < 0)
                return EXIT_USAGE;
        if (ghz) {
                fprintf(stderr, "pmucal-table: classify-tlb: --core-ghz is for latency tables (a TLB "
                                "table's core clock is in its clock object)\n");
                return EXIT_USAGE;
        }
        if (argc - i < 3) {
                fprintf(stderr, "pmucal-table: classify-tlb: wrong number of arguments "
                                "(FILE PAGE ADDED...|-)\n");
                return EXIT_USAGE;
        }
        s.path = argv[i];
        if (!(s.page_bytes = parse_page(argv[i + 1], &s.side))) {
                fprintf(stderr, "pmucal-table: page size \"%s\" is not [dtlb:|itlb:]4k, 2m or 1g\n",
                        cli_esc(argv[i + 1]));
                return EXIT_USAGE;
        }
        if (!(s.k = cli_load_tlb(s.path)))
                return EXIT_BAD;
        if (pmucal_tlb_find_curve(s.k, s.side, s.page_bytes, &cv) != PMUCAL_OK) {
                fprintf(stderr, "pmucal-table: %s: no %s curve for %s pages\n", cli_esc(s.path),
                        s.side == PMUCAL_TLB_ITLB ? "itlb" : "dtlb", cli_esc(argv[i + 1]));
                pmucal_tlb_free((struct pmucal_tlb *)s.k);
                return EXIT_BAD;
        }
        rc = run(&s, argc - i - 2, argv + i + 2);
        pmucal_tlb_free((struct pmucal_tlb *)s.k);
        return rc;
}
