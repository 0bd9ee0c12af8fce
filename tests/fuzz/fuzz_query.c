/* libFuzzer target: the functions around the weld. The first byte picks
 *   0: meshweld_countClosePairs against a brute-force count (limit included);
 *   1: meshweld_cells: the cell counts, distinct keys, the store cell holding the point, and
 *      completeness: for two points within r, the store cell of one is among the cells the
 *      other searches (what guarantee 1 rests on);
 *   2: meshweld_gather with an arbitrary remap and output count (huge ones included) against the
 *      first point or the mean of each cluster;
 *   3: meshweld_bound, meshweld_lookups, the names and error strings, for any argument. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void fuzz_pairs(Fz* f)
{
    int dim = fz_dim(fz_u8(f));
    float r = fz_radius(f);
    uint8_t layout = fz_u8(f), flags = fz_u8(f), plan = fz_u8(f), lim = fz_u8(f);
    size_t limit = lim < 128 ? 0 : lim < 250 ? (size_t)(lim & 31) : SIZE_MAX;
    int d = dim == 2 ? 2 : 3;
    size_t stride_floats = (size_t)d + (layout & 3), stride = stride_floats * sizeof(float);
    int bad_stride = ((layout >> 2) & 15) == 15, null_points = ((layout >> 2) & 15) == 14;
    int null_pairs = (layout >> 6) == 3 && (flags & 0x40);
    FzGen g = {d, r > 0.0f && isfinite(r) ? r : 0.25f, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, stride_floats, 0};
    g.pts = (float*)malloc(1000 * stride_floats * sizeof(float));
    size_t n = fz_points(f, &g, 1000);

    size_t pairs = 12345;
    long live = fz_heap.live;
    fz_heapArm(plan);
    int e = meshweld_countClosePairs(null_pairs ? NULL : &pairs, null_points ? NULL : g.pts, n,
                                     bad_stride ? stride + 1 : stride, dim, r, limit);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    FZ_ASSERT(fz_heap.live == live, "countClosePairs leaked");

    unsigned errors = 0;
    if (null_pairs)
        errors |= 1u << -meshweld_ErrorNull;
    if (dim != 2 && dim != 3)
        errors |= 1u << -meshweld_ErrorDim;
    if (!(r >= 0.0f) || !isfinite(r))
        errors |= 1u << -meshweld_ErrorRadius;
    if (!errors && n > 0) {
        if (null_points)
            errors |= 1u << -meshweld_ErrorNull;
        else if (bad_stride)
            errors |= 1u << -meshweld_ErrorStride;
    }
    int nonfinite = 0;
    for (size_t i = 0; i < n; ++i)
        nonfinite |= !fz_finite(fz_at(g.pts, stride, i), d);
    if (errors) {
        FZ_ASSERT(fz_in(errors, e), "countClosePairs gave %d (%s), expected one of 0x%x", e, meshweld_errorString(e), errors);
        fz_note("pairs: refused");
    } else if (nonfinite) {
        FZ_ASSERT(e == meshweld_ErrorNonFinite || (e == meshweld_ErrorMemory && failed > 0),
                  "countClosePairs of a non-finite point gave %d", e);
        fz_note("pairs: non-finite");
    } else if (e == meshweld_ErrorMemory) {
        FZ_ASSERT(failed > 0, "out of memory with no failed allocation");
    } else {
        FZ_ASSERT(e == meshweld_Ok, "countClosePairs gave %d (%s)", e, meshweld_errorString(e));
        size_t expect = 0, cap = limit ? limit : SIZE_MAX;
        for (size_t i = 0; i < n && expect < cap; ++i)
            for (size_t j = i + 1; j < n && expect < cap; ++j)
                expect += fz_within(fz_at(g.pts, stride, i), fz_at(g.pts, stride, j), d, r);
        FZ_ASSERT(pairs == expect, "countClosePairs found %zu pairs, brute force %zu (limit %zu)", pairs, expect, limit);
        fz_note(expect ? "pairs: some found" : "pairs: none");
    }
    free(g.pts);
}

/* The hexagons' lattice: point (i, j) at (i + j / 2, j HEX_ROW) in cell units. */
#define HEX_ROW 0.8660254037844386 /* sqrt(3) / 2 */

