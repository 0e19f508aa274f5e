/** @file Tests of the NIC device path comparison (boot/devpath_match.c): device paths
 * built node by node as [UEFI-2.10] 10.3 lays them out, as OVMF gives a virtio-net NIC, its
 * PXE child (MAC then IPv4) and an HTTP boot's image (MAC, IPv4, URI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/devpath_match.h"

#define PATH_MAX_BYTES 256

struct path {
        uint8_t b[PATH_MAX_BYTES];
        size_t  len;
};

static void node(struct path *p, uint8_t type, uint8_t sub, const uint8_t *body, size_t n)
{
        size_t len = 4 + n;

        assert_true(p->len + len <= sizeof(p->b));
        p->b[p->len]     = type;
        p->b[p->len + 1] = sub;
        p->b[p->len + 2] = (uint8_t)len;
        p->b[p->len + 3] = (uint8_t)(len >> 8);
        if (n)
                memcpy(p->b + p->len + 4, body, n);
        p->len += len;
}

/* 10.3.3 ACPI node (type 2, sub-type 1): _HID PNP0A03 (a PCI root bridge), _UID 0. */
static void pci_root(struct path *p)
{
        const uint8_t body[8] = { 0xd0, 0x41, 0x03, 0x0a, 0, 0, 0, 0 };
        node(p, 2, 1, body, sizeof(body));
}

/* 10.3.2.1 PCI node (type 1, sub-type 1): Function, then Device. */
static void pci(struct path *p, uint8_t dev, uint8_t fn)
{
        const uint8_t body[2] = { fn, dev };
        node(p, 1, 1, body, sizeof(body));
}

/* 10.3.4.11 MAC node: 32 bytes of address (6 used, zero padded) and IfType (1: Ethernet). */
static void mac(struct path *p, const uint8_t m[6], uint8_t if_type)
{
        uint8_t body[33] = { 0 };
        memcpy(body, m, 6);
        body[32] = if_type;
        node(p, DEVPATH_TYPE_MESSAGING, DEVPATH_SUBTYPE_MAC, body, sizeof(body));
}

/* 10.3.4.12 IPv4 node (sub-type 12, 27 bytes): a DHCP address 10.0.2.15. */
static void ipv4(struct path *p)
{
        uint8_t body[23] = { 10, 0, 2, 15, 10, 0, 2, 2 };
        node(p, DEVPATH_TYPE_MESSAGING, 12, body, sizeof(body));
}

/* 10.3.4.23 URI node (sub-type 24): the URL, not NUL-terminated. */
static void uri(struct path *p, const char *url)
{
        node(p, DEVPATH_TYPE_MESSAGING, 24, (const uint8_t *)url, strlen(url));
}

/* 10.3.5.1 hard drive node (media, type 4, sub-type 1), 42 bytes; contents irrelevant. */
static void hd(struct path *p)
{
        uint8_t body[38] = { 1 };
        node(p, 4, 1, body, sizeof(body));
}

static void end(struct path *p)
{
        node(p, DEVPATH_TYPE_END, 0xff, NULL, 0);
}

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x57 };

/* A NIC's own handle: PciRoot/Pci(dev,0)/MAC(m). */
static void nic(struct path *p, uint8_t dev, const uint8_t m[6])
{
        memset(p, 0, sizeof(*p));
        pci_root(p);
        pci(p, dev, 0);
        mac(p, m, 1);
        end(p);
}

/* The PXE-booted image's device: the second NIC's PXE child (MAC, then IPv4). The first NIC
 * the firmware lists is another one; the second candidate is the boot NIC. */
static void pxe_image_picks_its_own_nic_not_the_first(void **state)
{
        struct path img = { 0 }, n1, n2;
        (void)state;
        pci_root(&img);
        pci(&img, 3, 0);
        mac(&img, mac_b, 1);
        ipv4(&img);
        end(&img);
        nic(&n1, 2, mac_a);
        nic(&n2, 3, mac_b);
        const void *cand[] = { n1.b, n2.b };
        assert_int_equal(devpath_pick_nic(img.b, cand, 2, 64), 1);
        assert_false(devpath_same_nic(img.b, n1.b, 64));
        assert_true(devpath_same_nic(img.b, n2.b, 64));
}

