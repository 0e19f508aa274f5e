/* The per-processor fault fixups of the #UD/#GP handlers (boot/x86/trap_cpu.c) on the test
 * platform's thread "processors": two APs that arm their fixups and fault at the same moment
 * each resume at their own fixup with the vector in their own slot, the BSP's armed fixup is
 * left alone, a processor with nothing armed gets no fixup (an unexpected fault), and every
 * processor keeps one slot of its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/mp.h"
#include "boot/x86/trap.h"
#include "tests/fake_plat.h"

#define LONG_US 5000000u

static int setup(void **state)
{
        static struct plat_cpu cpus[3];
        (void)state;
        for (unsigned i = 0; i < 3; i++)
                cpus[i] = (struct plat_cpu){ .apic_id = 2 * i, .enabled = true, .is_bsp = i == 0 };
        fake_plat_reset();
        fake_plat_set_cpus(cpus, 3);
        fake_plat_real_stall(true);
        trap_cpus_reset();
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        mp_stop(LONG_US);
        fake_plat_cpus_reset();
        return 0;
}

/* What one processor saw of its own fault. */
struct side {
        uint64_t         armed, resumed, took;
        uint32_t         vector;
        struct trap_cpu *slot;
};

static volatile unsigned n_armed;

/* Arm a fixup of this processor's own, wait until the other side has armed too, then take a
 * fault as the #GP handler does (an error code, then the RIP the CPU pushed). */
static void fault_at_once(void *p)
{
        struct side *s = p;
        uint64_t     frame[2] = { 0, 0xbad };

        s->slot            = trap_cpu_self();
        s->armed           = 0x1000 + trap_self_id();
        s->slot->fixup_rip = s->armed;
        __atomic_add_fetch(&n_armed, 1, __ATOMIC_ACQ_REL);
        while (__atomic_load_n(&n_armed, __ATOMIC_ACQUIRE) < 2)
                ;
        s->took    = trap_fault_fixup(TRAP_VEC_GP, frame);
        s->resumed = frame[1];
        s->vector  = s->slot->vector;
}

static void test_two_aps_fault_at_once(void **state)
{
        struct side      s[3] = { 0 };
        struct trap_cpu *bsp;
        (void)state;

        bsp            = trap_cpu_self();
        bsp->fixup_rip = 0x777; /* the BSP is inside a probe of its own meanwhile */
        n_armed        = 0;
        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_OK);
        assert_int_equal(mp_call(1, fault_at_once, &s[1]), ST_OK);
        assert_int_equal(mp_call(2, fault_at_once, &s[2]), ST_OK);
        assert_int_equal(mp_wait(1, LONG_US), ST_OK);
        assert_int_equal(mp_wait(2, LONG_US), ST_OK);
        for (unsigned i = 1; i < 3; i++) {
                assert_int_equal(s[i].took, 1);
                assert_int_equal(s[i].armed, 0x1000 + 2 * i);
                assert_int_equal(s[i].resumed, s[i].armed); /* its own fixup, not the other's */
                assert_int_equal(s[i].vector, TRAP_VEC_GP);
                assert_int_equal(s[i].slot->fixup_rip, 0);  /* disarmed */
                assert_int_equal(s[i].slot->n_recovered, 1);
        }
        assert_ptr_not_equal(s[1].slot, s[2].slot);
        assert_ptr_not_equal(s[1].slot, bsp);
        assert_int_equal(bsp->fixup_rip, 0x777);
        assert_int_equal(bsp->vector, 0);
        assert_int_equal(trap_n_recovered, 2);
}

static void take_ud_unarmed(void *p)
{
        struct side *s     = p;
        uint64_t     frame = 0xbad;

        s->slot    = trap_cpu_self();
        s->took    = trap_fault_fixup(TRAP_VEC_UD, &frame);
        s->resumed = frame;
        s->vector  = s->slot->vector;
}

static void test_unarmed_fault_is_unexpected(void **state)
{
        struct side s = { 0 };
        uint64_t    frame[2] = { 0, 0xbad };
        (void)state;

        assert_null(trap_cpu_find()); /* the BSP never probed: no slot, no fixup */
        assert_int_equal(trap_fault_fixup(TRAP_VEC_GP, frame), 0);
        assert_int_equal(frame[1], 0xbad);
        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_OK);
        assert_int_equal(mp_run(2, take_ud_unarmed, &s, LONG_US), ST_OK);
        assert_int_equal(s.took, 0);
        assert_int_equal(s.resumed, 0xbad);
        assert_int_equal(s.vector, 0);
        assert_int_equal(trap_n_recovered, 0);
}

static void own_slot(void *p)
{
        struct trap_cpu **slot = p;

        slot[0] = trap_cpu_self();
        slot[1] = trap_cpu_self();
        slot[2] = trap_cpu_find();
}

static void test_one_slot_per_processor(void **state)
{
        struct trap_cpu *a[3], *b[3];
        (void)state;

        assert_int_equal(mp_start(NULL, LONG_US, NULL), ST_OK);
        assert_int_equal(mp_run(1, own_slot, a, LONG_US), ST_OK);
        assert_int_equal(mp_run(2, own_slot, b, LONG_US), ST_OK);
        assert_ptr_equal(a[0], a[1]);
        assert_ptr_equal(a[0], a[2]);
        assert_ptr_equal(b[0], b[2]);
        assert_ptr_not_equal(a[0], b[0]);
        assert_int_equal(a[0]->owner, 2 + 1);
        assert_int_equal(b[0]->owner, 4 + 1);
        trap_cpus_reset();
        assert_null(trap_cpu_find());
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_two_aps_fault_at_once, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unarmed_fault_is_unexpected, setup, teardown),
                cmocka_unit_test_setup_teardown(test_one_slot_per_processor, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