/* The centre of a cell in cell units of its method (see meshweld_cells in meshweld.h). */
static void centre(int method, const int* key, double c[3])
{
    switch (method) {
    case meshweld_MethodGridR: /* cube [i, i + 1) */
        for (int a = 0; a < 3; ++a)
            c[a] = key[a] + 0.5;
        break;
    case meshweld_MethodHex:
        c[0] = key[0] + 0.5 * key[1], c[1] = key[1] * HEX_ROW, c[2] = 0;
        break;
    case meshweld_MethodBcc:
        for (int a = 0; a < 3; ++a)
            c[a] = key[a] * 0.5;
        break;
    default: /* grid-2r: cube of side 1 centred on the key */
        for (int a = 0; a < 3; ++a)
            c[a] = key[a];
    }
}

static double cell_distance(int method, int dim, const double s[3], const int* key)
{
    double c[3], d = 0;
    centre(method, key, c);
    for (int a = 0; a < dim; ++a) {
        double e = fabs(s[a] - c[a]);
        if (method == meshweld_MethodGridR || method == meshweld_MethodGrid2R)
            d = e > d ? e : d; /* cubes: the L-infinity distance */
        else
            d += e * e;
    }
    return d;
}

/* How far the point (in cell units) lies from the origin in its method's keys: the hexagons' keys
 * are coordinates along the lattice's skewed axes, and BCC's count half cells. */
static double key_far(int method, int dim, const double s[3])
{
    if (method == meshweld_MethodHex) { /* centre()'s lattice, inverted */
        double j = s[1] / HEX_ROW, i = s[0] - 0.5 * j;
        return fabs(i) > fabs(j) ? fabs(i) : fabs(j);
    }
    double far = 0;
    for (int a = 0; a < dim; ++a)
        far = fabs(s[a]) > far ? fabs(s[a]) : far;
    return method == meshweld_MethodBcc ? 2 * far : far;
}

