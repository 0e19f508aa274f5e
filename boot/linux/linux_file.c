/** @file The file part of the Linux platform (plat.h files, linux_plat.h output folder) for
 *  pmucal-host. A file is written whole under a temporary name in its folder, flushed to the
 *  disk and renamed over the final name, so a reader never sees a partial file and a full disk
 *  leaves the previous file (or none) instead of a short or empty one. The output folder is
 *  locked (flock) for the life of the process, so two runs cannot write into one folder at
 *  once. Between linux_plat_unit_begin and linux_plat_unit_commit a run's files go to a
 *  staging folder beside the output folder, and the commit swaps the two folders in one
 *  rename (renameat2 RENAME_EXCHANGE): a run killed at any point, or one that fails for want
 *  of space, leaves the folder as the last whole run left it, never one file of each. May use
 *  libc and POSIX; nothing portable includes it. */
#define _GNU_SOURCE
#include "boot/linux/linux_plat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define PATH_BYTES 4096

static char out_dir[PATH_BYTES] = ".";
static int  out_lock_fd         = -1;
static char stage_dir[PATH_BYTES]; /* "" outside a unit (linux_plat_unit_begin) */

static status_t errno_status(int e)
{
        switch (e) {
        case ENOENT: return ST_NOT_FOUND;
        case EROFS: return ST_READ_ONLY;
        case ENOSPC: case EDQUOT: case EFBIG: return ST_NO_SPACE;
        case ENOMEM: return ST_NO_MEM;
        default: return ST_IO;
        }
}

static int full_path(char *dst, size_t n, const char *path)
{
        if (path[0] == '/')
                return snprintf(dst, n, "%s", path) < (int)n ? 0 : -1;
        return snprintf(dst, n, "%s/%s", out_dir, path) < (int)n ? 0 : -1;
}

/* Where a relative @p path is written: the staging folder inside a unit. */
static int write_path(char *dst, size_t n, const char *path)
{
        if (path[0] == '/' || !stage_dir[0])
                return full_path(dst, n, path);
        return snprintf(dst, n, "%s/%s", stage_dir, path) < (int)n ? 0 : -1;
}

/* Where a relative @p path is read: the staging folder's copy once this run wrote one. */
static int read_path(char *dst, size_t n, const char *path)
{
        struct stat sb;

        if (stage_dir[0] && path[0] != '/' && !write_path(dst, n, path) && !lstat(dst, &sb))
                return 0;
        return full_path(dst, n, path);
}

/* mkdir -p of every folder in @p path up to its last '/' (or all of it when @p whole). */
static int mkdir_parents(const char *path, bool whole)
{
        char tmp[PATH_BYTES];

        snprintf(tmp, sizeof(tmp), "%s%s", path, whole ? "/" : "");
        for (char *s = tmp + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(tmp, 0755) && errno != EEXIST)
                        return -1;
                *s = '/';
        }
        return 0;
}

void linux_plat_set_out_dir(const char *dir)
{
        snprintf(out_dir, sizeof(out_dir), "%s", dir && *dir ? dir : ".");
}

