/** @file
 * Which NIC a device path names: two device paths name the same NIC when they agree node for
 * node up to and including the first MAC address node, for the firmware build's choice of NIC
 * (boot/uefi/uefi_net.c). Portable C over the bytes of the paths (no <efi.h>), so the host
 * tests link it from the boot layer.
 * [UEFI-2.10] 10.2 EFI_DEVICE_PATH_PROTOCOL node header (Type, SubType, 16-bit little-endian
 * Length counting the header); 10.3.1 end node (type 0x7F, sub-type 0xFF);
 * 10.3.4.11 MAC address node (messaging type 3, sub-type 11, 37 bytes: MacAddress[32], IfType).
 */
#ifndef PMUCAL_BOOT_DEVPATH_MATCH_H
#define PMUCAL_BOOT_DEVPATH_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#define DEVPATH_TYPE_MESSAGING 0x03
#define DEVPATH_SUBTYPE_MAC    0x0b
#define DEVPATH_MAC_LEN        37
#define DEVPATH_TYPE_END       0x7f

/** True when @p a and @p b (device paths, each ending in an end node) hold the same nodes up
 * to and including a MAC address node: the same NIC. False when either path has no MAC node
 * before it ends or diverges earlier, or when a node is malformed (length under 4); at most
 * @p max_nodes nodes of each are read. A NULL path matches nothing. */
bool devpath_same_nic(const void *a, const void *b, size_t max_nodes);

/** The index of the first of @p n device paths @p cand that names the same NIC as @p image
 * (devpath_same_nic); -1 when none does (a NULL candidate is skipped). */
int devpath_pick_nic(const void *image, const void *const *cand, size_t n, size_t max_nodes);

#endif