static void fuzz_cells(Fz* f)
{
    int dim = fz_dim(fz_u8(f));
    float r = fz_radius(f);
    uint8_t flags = fz_u8(f);
    int d = dim == 2 ? 2 : 3;
    FzGen g = {d, r > 0.0f && isfinite(r) ? r : 0.25f, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, 3, 0};
    g.pts = (float*)malloc(64 * 3 * sizeof(float));
    size_t n = fz_points(f, &g, 64);
    for (int method = -1; method <= fz_methodCount(); ++method) {
        meshweld_Options o = {dim, r, method, (int)(int8_t)flags};
        unsigned errors = fz_optionErrors(dim, r, method, (int)(int8_t)flags, 1, 1);
        if (!(r > 0.0f))
            errors |= 1u << -meshweld_ErrorRadius;
        int resolved = method; /* strict checks for the grids whose cells the header describes */
        int keys_prev[81], count_prev = -1;
        for (size_t i = 0; i < n; ++i) {
            const float* p = g.pts + i * 3;
            int keys[81];
            double c = -1;
            int count = meshweld_cells(keys, &c, p, &o);
            if (errors) {
                FZ_ASSERT(fz_in(errors, count), "cells gave %d, expected one of 0x%x", count, errors);
                count_prev = -1;
                continue;
            }
            if (method == meshweld_MethodNaive || method == meshweld_MethodKdtree) { /* no cells (or a NaN refused) */
                FZ_ASSERT(count == 0 || (count == meshweld_ErrorNonFinite && !fz_finite(p, d)), "%s has %d cells",
                          meshweld_methodName(method), count);
                continue;
            }
            if (!fz_hasCells(resolved)) { /* AUTO and methods sized to the data: sane answers only */
                FZ_ASSERT(count <= 27 && (count >= 0 || count == meshweld_ErrorRange || count == meshweld_ErrorNonFinite),
                          "%s: cells gave %d", meshweld_methodName(method), count);
                FZ_ASSERT(fz_finite(p, d) || count < 0, "%s: cells of a non-finite point", meshweld_methodName(method));
                continue;
            }
            if (count < 0) { /* the cell size from the origin's cells: *cell_size is not promised on error */
                const float origin[3] = {0, 0, 0};
                int origin_keys[81];
                FZ_ASSERT(meshweld_cells(origin_keys, &c, origin, &o) > 0, "cells of the origin");
            }
            FZ_ASSERT(c > 0 && isfinite(c), "cell size %g", c);
            double s[3] = {0, 0, 0}, far = 0;
            for (int a = 0; a < d; ++a) {
                s[a] = p[a] / c;
                far = isfinite(s[a]) && fabs(s[a]) > far ? fabs(s[a]) : far;
            }
            if (!fz_finite(p, d)) { /* (a coordinate out of range may be seen first) */
                FZ_ASSERT(count == meshweld_ErrorNonFinite || (count == meshweld_ErrorRange && far >= 1048576.0),
                          "cells of a non-finite point gave %d", count);
                count_prev = -1;
                continue;
            }
            if (count == meshweld_ErrorRange) {
                FZ_ASSERT(far >= 1048576.0, "range error %g cells from the origin", far);
                count_prev = -1;
                continue;
            }
            /* keys that fit int: the point lies within a cell or two of them, not past int's range */
            double key = key_far(resolved, d, s);
            FZ_ASSERT(key < 2147483648.0 + 2.0, "point %g cells (%g in keys) from the origin has cells (%d)", far, key,
                      count);
            FZ_ASSERT(count == meshweld_lookups(resolved, d), "%s dim %d: %d cells", meshweld_methodName(resolved), d, count);
            for (int k = 0; k < count; ++k) {
                if (d == 2)
                    FZ_ASSERT(keys[k * 3 + 2] == 0, "2D key with z = %d", keys[k * 3 + 2]);
                for (int l = 0; l < k; ++l)
                    FZ_ASSERT(memcmp(keys + k * 3, keys + l * 3, 3 * sizeof(int)) != 0, "cell %d searched twice", k);
            }
            /* the store cell holds the point: nearest of the cells searched, and within the cell's
             * own extent (rounding allowed for: a few ulps of the cell coordinate) */
            double tol = 1e-9 + far * 4e-16;
            double own = cell_distance(resolved, d, s, keys);
            if (resolved == meshweld_MethodGridR || resolved == meshweld_MethodGrid2R)
                FZ_ASSERT(own <= 0.5 + tol, "%s: point %zu is %.17g cells from its store cell", meshweld_methodName(resolved),
                          i, own);
            else if (resolved == meshweld_MethodHex) /* within the hexagon: 1 / sqrt(3) of the unit lattice */
                FZ_ASSERT(own <= 1.0 / 3.0 + 4 * tol, "hex: point %zu is %.17g (squared) from its store cell", i, own);
            else if (resolved == meshweld_MethodBcc) { /* within the truncated octahedron: sqrt(5) / 4 of the cube */
                FZ_ASSERT(own <= 5.0 / 16.0 + 4 * tol, "bcc: point %zu is %.17g (squared) from its store cell", i, own);
                int even = keys[0] & 1;
                FZ_ASSERT((keys[1] & 1) == even && (keys[2] & 1) == even, "BCC store key of mixed parity");
            }
            for (int k = 1; k < count; ++k) {
                double other = cell_distance(resolved, d, s, keys + k * 3);
                if (resolved == meshweld_MethodHex || resolved == meshweld_MethodBcc)
                    FZ_ASSERT(own <= other + tol * (1 + other), "%s: cell %d nearer than the store cell", meshweld_methodName(resolved), k);
            }
            /* completeness against the previous point */
            if (count_prev > 0 && fz_finite(p - 3, d) && fz_within(p, p - 3, d, r)) {
                int found = 0;
                for (int k = 0; k < count_prev && !found; ++k)
                    found = memcmp(keys_prev + k * 3, keys, 3 * sizeof(int)) == 0;
                FZ_ASSERT(found, "%s dim %d r %a: points %zu (%a %a %a) and %zu (%a %a %a) are within r but the store cell "
                          "of the second is not searched by the first",
                          meshweld_methodName(resolved), d, r, i - 1, p[-3], p[-2], p[-1], i, p[0], p[1], p[2]);
                fz_note("cells: pair within r, complete");
            }
            memcpy(keys_prev, keys, sizeof(keys));
            count_prev = count;
        }
    }
    free(g.pts);
}