int linux_plat_use_out_dir(const char *dir)
{
        int fd;

        if (!dir || !*dir || strlen(dir) >= sizeof(out_dir))
                return EINVAL;
        if (mkdir_parents(dir, true))
                return errno;
        if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                return errno;
        if (flock(fd, LOCK_EX | LOCK_NB)) {
                int e = errno == EWOULDBLOCK ? EBUSY : errno;
                close(fd);
                return e;
        }
        /* Writable? Found now, not after a sweep of minutes: a probe file made and removed. */
        char probe[PATH_BYTES + 48];
        int  pfd;
        snprintf(probe, sizeof(probe), "%s/.pmucal-probe.tmp-%ld", dir, (long)getpid());
        if ((pfd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
                int e = errno;
                close(fd);
                return e;
        }
        close(pfd);
        unlink(probe);
        if (out_lock_fd >= 0)
                close(out_lock_fd);
        out_lock_fd = fd;
        linux_plat_set_out_dir(dir);
        return 0;
}

int linux_plat_new_out_dir(const char *prefix, char *name, size_t cap)
{
        char      stamp[32];
        time_t    now = time(NULL);
        struct tm tm;

        strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
        for (unsigned k = 1; k <= 10000; k++) {
                int n = k == 1 ? snprintf(name, cap, "%s%s", prefix, stamp)
                               : snprintf(name, cap, "%s%s-%u", prefix, stamp, k);
                if (n < 0 || (size_t)n >= cap)
                        return ENAMETOOLONG;
                if (!mkdir(name, 0755))
                        return 0;
                if (errno != EEXIST)
                        return errno;
        }
        return EEXIST;
}

/* write(2) all of @p len bytes; 0 or an errno value. */
static int write_all(int fd, const char *p, size_t len)
{
        while (len) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        return k < 0 ? errno : ENOSPC;
                p += k;
                len -= (size_t)k;
        }
        return 0;
}

