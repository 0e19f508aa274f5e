# mk/tests.mk: the host unit tests (one binary per tests/test_<name>.c, linked as
# tests/unittests.cfg says), the fuzzers, the host tools the shell tests drive, and the goals
# that run them: make unit, make test, make test-asan, make coverage, make check-layering,
# make check-names.

COV_FLAGS   ?=
TEST_CFLAGS := $(COMMON_CFLAGS) -O1 -g -Wno-missing-prototypes $(COV_FLAGS)
FUZZ_CFLAGS := -std=gnu11 -I. -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
test_obj = $(patsubst %,$(B)/test/obj/%.o,$(basename $(1)))
OBJ_DIRS += $(B)/test/obj

# Every tests/test_<name>.c is a cmocka binary. It links its own file, the test platform,
# one MSR back end and the test doubles tests/unittests.cfg names for it, against the
# per-layer archives, so the linker takes only what the test uses; that table becomes the
# variables TEST_MSR_<name>, TEST_EXTRA_<name> and TEST_LDFLAGS_<name> in $(B)/unittests.mk.
TESTS := $(sort $(patsubst tests/test_%.c,%,$(filter-out tests/test_util.c,$(wildcard tests/test_*.c))))
# (-include: make deps runs before python3 is installed; a test binary depends on the file,
# so a fault in the table stops its link with the table's message.)
UNITTESTS_MK := $(B)/unittests.mk
-include $(UNITTESTS_MK)
$(UNITTESTS_MK): tests/unittests.cfg tests/unittests.py
	$(Q)mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$(PYTHON) tests/unittests.py --make $@

TEST_SUPPORT_SRCS := \
	tests/acpi_canon.c \
	tests/acpi_fixture.c \
	tests/config_fixture.c \
	tests/cpuid_dump.c \
	tests/fake_mem_node.c \
	tests/fake_net.c \
	tests/fake_plat.c \
	tests/fake_volume.c \
	tests/table_cases.c \
	tests/test_util.c
# The host layers with the AArch64 decoders (pure C) and libpmucal, for the tests to pick from.
TEST_LAYER_SRCS := $(HOST_LAYER_SRCS) $(LIBPMUCAL_SRCS) $(BOOT_arm64_SRCS)
TEST_LIBS := -lcmocka -ljansson -lm -lpthread $(COV_FLAGS)
TEST_BINS := $(patsubst %,$(B)/host/tests/test_%,$(TESTS))

# libFuzzer targets (clang): tests/fuzz_<name>.c with a corpus in tests/corpus/<name>/.
FUZZERS := acpi config table
FUZZ_SRCS_acpi   := boot/acpi.c boot/acpi_hmat.c boot/acpi_pptt.c boot/smbios.c lib/status.c lib/fmt.c lib/log.c
FUZZ_SRCS_config := app/config.c app/config_cpus.c app/config_keys.c lib/status.c lib/fmt.c lib/log.c report/rep.c \
                    report/json.c tests/fake_plat.c tests/fake_volume.c tests/fake_mem_node.c \
                    boot/memrange.c boot/x86/apic.c
FUZZ_SRCS_table  := $(LIBPMUCAL_SRCS)
FUZZ_LIBS := -ljansson -lm
FUZZ_BINS := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZERS))

# Host-only tools built from the same archives.
RECORD_TLB_SRCS := tests/record_tlb.c
ACPI_DECODE_SRCS := tests/acpi_decode.c
BENCH_SAMPLING_SRCS := tests/bench_sampling.c

