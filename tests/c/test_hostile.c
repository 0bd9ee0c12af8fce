/* Hostile inputs: one group per row of the table in README.md (Robustness), each input with the
 * outcome it must get, a specific error (with the point and axis it names) or a specific result,
 * for every method and store it applies to. Successful welds also pass the fuzzers' brute-force
 * checker (tests/fuzz/fuzz.h: every guarantee, and equality with the reference of the method).
 * Usage: test_hostile [group]   (no group: all groups) */
#include "../../c/meshweld.h"
#include "../fuzz/fuzz.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Every method is every number with a name (fz_methodCount): one added to the library is tested
 * here without a change. The four grids whose cells meshweld_cells describes have exact
 * expectations for coordinates beyond their range; other methods asked by name may refuse them
 * too (ErrorRange, naming a coordinate beyond a 2r grid's range) or weld them correctly. */
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int fits(int method, int dim)
{
    return !(method == meshweld_MethodHex && dim != 2) && !(method == meshweld_MethodBcc && dim != 3);
}

/* Whether the method that ran keeps R = r, and so must give the naive result. */
static int precise(int method_ran, int store, int dim, float r)
{
    return meshweld_bound(method_ran, store, dim, r) <= (double)r;
}

static const char* name(int method)
{
    return meshweld_methodName(method);
}

/* One weld expected to succeed: checked by the brute-force checker; returns the output count and
 * fills remap (n + 1 entries: the last must stay untouched). */
static size_t weld_ok(const char* what, unsigned* remap, const float* pts, size_t n, size_t stride, int dim, float r,
                      int method, int store, int* ran)
{
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0, -1, 0, 0};
    remap[n] = 0xdeadbeefu;
    int e = meshweld_weld(remap, pts, n, stride, &o, &info);
    CHECK(e == meshweld_Ok, "%s: %s/%d dim %d r %g: %s", what, name(method), store, dim, r, meshweld_errorString(e));
    CHECK(remap[n] == 0xdeadbeefu, "%s: remap written past its end", what);
    if (ran)
        *ran = info.method;
    if (e != meshweld_Ok)
        return 0;
    fz_checkWeld(what, pts, n, stride, dim, r, method, store, remap, info.unique_count, info.method);
    return info.unique_count;
}

/* One weld expected to fail with error, naming (point, axis) when point != SIZE_MAX; nothing may be
 * written beyond count elements (the rest of remap is unspecified on error). */
static void weld_fails(const char* what, const float* pts, size_t n, size_t stride, int dim, float r, int method,
                       int store, int error, size_t point, int axis)
{
    unsigned* remap = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    for (size_t i = 0; i <= n; ++i)
        remap[i] = 0xdeadbeefu;
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0, -1, SIZE_MAX, -1};
    int e = meshweld_weld(remap, pts, n, stride, &o, &info);
    CHECK(e == error, "%s: %s/%d dim %d: gave %d (%s), expected %s", what, name(method), store, dim, e,
          meshweld_errorString(e), meshweld_errorString(error));
    if (point != SIZE_MAX)
        CHECK(info.error_point == point && info.error_axis == axis, "%s: %s names point %zu axis %d, expected %zu/%d",
              what, name(method), info.error_point, info.error_axis, point, axis);
    CHECK(remap[n] == 0xdeadbeefu, "%s: a failed weld wrote past the end of remap", what);
    free(remap);
}

/* What AUTO may run on coordinates beyond a 2r grid's range: the kd-tree (what it does today), or
 * a precise grid that sizes its cells to the data. */
static int auto_beyond(int ran)
{
    return ran == meshweld_MethodKdtree ||
           (ran != meshweld_MethodAuto && !fz_hasCells(ran) && meshweld_bound(ran, 0, 3, 1.0f) == 1.0);
}

/* Coordinates beyond a grid's range, for a method asked by name: the four classic grids refuse
 * them naming (point, axis); another method may refuse them too (naming a coordinate beyond a 2r
 * grid's range) or weld them, correctly; AUTO, NAIVE and KDTREE weld them. */
static void weld_beyond_range(const char* what, const float* pts, size_t n, size_t stride, int dim, float r, int method,
                              int store, size_t point, int axis)
{
    if (fz_hasCells(method)) {
        weld_fails(what, pts, n, stride, dim, r, method, store, meshweld_ErrorRange, point, axis);
        return;
    }
    unsigned* remap = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0, -1, SIZE_MAX, -1};
    int e = meshweld_weld(remap, pts, n, stride, &o, &info);
    if (e == meshweld_ErrorRange && fz_mayRefuseRange(method)) {
        CHECK(info.error_point < n && info.error_axis >= 0 && info.error_axis < dim &&
                  fz_axisOutOfGrid(fz_at(pts, stride, info.error_point), info.error_axis, dim, r, meshweld_MethodGrid2R),
              "%s: %s refused point %zu axis %d", what, name(method), info.error_point, info.error_axis);
    } else {
        CHECK(e == meshweld_Ok, "%s: %s gave %d (%s)", what, name(method), e, meshweld_errorString(e));
        if (e == meshweld_Ok)
            fz_checkWeld(what, pts, n, stride, dim, r, method, store, remap, info.unique_count, info.method);
    }
    free(remap);
}

/* ---- empty input: every entry point succeeds and writes nothing ---- */
static void group_empty(void)
{
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store) {
                if (!fits(m, dim))
                    continue;
                meshweld_Options o = {dim, 0.5f, m, store};
                meshweld_Info info = {99, -1, 0, 0};
                CHECK(meshweld_weld(NULL, NULL, 0, (size_t)dim * 4, &o, &info) == meshweld_Ok && info.unique_count == 0,
                      "empty weld %s/%d: %zu outputs", name(m), store, info.unique_count);
                CHECK(meshweld_weldKept(NULL, NULL, NULL, 0, (size_t)dim * 4, &o, &info) == meshweld_Ok &&
                          info.unique_count == 0,
                      "empty weldKept %s/%d", name(m), store);
                CHECK(meshweld_weldFirst(NULL, NULL, NULL, NULL, 0, (size_t)dim * 4, &o, &info) == meshweld_Ok &&
                          info.unique_count == 0,
                      "empty weldFirst %s/%d", name(m), store);
                CHECK(m == meshweld_MethodAuto ? info.method != m && name(info.method) != NULL : info.method == m,
                      "empty weld reports %s", name(info.method));
                meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
                CHECK(w && meshweld_welderAdd(w, NULL, NULL, 0, 12, &info) == meshweld_Ok &&
                          meshweld_welderCount(w) == 0 && info.unique_count == 0,
                      "empty batch");
                meshweld_welderPositions(w, NULL);
                meshweld_welderDestroy(w);
            }
    size_t pairs = 7, written = 7, degenerate = 7, duplicates = 7;
    CHECK(meshweld_countClosePairs(&pairs, NULL, 0, 12, 3, 1.0f, 0) == meshweld_Ok && pairs == 0, "empty pairs");
    CHECK(meshweld_gather(NULL, 0, NULL, NULL, 0, 12, 3, 0) == meshweld_Ok, "empty gather");
    CHECK(meshweld_gather(NULL, 0, NULL, NULL, 0, 12, 3, 1) == meshweld_Ok, "empty centroid gather");
    CHECK(meshweld_remapTriangles(NULL, &written, &degenerate, &duplicates, NULL, 0, NULL, 0, meshweld_RemoveDuplicates,
                                  NULL) == meshweld_Ok &&
              written == 0 && degenerate == 0 && duplicates == 0,
          "empty index buffer");
    meshweld_Options o = {3, 0.0f, 0, 0};
    meshweld_Info info = {99, -1, 0, 0};
    CHECK(meshweld_weldAttributes(NULL, NULL, 0, 12, &o, NULL, 0, &info) == meshweld_Ok && info.unique_count == 0,
          "empty attribute weld");
}

/* ---- one point: one output, the point itself ---- */
static void group_one(void)
{
    const float p[3] = {1.5f, -2.25f, 1e-3f};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store)
                for (int k = 0; k < 3; ++k) {
                    if (!fits(m, dim))
                        continue;
                    const float radii[] = {0.0f, 0.5f, 1e6f};
                    unsigned remap[2];
                    size_t u = weld_ok("one point", remap, p, 1, 12, dim, radii[k], m, store, NULL);
                    CHECK(u == 1 && remap[0] == 0, "one point: %zu outputs", u);
                    float out[3] = {0, 0, 0};
                    CHECK(meshweld_gather(out, 1, remap, p, 1, 12, dim, 1) == meshweld_Ok &&
                              memcmp(out, p, (size_t)dim * 4) == 0,
                          "centroid of one point");
                }
}

