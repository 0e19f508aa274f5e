/** @file
 * The run's result files, handed over by the phases (run_add_file) and released at the end,
 * and its results folder, \pmucal\results\<run>\: a name no earlier run has, a check that
 * the volume can take every file before anything is created, the writes, a read-back of each
 * file, and on any failure the removal of what was written, so that a volume is left either
 * with a complete, verified folder or as it was. One console line says which:
 * "RESULTS: saved to ..." or "RESULTS NOT SAVED: <why>". Portable.
 */
#include "app/run.h"

#define RESULTS_PARENT "pmucal"
#define RESULTS_ROOT   "pmucal/results"
#define LINE_MAX_BYTES 256 /* the RESULTS line report.txt ends with */

/* A FAT directory entry is 32 bytes; a long name adds one entry per 13 characters. Counted
 * for every name, as if none were a plain 8.3 name. [FAT] "FAT Long Directory Entries" */
#define DIRENT_BYTES 32u
#define LFN_CHARS    13u

/* What save() created, so that a failure can take it away again. */
struct saved {
        const char *names[RUN_MAX_FILES + 1];
        unsigned    n;
        bool        made_parent, made_root; /* \pmucal and \pmucal\results did not exist */
};

static uint64_t round_up(uint64_t n, uint64_t unit)
{
        return (n + unit - 1) / unit * unit;
}

static uint64_t dirent_bytes(const char *name)
{
        return DIRENT_BYTES * (1 + (strlen(name) + LFN_CHARS - 1) / LFN_CHARS);
}

/* Bytes the run takes on a volume with @p cl-byte clusters: every file rounded up to whole
 * clusters, the run folder (its "." and ".." and one long-name entry per file), and for each
 * folder made (the run's, and \pmucal or \pmucal\results if missing) a cluster more for its
 * parent growing by an entry; each missing parent takes a cluster of its own too. */
static uint64_t bytes_needed(const struct run *r, uint64_t cl, const struct saved *s)
{
        uint64_t dir   = 2 * DIRENT_BYTES + dirent_bytes(REPORT_NAME);
        uint64_t files = round_up(r->console.len + LINE_MAX_BYTES, cl);

        for (unsigned i = 0; i < r->n_files; i++) {
                files += round_up(r->files[i].data.len, cl);
                dir += dirent_bytes(r->files[i].name);
        }
        return files + round_up(dir, cl) + cl * (1u + 2u * s->made_parent + 2u * s->made_root);
}

/* Why a write or a look at the volume failed, in words that say what to do: the firmware's
 * FAT driver reports a damaged file system (EFI_VOLUME_CORRUPTED: a folder whose cluster the
 * FAT marks free, a broken chain) as corrupted, which status_str calls "malformed data". */
static const char *volume_why(status_t st)
{
        if (st == ST_BAD_DATA)
                return "the volume's file system is damaged (the firmware reports it corrupted); "
                       "check and repair it with fsck.vfat or chkdsk";
        return status_str(st);
}

static void shown_path(char *out, size_t n, const char *path, bool folder)
{
        size_t k = 0;

        if (n < 3)
                return;
        out[k++] = '\\';
        for (size_t i = 0; path[i] && k + 2 < n; i++)
                out[k++] = path[i] == '/' ? '\\' : path[i];
        if (folder)
                out[k++] = '\\';
        out[k] = 0;
}

static void not_saved(const char *fmt, ...) PRINTF_FMT(1, 2);
static void not_saved(const char *fmt, ...)
{
        char    why[320];
        va_list ap;

        va_start(ap, fmt);
        fmt_vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        rep_printf("RESULTS NOT SAVED: %s. The console report above is complete; copy it from "
                   "the console or serial log.\n", why);
}

/* ST_OK when @p path is a folder or absent (*@p absent says which); ST_BAD_DATA when a file
 * stands where the folder should be. */
static status_t want_folder(const char *path, bool *absent)
{
        struct plat_file_info fi;
        status_t              st = plat_file_stat(path, &fi);

        *absent = st == ST_NOT_FOUND;
        if (st == ST_NOT_FOUND)
                return ST_OK;
        if (st != ST_OK)
                return st;
        return fi.kind == PLAT_FILE_DIR ? ST_OK : ST_BAD_DATA;
}

/* Take away what this run wrote: its files, its folder, and the parents it made. Returns the
 * first failure (a file or folder that is still there). */
static status_t remove_partial(const struct run *r, const struct saved *s, const char *failed)
{
        char     path[160];
        status_t first = ST_OK, st;

        for (unsigned i = s->n + 1; i-- > 0;) {
                const char *name = i < s->n ? s->names[i] : failed;
                if (!name)
                        continue;
                fmt_snprintf(path, sizeof(path), "%s/%s", r->dir, name);
                st = plat_file_write(path, NULL, 0);
                if (st != ST_OK && st != ST_NOT_FOUND && first == ST_OK)
                        first = st;
        }
        const char *dirs[] = { r->dir, s->made_root ? RESULTS_ROOT : NULL,
                               s->made_parent ? RESULTS_PARENT : NULL };
        for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
                if (!dirs[i])
                        continue;
                st = plat_file_write(dirs[i], NULL, 0);
                if (st != ST_OK && st != ST_NOT_FOUND && first == ST_OK)
                        first = st;
        }
        return first;
}

