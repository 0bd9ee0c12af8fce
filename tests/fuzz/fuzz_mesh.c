/* libFuzzer target: the mesh layer. The first byte picks
 *   even: meshweld_remapTriangles with an arbitrary remap and index buffer (out-of-range indices,
 *         counts not divisible by 3, the soup form, in place, every flag), against a reference;
 *   odd:  meshweld_weldAttributes (or meshweld_weldAttributesFirst, whose first inputs and kept
 *         positions must be firstOfEach's and gather's) with 0 to 3 attributes (tolerance 0 and
 *         radius 0 allowed), against the brute-force greedy of its rule.
 * Errors must be the specific ones, with nothing written; nothing may leak. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* ---- remapTriangles ---- */

/* The rotation of a triangle that is smallest lexicographically: equal for all three rotations. */
static void canonical(const uint32_t c[3], uint32_t out[3])
{
    int best = 0;
    for (int s = 1; s < 3; ++s)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = c[(s + k) % 3], b = c[(best + k) % 3];
            if (a != b) {
                if (a < b)
                    best = s;
                break;
            }
        }
    for (int k = 0; k < 3; ++k)
        out[k] = c[(best + k) % 3];
}

static void fuzz_triangles(Fz* f)
{
    size_t vertex_count = fz_u16(f) % 400;
    uint8_t flags_byte = fz_u8(f), mode = fz_u8(f), plan = fz_u8(f);
    int flags = flags_byte & 3;
    if ((flags_byte >> 2) == 63)
        flags |= (int)(((unsigned)flags_byte << 23) & 0x7f800000u); /* unknown bits set too */
    unsigned* remap = (unsigned*)malloc((vertex_count ? vertex_count : 1) * sizeof(unsigned));
    for (size_t v = 0; v < vertex_count; ++v) {
        uint8_t s = fz_u8(f);
        remap[v] = s < 200 ? (unsigned)(fz_u8(f) % (vertex_count / 2 + 1)) : s < 230 ? (unsigned)v : fz_u32(f);
    }
    int soup = (mode & 7) == 0;
    int in_place = (mode >> 3) & 1;
    int trim = ((mode >> 4) & 3) != 0; /* else the count may not be a multiple of 3 */
    int null_destination = (mode >> 6) == 3 && (mode & 0x20);
    int null_remap = vertex_count == 0 && (mode >> 6) == 2;
    size_t cap = 3000, index_count = 0;
    unsigned* indices = (unsigned*)malloc(cap * sizeof(unsigned));
    if (soup) {
        index_count = fz_u16(f) % (vertex_count + 8);
    } else {
        while (fz_more(f) && index_count < cap) {
            uint8_t s = fz_u8(f);
            unsigned v;
            if (s < 216)
                v = vertex_count ? (unsigned)(fz_u16(f) % vertex_count) : 0;
            else {
                const unsigned special[] = {(unsigned)vertex_count, (unsigned)vertex_count + 1, (unsigned)vertex_count - 1,
                                            UINT32_MAX, 0x80000000u, 0, 0, UINT32_MAX - 1};
                v = (s & 7) == 6 ? fz_u32(f) : special[s & 7];
            }
            indices[index_count++] = v;
        }
    }
    if (trim)
        index_count -= index_count % 3;

    /* the reference */
    unsigned errors = 0;
    size_t bad_at = SIZE_MAX;
    if (index_count % 3 != 0)
        errors |= 1u << -meshweld_ErrorIndexCount;
    if (index_count > 0) {
        if (null_destination || null_remap)
            errors |= 1u << -meshweld_ErrorNull;
        if (soup && index_count > vertex_count) {
            errors |= 1u << -meshweld_ErrorIndex; /* the soup's index vertex_count, at that position */
            bad_at = vertex_count;
        }
        for (size_t k = 0; !soup && k < index_count; ++k)
            if (indices[k] >= vertex_count) {
                errors |= 1u << -meshweld_ErrorIndex;
                bad_at = bad_at == SIZE_MAX ? k : bad_at;
            }
    }
    unsigned* expect = (unsigned*)malloc((index_count ? index_count : 1) * sizeof(unsigned));
    size_t expect_written = 0, expect_degenerate = 0, expect_duplicates = 0;
    if (!errors) {
        FzMap seen;
        fz_mapInit(&seen, index_count / 3 + 1);
        for (size_t t = 0; t + 3 <= index_count; t += 3) {
            uint32_t c[3], key[3];
            for (int i = 0; i < 3; ++i)
                c[i] = remap[soup ? t + i : indices[t + i]];
            if (!(flags & meshweld_KeepDegenerate) && (c[0] == c[1] || c[1] == c[2] || c[0] == c[2])) {
                expect_degenerate++;
                continue;
            }
            if (flags & meshweld_RemoveDuplicates) {
                canonical(c, key);
                if (fz_mapGet(&seen, key) != UINT32_MAX) {
                    expect_duplicates++;
                    continue;
                }
                fz_mapPut(&seen, key, 1);
            }
            for (int i = 0; i < 3; ++i)
                expect[expect_written++] = c[i];
        }
        fz_mapFree(&seen);
    }

    unsigned* destination = in_place && !soup ? indices : (unsigned*)malloc((index_count ? index_count : 1) * sizeof(unsigned));
    if (destination != indices)
        memset(destination, 0x5a, (index_count ? index_count : 1) * sizeof(unsigned));
    unsigned* before = (unsigned*)malloc((index_count ? index_count : 1) * sizeof(unsigned));
    memcpy(before, destination, (index_count ? index_count : 1) * sizeof(unsigned));
    size_t written = 99, degenerate = 99, duplicates = 99;
    meshweld_Info info = {0, 0, SIZE_MAX, 0};
    long live = fz_heap.live;
    fz_heapArm(plan);
    int e = meshweld_remapTriangles(null_destination ? NULL : destination, mode & 0x40 ? NULL : &written,
                                    mode & 0x80 ? NULL : &degenerate, mode & 0x20 ? NULL : &duplicates,
                                    soup ? NULL : indices, index_count, null_remap ? NULL : remap, vertex_count, flags,
                                    &info);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    FZ_ASSERT(fz_heap.live == live, "remapTriangles leaked");

    if (errors) {
        FZ_ASSERT(fz_in(errors, e), "remapTriangles gave %d (%s), expected one of 0x%x", e, meshweld_errorString(e), errors);
        if (e == meshweld_ErrorIndex)
            FZ_ASSERT(info.error_point < index_count &&
                          (soup ? info.error_point == vertex_count : indices[info.error_point] >= vertex_count),
                      "index error names position %zu", info.error_point);
        fz_note("triangles: error");
    } else if (e == meshweld_ErrorMemory) {
        FZ_ASSERT(failed > 0 && (flags & meshweld_RemoveDuplicates), "out of memory with no failed allocation");
        fz_note("triangles: out of memory");
    } else {
        FZ_ASSERT(e == meshweld_Ok, "remapTriangles gave %d (%s) for a valid buffer", e, meshweld_errorString(e));
        /* the known issue: a kept degenerate triangle and its rotations are not seen as duplicates */
        int lenient = fz_skip("rotation") && (flags & meshweld_KeepDegenerate) && (flags & meshweld_RemoveDuplicates);
        if (!(mode & 0x40) && !lenient)
            FZ_ASSERT(written == expect_written, "%zu indices written, expected %zu", written, expect_written);
        if (!(mode & 0x80))
            FZ_ASSERT(degenerate == expect_degenerate, "%zu degenerate, expected %zu", degenerate, expect_degenerate);
        if (!(mode & 0x20) && !lenient)
            FZ_ASSERT(duplicates == expect_duplicates, "%zu duplicates removed, expected %zu (flags %d)", duplicates,
                      expect_duplicates, flags);
        if (!lenient)
            for (size_t k = 0; k < expect_written; ++k)
                FZ_ASSERT(destination[k] == expect[k], "destination[%zu] = %u, expected %u", k, destination[k], expect[k]);
        fz_note(expect_written ? "triangles: written" : "triangles: none kept");
    }
    if (e != meshweld_Ok)
        FZ_ASSERT(memcmp(before, destination, (index_count ? index_count : 1) * sizeof(unsigned)) == 0,
                  "remapTriangles failed with %d and wrote to the destination", e);
    if (destination != indices)
        free(destination);
    free(before);
    free(expect);
    free(indices);
    free(remap);
}

