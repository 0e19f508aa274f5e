/** @file
 * NUMA nodes this machine does not have, for pmucal-host's tests: an LD_PRELOAD library
 * (built by the tests alone, $(B)/host/fake_numa.so) that answers Linux's memory-policy system
 * calls, which boot/linux/linux_numa.c makes through syscall(), while PMUCAL_SYSFS points the
 * platform at a fixture tree of nodes (tests/data/sysfs-2node/). Nothing reaches the kernel:
 *   mbind          records the range and the first node of its mask, and succeeds;
 *   move_pages     with no target nodes reports each page on the node its newest mbind named
 *                  (else set_mempolicy's node, else 0); with targets, moves them in the record;
 *   get_mempolicy  with MPOL_F_NODE | MPOL_F_ADDR: the node of that address, as move_pages;
 *   set_mempolicy  records the node of its mask for pages no mbind covers.
 * Every other system call goes to the C library's syscall(). Knobs, from the environment:
 *   FAKE_NUMA_LOG=FILE              one line per call: "mbind ADDR BYTES NODE", "move_pages N",
 *                                   "get_mempolicy ADDR NODE", "set_mempolicy NODE"
 *   FAKE_NUMA_MISPLACE=NODE:PAGE:AT page PAGE of every range bound to NODE reads as on node AT
 *   FAKE_NUMA_MBIND_FAIL=NODE       mbind to NODE fails with EIO (memory the node cannot give)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE          4096ul
#define MAX_RANGES    1024
#define MPOL_F_NODE_  (1ul << 0) /* <linux/mempolicy.h> */
#define MPOL_F_ADDR_  (1ul << 1)

struct range {
        uintptr_t base, bytes;
        int       node;
};

static struct {
        pthread_mutex_t lock;
        struct range    r[MAX_RANGES];
        unsigned        n, next; /* ranges kept; the slot the next one takes */
        int             policy_node;
} fake = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
        const char *path = getenv("FAKE_NUMA_LOG");
        FILE       *f;
        va_list     ap;

        if (!path || !*path || !(f = fopen(path, "a")))
                return;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        fclose(f);
}

static int first_node(const unsigned long *mask, unsigned long maxnode)
{
        for (unsigned long b = 0; mask && b < maxnode; b++)
                if (mask[b / (8 * sizeof(long))] >> (b % (8 * sizeof(long))) & 1)
                        return (int)b;
        return -1;
}

/* The node page @p a reads as on: the newest range holding it, the misplacing knob applied. */
static int node_of(uintptr_t a)
{
        const char *mis = getenv("FAKE_NUMA_MISPLACE");
        int         node = fake.policy_node;

        for (unsigned k = 0; k < fake.n; k++) {
                const struct range *r = &fake.r[(fake.next + MAX_RANGES - 1 - k) % MAX_RANGES];
                if (a - r->base < r->bytes) {
                        int           want, at;
                        unsigned long page;
                        node = r->node;
                        if (mis && sscanf(mis, "%d:%lu:%d", &want, &page, &at) == 3 &&
                            want == node && (a - r->base) / PAGE == page)
                                node = at;
                        break;
                }
        }
        return node;
}

static long fake_mbind(uintptr_t base, unsigned long bytes, const unsigned long *mask,
                       unsigned long maxnode)
{
        const char *fail = getenv("FAKE_NUMA_MBIND_FAIL");
        int         node = first_node(mask, maxnode);

        say("mbind %#lx %lu %d", (unsigned long)base, bytes, node);
        if (node < 0 || (fail && *fail && atoi(fail) == node)) {
                errno = node < 0 ? EINVAL : EIO;
                return -1;
        }
        pthread_mutex_lock(&fake.lock);
        fake.r[fake.next] = (struct range){ base, bytes, node };
        fake.next         = (fake.next + 1) % MAX_RANGES;
        fake.n += fake.n < MAX_RANGES;
        pthread_mutex_unlock(&fake.lock);
        return 0;
}

static long fake_move_pages(unsigned long n, void **pages, const int *nodes, int *status)
{
        say("move_pages %lu", n);
        pthread_mutex_lock(&fake.lock);
        for (unsigned long i = 0; i < n; i++) {
                uintptr_t a = (uintptr_t)pages[i] & ~(PAGE - 1);
                if (nodes && fake.n < MAX_RANGES) { /* a move: this page's own range */
                        fake.r[fake.next] = (struct range){ a, PAGE, nodes[i] };
                        fake.next         = (fake.next + 1) % MAX_RANGES;
                        fake.n++;
                }
                status[i] = node_of(a);
        }
        pthread_mutex_unlock(&fake.lock);
        return 0;
}

static long fake_get_mempolicy(int *mode, unsigned long *mask, unsigned long maxnode,
                               uintptr_t addr, unsigned long flags)
{
        (void)mask;
        (void)maxnode;
        if (flags != (MPOL_F_NODE_ | MPOL_F_ADDR_) || !mode) {
                errno = EINVAL;
                return -1;
        }
        pthread_mutex_lock(&fake.lock);
        *mode = node_of(addr & ~(PAGE - 1));
        pthread_mutex_unlock(&fake.lock);
        say("get_mempolicy %#lx %d", (unsigned long)addr, *mode);
        return 0;
}

static long fake_set_mempolicy(const unsigned long *mask, unsigned long maxnode)
{
        int node = first_node(mask, maxnode);

        say("set_mempolicy %d", node);
        fake.policy_node = node < 0 ? 0 : node;
        return 0;
}

long syscall(long nr, ...)
{
        static long (*real)(long, ...);
        va_list     ap;
        long        a[6];

        va_start(ap, nr);
        for (unsigned i = 0; i < 6; i++)
                a[i] = va_arg(ap, long);
        va_end(ap);
        switch (nr) {
        case SYS_mbind:
                return fake_mbind((uintptr_t)a[0], (unsigned long)a[1],
                                  (const unsigned long *)a[3], (unsigned long)a[4]);
        case SYS_move_pages:
                return fake_move_pages((unsigned long)a[1], (void **)a[2], (const int *)a[3],
                                       (int *)a[4]);
        case SYS_get_mempolicy:
                return fake_get_mempolicy((int *)a[0], (unsigned long *)a[1], (unsigned long)a[2],
                                          (uintptr_t)a[3], (unsigned long)a[4]);
        case SYS_set_mempolicy:
                return fake_set_mempolicy((const unsigned long *)a[1], (unsigned long)a[2]);
        }
        if (!real)
                real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
        return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
