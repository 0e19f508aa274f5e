/** @file
 * MSRs outside the PMU that the harness reads for its inventory and its measurement windows
 * (microcode revision, SMI count, APERF/MPERF, nominal ratio) and the prefetcher controls
 * the latency sweep may switch off (boot/x86/prefetch.c). Numbers and bit macros only;
 * names follow Linux arch/x86/include/asm/msr-index.h, with the manual's name beside them.
 * None of these is guaranteed by a CPUID bit unless stated: probe with rdmsr_safe().
 */
#ifndef PMUCAL_BOOT_X86_MSR_MISC_H
#define PMUCAL_BOOT_X86_MSR_MISC_H

#include "lib/base.h"

/* IA32_BIOS_SIGN_ID: write 0, execute CPUID(1), read; revision in bits 63:32. [SDM-3A]
 * "Microcode Update Facilities"; [SDM-4] Table 2-2. On AMD the same index is PATCH_LEVEL,
 * revision in bits 31:0, read directly. [APM-2] / AMD PPR MSR0000_008B. */
#define MSR_IA32_UCODE_REV          0x8b
#define UCODE_REV_INTEL_SHIFT       32
#define UCODE_REV_AMD_MASK          0xffffffffull

/* MSR_SMI_COUNT (Intel, Nehalem and later): SMIs since reset in bits 31:0. [SDM-4] Table 2-20
 * and later model tables. Not architectural: probe. */
#define MSR_SMI_COUNT               0x34
#define SMI_COUNT_MASK              0xffffffffull

/* IA32_MPERF / IA32_APERF: exist when CPUID.06H:ECX[0]. [SDM-4] Table 2-2; AMD MPERF/APERF
 * at the same indices, [APM-2] "Determining Processor Effective Frequency". */
#define MSR_IA32_MPERF              0xe7
#define MSR_IA32_APERF              0xe8

/* MSR_PLATFORM_INFO (Intel): maximum non-turbo ratio in bits 15:8, times the 100 MHz bus
 * clock (133.33 MHz on Nehalem/Westmere). [SDM-4] Table 2-12 and later model tables. */
#define MSR_PLATFORM_INFO                   0xce
#define PLATFORM_INFO_MAX_NONTURBO_SHIFT    8
#define PLATFORM_INFO_MAX_NONTURBO_MASK     (0xffull << PLATFORM_INFO_MAX_NONTURBO_SHIFT)

/* Intel: a set bit disables. [INTEL-HWPF] "Disclosure of H/W prefetcher control on some
 * Intel processors" (2014); [SDM-4] MSR_MISC_FEATURE_CONTROL in the per-model tables. */
#define MSR_MISC_FEATURE_CONTROL            0x1a4
#define MISC_FEATURE_CONTROL_L2_HW_PF_DIS   BIT_ULL(0)
#define MISC_FEATURE_CONTROL_L2_ADJ_PF_DIS  BIT_ULL(1)
#define MISC_FEATURE_CONTROL_DCU_HW_PF_DIS  BIT_ULL(2)
#define MISC_FEATURE_CONTROL_DCU_IP_PF_DIS  BIT_ULL(3)

/* AMD: a set bit disables. [PPR-19h-11h] MSRC000_0108 [Prefetch Control]
 * (Core::X86::Msr::PrefetchControl); same bits in the family 1Ah PPR (#57238). */
#define MSR_AMD64_PREFETCH_CONTROL          0xc0000108
#define PREFETCH_CONTROL_L1_STREAM          BIT_ULL(0)
#define PREFETCH_CONTROL_L1_STRIDE          BIT_ULL(1)
#define PREFETCH_CONTROL_L1_REGION          BIT_ULL(2)
#define PREFETCH_CONTROL_L2_STREAM          BIT_ULL(3)
#define PREFETCH_CONTROL_UP_DOWN            BIT_ULL(5)

/* AMD DE_CFG (Decode Configuration): bit 1 makes LFENCE dispatch-serializing, so that
 * "lfence; rdtsc" orders the TSC read. Linux init_amd() sets it on every AMD CPU with SSE2
 * (msr-index.h MSR_AMD64_DE_CFG, MSR_AMD64_DE_CFG_LFENCE_SERIALIZE_BIT); CPUID 8000_0021H
 * EAX[2] (LFenceAlwaysSerializing) says LFENCE is serializing without it. [APM-3] CPUID
 * Fn8000_0021; AMD "Software Techniques for Managing Speculation" (2018). Probe: safe access. */
#define MSR_AMD64_DE_CFG                     0xc0011029
#define DE_CFG_LFENCE_SERIALIZE_BIT          1
#define DE_CFG_LFENCE_SERIALIZE              BIT_ULL(DE_CFG_LFENCE_SERIALIZE_BIT)

#endif
