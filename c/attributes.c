/* Attribute-aware welding: the precise rule (a vertex merges into the earliest representative
 * within r) where a representative must also match every attribute within its tolerance.
 *
 * Two passes. The first gives every distinct position an id (a hash of the coordinate bits, -0
 * folded onto +0). The second walks the vertices in order; a vertex whose position and attribute
 * values equal those of an earlier vertex takes that vertex's output (the greedy would give it
 * the same answer: the representatives made between the two come later in order), so a triangle
 * soup searches each distinct vertex once. The others search for candidates in one of three ways:
 *   grid    a precise 2r grid (radius > 0, coordinates within the grid's range);
 *   kdtree  a kd-tree over the distinct positions, whose representatives are chained per
 *           position (radius > 0 and coordinates too large for grid cells, or asked for);
 *   exact   radius 0: only the representatives at the same position are candidates.
 * All three give the same remap. */
#include "internal.h"

#include <math.h>

typedef struct mw_Matching {
    const float* points;
    size_t stride;
    int dim;
    double r2;
    const meshweld_Attribute* attributes;
    size_t attribute_count;
    const uint32_t* rep_vertex; /* representative -> its vertex */
    const uint32_t* rep_next;   /* representative -> the next one in its cell or at its position */
    const uint32_t* rep_head;   /* kdtree: distinct position -> its newest representative */
    const double* p;            /* the vertex searching */
    size_t vertex;
    uint32_t best;
} mw_Matching;

/* Every attribute of a and b within its tolerance (exact: every value equal). */
static int mw_attributesMatch(const mw_Matching* m, size_t a, size_t b, int exact)
{
    for (size_t k = 0; k < m->attribute_count; ++k) {
        const meshweld_Attribute* t = &m->attributes[k];
        const float* x = mw_point(t->data, t->stride, a);
        const float* y = mw_point(t->data, t->stride, b);
        double d = 0;
        for (int j = 0; j < t->size; ++j) {
            if (exact && x[j] != y[j]) /* -0 == +0 */
                return 0;
            double e = (double)x[j] - (double)y[j];
            d += e * e;
        }
        if (d > (double)t->tolerance * t->tolerance)
            return 0;
    }
    return 1;
}

/* Walks a chain of representatives (newest first) for the earliest one that matches. */
static void mw_matchChain(mw_Matching* m, uint32_t q)
{
    for (; q != MW_NONE; q = m->rep_next[q]) {
        if (q > m->best)
            continue;
        const float* v = mw_point(m->points, m->stride, m->rep_vertex[q]);
        if (mw_distance2(m->p, v, m->dim) <= m->r2 && mw_attributesMatch(m, m->vertex, m->rep_vertex[q], 0))
            m->best = q;
    }
}

static void mw_matchPosition(void* context, uint32_t id)
{
    mw_Matching* m = (mw_Matching*)context;
    mw_matchChain(m, m->rep_head[id]);
}

/* Checks everything before any allocation; returns the search to use or an error. */
enum { MW_SEARCH_GRID, MW_SEARCH_KDTREE, MW_SEARCH_EXACT };

