/* The check macro of the native tests: counts checks and failures, prints the first ones. */
#ifndef MESHWELD_TEST_CHECK_H
#define MESHWELD_TEST_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            if (failures < 40) {                                                               \
                fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);       \
                fprintf(stderr, __VA_ARGS__);                                                  \
                fprintf(stderr, "\n");                                                         \
            }                                                                                  \
        }                                                                                      \
    } while (0)

#endif
