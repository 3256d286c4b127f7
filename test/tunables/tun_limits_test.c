/* tun_limits_test.c - declarations that stand for a constant of the code
 * agree with it: a range that is a packet's size or a switch's ports, a
 * default that sizes a table, a choice whose words name the timing models
 * of the firmware or the levels of the loggers.  The table cannot include
 * the headers of the layers above it, so this test holds the two side by
 * side. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/nic_log.h"
#include "md_fwd_state.h"
#include "md_log.h"
#include "md_tun.h"
#include "myri/myri_timing.h"
#include "myri/myri_wire.h"
#include "sci/sci_timing.h"
#include "sci/sci_wire.h"
#include "via/via_wire.h"

static const md_tun_t *decl(const char *name)
{
    const md_tun_t *t = md_tun_find(name);

    cr_assert_not_null(t, "%s is declared", name);
    return t;
}

static long long default_of(const char *name)
{
    md_tun_value_t v;
    char why[MD_TUN_ERR_MAX];

    cr_assert_eq(md_tun_parse(decl(name), decl(name)->def, &v, why, sizeof(why)), 0);
    return v.num;
}

Test(limits, ranges_are_the_constants_they_stand_for)
{
    cr_expect_eq(decl("MULTIDEV_MYRI_EAGER_LIMIT")->max, MYRI_PAGE, "one Myrinet packet");
    cr_expect_eq(decl("MULTIDEV_MYRI_PORT")->max, MYRI_SWITCH_PORTS - 1, "a crossbar's ports");
    cr_expect_eq(decl("MULTIDEV_VIA_EAGER_LIMIT")->max, 8 * VIA_PAYLOAD_MAX, "eight frames");
    cr_expect_eq(decl("MULTIDEV_VIA_MTU")->max, VIA_PAYLOAD_MAX);
    cr_expect_eq(default_of("MULTIDEV_VIA_MTU"), VIA_PAYLOAD_MAX);
    cr_expect_eq(default_of("MULTIDEV_SCI_UP_ATT"), SCI_UP_ENTRIES_DEF);
    cr_expect_eq(decl("MULTIDEV_FWD_ACK_BATCH")->max, MD_FWD_ACKQ_MAX, "the ack queue");
}

Test(limits, every_timing_word_names_a_model)
{
    char word[32];
    const md_tun_t *t;

    t = decl("MULTIDEV_MYRI_TIMING");
    for (int i = 1; md_tun_word(t, i, word, sizeof(word)), word[0] != '\0'; i++)
        cr_expect_eq(myri_timing_profile(word, NULL, NULL), 0, "myri timing %s", word);
    t = decl("MULTIDEV_SCI_TIMING");
    for (int i = 1; md_tun_word(t, i, word, sizeof(word)), word[0] != '\0'; i++)
        cr_expect_eq(sci_timing_profile(word, NULL), 0, "sci timing %s", word);
    t = decl("MULTIDEV_VIA_TIMING");
    for (int i = 1; md_tun_word(t, i, word, sizeof(word)), word[0] != '\0'; i++)
        cr_expect_eq(via_timing_profile(word, NULL, NULL), 0, "via timing %s", word);
    md_tun_word(decl("MULTIDEV_VIA_TIMING"), 0, word, sizeof(word));
    cr_expect_str_eq(word, "off", "the first word is off, which has no model");
}

Test(limits, the_log_levels_are_in_the_loggers_order)
{
    static const char *const levels[] = { "error", "warn", "info", "debug", "trace" };
    const md_tun_t *t = decl("MULTIDEV_LOG_LEVEL");
    char word[32];

    cr_expect_eq(MD_LOG_ERROR, NIC_LOG_ERROR);
    cr_expect_eq(MD_LOG_TRACE, NIC_LOG_TRACE);
    for (int l = MD_LOG_ERROR; l <= MD_LOG_TRACE; l++) {
        md_tun_word(t, l, word, sizeof(word));
        cr_expect_str_eq(word, levels[l]);
    }
    cr_expect_str_eq(decl("MULTIDEV_LOG_LEVEL")->def, levels[MD_LOG_WARN]);
}
