/*
 * serves_test.c - md_serves: a peer is served only if it is in range and
 * marked; md_serves_refuse logs the refusal as the subdevices did and
 * answers MD_ERR_NO_ROUTE.
 */
#include <criterion/criterion.h>

#include "md_log.h"
#include "md_serves.h"
#include "log_capture.h"


Test(serves, only_a_marked_peer_in_range_is_served)
{
    static const uint8_t serves[3] = { 0, 1, 1 };

    cr_assert_not(md_serves(serves, 3, 0));
    cr_assert(md_serves(serves, 3, 1));
    cr_assert(md_serves(serves, 3, 2));
    cr_assert_not(md_serves(serves, 3, 3), "out of range");
    cr_assert_not(md_serves(serves, 3, -1), "out of range");
}

Test(serves, a_refusal_is_logged_and_answered_no_route)
{
    md_sdi_host_t host = { .log = capture_log };
    md_subdev_t sd = { .host = &host };

    cr_assert_eq(md_serves_refuse(&sd, 7), MD_ERR_NO_ROUTE);
    cr_assert_str_eq(captured_log, "no route to rank 7: this subdevice does not serve it");
    cr_assert_eq(captured_level, MD_LOG_ERROR);
}
