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

static uint64_t mw_seed = 0x2545f4914f6cdd1dull; /* meshweld_seedHashes */

void meshweld_seedHashes(unsigned int seed0, unsigned int seed1)
{
    mw_seed = ((uint64_t)seed1 << 32 | seed0) ^ 0x2545f4914f6cdd1dull;
}

/* splitmix64's step: a well mixed word from a counter */
static uint64_t mw_splitmix(uint64_t* state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void mw_saltDraw(uint64_t* factor, size_t count, const void* where)
{
    uint64_t state = mw_seed ^ (uint64_t)(uintptr_t)where;
    state ^= mw_splitmix(&state) ^ (uint64_t)(uintptr_t)&state;
    state ^= mw_splitmix(&state) ^ (uint64_t)(uintptr_t)&mw_seed;
    for (size_t i = 0; i < count; ++i)
        factor[i] = mw_splitmix(&state) | 1u;
}

static uint32_t mw_hashOf(const mw_Table* table, uint32_t a, uint32_t b, uint32_t c)
{
    return mw_keyHash(table, a, b, c);
}

int mw_tableReserve(mw_Table* table, size_t total)
{
    return mw_tableReserveWith(table, total, mw_hashOf);
}

int mw_tableReserveWith(mw_Table* table, size_t total, mw_HashFunction hash)
{
    if (table->entries && total <= (table->mask + 1) / 2)
        return meshweld_Ok;
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

    mw_Table grown = {entries, capacity - 1, table->count, {table->factor[0], table->factor[1], table->factor[2]}};
    if (!table->entries)
        mw_saltDraw(grown.factor, 3, entries);
    else {
        for (size_t i = 0; i <= table->mask; ++i) {
            const mw_Entry* e = &table->entries[i];
            if (e->value == MW_NONE)
                continue;
            /* each entry to the first empty slot of its probe run: entries are never merged, since
             * two may hold the same key (the article grids' cells 2^32 apart share their low words
             * once a welder is far, mw_cellFindFar) */
            size_t at = hash(&grown, e->key[0], e->key[1], e->key[2]) & grown.mask;
            while (entries[at].value != MW_NONE)
                at = (at + 1) & grown.mask;
            entries[at] = *e;
        }
        mw_deallocate(table->entries);
    }
    *table = grown;
    return meshweld_Ok;
}

void mw_tableErase(mw_Table* table, mw_Entry* entry)
{
    mw_tableEraseWith(table, entry, mw_hashOf);
}

void mw_tableEraseWith(mw_Table* table, mw_Entry* entry, mw_HashFunction hash)
{
    size_t i = (size_t)(entry - table->entries), j = i;
    for (;;) {
        table->entries[i].value = MW_NONE;
        for (;;) {
            j = (j + 1) & table->mask;
            const mw_Entry* e = &table->entries[j];
            if (e->value == MW_NONE) {
                table->count--;
                return;
            }
            /* e stays unless its home slot lies cyclically outside (i, j] */
            size_t home = hash(table, e->key[0], e->key[1], e->key[2]) & table->mask;
            int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays)
                break;
        }
        table->entries[i] = table->entries[j];
        i = j;
    }
}

void mw_tableFree(mw_Table* table)
{
    mw_deallocate(table->entries);
    table->entries = NULL;
    table->mask = 0;
    table->count = 0;
}

void* mw_arenaAllocate(mw_Arena* arena, size_t count, size_t size)
{
    if (arena->count == MW_ARENA_BLOCKS)
        return NULL;
    void* block = mw_allocate(count, size);
    if (block)
        arena->blocks[arena->count++] = block;
    return block;
}

void mw_arenaRelease(mw_Arena* arena, void* block)
{
    for (int i = arena->count - 1; i >= 0; --i)
        if (arena->blocks[i] == block) {
            mw_deallocate(block);
            arena->blocks[i] = arena->blocks[--arena->count];
            return;
        }
}

void mw_arenaUnwind(mw_Arena* arena, int mark)
{
    /* (mw_arenaRelease moves the last block into the freed slot: blocks older than mark stay below it) */
    while (arena->count > mark)
        mw_deallocate(arena->blocks[--arena->count]);
}

void mw_arenaFree(mw_Arena* arena)
{
    while (arena->count > 0)
        mw_deallocate(arena->blocks[--arena->count]);
}
