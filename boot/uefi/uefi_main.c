/** @file
 * UEFI entry point: take the machine (watchdog off, own exception handlers), run the portable
 * program, give everything back, then leave as the config says: return to the firmware, shut
 * down, reboot, or (under QEMU) exit through isa-debug-exit with the program's status.
 */
#include "boot/uefi/uefi_priv.h"


#include "boot/plat.h"

EFI_HANDLE        uefi_image;
EFI_SYSTEM_TABLE *uefi_st;

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
        struct pmucal_outcome out = { .debug_exit = -1 };

        InitializeLib(image, systab);
        uefi_image = image;
        uefi_st    = systab;

        /* The boot manager arms a 5-minute watchdog before starting an application; a full
         * calibration takes longer. UEFI spec "EFI_BOOT_SERVICES.SetWatchdogTimer()". */
        uefi_call_wrapper(BS->SetWatchdogTimer, 4, 0, 0, 0, NULL);
        uefi_con_init(true);
        uefi_file_init(image);
        uefi_mp_init();
        if (!trap_install())
                uefi_con_emergency("WARN: could not install exception handlers: MSR probes "
                                   "will be reported unsupported\n");

        pmucal_main(&out);

        trap_restore();

        bool dbg = out.debug_exit == 1 || (out.debug_exit == -1 && uefi_under_qemu());
        if (dbg)
                uefi_debug_exit((unsigned)out.exit_code);
        switch (out.leave) {
        case PMUCAL_LEAVE_SHUTDOWN:
                uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
                break;
        case PMUCAL_LEAVE_REBOOT:
                uefi_call_wrapper(RT->ResetSystem, 4, EfiResetCold, EFI_SUCCESS, 0, NULL);
                break;
        case PMUCAL_LEAVE_RETURN:
                break;
        }
        return out.exit_code == PMUCAL_EXIT_OK ? EFI_SUCCESS : EFI_ABORTED;
}
