/** @file
 * Other processors, through the firmware's MP services protocol. GNU-EFI has no header for
 * it, so it is declared here from [PI-1.8] Vol. 2 §13.4 "EFI_MP_SERVICES_PROTOCOL" (edk2
 * MdePkg/Include/Protocol/MpService.h has the same layout). Without the protocol the
 * architecture may start the processors itself (AArch64: PSCI CPU_ON for the MADT's GICC
 * entries, boot/arm64/smp.h, through the uefi_own_mp_* calls of uefi_priv.h); where it
 * cannot, only the BSP is reported and runs work.
 */
#include "boot/uefi/uefi_priv.h"


#define EFI_MP_SERVICES_PROTOCOL_GUID                                                       \
        { 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

/* StatusFlag bits. */
#define PROCESSOR_AS_BSP_BIT        0x00000001
#define PROCESSOR_ENABLED_BIT       0x00000002
#define PROCESSOR_HEALTH_STATUS_BIT 0x00000004

typedef struct {
        UINT32 Package;
        UINT32 Core;
        UINT32 Thread;
} EFI_CPU_PHYSICAL_LOCATION;

/* The PI 1.7 ExtendedInformation member is only filled when CPU_V2_EXTENDED_TOPOLOGY is set
 * in the processor number; we never set it, but keep room for it. */
typedef struct {
        UINT64                    ProcessorId;
        UINT32                    StatusFlag;
        EFI_CPU_PHYSICAL_LOCATION Location;
        UINT32                    ExtendedInformation[6];
} EFI_PROCESSOR_INFORMATION;

typedef VOID(EFIAPI *EFI_AP_PROCEDURE)(VOID *ProcedureArgument);

struct _EFI_MP_SERVICES_PROTOCOL;
typedef struct _EFI_MP_SERVICES_PROTOCOL EFI_MP_SERVICES_PROTOCOL;

struct _EFI_MP_SERVICES_PROTOCOL {
        EFI_STATUS(EFIAPI *GetNumberOfProcessors)(EFI_MP_SERVICES_PROTOCOL *This,
                                                  UINTN *NumberOfProcessors,
                                                  UINTN *NumberOfEnabledProcessors);
        EFI_STATUS(EFIAPI *GetProcessorInfo)(EFI_MP_SERVICES_PROTOCOL *This,
                                             UINTN ProcessorNumber,
                                             EFI_PROCESSOR_INFORMATION *ProcessorInfoBuffer);
        EFI_STATUS(EFIAPI *StartupAllAPs)(EFI_MP_SERVICES_PROTOCOL *This,
                                          EFI_AP_PROCEDURE Procedure, BOOLEAN SingleThread,
                                          EFI_EVENT WaitEvent, UINTN TimeoutInMicroSeconds,
                                          VOID *ProcedureArgument, UINTN **FailedCpuList);
        EFI_STATUS(EFIAPI *StartupThisAP)(EFI_MP_SERVICES_PROTOCOL *This,
                                          EFI_AP_PROCEDURE Procedure, UINTN ProcessorNumber,
                                          EFI_EVENT WaitEvent, UINTN TimeoutInMicroseconds,
                                          VOID *ProcedureArgument, BOOLEAN *Finished);
        EFI_STATUS(EFIAPI *SwitchBSP)(EFI_MP_SERVICES_PROTOCOL *This, UINTN ProcessorNumber,
                                      BOOLEAN EnableOldBSP);
        EFI_STATUS(EFIAPI *EnableDisableAP)(EFI_MP_SERVICES_PROTOCOL *This,
                                            UINTN ProcessorNumber, BOOLEAN EnableAP,
                                            UINT32 *HealthFlag);
        EFI_STATUS(EFIAPI *WhoAmI)(EFI_MP_SERVICES_PROTOCOL *This, UINTN *ProcessorNumber);
};


static EFI_MP_SERVICES_PROTOCOL *mp;
static UINTN                     n_cpus = 1;
static uint32_t                  bsp_apic_id;
static bool                      own_mp; /* the architecture's own start-up serves instead */

bool uefi_on_ap(void)
{
        return uefi_own_cpu_id() != bsp_apic_id;
}

void uefi_mp_init(void)
{
        EFI_GUID guid = EFI_MP_SERVICES_PROTOCOL_GUID;
        UINTN    n, n_enabled;

        mp = NULL;
        n_cpus = 1;
        own_mp = false;
        bsp_apic_id = uefi_own_cpu_id();
        if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &guid, NULL, (void **)&mp)))
                mp = NULL;
        if (mp && !EFI_ERROR(mp->GetNumberOfProcessors(mp, &n, &n_enabled)) && n >= 1)
                n_cpus = n;
        if (!mp && (n = uefi_own_mp_init()) >= 1) {
                own_mp = true;
                n_cpus = n;
        }
}

