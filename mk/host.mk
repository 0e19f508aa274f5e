# mk/host.mk: the hosted programs and the consumer library, built for this machine (x86-64)
# with release flags: pmucal-host (the app's phases on the Linux platform, boot/linux/),
# pmucal-table and libpmucal (static and shared), and make install.

HOST_CFLAGS := $(COMMON_CFLAGS) -O2 -g -fPIC
host_obj = $(patsubst %,$(B)/host/obj/%.o,$(basename $(1)))
OBJ_DIRS += $(B)/host/obj

# The Linux platform (pmucal-host's boot/).
BOOT_LINUX_SRCS := \
	boot/linux/linux_cpu.c \
	boot/linux/linux_file.c \
	boot/linux/linux_numa.c \
	boot/linux/x86/linux_msr.c \
	boot/linux/linux_perf.c \
	boot/linux/linux_plat.c

# host/: host-only programs and the consumer library; host/$(HOST_ARCH_DIR)/ the parts of the
# architecture they are built for.
HOST_ARCH_DIR := x86
LIBPMUCAL_SRCS := \
	host/libpmucal.c \
	host/libpmucal_classify.c \
	host/libpmucal_clock.c \
	host/libpmucal_common.c \
	host/libpmucal_files.c \
	host/libpmucal_json.c \
	host/libpmucal_numa.c \
	host/libpmucal_numa_classify.c \
	host/libpmucal_sets.c \
	host/libpmucal_tlb.c \
	host/libpmucal_tlb_classify.c \
	host/libpmucal_units.c \
	host/$(HOST_ARCH_DIR)/libpmucal_source.c
PMUCAL_TABLE_SRCS := \
	host/cli_stdout.c \
	host/pmucal_table.c \
	host/pmucal_table_classify.c \
	host/pmucal_table_diff.c \
	host/pmucal_table_diff_files.c \
	host/pmucal_table_collector.c \
	host/pmucal_table_files.c \
	host/pmucal_table_diff_tlb.c \
	host/pmucal_table_match.c \
	host/pmucal_table_remote.c \
	host/pmucal_table_perf.c \
	host/pmucal_table_report.c \
	host/pmucal_table_show.c \
	host/$(HOST_ARCH_DIR)/cpu_host.c
PMUCAL_HOST_SRCS := \
	host/cli_stdout.c \
	host/host_args.c \
	host/inventory_host.c \
	host/pmucal_host.c \
	host/$(HOST_ARCH_DIR)/cpu_host.c \
	$(BOOT_LINUX_SRCS)

# The portable layers of the host's architecture, the code pmucal-host shares with the firmware.
HOST_LAYER_SRCS := $(call portable_srcs,$(HOST_ARCH_DIR)) $(SYMS_NONE_SRC)

# ---- the programs and the library ----------------------------------------------------------
$(B)/host/obj/bench/%.o: XFLAGS = $(BENCH_CFLAGS)

$(B)/host/obj/%.o: %.c
	$(Q)mkdir -p $(@D)
	$(say) CC $<
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(XFLAGS) -c $< -o $@

$(B)/host/obj/layers.a: $(call host_obj,$(HOST_LAYER_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/libpmucal.a: $(call host_obj,$(LIBPMUCAL_SRCS))
	$(say) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/host/pmucal-table: $(call host_obj,$(PMUCAL_TABLE_SRCS)) $(B)/host/libpmucal.a \
                        $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -ljansson -lm

$(B)/host/pmucal-host: $(call host_obj,$(PMUCAL_HOST_SRCS)) $(B)/host/obj/layers.a
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -o $@ -lpthread

host: $(B)/host/pmucal-host $(B)/host/pmucal-table $(B)/host/libpmucal.a

# libpmucal as a shared library: only the functions the headers mark PMUCAL_API are exported
# (-fvisibility=hidden); the soname carries the major version (host/include/pmucal/pmucal.h).
LIBPMUCAL_VERSION := $(shell awk '/define PMUCAL_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $$3; s = "." } \
                       END { print v }' host/include/pmucal/pmucal.h)
LIBPMUCAL_SONAME := libpmucal.so.$(firstword $(subst ., ,$(LIBPMUCAL_VERSION)))
LIBPMUCAL_SO := $(B)/host/libpmucal.so.$(LIBPMUCAL_VERSION)
$(call host_obj,$(LIBPMUCAL_SRCS)): XFLAGS = -fvisibility=hidden
$(LIBPMUCAL_SO): $(call host_obj,$(LIBPMUCAL_SRCS))
	$(say) LINK $@
	$(Q)$(HOST_CC) -shared -Wl,-soname,$(LIBPMUCAL_SONAME) -Wl,--no-undefined $^ -o $@ \
		-ljansson -lm
host: $(LIBPMUCAL_SO) $(B)/host/install/pmucal-table

# The installed pmucal-table runs with the installed shared library, which it finds through its
# RUNPATH $ORIGIN/../lib: bin/ and lib/ of one PREFIX, wherever DESTDIR or a later move puts
# them, with no LD_LIBRARY_PATH and no ldconfig. (The build tree's pmucal-table is static.)
$(B)/host/install/pmucal-table: $(call host_obj,$(PMUCAL_TABLE_SRCS)) $(B)/host/obj/layers.a $(LIBPMUCAL_SO)
	$(Q)mkdir -p $(@D)
	$(say) LINK $@
	$(Q)$(HOST_CC) $^ -Wl,-rpath,'$$ORIGIN/../lib' -o $@ -ljansson -lm

# make install PREFIX=DIR (DESTDIR too): headers, static and shared library, pkg-config file,
# pmucal-table. docs/libpmucal.md says how to build against them.
PREFIX ?= /usr/local
install: host $(B)/host/install/pmucal-table
	$(say) INSTALL $(DESTDIR)$(PREFIX)
	$(Q)install -d $(DESTDIR)$(PREFIX)/include/pmucal $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	$(Q)install -m 644 host/include/pmucal/pmucal.h host/include/pmucal/files.h host/include/pmucal/table.h \
		host/include/pmucal/tlb.h host/include/pmucal/numa.h \
		host/include/pmucal/source.h $(DESTDIR)$(PREFIX)/include/pmucal/
	$(Q)install -m 644 $(B)/host/libpmucal.a $(DESTDIR)$(PREFIX)/lib/
	$(Q)install -m 755 $(LIBPMUCAL_SO) $(DESTDIR)$(PREFIX)/lib/
	$(Q)ln -sf $(notdir $(LIBPMUCAL_SO)) $(DESTDIR)$(PREFIX)/lib/$(LIBPMUCAL_SONAME)
	$(Q)ln -sf $(LIBPMUCAL_SONAME) $(DESTDIR)$(PREFIX)/lib/libpmucal.so
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBPMUCAL_VERSION)|' host/pmucal.pc.in \
		> $(DESTDIR)$(PREFIX)/lib/pkgconfig/pmucal.pc
	$(Q)install -m 755 $(B)/host/install/pmucal-table $(DESTDIR)$(PREFIX)/bin/

