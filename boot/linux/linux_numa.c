/** @file The hosted platform's NUMA nodes (plat_node_info, plat_alloc_pages_on_node): Linux's
 *  nodes and distances from /sys/devices/system/node (the distance table is the SLIT), and
 *  buffers bound to a node with mbind() (MPOL_BIND, strict, existing pages moved) whose every
 *  page's node is read back with move_pages(). Raw syscalls, so no libnuma is needed.
 *  PMUCAL_SYSFS, when set, is the folder read in place of /sys for the nodes (the tests' fixture
 *  of nodes this machine lacks, tests/data/sysfs-2node/, with tests/fake_numa.c's system calls). */
#define _GNU_SOURCE
#include "boot/linux/linux_plat.h"
#include "lib/log.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE            4096u
#define MAX_NODES       64u
#define MPOL_BIND_      2          /* <linux/mempolicy.h> */
#define MPOL_MF_STRICT_ (1u << 0)
#define MPOL_MF_MOVE_   (1u << 1)

static struct {
        bool     read;
        unsigned n;
        uint32_t id[MAX_NODES];
        uint8_t  dist[MAX_NODES][MAX_NODES];
} nodes;

/* The folder read as /sys: PMUCAL_SYSFS, else /sys. */
static const char *sys_root(void)
{
        const char *r = getenv("PMUCAL_SYSFS");

        return r && *r ? r : "/sys";
}

static bool read_line(const char *path, char *buf, size_t cap)
{
        FILE *f  = fopen(path, "r");
        bool  ok = f && fgets(buf, (int)cap, f);

        if (f)
                fclose(f);
        return ok;
}

/* The nodes sysfs lists (none: a kernel without NUMA) and each one's distance row. */
static void read_nodes(void)
{
        char path[PATH_MAX], line[4096];

        if (nodes.read)
                return;
        nodes.read = true;
        for (unsigned id = 0; id < 1024 && nodes.n < MAX_NODES; id++) {
                snprintf(path, sizeof(path), "%s/devices/system/node/node%u/cpulist", sys_root(),
                         id);
                if (read_line(path, line, sizeof(line)))
                        nodes.id[nodes.n++] = id;
        }
        for (unsigned i = 0; i < nodes.n; i++) {
                char    *p = line, *end;
                unsigned j = 0;

                snprintf(path, sizeof(path), "%s/devices/system/node/node%u/distance",
                         sys_root(), nodes.id[i]);
                if (!read_line(path, line, sizeof(line)))
                        continue;
                for (unsigned long d; j < nodes.n && (d = strtoul(p, &end, 10), end != p);
                     p = end, j++)
                        nodes.dist[i][j] = (uint8_t)(d > 255 ? 255 : d);
        }
}

uint32_t linux_cpu_node(unsigned cpu)
{
        char path[PATH_MAX];

        read_nodes();
        for (unsigned k = 0; k < nodes.n; k++) {
                snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/node%u", sys_root(),
                         cpu, nodes.id[k]);
                if (!access(path, F_OK))
                        return nodes.id[k];
        }
        return 0;
}

status_t plat_node_info(unsigned k, uint32_t *id, uint8_t *dist, unsigned max, unsigned *n)
{
        read_nodes();
        if (!nodes.n) { /* no NUMA in the kernel: node 0 holds everything */
                nodes.n       = 1;
                nodes.id[0]   = 0;
                nodes.dist[0][0] = 10;
        }
        if (n)
                *n = nodes.n;
        if (k >= nodes.n)
                return ST_BAD_ARG;
        if (id)
                *id = nodes.id[k];
        for (unsigned j = 0; dist && j < max; j++)
                dist[j] = j < nodes.n ? nodes.dist[k][j] : 0;
        return ST_OK;
}

/* Every page of [p, p + bytes) on node @p id (move_pages with no target nodes reports where
 * each page is): ST_OK and the pages checked, ST_BAD_DATA (the first page elsewhere said), or
 * ST_UNSUPPORTED (not asked). */
static status_t check_pages(uint8_t *p, size_t bytes, uint32_t id, unsigned *checked)
{
        size_t   n      = bytes / PAGE;
        void   **pages  = malloc(n * sizeof(*pages));
        int     *status = malloc(n * sizeof(*status));
        status_t st     = ST_UNSUPPORTED;

        for (size_t i = 0; pages && status && i < n; i++)
                pages[i] = p + i * PAGE;
        if (pages && status && !syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
                st = ST_OK;
                for (size_t i = 0; i < n && st == ST_OK; i++)
                        if (status[i] != (int)id)
                                st = log_err(ST_BAD_DATA, "move_pages: page %zu of %zu (%p) is "
                                             "on node %d, not on node %u", i, n, pages[i],
                                             status[i], id);
                *checked = st == ST_OK ? (unsigned)n : 0;
        }
        free(pages);
        free(status);
        return st;
}

status_t plat_alloc_pages_on_node(uint32_t id, size_t bytes, enum plat_page_kind want,
                                  void **out, unsigned *n_checked)
{
        unsigned long mask[16] = { 0 };
        unsigned      n_nodes  = 0, checked = 0;
        status_t      st;

        *out = NULL;
        if (n_checked)
                *n_checked = 0;
        if (id >= sizeof(mask) * 8 || plat_node_info(0, NULL, NULL, 0, &n_nodes) != ST_OK)
                return ST_BAD_ARG;
        if ((st = plat_alloc_pages(bytes, want, out, NULL)) != ST_OK)
                return st;
        mask[id / 64] = 1ul << (id % 64);
        bool bound = !syscall(SYS_mbind, *out, bytes, MPOL_BIND_, mask, sizeof(mask) * 8,
                              MPOL_MF_STRICT_ | MPOL_MF_MOVE_);
        if (!bound && (errno != ENOSYS || n_nodes > 1)) {
                int e = errno;

                st = log_err(e == EINVAL ? ST_BAD_ARG : ST_NO_MEM,
                             "mbind(%p, %zu bytes, MPOL_BIND to node %u): %s", *out, bytes, id,
                             strerror(e));
                plat_free_pages(*out, bytes);
                *out = NULL;
                return st;
        }
        memset(*out, 0, bytes); /* fault every page in, on the node now bound */
        if (!bound)
                return ST_OK; /* a kernel without NUMA: one node, nothing to check against */
        st = check_pages(*out, bytes, id, &checked);
        if (st == ST_BAD_DATA) {
                plat_free_pages(*out, bytes);
                *out = NULL;
                return st;
        }
        if (n_checked)
                *n_checked = checked;
        return ST_OK;
}
