/* The welder: batch after batch, each point merged into a representative or made one. This file
 * checks a batch, hands it to its method, and is the one place where GRID (AUTO's) leaves for KDTREE;
 * it also holds the public weld functions (meshweld_weld is one batch of a fresh welder).
 *
 * The methods, one file each, all under the same exact-duplicate pass (exact.c) and
 * representatives (reps.c):
 *   method_naive.c    NAIVE, and every method at radius 0
 *   method_article.c  the article's grids (grid-r, grid-2r, hex, bcc), loose or precise store
 *   method_grid.c     GRID, on the spatial engine (engine.c) and its data-sized cells (cells_data.c)
 *   method_kdtree.c   KDTREE, on a forest of kd-trees (kdtree.c)
 * The precise store, NAIVE, KDTREE and GRID all merge a point into the earliest representative
 * within r; they return the same remap, whatever the order of the work. */
#include "internal.h"

#include <math.h>

void mw_setMethod(meshweld_Welder* w, int method)
{
    w->method = method;
    w->scale = w->radius > 0 && mw_isArticleGrid(method) ? mw_gridScale(method, w->radius) : 1.0;
    mw_splitScale(w->scale, w->split);
}

static int mw_init(meshweld_Welder* w, const meshweld_Options* options)
{
    mw_Parsed o;
    int error = mw_parseOptions(options, &o);
    if (error)
        return error;
    memset(w, 0, sizeof(*w));
    w->dim = o.dim;
    w->store = o.store;
    w->radius = o.radius;
    w->r2 = w->radius * w->radius;
    w->automatic = o.method == meshweld_MethodAuto;
    mw_setMethod(w, w->automatic ? meshweld_MethodGrid : o.method);
    return meshweld_Ok;
}

static void mw_release(meshweld_Welder* w)
{
    mw_repsFree(&w->reps);
    mw_tableFree(&w->exact);
    mw_tableFree(&w->cells);
    for (int k = 0; k < MW_FOREST; ++k)
        mw_kdFree(&w->forest[k]);
    mw_indexFree(&w->index);
    mw_packedRepsFree(w->packed);
    w->packed = NULL;
    mw_deallocate(w->dense);
    w->dense = NULL;
}

static void mw_report(meshweld_Info* info, const meshweld_Welder* w)
{
    if (info) {
        info->unique_count = w->reps.count;
        info->method = w->method;
    }
}

/* Checks a batch before anything changes: sizes, finiteness, the article's grids' range (GRID
 * checks the points as it reads them). */
static int mw_checkBatch(meshweld_Welder* w, const unsigned int* remap, const float* points, size_t count,
                         size_t stride, meshweld_Info* info)
{
    if (count == 0)
        return meshweld_Ok;
    if (!remap)
        return meshweld_ErrorNull;
    int error = mw_checkBuffer(points, count, stride, w->dim, MW_NONE - w->fed);
    if (error || (w->method == meshweld_MethodGrid && w->radius > 0))
        return error; /* GRID checks the points it has not seen before as it welds them */

    /* one branch-free pass: x - x summed stays 0 unless some coordinate is NaN or infinite, and
     * for the grids the bounding box (their range, and the flat array of one-shot welds) */
    int dim = w->dim, grid = mw_isArticleGrid(w->method) && w->radius > 0; /* radius 0: the exact pass is all */
    float lo[3] = {points[0], points[1], dim == 3 ? points[2] : 0.0f}, hi[3] = {lo[0], lo[1], lo[2]};
    float bad = 0.0f;
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        float x = p[0], y = p[1], z = dim == 3 ? p[2] : 0.0f;
        bad += (x - x) + (y - y) + (z - z);
        if (grid) {
            lo[0] = x < lo[0] ? x : lo[0], hi[0] = x > hi[0] ? x : hi[0];
            lo[1] = y < lo[1] ? y : lo[1], hi[1] = y > hi[1] ? y : hi[1];
            lo[2] = z < lo[2] ? z : lo[2], hi[2] = z > hi[2] ? z : hi[2];
        }
    }
    double extent = 0.0;
    for (int a = 0; a < 3; ++a) {
        w->low[a] = (double)lo[a] * w->scale;
        w->high[a] = (double)hi[a] * w->scale;
        extent = fmax(extent, fmax(fabs(w->low[a]), fabs(w->high[a])));
    }
    double limit = grid ? mw_gridLimit(w->method, w->radius) : 0.0;
    if (bad == 0.0f && !(grid && extent >= limit)) {
        if (grid && extent >= MW_NEAR_CELLS)
            w->far = 1; /* cell keys beyond int32 from now on (kept if the batch fails: only slower) */
        return meshweld_Ok;
    }

    /* something is wrong: find the first offending coordinate */
    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        for (int a = 0; a < dim; ++a) {
            error = !isfinite(p[a]) ? meshweld_ErrorNonFinite
                    : grid && bad == 0.0f && fabs((double)p[a] * w->scale) >= limit ? meshweld_ErrorRange
                                                                                          : meshweld_Ok;
            if (error) {
                if (info)
                    info->error_point = i, info->error_axis = a;
                return error;
            }
        }
    }
    return meshweld_Ok; /* not reached */
}

meshweld_Welder* meshweld_welderCreate(const meshweld_Options* options, int* error)
{
    meshweld_Welder probe;
    int e = mw_init(&probe, options);
    meshweld_Welder* w = NULL;
    if (!e) {
        w = (meshweld_Welder*)mw_allocate(1, sizeof(meshweld_Welder));
        if (w)
            *w = probe;
        else
            e = meshweld_ErrorMemory;
    }
    if (error)
        *error = e;
    return w;
}

