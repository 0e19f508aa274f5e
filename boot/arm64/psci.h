/** @file
 * Arm PSCI (Power State Coordination Interface): what the harness needs to start the other
 * processors itself where the firmware offers no UEFI MP services (AAVMF, QEMU's virt
 * machine): the function IDs, the conduit (HVC or SMC) the ACPI FADT names, the return codes,
 * and the processors to start, from the MADT's GICC entries. Pure (host-tested); the calls
 * themselves are psci_call() (boot/arm64/psci_call.c) and the start-up of a processor is
 * boot/arm64/smp.h.
 *
 * [PSCI] Arm DEN0022 "Arm Power State Coordination Interface", §5.1 function IDs (SMC32 IDs
 * 0x84000000 + n, SMC64 0xC4000000 + n), §5.2.2 return codes, §5.1.5 AFFINITY_INFO states.
 * [ACPI-6.5] §5.2.9 Table 5.9 FADT "ARM_BOOT_ARCH" (offset 129, 2 bytes) and Table 5.12 its
 * flags: bit 0 PSCI_COMPLIANT, bit 1 PSCI_USE_HVC. Linux include/uapi/linux/psci.h and
 * arch/arm64/kernel/acpi.c (acpi_psci_present, acpi_psci_use_hvc) read them the same way.
 */
#ifndef PMUCAL_ARM64_PSCI_H
#define PMUCAL_ARM64_PSCI_H

#include "boot/arm64/gic.h"
#include "boot/plat.h"
#include "lib/base.h"
#include "lib/status.h"

/* Function IDs (SMC Calling Convention: fast call; 64-bit variants where an argument is an
 * address or an MPIDR). */
#define PSCI_FN_VERSION          0x84000000u
#define PSCI_FN_CPU_OFF          0x84000002u
#define PSCI_FN64_CPU_ON         0xC4000003u
#define PSCI_FN64_AFFINITY_INFO  0xC4000004u

/* Return codes. */
#define PSCI_RET_SUCCESS            0
#define PSCI_RET_NOT_SUPPORTED      (-1)
#define PSCI_RET_INVALID_PARAMETERS (-2)
#define PSCI_RET_DENIED             (-3)
#define PSCI_RET_ALREADY_ON         (-4)
#define PSCI_RET_ON_PENDING         (-5)
#define PSCI_RET_INTERNAL_FAILURE   (-6)
#define PSCI_RET_NOT_PRESENT        (-7)
#define PSCI_RET_DISABLED           (-8)
#define PSCI_RET_INVALID_ADDRESS    (-9)

/* AFFINITY_INFO results (non-negative). */
#define PSCI_AFF_ON         0
#define PSCI_AFF_OFF        1
#define PSCI_AFF_ON_PENDING 2

/* FADT ARM_BOOT_ARCH. */
#define FADT_ARM_BOOT_ARCH_OFFSET 129
#define FADT_ARM_PSCI_COMPLIANT   0x1
#define FADT_ARM_PSCI_USE_HVC     0x2

enum psci_conduit { PSCI_CONDUIT_NONE = 0, PSCI_CONDUIT_HVC, PSCI_CONDUIT_SMC };

/** The conduit the FADT @p fadt (header included, @p len bytes) names. ST_OK with HVC or
 *  SMC; ST_UNSUPPORTED (conduit NONE) when the table says the platform is not PSCI
 *  compliant; ST_BAD_DATA when it is not an FADT or too short to hold ARM_BOOT_ARCH (an
 *  ACPI 5.0 or older FADT, or an x86 one); ST_BAD_ARG for NULL. *@p why (optional) says
 *  what decided, as static text. */
status_t psci_conduit_from_fadt(const void *fadt, size_t len, enum psci_conduit *out,
                                const char **why);

/** "hvc", "smc", "none". */
const char *psci_conduit_name(enum psci_conduit c);

/** A PSCI return code as status_t: SUCCESS ST_OK; NOT_SUPPORTED and DISABLED ST_UNSUPPORTED;
 *  INVALID_PARAMETERS, INVALID_ADDRESS, ALREADY_ON and ON_PENDING ST_BAD_ARG (the caller
 *  asked for something the state does not allow); NOT_PRESENT ST_NOT_FOUND; DENIED,
 *  INTERNAL_FAILURE and anything else ST_IO. Non-negative results other than 0
 *  (AFFINITY_INFO's states) are ST_OK. */
status_t psci_status(int64_t ret);
/** The code's name in the specification ("ALREADY_ON"), "unknown" otherwise. */
const char *psci_ret_name(int64_t ret);

/** PSCI_VERSION's result as major.minor (bits [31:16] and [15:0]). */
static inline unsigned psci_version_major(uint32_t v)
{
        return v >> 16;
}
static inline unsigned psci_version_minor(uint32_t v)
{
        return v & 0xffff;
}

/** MPIDR_EL1's affinity fields packed into the 32-bit processor ID the harness uses
 *  (Aff3 << 24 | Aff2 << 16 | Aff1 << 8 | Aff0), as boot/acpi.c names a GICC processor. */
static inline uint32_t psci_mpidr_pack(uint64_t mpidr)
{
        return (uint32_t)((mpidr >> 32 & 0xff) << 24 | (mpidr & 0xffffff));
}

/** One processor the harness may start. */
struct psci_cpu {
        uint64_t mpidr;    /* affinity fields, the CPU_ON target */
        uint32_t id;       /* psci_mpidr_pack(mpidr) */
        uint32_t uid;      /* ACPI processor UID */
        bool     enabled;  /* GICC flags bit 0 */
        bool     is_boot;  /* the processor running the harness */
};

/** The processors of the MADT's GICC entries @p m, in the MADT's order, the one whose
 *  affinity is @p own_mpidr marked is_boot. At most @p max in @p out; *@p n receives how
 *  many. ST_NOT_FOUND when there is no GICC entry or none is the boot processor (the MADT
 *  does not describe this machine: the caller keeps to the boot CPU); ST_BAD_DATA when two
 *  entries give the same MPIDR; ST_NO_MEM when more than @p max. */
status_t psci_cpus_from_madt(const struct gic_madt *m, uint64_t own_mpidr,
                             struct psci_cpu *out, size_t max, size_t *n);

#endif
