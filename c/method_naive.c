/* NAIVE: each new position merges into the earliest representative within r, found by a scan of
 * them all (the rule itself, quadratic). At radius 0 every method comes here: only exact
 * duplicates merge, which the exact-duplicate slots alone decide. */
#include "internal.h"

/* The earliest representative within r, by a scan of them all, or a new one. */
static uint32_t mw_weldNaive(meshweld_Welder* w, const double p[3])
{
    mw_Query q = mw_query(p, w->dim, w->r2, NULL, 0);
    mw_runEarliest(&w->reps, 0, w->reps.count, &q);
    return q.best != MW_NONE ? q.best : mw_repsAdd(&w->reps, p);
}

int mw_addNaive(meshweld_Welder* w, unsigned int* remap, const float* points, size_t count, size_t stride)
{
    /* room for every point first, so that nothing fails once the welder changes */
    if (mw_repsReserve(&w->reps, count) || mw_tableReserve(&w->exact, w->exact.count + count))
        return meshweld_ErrorMemory;
    for (size_t i = 0; i < count; ++i) {
        const float* src = mw_point(points, stride, i);
        uint32_t key[3];
        mw_Entry* slot = mw_exactSlot(&w->exact, src, w->dim, key);
        if (slot->value == MW_NONE) {
            double p[3];
            mw_load(p, src, w->dim);
            mw_exactInsert(&w->exact, slot, key, w->radius == 0 ? mw_repsAdd(&w->reps, p) : mw_weldNaive(w, p));
        }
        remap[i] = slot->value;
    }
    return meshweld_Ok;
}
