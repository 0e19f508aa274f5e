/** @file libFuzzer target for the pmucal.cfg parser: any bytes must give a complete, valid
 *  configuration, consistent diagnostics, and a printable / JSON-serialisable result. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "app/config.h"
#include "report/json.h"
#include "report/rep.h"

#define CHECK(c)                                \
        do {                                    \
                if (!(c))                       \
                        __builtin_trap();       \
        } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct pmucal_config cfg;
        struct config_diag   d[4];
        size_t               n = 12345, lines = 1;
        status_t             st;

        memset(d, 0xa5, sizeof(d));
        st = config_parse((const char *)data, size, &cfg, d, 4, &n);
        CHECK(st == (n ? ST_BAD_DATA : ST_OK));
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        for (size_t i = 0; i < n && i < 4; i++) {
                CHECK(d[i].line >= 1 && d[i].line <= lines);
                CHECK((unsigned)d[i].kind < CONFIG_DIAG__COUNT);
                CHECK(memchr(d[i].msg, 0, sizeof(d[i].msg)) != NULL);
                CHECK(d[i].msg[0] != '\0');
                CHECK(i == 0 || d[i].line >= d[i - 1].line);
        }
        CHECK(cfg.profile <= CONFIG_PROFILE_TLB);
        CHECK(cfg.on_exit <= CONFIG_EXIT_REBOOT);
        CHECK(cfg.debug_exit <= CONFIG_OFF);
        CHECK(cfg.prefetchers <= CONFIG_PREFETCH_OFF);
        CHECK(cfg.cpus <= CONFIG_CPUS_LIST);
        CHECK((cfg.cpus == CONFIG_CPUS_LIST) == (cfg.cpu_list.n > 0));
        CHECK(cfg.cpu_list.n <= CONFIG_CPUS_MAX_RANGES);
        for (unsigned k = 0; k < cfg.cpu_list.n; k++)
                CHECK(cfg.cpu_list.lo[k] <= cfg.cpu_list.hi[k] &&
                      config_cpus_has(&cfg.cpu_list, cfg.cpu_list.hi[k]));
        CHECK(cfg.repetitions >= 11 && cfg.repetitions <= 1001);
        CHECK(cfg.sweep_max_mib <= 1048576);
        CHECK((cfg.from_file >> config_n_keys()) == 0); /* one bit per key, every key */

        /* The same input with no room for diagnostics counts the same number. */
        struct pmucal_config cfg2;
        size_t               n2;
        CHECK(config_parse((const char *)data, size, &cfg2, NULL, 0, &n2) == st);
        CHECK(n2 == n && memcmp(&cfg, &cfg2, sizeof(cfg)) == 0);

        struct rep_buf out = { 0 }, js = { 0 };
        struct json_w  w;

        rep_reset();
        rep_add_sink(rep_buf_sink(&out));
        config_print(&cfg);
        CHECK(out.p && out.len > 0);
        json_init(&w, &js);
        config_to_json(&w, NULL, &cfg);
        CHECK(json_finish(&w) == ST_OK);
        rep_reset();
        rep_buf_free(&out);
        rep_buf_free(&js);
        return 0;
}