/* ---- all points identical: one output ---- */
static void group_identical(void)
{
    enum { N = 1000 };
    static float pts[N * 3];
    for (size_t i = 0; i < N; ++i)
        pts[i * 3] = 0.1f, pts[i * 3 + 1] = -7.0f, pts[i * 3 + 2] = 3e5f;
    static unsigned remap[N + 1];
    const float radii[] = {0.0f, FLT_MIN, 1e-3f, 1e3f};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store)
                for (size_t k = 0; k < COUNT(radii); ++k) {
                    const int method = m;
                    if (!fits(method, dim))
                        continue;
                    if (radii[k] == FLT_MIN && fz_mayRefuseRange(method)) {
                        /* 0.1 / FLT_MIN cells: beyond every grid */
                        weld_beyond_range("identical, FLT_MIN", pts, N, 12, dim, radii[k], method, store, 0, 0);
                        continue;
                    }
                    size_t u = weld_ok("identical", remap, pts, N, 12, dim, radii[k], method, store, NULL);
                    int zeros = 1;
                    for (size_t i = 0; i < N; ++i)
                        zeros &= remap[i] == 0;
                    CHECK(u == 1 && zeros, "identical %s/%d r %g: %zu outputs", name(method), store, radii[k], u);
                    static float kept[N * 3 + 1];
                    kept[N * (size_t)dim] = -1.0f;
                    meshweld_Options o = {dim, radii[k], method, store};
                    meshweld_Info info;
                    CHECK(meshweld_weldKept(remap, kept, pts, N, 12, &o, &info) == meshweld_Ok && info.unique_count == 1 &&
                              memcmp(kept, pts, (size_t)dim * 4) == 0 && kept[N * (size_t)dim] == -1.0f,
                          "weldKept of identical points");
                }
    /* in batches too */
    meshweld_Options o = {3, 0.01f, meshweld_MethodGrid2R, 0};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    int e = 0;
    for (size_t at = 0; at < N; at += 100)
        e |= meshweld_welderAdd(w, remap + at, pts + at * 3, 100, 12, NULL);
    float out[3];
    meshweld_welderPositions(w, out);
    CHECK(e == 0 && meshweld_welderCount(w) == 1 && memcmp(out, pts, 12) == 0, "identical batches");
    meshweld_welderDestroy(w);
}

/* Non-finite coordinates in a cloud of distinct points, past the point where a one-shot weld stops
 * looking for exact duplicates: every place in a block of packed coordinates, and the last points. */
static void nonfinite_cloud(void)
{
    enum { N = 3 * 4096 + 7 };
    float* pts = (float*)malloc(N * 3 * sizeof(float));
    const float bad[] = {NAN, INFINITY, -INFINITY};
    char what[96];
    for (int dim = 2; dim <= 3; ++dim)
        for (size_t point = 4096; point < N; point += point < 4096 + 12 ? 1 : N - 4096 - 14)
            for (int axis = 0; axis < dim; ++axis) {
                float v = bad[(point + (size_t)axis) % 3];
                for (size_t i = 0; i < (size_t)N * (size_t)dim; ++i)
                    pts[i] = (float)((i * 7919) % 10007) * 0.01f;
                pts[point * (size_t)dim + (size_t)axis] = v;
                snprintf(what, sizeof(what), "cloud: %g at point %zu axis %d dim %d", v, point, axis, dim);
                weld_fails(what, pts, N, (size_t)dim * 4, dim, 0.05f, meshweld_MethodAuto, 1, meshweld_ErrorNonFinite,
                           point, axis);
                weld_fails(what, pts, N, (size_t)dim * 4, dim, 0.05f, meshweld_MethodGrid, 0, meshweld_ErrorNonFinite,
                           point, axis);
            }
    free(pts);
}

/* ---- NaN, +Inf, -Inf in any coordinate: ErrorNonFinite naming that point and axis ---- */
static void group_nonfinite(void)
{
    enum { N = 40 };
    float pts[N * 3];
    const float bad[] = {NAN, INFINITY, -INFINITY, -NAN};
    const size_t where[] = {0, N / 2, N - 1};
    char what[96];
    for (int dim = 2; dim <= 3; ++dim)
        for (size_t b = 0; b < COUNT(bad); ++b)
            for (size_t at = 0; at < COUNT(where); ++at)
                for (int axis = 0; axis < dim; ++axis) {
                    for (size_t i = 0; i < N * 3; ++i)
                        pts[i] = (float)(i % 7) * 0.1f;
                    size_t point = where[at];
                    pts[point * (size_t)dim + (size_t)axis] = bad[b];
                    snprintf(what, sizeof(what), "%g at point %zu axis %d dim %d", bad[b], point, axis, dim);
                    for (int m = 0; m < fz_methodCount(); ++m)
                        for (int store = 0; store <= 1; ++store)
                            if (fits(m, dim)) {
                                weld_fails(what, pts, N, (size_t)dim * 4, dim, 0.1f, m, store,
                                           meshweld_ErrorNonFinite, point, axis);
                                weld_fails(what, pts, N, (size_t)dim * 4, dim, 0.0f, m, store,
                                           meshweld_ErrorNonFinite, point, axis);
                            }
                    /* a welder refuses the batch and stays as it was */
                    meshweld_Options o = {dim, 0.1f, meshweld_MethodKdtree, 0};
                    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
                    unsigned remap[N];
                    float good[6] = {0, 0, 0, 5, 5, 5};
                    meshweld_Info info;
                    CHECK(meshweld_welderAdd(w, remap, good, 2, (size_t)dim * 4, NULL) == meshweld_Ok, "first batch");
                    CHECK(meshweld_welderAdd(w, remap, pts, N, (size_t)dim * 4, &info) == meshweld_ErrorNonFinite &&
                              info.error_point == point && info.error_axis == axis && meshweld_welderCount(w) == 2,
                          "welder: %s", what);
                    meshweld_welderDestroy(w);
                    size_t pairs = 5;
                    CHECK(meshweld_countClosePairs(&pairs, pts, N, (size_t)dim * 4, dim, 0.1f, 0) == meshweld_ErrorNonFinite,
                          "countClosePairs: %s", what);
                    meshweld_Options a = {dim, 0.1f, 0, 0};
                    info.error_point = 999;
                    CHECK(meshweld_weldAttributes(remap, pts, N, (size_t)dim * 4, &a, NULL, 0, &info) ==
                                  meshweld_ErrorNonFinite &&
                              info.error_point == point && info.error_axis == axis,
                          "weldAttributes: %s", what);
                    int keys[81];
                    meshweld_Options c = {dim, 0.1f, dim == 2 ? meshweld_MethodHex : meshweld_MethodBcc, 0};
                    CHECK(meshweld_cells(keys, NULL, pts + point * (size_t)dim, &c) == meshweld_ErrorNonFinite,
                          "cells: %s", what);
                }
    nonfinite_cloud();
}

/* ---- -0 next to +0: the same position ---- */
static void group_signed_zero(void)
{
    const float z[5 * 3] = {0.0f, 0.0f, 0.0f, -0.0f, 0.0f, 0.0f, 0.0f, -0.0f, 0.0f, 0.0f, 0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
    float reversed[5 * 3];
    for (int i = 0; i < 5; ++i)
        memcpy(reversed + i * 3, z + (4 - i) * 3, 12);
    unsigned remap[6];
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store)
                for (int k = 0; k < 2; ++k) {
                    const int method = m;
                    if (!fits(method, dim))
                        continue;
                    float r = k ? 1.0f : 0.0f;
                    size_t u = weld_ok("signed zeros", remap, z, 5, 12, dim, r, method, store, NULL);
                    CHECK(u == 1, "-0 and +0: %s/%d r %g gave %zu outputs", name(method), store, r, u);
                    /* the output is the first input, sign bits and all */
                    u = weld_ok("signed zeros reversed", remap, reversed, 5, 12, dim, r, method, store, NULL);
                    float out[3];
                    CHECK(u == 1 && meshweld_gather(out, 1, remap, reversed, 5, 12, dim, 0) == meshweld_Ok &&
                              signbit(out[0]) && signbit(out[1]),
                          "the kept position is the first input (-0, -0)");
                }
    /* across welder batches */
    meshweld_Options o = {3, 0.0f, meshweld_MethodAuto, meshweld_StoreLoose};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    CHECK(meshweld_welderAdd(w, remap, z, 1, 12, NULL) == 0 && meshweld_welderAdd(w, remap + 1, z + 3, 4, 12, NULL) == 0 &&
              meshweld_welderCount(w) == 1,
          "-0 in a later batch");
    meshweld_welderDestroy(w);
    size_t pairs = 0;
    CHECK(meshweld_countClosePairs(&pairs, z, 5, 12, 3, 0.0f, 0) == meshweld_Ok && pairs == 10,
          "radius 0 counts -0 and +0 as one position: %zu pairs", pairs);
    /* attributes: -0 and +0 values are equal, with tolerance 0 */
    const float normals[5 * 3] = {0, 0, 1, -0.0f, 0, 1, 0, -0.0f, 1, 0, 0, 1, -0.0f, -0.0f, 1};
    meshweld_Attribute a = {normals, 12, 3, 0.0f};
    meshweld_Info info;
    CHECK(meshweld_weldAttributes(remap, z, 5, 12, &o, &a, 1, &info) == meshweld_Ok && info.unique_count == 1,
          "-0 attributes: %zu outputs", info.unique_count);
}