/* ---- weldAttributes ---- */

typedef struct Rng {
    uint64_t s;
} Rng;

static uint32_t rng_next(Rng* r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

static const float fz_tolerances[] = {0.0f, 0.0f, 1e-6f, 0.01f, 0.05f, 0.1f, 0.5f, 1.0f, 2.0f, 1e30f, FLT_MAX, 1e-40f};

FZ_ORACLE static int match(const float* points, size_t stride, int dim, float r, const meshweld_Attribute* attributes, size_t count,
                 size_t a, size_t b)
{
    if (!fz_within(fz_at(points, stride, a), fz_at(points, stride, b), dim, r))
        return 0;
    for (size_t k = 0; k < count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        const float* x = fz_at(t->data, t->stride, a);
        const float* y = fz_at(t->data, t->stride, b);
        double d = 0;
        int same = 1, finite = 1;
        for (int j = 0; j < t->size; ++j) {
            double e = (double)x[j] - (double)y[j];
            d += e * e;
            uint32_t bx, by; /* (copied out: memcmp is intercepted and traced) */
            memcpy(&bx, &x[j], sizeof(bx));
            memcpy(&by, &y[j], sizeof(by));
            same &= x[j] == y[j] || bx == by;
            finite &= isfinite(x[j]) && isfinite(y[j]);
        }
        /* a non-finite value matches only its own bits */
        if (finite ? d > (double)t->tolerance * t->tolerance : !same)
            return 0;
    }
    return 1;
}

/* The rule by brute force: each vertex takes the earliest representative that matches, or
 * becomes one; remap must say the same, and no two outputs match each other. Returns the outputs. */
FZ_ORACLE static size_t check_rule(const float* points, size_t stride, int dim, float r, const meshweld_Attribute* attributes,
                                   size_t attribute_count, size_t n, const unsigned* remap)
{
    size_t* reps = (size_t*)malloc((n ? n : 1) * sizeof(size_t));
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t q = 0;
        while (q < count && !match(points, stride, dim, r, attributes, attribute_count, i, reps[q]))
            ++q;
        if (q == count)
            reps[count++] = i;
        FZ_ASSERT(remap[i] == q, "vertex %zu: remap %u, the rule gives %zu (r %g, %zu attributes)", i, remap[i], q, r,
                  attribute_count);
    }
    for (size_t a = 0; a < count; ++a)
        for (size_t b = a + 1; b < count; ++b)
            FZ_ASSERT(!match(points, stride, dim, r, attributes, attribute_count, reps[a], reps[b]), "outputs %zu and %zu match",
                      a, b);
    free(reps);
    return count;
}

