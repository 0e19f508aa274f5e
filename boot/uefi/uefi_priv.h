/** @file
 * Shared state of the UEFI glue (boot/uefi/ only; the one place besides those files that
 * sees <efi.h>). Everything here is set up by efi_main before the portable program runs.
 */
#ifndef PMUCAL_UEFI_PRIV_H
#define PMUCAL_UEFI_PRIV_H

#include <efi.h>
#include <efilib.h>

#include "boot/plat.h"

extern EFI_HANDLE        uefi_image;
extern EFI_SYSTEM_TABLE *uefi_st;

/** The one conversion from EFI_STATUS to status_t. */
status_t uefi_status(EFI_STATUS st);

/** Console set-up: find serial ports the firmware console does not already mirror to. */
void uefi_con_init(bool serial);
/** Open the root of the volume the image @p image was loaded from; remembers why if it
 *  cannot. */
void uefi_file_init(EFI_HANDLE image);
/** The boot volume's device path as text (for plat_info); NULL before uefi_file_init or
 *  when the image has no device. */
const char *uefi_boot_volume(void);
/** The image was PXE-booted from the NIC @p device (no file system there): remember the TFTP
 *  server and the boot file's folder (uefi_net.c). Does nothing for any other device. */
void uefi_net_init(EFI_HANDLE device);
/** "tftp://SERVER/BOOTFILE" the image came from; NULL when it did not come over the network. */
const char *uefi_net_source(void);
/** Read the file named by the last component of @p path from beside the boot file on the
 *  server (at most @p max bytes: ST_NO_SPACE when larger), NUL-terminated, caller frees. */
status_t uefi_net_read(const char *path, size_t max, char **buf, size_t *len);
/** Locate MP services (absent: single-CPU operation). */
void uefi_mp_init(void);
/** True when the caller runs on an application processor (its APIC ID is not the BSP's):
 *  such code must not call boot services. */
bool uefi_on_ap(void);
/** True when the firmware has MP services (AAVMF has none). */
bool uefi_mp_present(void);
/** How the other processors are listed and started: "firmware MP services", the
 *  architecture's own way (uefi_own_mp_method), or NULL when only the BSP runs. */
const char *uefi_mp_method(void);
/** Write one line straight to the console devices (used by the crash path). */
void uefi_con_emergency(const char *s);

/* Per architecture (boot/uefi/x86/uefi_excl.c on x86-64, boot/uefi/arm64/uefi_arm64.c on AArch64). */

/** Install the harness's exception handlers (x86-64: its IDT with #UD/#GP; AArch64: check
 *  EL1 and remember the firmware's VBAR_EL1); false when it could not. */
bool trap_install(void);
/** Put the firmware's exception handlers back. */
void trap_restore(void);
/** The calling processor's ID as the firmware's MP services name it (x86-64: x2APIC or
 *  initial APIC ID; AArch64: MPIDR_EL1 affinity). */
uint32_t uefi_own_cpu_id(void);
/** Processors started by the harness itself where the firmware has no MP services
 *  (AArch64: PSCI CPU_ON for the MADT's GICC entries, boot/arm64/smp.h; x86-64: none).
 *  uefi_own_mp_init returns how many processors it knows, BSP included, or 0 when it cannot
 *  start any (the BSP alone runs then); the other three follow plat_cpu_info (describe),
 *  plat_cpu_start and plat_cpu_join. */
unsigned    uefi_own_mp_init(void);
const char *uefi_own_mp_method(void);
status_t    uefi_own_mp_describe(unsigned idx, struct plat_cpu *out);
status_t    uefi_own_mp_start(unsigned idx, void (*fn)(void *arg), void *arg);
status_t    uefi_own_mp_join(unsigned idx, uint32_t timeout_us);
/** Around a harness procedure run on an application processor: take the harness's
 *  exception handlers on that CPU, and give the firmware's back (@p saved holds them). */
void uefi_ap_enter(uint64_t saved[2]);
void uefi_ap_leave(const uint64_t saved[2]);

/** The page size the live (firmware, identity-mapped) page tables use for @p va; per
 *  architecture (boot/uefi/x86/uefi_excl.c, boot/uefi/arm64/uefi_arm64.c). */
enum plat_page_kind uefi_mapped_page_kind(uint64_t va);

/** True when the firmware reports running under QEMU (CPUID on x86, the ACPI tables' OEM ID
 *  on AArch64), so that the debug-exit path (isa-debug-exit, semihosting) exists. */
bool uefi_under_qemu(void);
/** Leave QEMU with exit code (code << 1) | 1: isa-debug-exit on x86, semihosting
 *  SYS_EXIT_EXTENDED on AArch64. Returns when the device is not there. */
void uefi_debug_exit(unsigned code);
/** Load address of the harness's image (EFI_LOADED_IMAGE.ImageBase); 0 if unknown. */
uint64_t uefi_image_base(void);

#endif
