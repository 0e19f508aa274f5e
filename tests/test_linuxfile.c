/** @file Unit tests for boot/linux/linux_file.c, the hosted build's files: a write that fails
 *  part-way (file size limit, or a full 64 KiB tmpfs where this runs as root) leaves the
 *  previous file whole, or no file, and no temporary file; the output folder's lock refuses
 *  a second process; new dated folders never reuse a name. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/linux/linux_plat.h"

/* The platform's allocator (boot/linux/linux_plat.c, not linked here): heap memory only. */
status_t plat_mem_alloc(size_t bytes, enum plat_page_kind want, void **out,
                        enum plat_page_kind *got)
{
        if (want != PLAT_PAGE_HEAP)
                return ST_UNSUPPORTED;
        if (got)
                *got = PLAT_PAGE_HEAP;
        return (*out = calloc(1, bytes ? bytes : 1)) ? ST_OK : ST_NO_MEM;
}

void plat_mem_free(void *p, size_t bytes)
{
        (void)bytes;
        free(p);
}

static char dir[64];

static int setup(void **state)
{
        (void)state;
        snprintf(dir, sizeof(dir), "/tmp/test_linuxfile_XXXXXX");
        if (!mkdtemp(dir))
                return -1;
        linux_plat_set_out_dir(dir);
        return 0;
}

static int teardown(void **state)
{
        char cmd[128];
        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd);
}

/* Entries of @p d other than . and .. */
static int count_entries(const char *d)
{
        DIR           *h = opendir(d);
        struct dirent *e;
        int            n = 0;

        assert_non_null(h);
        while ((e = readdir(h)))
                n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
        closedir(h);
        return n;
}

static char *read_back(const char *name, size_t *len)
{
        char *buf = NULL;
        if (plat_file_read(name, &buf, len) != ST_OK)
                return NULL;
        return buf;
}

static void test_write_whole(void **state)
{
        struct plat_file_info fi;
        size_t                len;
        char                 *p;
        (void)state;
        assert_int_equal(plat_file_write("sub/a.json", "{\"v\": 1}\n", 9), ST_OK);
        p = read_back("sub/a.json", &len);
        assert_non_null(p);
        assert_int_equal(len, 9);
        assert_memory_equal(p, "{\"v\": 1}\n", 9);
        free(p);
        assert_int_equal(plat_file_write("sub/a.json", "{}", 2), ST_OK); /* replaced */
        p = read_back("sub/a.json", &len);
        assert_int_equal(len, 2);
        free(p);
        assert_int_equal(plat_file_write("empty", "", 0), ST_OK);
        assert_int_equal(plat_file_stat("empty", &fi), ST_OK);
        assert_int_equal(fi.kind, PLAT_FILE_REGULAR);
        assert_int_equal(fi.size_bytes, 0);
        char sub[96];
        snprintf(sub, sizeof(sub), "%s/sub", dir);
        assert_int_equal(count_entries(sub), 1); /* no temporary file left */
        assert_int_equal(plat_file_write("empty", NULL, 0), ST_OK); /* NULL removes it */
        assert_int_equal(plat_file_stat("empty", &fi), ST_NOT_FOUND);
        assert_int_equal(plat_file_read("sub", &p, &len), ST_BAD_ARG); /* a folder */
}

/* A write that fails part-way: RLIMIT_FSIZE makes write(2) fail with EFBIG after 1000 bytes,
 * as a full disk fails it with ENOSPC. */
static void test_write_fails_partway(void **state)
{
        static char   big[8192];
        struct rlimit         old, lim = { 1000, 1000 };
        struct plat_file_info fi;
        size_t                len;
        char                 *p;
        (void)state;

        memset(big, 'x', sizeof(big));
        assert_int_equal(plat_file_write("t.json", "previous", 8), ST_OK);
        signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &old);
        lim.rlim_max = old.rlim_max;
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        status_t a = plat_file_write("t.json", big, sizeof(big));
        status_t b = plat_file_write("new.json", big, sizeof(big));
        setrlimit(RLIMIT_FSIZE, &old);
        assert_int_equal(a, ST_NO_SPACE);
        assert_int_equal(b, ST_NO_SPACE);
        p = read_back("t.json", &len); /* the previous file, whole */
        assert_non_null(p);
        assert_int_equal(len, 8);
        assert_memory_equal(p, "previous", 8);
        free(p);
        assert_int_equal(plat_file_stat("new.json", &fi), ST_NOT_FOUND); /* not a short file */
        assert_int_equal(count_entries(dir), 1);                       /* no temporary file */
}

/* A real full file system: a 64 KiB tmpfs (needs root; skipped otherwise). */
static void test_full_tmpfs(void **state)
{
        static char big[96 * 1024];
        char        mnt[96];
        size_t      len;
        char       *p;
        (void)state;

        snprintf(mnt, sizeof(mnt), "%s/small", dir);
        assert_int_equal(mkdir(mnt, 0755), 0);
        if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k")) {
                printf("# cannot mount a tmpfs (%s): skipped\n", strerror(errno));
                skip();
        }
        linux_plat_set_out_dir(mnt);
        assert_int_equal(plat_file_write("t.json", "{\"ok\": true}", 12), ST_OK);
        status_t a = plat_file_write("t.json", big, sizeof(big));
        status_t b = plat_file_write("u.json", big, sizeof(big));
        p = read_back("t.json", &len);
        int left = count_entries(mnt);
        linux_plat_set_out_dir(dir);
        umount(mnt);
        assert_int_equal(a, ST_NO_SPACE);
        assert_int_equal(b, ST_NO_SPACE);
        assert_non_null(p);
        assert_int_equal(len, 12);
        free(p);
        assert_int_equal(left, 1); /* t.json only: no u.json, no temporary file */
}

static void test_lock(void **state)
{
        char  d[96];
        pid_t pid;
        int   st;
        (void)state;

        snprintf(d, sizeof(d), "%s/out/run", dir);
        assert_int_equal(linux_plat_use_out_dir(d), 0); /* created, locked */
        pid = fork();
        if (pid == 0)
                _exit(linux_plat_use_out_dir(d) == EBUSY ? 0 : 1);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_int_equal(plat_file_write("x", "1", 1), ST_OK); /* into d */
        assert_int_equal(linux_plat_use_out_dir(""), EINVAL);
        linux_plat_set_out_dir(dir);
}

static void test_new_dir(void **state)
{
        char a[128], b[128], prefix[96];
        (void)state;
        snprintf(prefix, sizeof(prefix), "%s/pmucal-", dir);
        assert_int_equal(linux_plat_new_out_dir(prefix, a, sizeof(a)), 0);
        assert_int_equal(linux_plat_new_out_dir(prefix, b, sizeof(b)), 0);
        assert_string_not_equal(a, b);
        assert_true(strlen(a) == strlen(prefix) + 16); /* YYYYMMDDTHHMMSSZ */
        assert_int_equal(linux_plat_new_out_dir(prefix, a, 8), ENAMETOOLONG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_write_whole, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_fails_partway, setup, teardown),
                cmocka_unit_test_setup_teardown(test_full_tmpfs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
                cmocka_unit_test_setup_teardown(test_new_dir, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