/* ---- denormals ---- */
static void group_denormal(void)
{
    const float d1 = 1e-45f, d2 = 3e-45f; /* the smallest denormal, and 2 steps of it */
    const float row[5 * 3] = {0, 0, 0, -0.0f, 0, 0, d1, 0, 0, d2, 0, 0, -d1, 0, 0};
    unsigned remap[6];
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store) {
                const int method = m;
                if (!fits(method, dim))
                    continue;
                /* radius 0: bitwise positions only; 0 and -0 are one */
                size_t u = weld_ok("denormals, r 0", remap, row, 5, 12, dim, 0.0f, method, store, NULL);
                CHECK(u == 4 && remap[1] == 0, "denormals at r 0: %zu outputs", u);
                /* radius the smallest denormal: 0 takes 1e-45 and -1e-45, 3e-45 is apart */
                int ran;
                u = weld_ok("denormals, r 1e-45", remap, row, 5, 12, dim, d1, method, store, &ran);
                if (precise(ran, store, dim, d1))
                    CHECK(u == 2 && remap[2] == 0 && remap[3] == 1 && remap[4] == 0, "denormal radius: %u %u %u", remap[2],
                          remap[3], remap[4]);
                /* an ordinary radius: all one */
                u = weld_ok("denormals, r 1e-3", remap, row, 5, 12, dim, 1e-3f, method, store, NULL);
                CHECK(u == 1, "denormals with r 1e-3: %zu outputs", u);
            }
    /* a denormal radius with ordinary coordinates: beyond the grid, auto goes to the kd-tree */
    const float ones[6] = {1, 1, 1, 1, 1, 1.0000001f};
    for (int m = 0; m < fz_methodCount(); ++m)
        for (int store = 0; store <= 1; ++store)
            if (fz_mayRefuseRange(m))
                weld_beyond_range("denormal radius, coordinate 1", ones, 2, 12, m == meshweld_MethodHex ? 2 : 3, d1, m,
                                  store, 0, 0);
    int ran;
    CHECK(weld_ok("denormal radius, auto", remap, ones, 2, 12, 3, d1, meshweld_MethodAuto, 0, &ran) == 2 &&
              auto_beyond(ran),
          "auto with a denormal radius ran %s", name(ran));
}

/* ---- coordinates near FLT_MAX with r tiny: grid methods refuse (cell indices would overflow),
 * auto switches to the kd-tree, naive and kdtree weld ---- */
static void group_huge(void)
{
    const float big = FLT_MAX, below = nextafterf(FLT_MAX, 0.0f);
    const float pts[6 * 3] = {1, 2, 3, big, -big, 0, big, -big, 0, below, -big, 0, -big, big, big, 0.5f, 0.5f, 3e38f};
    unsigned remap[7];
    /* the expected weld, as naive makes it: the two FLT_MAX points are one; one ulp at FLT_MAX is
     * 2e31, far beyond r */
    const unsigned expect[6] = {0, 1, 1, 2, 3, 4};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store) {
                const int method = m;
                if (!fits(method, dim))
                    continue;
                if (fz_mayRefuseRange(method)) {
                    /* the first coordinate beyond the grid: point 1, x */
                    weld_beyond_range("FLT_MAX, r 1e-3", pts, 6, 12, dim, 1e-3f, method, store, 1, 0);
                    continue;
                }
                int ran;
                size_t u = weld_ok("FLT_MAX, r 1e-3", remap, pts, 6, 12, dim, 1e-3f, method, store, &ran);
                CHECK(u == (dim == 3 ? 5 : 5) && memcmp(remap, expect, sizeof(expect)) == 0,
                      "FLT_MAX %s/%d dim %d: %zu outputs", name(method), store, dim, u);
                CHECK(method == meshweld_MethodAuto ? auto_beyond(ran) : ran == method, "ran %s", name(ran));
            }
    /* a non-finite coordinate after one beyond every grid: auto must still refuse it */
    const float late_nan[9] = {0, 0, 0, 1e30f, 0, 0, 0, NAN, 0};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            if (fits(m, dim)) {
                meshweld_Options o = {dim, 1e-5f, m, 1};
                meshweld_Info info = {0, -1, 0, -1};
                float kept[9];
                int e = meshweld_weld(remap, late_nan, 3, 12, &o, &info);
                int ek = meshweld_weldKept(remap, kept, late_nan, 3, 12, &o, &info);
                CHECK((e == meshweld_ErrorNonFinite || (fz_hasCells(m) && e == meshweld_ErrorRange)) && e == ek,
                      "%s dim %d: (0 0 0) (1e30 0 0) (0 NaN 0) gave %d (%s), weldKept %d", name(m), dim, e,
                      meshweld_errorString(e), ek);
                meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
                CHECK(meshweld_welderAdd(w, remap, late_nan, 3, 12, NULL) == e && meshweld_welderCount(w) == 0,
                      "%s dim %d: welder with a late NaN: %zu outputs", name(m), dim, meshweld_welderCount(w));
                meshweld_welderDestroy(w);
            }
    /* only z beyond the grid: the error names axis 2 */
    const float zonly[6] = {0, 0, 0, 0, 0, -3e38f};
    weld_fails("z = -3e38", zonly, 2, 12, 3, 1e-3f, meshweld_MethodBcc, 1, meshweld_ErrorRange, 1, 2);
    /* a welder: auto moves to the kd-tree for good at the first batch beyond the grid */
    meshweld_Options o = {3, 1e-3f, meshweld_MethodAuto, meshweld_StorePrecise};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    CHECK(meshweld_welderAdd(w, remap, pts, 1, 12, NULL) == 0 && meshweld_welderMethod(w) != meshweld_MethodKdtree,
          "auto starts on a grid");
    CHECK(meshweld_welderAdd(w, remap + 1, pts + 3, 5, 12, NULL) == 0 && auto_beyond(meshweld_welderMethod(w)) &&
              memcmp(remap, expect, sizeof(expect)) == 0,
          "auto welder after FLT_MAX: %s", name(meshweld_welderMethod(w)));
    meshweld_welderDestroy(w);
    /* an explicit grid welder refuses the batch and stays usable */
    o.method = meshweld_MethodGridR;
    w = meshweld_welderCreate(&o, NULL);
    meshweld_Info info;
    CHECK(meshweld_welderAdd(w, remap, pts, 1, 12, NULL) == 0 &&
              meshweld_welderAdd(w, remap + 1, pts + 3, 5, 12, &info) == meshweld_ErrorRange && info.error_point == 0 &&
              meshweld_welderCount(w) == 1 && meshweld_welderAdd(w, remap + 1, pts, 1, 12, NULL) == 0 && remap[1] == 0,
          "grid-r welder and FLT_MAX");
    meshweld_welderDestroy(w);
    /* the attribute weld goes to the kd-tree too */
    meshweld_Options a = {3, 1e-3f, meshweld_MethodAuto, 0};
    CHECK(meshweld_weldAttributes(remap, pts, 6, 12, &a, NULL, 0, &info) == 0 && auto_beyond(info.method) &&
              memcmp(remap, expect, sizeof(expect)) == 0,
          "weldAttributes and FLT_MAX: %s", name(info.method));
    int keys[81];
    meshweld_Options g = {3, 1e-3f, meshweld_MethodGrid2R, 0};
    CHECK(meshweld_cells(keys, NULL, pts + 3, &g) == meshweld_ErrorRange, "cells of FLT_MAX");
    /* distances between +-FLT_MAX do not overflow (double): within r = FLT_MAX are the three
     * pairs among points 1-3 and (1, 2, 3) with (0.5, 0.5, 3e38) */
    size_t pairs = 9, brute = 0;
    for (size_t i = 0; i < 6; ++i)
        for (size_t j = i + 1; j < 6; ++j)
            brute += fz_within(pts + i * 3, pts + j * 3, 3, FLT_MAX);
    CHECK(meshweld_countClosePairs(&pairs, pts, 6, 12, 3, FLT_MAX, 0) == 0 && pairs == 4 && brute == 4,
          "pairs within FLT_MAX: %zu (brute force %zu)", pairs, brute);
}

