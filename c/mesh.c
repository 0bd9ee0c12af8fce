/* The mesh layer: index buffers follow the welded vertices. */
#include "internal.h"

int meshweld_remapTriangles(unsigned int* destination, size_t* written, size_t* degenerate, size_t* duplicates,
                            const unsigned int* indices, size_t index_count, const unsigned int* remap,
                            size_t vertex_count, int flags, meshweld_Info* info)
{
    if (written)
        *written = 0;
    if (degenerate)
        *degenerate = 0;
    if (duplicates)
        *duplicates = 0;
    if (index_count % 3 != 0)
        return meshweld_ErrorIndexCount;
    if (index_count == 0)
        return meshweld_Ok;
    if (!destination || !remap)
        return meshweld_ErrorNull;
    if (!indices && index_count > vertex_count) {
        /* the soup's index vertex_count is its first one out of range, at position vertex_count */
        if (info)
            info->error_point = vertex_count;
        return meshweld_ErrorIndex;
    }
    for (size_t k = 0; indices && k < index_count; ++k)
        if (indices[k] >= vertex_count) {
            if (info)
                info->error_point = k;
            return meshweld_ErrorIndex;
        }

    mw_Table seen = {0};
    if ((flags & meshweld_RemoveDuplicates) && mw_tableReserve(&seen, index_count / 3))
        return meshweld_ErrorMemory;

    size_t out = 0, dropped_degenerate = 0, dropped_duplicates = 0;
    for (size_t t = 0; t < index_count; t += 3) {
        uint32_t c[3];
        for (int i = 0; i < 3; ++i)
            c[i] = remap[indices ? (size_t)indices[t + i] : t + i]; /* (the soup's index in size_t: index_count may pass 2^32) */
        if (!(flags & meshweld_KeepDegenerate) && (c[0] == c[1] || c[1] == c[2] || c[0] == c[2])) {
            dropped_degenerate++;
            continue;
        }
        if (flags & meshweld_RemoveDuplicates) {
            /* the lexicographically smallest rotation keeps the winding and names every rotation
             * of a triangle alike, degenerate ones (two equal corners) included */
            int s = 0;
            for (int k = 1; k < 3; ++k) {
                uint32_t x0 = c[k], x1 = c[(k + 1) % 3], x2 = c[(k + 2) % 3];
                uint32_t y0 = c[s], y1 = c[(s + 1) % 3], y2 = c[(s + 2) % 3];
                if (x0 < y0 || (x0 == y0 && (x1 < y1 || (x1 == y1 && x2 < y2))))
                    s = k;
            }
            uint32_t a = c[s], b = c[(s + 1) % 3], d = c[(s + 2) % 3];
            mw_Entry* e = mw_tableFind(&seen, a, b, d);
            if (e->value != MW_NONE) {
                dropped_duplicates++;
                continue;
            }
            e->key[0] = a, e->key[1] = b, e->key[2] = d, e->value = 0;
            seen.count++;
        }
        /* out <= t: writing in place never overwrites an index still to be read */
        destination[out++] = c[0];
        destination[out++] = c[1];
        destination[out++] = c[2];
    }
    mw_tableFree(&seen);
    if (written)
        *written = out;
    if (degenerate)
        *degenerate = dropped_degenerate;
    if (duplicates)
        *duplicates = dropped_duplicates;
    return meshweld_Ok;
}
