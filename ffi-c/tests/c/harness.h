/*
 * The shared harness of the C tests in this folder: pass/fail counters, CHECK and EXPECT
 * (which prints the library's last error detail on a wrong code), and small helpers.
 * Each test program includes it once and prints "N passed, M failed".
 */
#ifndef CONCORDIA_TEST_HARNESS_H
#define CONCORDIA_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "concordia.h"

static int passed;
static int failed;

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (cond) {                                                                 \
            passed++;                                                               \
        } else {                                                                    \
            failed++;                                                               \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                           \
    } while (0)

#define EXPECT(call, code)                                                          \
    do {                                                                            \
        concordia_result r_ = (call);                                               \
        if (r_ == (concordia_result)(code)) {                                       \
            passed++;                                                               \
        } else {                                                                    \
            failed++;                                                               \
            fprintf(stderr, "FAIL %s:%d: %s -> %u, expected %u (%s)\n", __FILE__,   \
                    __LINE__, #call, (unsigned)r_, (unsigned)(code), last_detail()); \
        }                                                                           \
    } while (0)

static char detail[256];

static inline const char *last_detail(void) {
    size_t n = 0;
    if (concordia_last_error_message((uint8_t *)detail, sizeof detail - 1, &n) != CONCORDIA_OK) {
        n = 0;
    }
    detail[n] = '\0';
    return detail;
}

static inline concordia_str S(const char *s) {
    concordia_str r;
    r.ptr = (const uint8_t *)s;
    r.len = strlen(s);
    return r;
}

static const concordia_str NONE = {NULL, 0};

#define U(s) ((const uint8_t *)(s))

static inline int eq(const uint8_t *buf, size_t len, const char *text) {
    return len == strlen(text) && memcmp(buf, text, len) == 0;
}

#endif /* CONCORDIA_TEST_HARNESS_H */