/* Re-open every file written and compare it with what was meant to be there. */
static status_t verify(const struct run *r, const char *report, size_t report_len,
                       char *what, size_t what_n)
{
        char path[160];

        for (unsigned i = 0; i <= r->n_files; i++) {
                const char *name = i < r->n_files ? r->files[i].name : REPORT_NAME;
                const char *want = i < r->n_files ? r->files[i].data.p : report;
                size_t      n    = i < r->n_files ? r->files[i].data.len : report_len;
                char       *got  = NULL;
                size_t      len  = 0;

                fmt_snprintf(path, sizeof(path), "%s/%s", r->dir, name);
                status_t st = plat_file_read(path, &got, &len);
                bool     ok = st == ST_OK && len == n && (!n || !memcmp(got, want, n));
                plat_free(got);
                if (!ok) {
                        if (st == ST_OK)
                                fmt_snprintf(what, what_n, "%s reads back %zu bytes, not the "
                                             "%zu written", name, len, n);
                        else
                                fmt_snprintf(what, what_n, "%s cannot be read back (%s)", name,
                                             status_str(st));
                        return st == ST_OK ? ST_IO : st;
                }
        }
        return ST_OK;
}

/* The writes and the read-back; on failure, *@p why names what went wrong. */
static status_t write_all(struct run *r, struct saved *s, const char **failed, char *why,
                          size_t why_n)
{
        char     path[160];
        size_t   n_byte = 0;
        status_t st;

        for (unsigned i = 0; i < r->n_files; i++) {
                const struct run_file *f = &r->files[i];
                fmt_snprintf(path, sizeof(path), "%s/%s", r->dir, f->name);
                *failed = f->name;
                st      = plat_file_write(path, f->data.p ? f->data.p : "", f->data.len);
                if (st != ST_OK) {
                        rep_err(st, "writing %s (%zu bytes)", path, f->data.len);
                        fmt_snprintf(why, why_n, "%s (writing %s)", volume_why(st), f->name);
                        return st;
                }
                s->names[s->n++] = f->name;
                n_byte += f->data.len;
        }

        /* report.txt is the console text up to and including the RESULTS line, which is printed
         * only once the folder is known to be complete. */
        char line[LINE_MAX_BYTES];
        int  k = fmt_snprintf(line, sizeof(line), "RESULTS: saved to %s (%u files, %zu bytes, "
                              "and " REPORT_NAME ")\n", r->dir_shown, r->n_files, n_byte);
        size_t report_len = r->console.len + (size_t)k;
        char  *report     = plat_alloc(report_len + 1);
        if (!report) {
                fmt_snprintf(why, why_n, "out of memory building " REPORT_NAME);
                return ST_NO_MEM;
        }
        memcpy(report, r->console.p ? r->console.p : "", r->console.len);
        memcpy(report + r->console.len, line, (size_t)k);
        fmt_snprintf(path, sizeof(path), "%s/" REPORT_NAME, r->dir);
        *failed = REPORT_NAME;
        st      = plat_file_write(path, report, report_len);
        if (st != ST_OK) {
                rep_err(st, "writing %s (%zu bytes)", path, report_len);
                fmt_snprintf(why, why_n, "%s (writing " REPORT_NAME ")", volume_why(st));
        } else {
                s->names[s->n++] = REPORT_NAME;
                *failed          = NULL;
                char what[120];
                st = verify(r, report, report_len, what, sizeof(what));
                if (st != ST_OK)
                        fmt_snprintf(why, why_n, "the folder did not read back right: %s", what);
        }
        plat_free(report);
        if (st == ST_OK)
                rep_printf("%s", line);
        return st;
}

/* Everything that can be known before a byte is written: the name, memory, the folders on the
 * way, write protection and free space. */