/* ---- r near FLT_MIN ---- */
static void group_tiny_radius(void)
{
    const float m = FLT_MIN;
    const float row[4 * 3] = {0, 0, 0, m, 0, 0, 2 * m, 0, 0, -m, 0, 0};
    unsigned remap[5];
    const float radii[] = {FLT_MIN, nextafterf(FLT_MIN, 0.0f)};
    for (int dim = 2; dim <= 3; ++dim)
        for (int mm = 0; mm < fz_methodCount(); ++mm)
            for (int store = 0; store <= 1; ++store) {
                const int method = mm;
                if (!fits(method, dim))
                    continue;
                int ran;
                size_t u = weld_ok("r = FLT_MIN", remap, row, 4, 12, dim, radii[0], method, store, &ran);
                if (precise(ran, store, dim, radii[0]))
                    CHECK(u == 2 && remap[1] == 0 && remap[2] == 1 && remap[3] == 0, "FLT_MIN: %u %u %u", remap[1],
                          remap[2], remap[3]);
                /* the largest denormal radius: FLT_MIN is beyond it */
                u = weld_ok("r below FLT_MIN", remap, row, 4, 12, dim, radii[1], method, store, &ran);
                if (precise(ran, store, dim, radii[1]))
                    CHECK(u == 4, "r below FLT_MIN: %zu outputs", u);
            }
    /* with coordinates of 1, every grid is out of range; auto and kd-tree weld */
    const float unit[6] = {1, 0, 0, 1, 0, 0};
    for (int method = 0; method < fz_methodCount(); ++method)
        for (int store = 0; store <= 1; ++store)
            if (fz_mayRefuseRange(method))
                weld_beyond_range("r FLT_MIN, x = 1", unit, 2, 12, method == meshweld_MethodHex ? 2 : 3, FLT_MIN, method,
                                  store, 0, 0);
    int ran;
    CHECK(weld_ok("r FLT_MIN, auto", remap, unit, 2, 12, 3, FLT_MIN, meshweld_MethodAuto, 0, &ran) == 1 &&
              auto_beyond(ran),
          "auto, FLT_MIN, 1: %s", name(ran));
}

/* ---- r larger than the whole extent: everything merges into the first point ---- */
static void group_big_radius(void)
{
    enum { N = 500 };
    static float pts[N * 3], wide[N * 3];
    static unsigned remap[N + 1];
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < N * 3; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        pts[i] = (float)((double)(s >> 11) / 9007199254740992.0 * 2 - 1);
        wide[i] = pts[i] * 1e37f;
    }
    const struct {
        const float* p;
        float r;
    } cases[] = {{pts, 4.0f}, {pts, 1e30f}, {wide, 1e38f}, {wide, FLT_MAX}};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store)
                for (size_t c = 0; c < COUNT(cases); ++c) {
                    if (!fits(m, dim))
                        continue;
                    size_t u = weld_ok("r beyond the extent", remap, cases[c].p, N, 12, dim, cases[c].r, m,
                                       store, NULL);
                    int zeros = 1;
                    for (size_t i = 0; i < N; ++i)
                        zeros &= remap[i] == 0;
                    CHECK(u == 1 && zeros, "r %g beyond the extent, %s/%d dim %d: %zu outputs", cases[c].r,
                          name(m), store, dim, u);
                }
    meshweld_Options o = {3, FLT_MAX, meshweld_MethodKdtree, 0};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    int e = 0;
    for (size_t at = 0; at < N; at += 125)
        e |= meshweld_welderAdd(w, remap + at, wide + at * 3, 125, 12, NULL);
    CHECK(e == 0 && meshweld_welderCount(w) == 1, "welder, r FLT_MAX: %zu outputs", meshweld_welderCount(w));
    meshweld_welderDestroy(w);
}

/* ---- the boundary of "within r": the squared distance in double against r * r ---- */
static void group_distance(void)
{
    unsigned remap[3];
    /* exactly r apart (exact in binary): within r, merged by every precise method */
    const float apart[6] = {0, 0, 0, 0.25f, 0, 0};
    const float beyond[6] = {0, 0, 0, nextafterf(0.25f, 1.0f), 0, 0};
    /* sqrt of the double squared distance rounds to exactly 1, but the squared distance is
     * 1 + 2^-52 > 1 * 1: not within r = 1 (the definition the library and its validator use) */
    const float rounding[4] = {0, 0, 0x1.28p-26f, 1.0f};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store) {
                const int method = m;
                if (!fits(method, dim))
                    continue;
                int ran;
                size_t u = weld_ok("exactly r apart", remap, apart, 2, 12, dim, 0.25f, method, store, &ran);
                CHECK(u == 1, "points exactly r apart: %s/%d %zu outputs", name(method), store, u);
                u = weld_ok("one float step beyond r", remap, beyond, 2, 12, dim, 0.25f, method, store, &ran);
                if (precise(ran, store, dim, 0.25f))
                    CHECK(u == 2, "points a float step beyond r: %s/%d %zu outputs", name(method), store, u);
                if (dim == 2) {
                    u = weld_ok("distance rounding to r", remap, rounding, 2, 8, 2, 1.0f, method, store, &ran);
                    if (precise(ran, store, dim, 1.0f))
                        CHECK(u == 2, "distance that rounds to r: %s/%d %zu outputs", name(method), store, u);
                }
            }
    size_t pairs = 9;
    CHECK(meshweld_countClosePairs(&pairs, rounding, 2, 8, 2, 1.0f, 0) == 0 && pairs == 0,
          "countClosePairs agrees: %zu", pairs);
    CHECK(meshweld_countClosePairs(&pairs, apart, 2, 12, 3, 0.25f, 0) == 0 && pairs == 1, "exactly r: %zu", pairs);
}

/* ---- strides: smaller than dim floats or not a multiple of 4 bytes ---- */
static void group_stride(void)
{
    float pts[4 * 8];
    for (int i = 0; i < 32; ++i)
        pts[i] = (float)i;
    const size_t bad3[] = {0, 1, 2, 3, 4, 8, 11, 13, 14, 15, 18}, bad2[] = {0, 1, 4, 6, 7, 9, 10};
    for (int dim = 2; dim <= 3; ++dim) {
        const size_t* bad = dim == 3 ? bad3 : bad2;
        size_t nbad = dim == 3 ? COUNT(bad3) : COUNT(bad2);
        for (size_t b = 0; b < nbad; ++b) {
            for (int m = 0; m < fz_methodCount(); ++m)
                if (fits(m, dim))
                    weld_fails("bad stride", pts, 4, bad[b], dim, 0.5f, m, 0, meshweld_ErrorStride, SIZE_MAX,
                               0);
            meshweld_Options o = {dim, 0.5f, 0, 0};
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            unsigned remap[4];
            float dest[12];
            size_t pairs;
            CHECK(meshweld_welderAdd(w, remap, pts, 4, bad[b], NULL) == meshweld_ErrorStride && meshweld_welderCount(w) == 0,
                  "welder stride %zu", bad[b]);
            meshweld_welderDestroy(w);
            unsigned zero[4] = {0, 0, 0, 0};
            CHECK(meshweld_gather(dest, 1, zero, pts, 4, bad[b], dim, 0) == meshweld_ErrorStride, "gather stride %zu", bad[b]);
            CHECK(meshweld_countClosePairs(&pairs, pts, 4, bad[b], dim, 0.5f, 0) == meshweld_ErrorStride,
                  "countClosePairs stride %zu", bad[b]);
            CHECK(meshweld_weldAttributes(remap, pts, 4, bad[b], &o, NULL, 0, NULL) == meshweld_ErrorStride,
                  "weldAttributes stride %zu", bad[b]);
            meshweld_Attribute a = {pts, bad[b], dim, 0.1f};
            CHECK(meshweld_weldAttributes(remap, pts, 4, 32, &o, &a, 1, NULL) == meshweld_ErrorStride,
                  "attribute stride %zu for %d floats", bad[b], dim);
        }
    }
    /* an interleaved buffer whose padding is NaN: the padding is never read */
    float vertices[6 * 8];
    float packed[6 * 3];
    for (int i = 0; i < 6; ++i) {
        for (int k = 0; k < 8; ++k)
            vertices[i * 8 + k] = NAN;
        for (int k = 0; k < 3; ++k)
            vertices[i * 8 + k] = packed[i * 3 + k] = (float)((i % 3) * (k + 1)) * 0.5f;
    }
    for (int m = 0; m < fz_methodCount(); ++m)
        for (int store = 0; store <= 1; ++store) {
            if (!fits(m, 3))
                continue;
            unsigned a[7], b[7];
            size_t u = weld_ok("NaN padding", a, vertices, 6, 32, 3, 0.1f, m, store, NULL);
            size_t v = weld_ok("packed", b, packed, 6, 12, 3, 0.1f, m, store, NULL);
            CHECK(u == 3 && v == 3 && memcmp(a, b, 6 * sizeof(unsigned)) == 0, "NaN padding changed the weld");
        }
}

