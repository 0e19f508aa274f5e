/** @file The fake platform's in-memory volume (see fake_plat.h): files and directories, each
 *  parent an entry of its own as on FAT, looked up through a hash (tests make thousands of run
 *  folders), with free space counted in clusters as a FAT volume does. */
#include "tests/fake_plat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_BUCKETS  4096

struct file {
        char    *path;
        char    *data;
        size_t   len;
        bool     dir;
        unsigned next; /* 1 + index of the next entry in the same bucket; 0 ends */
};

static struct file    *files;
static unsigned        n_files, cap_files;
static unsigned        buckets[N_BUCKETS]; /* 1 + index of the first entry; 0 empty */
static status_t        write_failure;
static unsigned        writes_before_failure;
static char            short_read_suffix[64];
static struct plat_volume_info volume;
static char            elsewhere_path[128], elsewhere_where[128];
static const struct plat_volume_info default_volume = {
        .free_bytes = 1 * GiB, .cluster_bytes = 4096, .read_only = false,
};

void fake_volume_reset(void)
{
        elsewhere_path[0] = '\0';
        for (unsigned i = 0; i < n_files; i++) {
                free(files[i].path);
                free(files[i].data);
        }
        free(files);
        files   = NULL;
        n_files = cap_files = 0;
        memset(buckets, 0, sizeof(buckets));
        write_failure         = ST_OK;
        writes_before_failure = 0;
        short_read_suffix[0]  = 0;
        volume                = default_volume;
}

void fake_plat_short_reads(const char *suffix)
{
        snprintf(short_read_suffix, sizeof(short_read_suffix), "%s", suffix ? suffix : "");
}

static bool reads_short(const char *path)
{
        size_t n = strlen(path), k = strlen(short_read_suffix);

        return k && n >= k && !strcmp(path + n - k, short_read_suffix);
}

void fake_plat_fail_writes(status_t st)
{
        fake_plat_fail_writes_after(0, st);
}

void fake_plat_fail_writes_after(unsigned n, status_t st)
{
        write_failure         = st;
        writes_before_failure = n;
}

void fake_plat_set_elsewhere(const char *path, const char *where)
{
        snprintf(elsewhere_path, sizeof(elsewhere_path), "%s", path ? path : "");
        snprintf(elsewhere_where, sizeof(elsewhere_where), "%s", where ? where : "");
}

status_t plat_file_elsewhere(const char *path, char *where, size_t cap)
{
        if (cap)
                where[0] = '\0';
        if (!path || !elsewhere_path[0] || strcmp(path, elsewhere_path))
                return ST_NOT_FOUND;
        snprintf(where, cap, "%s", elsewhere_where);
        return ST_OK;
}

void fake_plat_set_volume(uint64_t free_bytes, uint32_t cluster_bytes, bool read_only)
{
        volume = (struct plat_volume_info){ .free_bytes    = free_bytes,
                                            .cluster_bytes = cluster_bytes,
                                            .read_only     = read_only };
}

static unsigned hash(const char *path)
{
        uint32_t h = 2166136261u; /* FNV-1a */

        for (; *path; path++)
                h = (h ^ (unsigned char)*path) * 16777619u;
        return h % N_BUCKETS;
}

static struct file *find(const char *path)
{
        for (unsigned i = buckets[hash(path)]; i; i = files[i - 1].next)
                if (!strcmp(files[i - 1].path, path))
                        return &files[i - 1];
        return NULL;
}

static uint64_t clusters(size_t bytes)
{
        uint64_t cl = volume.cluster_bytes ? volume.cluster_bytes : 1;

        return (bytes + cl - 1) / cl * cl;
}

static uint64_t entry_bytes(const struct file *f)
{
        return f->dir ? clusters(1) : clusters(f->len);
}

/* A new entry: ST_NO_SPACE when the volume has no room for @p bytes (directory: a cluster). */
static status_t add(const char *path, bool dir, struct file **out)
{
        uint64_t need = dir ? clusters(1) : 0;

        if (need > volume.free_bytes)
                return ST_NO_SPACE;
        if (n_files == cap_files) {
                unsigned     cap = cap_files ? 2 * cap_files : 64;
                struct file *p   = realloc(files, cap * sizeof(*p));
                if (!p)
                        return ST_NO_MEM;
                files     = p;
                cap_files = cap;
        }
        struct file *f = &files[n_files++];
        unsigned     b = hash(path);
        *f             = (struct file){ .path = strdup(path), .dir = dir, .next = buckets[b] };
        buckets[b]     = n_files;
        volume.free_bytes -= need;
        *out = f;
        return ST_OK;
}