/* An HTTP boot's image: MAC, IPv4 and URI after the NIC's nodes. */
static void http_image_matches_its_nic(void **state)
{
        struct path img = { 0 }, n1, n2;
        (void)state;
        pci_root(&img);
        pci(&img, 2, 0);
        mac(&img, mac_a, 1);
        ipv4(&img);
        uri(&img, "http://10.0.2.2:8000/pmucal.efi");
        end(&img);
        nic(&n1, 2, mac_a);
        nic(&n2, 3, mac_b);
        const void *cand[] = { n2.b, n1.b };
        assert_int_equal(devpath_pick_nic(img.b, cand, 2, 64), 1);
}

/* The same MAC address behind another PCI function is another NIC; so is the same PCI
 * function with another address or interface type. */
static void every_node_through_the_mac_counts(void **state)
{
        struct path img, other;
        (void)state;
        nic(&img, 3, mac_a);
        nic(&other, 4, mac_a);
        assert_false(devpath_same_nic(img.b, other.b, 64));
        nic(&other, 3, mac_b);
        assert_false(devpath_same_nic(img.b, other.b, 64));
        memset(&other, 0, sizeof(other));
        pci_root(&other);
        pci(&other, 3, 0);
        mac(&other, mac_a, 6);
        end(&other);
        assert_false(devpath_same_nic(img.b, other.b, 64));
        /* nodes after the MAC (a VLAN, an IPv4 child) do not matter */
        memset(&other, 0, sizeof(other));
        pci_root(&other);
        pci(&other, 3, 0);
        mac(&other, mac_a, 1);
        ipv4(&other);
        end(&other);
        assert_true(devpath_same_nic(img.b, other.b, 64));
}

/* A disk-booted image (no MAC node) matches no NIC, not even one on the same PCI prefix;
 * nor does a NIC path cut short (end before the MAC). */
static void no_mac_no_match(void **state)
{
        struct path img = { 0 }, n1, short_nic = { 0 };
        (void)state;
        pci_root(&img);
        pci(&img, 2, 0);
        hd(&img);
        end(&img);
        nic(&n1, 2, mac_a);
        const void *cand[] = { n1.b };
        assert_int_equal(devpath_pick_nic(img.b, cand, 1, 64), -1);
        pci_root(&short_nic);
        pci(&short_nic, 2, 0);
        end(&short_nic);
        assert_false(devpath_same_nic(short_nic.b, short_nic.b, 64));
        assert_true(devpath_same_nic(n1.b, n1.b, 64));
}

/* NULL paths, a NULL candidate, a node of length 0 (it would never advance) and the node
 * bound. */
static void malformed_and_absent(void **state)
{
        struct path n1, bad = { 0 };
        (void)state;
        nic(&n1, 2, mac_a);
        assert_false(devpath_same_nic(NULL, n1.b, 64));
        assert_false(devpath_same_nic(n1.b, NULL, 64));
        const void *cand[] = { NULL, n1.b };
        assert_int_equal(devpath_pick_nic(n1.b, cand, 2, 64), 1);
        assert_int_equal(devpath_pick_nic(NULL, cand, 2, 64), -1);
        bad.b[0] = 1; /* type 1, sub-type 1, length 0 */
        bad.b[1] = 1;
        assert_false(devpath_same_nic(bad.b, bad.b, 64));
        /* the MAC is the third node: two nodes read are not enough */
        assert_false(devpath_same_nic(n1.b, n1.b, 2));
        assert_true(devpath_same_nic(n1.b, n1.b, 3));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(pxe_image_picks_its_own_nic_not_the_first),
                cmocka_unit_test(http_image_matches_its_nic),
                cmocka_unit_test(every_node_through_the_mac_counts),
                cmocka_unit_test(no_mac_no_match),
                cmocka_unit_test(malformed_and_absent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