static void fuzz_attributes(Fz* f)
{
    int dim = fz_dim(fz_u8(f));
    float r = fz_radius(f);
    int method = fz_method(fz_u8(f));
    uint8_t layout = fz_u8(f), flags = fz_u8(f), plan = fz_u8(f), shape = fz_u8(f);
    size_t attribute_count = shape & 3;
    int null_attributes = attribute_count > 0 && (shape >> 2) == 63;
    int d = dim == 2 ? 2 : 3;

    meshweld_Attribute attributes[3];
    float* storage[3] = {NULL, NULL, NULL};
    unsigned attribute_errors = 0;
    int bad_size[3] = {0, 0, 0}, unreadable[3] = {0, 0, 0};
    size_t max_points = 600;
    for (size_t k = 0; k < attribute_count; ++k) {
        uint8_t a = fz_u8(f), b = fz_u8(f);
        int size = 1 + (a & 15);
        if ((a >> 4) == 15) { /* an invalid size */
            size = (b & 1) ? 0 : 17;
            bad_size[k] = 1;
            attribute_errors |= 1u << -meshweld_ErrorAttribute;
        }
        size_t stride = (size_t)(size > 0 ? size : 1) * sizeof(float) + ((a >> 4) & 3) * sizeof(float);
        if ((b >> 1) == 127) {
            stride = (b & 1) ? 2 : (size_t)(size > 1 ? size - 1 : 0) * sizeof(float); /* a bad stride */
            unreadable[k] = 1;
            if (size >= 1 && size <= 16)
                attribute_errors |= 1u << -meshweld_ErrorStride;
        }
        float tolerance = fz_tolerances[(b >> 1) % (sizeof(fz_tolerances) / sizeof(fz_tolerances[0]))];
        if ((b >> 1) >= 120 && (b >> 1) < 127) {
            const float bad[] = {-1.0f, NAN, INFINITY, -INFINITY, -1e-30f, -NAN, -FLT_MAX};
            tolerance = bad[(b >> 1) - 120];
            attribute_errors |= 1u << -meshweld_ErrorRadius;
        }
        storage[k] = (float*)malloc(max_points * 32 * sizeof(float) + 64);
        attributes[k].data = storage[k];
        attributes[k].stride = stride;
        attributes[k].size = size;
        attributes[k].tolerance = tolerance;
    }
    if (null_attributes)
        attribute_errors |= 1u << -meshweld_ErrorNull;

    size_t stride_floats = (size_t)d + (layout & 3), stride = stride_floats * sizeof(float);
    int bad_stride = ((layout >> 2) & 15) == 15;
    FzGen g = {d, r > 0.0f && isfinite(r) ? r : 0.25f, (flags & 7) == 7, ((flags >> 3) & 3) == 3, NULL, stride_floats, 0};
    g.pts = (float*)malloc(max_points * stride_floats * sizeof(float));
    size_t want = fz_u16(f) % max_points;
    size_t n = fz_points(f, &g, want);

    /* attribute values: from the rest of the bytes, then from a generator seeded by them */
    Rng rng = {0x9e3779b97f4a7c15ull ^ f->size ^ ((uint64_t)fz_u32(f) << 20)};
    for (size_t k = 0; k < attribute_count; ++k) {
        if (bad_size[k] || unreadable[k])
            continue;
        const meshweld_Attribute* t = &attributes[k];
        float step = t->tolerance > 0.0f && t->tolerance < 1e30f ? t->tolerance / 2 : 0.25f;
        for (size_t i = 0; i < n; ++i) {
            float* v = (float*)((char*)storage[k] + i * t->stride);
            uint32_t s = fz_more(f) ? fz_u8(f) : rng_next(&rng) & 255;
            if (s < 96 && i > 0) { /* the values of an earlier vertex: identical vertices, seams */
                memcpy(v, (char*)storage[k] + (rng_next(&rng) % i) * t->stride, (size_t)t->size * sizeof(float));
                continue;
            }
            for (int j = 0; j < t->size; ++j) {
                uint32_t u = fz_more(f) ? fz_u8(f) : rng_next(&rng) & 255;
                if (u < 200)
                    v[j] = (float)((int)(u % 9) - 4) * step; /* on the tolerance's boundaries */
                else if (u < 250)
                    v[j] = (u & 1) ? -0.0f : 0.0f;
                else
                    v[j] = g.nonfinite ? (u & 1 ? NAN : INFINITY) : 1e10f;
            }
        }
    }

    unsigned* remap = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    memset(remap, 0xa5, (n + 1) * sizeof(unsigned));
    /* layout bit 6: meshweld_weldAttributesFirst, bit 7 with the kept positions too */
    int with_first = (layout >> 6) & 1, with_kept = with_first && (layout >> 7);
    unsigned* first = (unsigned*)malloc((n + 1) * sizeof(unsigned));
    float* kept = (float*)malloc((n * (size_t)d + 1) * sizeof(float));
    first[n] = 0x5a5a5a5au;
    kept[n * (size_t)d] = 12345.0f;
    int store = (int)(int8_t)flags;
    meshweld_Options o = {dim, r, method, store};
    meshweld_Info info = {0, -99, SIZE_MAX, -1};
    long live = fz_heap.live;
    fz_heapArm(plan);
    const meshweld_Attribute* given = null_attributes ? NULL : attributes;
    size_t given_stride = bad_stride ? stride + 2 : stride;
    int e = with_first ? meshweld_weldAttributesFirst(remap, first, with_kept ? kept : NULL, g.pts, n, given_stride, &o,
                                                      given, attribute_count, &info)
                       : meshweld_weldAttributes(remap, g.pts, n, given_stride, &o, given, attribute_count, &info);
    long failed = fz_heap.failed;
    fz_heapDisarm();
    FZ_ASSERT(fz_heap.live == live, "weldAttributes leaked");

    unsigned structural = fz_optionErrors(dim, r, method, store, 1, 1);
    if (!structural) {
        structural |= attribute_errors;
        if (n > 0 && bad_stride)
            structural |= 1u << -meshweld_ErrorStride;
    }
    /* with no points, attribute errors may or may not be reported */
    int ok_empty = n == 0 && !fz_optionErrors(dim, r, method, store, 1, 1);
    if (structural && !(ok_empty && e == meshweld_Ok)) {
        unsigned accepted = structural;
        if (attribute_errors & (1u << -meshweld_ErrorAttribute))
            accepted |= 1u << -meshweld_ErrorStride; /* a bad size next to a bad stride: either is fair */
        FZ_ASSERT(fz_in(accepted, e) || (e == meshweld_ErrorMemory && failed > 0),
                  "weldAttributes gave %d (%s), expected one of 0x%x", e, meshweld_errorString(e), structural);
        fz_note("attributes: refused");
    } else if (e == meshweld_ErrorNonFinite) {
        FZ_ASSERT(info.error_point < n, "non-finite error at %zu of %zu", info.error_point, n);
        FZ_ASSERT(info.error_axis >= 0 && info.error_axis < d &&
                      !isfinite(fz_at(g.pts, stride, info.error_point)[info.error_axis]),
                  "non-finite error names coordinate %d of point %zu", info.error_axis, info.error_point);
        fz_note("attributes: non-finite");
    } else if (e == meshweld_ErrorMemory) {
        FZ_ASSERT(failed > 0, "out of memory with no failed allocation");
        fz_note("attributes: out of memory");
    } else {
        FZ_ASSERT(e == meshweld_Ok, "weldAttributes gave %d (%s) for valid input", e, meshweld_errorString(e));
        for (size_t i = 0; i < n; ++i) {
            const float* p = fz_at(g.pts, stride, i);
            FZ_ASSERT(fz_finite(p, d), "point %zu is not finite and the weld succeeded", i);
        }
        if (n > 0) {
            /* the kd-tree when asked (r > 0); GRID's cells (or the kd-tree, when coordinates lie too
             * far out for them) when r > 0; NAIVE's exact search for r = 0 */
            int kd_asked = r > 0.0f && method == meshweld_MethodKdtree;
            FZ_ASSERT((!kd_asked || info.method == meshweld_MethodKdtree) &&
                          (r > 0.0f ? info.method == meshweld_MethodKdtree || info.method == meshweld_MethodGrid
                                    : info.method == meshweld_MethodNaive),
                      "weldAttributes ran %s (method %d asked, r %g)", meshweld_methodName(info.method), method, r);
        }
        size_t count = check_rule(g.pts, stride, d, r, attributes, attribute_count, n, remap);
        FZ_ASSERT(info.unique_count == count, "%zu outputs, the rule gives %zu", info.unique_count, count);
        fz_note(n >= 50 ? "attributes: welded, 50+ vertices" : "attributes: welded, < 50 vertices");
        if (with_first) {
            unsigned* expected = (unsigned*)malloc((count + 1) * sizeof(unsigned));
            FZ_ASSERT(meshweld_firstOfEach(expected, count, remap, n) == meshweld_Ok, "firstOfEach");
            FZ_ASSERT(memcmp(expected, first, count * sizeof(unsigned)) == 0,
                      "weldAttributesFirst's first inputs differ from firstOfEach's");
            free(expected);
            if (with_kept) {
                float* gathered = (float*)malloc((count * (size_t)d + 1) * sizeof(float));
                FZ_ASSERT(meshweld_gather(gathered, count, remap, g.pts, n, stride, d, 0) == meshweld_Ok, "gather");
                FZ_ASSERT(memcmp(gathered, kept, count * (size_t)d * sizeof(float)) == 0,
                          "weldAttributesFirst's kept positions differ from the gathered ones");
                free(gathered);
            }
            fz_note(with_kept ? "attributes: weldAttributesFirst with kept" : "attributes: weldAttributesFirst");
        }
    }
    FZ_ASSERT(remap[n] == 0xa5a5a5a5u, "weldAttributes (%d) wrote remap past its end", e);
    FZ_ASSERT(first[n] == 0x5a5a5a5au && kept[n * (size_t)d] == 12345.0f,
              "weldAttributesFirst (%d) wrote first or kept past its end", e);
    free(first);
    free(kept);
    free(remap);
    free(g.pts);
    for (size_t k = 0; k < attribute_count; ++k)
        free(storage[k]);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    fz_init();
    Fz f = {data, size, 0};
    if (fz_u8(&f) & 1)
        fuzz_attributes(&f);
    else
        fuzz_triangles(&f);
    return 0;
}