static void fuzz_gather(Fz* f)
{
    int dim = fz_dim(fz_u8(f));
    uint8_t layout = fz_u8(f), u = fz_u8(f), flags = fz_u8(f), plan = fz_u8(f);
    int centroid = flags & 1;
    int d = dim == 2 ? 2 : 3;
    size_t stride_floats = (size_t)d + (layout & 3), stride = stride_floats * sizeof(float);
    int bad_stride = ((layout >> 2) & 15) == 15;
    FzGen g = {d, 0.25f, (flags >> 1) & 1, (flags >> 2) & 1, NULL, stride_floats, 0};
    g.pts = (float*)malloc(256 * stride_floats * sizeof(float));
    size_t n = fz_points(f, &g, fz_u8(f)); /* then one byte of remap per point */
    int huge = u >= 224;
    if (huge && fz_skip("gather-count"))
        huge = 0, u = 5;
    size_t unique = u % 64;
    if (huge) {
        /* counts whose byte sizes overflow: unique * (dim + 1) doubles, unique * dim floats, unique + 7 */
        const size_t counts[] = {SIZE_MAX, SIZE_MAX - 3, (size_t)1 << 62, SIZE_MAX / 3 + 1, SIZE_MAX / 12 + 1,
                                 ((size_t)1 << 62) + 1, SIZE_MAX / 4 + 1, SIZE_MAX - 7};
        unique = counts[u & 7];
    }
    unsigned* remap = (unsigned*)malloc((n ? n : 1) * sizeof(unsigned));
    unsigned largest = 0;
    for (size_t i = 0; i < n; ++i) {
        uint8_t s = fz_u8(f);
        remap[i] = s < 250 ? (unsigned)(s % ((huge ? 64 : unique) + 1)) : UINT32_MAX - (s & 3);
        largest = remap[i] > largest ? remap[i] : largest;
    }
    size_t room = huge ? (size_t)largest + 1 : unique; /* outputs the destination really holds */
    if (room > 1024)
        room = 1024;
    float* destination = (float*)malloc((room ? room : 1) * (size_t)d * sizeof(float) + sizeof(float));
    for (size_t k = 0; k <= room * (size_t)d; ++k)
        destination[k] = -12345.0f;

    long live = fz_heap.live;
    fz_heapArm(plan);
    fz_heap.huge_ok = huge;
    int e = meshweld_gather(destination, unique, remap, g.pts, n, bad_stride ? stride - 1 : stride, dim, centroid);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    FZ_ASSERT(fz_heap.live == live, "gather leaked");
    FZ_ASSERT(destination[room * (size_t)d] == -12345.0f, "gather wrote past the outputs");

    int out_of_range = 0;
    for (size_t i = 0; i < n; ++i)
        out_of_range |= remap[i] >= unique;
    if (dim != 2 && dim != 3) {
        FZ_ASSERT(e == meshweld_ErrorDim, "gather in dim %d gave %d", dim, e);
    } else if (n == 0) {
        FZ_ASSERT(e == meshweld_Ok, "empty gather gave %d", e);
    } else if (bad_stride) {
        FZ_ASSERT(e == meshweld_ErrorStride, "gather with stride %zu gave %d", stride - 1, e);
    } else if (out_of_range) {
        FZ_ASSERT(e == meshweld_ErrorIndex, "remap beyond %zu outputs gave %d", unique, e);
        fz_note("gather: index error");
    } else if (huge) {
        /* the destination cannot hold unique * dim floats: the byte size overflows, or the
         * scratch cannot be had */
        FZ_ASSERT(e == meshweld_ErrorCount || (e == meshweld_ErrorMemory && failed > 0),
                  "gather of %zu outputs gave %d (%s)", unique, e, meshweld_errorString(e));
        fz_note("gather: huge count refused");
    } else if (e == meshweld_ErrorMemory) {
        FZ_ASSERT(failed > 0, "out of memory with no failed allocation");
    } else {
        FZ_ASSERT(e == meshweld_Ok, "gather gave %d (%s)", e, meshweld_errorString(e));
        for (size_t k = 0; k < unique; ++k) {
            double sum[3] = {0, 0, 0}, members = 0;
            size_t first = SIZE_MAX;
            for (size_t i = 0; i < n; ++i)
                if (remap[i] == k) {
                    const float* p = fz_at(g.pts, stride, i);
                    for (int a = 0; a < d; ++a)
                        sum[a] += p[a];
                    members += 1;
                    first = first == SIZE_MAX ? i : first;
                }
            if (first == SIZE_MAX)
                continue;
            for (int a = 0; a < d; ++a) {
                float got = destination[k * (size_t)d + a];
                float want = centroid ? (float)(sum[a] / members) : fz_at(g.pts, stride, first)[a];
                FZ_ASSERT(memcmp(&got, &want, sizeof(float)) == 0 || (isnan(got) && isnan(want)),
                          "gather output %zu axis %d: %a, expected %a (%s)", k, a, got, want, centroid ? "centroid" : "first");
            }
        }
        fz_note(centroid ? "gather: centroids" : "gather: first points");
    }
    free(destination);
    free(remap);
    free(g.pts);
}

