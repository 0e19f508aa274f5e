/** @file The file part of the Linux platform (plat.h files, linux_plat.h output folder) for
 *  pmucal-host. A file is written whole under a temporary name in its folder, flushed to the
 *  disk and renamed over the final name, so a reader never sees a partial file and a full disk
 *  leaves the previous file (or none) instead of a short or empty one. The output folder is
 *  locked (flock) for the life of the process, so two runs cannot write into one folder at
 *  once. May use libc and POSIX; nothing portable includes it. */
#define _GNU_SOURCE
#include "boot/linux/linux_plat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define PATH_BYTES 4096

static char out_dir[PATH_BYTES] = ".";
static int  out_lock_fd         = -1;

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

        if (!path || (!buf && len) || full_path(full, sizeof(full), path))
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

        if (!path || !buf || !len || full_path(full, sizeof(full), path))
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
        if (!path || full_path(full, sizeof(full), path))
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