int meshweld_welderAdd(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride,
                       meshweld_Info* info)
{
    if (!w)
        return meshweld_ErrorNull;
    int error = mw_checkBatch(w, remap, points, count, stride, info);
    if (error || count == 0) {
        mw_report(info, w);
        return error;
    }

    int switched = 0;
    /* what GRID's batch records of the data before it can fail (mw_addData): restored on error,
     * so that a failed batch does not steer the welder's later cells or its leaving for KDTREE */
    double largest = w->largest, spacing = w->spacing;
    if (w->method == meshweld_MethodGrid && w->radius > 0) {
        /* GRID leaves for the kd-tree, for good (the same result), when a coordinate lies so far
         * out that the cells it would search, wide enough to take it, would hold 64 of the data's
         * cells each, or a welder's index has met crowds in cells it could not halve
         * (mw_indexSize): its search would walk crowds in every cell, point by point. The one place
         * where a method is left. A one-shot GRID weld (not AUTO) first lets its engine try those
         * cells, and leaves once the engine has not run */
        error = mw_addData(w, remap, points, count, stride, w->oneshot && !w->automatic, info);
        if (error != MW_COARSE)
            goto done;
        mw_setMethod(w, meshweld_MethodKdtree);
        switched = 1;
        if ((error = mw_checkBatch(w, remap, points, count, stride, info)) != meshweld_Ok)
            goto done;
    }
    if (mw_isArticleGrid(w->method) && w->radius > 0)
        error = mw_addGrid(w, remap, points, count, stride);
    else if (w->method == meshweld_MethodKdtree && w->radius > 0)
        error = mw_addKdtree(w, remap, points, count, stride);
    else
        error = mw_addNaive(w, remap, points, count, stride); /* and every method at radius 0 */
done:
    if (!error) {
        w->fed += count;
    } else {
        w->largest = largest, w->spacing = spacing; /* a failed batch leaves the welder as it was */
        if (switched)
            mw_setMethod(w, meshweld_MethodGrid);
    }
    mw_report(info, w);
    return error;
}

size_t meshweld_welderCount(const meshweld_Welder* w)
{
    return w ? w->reps.count : 0;
}

int meshweld_welderMethod(const meshweld_Welder* w)
{
    return w ? w->method : meshweld_ErrorNull;
}

void meshweld_welderPositions(const meshweld_Welder* w, float* destination)
{
    if (!w || !destination)
        return;
    for (size_t i = 0; i < w->reps.count; ++i)
        for (int a = 0; a < w->dim; ++a)
            destination[i * w->dim + a] = w->reps.xyz[i * 3 + a];
}

void meshweld_welderDestroy(meshweld_Welder* w)
{
    if (!w)
        return;
    mw_release(w);
    mw_deallocate(w);
}

int meshweld_weld(unsigned int* remap, const float* points, size_t count, size_t stride,
                  const meshweld_Options* options, meshweld_Info* info)
{
    meshweld_Welder w;
    int error = mw_init(&w, options);
    if (error)
        return error;
    w.oneshot = 1;
    w.countonly = 1;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    mw_release(&w);
    return error;
}

/* meshweld_weldKept and meshweld_weldFirst: the weld, with the outputs' positions (kept) and first
 * inputs (first) where they are not NULL; from the weld itself when its engine wrote them, else
 * from the representatives and the remap. required is the one of them the caller must give. */
static int mw_weldOutputs(unsigned int* remap, float* kept, unsigned int* first, const void* required,
                          const float* points, size_t count, size_t stride, const meshweld_Options* options,
                          meshweld_Info* info)
{
    meshweld_Welder w;
    int error = mw_init(&w, options);
    if (error)
        return error;
    if (count > 0 && !required)
        return meshweld_ErrorNull;
    w.oneshot = 1;
    w.countonly = kept == NULL;
    w.kept = kept;
    w.first = first;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    if (!error && !w.outputs_written) {
        if (kept)
            meshweld_welderPositions(&w, kept);
        if (first)
            error = meshweld_firstOfEach(first, w.reps.count, remap, count);
    }
    mw_release(&w);
    return error;
}

int meshweld_weldKept(unsigned int* remap, float* kept, const float* points, size_t count, size_t stride,
                      const meshweld_Options* options, meshweld_Info* info)
{
    return mw_weldOutputs(remap, kept, NULL, kept, points, count, stride, options, info);
}

int meshweld_weldFirst(unsigned int* remap, unsigned int* first, float* kept, const float* points, size_t count,
                       size_t stride, const meshweld_Options* options, meshweld_Info* info)
{
    return mw_weldOutputs(remap, kept, first, first, points, count, stride, options, info);
}

int meshweld_trace(unsigned int* remap, const float* points, size_t count, size_t stride,
                   const meshweld_Options* options, meshweld_Trace* trace, meshweld_Info* info)
{
    if (!trace || !options)
        return meshweld_ErrorNull;
    meshweld_Options grid = *options;
    grid.method = meshweld_MethodGrid;
    if (!(options->radius > 0.0f))
        return meshweld_ErrorRadius;
    meshweld_Welder w;
    int error = mw_init(&w, &grid);
    if (error)
        return error;
    trace->nodes = trace->cells = trace->tests = trace->pair_count = 0;
    trace->cell_size = 0;
    trace->engine = 0;
    trace->steps = trace->crowded = 0;
    w.oneshot = 1;
    w.countonly = 1;
    w.trace = trace;
    error = meshweld_welderAdd(&w, remap, points, count, stride, info);
    mw_release(&w);
    return error;
}