/* Flush the directory entry of @p file (after a rename); best effort. */
static void sync_parent(const char *file)
{
        char  dir[PATH_BYTES];
        char *slash;
        int   fd;

        snprintf(dir, sizeof(dir), "%s", file);
        slash = strrchr(dir, '/');
        if (slash)
                *slash = '\0';
        if ((fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
                fsync(fd);
                close(fd);
        }
}

status_t plat_file_write(const char *path, const void *buf, size_t len)
{
        char  full[PATH_BYTES], tmp[PATH_BYTES + 32];
        char *slash;
        int   fd, e;

        if (!path || (!buf && len) || write_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        if (!buf) /* remove the file */
                return remove(full) ? errno_status(errno) : ST_OK;
        if (mkdir_parents(full, false))
                return errno_status(errno);
        /* ".NAME.tmp-PID" in the same folder: rename() is atomic only within a file system. */
        slash = strrchr(full, '/');
        snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp-%ld", slash ? (int)(slash - full + 1) : 0, full,
                 slash ? slash + 1 : full, (long)getpid());
        if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
                return errno_status(errno);
        e = write_all(fd, buf, len);
        if (!e && fsync(fd))
                e = errno;
        if (close(fd) && !e)
                e = errno;
        if (!e && rename(tmp, full))
                e = errno;
        if (e) {
                unlink(tmp);
                return errno_status(e);
        }
        sync_parent(full);
        return ST_OK;
}

status_t plat_file_read(const char *path, char **buf, size_t *len)
{
        char        full[PATH_BYTES];
        struct stat sb;
        FILE       *f;
        long        n;

        if (!path || !buf || !len || read_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        if (!stat(full, &sb) && S_ISDIR(sb.st_mode))
                return ST_BAD_ARG;
        if (!(f = fopen(full, "rb")))
                return errno_status(errno);
        if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
                fclose(f);
                return ST_IO;
        }
        if (!(*buf = plat_alloc((size_t)n + 1))) {
                fclose(f);
                return ST_NO_MEM;
        }
        if (fread(*buf, 1, (size_t)n, f) != (size_t)n) {
                fclose(f);
                plat_free(*buf);
                *buf = NULL;
                return ST_IO;
        }
        fclose(f);
        (*buf)[n] = '\0';
        *len      = (size_t)n;
        return ST_OK;
}

status_t plat_file_stat(const char *path, struct plat_file_info *out)
{
        char        full[PATH_BYTES];
        struct stat st;

        *out = (struct plat_file_info){ .kind = PLAT_FILE_NONE };
        if (!path || read_path(full, sizeof(full), path))
                return ST_BAD_ARG;
        if (stat(full, &st))
                return errno_status(errno);
        if (S_ISDIR(st.st_mode))
                out->kind = PLAT_FILE_DIR;
        else
                *out = (struct plat_file_info){ .kind = PLAT_FILE_REGULAR,
                                                .size_bytes = (uint64_t)st.st_size };
        return ST_OK;
}

status_t plat_file_elsewhere(const char *path, char *where, size_t cap)
{
        (void)path;
        if (cap)
                where[0] = '\0';
        return ST_UNSUPPORTED; /* one output folder, nothing else is looked at */
}

status_t plat_volume_info(struct plat_volume_info *out)
{
        struct statvfs v;

        *out = (struct plat_volume_info){ .free_bytes = UINT64_MAX };
        if (statvfs(out_dir, &v))
                return errno_status(errno);
        *out = (struct plat_volume_info){ .free_bytes    = (uint64_t)v.f_bavail * v.f_frsize,
                                          .cluster_bytes = (uint32_t)v.f_frsize,
                                          .read_only     = (v.f_flag & ST_RDONLY) != 0 };
        return ST_OK;
}

/* ---- a run's files as one unit ----------------------------------------------------------- */

/* The folder holding @p dir and @p dir's last name ("." and "x" for "x"); -1 if too long. */
static int split_dir(const char *dir, char *parent, char *base)
{
        char d[PATH_BYTES];
        size_t n = strlen(dir);

        if (n >= sizeof(d))
                return -1;
        memcpy(d, dir, n + 1);
        while (n > 1 && d[n - 1] == '/')
                d[--n] = '\0';
        char *slash = strrchr(d, '/');
        if (!slash) {
                strcpy(parent, ".");
                strcpy(base, d);
        } else {
                snprintf(base, PATH_BYTES, "%s", slash + 1);
                if (slash == d)
                        strcpy(parent, "/");
                else {
                        *slash = '\0';
                        snprintf(parent, PATH_BYTES, "%s", d);
                }
        }
        return base[0] && strcmp(base, ".") && strcmp(base, "..") ? 0 : -1;
}

/* "NAME-PID" ending @p name after @p prefix: the PID, or 0 when @p name is not one. */
static long pid_suffix(const char *name, const char *prefix)
{
        size_t k = strlen(prefix);
        char  *end;

        if (strncmp(name, prefix, k) || !name[k])
                return 0;
        long pid = strtol(name + k, &end, 10);
        return *end || pid <= 0 ? 0 : pid;
}

static bool pid_gone(long pid)
{
        return pid != (long)getpid() && kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Remove folder @p dir and the files in it (not its subfolders: a folder that still holds
 * one is left, and reported by the return value -1). */
static int remove_flat(const char *dir)
{
        DIR           *d = opendir(dir);
        struct dirent *e;
        char           p[PATH_BYTES * 2];
        int            rc = 0;

        if (!d)
                return errno == ENOENT ? 0 : -1;
        while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                        continue;
                snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
                if (unlink(p))
                        rc = -1;
        }
        closedir(d);
        return rmdir(dir) ? -1 : rc;
}

unsigned linux_plat_clean_stale(void)
{
        char           parent[PATH_BYTES], base[PATH_BYTES], prefix[PATH_BYTES + 16];
        char           p[PATH_BYTES * 2];
        unsigned       n = 0;
        DIR           *d;
        struct dirent *e;

        /* ".NAME.tmp-PID" files in the output folder: this process holds its lock, so any
         * other writer's temporary is left from a run that was killed. */
        if ((d = opendir(out_dir))) {
                while ((e = readdir(d))) {
                        const char *t = e->d_name[0] == '.' ? strstr(e->d_name, ".tmp-") : NULL;
                        if (!t || !pid_suffix(t, ".tmp-") || pid_suffix(t, ".tmp-") == getpid())
                                continue;
                        snprintf(p, sizeof(p), "%s/%s", out_dir, e->d_name);
                        n += !unlink(p);
                }
                closedir(d);
        }
        /* Staging folders ".BASE.new-PID" beside it whose process is gone. */
        if (split_dir(out_dir, parent, base) || !(d = opendir(parent)))
                return n;
        snprintf(prefix, sizeof(prefix), ".%s.new-", base);
        while ((e = readdir(d))) {
                long pid = pid_suffix(e->d_name, prefix);
                if (!pid || !pid_gone(pid))
                        continue;
                snprintf(p, sizeof(p), "%s/%s", parent, e->d_name);
                n += !remove_flat(p);
        }
        closedir(d);
        return n;
}

int linux_plat_unit_begin(void)
{
        char parent[PATH_BYTES], base[PATH_BYTES];

        if (stage_dir[0])
                return EBUSY;
        if (split_dir(out_dir, parent, base))
                return EINVAL;
        if (snprintf(stage_dir, sizeof(stage_dir), "%s/.%s.new-%ld", parent, base,
                     (long)getpid()) >= (int)sizeof(stage_dir)) {
                stage_dir[0] = '\0';
                return ENAMETOOLONG;
        }
        if (mkdir(stage_dir, 0755)) {
                int e        = errno;
                stage_dir[0] = '\0';
                return e;
        }
        return 0;
}

void linux_plat_unit_abort(void)
{
        if (!stage_dir[0])
                return;
        remove_flat(stage_dir);
        stage_dir[0] = '\0';
}

status_t linux_plat_unit_commit(void)
{
        char           p[PATH_BYTES * 2], q[PATH_BYTES * 2];
        DIR           *d;
        struct dirent *e;
        struct stat    sb;
        int            fd;

        if (!stage_dir[0])
                return ST_BAD_ARG;
        /* What the folder holds and this run did not write (another mode's table, the
         * user's notes) comes along: files by a second link, folders after the swap. */
        if ((d = opendir(out_dir))) {
                while ((e = readdir(d))) {
                        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                                continue;
                        snprintf(p, sizeof(p), "%s/%s", out_dir, e->d_name);
                        snprintf(q, sizeof(q), "%s/%s", stage_dir, e->d_name);
                        if (lstat(p, &sb) || S_ISDIR(sb.st_mode) || !lstat(q, &sb))
                                continue;
                        if (link(p, q) && errno != EEXIST) {
                                int err = errno;
                                closedir(d);
                                linux_plat_unit_abort();
                                return errno_status(err);
                        }
                }
                closedir(d);
        }
        if ((fd = open(stage_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
                fsync(fd);
                close(fd);
        }
        if (renameat2(AT_FDCWD, stage_dir, AT_FDCWD, out_dir, RENAME_EXCHANGE)) {
                /* A file system without the exchange: the old folder aside, the new one in,
                 * the old removed; a crash between the renames leaves no folder of that name
                 * and both beside it, still never a mixed one. */
                char old[PATH_BYTES + 16];
                snprintf(old, sizeof(old), "%s.old-%ld", stage_dir, (long)getpid());
                if ((errno != EINVAL && errno != ENOSYS) || rename(out_dir, old)) {
                        int err = errno;
                        linux_plat_unit_abort();
                        return errno_status(err);
                }
                if (rename(stage_dir, out_dir)) {
                        int err = errno;
                        rename(old, out_dir);
                        linux_plat_unit_abort();
                        return errno_status(err);
                }
                if (strlen(old) >= sizeof(stage_dir))
                        return ST_OK; /* cannot name the old folder again: it stays */
                memcpy(stage_dir, old, strlen(old) + 1);
        }
        sync_parent(out_dir);
        /* stage_dir now names the previous folder: its subfolders move into the new one, then
         * it goes (its files are links or replaced). */
        if ((d = opendir(stage_dir))) {
                while ((e = readdir(d))) {
                        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                                continue;
                        snprintf(p, sizeof(p), "%s/%s", stage_dir, e->d_name);
                        snprintf(q, sizeof(q), "%s/%s", out_dir, e->d_name);
                        if (!lstat(p, &sb) && S_ISDIR(sb.st_mode))
                                rename(p, q);
                }
                closedir(d);
        }
        remove_flat(stage_dir);
        stage_dir[0] = '\0';
        return ST_OK;
}