# Nodes this machine lacks, for tests/test_hosted_numa_nodes.sh: an LD_PRELOAD library that
# answers the memory-policy system calls (tests/fake_numa.c); the tests build it, nothing ships it.
$(B)/host/fake_numa.so: tests/fake_numa.c
	$(Q)mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(HOST_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fPIC -shared $< -o $@ -ldl

# Prerequisites that name per-test variables ($$(TEST_MSR_$$*)) need a second expansion.
.SECONDEXPANSION:
# Objects made on the way to a test binary are kept, not deleted as intermediate files: the
# next build relinks instead of recompiling them.
.SECONDARY:

# ---- the binaries --------------------------------------------------------------------------
$(B)/test/obj/bench/%.o: XFLAGS = $(BENCH_CFLAGS)
$(B)/test/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(HOST_CC) $(TEST_CFLAGS) $(XFLAGS) -c $< -o $@

$(B)/test/layers.a: $(call test_obj,$(TEST_LAYER_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/test/support.a: $(call test_obj,$(TEST_SUPPORT_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/tests/test_%: $(B)/test/obj/tests/test_%.o $(B)/test/layers.a $(B)/test/support.a $(UNITTESTS_MK) \
                        $$(call test_obj,$$(or $$(TEST_MSR_$$*),tests/fake_msr.c) $$(TEST_EXTRA_$$*))
	$(Q)mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group \
		-o $@ $(TEST_LDFLAGS_$*) $(TEST_LIBS)

$(B)/fuzz/fuzz_%: tests/fuzz_%.c $$(FUZZ_SRCS_$$*)
	$(Q)mkdir -p $(@D)
	$(say) FUZZ $@
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $^ -o $@ $(FUZZ_LIBS)

$(B)/host/record_tlb: $(call test_obj,$(RECORD_TLB_SRCS) tests/fake_msr_none.c) $(B)/test/layers.a $(B)/test/support.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group -o $@

# The kernels (bench/ with their pinned flags), for the valgrind count of tests/test_oracle.sh.
$(B)/host/oracle_kernels: $(call test_obj,tests/oracle_kernels.c tests/fake_msr_none.c) \
                          $(B)/test/layers.a $(B)/test/support.a
	$(Q)mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group \
		$(TEST_LIBS) -o $@

# The AArch64 kernels, the firmware's own objects of bench/arm64/, in a static AArch64 Linux
# program for the qemu-user count of tests/test_oracle_arm64.sh. No AArch64 C library: the
# program brings its _start and system calls; the chase window's helpers, in bench_chase's
# object but never called by the program, resolve to one that exits 125. The program's own
# object goes under $(B)/aarch64/test/obj, apart from the firmware's objects that
# check-names reads.
A64_ORACLE_KERNELS := $(call a64_obj,bench/arm64/kernel_addchain.c bench/arm64/kernel_branch.c \
                                     bench/arm64/kernel_chase.c bench/arm64/kernel_skid.c)
A64_ORACLE_UNREACHED := bench_guard_smi bench_guard_steal cpu_irq_disable cpu_irq_restore
$(B)/aarch64/test/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC64 $<
	$(Q)$(A64_CROSS)gcc $(A64_CFLAGS) -c $< -o $@
$(B)/aarch64/oracle_kernels: $(B)/aarch64/test/obj/tests/oracle_kernels_arm64.o $(A64_ORACLE_KERNELS)
	$(Q)mkdir -p $(@D)
	$(say) LD64 $@
	$(Q)$(A64_CROSS)gcc -static -nostdlib -Wl,--no-warn-rwx-segments $^ -o $@ \
		$(foreach s,$(A64_ORACLE_UNREACHED),-Wl,--defsym=$(s)=oracle_not_reached)

$(B)/host/acpi_decode: $(call test_obj,$(ACPI_DECODE_SRCS) tests/fake_msr_none.c) $(B)/test/layers.a $(B)/test/support.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group -o $@

$(B)/host/bench_sampling: $(call host_obj,$(BENCH_SAMPLING_SRCS)) $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -lpthread

unit: $(TEST_BINS)

# ---- coverage ------------------------------------------------------------------------------
# make coverage: the host unit tests built with gcov instrumentation under build/cov, each run
# once from the repository root, then per-file line coverage of the program's layers printed
# by gcovr (Debian package gcovr; make deps does not install it).
COV_B := $(B)/cov
coverage:
	$(Q)command -v gcovr >/dev/null || { echo "coverage: gcovr missing (apt-get install gcovr)"; exit 1; }
	$(Q)rm -rf $(COV_B)
	$(Q)$(MAKE) --no-print-directory B=$(COV_B) COV_FLAGS=--coverage \
		$(patsubst $(B)/%,$(COV_B)/%,$(TEST_BINS))
	$(Q)fails=0; for t in $(patsubst $(B)/%,$(COV_B)/%,$(TEST_BINS)); do \
		$$t >/dev/null 2>&1 || { echo "coverage: $$t failed"; fails=$$((fails + 1)); }; done; \
		echo "coverage: $$fails test binaries failed"
	$(Q)gcovr -r . --object-directory $(COV_B)/test/obj -f 'app/' -f 'pmu/' -f 'boot/' \
		-f 'bench/' -f 'analysis/' -f 'report/' -f 'lib/' -f 'host/' --txt --sort-percentage
fuzz: $(FUZZ_BINS)

# ---- the goals that run them -----------------------------------------------------------------
# make test: everything built on every CPU (JOBS, default the CPU count), then
# tests/run-tests.sh. The unit tests and the CLI cases run once, built with the sanitizers
# below; `make unit` builds them plain for a quick look and `make coverage` with gcov.
test: deps
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) check-layering all usb fuzz host test-asan-build
	$(Q)$(MAKE) --no-print-directory $(QS) signed-snakeoil
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) ARCH=aarch64 all
	$(Q)$(MAKE) --no-print-directory $(QS) ARCH=aarch64 signed-snakeoil
	$(Q)$(MAKE) --no-print-directory check-names
	$(Q)JOBS=$(JOBS) tests/run-tests.sh

# Sanitizers: the host tests and the CLI programs built under $(B)/asan with AddressSanitizer
# (leaks included) and UndefinedBehaviorSanitizer, every report fatal (the fuzzers carry both
# already). `make test` builds and runs them; `make test-asan` runs the unit tests and the CLI
# cases alone.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test-asan-build:
	$(Q)$(MAKE) --no-print-directory B=$(B)/asan HOST_CC="$(HOST_CC) $(SAN_FLAGS)" \
		unit $(B)/asan/host/pmucal-table $(B)/asan/host/pmucal-host
test-asan: test-asan-build
	$(Q)B=$(B) ONLY=asan tests/run-tests.sh

check-layering:
	$(Q)$(PYTHON) tools/check_layering.py

# make check-names: every global symbol of the built objects (x86-64 firmware, AArch64 firmware,
# the hosted programs) carries its layer's and module's prefix (tools/check_names.py; the table
# is docs/architecture.md's "Names"). make test runs it once all three are built.
check-names:
	$(Q)$(PYTHON) tools/check_names.py $(B)/efi $(B)/aarch64/obj $(B)/host/obj

