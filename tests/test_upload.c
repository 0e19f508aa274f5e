/* The upload to a collector (app/upload.c) on the fake platform's network: the framed body of
 * docs/collector.md byte for byte, and the retry policy: a 201 at once, a 500 then a 201, a
 * collector down on every try (bounded, with doubling pauses), a 400 not retried, and no HTTP
 * client at all. Every outcome has its console line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/run.h"
#include "app/upload.h"
#include "boot/plat.h"
#include "report/rep.h"
#include "tests/fake_plat.h"

static struct rep_buf con;
static struct run     r;

static int setup(void **state)
{
        (void)state;
        fake_plat_reset();
        rep_reset();
        memset(&con, 0, sizeof(con));
        rep_add_sink(rep_buf_sink(&con));
        memset(&r, 0, sizeof(r));
        config_defaults(&r.cfg);
        strcpy(r.name, "20261128-073310-01");
        strcpy(r.cfg.collector, "http://10.0.2.2:8760");
        r.cfg.collector_set = true;
        rep_buf_append(&r.files[0].data, "{\"a\":1}", 7);
        r.files[0].name = "inventory.json";
        rep_buf_append(&r.files[1].data, "x\ny\n", 4);
        r.files[1].name = "cpuid.txt";
        r.n_files = 2;
        rep_buf_append(&r.console, "SUMMARY: 1 passed\n", 18);
        return 0;
}

static int teardown(void **state)
{
        (void)state;
        for (unsigned i = 0; i < r.n_files; i++)
                rep_buf_free(&r.files[i].data);
        rep_buf_free(&r.console);
        rep_reset();
        rep_buf_free(&con);
        fake_net_script(NULL, 0);
        return 0;
}

/* The framing as docs/collector.md writes it, for the run set up above. */
static const char want_body[] = "pmucal-run 1\n"
                                "run 20261128-073310-01\n"
                                "name inventory.json 7\n{\"a\":1}\n"
                                "name cpuid.txt 4\nx\ny\n\n"
                                "name report.txt 18\nSUMMARY: 1 passed\n\n"
                                "end\n";

static void test_encode_framing(void **state)
{
        struct rep_buf b = { 0 };

        (void)state;
        assert_int_equal(upload_encode(&r, &b), ST_OK);
        assert_int_equal(b.len, sizeof(want_body) - 1);
        assert_memory_equal(b.p, want_body, b.len);
        rep_buf_free(&b);
}

static const struct upload_policy quick = { .tries = 3, .first_pause_us = 1 };

static void test_stored_first_try(void **state)
{
        static const struct fake_net_answer a[] = { { ST_OK, 201, "{\"id\": 7}" } };
        size_t      len;
        const char *url, *type;

        (void)state;
        fake_net_script(a, 1);
        assert_int_equal(upload_run(&r, &quick), UPLOAD_STORED);
        assert_int_equal(fake_net_calls(), 1);
        const char *body = fake_net_last(&len, &url, &type);
        assert_string_equal(url, "http://10.0.2.2:8760/api/v1/runs");
        assert_string_equal(type, "application/x-pmucal-run");
        assert_int_equal(len, sizeof(want_body) - 1);
        assert_memory_equal(body, want_body, len);
        assert_non_null(strstr(con.p, "upload: stored by the collector at "
                                      "http://10.0.2.2:8760/api/v1/runs (HTTP 201, try 1 of 3"));
}

static void test_500_then_stored(void **state)
{
        static const struct fake_net_answer a[] = {
                { ST_OK, 500, "{\"error\": \"db down\"}" },
                { ST_OK, 201, "{\"id\": 8}" },
        };

        (void)state;
        fake_net_script(a, 2);
        assert_int_equal(upload_run(&r, &quick), UPLOAD_STORED);
        assert_int_equal(fake_net_calls(), 2);
        assert_non_null(strstr(con.p, "upload: try 1 of 3: the collector at "
                                      "http://10.0.2.2:8760/api/v1/runs answered HTTP 500: "
                                      "{\"error\": \"db down\"}"));
        assert_non_null(strstr(con.p, "(HTTP 201, try 2 of 3"));
}

/* Down on every try: exactly `tries` attempts, pauses doubling, one closing line. */
static void test_unreachable_bounded(void **state)
{
        static const struct fake_net_answer a[] = {
                { ST_TIMEOUT, 0, NULL }, { ST_IO, 0, NULL }, { ST_TIMEOUT, 0, NULL },
                { ST_OK, 201, "{}" },
        };
        const struct upload_policy pol = { .tries = 3, .first_pause_us = 1000 };

        (void)state;
        fake_net_script(a, 4);
        assert_int_equal(upload_run(&r, &pol), UPLOAD_FAILED);
        assert_int_equal(fake_net_calls(), 3);
        assert_non_null(strstr(con.p, "upload: try 1 of 3: the collector at "
                                      "http://10.0.2.2:8760/api/v1/runs could not be reached"));
        assert_non_null(strstr(con.p, "upload: trying again in 1 ms"));
        assert_non_null(strstr(con.p, "upload: trying again in 2 ms"));
        assert_null(strstr(con.p, "trying again in 4 ms"));
        assert_non_null(strstr(con.p, "was unreachable after 3 tries: the run was not uploaded"));
}

