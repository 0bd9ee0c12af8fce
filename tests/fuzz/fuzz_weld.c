/* libFuzzer target: meshweld_weld, meshweld_weldKept and meshweld_weldFirst, one shot, every method and store
 * policy in 2D and 3D.
 *
 * Bytes: method, store, dim, radius (1 or 5 bytes), layout, flags, allocation plan, then points
 * (see fz_points). A successful weld must keep every guarantee and equal its reference (the
 * brute-force precise greedy, or the loose store rebuilt from meshweld_cells), weldKept's
 * positions the gathered ones and weldFirst's first inputs what firstOfEach gives; a failed one must fail with the specific error its input
 * deserves, pointing at the bad value, writing nothing beyond count elements; nothing may leak,
 * whichever allocation fails. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_init();
    Fz f = {data, size, 0};
    int method = fz_method(fz_u8(&f));
    int store = fz_store(fz_u8(&f));
    int dim = fz_dim(fz_u8(&f));
    float r = fz_radius(&f);
    uint8_t layout = fz_u8(&f), flags = fz_u8(&f), plan = fz_u8(&f);

    int d = dim == 2 ? 2 : 3; /* the points' own dimension (an invalid dim is refused first) */
    size_t stride_floats = (size_t)d + (layout & 3);
    size_t stride = stride_floats * sizeof(float);
    int bad_stride = ((layout >> 2) & 7) == 7;
    if (bad_stride) { /* smaller than dim floats, or not a multiple of 4 bytes */
        const size_t strides[] = {0, 1, 2, 4, 13, 14, 15, (size_t)(d - 1) * sizeof(float)};
        stride = strides[layout >> 5];
    }
    int mode = flags >> 5; /* 6: a count whose sizes overflow; 7: a NULL buffer */

    FzGen g = {d, r > 0.0f && isfinite(r) ? r : 0.25f, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, stride_floats, 0};
    g.pts = (float*)malloc(FZ_MAX_POINTS * stride_floats * sizeof(float));
    size_t n = fz_points(&f, &g, FZ_MAX_POINTS);

    unsigned* remap = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    memset(remap, 0xa5, (n + 1) * sizeof(unsigned));
    size_t count = n;
    const float* points = g.pts;
    unsigned* out = remap;
    if (mode == 6 && n > 0) {
        const size_t overflowing[] = {stride > 1 ? SIZE_MAX / stride + 1 : SIZE_MAX, SIZE_MAX, ((size_t)1 << 32) + 1,
                                      (size_t)1 << 40};
        count = overflowing[(flags >> 3) & 3];
    }
    if (mode == 7)
        (flags >> 4) & 1 ? (void)(points = NULL) : (void)(out = NULL);

    /* weldKept (flags bit 3 with bit 4, or a plan byte of 64..127) writes the kept positions too;
     * weldFirst (a plan byte of 128..191, or the flags of weldKept with layout bit 7) the first
     * inputs, and with layout bit 2 the kept positions */
    int with_first = (plan & 0xc0) == 0x80 || (((flags >> 3) & 3) == 2 && (layout & 0x80));
    int with_kept = (plan & 0xc0) == 0x40 || ((flags >> 3) & 3) == 2 || (with_first && (layout & 4));
    float* kept = (float*)malloc((n * (size_t)d + 1) * sizeof(float));
    kept[n * (size_t)d] = 12345.0f;
    unsigned* first = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    first[n] = 0x5a5a5a5au;
    const char* what = with_first ? "weldFirst" : with_kept ? "weldKept" : "weld";
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0, -99, SIZE_MAX, -1};
    long live = fz_heap.live;
    fz_heapArm(plan);
    int e = with_first ? meshweld_weldFirst(out, first, with_kept ? kept : NULL, points, count, stride, &o, &info)
            : with_kept ? meshweld_weldKept(out, kept, points, count, stride, &o, &info)
                        : meshweld_weld(out, points, count, stride, &o, &info);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    FZ_ASSERT(fz_heap.live == live, "weld leaked %ld blocks (error %d)", fz_heap.live - live, e);

    /* what this input deserves */
    unsigned structural = fz_optionErrors(dim, r, method, store, 1, 1);
    if (!structural && count > 0) {
        if (!out || !points)
            structural |= 1u << -meshweld_ErrorNull;
        else if (bad_stride)
            structural |= 1u << -meshweld_ErrorStride;
        else if (count != n)
            structural |= 1u << -meshweld_ErrorCount;
    }
    int explicit_grid = fz_mayRefuseRange(method) && r > 0.0f;
    int range_method = fz_hasCells(method) ? method : meshweld_MethodGrid2R; /* whose range a refusal needs */
    fz_note(e == meshweld_Ok ? (n >= 100 ? "ok, 100+ points" : n >= 10 ? "ok, 10-99 points" : "ok, < 10 points")
                             : meshweld_errorString(e));
    if (structural) {
        FZ_ASSERT(fz_in(structural, e) || (e == meshweld_ErrorMemory && failed > 0),
                  "weld gave %d (%s), expected one of the errors 0x%x", e, meshweld_errorString(e), structural);
    } else if (e == meshweld_Ok) {
        for (size_t i = 0; i < n; ++i) {
            const float* p = fz_at(g.pts, stride, i);
            if (!fz_finite(p, d) && method == meshweld_MethodAuto && fz_skip("late-nan")) {
                fz_note("known: auto welded a non-finite point");
                goto done;
            }
            FZ_ASSERT(fz_finite(p, d), "%s weld of point %zu with a non-finite coordinate succeeded",
                      meshweld_methodName(method), i);
            FZ_ASSERT(!explicit_grid || !fz_hasCells(method) || !fz_outOfGrid(p, d, r, method),
                      "%s weld of point %zu beyond the grid's range succeeded", meshweld_methodName(method), i);
        }
        FZ_ASSERT(info.unique_count <= n, "unique_count %zu of %zu points", info.unique_count, n);
        fz_checkWeld(what, g.pts, n, stride, d, r, method, store, remap, info.unique_count,
                     info.method);
        if (with_kept) {
            float* gathered = (float*)malloc((info.unique_count * (size_t)d + 1) * sizeof(float));
            FZ_ASSERT(meshweld_gather(gathered, info.unique_count, remap, g.pts, n, stride, d, 0) == meshweld_Ok, "gather");
            FZ_ASSERT(memcmp(gathered, kept, info.unique_count * (size_t)d * sizeof(float)) == 0,
                      "%s's positions differ from the gathered first inputs", what);
            free(gathered);
            fz_note(what);
        }
        if (with_first) {
            unsigned* expected = (unsigned*)malloc((info.unique_count + 1) * sizeof(unsigned));
            FZ_ASSERT(meshweld_firstOfEach(expected, info.unique_count, remap, n) == meshweld_Ok, "firstOfEach");
            FZ_ASSERT(memcmp(expected, first, info.unique_count * sizeof(unsigned)) == 0,
                      "weldFirst's first inputs differ from firstOfEach's");
            free(expected);
            fz_note(with_kept ? "weldFirst with kept" : "weldFirst");
        }
        if (failed > 0) {
            /* an allocation failed and the weld still succeeded: it must not have changed the result */
            unsigned* again = (unsigned*)malloc((n + 1) * sizeof(unsigned));
            meshweld_Info info2;
            FZ_ASSERT(meshweld_weld(again, g.pts, n, stride, &o, &info2) == meshweld_Ok, "second weld failed");
            FZ_ASSERT(memcmp(again, remap, n * sizeof(unsigned)) == 0, "result changed under allocation failure");
            free(again);
        }
    } else if (e == meshweld_ErrorNonFinite) {
        FZ_ASSERT(info.error_point < n && info.error_axis >= 0 && info.error_axis < d,
                  "non-finite error at point %zu axis %d of %zu points", info.error_point, info.error_axis, n);
        float v = fz_at(g.pts, stride, info.error_point)[info.error_axis];
        FZ_ASSERT(!isfinite(v), "non-finite error names point %zu axis %d = %g", info.error_point, info.error_axis, v);
    } else if (e == meshweld_ErrorRange) {
        FZ_ASSERT(explicit_grid, "range error from %s with r = %g", meshweld_methodName(method), r);
        FZ_ASSERT(info.error_point < n && info.error_axis >= 0 && info.error_axis < d,
                  "range error at point %zu axis %d of %zu points", info.error_point, info.error_axis, n);
        const float* p = fz_at(g.pts, stride, info.error_point);
        FZ_ASSERT(isfinite(p[info.error_axis]) && fz_axisOutOfGrid(p, info.error_axis, d, r, range_method),
                  "range error names point %zu axis %d = %g, within the grid's range", info.error_point,
                  info.error_axis, p[info.error_axis]);
    } else {
        FZ_ASSERT(e == meshweld_ErrorMemory && failed > 0, "weld of valid input gave %d (%s)", e, meshweld_errorString(e));
    }
done:
    /* on error remap's contents are unspecified, but nothing is written beyond count elements */
    FZ_ASSERT(remap[n] == 0xa5a5a5a5u, "weld (%d) wrote remap past its end", e);
    FZ_ASSERT(kept[n * (size_t)d] == 12345.0f, "%s (%d) wrote kept past count * dim floats", what, e);
    FZ_ASSERT(first[n] == 0x5a5a5a5au, "weldFirst (%d) wrote first past count elements", e);

    free(first);
    free(kept);
    free(remap);
    free(g.pts);
    return 0;
}