/* ---- counts whose byte sizes (or indices) overflow: ErrorCount before anything is read ---- */
static void group_count(void)
{
    float pts[6] = {0, 0, 0, 1, 1, 1};
    unsigned remap[2];
    const size_t counts[] = {SIZE_MAX / 12 + 1, SIZE_MAX, (size_t)UINT32_MAX, ((size_t)1 << 32) + 5, (size_t)1 << 62};
    for (size_t c = 0; c < COUNT(counts); ++c) {
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store)
                if (fits(m, 3)) {
                    meshweld_Options o = {3, 0.5f, m, store};
                    CHECK(meshweld_weld(remap, pts, counts[c], 12, &o, NULL) == meshweld_ErrorCount, "weld of %zu points",
                          counts[c]);
                    float kept[6];
                    CHECK(meshweld_weldKept(remap, kept, pts, counts[c], 12, &o, NULL) == meshweld_ErrorCount,
                          "weldKept of %zu points", counts[c]);
                    unsigned first[2];
                    CHECK(meshweld_weldFirst(remap, first, kept, pts, counts[c], 12, &o, NULL) == meshweld_ErrorCount,
                          "weldFirst of %zu points", counts[c]);
                }
        meshweld_Options o = {3, 0.5f, 0, 0};
        meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
        CHECK(meshweld_welderAdd(w, remap, pts, counts[c], 12, NULL) == meshweld_ErrorCount && meshweld_welderCount(w) == 0,
              "welder batch of %zu", counts[c]);
        meshweld_welderDestroy(w);
        size_t pairs;
        CHECK(meshweld_countClosePairs(&pairs, pts, counts[c], 12, 3, 0.5f, 0) == meshweld_ErrorCount,
              "countClosePairs of %zu", counts[c]);
        CHECK(meshweld_weldAttributes(remap, pts, counts[c], 12, &o, NULL, 0, NULL) == meshweld_ErrorCount,
              "weldAttributes of %zu", counts[c]);
    }
    /* an attribute whose byte size overflows though the positions' does not */
    meshweld_Options o = {3, 0.5f, 0, 0};
    meshweld_Attribute a = {pts, (size_t)1 << 40, 1, 0.0f};
    CHECK(meshweld_weldAttributes(remap, pts, (size_t)1 << 30, 12, &o, &a, 1, NULL) == meshweld_ErrorCount,
          "attribute bytes overflow");
    /* gather: the points' byte size overflows */
    float dest[6];
    unsigned zero[2] = {0, 0};
    CHECK(meshweld_gather(dest, 1, zero, pts, SIZE_MAX / 12 + 1, 12, 3, 0) == meshweld_ErrorCount, "gather count");
    /* a soup index count beyond SIZE_MAX's reach */
    size_t written;
    unsigned out[3];
    /* SIZE_MAX is a multiple of 3: the soup's index 2 is out of range */
    meshweld_Info info = {0, 0, 99, 0};
    CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, NULL, SIZE_MAX, zero, 2, 0, &info) == meshweld_ErrorIndex &&
              info.error_point == 2,
          "soup of SIZE_MAX indices: error_point %zu", info.error_point);
}

/* ---- index buffers: out of range, or a count not divisible by 3 ---- */
static void group_indices(void)
{
    unsigned identity[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    unsigned out[12], before[12];
    size_t written = 5;
    meshweld_Info info;
    const struct {
        unsigned idx[9];
        size_t count, at;
    } bad[] = {{{0, 1, 2, 3, 4, 5, 6, 7, 8}, 9, 8},        {{0, 1, 0xffffffffu}, 3, 2},
               {{9, 1, 2}, 3, 0},                          {{0, 1, 2, 0x80000000u, 1, 2}, 6, 3},
               {{0, 1, 2, 3, 4, 5, 8, 8, 8}, 9, 6}};
    for (size_t b = 0; b < COUNT(bad); ++b)
        for (int flags = 0; flags < 4; ++flags) {
            memset(out, 0x5a, sizeof(out));
            memcpy(before, out, sizeof(out));
            info.error_point = 99;
            CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, bad[b].idx, bad[b].count, identity, 8, flags, &info) ==
                          meshweld_ErrorIndex &&
                      info.error_point == bad[b].at,
                  "index %u at %zu: error_point %zu", bad[b].idx[bad[b].at], bad[b].at, info.error_point);
            CHECK(memcmp(out, before, sizeof(out)) == 0, "a refused index buffer was written");
            /* in place: the indices stay as they were */
            unsigned copy[9];
            memcpy(copy, bad[b].idx, sizeof(copy));
            CHECK(meshweld_remapTriangles(copy, &written, NULL, NULL, copy, bad[b].count, identity, 8, flags, &info) ==
                          meshweld_ErrorIndex &&
                      memcmp(copy, bad[b].idx, sizeof(copy)) == 0,
                  "in place, refused");
        }
    const unsigned ok[9] = {0, 1, 2, 2, 1, 0, 3, 4, 5};
    for (size_t count = 1; count <= 8; ++count) {
        if (count % 3 == 0)
            continue;
        CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, ok, count, identity, 8, 0, &info) == meshweld_ErrorIndexCount,
              "%zu indices", count);
        CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, NULL, count, identity, 8, 0, &info) ==
                  meshweld_ErrorIndexCount,
              "soup of %zu", count);
    }
    info.error_point = 99;
    CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, NULL, 9, identity, 8, 0, &info) == meshweld_ErrorIndex &&
              info.error_point == 8,
          "a soup longer than its vertices: its index 8 at position 8, error_point %zu", info.error_point);
    CHECK(meshweld_remapTriangles(NULL, &written, NULL, NULL, ok, 9, identity, 8, 0, &info) == meshweld_ErrorNull,
          "NULL destination");
    /* remap values are not checked: they are copied as they are */
    unsigned wild[8] = {0xffffffffu, 7, 0x80000000u, 3, 4, 5, 6, 7};
    CHECK(meshweld_remapTriangles(out, &written, NULL, NULL, ok, 3, wild, 8, 0, &info) == 0 && written == 3 &&
              out[0] == 0xffffffffu && out[2] == 0x80000000u,
          "wild remap values");
    /* a kept degenerate triangle and its rotations are duplicates of each other */
    const unsigned rotations[9] = {0, 0, 1, 0, 1, 0, 1, 0, 0};
    size_t duplicates = 0;
    CHECK(meshweld_remapTriangles(out, &written, NULL, &duplicates, rotations, 9, identity, 8,
                                  meshweld_KeepDegenerate | meshweld_RemoveDuplicates, &info) == 0 &&
              written == 3 && duplicates == 2,
          "rotations of a kept degenerate triangle: %zu written, %zu duplicates (expected 3 and 2)", written, duplicates);
}

