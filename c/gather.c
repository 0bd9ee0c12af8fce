/* meshweld_gather: the output positions of a weld from its remap, the kept first inputs or the
 * centroids of the clusters; meshweld_firstOfEach: the first input of each output. */
#include "internal.h"

#include <limits.h>

int meshweld_gather(float* destination, size_t unique_count, const unsigned int* remap, const float* points,
                    size_t count, size_t stride, int dim, int centroid)
{
    if (dim != 2 && dim != 3)
        return meshweld_ErrorDim;
    if (count == 0)
        return meshweld_Ok;
    if (!destination || !remap || !points)
        return meshweld_ErrorNull;
    if (mw_badStride(stride, (size_t)dim))
        return meshweld_ErrorStride;
    if (count > SIZE_MAX / stride || unique_count > SIZE_MAX / ((size_t)(dim + 1) * sizeof(double)))
        return meshweld_ErrorCount;
    for (size_t i = 0; i < count; ++i)
        if (remap[i] >= unique_count)
            return meshweld_ErrorIndex;

    size_t cells = centroid ? unique_count * (size_t)(dim + 1) : (unique_count + 7) / 8;
    double* sum = NULL;
    unsigned char* seen = NULL;
    if (centroid)
        sum = (double*)mw_allocate(cells, sizeof(double));
    else
        seen = (unsigned char*)mw_allocate(cells, 1);
    if (!sum && !seen)
        return meshweld_ErrorMemory;
    if (sum)
        memset(sum, 0, cells * sizeof(double));
    else
        memset(seen, 0, cells);

    for (size_t i = 0; i < count; ++i) {
        const float* p = mw_point(points, stride, i);
        size_t k = remap[i];
        if (sum) {
            for (int a = 0; a < dim; ++a)
                sum[k * (dim + 1) + a] += p[a];
            sum[k * (dim + 1) + dim] += 1.0;
        } else if (!(seen[k >> 3] & (1u << (k & 7)))) {
            seen[k >> 3] |= (unsigned char)(1u << (k & 7));
            for (int a = 0; a < dim; ++a)
                destination[k * dim + a] = p[a];
        }
    }
    if (sum)
        for (size_t k = 0; k < unique_count; ++k) {
            double n = sum[k * (dim + 1) + dim];
            for (int a = 0; a < dim; ++a)
                destination[k * dim + a] = n > 0 ? (float)(sum[k * (dim + 1) + a] / n) : 0.0f;
        }
    mw_deallocate(sum);
    mw_deallocate(seen);
    return meshweld_Ok;
}

int meshweld_firstOfEach(unsigned int* first, size_t unique_count, const unsigned int* remap, size_t count)
{
    if (count == 0 && unique_count == 0)
        return meshweld_Ok;
    if (!first || (count > 0 && !remap))
        return meshweld_ErrorNull;
    if (count > UINT_MAX) /* an index must fit, below the UINT_MAX of an output without one */
        return meshweld_ErrorCount;
    for (size_t k = 0; k < unique_count; ++k)
        first[k] = UINT_MAX;
    /* from the last input back, so that the first one writes last (first is unspecified when a
     * remap value is out of range) */
    for (size_t i = count; i > 0; --i) {
        if (remap[i - 1] >= unique_count)
            return meshweld_ErrorIndex;
        first[remap[i - 1]] = (unsigned int)(i - 1);
    }
    return meshweld_Ok;
}