static int mw_checkAttributes(const float* points, size_t count, size_t stride, int dim, float r, int method,
                              const meshweld_Attribute* attributes, size_t attribute_count, meshweld_Info* info,
                              int* search)
{
    if (attribute_count > 0 && !attributes)
        return meshweld_ErrorNull;
    for (size_t k = 0; k < attribute_count; ++k) {
        const meshweld_Attribute* t = &attributes[k];
        if (t->size < 1 || t->size > 16)
            return meshweld_ErrorAttribute;
        if (count > 0 && !t->data)
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
    int error = mw_checkBuffer(points, count, stride, dim, MW_NONE);
    if (error)
        return error;

    *search = r == 0.0f ? MW_SEARCH_EXACT : (method == meshweld_MethodKdtree ? MW_SEARCH_KDTREE : MW_SEARCH_GRID);
    double scale = r > 0.0f ? mw_gridScale(meshweld_MethodGrid2R, r) : 0.0;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a) {
            if (!isfinite(p[a])) {
                if (info)
                    info->error_point = i, info->error_axis = a;
                return meshweld_ErrorNonFinite;
            }
            if (*search == MW_SEARCH_GRID && fabs((double)p[a] * scale) >= MW_CELL_LIMIT)
                *search = MW_SEARCH_KDTREE;
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
    return meshweld_Ok;
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
    if (!(r >= 0.0f) || !isfinite(r))
        return meshweld_ErrorRadius;
    if (options->method < meshweld_MethodAuto || options->method > meshweld_MethodGrid)
        return meshweld_ErrorMethod;
    if (info)
        info->method = meshweld_MethodGrid2R, info->unique_count = 0;
    int search = MW_SEARCH_GRID;
    int error = mw_checkAttributes(points, count, stride, dim, r, options->method, attributes, attribute_count, info,
                                   &search);
    if (error || count == 0)
        return error;
    if (!remap)
        return meshweld_ErrorNull;
    if (info)
        info->method = search == MW_SEARCH_KDTREE ? meshweld_MethodKdtree : meshweld_MethodGrid2R;

    mw_Table exact = {0}, cells = {0};
    mw_Kdtree tree = {0};
    uint32_t* position = (uint32_t*)mw_allocate(count, sizeof(uint32_t));     /* vertex -> distinct position */
    uint32_t* variants = (uint32_t*)mw_allocate(count, sizeof(uint32_t));     /* position -> newest distinct vertex there */
    uint32_t* variant_next = (uint32_t*)mw_allocate(count, sizeof(uint32_t)); /* vertex -> the previous one there */
    uint32_t* rep_vertex = (uint32_t*)mw_allocate(count, sizeof(uint32_t));
    uint32_t* rep_next = (uint32_t*)mw_allocate(count, sizeof(uint32_t));
    uint32_t* rep_head = NULL;
    error = meshweld_ErrorMemory;
    if (!position || !variants || !variant_next || !rep_vertex || !rep_next || mw_tableReserve(&exact, count))
        goto done;
    if (search == MW_SEARCH_GRID ? mw_tableReserve(&cells, count) != 0
                                 : (rep_head = (uint32_t*)mw_allocate(count, sizeof(uint32_t))) == NULL)
        goto done;
    if (search == MW_SEARCH_KDTREE && mw_kdAllocate(&tree, count, dim))
        goto done;
    error = meshweld_Ok;

    /* pass 1: distinct positions */
    uint32_t distinct = 0;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        float v[3] = {src[0] + 0.0f, src[1] + 0.0f, dim == 3 ? src[2] + 0.0f : 0.0f}; /* -0 + 0 = +0 */
        uint32_t key[3];
        memcpy(key, v, sizeof(key));
        mw_Entry* e = mw_tableFind(&exact, key[0], key[1], key[2]);
        if (e->value == MW_NONE) {
            memcpy(e->key, key, sizeof(key));
            e->value = distinct;
            exact.count++;
            variants[distinct] = MW_NONE;
            if (rep_head)
                rep_head[distinct] = MW_NONE;
            if (search == MW_SEARCH_KDTREE) {
                tree.ids[tree.count] = distinct;
                memcpy(&tree.coords[tree.count * 3], v, sizeof(v));
                tree.count++;
            }
            distinct++;
        }
        position[i] = e->value;
    }
    mw_tableFree(&exact);
    if (search == MW_SEARCH_KDTREE)
        mw_kdFinish(&tree);

    /* pass 2: the greedy, in vertex order */
    double scale = r > 0.0f ? mw_gridScale(meshweld_MethodGrid2R, r) : 0.0;
    mw_Matching m = {points, stride, dim, (double)r * r, attributes, attribute_count, rep_vertex, rep_next, rep_head,
                     NULL, 0, MW_NONE};
    uint32_t rep_count = 0;
    for (size_t i = 0; i < count; ++i) {
        uint32_t d = position[i], v;
        for (v = variants[d]; v != MW_NONE; v = variant_next[v])
            if (mw_attributesMatch(&m, i, v, 1))
                break;
        if (v != MW_NONE) {
            remap[i] = remap[v];
            continue;
        }
        variant_next[i] = variants[d];
        variants[d] = (uint32_t)i;

        const float* src = mw_point(points, stride, i);
        double p[3] = {src[0], src[1], dim == 3 ? src[2] : 0.0};
        m.p = p, m.vertex = i, m.best = MW_NONE;
        mw_Entry* home = NULL;
        mw_Cells c;
        if (search == MW_SEARCH_GRID) {
            double s[3] = {p[0] * scale, p[1] * scale, p[2] * scale};
            mw_gridCells(&c, meshweld_MethodGrid2R, dim, s);
            for (int k = 0; k < c.count; ++k) {
                mw_Entry* e = mw_tableFind(&cells, (uint32_t)c.key[k][0], (uint32_t)c.key[k][1], (uint32_t)c.key[k][2]);
                if (k == 0)
                    home = e;
                mw_matchChain(&m, e->value);
            }
        } else if (search == MW_SEARCH_KDTREE) {
            mw_kdVisit(&tree, p, m.r2, mw_matchPosition, &m);
        } else {
            mw_matchChain(&m, rep_head[d]);
        }
        if (m.best == MW_NONE) {
            m.best = rep_count++;
            rep_vertex[m.best] = (uint32_t)i;
            if (home) {
                if (home->value == MW_NONE) {
                    memcpy(home->key, c.key[0], sizeof(home->key));
                    cells.count++;
                }
                rep_next[m.best] = home->value;
                home->value = m.best;
            } else {
                rep_next[m.best] = rep_head[d];
                rep_head[d] = m.best;
            }
        }
        remap[i] = m.best;
    }
    if (info)
        info->unique_count = rep_count;

done:
    mw_tableFree(&exact);
    mw_tableFree(&cells);
    mw_kdFree(&tree);
    mw_deallocate(position);
    mw_deallocate(variants);
    mw_deallocate(variant_next);
    mw_deallocate(rep_vertex);
    mw_deallocate(rep_next);
    mw_deallocate(rep_head);
    return error;
}
