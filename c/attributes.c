/* Attribute-aware welding: a precise 2r grid whose candidates must also match every attribute.
 * The precise rule (earliest matching representative) keeps identical vertices together without
 * the exact-duplicate pass: a vertex's twin meets the same earlier representatives, and those
 * made between the two come later in order. */
#include "internal.h"

#include <math.h>

static int mw_attributesMatch(const meshweld_Attribute* attributes, size_t attribute_count, size_t a, size_t b)
{
    for (size_t k = 0; k < attribute_count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        const float* x = mw_point(t->data, t->stride, a);
        const float* y = mw_point(t->data, t->stride, b);
        double d = 0;
        for (int j = 0; j < t->size; ++j) {
            double e = (double)x[j] - (double)y[j];
            d += e * e;
        }
        if (d > (double)t->tolerance * t->tolerance)
            return 0;
    }
    return 1;
}

int meshweld_weldAttributes(unsigned int* remap, const float* points, size_t count, size_t stride,
                            const meshweld_Options* options, const meshweld_Attribute* attributes,
                            size_t attribute_count, meshweld_Info* info)
{
    if (!options)
        return meshweld_ErrorNull;
    int dim = options->dim == 0 ? 3 : options->dim;
    float r = options->radius;
    if (dim != 2 && dim != 3)
        return meshweld_ErrorDim;
    if (!(r > 0.0f) || !isfinite(r))
        return meshweld_ErrorRadius;
    if (info)
        info->method = meshweld_MethodGrid2R, info->unique_count = 0;
    if (attribute_count > 0 && !attributes)
        return meshweld_ErrorNull;
    for (size_t k = 0; k < attribute_count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        if (t->size < 1 || t->size > 16 || (count > 0 && !t->data))
            return meshweld_ErrorNull;
        if (mw_badStride(t->stride, (size_t)t->size))
            return meshweld_ErrorStride;
        if (!(t->tolerance >= 0.0f) || !isfinite(t->tolerance))
            return meshweld_ErrorRadius;
        if (count > SIZE_MAX / t->stride)
            return meshweld_ErrorCount;
    }
    if (count == 0)
        return meshweld_Ok;
    if (!remap || !points)
        return meshweld_ErrorNull;
    if (mw_badStride(stride, (size_t)dim))
        return meshweld_ErrorStride;
    if (count >= MW_NONE || count > SIZE_MAX / stride)
        return meshweld_ErrorCount;

    double scale = mw_gridScale(meshweld_MethodGrid2R, r), r2 = (double)r * r;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a) {
            int bad = !isfinite(p[a]) ? meshweld_ErrorNonFinite
                                      : (fabs((double)p[a] * scale) >= MW_CELL_LIMIT ? meshweld_ErrorRange : 0);
            if (bad) {
                if (info)
                    info->error_point = i, info->error_axis = a;
                return bad;
            }
        }
        for (size_t k = 0; k < attribute_count; ++k) {
            const float* v = mw_point(attributes[k].data, attributes[k].stride, i);
            for (int j = 0; j < attributes[k].size; ++j)
                if (!isfinite(v[j])) {
                    if (info)
                        info->error_point = i, info->error_axis = 3 + (int)k;
                    return meshweld_ErrorNonFinite;
                }
        }
    }

    mw_Table cells = {0};
    uint32_t* reps = (uint32_t*)mw_allocate(count, sizeof(uint32_t)); /* representative -> its vertex */
    uint32_t* next = (uint32_t*)mw_allocate(count, sizeof(uint32_t));
    if (!reps || !next || mw_tableReserve(&cells, count)) {
        mw_deallocate(reps);
        mw_deallocate(next);
        mw_tableFree(&cells);
        return meshweld_ErrorMemory;
    }
    uint32_t rep_count = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        double p[3] = {src[0], src[1], dim == 3 ? src[2] : 0.0};
        double s[3] = {p[0] * scale, p[1] * scale, p[2] * scale};
        mw_Cells c;
        mw_gridCells(&c, meshweld_MethodGrid2R, dim, s);
        uint32_t best = MW_NONE;
        mw_Entry* home = NULL;
        for (int k = 0; k < c.count; ++k) {
            mw_Entry* e = mw_tableFind(&cells, (uint32_t)c.key[k][0], (uint32_t)c.key[k][1], (uint32_t)c.key[k][2]);
            if (k == 0)
                home = e;
            for (uint32_t q = e->value; q != MW_NONE; q = next[q]) {
                if (q > best)
                    continue;
                if (mw_distance2(p, mw_point(points, stride, reps[q]), dim) <= r2 && mw_attributesMatch(attributes, attribute_count, i, reps[q]))
                    best = q;
            }
        }
        if (best == MW_NONE) {
            best = rep_count++;
            reps[best] = (uint32_t)i;
            if (home->value == MW_NONE) {
                memcpy(home->key, c.key[0], sizeof(home->key));
                cells.count++;
            }
            next[best] = home->value;
            home->value = best;
        }
        remap[i] = best;
    }
    mw_tableFree(&cells);
    mw_deallocate(reps);
    mw_deallocate(next);
    if (info)
        info->unique_count = rep_count;
    return meshweld_Ok;
}
