# mk/common.mk: the flags every build starts from and the one source list of the code that
# every architecture shares, a list per folder. An architecture's own files are listed in its
# fragment (mk/x86_64.mk, mk/aarch64.mk) under the same names with the architecture's folder
# in them (BOOT_x86_SRCS, APP_arm64_SRCS, ...); arch_srcs puts them together.

# ---- flags -------------------------------------------------------------------------------
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wno-unused-parameter
COMMON_CFLAGS := -std=gnu11 -MMD -MP -I. -fno-strict-aliasing $(WARN) \
                 -DPMUCAL_VERSION='"$(VERSION)"'

# The measurement kernels (bench/): pinned here so that editing the global flags does not
# change what is being measured. Applied to every bench/ object of every build.
BENCH_CFLAGS := -O2 -fno-tree-vectorize -fno-unroll-loops -fno-omit-frame-pointer

# ---- the code every architecture shares, one list per folder ------------------------------
LIB_SRCS := \
	lib/log.c \
	lib/fixq8.c \
	lib/fmt.c \
	lib/stats.c \
	lib/status.c

# boot/: portable parsers of the firmware's tables. The CPU access of each architecture is in
# its fragment; the platforms are boot/uefi/ (below) and boot/linux/ (mk/host.mk).
BOOT_SRCS := \
	boot/acpi.c \
	boot/acpi_hmat.c \
	boot/acpi_pptt.c \
	boot/cpu_info.c \
	boot/devpath_match.c \
	boot/fatfree.c \
	boot/memrange.c \
	boot/mp.c \
	boot/smbios.c \
	boot/topology_pptt.c

# The UEFI platform; each architecture adds its own part (UEFI_<arch>_SRCS).
UEFI_SRCS := \
	boot/uefi/uefi_con.c \
	boot/uefi/uefi_file.c \
	boot/uefi/uefi_libc.c \
	boot/uefi/uefi_main.c \
	boot/uefi/uefi_mem.c \
	boot/uefi/uefi_mem_node.c \
	boot/uefi/uefi_mp.c \
	boot/uefi/uefi_net.c \
	boot/uefi/uefi_status.c \
	boot/uefi/uefi_tables.c \
	boot/uefi/uefi_time.c

# pmu/: events as data (generated from pmu/events/), sampling records.
PMU_EVENTS_GEN := $(B)/events_gen.c
PMU_SRCS := \
	pmu/events.c \
	pmu/sample.c \
	$(PMU_EVENTS_GEN)
# An empty symbol table, for the images and archives that carry none (mk/x86_64.mk makes the
# firmware's).
SYMS_NONE_SRC := pmu/syms_none.c

BENCH_SRCS := \
	bench/branch_pattern.c \
	bench/c2c.c \
	bench/chain.c \
	bench/chase_buf.c \
	bench/chase_job.c \
	bench/clock_chain.c \
	bench/kernel_load.c \
	bench/kernel_pmu.c \
	bench/kernel_tlb.c \
	bench/measure.c \
	bench/measure_on.c \
	bench/measure_points.c \
	bench/sweep.c \
	bench/tlb.c \
	bench/window.c

# analysis/: what the measurements mean (cache levels, TLB levels), pure functions over arrays.
ANALYSIS_SRCS := \
	analysis/levels.c \
	analysis/levels_plateau.c \
	analysis/tlbdetect.c

REPORT_SRCS := \
	report/inventory.c \
	report/inventory_json.c \
	report/json.c \
	report/json_check.c \
	report/lattable.c \
	report/lattable_json.c \
	report/lattable_numa.c \
	report/lattable_sets.c \
	report/c2c.c \
	report/loaded.c \
	report/numa.c \
	report/numa_out.c \
	report/rep.c \
	report/tlbdetect_out.c

APP_SRCS := \
	app/c2c.c \
	app/config.c \
	app/config_cpus.c \
	app/config_keys.c \
	app/cpus.c \
	app/cpus_pptt.c \
	app/gather.c \
	app/latency.c \
	app/latency_check.c \
	app/latency_pages.c \
	app/latency_sets.c \
	app/numa.c \
	app/numa_chase.c \
	app/numa_loaded.c \
	app/numa_mem.c \
	app/pmu_sample_run.c \
	app/pmu_validate.c \
	app/pmu_validate_mem.c \
	app/pmucal.c \
	app/results.c \
	app/upload.c \
	app/tlb_out.c \
	app/tlb_platmap.c

# The portable code: built into the firmware and into the host archives alike.
COMMON_SRCS := $(LIB_SRCS) $(BOOT_SRCS) $(PMU_SRCS) $(BENCH_SRCS) $(ANALYSIS_SRCS) $(REPORT_SRCS) \
               $(APP_SRCS)

# $(call arch_srcs,DIR): an architecture's own portable files, DIR its folder name (x86, arm64).
arch_srcs = $(BOOT_$(1)_SRCS) $(PMU_$(1)_SRCS) $(BENCH_$(1)_SRCS) $(REPORT_$(1)_SRCS) \
            $(APP_$(1)_SRCS)
# $(call portable_srcs,DIR): what an architecture's firmware and host archives share.
portable_srcs = $(COMMON_SRCS) $(call arch_srcs,$(1))
# $(call firmware_srcs,DIR): the whole UEFI image but its symbol table.
firmware_srcs = $(call portable_srcs,$(1)) $(BOOT_$(1)_CPU_SRCS) $(UEFI_SRCS) $(UEFI_$(1)_SRCS)

$(PMU_EVENTS_GEN): pmu/gen_events.py $(wildcard pmu/events/*.json) pmu/events/mapfile.csv
	$(Q)mkdir -p $(@D)
	$(say) GEN $@
	$(Q)$(PYTHON) pmu/gen_events.py pmu/events $@

# ---- the version string ---------------------------------------------------------------------
# Every object gets -DPMUCAL_VERSION; the files that print or record it are rebuilt when it
# changes (a new commit, a tree that turns dirty or clean), through a stamp rewritten only
# then. Without it a results file could carry the version of the build that last compiled
# app/latency.c. OBJ_DIRS: every build's object folder (each fragment adds its own).
VERSIONED_SRCS := app/pmucal.c app/latency.c host/pmucal_host.c host/pmucal_table.c
VERSION_STAMP  := $(B)/version.stamp
$(VERSION_STAMP): FORCE
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
FORCE:
.PHONY: FORCE
