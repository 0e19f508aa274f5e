/** @file
 * The fake platform's network (plat_net_post): a script of answers, one per call, and a record
 * of what was posted, for the upload tests.
 */
#include <stdlib.h>
#include <string.h>

#include "boot/plat.h"
#include "tests/fake_plat.h"

static struct fake_net_answer script[FAKE_NET_MAX];
static size_t                 n_script, n_calls;
static char                  *last_body;
static size_t                 last_len;
static char                   last_url[160], last_type[64];

void fake_net_script(const struct fake_net_answer *a, size_t n)
{
        n_script = n < FAKE_NET_MAX ? n : FAKE_NET_MAX;
        if (n_script)
                memcpy(script, a, n_script * sizeof(*a));
        n_calls = 0;
        free(last_body);
        last_body = NULL;
        last_len  = 0;
}

size_t fake_net_calls(void)
{
        return n_calls;
}

const char *fake_net_last(size_t *len, const char **url, const char **type)
{
        *len = last_len;
        if (url)
                *url = last_url;
        if (type)
                *type = last_type;
        return last_body;
}

status_t plat_net_post(const char *url, const char *type, const void *body, size_t len,
                       unsigned *http_status, char *reply, size_t reply_cap)
{
        *http_status = 0;
        if (reply_cap)
                reply[0] = 0;
        if (n_calls >= n_script)
                return ST_UNSUPPORTED; /* no script: as a platform without a network */
        const struct fake_net_answer *a = &script[n_calls++];
        free(last_body);
        last_body = malloc(len + 1);
        if (last_body) {
                memcpy(last_body, body, len);
                last_body[len] = 0;
        }
        last_len = len;
        strncpy(last_url, url, sizeof(last_url) - 1);
        strncpy(last_type, type, sizeof(last_type) - 1);
        if (a->st != ST_OK)
                return a->st;
        *http_status = a->code;
        if (reply_cap && a->reply) {
                strncpy(reply, a->reply, reply_cap - 1);
                reply[reply_cap - 1] = 0;
        }
        return ST_OK;
}
