/* The representatives: the outputs made so far, their positions (the kept inputs), and the rings
 * that cell stores keep them in. Every method stores its representatives here, and every search
 * of the representatives finds the earliest that joins (mw_repsJoins) with the ring and run
 * walks of internal.h (inline there: they are the inner loops). */
#include "internal.h"

int mw_repsReserve(mw_Reps* reps, size_t count)
{
    size_t total = reps->count + count;
    if (total <= reps->capacity)
        return meshweld_Ok;
    size_t capacity = reps->capacity * 2 > total ? reps->capacity * 2 : total;
    float* xyz = (float*)mw_allocate(capacity, 3 * sizeof(float));
    uint32_t* next = xyz ? (uint32_t*)mw_allocate(capacity, sizeof(uint32_t)) : NULL;
    if (!xyz || !next) {
        mw_deallocate(xyz);
        return meshweld_ErrorMemory;
    }
    if (reps->count) {
        memcpy(xyz, reps->xyz, reps->count * 3 * sizeof(float));
        memcpy(next, reps->next, reps->count * sizeof(uint32_t));
    }
    mw_repsFree(reps);
    reps->xyz = xyz;
    reps->next = next;
    reps->capacity = capacity;
    return meshweld_Ok;
}

uint32_t mw_repsAdd(mw_Reps* reps, const double p[3])
{
    uint32_t rep = (uint32_t)reps->count++;
    float* q = &reps->xyz[rep * 3];
    q[0] = (float)p[0];
    q[1] = (float)p[1];
    q[2] = (float)p[2];
    return rep;
}

void mw_repsFree(mw_Reps* reps)
{
    mw_deallocate(reps->xyz);
    mw_deallocate(reps->next);
    reps->xyz = NULL;
    reps->next = NULL;
    reps->capacity = 0;
}

void mw_ringUnlink(mw_Reps* reps, uint32_t* slot)
{
    uint32_t newest = *slot, oldest = reps->next[newest];
    if (oldest == newest) {
        *slot = MW_NONE;
        return;
    }
    uint32_t r = oldest;
    while (reps->next[r] != newest)
        r = reps->next[r];
    reps->next[r] = oldest;
    *slot = r;
}

/* The match's slow path (mw_match, internal.h), for non-finite attribute values. */
int mw_matchBits(const meshweld_Attribute* t, size_t a, size_t b)
{
    const float* x = mw_point(t->data, t->stride, a);
    const float* y = mw_point(t->data, t->stride, b);
    for (int j = 0; j < t->size; ++j)
        if (!(x[j] == y[j]) && memcmp(&x[j], &y[j], sizeof(float)) != 0)
            return 0;
    return 1;
}