static void fuzz_names(Fz* f)
{
    int method = (int)(int8_t)fz_u8(f), store = (int)(int8_t)fz_u8(f), dim = (int)(int8_t)fz_u8(f);
    if (fz_u8(f) & 1)
        method &= 7, store &= 1, dim = 2 + (dim & 1);
    float r = fz_radius(f);
    double R = meshweld_bound(method, store, dim, r);
    unsigned errors = fz_optionErrors(dim == 0 ? -1 : dim, r, method, store, 1, 1);
    if (errors) {
        FZ_ASSERT(R < 0, "bound(%d, %d, %d, %g) = %g for invalid arguments", method, store, dim, r, R);
    } else if (method == meshweld_MethodNaive || method == meshweld_MethodKdtree || fz_hasCells(method) ||
               store == meshweld_StorePrecise) {
        /* the documented bounds: R = r when precise, else the grid's factor with its slack */
        double factor = 1;
        if (store == meshweld_StoreLoose && fz_hasCells(method)) {
            const double grid_r = 2 * sqrt((double)dim), grid_2r = 3 * sqrt((double)dim);
            factor = method == meshweld_MethodGridR ? grid_r : method == meshweld_MethodGrid2R ? grid_2r
                     : method == meshweld_MethodHex ? 2 * sqrt(7.0) : sqrt(74.0);
            factor *= 1 + 1.0 / 32768;
        }
        FZ_ASSERT(fabs(R - factor * r) <= 1e-12 * factor * r, "bound(%s, %d, %d, %g) = %.17g, expected %.17g",
                  meshweld_methodName(method), store, dim, r, R, factor * r);
        const int lookups = method == meshweld_MethodGridR ? (dim == 3 ? 27 : 9)
                            : method == meshweld_MethodGrid2R ? (dim == 3 ? 8 : 4)
                            : method == meshweld_MethodHex ? 3 : method == meshweld_MethodBcc ? 4 : 0;
        if (fz_hasCells(method) || method == meshweld_MethodNaive || method == meshweld_MethodKdtree)
            FZ_ASSERT(meshweld_lookups(method, dim) == lookups, "lookups(%d, %d) = %d", method, dim,
                      meshweld_lookups(method, dim));
    } else {
        FZ_ASSERT(R >= r, "bound(%s, %d, %d, %g) = %.17g below r", meshweld_methodName(method), store, dim, r, R);
    }
    const char* name = meshweld_methodName(method);
    FZ_ASSERT((name != NULL) == (method >= 0 && method < fz_methodCount()), "methodName(%d) = %s", method,
              name ? name : "NULL");
    if (name)
        FZ_ASSERT(meshweld_methodFromName(name) == method, "methodFromName(%s)", name);
    char text[17];
    size_t length = fz_u8(f) % 17;
    for (size_t i = 0; i < length; ++i)
        text[i] = (char)(fz_u8(f) | 1);
    text[length] = 0;
    int from = meshweld_methodFromName(text);
    FZ_ASSERT(from == meshweld_ErrorMethod || (from >= 0 && from <= 6 && strcmp(meshweld_methodName(from), text) == 0),
              "methodFromName(\"%s\") = %d", text, from);
    FZ_ASSERT(meshweld_methodFromName(NULL) == meshweld_ErrorMethod, "methodFromName(NULL)");
    int code = (int)fz_u32(f);
    const char* sentence = meshweld_errorString(code);
    FZ_ASSERT(sentence != NULL && sentence[0] != 0, "errorString(%d)", code);
    for (int c = 0; c >= -14; --c)
        FZ_ASSERT(strcmp(meshweld_errorString(c), "unknown error") != 0, "no sentence for error %d", c);
    /* one hook alone is refused and changes nothing */
    FZ_ASSERT(meshweld_setAllocator(fz_allocate, NULL, NULL) == meshweld_ErrorAllocator, "one hook accepted");
    FZ_ASSERT(meshweld_setAllocator(NULL, fz_deallocate, NULL) == meshweld_ErrorAllocator, "one hook accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_init();
    Fz f = {data, size, 0};
    switch (fz_u8(&f) & 3) {
    case 0: fuzz_pairs(&f); break;
    case 1: fuzz_cells(&f); break;
    case 2: fuzz_gather(&f); break;
    default: fuzz_names(&f); break;
    }
    return 0;
}