static status_t precheck(struct run *r, struct saved *s)
{
        struct plat_volume_info v;
        status_t                st;
        char                    shown[40];

        if (r->no_name) {
                not_saved("every run name from %s%s-01 to -%u is taken (move old runs off the "
                          "volume)", r->dir_shown, r->name, RUN_NAME_MAX);
                return ST_NO_SPACE;
        }
        for (unsigned i = 0; i < r->n_files; i++)
                if (r->files[i].data.oom) {
                        not_saved("out of memory building %s", r->files[i].name);
                        return ST_NO_MEM;
                }
        if (r->console.oom) {
                not_saved("out of memory keeping the console text for " REPORT_NAME);
                return ST_NO_MEM;
        }
        if ((st = plat_volume_info(&v)) == ST_OK && v.read_only) {
                not_saved("%s", status_str(ST_READ_ONLY));
                return ST_READ_ONLY;
        }
        const char *folders[] = { RESULTS_PARENT, RESULTS_ROOT };
        bool       *made[]    = { &s->made_parent, &s->made_root };
        for (size_t i = 0; i < ARRAY_SIZE(folders); i++) {
                status_t fs = want_folder(folders[i], made[i]);
                shown_path(shown, sizeof(shown), folders[i], false);
                if (fs == ST_BAD_DATA) {
                        not_saved("%s is a file, not a folder", shown);
                        return fs;
                }
                if (fs != ST_OK) {
                        not_saved("cannot look at %s (%s)", shown, volume_why(fs));
                        return fs;
                }
        }
        struct plat_file_info fi;
        if (plat_file_stat(r->dir, &fi) != ST_NOT_FOUND) {
                not_saved("%s appeared during the run (never written into)", r->dir_shown);
                return ST_IO;
        }
        if (st == ST_OK && v.hint_stale)
                rep_warn("results: the volume's free-space figure (%llu bytes, the FAT32 FSInfo "
                         "hint) is more than its FAT has free (%llu bytes): the FAT's count is "
                         "used; `fsck.vfat -a` on another machine corrects the hint",
                         (unsigned long long)v.hint_free_bytes,
                         (unsigned long long)v.free_bytes);
        if (st == ST_OK && v.free_bytes != UINT64_MAX) {
                uint64_t need = bytes_needed(r, v.cluster_bytes ? v.cluster_bytes : 512, s);
                if (v.free_bytes < need) {
                        not_saved("%s (%llu bytes free, %llu needed)", status_str(ST_NO_SPACE),
                                  (unsigned long long)v.free_bytes, (unsigned long long)need);
                        return ST_NO_SPACE;
                }
        }
        return ST_OK;
}

status_t run_add_file(struct run *r, const char *name, struct rep_buf *data)
{
        if (r->n_files == RUN_MAX_FILES) {
                rep_buf_free(data);
                return rep_err(ST_NO_MEM, "keeping %s for the results folder", name);
        }
        r->files[r->n_files++] = (struct run_file){ .name = name, .data = *data };
        *data = (struct rep_buf){ 0 };
        return ST_OK;
}

void run_files_free(struct run *r)
{
        for (unsigned i = 0; i < r->n_files; i++)
                rep_buf_free(&r->files[i].data);
        r->n_files = 0;
}

void run_name(struct run *r)
{
        struct plat_time t;
        char             base[24];

        if (plat_wallclock(&t) == ST_OK && t.valid)
                fmt_snprintf(base, sizeof(base), "%04u%02u%02u-%02u%02u%02u", t.year, t.month,
                             t.day, t.hour, t.minute, t.second);
        else
                fmt_snprintf(base, sizeof(base), "noclock");
        r->no_name = true;
        for (unsigned i = 1; i <= RUN_NAME_MAX; i++) {
                fmt_snprintf(r->name, sizeof(r->name), "%s-%02u", base, i);
                fmt_snprintf(r->dir, sizeof(r->dir), "%s/%s", RESULTS_ROOT, r->name);
                struct plat_file_info fi;
                if (plat_file_stat(r->dir, &fi) == ST_NOT_FOUND) {
                        r->no_name = false;
                        break;
                }
        }
        if (r->no_name) {
                fmt_snprintf(r->name, sizeof(r->name), "%s", base);
                shown_path(r->dir_shown, sizeof(r->dir_shown), RESULTS_ROOT, true);
                return;
        }
        shown_path(r->dir_shown, sizeof(r->dir_shown), r->dir, true);
}

/* Name every file the run made that nothing keeps, so that a run without a volume and without
 * a collector says on the console what it lost. */
static void say_not_kept(const struct run *r)
{
        for (unsigned i = 0; i < r->n_files; i++)
                rep_info("results: not kept: %s (%zu bytes)", r->files[i].name,
                         r->files[i].data.len);
        rep_info("results: not kept: " REPORT_NAME " (the console text, %zu bytes so far)",
                 r->console.len);
}

status_t run_save(struct run *r)
{
        struct saved s = { 0 };
        const char  *failed = NULL;
        char         why[320];
        status_t     st;

        if (plat_info()->net_source) {
                say_not_kept(r);
                not_saved("no volume to write to (pmucal was loaded over the network from %s) "
                          "and %s; the files above were not kept", plat_info()->net_source,
                          r->cfg.collector_set ? "the upload to the collector failed"
                                               : "no collector to upload to");
                return ST_UNSUPPORTED;
        }
        if ((st = precheck(r, &s)) != ST_OK)
                return st;
        if ((st = write_all(r, &s, &failed, why, sizeof(why))) == ST_OK)
                return ST_OK;
        status_t rm = remove_partial(r, &s, failed);
        if (rm == ST_OK)
                not_saved("%s; nothing was left on the volume", why);
        else
                not_saved("%s; the incomplete folder %s could not be removed (%s)", why,
                          r->dir_shown, volume_why(rm));
        return st;
}
