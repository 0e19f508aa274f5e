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
/** Open the root of the boot volume; remembers why if it cannot. */
void uefi_file_init(void);
/** Locate MP services (absent: single-CPU operation). */
void uefi_mp_init(void);
/** True when the caller runs on an application processor (its APIC ID is not the BSP's):
 *  such code must not call boot services. */
bool uefi_on_ap(void);
/** Write one line straight to the console devices (used by the crash path). */
void uefi_con_emergency(const char *s);

/** True when the firmware reports running under QEMU (SMBIOS/CPUID), so that the
 *  isa-debug-exit port exists. */
bool uefi_under_qemu(void);
/** Leave through QEMU's isa-debug-exit device (QEMU exits with (code << 1) | 1). */
void uefi_debug_exit(unsigned code);
/** Load address of the harness's image (EFI_LOADED_IMAGE.ImageBase); 0 if unknown. */
uint64_t uefi_image_base(void);

#endif