/* ---- the incremental welder under errors ---- */
static void group_welder(void)
{
    int e = 0;
    CHECK(meshweld_welderCreate(NULL, &e) == NULL && e == meshweld_ErrorNull, "welderCreate(NULL)");
    unsigned remap[8];
    float pts[6] = {0, 0, 0, 1, 1, 1};
    CHECK(meshweld_welderAdd(NULL, remap, pts, 2, 12, NULL) == meshweld_ErrorNull, "welderAdd(NULL)");
    CHECK(meshweld_welderCount(NULL) == 0 && meshweld_welderMethod(NULL) == meshweld_ErrorNull, "NULL welder queries");
    meshweld_welderPositions(NULL, NULL);
    meshweld_welderDestroy(NULL);
    /* each kind of bad batch in turn, then the good ones: the good ones give the one-shot weld */
    float good[12] = {0, 0, 0, 0.05f, 0, 0, 3, 3, 3, 3, 3, 3.05f};
    float nan3[6] = {1, 1, 1, 1, NAN, 1}, nan2[4] = {1, 1, 1, NAN};
    for (int dim = 2; dim <= 3; ++dim)
        for (int m = 0; m < fz_methodCount(); ++m)
            for (int store = 0; store <= 1; ++store) {
                if (!fits(m, dim))
                    continue;
                meshweld_Options o = {dim, 0.1f, m, store};
                meshweld_Welder* w = meshweld_welderCreate(&o, &e);
                meshweld_Info info;
                size_t stride = (size_t)dim * 4;
                e = meshweld_welderAdd(w, remap, good, 2, stride, NULL);
                CHECK(meshweld_welderAdd(w, remap + 2, dim == 2 ? nan2 : nan3, 2, stride, &info) == meshweld_ErrorNonFinite &&
                          info.error_point == 1 && info.error_axis == 1,
                      "NaN batch");
                CHECK(meshweld_welderAdd(w, remap + 2, good + 2 * dim, 2, 2, &info) == meshweld_ErrorStride, "bad stride");
                CHECK(meshweld_welderAdd(w, NULL, good + 2 * dim, 2, stride, &info) == meshweld_ErrorNull, "NULL remap");
                e |= meshweld_welderAdd(w, remap + 2, good + 2 * dim, 2, stride, NULL);
                unsigned one[5];
                size_t u = weld_ok("welder one-shot", one, good, 4, stride, dim, 0.1f, m, store, NULL);
                CHECK(e == 0 && memcmp(remap, one, 4 * sizeof(unsigned)) == 0 && meshweld_welderCount(w) == u,
                      "%s/%d: the bad batches changed the weld", name(m), store);
                meshweld_welderDestroy(w);
            }
    /* auto meeting huge coordinates in a later batch: the earlier batches keep their grid
     * answers, the rest is welded by the kd-tree (its remap can differ from one weld of
     * everything, which runs the kd-tree throughout) */
    const float row[5 * 3] = {0, 0, 0, 0.9f, 0, 0, 1.8f, 0, 0, 2.7f, 0, 0, 1e30f, 0, 0};
    meshweld_Options o = {3, 1.0f, meshweld_MethodAuto, meshweld_StoreLoose};
    meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
    unsigned first[6];
    meshweld_Info info;
    CHECK(meshweld_welderAdd(w, remap, row, 4, 12, &info) == 0 && info.method != meshweld_MethodKdtree, "first batch");
    int grid = info.method;
    CHECK(meshweld_welderAdd(w, remap + 4, row + 12, 1, 12, &info) == 0 && auto_beyond(info.method),
          "auto at the second batch: %s", name(info.method));
    if (info.method != grid && meshweld_bound(grid, 0, 3, 1.0f) > 1.0) {
        weld_ok("first batch alone", first, row, 4, 12, 3, 1.0f, meshweld_MethodAuto, 0, NULL);
        CHECK(memcmp(remap, first, 4 * sizeof(unsigned)) == 0 && remap[4] == meshweld_welderCount(w) - 1,
              "the first batch keeps its grid weld");
    } else { /* a precise auto: the concatenation is the one-shot weld */
        weld_ok("all batches at once", first, row, 5, 12, 3, 1.0f, meshweld_MethodAuto, 0, NULL);
        CHECK(memcmp(remap, first, 5 * sizeof(unsigned)) == 0, "precise auto welder differs from one shot");
    }
    meshweld_welderDestroy(w);
}

/* ---- gather: remap values and output counts ---- */
static void group_gather(void)
{
    float pts[6] = {1, 2, 3, 4, 5, 6}, dest[6] = {0};
    unsigned over[2] = {0, 2}, max[2] = {0, 0xffffffffu}, ok[2] = {0, 0};
    for (int centroid = 0; centroid <= 1; ++centroid) {
        CHECK(meshweld_gather(dest, 2, over, pts, 2, 12, 3, centroid) == meshweld_ErrorIndex, "remap value 2 of 2 outputs");
        CHECK(meshweld_gather(dest, 2, max, pts, 2, 12, 3, centroid) == meshweld_ErrorIndex, "remap value UINT32_MAX");
        CHECK(meshweld_gather(dest, 1, ok, pts, 2, 12, 4, centroid) == meshweld_ErrorDim, "gather in 4D");
        CHECK(meshweld_gather(NULL, 1, ok, pts, 2, 12, 3, centroid) == meshweld_ErrorNull, "NULL destination");
        /* output counts whose scratch or destination byte sizes overflow: ErrorCount, and nothing
         * allocated too small and written past */
        const size_t huge[] = {SIZE_MAX, SIZE_MAX - 3, (size_t)1 << 62, SIZE_MAX / 3 + 1, SIZE_MAX / 12 + 1};
        for (size_t h = 0; h < COUNT(huge); ++h) {
            int e = meshweld_gather(dest, huge[h], ok, pts, 2, 12, 3, centroid);
            CHECK(e == meshweld_ErrorCount, "gather of %zu outputs (%s): %d (%s), expected ErrorCount", huge[h],
                  centroid ? "centroid" : "first", e, meshweld_errorString(e));
        }
    }
    /* centroids of points at +-FLT_MAX: summed in double, no overflow */
    float big[9] = {FLT_MAX, -FLT_MAX, 0, FLT_MAX, -FLT_MAX, 0, FLT_MAX, -FLT_MAX, 1};
    unsigned all[3] = {0, 0, 0};
    CHECK(meshweld_gather(dest, 1, all, big, 3, 12, 3, 1) == 0 && dest[0] == FLT_MAX && dest[1] == -FLT_MAX &&
              dest[2] == (float)(1.0 / 3.0),
          "centroid at FLT_MAX: %g %g %g", dest[0], dest[1], dest[2]);

    /* the first input of each output: the smallest index, UINT_MAX for an output without one */
    unsigned remap[6] = {0, 1, 0, 2, 1, 0}, first[4] = {7, 7, 7, 7};
    CHECK(meshweld_firstOfEach(first, 4, remap, 6) == meshweld_Ok && first[0] == 0 && first[1] == 1 && first[2] == 3 &&
              first[3] == 0xffffffffu,
          "firstOfEach: %u %u %u %u", first[0], first[1], first[2], first[3]);
    /* outputs not numbered in order of first appearance, from the start or after a while */
    unsigned shuffled[5] = {2, 0, 2, 1, 0}, late[5] = {0, 1, 3, 2, 1}, beyond[3] = {0, 1, 5};
    CHECK(meshweld_firstOfEach(first, 4, shuffled, 5) == meshweld_Ok && first[0] == 1 && first[1] == 3 && first[2] == 0 &&
              first[3] == 0xffffffffu,
          "firstOfEach, shuffled: %u %u %u %u", first[0], first[1], first[2], first[3]);
    CHECK(meshweld_firstOfEach(first, 4, late, 5) == meshweld_Ok && first[0] == 0 && first[1] == 1 && first[2] == 3 &&
              first[3] == 2,
          "firstOfEach, out of order late: %u %u %u %u", first[0], first[1], first[2], first[3]);
    CHECK(meshweld_firstOfEach(first, 3, beyond, 3) == meshweld_ErrorIndex, "firstOfEach: remap value 5 of 3 outputs, late");
    CHECK(meshweld_firstOfEach(first, 2, remap, 6) == meshweld_ErrorIndex, "firstOfEach: remap value 2 of 2 outputs");
    CHECK(meshweld_firstOfEach(first, 4, max, 2) == meshweld_ErrorIndex, "firstOfEach: remap value UINT32_MAX");
    CHECK(meshweld_firstOfEach(NULL, 4, remap, 6) == meshweld_ErrorNull, "firstOfEach: NULL first");
    CHECK(meshweld_firstOfEach(first, 4, NULL, 6) == meshweld_ErrorNull, "firstOfEach: NULL remap");
    CHECK(meshweld_firstOfEach(NULL, 0, NULL, 0) == meshweld_Ok, "firstOfEach: empty");
    /* the weld's own: the output buffer it must write is checked after the options */
    float two[6] = {0, 0, 0, 0.1f, 0, 0}, kept[6];
    unsigned welded[2];
    meshweld_Options o = {3, 0.5f, meshweld_MethodAuto, 0}, bad = {3, -1.0f, meshweld_MethodAuto, 0};
    CHECK(meshweld_weldKept(welded, NULL, two, 2, 12, &o, NULL) == meshweld_ErrorNull, "weldKept: NULL kept");
    CHECK(meshweld_weldFirst(welded, NULL, kept, two, 2, 12, &o, NULL) == meshweld_ErrorNull, "weldFirst: NULL first");
    CHECK(meshweld_weldFirst(welded, NULL, NULL, two, 2, 12, &bad, NULL) == meshweld_ErrorRadius, "weldFirst: radius first");
    CHECK(meshweld_weldFirst(welded, first, NULL, two, 2, 12, &o, NULL) == meshweld_Ok && welded[0] == 0 && welded[1] == 0 &&
              first[0] == 0,
          "weldFirst of two points within r: %u %u, first %u", welded[0], welded[1], first[0]);
}