/* Every directory on the way to @p path, as the firmware's plat_file_write makes them. */
static status_t add_parents(const char *path)
{
        char part[512];

        for (size_t i = 1; path[i] && i < sizeof(part); i++) {
                if (path[i] != '/')
                        continue;
                memcpy(part, path, i);
                part[i]        = 0;
                struct file *f = find(part);
                if (f && !f->dir)
                        return ST_NOT_FOUND; /* a file in the way, as FAT reports it */
                status_t st = f ? ST_OK : add(part, true, &f);
                if (st != ST_OK)
                        return st;
        }
        return ST_OK;
}

status_t fake_plat_put_file(const char *path, const void *buf, size_t len)
{
        struct file *f;
        status_t     st = add_parents(path);

        if (st != ST_OK)
                return st;
        if ((f = find(path)) && f->dir)
                return ST_BAD_ARG;
        uint64_t old = f ? entry_bytes(f) : 0;
        if (clusters(len) > volume.free_bytes + old)
                return ST_NO_SPACE;
        if (!f && (st = add(path, false, &f)) != ST_OK)
                return st;
        free(f->data);
        f->data = malloc(len + 1);
        memcpy(f->data, buf, len);
        f->data[len] = 0;
        f->len       = len;
        volume.free_bytes = volume.free_bytes + old - clusters(len);
        return ST_OK;
}

status_t fake_plat_put_dir(const char *path)
{
        struct file *f;
        status_t     st = add_parents(path);

        if (st != ST_OK)
                return st;
        if ((f = find(path)))
                return f->dir ? ST_OK : ST_BAD_ARG;
        return add(path, true, &f);
}

const char *fake_plat_get_file(const char *path, size_t *len)
{
        struct file *f = find(path);

        if (!f || f->dir)
                return NULL;
        if (len)
                *len = f->len;
        return f->data;
}

unsigned fake_plat_count_under(const char *path)
{
        size_t   n = strlen(path);
        unsigned k = 0;

        for (unsigned i = 0; i < n_files; i++)
                if (!strncmp(files[i].path, path, n) &&
                    (files[i].path[n] == '/' || files[i].path[n] == 0))
                        k++;
        return k;
}

/* ---- the platform interface: files ---- */

/* Remove a file or an empty directory, as plat_file_write(path, NULL, 0) does. */
static status_t remove_entry(const char *path)
{
        struct file *f = find(path);

        if (!f)
                return ST_NOT_FOUND;
        if (f->dir && fake_plat_count_under(path) > 1)
                return ST_IO; /* not empty */
        /* Unlink from its bucket, then move the last entry into its slot. */
        unsigned idx = (unsigned)(f - files) + 1;
        for (unsigned *p = &buckets[hash(path)]; *p; p = &files[*p - 1].next)
                if (*p == idx) {
                        *p = f->next;
                        break;
                }
        volume.free_bytes += entry_bytes(f);
        free(f->path);
        free(f->data);
        if (idx != n_files) {
                struct file *last = &files[n_files - 1];
                for (unsigned *p = &buckets[hash(last->path)]; *p; p = &files[*p - 1].next)
                        if (*p == n_files) {
                                *p = idx;
                                break;
                        }
                *f = *last;
        }
        n_files--;
        return ST_OK;
}

status_t plat_file_write(const char *path, const void *buf, size_t len)
{
        if (volume.read_only)
                return ST_READ_ONLY;
        if (!buf)
                return len ? ST_BAD_ARG : remove_entry(path);
        if (write_failure != ST_OK) {
                if (!writes_before_failure)
                        return write_failure;
                writes_before_failure--;
        }
        return fake_plat_put_file(path, buf, len);
}

status_t plat_file_read(const char *path, char **buf, size_t *len)
{
        struct file *f = find(path);

        if (!f)
                return ST_NOT_FOUND;
        if (f->dir)
                return ST_BAD_ARG;
        *buf = malloc(f->len + 1);
        if (!*buf)
                return ST_NO_MEM;
        memcpy(*buf, f->data, f->len + 1);
        *len = f->len && reads_short(path) ? f->len - 1 : f->len;
        return ST_OK;
}

status_t plat_file_stat(const char *path, struct plat_file_info *out)
{
        struct file *f = find(path);

        *out = (struct plat_file_info){ .kind = PLAT_FILE_NONE };
        if (!f)
                return ST_NOT_FOUND;
        *out = (struct plat_file_info){ .kind       = f->dir ? PLAT_FILE_DIR : PLAT_FILE_REGULAR,
                                        .size_bytes = f->dir ? 0 : f->len };
        return ST_OK;
}

status_t plat_volume_info(struct plat_volume_info *out)
{
        *out = volume;
        return ST_OK;
}
