/* libFuzzer target: GRID's spatial engine against the naive loop, through meshweld_trace.
 *
 * Bytes: as fuzz_weld's (its seeds serve here; method, store and the allocation plan are read and
 * ignored). A trace that succeeds must give exactly the naive remap, name every distinct position
 * once in first-appearance order, sort them into the cells it reports, and report exactly the
 * pairs of distinct positions within r (brute force; those outside the cells it found crowded),
 * each once; one that fails must fail as the naive weld does. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_init();
    fz_heapDisarm(); /* no allocation fails here */
    Fz f = {data, size, 0};
    (void)fz_u8(&f), (void)fz_u8(&f); /* method, store */
    int dim = fz_dim(fz_u8(&f));
    float r = fz_radius(&f);
    uint8_t layout = fz_u8(&f), flags = fz_u8(&f);
    (void)fz_u8(&f); /* allocation plan */
    if ((dim != 2 && dim != 3) || !(r > 0.0f) || !isfinite(r))
        return 0;
    size_t stride_floats = (size_t)dim + (layout & 3), stride = stride_floats * sizeof(float);
    FzGen g = {dim, r, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, stride_floats, 0};
    g.pts = (float*)malloc(FZ_MAX_POINTS * stride_floats * sizeof(float));
    size_t n = fz_points(&f, &g, FZ_MAX_POINTS);

    unsigned* remap = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    unsigned* naive = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    unsigned* distinct = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    unsigned* order = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    int* keys = (int*)malloc((3 * n + 1) * sizeof(int));
    unsigned* start = (unsigned*)malloc((n + 2) * sizeof(unsigned));
    size_t capacity = 4 * n + 65536;
    unsigned* pairs = (unsigned*)malloc(2 * capacity * sizeof(unsigned));
    meshweld_Trace t = {5, distinct, order, keys, start, pairs, capacity, 0, 0, 0, 0, 0.0, 0};
    meshweld_Options o = {dim, r, meshweld_MethodGrid, 0}, on = {dim, r, meshweld_MethodNaive, 1};
    meshweld_Info info = {0, 0, SIZE_MAX, -1}, ninfo = {0, 0, SIZE_MAX, -1};
    long live = fz_heap.live;
    int e = meshweld_trace(remap, g.pts, n, stride, &o, &t, &info);
    FZ_ASSERT(fz_heap.live == live, "trace leaked");
    int en = meshweld_weld(naive, g.pts, n, stride, &on, &ninfo);
    FZ_ASSERT(e == en, "trace gave %d, the naive weld %d", e, en);
    if (e != meshweld_Ok) {
        FZ_ASSERT(e != meshweld_ErrorNonFinite || info.error_point == ninfo.error_point,
                  "non-finite point %zu, the naive weld says %zu", info.error_point, ninfo.error_point);
        fz_note("trace: refused");
        goto done;
    }
    FZ_ASSERT(memcmp(remap, naive, n * sizeof(unsigned)) == 0, "trace's remap differs from the naive one");
    /* distinct: the first appearance of every position (-0 equal to +0); or every point, when the
     * pass's probe found few repeats and left its table of exact positions (node i is point i) */
    size_t nodes = 0;
    int every = t.nodes == n;
    for (size_t i = 0; every && i < n; ++i)
        every = distinct[i] == i;
    for (size_t i = 0; !every && i < n; ++i) {
        const float* p = fz_at(g.pts, stride, i);
        size_t k = 0;
        while (k < nodes && !(fz_d2(p, fz_at(g.pts, stride, distinct[k]), dim) == 0.0))
            ++k;
        if (k == nodes) {
            FZ_ASSERT(nodes < t.nodes && distinct[nodes] == i, "distinct position %zu is point %u, not %zu", nodes,
                      nodes < t.nodes ? distinct[nodes] : 0u, i);
            nodes++;
        }
    }
    FZ_ASSERT(every || nodes == t.nodes, "%zu distinct positions, the trace says %zu", nodes, t.nodes);
    if (every)
        nodes = n;
    if (!t.engine) {
        fz_note("trace: sequential fallback");
        goto done;
    }
    fz_note(n >= 100 ? "trace: engine, 100+ points" : "trace: engine, < 100 points");
    /* the cells: each point inside the cell it is listed in, every distinct point once */
    FZ_ASSERT(start[0] == 0 && start[t.cells] == nodes, "cells cover %u..%u of %zu", start[0], start[t.cells], nodes);
    size_t listed = 0;
    for (size_t c = 0; c < t.cells; ++c) {
        FZ_ASSERT(start[c] < start[c + 1], "cell %zu is empty", c);
        for (unsigned k = start[c]; k < start[c + 1]; ++k, ++listed) {
            const float* p = fz_at(g.pts, stride, order[k]);
            for (int a = 0; a < dim; ++a) { /* (keys are the low 32 bits of cells 2^31 or more from 0) */
                double s = (double)p[a] / t.cell_size, f = floor(s), slack = 1e-9 + fabs(s) * 0x1p-50;
                int near_wall = s - f <= slack || f + 1 - s <= slack;
                FZ_ASSERT(fz_low(f) == keys[3 * c + a] || (near_wall && (fz_low(f - 1) == keys[3 * c + a] || fz_low(f + 1) == keys[3 * c + a])),
                          "point %u lies outside its cell %zu", order[k], c);
            }
        }
    }
    /* crowded cells (more than 48 nodes in 3D, 16 in 2D), when the engine took them out of its
     * search: they hold t.crowded nodes, and their nodes have no pairs */
    unsigned char* out = (unsigned char*)calloc(n + 1, 1);
    if (t.crowded > 0) {
        size_t crowded = 0, most = dim == 3 ? 48 : 16;
        for (size_t c = 0; c < t.cells; ++c)
            if (start[c + 1] - start[c] > most)
                for (unsigned k = start[c]; k < start[c + 1]; ++k, ++crowded)
                    out[order[k]] = 1;
        FZ_ASSERT(crowded == t.crowded, "%zu nodes in crowded cells, the trace says %zu", crowded, t.crowded);
        fz_note("trace: engine with crowded cells");
    }
    /* the pairs: exactly the distinct pairs within r (of nodes outside crowded cells), earlier
     * first, each once */
    size_t expected = 0;
    for (size_t a = 0; a < nodes; ++a)
        for (size_t b = a + 1; b < nodes; ++b)
            expected += !out[distinct[a]] && !out[distinct[b]] &&
                        fz_within(fz_at(g.pts, stride, distinct[a]), fz_at(g.pts, stride, distinct[b]), dim, r);
    free(out);
    FZ_ASSERT(t.pair_count == expected, "%zu pairs within r, brute force %zu", t.pair_count, expected);
    for (size_t k = 0; k < t.pair_count && k < capacity; ++k) {
        unsigned a = pairs[2 * k], b = pairs[2 * k + 1];
        FZ_ASSERT(a < b && fz_within(fz_at(g.pts, stride, a), fz_at(g.pts, stride, b), dim, r),
                  "pair %zu (%u, %u) is not an ordered pair within r", k, a, b);
        for (size_t j = 0; j < k && k < 4096; ++j)
            FZ_ASSERT(pairs[2 * j] != a || pairs[2 * j + 1] != b, "pair (%u, %u) found twice", a, b);
    }
done:
    free(remap), free(naive), free(distinct), free(order), free(keys), free(start), free(pairs);
    free(g.pts);
    return 0;
}