/* ---- the attribute weld's hostile inputs ---- */
/* 2D points whose exact keys (their float bits) collide in a multiply-shift hash of known
 * factors: each word times its factor, the high words of the products xored. Each x's high word
 * agrees with one y's in its low 16 bits, so that all the points would share one slot in any
 * table of up to 2^16 slots, and each insert would probe every key before it. Returns the count
 * made (n). */
static size_t flood_points(float* pts, size_t n)
{
    const uint64_t kx = 0x9e3779b97f4a7c15ull, ky = 0xc2b2ae3d27d4eb4full;
    enum { YS = 64 };
    static uint32_t y_of[1 << 16]; /* low 16 bits of a y's high word -> that y, 0 for none */
    memset(y_of, 0, sizeof(y_of));
    for (uint32_t k = 0, got = 0; got < YS; ++k) {
        float f = 1.0f + (float)k;
        uint32_t y;
        memcpy(&y, &f, sizeof(y));
        uint32_t u = (uint32_t)((y * ky) >> 32) & 0xffffu;
        if (!y_of[u])
            y_of[u] = y, got++;
    }
    size_t m = 0;
    for (uint32_t x = 1; m < n && x < 0x7f800000u; ++x) { /* positive finite floats */
        uint32_t y = y_of[(uint32_t)((x * kx) >> 32) & 0xffffu];
        if (!y)
            continue;
        memcpy(&pts[2 * m], &x, sizeof(x));
        memcpy(&pts[2 * m + 1], &y, sizeof(y));
        m++;
    }
    return m;
}

/* Points crafted to collide in a hash of known factors: each table hashes by factors of its own,
 * drawn when it is made, so they spread. The probes build (MW_PROBE_CHECK) stops at a look-up of
 * more than 256 slots; here every entry point must give the plain result. */
static void group_flood(void)
{
    enum { N = 8192 };
    static float pts[2 * N];
    static unsigned remap[N + 1];
    CHECK(flood_points(pts, N) == N, "flood: %d points made", N);
    for (int m = 0; m < fz_methodCount(); ++m) {
        if (!fits(m, 2) || m == meshweld_MethodNaive)
            continue;
        /* radius 0: every point its own output, through the table of exact keys alone */
        meshweld_Options o = {2, 0.0f, m, meshweld_StorePrecise};
        meshweld_Info info = {0, -1, 0, 0};
        int e = meshweld_weld(remap, pts, N, 8, &o, &info);
        size_t wrong = 0;
        for (size_t i = 0; i < N; ++i)
            wrong += remap[i] != i;
        CHECK(e == 0 && info.unique_count == N && wrong == 0, "flood: %s r = 0: error %d, %zu outputs, %zu misplaced",
              name(m), e, info.unique_count, wrong);
        /* a welder keeps its table of exact keys: two batches, the second the first again */
        int ce = 0;
        meshweld_Welder* w = meshweld_welderCreate(&o, &ce);
        CHECK(w != NULL, "flood: welderCreate %s: %d", name(m), ce);
        if (!w)
            continue;
        size_t wrong_again = 0;
        int e1 = meshweld_welderAdd(w, remap, pts, N, 8, &info);
        int e2 = meshweld_welderAdd(w, remap, pts, N, 8, &info);
        for (size_t i = 0; i < N; ++i)
            wrong_again += remap[i] != i;
        CHECK(e1 == 0 && e2 == 0 && meshweld_welderCount(w) == N && wrong_again == 0,
              "flood: welder %s: errors %d %d, %zu outputs, %zu misplaced", name(m), e1, e2, meshweld_welderCount(w),
              wrong_again);
        meshweld_welderDestroy(w);
    }
    /* a radius: the points, all x below 2^-100 and y whole numbers, merge by their y */
    int ran = 0;
    size_t outputs = weld_ok("flood: r = 0.5", remap, pts, N, 8, 2, 0.5f, meshweld_MethodAuto, meshweld_StorePrecise, &ran);
    CHECK(outputs > 0 && outputs <= 64, "flood: r = 0.5: %zu outputs, expected one for each y", outputs);
}

static void group_attributes(void)
{
    float pts[12] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    float normals[12] = {0, 0, 1, 0, 0, 1, 0, 1, 0, 0, NAN, 0};
    unsigned remap[5] = {7, 7, 7, 7, 7};
    meshweld_Options o = {3, 0.1f, 0, 0};
    meshweld_Info info;
    meshweld_Attribute a = {normals, 12, 3, 0.1f};
    /* a NaN attribute is compared by its bits: vertex 3 matches no other vertex */
    CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, &a, 1, &info) == meshweld_Ok && info.unique_count == 3 &&
              remap[0] == 0 && remap[1] == 0 && remap[2] == 1 && remap[3] == 2,
          "NaN attribute: %zu outputs, remap %u %u %u %u", info.unique_count, remap[0], remap[1], remap[2], remap[3]);
    normals[3] = 0, normals[4] = NAN, normals[5] = 0; /* vertex 1 now equals vertex 3 */
    pts[3] = 1, pts[4] = 1, pts[5] = 1;
    CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, &a, 1, &info) == meshweld_Ok && info.unique_count == 3 &&
              remap[0] == 0 && remap[1] == 1 && remap[2] == 2 && remap[3] == 1,
          "equal NaN attributes: %zu outputs, remap %u %u %u %u", info.unique_count, remap[0], remap[1], remap[2], remap[3]);
    pts[3] = 0, pts[4] = 0, pts[5] = 0;
    normals[3] = 0, normals[4] = 0, normals[5] = 1;
    normals[10] = 1; /* vertex 3 now equals vertex 2 */
    const float bad_tolerance[] = {-1.0f, NAN, INFINITY, -INFINITY, -FLT_MIN};
    for (size_t t = 0; t < COUNT(bad_tolerance); ++t) {
        a.tolerance = bad_tolerance[t];
        CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, &a, 1, &info) == meshweld_ErrorRadius, "tolerance %g",
              bad_tolerance[t]);
    }
    a.tolerance = 0.1f;
    /* sizes outside 1..16: meshweld_ErrorAttribute */
    const int sizes[] = {0, -1, 17, 1000};
    for (size_t s = 0; s < COUNT(sizes); ++s) {
        a.size = sizes[s];
        int e = meshweld_weldAttributes(remap, pts, 4, 12, &o, &a, 1, &info);
        CHECK(e == meshweld_ErrorAttribute, "attribute size %d gave %d", sizes[s], e);
    }
    a.size = 3;
    CHECK(meshweld_weldAttributesFirst(remap, NULL, NULL, pts, 4, 12, &o, &a, 1, &info) == meshweld_ErrorNull,
          "weldAttributesFirst: NULL first");
    CHECK(meshweld_weldAttributesFirst(NULL, NULL, NULL, NULL, 0, 12, &o, &a, 1, &info) == meshweld_Ok &&
              info.unique_count == 0,
          "weldAttributesFirst of nothing");
    CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, NULL, 1, &info) == meshweld_ErrorNull, "NULL attributes");
    meshweld_Attribute nodata = {NULL, 12, 3, 0.1f};
    CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, &nodata, 1, &info) == meshweld_ErrorNull, "NULL attribute data");
    CHECK(remap[4] == 7, "a refused attribute weld wrote past the end of remap");
    /* radius 0 and tolerance 0: equal vertices only */
    o.radius = 0.0f;
    a.tolerance = 0.0f;
    CHECK(meshweld_weldAttributes(remap, pts, 4, 12, &o, &a, 1, &info) == 0 && info.unique_count == 2 && remap[1] == 0 &&
              remap[3] == 1,
          "exact attribute weld: %zu outputs", info.unique_count);
}

