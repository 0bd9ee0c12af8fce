/* The replaceable allocator, and the hash table every grid method and the duplicate pass use. */
#include "internal.h"

#include <stdlib.h>

static void* mw_defaultAllocate(void* user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void mw_defaultDeallocate(void* user, void* pointer)
{
    (void)user;
    free(pointer);
}

static void* (*mw_allocateHook)(void*, size_t) = mw_defaultAllocate;
static void (*mw_deallocateHook)(void*, void*) = mw_defaultDeallocate;
static void* mw_allocatorUser = NULL;

int meshweld_setAllocator(void* (*allocate)(void* user, size_t size),
                          void (*deallocate)(void* user, void* pointer), void* user)
{
    if ((allocate == NULL) != (deallocate == NULL))
        return meshweld_ErrorAllocator;
    mw_allocateHook = allocate ? allocate : mw_defaultAllocate;
    mw_deallocateHook = deallocate ? deallocate : mw_defaultDeallocate;
    mw_allocatorUser = allocate ? user : NULL;
    return meshweld_Ok;
}

void* mw_allocate(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    if (count * size == 0)
        return mw_allocateHook(mw_allocatorUser, 1);
    return mw_allocateHook(mw_allocatorUser, count * size);
}

void mw_deallocate(void* pointer)
{
    if (pointer)
        mw_deallocateHook(mw_allocatorUser, pointer);
}

int mw_tableReserve(mw_Table* table, size_t total)
{
    size_t capacity = 16;
    while (capacity / 2 < total) {
        if (capacity > SIZE_MAX / 2)
            return meshweld_ErrorMemory;
        capacity *= 2;
    }
    if (table->entries && capacity <= table->mask + 1)
        return meshweld_Ok;

    mw_Entry* entries = (mw_Entry*)mw_allocate(capacity, sizeof(mw_Entry));
    if (!entries)
        return meshweld_ErrorMemory;
    memset(entries, 0xff, capacity * sizeof(mw_Entry));

    mw_Table grown = {entries, capacity - 1, table->count};
    if (table->entries) {
        for (size_t i = 0; i <= table->mask; ++i) {
            const mw_Entry* e = &table->entries[i];
            if (e->value != MW_NONE)
                *mw_tableFind(&grown, e->key[0], e->key[1], e->key[2]) = *e;
        }
        mw_deallocate(table->entries);
    }
    *table = grown;
    return meshweld_Ok;
}

void mw_tableFree(mw_Table* table)
{
    mw_deallocate(table->entries);
    table->entries = NULL;
    table->mask = 0;
    table->count = 0;
}