const char *uefi_mp_method(void)
{
        return mp ? "firmware MP services" : own_mp ? uefi_own_mp_method() : NULL;
}

bool uefi_mp_present(void)
{
        return mp != NULL;
}

static unsigned cpu_count(void)
{
        return (unsigned)n_cpus;
}

static status_t cpu_describe(unsigned idx, struct plat_cpu *out)
{
        EFI_PROCESSOR_INFORMATION info;

        *out = (struct plat_cpu){ 0 };
        if (idx >= n_cpus)
                return ST_BAD_ARG;
        if (own_mp)
                return uefi_own_mp_describe(idx, out);
        if (!mp) { /* the BSP only */
                *out = (struct plat_cpu){ .apic_id = bsp_apic_id, .enabled = true,
                                          .is_bsp = true };
                return ST_OK;
        }
        EFI_STATUS st = mp->GetProcessorInfo(mp, idx, &info);
        if (EFI_ERROR(st))
                return uefi_status(st);
        out->apic_id = (uint32_t)info.ProcessorId;
        out->enabled = info.StatusFlag & PROCESSOR_ENABLED_BIT;
        out->is_bsp  = info.StatusFlag & PROCESSOR_AS_BSP_BIT;
        out->package = info.Location.Package;
        out->core    = info.Location.Core;
        out->thread  = info.Location.Thread;
        return ST_OK;
}

/* One call per AP at a time (boot/mp.c parks each AP once). The wrapper runs the AP with
 * the harness's exception handlers (x86-64: its IDT), so a fault on it reaches the harness's
 * handler, and puts the AP's own back before it returns to the firmware. */
struct ap_call {
        void (*fn)(void *arg);
        void     *arg;
        EFI_EVENT done;
        BOOLEAN   busy;
};

static struct ap_call *calls;

static VOID EFIAPI ap_trampoline(VOID *p)
{
        struct ap_call *c = p;
        uint64_t        saved[2];

        uefi_ap_enter(saved);
        c->fn(c->arg);
        uefi_ap_leave(saved);
}

status_t plat_cpu_start(unsigned idx, void (*fn)(void *arg), void *arg)
{
        struct plat_cpu cpu;
        status_t        st;
        EFI_STATUS      est;

        if (!fn || (st = cpu_describe(idx, &cpu)) != ST_OK || cpu.is_bsp)
                return ST_BAD_ARG;
        if (own_mp)
                return uefi_own_mp_start(idx, fn, arg);
        if (!mp || !cpu.enabled)
                return ST_UNSUPPORTED;
        if (!calls && !(calls = plat_alloc(n_cpus * sizeof(*calls))))
                return ST_NO_MEM;
        struct ap_call *c = &calls[idx];
        if (c->busy)
                return ST_BAD_ARG;
        est = uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL, &c->done);
        if (EFI_ERROR(est))
                return uefi_status(est);
        c->fn   = fn;
        c->arg  = arg;
        /* Non-blocking: with a WaitEvent, StartupThisAP returns at once and the firmware
         * signals the event when the procedure returns. [PI-1.8] Vol. 2 StartupThisAP() */
        est = mp->StartupThisAP(mp, ap_trampoline, idx, c->done, 0, c, NULL);
        if (EFI_ERROR(est)) {
                uefi_call_wrapper(BS->CloseEvent, 1, c->done);
                return uefi_status(est);
        }
        c->busy = TRUE;
        return ST_OK;
}

status_t plat_cpu_join(unsigned idx, uint32_t timeout_us)
{
        struct ap_call *c = calls && idx < n_cpus ? &calls[idx] : NULL;

        if (own_mp)
                return uefi_own_mp_join(idx, timeout_us);
        if (!c || !c->busy)
                return ST_OK;
        /* The firmware notices a finished AP from a timer callback (edk2 checks every
         * 100 ms), so poll at normal TPL. */
        for (uint32_t t = 0;; t += 1000) {
                if (uefi_call_wrapper(BS->CheckEvent, 1, c->done) == EFI_SUCCESS) {
                        uefi_call_wrapper(BS->CloseEvent, 1, c->done);
                        c->busy = FALSE;
                        return ST_OK;
                }
                if (t >= timeout_us)
                        return ST_TIMEOUT;
                uefi_call_wrapper(BS->Stall, 1, 1000);
        }
}

status_t plat_cpu_info(unsigned idx, struct plat_cpu *out, unsigned *n_total)
{
        if (n_total)
                *n_total = cpu_count();
        if (!out)
                return idx < cpu_count() ? ST_OK : ST_BAD_ARG;
        return cpu_describe(idx, out);
}
