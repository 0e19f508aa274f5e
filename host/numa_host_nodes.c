/** @file pmucal-host --numa's view of the machine (see host/numa_host.h): Linux's nodes and
 *  distances from sysfs, and buffers bound to a node with mbind() whose every page's node is
 *  read back with move_pages(). Raw syscalls, so no libnuma is needed. */
#define _GNU_SOURCE
#include "host/numa_host.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE            4096u
#define MPOL_BIND_      2          /* <linux/mempolicy.h> */
#define MPOL_MF_STRICT_ (1u << 0)
#define MPOL_MF_MOVE_   (1u << 1)

/* "0-3,8,10-11" into the CPUs of @p set: true when the list parsed. */
static bool parse_cpulist(const char *s, const cpu_set_t *allowed, struct host_numa_node *n)
{
        while (*s && *s != '\n') {
                char         *end;
                unsigned long lo = strtoul(s, &end, 10), hi = lo;
                if (end == s)
                        return false;
                if (*end == '-')
                        hi = strtoul(end + 1, &end, 10);
                for (unsigned long c = lo; c <= hi && c < CPU_SETSIZE; c++)
                        if (CPU_ISSET(c, allowed) && n->n_cpus < MAX_CPUS)
                                n->cpu[n->n_cpus++] = (unsigned)c;
                s = *end == ',' ? end + 1 : end;
        }
        return true;
}

static bool read_line(const char *path, char *buf, size_t cap)
{
        FILE *f = fopen(path, "r");
        bool  ok = f && fgets(buf, (int)cap, f);

        if (f)
                fclose(f);
        return ok;
}

unsigned host_numa_read_nodes(struct host_numa_node *nodes, uint32_t *pd, struct acpi_slit *slit,
                              bool *have_slit)
{
        cpu_set_t allowed;
        char      path[96], line[4096];
        unsigned  n_nodes = 0;

        *have_slit = false;
        if (sched_getaffinity(0, sizeof(allowed), &allowed))
                CPU_ZERO(&allowed);
        for (unsigned id = 0; id < 1024 && n_nodes < NUMA_MAX_NODES; id++) {
                snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/cpulist", id);
                if (!read_line(path, line, sizeof(line)))
                        continue;
                nodes[n_nodes] = (struct host_numa_node){ .id = id };
                parse_cpulist(line, &allowed, &nodes[n_nodes]);
                pd[n_nodes] = id;
                n_nodes++;
        }
        if (!n_nodes) {
                nodes[0] = (struct host_numa_node){ .id = 0 };
                for (unsigned c = 0; c < CPU_SETSIZE && nodes[0].n_cpus < MAX_CPUS; c++)
                        if (CPU_ISSET(c, &allowed))
                                nodes[0].cpu[nodes[0].n_cpus++] = c;
                pd[0] = 0;
                return 1;
        }
        *have_slit = true;
        slit->n    = n_nodes;
        for (unsigned i = 0; i < n_nodes && *have_slit; i++) {
                char    *p = line, *end;
                unsigned j = 0;
                snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/distance",
                         nodes[i].id);
                if (!read_line(path, line, sizeof(line))) {
                        *have_slit = false;
                        break;
                }
                for (unsigned long d; j < n_nodes && (d = strtoul(p, &end, 10), end != p);
                     p = end, j++)
                        slit->dist[i][j] = (uint8_t)(d > 255 ? 255 : d);
                *have_slit = j == n_nodes;
        }
        return n_nodes;
}

uint8_t *host_numa_place(unsigned id, size_t bytes, unsigned n_nodes, unsigned *checked,
                         char *why, size_t cap)
{
        unsigned long mask[16] = { 0 };
        uint8_t      *p;
        size_t        n = bytes / PAGE;

        *checked = 0;
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
                snprintf(why, cap, "mmap of %zu bytes: %s", bytes, strerror(errno));
                return NULL;
        }
        mask[id / 64] = 1ul << (id % 64);
        bool bound = !syscall(SYS_mbind, p, bytes, MPOL_BIND_, mask, 1024ul,
                              MPOL_MF_STRICT_ | MPOL_MF_MOVE_);
        if (!bound && (errno != ENOSYS || n_nodes > 1)) {
                snprintf(why, cap, "mbind to node %u: %s", id, strerror(errno));
                munmap(p, bytes);
                return NULL;
        }
        memset(p, 1, bytes);
        if (!bound)
                return p; /* a kernel without NUMA: one node, nothing to check against */
        void **pages  = malloc(n * sizeof(*pages));
        int   *status = malloc(n * sizeof(*status));
        for (size_t i = 0; pages && status && i < n; i++)
                pages[i] = p + i * PAGE;
        if (pages && status && !syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
                for (size_t i = 0; i < n && !why[0]; i++)
                        if (status[i] != (int)id)
                                snprintf(why, cap, "page %zu of the buffer is on node %d, not %u",
                                         i, status[i], id);
                *checked = why[0] ? 0 : (unsigned)n;
        }
        free(pages);
        free(status);
        if (why[0]) {
                munmap(p, bytes);
                return NULL;
        }
        return p;
}

