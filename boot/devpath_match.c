/** @file
 * Device path comparison up to the MAC address node (boot/devpath_match.h).
 */
#include "boot/devpath_match.h"

#include <stdint.h>

/* A node's length: the two bytes after its type and sub-type, little-endian. */
static size_t node_len(const uint8_t *p)
{
        return (size_t)p[2] | (size_t)p[3] << 8;
}

bool devpath_same_nic(const void *a, const void *b, size_t max_nodes)
{
        const uint8_t *p = a, *q = b;

        if (!p || !q)
                return false;
        for (size_t k = 0; k < max_nodes; k++) {
                size_t n = node_len(p);

                if (p[0] == DEVPATH_TYPE_END || q[0] == DEVPATH_TYPE_END)
                        return false;
                if (n < 4 || node_len(q) != n)
                        return false;
                for (size_t i = 0; i < n; i++)
                        if (p[i] != q[i])
                                return false;
                if (p[0] == DEVPATH_TYPE_MESSAGING && p[1] == DEVPATH_SUBTYPE_MAC &&
                    n >= DEVPATH_MAC_LEN)
                        return true;
                p += n;
                q += n;
        }
        return false;
}

int devpath_pick_nic(const void *image, const void *const *cand, size_t n, size_t max_nodes)
{
        for (size_t i = 0; i < n; i++)
                if (devpath_same_nic(image, cand[i], max_nodes))
                        return (int)i;
        return -1;
}
