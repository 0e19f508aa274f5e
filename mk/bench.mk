# mk/bench.mk: the figures (make bench and its parts), mutation testing (make mutate) and
# make plot. None of them is a test: they print figures, and a missed target fails the goal.

# ---- benchmarks and plots ------------------------------------------------------------------
# Every benchmark prints its figures; a missed target (bench-latency's stability) fails the
# goal at the end, after the others have run.
BENCHES := bench-latency bench-tlb bench-pmu bench-sampling bench-numa bench-classify bench-report \
           bench-aarch64 bench-mutate bench-fleet
bench:
	$(Q)rc=0; for b in $(BENCHES); do $(MAKE) --no-print-directory $$b || rc=1; done; exit $$rc

bench-latency: all host
	$(Q)BENCH_EFI=$(B)/pmucal.efi tools/bench.sh $(B)/host/pmucal-host

bench-tlb: host
	$(Q)tools/bench-tlb.sh $(B)

bench-pmu: all
	$(Q)tools/bench-pmu.sh $(B)

# Boot-to-exit of the AArch64 smoke and validation runs, the smoke run at EL1 and at EL2 side
# by side (wall time, checks decided, counts), the suite's time, and whether ten validation
# runs under -icount count exactly alike (tools/bench-aarch64.sh).
bench-aarch64:
	$(Q)$(MAKE) --no-print-directory ARCH=aarch64 all
	$(Q)tools/bench-aarch64.sh $(B)

bench-sampling: $(B)/host/bench_sampling
	$(Q)tools/bench-sampling.sh $(B)/host/bench_sampling

bench-numa: all host
	$(Q)tools/bench-numa.sh $(B)

# The collector with a simulated fleet over loopback into a throw-away PostgreSQL:
# uploads/s, p50/p99 upload latency, the outlier report's time for 10,000 machines, planted
# outliers found and missed (tools/bench-fleet.py; FLEET_* variables size it).
bench-fleet:
	$(Q)/usr/bin/python3 tools/bench-fleet.py

bench-classify: $(B)/host/pmucal-table
	$(Q)tools/bench-classify.sh $(B)
bench-report: $(B)/host/pmucal-table
	$(Q)tools/bench-report.sh $(B)

# Mutation testing (tools/mutate.py): each mutant of tools/mutants.txt applied alone to a copy
# of the tree under $(B)/mutate, the unit tests that execute the mutated lines (one coverage
# run tells) run on it; the kill rate overall and by file, and every survivor. JOBS workers
# (default the CPU count). Not part of make test: it takes tens of minutes.
# MUTATE_ARGS: e.g. --only app/numa.c, or --check to test the snippets without building.
mutate:
	$(Q)JOBS=$(JOBS) $(PYTHON) tools/mutate.py $(MUTATE_ARGS)

# In make bench: the figures and the wall time; a kill rate under the target fails the goal.
bench-mutate:
	$(Q)mkdir -p $(B); JOBS=$(JOBS) $(PYTHON) tools/mutate.py $(MUTATE_ARGS) > $(B)/mutate.log 2>&1; \
	rc=$$?; grep -vE '^mutate: \[' $(B)/mutate.log; echo "bench: mutation log in $(B)/mutate.log"; \
	exit $$rc

PLOT_FORMAT ?= png
plot:
	$(Q)PLOT_FORMAT=$(PLOT_FORMAT) tools/plot.sh $(RESULTS)
