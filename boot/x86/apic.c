/** @file Local APIC value computations (see apic.h). Pure. */
#include "boot/x86/apic.h"

#define PHYS_BITS_MIN 36

enum apic_mode apic_mode_from_base(uint64_t apic_base)
{
        if (!(apic_base & MSR_IA32_APICBASE_ENABLE))
                return APIC_MODE_DISABLED;
        return (apic_base & X2APIC_ENABLE) ? APIC_MODE_X2APIC : APIC_MODE_XAPIC;
}

uint64_t apic_mmio_base(uint64_t apic_base, unsigned phys_bits)
{
        if (phys_bits == 0)
                phys_bits = PHYS_BITS_MIN;
        uint64_t top = phys_bits >= 64 ? ~0ull : BIT_ULL(phys_bits) - 1;
        return apic_base & MSR_IA32_APICBASE_BASE & top;
}

uint32_t apic_x2apic_msr(uint32_t offset)
{
        return APIC_BASE_MSR + (offset >> 4);
}

uint32_t apic_lvt_value(enum apic_delivery how, uint8_t vector, bool masked, bool *ok)
{
        uint32_t v;

        *ok = true;
        if (how == APIC_DELIVER_NMI) {
                v = APIC_DM_NMI; /* vector ignored for NMI delivery [SDM-3A] LVT */
        } else {
                /* Vectors 0-15 are reserved; the APIC flags an illegal vector. [SDM-3A] */
                if (vector < 16) {
                        *ok = false;
                        return 0;
                }
                v = APIC_DM_FIXED | vector;
        }
        return masked ? v | APIC_LVT_MASKED : v;
}

uint32_t apic_lvt_unmask(uint32_t lvt)
{
        return lvt & ~APIC_LVT_MASKED;
}

void apic_pmi_rearm(void (*write)(uint32_t off, uint32_t v), uint32_t lvt, int ext)
{
        write(APIC_LVTPC, apic_lvt_unmask(lvt));
        if (ext >= 0)
                write(APIC_EILVT((unsigned)ext), apic_lvt_unmask(lvt));
}

uint64_t apic_icr_self_nmi(enum apic_mode mode, uint32_t dest, bool *ok)
{
        /* Destination shorthand "self" is valid only with fixed delivery, so the NMI names
         * this processor's own ID in physical mode. [SDM-3A] ICR, "Valid Combinations" */
        uint32_t lo = APIC_DM_NMI | APIC_INT_ASSERT;

        *ok = true;
        if (mode == APIC_MODE_X2APIC)
                return (uint64_t)dest << 32 | lo;
        if (mode != APIC_MODE_XAPIC || dest > 0xff) {
                *ok = false;
                return 0;
        }
        return (uint64_t)(dest << APIC_DEST_SHIFT) << 32 | lo;
}

const char *apic_mode_name(enum apic_mode mode)
{
        switch (mode) {
        case APIC_MODE_XAPIC:
                return "xAPIC";
        case APIC_MODE_X2APIC:
                return "x2APIC";
        default:
                return "disabled";
        }
}
