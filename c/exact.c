/* The exact-duplicate pass: bitwise-identical positions (-0 folded onto +0) collapse before any
 * method sees them, by one probe per point into a hash table of the position bits. Every new
 * distinct position of a batch becomes a node, numbered in order of first appearance; a position
 * seen in an earlier batch takes that batch's output at once.
 *
 * Identical points get the same answer from the greedy whatever the method (later
 * representatives are never earlier, and the loose store's answer for a position is decided when
 * the position is first met), so welding the nodes alone and copying the answers is the same
 * weld. This is what makes guarantee 3 hold for the loose store (the article's loop lets a
 * duplicate find a representative stored after its twin was welded), and what makes triangle
 * soups cheap. */
#include "internal.h"

#include <math.h>

#define MW_PROBE 4096 /* points after which a one-shot pass decides whether the table pays */

void mw_exactForget(mw_Table* exact, const float* points, size_t stride, int dim, const mw_Distinct* d)
{
    if (!exact->entries)
        return;
    for (size_t j = 0; j < d->nodes; ++j) {
        uint32_t key[3];
        mw_exactKey(mw_point(points, stride, d->node_point[j]), dim, key);
        mw_Entry* e = mw_tableFind(exact, key[0], key[1], key[2]);
        if (e->value != MW_NONE)
            mw_tableErase(exact, e);
    }
}

int mw_exactPass(mw_Table* exact, int oneshot, unsigned int* remap, const float* points, size_t count, size_t stride,
                 int dim, mw_Distinct* d, meshweld_Info* info)
{
    int cache = 1;
    size_t looks = 0, hits = 0;
    uint32_t placeholder = MW_NONE - 1 - (uint32_t)count; /* values above it are this batch's nodes */
    float extent = 0.0f;
    d->nodes = 0;
    if (mw_tableReserve(exact, exact->count + (oneshot ? count / 4 : count)))
        return meshweld_ErrorMemory;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        float x = src[0], y = src[1], z = dim == 3 ? src[2] : 0.0f;
        if ((x - x) + (y - y) + (z - z) != 0.0f) { /* NaN or infinite */
            if (info)
                info->error_point = i, info->error_axis = isfinite(x) ? (isfinite(y) ? 2 : 1) : 0;
            mw_exactForget(exact, points, stride, dim, d);
            return meshweld_ErrorNonFinite;
        }
        float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
        extent = ax > extent ? ax : extent;
        extent = ay > extent ? ay : extent;
        extent = az > extent ? az : extent;
        if (cache) {
            if (exact->count + 1 > (exact->mask + 1) / 2 && mw_tableReserve(exact, exact->count * 2 + 1)) {
                mw_exactForget(exact, points, stride, dim, d);
                return meshweld_ErrorMemory;
            }
            uint32_t key[3];
            mw_exactKey(src, dim, key);
            mw_Entry* e = mw_tableFind(exact, key[0], key[1], key[2]);
            looks++;
            if (e->value != MW_NONE) {
                hits++;
                if (e->value > placeholder) {
                    remap[i] = MW_NONE - 1 - e->value;
                } else {
                    remap[i] = e->value;
                    d->settled[i >> 3] |= (unsigned char)(1u << (i & 7));
                }
            } else {
                memcpy(e->key, key, sizeof(key));
                e->value = MW_NONE - 1 - (uint32_t)d->nodes;
                exact->count++;
                d->node_point[d->nodes] = (uint32_t)i;
                remap[i] = (uint32_t)d->nodes++;
            }
            if (oneshot && looks == MW_PROBE && hits * 8 < looks) {
                cache = 0; /* few duplicates: the table costs more than it saves */
                mw_tableFree(exact);
            }
        } else {
            d->node_point[d->nodes] = (uint32_t)i;
            remap[i] = (uint32_t)d->nodes++;
        }
    }
    d->extent = extent;
    return meshweld_Ok;
}

void mw_exactSettle(mw_Table* exact, unsigned int* remap, const float* points, size_t count, size_t stride, int dim,
                    const mw_Distinct* d, const uint32_t* node_out)
{
    for (size_t j = 0; exact && exact->entries && j < d->nodes; ++j) {
        uint32_t key[3];
        mw_exactKey(mw_point(points, stride, d->node_point[j]), dim, key);
        mw_tableFind(exact, key[0], key[1], key[2])->value = node_out[j];
    }
    for (size_t i = 0; i < count; ++i)
        if (!d->settled || !(d->settled[i >> 3] & (1u << (i & 7))))
            remap[i] = node_out[remap[i]];
}

mw_Entry* mw_exactSlot(const mw_Table* exact, const float* src, int dim, uint32_t key[3])
{
    mw_exactKey(src, dim, key);
    return mw_tableFind(exact, key[0], key[1], key[2]);
}

void mw_exactInsert(mw_Table* exact, mw_Entry* slot, const uint32_t key[3], uint32_t value)
{
    memcpy(slot->key, key, 3 * sizeof(uint32_t));
    slot->value = value;
    exact->count++;
}