/* ---- a hostile allocator: every entry point under failures, and no leak ---- */
typedef struct Hostile {
    long calls, fail_at, live;
    int fail_all;
} Hostile;

static void* hostile_allocate(void* user, size_t size)
{
    Hostile* h = (Hostile*)user;
    long call = h->calls++;
    if (h->fail_at >= 0 && (call == h->fail_at || (h->fail_all && call > h->fail_at)))
        return NULL;
    void* p = malloc(size);
    h->live += p != NULL;
    return p;
}

static void hostile_free(void* user, void* p)
{
    ((Hostile*)user)->live--;
    free(p);
}

static void group_allocator(void)
{
    Hostile h = {0, -1, 0, 0};
    CHECK(meshweld_setAllocator(hostile_allocate, hostile_free, &h) == 0, "setAllocator");
    enum { N = 600 };
    static float pts[N * 3], normals[N * 3];
    static unsigned remap[N], expect[N], tris[N];
    for (size_t i = 0; i < N; ++i)
        for (int a = 0; a < 3; ++a) {
            pts[i * 3 + a] = (float)((i * 7 + (size_t)a * 13) % 17) * 0.05f;
            normals[i * 3 + a] = (float)((i + (size_t)a) % 2);
        }
    /* every allocation failing, and then each one in turn */
    for (int all = 1; all >= 0; --all)
        for (long k = 0; k < (all ? 1 : 10); ++k) {
            h.fail_all = all;
            for (int m = 0; m < fz_methodCount(); ++m)
                for (int store = 0; store <= 1; ++store) {
                    if (!fits(m, 3))
                        continue;
                    meshweld_Options o = {3, 0.07f, m, store};
                    meshweld_Info info;
                    h.fail_at = -1;
                    meshweld_weld(expect, pts, N, 12, &o, &info);
                    h.calls = 0, h.fail_at = k;
                    int e = meshweld_weld(remap, pts, N, 12, &o, &info);
                    CHECK(e == meshweld_ErrorMemory || (e == 0 && !all && memcmp(remap, expect, sizeof(remap)) == 0),
                          "weld under failure %ld: %d", k, e);
                    h.calls = 0;
                    int ce = 0;
                    meshweld_Welder* w = meshweld_welderCreate(&o, &ce);
                    CHECK(w || ce == meshweld_ErrorMemory, "welderCreate under failure: %d", ce);
                    if (w) {
                        e = meshweld_welderAdd(w, remap, pts, N, 12, &info);
                        CHECK(e == meshweld_ErrorMemory || e == 0, "welderAdd under failure: %d", e);
                        meshweld_welderDestroy(w);
                    }
                    CHECK(h.live == 0, "%s/%d: %ld blocks leaked under failure %ld", name(m), store, h.live, k);
                }
            meshweld_Options o = {3, 0.07f, meshweld_MethodKdtree, 0};
            meshweld_Attribute a = {normals, 12, 3, 0.5f};
            meshweld_Info info;
            h.calls = 0, h.fail_at = k;
            int e = meshweld_weldAttributes(remap, pts, N, 12, &o, &a, 1, &info);
            CHECK(e == meshweld_ErrorMemory || (!all && e == 0), "weldAttributes under failure: %d", e);
            o.method = 0;
            h.calls = 0;
            e = meshweld_weldAttributes(remap, pts, N, 12, &o, &a, 1, &info);
            CHECK(e == meshweld_ErrorMemory || (!all && e == 0), "weldAttributes (grid) under failure: %d", e);
            /* vertices six times over, bit for bit (the weld of their first copies: a test build
             * takes that path from a few vertices on) */
            static float twin_pts[N * 3], twin_normals[N * 3];
            for (size_t i = 0; i < N * 3; ++i)
                twin_pts[i] = pts[(i / 3 / 6) * 3 + i % 3], twin_normals[i] = normals[(i / 3 / 6) * 3 + i % 3];
            meshweld_Attribute twin = {twin_normals, 12, 3, 0.5f};
            h.fail_at = -1;
            e = meshweld_weldAttributes(expect, twin_pts, N, 12, &o, &twin, 1, &info);
            h.calls = 0, h.fail_at = k;
            e = meshweld_weldAttributes(remap, twin_pts, N, 12, &o, &twin, 1, &info);
            CHECK(e == meshweld_ErrorMemory || (!all && e == 0 && memcmp(remap, expect, sizeof(remap)) == 0),
                  "weldAttributes of twins under failure: %d", e);
            size_t pairs;
            h.calls = 0;
            e = meshweld_countClosePairs(&pairs, pts, N, 12, 3, 0.07f, 0);
            CHECK(e == meshweld_ErrorMemory || (!all && e == 0), "countClosePairs under failure: %d", e);
            for (size_t i = 0; i < N; ++i)
                tris[i] = (unsigned)(i % 50), expect[i] = (unsigned)(i % 97);
            size_t written;
            h.calls = 0;
            e = meshweld_remapTriangles(remap, &written, NULL, NULL, tris, N, expect, 97, meshweld_RemoveDuplicates, NULL);
            CHECK(e == meshweld_ErrorMemory || (!all && e == 0), "remapTriangles under failure: %d", e);
            float dest[97 * 3];
            for (int centroid = 0; centroid <= 1; ++centroid) {
                h.calls = 0;
                e = meshweld_gather(dest, 97, expect, pts, N, 12, 3, centroid);
                CHECK(e == meshweld_ErrorMemory || (!all && e == 0), "gather under failure: %d", e);
            }
            CHECK(h.live == 0, "%ld blocks leaked under failure %ld", h.live, k);
        }
    /* a failed batch leaves an auto welder on its method: its grid until a batch beyond the grid
     * succeeds */
    const float near[6] = {0, 0, 0, 0.5f, 0, 0}, far[6] = {1e30f, 0, 0, 2e30f, 0, 0};
    for (int store = 0; store <= 1; ++store) {
        meshweld_Options o = {3, 1e-3f, meshweld_MethodAuto, store};
        int failed_with_memory = 0;
        for (long k = 0; k < 64; ++k) { /* each allocation of the batch in turn, on a fresh welder */
            h.fail_at = -1;
            meshweld_Welder* w = meshweld_welderCreate(&o, NULL);
            CHECK(meshweld_welderAdd(w, remap, near, 2, 12, NULL) == 0, "first batch");
            const int before = meshweld_welderMethod(w);
            h.calls = 0, h.fail_at = k, h.fail_all = 0;
            int e = meshweld_welderAdd(w, remap + 2, far, 2, 12, NULL);
            long calls = h.calls;
            h.fail_at = -1;
            if (e != 0) {
                failed_with_memory = 1;
                CHECK(e == meshweld_ErrorMemory && meshweld_welderCount(w) == 2 && meshweld_welderMethod(w) == before,
                      "store %d: a batch failed (allocation %ld: %s) and left the auto welder on %s (was %s), count %zu",
                      store, k, meshweld_errorString(e), name(meshweld_welderMethod(w)), name(before),
                      meshweld_welderCount(w));
            }
            meshweld_welderDestroy(w);
            if (calls <= k)
                break; /* no allocation left to fail */
        }
        CHECK(failed_with_memory, "no allocation failure reached the batch");
    }
    CHECK(h.live == 0, "%ld blocks leaked", h.live);
    meshweld_setAllocator(NULL, NULL, NULL);
}

typedef struct Group {
    const char* name;
    void (*run)(void);
} Group;

static const Group groups[] = {
    {"empty", group_empty},         {"one", group_one},
    {"identical", group_identical}, {"nonfinite", group_nonfinite},
    {"signed-zero", group_signed_zero}, {"denormal", group_denormal},
    {"huge", group_huge},           {"tiny-radius", group_tiny_radius},
    {"big-radius", group_big_radius}, {"distance", group_distance},
    {"stride", group_stride},       {"count", group_count},
    {"indices", group_indices},     {"welder", group_welder},
    {"gather", group_gather},       {"attributes", group_attributes},
    {"allocator", group_allocator}, {"flood", group_flood},
};

int main(int argc, char** argv)
{
    int ran = 0;
    for (size_t g = 0; g < COUNT(groups); ++g) {
        if (argc > 1 && strcmp(argv[1], groups[g].name) != 0)
            continue;
        int before = failures, checks_before = checks;
        groups[g].run();
        printf("%-12s %d checks, %d failed\n", groups[g].name, checks - checks_before, failures - before);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "unknown group %s\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
