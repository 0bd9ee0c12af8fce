/* libFuzzer target: the incremental welder fed several batches, some of them bad.
 *
 * Bytes: method, store, dim, radius, layout, flags, the allocation plan of welderCreate, the
 * number of batches, then per batch its size (2 bytes) and an action (plain; with a NaN or an
 * infinity planted; with an allocation failing; with a bad stride; after an empty batch), then the
 * points. A failed batch must leave the welder exactly as it was (count, method, positions); the
 * remaps of the batches that succeeded, concatenated, must equal meshweld_weld's remap on their
 * concatenated points, and the welder's positions must equal the gathered ones. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

typedef struct Snapshot {
    size_t count;
    int method;
    float* positions;
} Snapshot;

static void snapshot(Snapshot* s, const meshweld_Welder* w, int dim)
{
    s->count = meshweld_welderCount(w);
    s->method = meshweld_welderMethod(w);
    s->positions = (float*)malloc((s->count ? s->count : 1) * (size_t)dim * sizeof(float));
    meshweld_welderPositions(w, s->positions);
}

static void unchanged(const Snapshot* s, const meshweld_Welder* w, int dim, int error)
{
    FZ_ASSERT(meshweld_welderCount(w) == s->count, "batch failed with %d and changed the count from %zu to %zu", error,
              s->count, meshweld_welderCount(w));
    if (!fz_skip("failed-switch"))
        FZ_ASSERT(meshweld_welderMethod(w) == s->method,
                  "batch failed with %d (%s) and changed the method from %s to %s", error, meshweld_errorString(error),
                  meshweld_methodName(s->method), meshweld_methodName(meshweld_welderMethod(w)));
    float* now = (float*)malloc((s->count ? s->count : 1) * (size_t)dim * sizeof(float));
    meshweld_welderPositions(w, now);
    FZ_ASSERT(memcmp(now, s->positions, s->count * (size_t)dim * sizeof(float)) == 0,
              "batch failed with %d and changed the positions", error);
    free(now);
    free(s->positions);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_init();
    Fz f = {data, size, 0};
    int method = fz_method(fz_u8(&f));
    int store = fz_store(fz_u8(&f));
    int dim = fz_dim(fz_u8(&f));
    float r = fz_radius(&f);
    uint8_t layout = fz_u8(&f), flags = fz_u8(&f), plan = fz_u8(&f);
    int batches = 1 + fz_u8(&f) % 8;
    uint16_t sizes[8];
    uint8_t actions[8], extra[8];
    for (int b = 0; b < batches; ++b) {
        sizes[b] = fz_u16(&f);
        actions[b] = fz_u8(&f);
        extra[b] = fz_u8(&f);
    }

    long live = fz_heap.live;
    meshweld_Options o = {dim, r, method, store};
    int error = 1;
    fz_heapArm(plan);
    meshweld_Welder* w = meshweld_welderCreate(&o, &error);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    unsigned options = fz_optionErrors(dim, r, method, store, 1, 1);
    if (!w) {
        FZ_ASSERT(fz_in(options, error) || (error == meshweld_ErrorMemory && failed > 0),
                  "welderCreate failed with %d (%s), expected one of 0x%x", error, meshweld_errorString(error), options);
        FZ_ASSERT(fz_heap.live == live, "failed welderCreate leaked");
        fz_note("create failed");
        return 0;
    }
    FZ_ASSERT(error == meshweld_Ok && options == 0, "welderCreate succeeded with error %d, options 0x%x", error, options);
    int d = dim == 2 ? 2 : 3;
    int asked = method;

    size_t stride_floats = (size_t)d + (layout & 3), stride = stride_floats * sizeof(float);
    FzGen g = {d, r > 0.0f ? r : 0.25f, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, stride_floats, 0};
    g.pts = (float*)malloc(FZ_MAX_POINTS * stride_floats * sizeof(float));
    size_t n = fz_points(&f, &g, FZ_MAX_POINTS);

    /* the batches that succeed, concatenated (packed at the same stride) */
    float* all = (float*)malloc((n ? n : 1) * stride);
    unsigned* remaps = (unsigned*)malloc((n ? n : 1) * sizeof(unsigned));
    float* poisoned = (float*)malloc((n ? n : 1) * stride);
    size_t at = 0, done = 0;
    int switched_late = 0;   /* AUTO went over to KDTREE after points had been welded on a loose grid */
    int grid_method = 0;     /* that grid */
    size_t grid_prefix = 0;  /* points welded before that */
    for (int b = 0; b < batches && at <= n; ++b) {
        size_t left = n - at;
        size_t take = b == batches - 1 ? left : (left ? sizes[b] % (left + 1) : 0);
        const float* batch = fz_at(g.pts, stride, at);
        unsigned* remap = remaps + done;
        meshweld_Info info = {0, -99, SIZE_MAX, -1};
        Snapshot s;
        uint8_t action = actions[b];

        if (action >= 160 && action < 192 && take > 0) { /* a non-finite value planted */
            memcpy(poisoned, batch, take * stride);
            size_t i = extra[b] % take;
            int axis = (extra[b] >> 4) % d;
            const float bad[] = {NAN, INFINITY, -INFINITY, -NAN};
            ((float*)((char*)poisoned + i * stride))[axis] = bad[(extra[b] >> 6) & 3];
            snapshot(&s, w, d);
            int e = meshweld_welderAdd(w, remap, poisoned, take, stride, &info);
            if (e == meshweld_Ok && asked == meshweld_MethodAuto && fz_skip("late-nan")) {
                free(s.positions);
                fz_note("known: auto welded a planted NaN");
                goto out; /* the welder has changed: the rest would only repeat it */
            }
            FZ_ASSERT(e == meshweld_ErrorNonFinite || e == meshweld_ErrorRange, "planted NaN: batch gave %d", e);
            if (e == meshweld_ErrorNonFinite) {
                FZ_ASSERT(info.error_point < take && info.error_axis >= 0 && info.error_axis < d,
                          "planted NaN at %zu/%d reported at %zu/%d", i, axis, info.error_point, info.error_axis);
                FZ_ASSERT(!isfinite(fz_at(poisoned, stride, info.error_point)[info.error_axis]),
                          "non-finite error names a finite value");
            }
            unchanged(&s, w, d, e);
            fz_note("planted NaN refused");
        }
        int before = meshweld_welderMethod(w);
        size_t count_before = meshweld_welderCount(w);
        snapshot(&s, w, d);
        int e = meshweld_Ok, injected = action >= 192 && action < 224 && take > 0;
        if (injected) { /* an allocation fails */
            fz_heapArm((uint8_t)(192 | (extra[b] & 63)));
            e = meshweld_welderAdd(w, remap, batch, take, stride, &info);
            failed = fz_heap.failed;
            fz_heapDisarm();
            if (e == meshweld_ErrorMemory) {
                FZ_ASSERT(failed > 0, "out of memory with no failed allocation");
                unchanged(&s, w, d, e);
                fz_note("batch out of memory, welder unchanged");
                snapshot(&s, w, d);
                injected = 0; /* now the batch itself */
            }
        } else if (action >= 224 && action < 240 && take > 0) { /* a bad stride first */
            const size_t bad[] = {0, 1, 2, 3, 5, (size_t)(d - 1) * sizeof(float), stride + 1, stride + 2};
            e = meshweld_welderAdd(w, remap, batch, take, bad[extra[b] & 7], &info);
            FZ_ASSERT(e == meshweld_ErrorStride, "stride %zu gave %d", bad[extra[b] & 7], e);
            unchanged(&s, w, d, e);
            snapshot(&s, w, d);
        } else if (action >= 240) { /* an empty batch first, with NULL buffers */
            e = meshweld_welderAdd(w, NULL, NULL, 0, extra[b], &info);
            FZ_ASSERT(e == meshweld_Ok && info.unique_count == s.count, "empty batch gave %d, %zu outputs", e,
                      info.unique_count);
            unchanged(&s, w, d, e);
            snapshot(&s, w, d);
        }

        /* the batch itself */
        if (getenv("MESHWELD_FUZZ_VERBOSE")) {
            fprintf(stderr, "batch %d (action %u): %zu points, welder %s with %zu outputs\n", b, action, take,
                    meshweld_methodName(meshweld_welderMethod(w)), meshweld_welderCount(w));
            for (size_t i = 0; i < take; ++i) {
                const float* p = fz_at(batch, stride, i);
                fprintf(stderr, "  %a %a %a\n", p[0], p[1], d == 3 ? p[2] : 0.0f);
            }
        }
        if (!injected)
            e = meshweld_welderAdd(w, remap, batch, take, stride, &info);
        if (e != meshweld_Ok) {
            int has_bad = 0;
            for (size_t i = 0; i < take && !has_bad; ++i)
                has_bad = !fz_finite(fz_at(batch, stride, i), d) ||
                          (fz_mayRefuseRange(before) && asked != meshweld_MethodAuto && r > 0.0f &&
                           fz_nearOutOfGrid(fz_at(batch, stride, i), d, r, fz_hasCells(before) ? before : meshweld_MethodGrid2R));
            FZ_ASSERT(has_bad && (e == meshweld_ErrorNonFinite || e == meshweld_ErrorRange),
                      "batch %d of %zu points gave %d (%s)", b, take, e, meshweld_errorString(e));
            unchanged(&s, w, d, e);
            fz_note("batch refused");
        } else {
            free(s.positions);
            for (size_t i = 0; i < take; ++i)
                if (!fz_finite(fz_at(batch, stride, i), d)) {
                    if (asked == meshweld_MethodAuto && fz_skip("late-nan")) {
                        fz_note("known: auto welded a non-finite point");
                        goto out;
                    }
                    FZ_ASSERT(0, "a batch with a non-finite point %zu was welded (remap %u of %zu outputs)", i, remap[i],
                              info.unique_count);
                }
            FZ_ASSERT(info.unique_count == meshweld_welderCount(w) && info.method == meshweld_welderMethod(w),
                      "info says %zu outputs by %d, the welder %zu by %d", info.unique_count, info.method,
                      meshweld_welderCount(w), meshweld_welderMethod(w));
            for (size_t i = 0; i < take; ++i)
                FZ_ASSERT(remap[i] < info.unique_count, "batch remap[%zu] = %u of %zu outputs", i, remap[i],
                          info.unique_count);
            FZ_ASSERT(info.unique_count >= count_before, "the welder lost outputs");
            if (asked == meshweld_MethodAuto && before != info.method) {
                FZ_ASSERT(before != meshweld_MethodKdtree && info.method == meshweld_MethodKdtree,
                          "auto went from %s to %s", meshweld_methodName(before), meshweld_methodName(info.method));
                /* a loose grid's answers so far stay: the one exception to concatenation = one shot */
                if (done > 0 && meshweld_bound(before, store, d, r) > (double)r && !switched_late) {
                    switched_late = 1;
                    grid_prefix = done;
                    grid_method = before;
                }
            }
            memcpy((char*)all + done * stride, batch, take * stride);
            done += take;
            fz_note(injected ? "batch welded despite a failed allocation" : take > 0 ? "batch welded" : "empty batch welded");
        }
        at += take;
    }

    /* the concatenation against one shot */
    unsigned* one = (unsigned*)malloc((done ? done : 1) * sizeof(unsigned));
    meshweld_Info info;
    int e = meshweld_weld(one, all, done, stride, &o, &info);
    FZ_ASSERT(e == meshweld_Ok, "one-shot weld of the batches that succeeded gave %d", e);
    if (getenv("MESHWELD_FUZZ_VERBOSE")) {
        fprintf(stderr, "dim %d r %a method %s store %d: welder / one-shot (%s)\n", d, r, meshweld_methodName(asked), store,
                meshweld_methodName(info.method));
        for (size_t i = 0; i < done; ++i)
            fprintf(stderr, "  %zu: %u %u\n", i, remaps[i], one[i]);
    }
    if (!switched_late) {
        for (size_t i = 0; i < done; ++i)
            FZ_ASSERT(remaps[i] == one[i], "%s/%d r %.9g: welder remap[%zu] = %u, one-shot %u", meshweld_methodName(info.method),
                      store, r, i, remaps[i], one[i]);
        FZ_ASSERT(meshweld_welderCount(w) == info.unique_count, "welder %zu outputs, one-shot %zu",
                  meshweld_welderCount(w), info.unique_count);
        fz_checkWeld("welder", all, done, stride, d, r, asked, store, remaps, info.unique_count, info.method);
        fz_note(done > 0 ? "concatenation = one shot" : "nothing welded");
    } else {
        /* AUTO switched to KDTREE after the grid had welded grid_prefix points: those keep their
         * grid answers (meshweld_welderCreate says so), so the concatenation is the grid weld of
         * the prefix, followed by the kd-tree; every guarantee but the bound still holds. */
        meshweld_Info pre;
        FZ_ASSERT(meshweld_weld(one, all, grid_prefix, stride, &o, &pre) == meshweld_Ok &&
                      pre.method == grid_method,
                  "prefix weld");
        for (size_t i = 0; i < grid_prefix; ++i)
            FZ_ASSERT(remaps[i] == one[i], "welder remap[%zu] = %u, grid prefix %u", i, remaps[i], one[i]);
        unsigned next = 0;
        for (size_t i = 0; i < done; ++i) {
            FZ_ASSERT(remaps[i] <= next, "remap not dense at %zu", i);
            next += remaps[i] == next;
        }
        size_t u = meshweld_welderCount(w);
        float* out = (float*)malloc((u ? u : 1) * (size_t)d * sizeof(float));
        meshweld_welderPositions(w, out);
        size_t pairs = 1;
        FZ_ASSERT(meshweld_countClosePairs(&pairs, out, u, (size_t)d * sizeof(float), d, r, 0) == meshweld_Ok &&
                      pairs == 0,
                  "%zu outputs within r after the switch", pairs);
        free(out);
        fz_note("auto switched after the first batch");
    }

    /* the welder's positions are the gathered first inputs */
    size_t u = meshweld_welderCount(w);
    float* mine = (float*)malloc((u ? u : 1) * (size_t)d * sizeof(float));
    float* gathered = (float*)malloc((u ? u : 1) * (size_t)d * sizeof(float));
    meshweld_welderPositions(w, mine);
    FZ_ASSERT(meshweld_gather(gathered, u, remaps, all, done, stride, d, 0) == meshweld_Ok, "gather");
    FZ_ASSERT(memcmp(mine, gathered, u * (size_t)d * sizeof(float)) == 0, "welder positions differ from gather");
    free(mine);
    free(gathered);

    free(one);
out:
    meshweld_welderDestroy(w);
    FZ_ASSERT(fz_heap.live == live, "welder leaked %ld blocks", fz_heap.live - live);
    free(poisoned);
    free(remaps);
    free(all);
    free(g.pts);
    return 0;
}