static void test_refused_not_retried(void **state)
{
        static const struct fake_net_answer a[] = {
                { ST_OK, 400, "{\"error\": \"schema\", \"file\": \"inventory.json\"}" },
                { ST_OK, 201, "{}" },
        };

        (void)state;
        fake_net_script(a, 2);
        assert_int_equal(upload_run(&r, &quick), UPLOAD_REFUSED);
        assert_int_equal(fake_net_calls(), 1);
        assert_non_null(strstr(con.p, "refused the run (HTTP 400): {\"error\": \"schema\", "
                                      "\"file\": \"inventory.json\"}"));
}

static void test_no_http_client(void **state)
{
        (void)state;
        fake_net_script(NULL, 0);
        assert_int_equal(upload_run(&r, &quick), UPLOAD_NOT_SENT);
        assert_int_equal(fake_net_calls(), 0);
        assert_non_null(strstr(con.p, "upload: no HTTP client on this platform"));
}

/* collector = in pmucal.cfg: a usable http URL is kept as written; off, https, a bad port or
 * no host are not (a bad value is a diagnostic and leaves the default, off). */
static void test_config_collector(void **state)
{
        static const struct {
                const char *line;
                bool        set;
                const char *url;
        } cases[] = {
                { "collector = http://10.0.2.2:8760\n", true, "http://10.0.2.2:8760" },
                { "collector = http://collector.rack1/pmucal\n", true,
                  "http://collector.rack1/pmucal" },
                { "collector = off\n", false, "" },
                { "collector = https://10.0.2.2:8760\n", false, "" },
                { "collector = http://10.0.2.2:65536\n", false, "" },
                { "collector = http://10.0.2.2:0\n", false, "" },
                { "collector = http://:80\n", false, "" },
                { "collector = http://\n", false, "" },
        };

        (void)state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct pmucal_config cfg;
                struct config_diag   d[4];
                size_t               nd = 0;

                config_defaults(&cfg);
                config_parse(cases[i].line, strlen(cases[i].line), &cfg, d, 4, &nd);
                assert_int_equal(cfg.collector_set, cases[i].set);
                assert_string_equal(cfg.collector, cases[i].url);
                bool off = !strcmp(cases[i].line, "collector = off\n");
                assert_int_equal(nd, cases[i].set || off ? 0 : 1);
        }
}

/* upload_tries and upload_pause_ms in pmucal.cfg set the policy: 5 tries 250, 500, 1000 and
 * 2000 ms apart; 1 try and no pause; the defaults are 3 tries from 1 s; the doubling stops at
 * UPLOAD_PAUSE_MAX_US. */
static void test_config_policy(void **state)
{
        static const struct fake_net_answer down[] = {
                { ST_TIMEOUT, 0, NULL }, { ST_TIMEOUT, 0, NULL }, { ST_TIMEOUT, 0, NULL },
                { ST_TIMEOUT, 0, NULL }, { ST_TIMEOUT, 0, NULL }, { ST_OK, 201, "{}" },
        };
        static const char    text[] = "upload_tries = 5\nupload_pause_ms = 250\n";
        struct config_diag   d[4];
        size_t               nd = 9;
        struct upload_policy pol = upload_policy_of(&r.cfg);

        (void)state;
        assert_int_equal(pol.tries, 3);
        assert_int_equal(pol.first_pause_us, 1000000);
        assert_int_equal(config_parse(text, sizeof(text) - 1, &r.cfg, d, 4, &nd), ST_OK);
        assert_int_equal(nd, 0);
        pol = upload_policy_of(&r.cfg);
        assert_int_equal(pol.tries, 5);
        assert_int_equal(pol.first_pause_us, 250000);
        fake_net_script(down, 6);
        assert_int_equal(upload_run(&r, &pol), UPLOAD_FAILED);
        assert_int_equal(fake_net_calls(), 5);
        assert_non_null(strstr(con.p, "upload: try 5 of 5: the collector at "));
        assert_non_null(strstr(con.p, "upload: trying again in 250 ms"));
        assert_non_null(strstr(con.p, "upload: trying again in 2000 ms"));
        assert_null(strstr(con.p, "trying again in 4000 ms"));
        assert_non_null(strstr(con.p, "was unreachable after 5 tries"));

        rep_buf_free(&con);
        memset(&con, 0, sizeof(con));
        r.cfg.upload_tries = 1;
        pol = upload_policy_of(&r.cfg);
        fake_net_script(down, 6);
        assert_int_equal(upload_run(&r, &pol), UPLOAD_FAILED);
        assert_int_equal(fake_net_calls(), 1);
        assert_null(strstr(con.p, "trying again"));
        assert_non_null(strstr(con.p, "was unreachable after 1 tries"));

        rep_buf_free(&con);
        memset(&con, 0, sizeof(con));
        r.cfg.upload_tries    = 4;
        r.cfg.upload_pause_ms = 40000;
        pol = upload_policy_of(&r.cfg);
        fake_net_script(down, 6);
        assert_int_equal(upload_run(&r, &pol), UPLOAD_FAILED);
        assert_non_null(strstr(con.p, "upload: trying again in 40000 ms"));
        assert_non_null(strstr(con.p, "upload: trying again in 60000 ms\n"));
        assert_null(strstr(con.p, "80000 ms"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_encode_framing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stored_first_try, setup, teardown),
                cmocka_unit_test_setup_teardown(test_500_then_stored, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unreachable_bounded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refused_not_retried, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_http_client, setup, teardown),
                cmocka_unit_test(test_config_collector),
                cmocka_unit_test_setup_teardown(test_config_policy, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
