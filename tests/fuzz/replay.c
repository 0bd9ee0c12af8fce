/* A main for the fuzz targets without libFuzzer: runs each file given, and each file of each
 * folder given (in name order), through LLVMFuzzerTestOneInput once. With any compiler, this is
 * how the seed corpus runs as a ctest test (and under Valgrind in CI), and how a crash input
 * found by the fuzzer is replayed in a debugger:
 *   fuzz_replay_weld tests/fuzz/corpus/weld build-fuzz/artifacts/weld-crash-... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static size_t replayed;

static int replay_file(const char* path)
{
    FILE* f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t* data = (uint8_t*)malloc(cap);
    for (size_t got; data && (got = fread(data + size, 1, cap - size, f)) > 0;) {
        size += got;
        if (size == cap) {
            uint8_t* bigger = (uint8_t*)realloc(data, cap *= 2);
            if (!bigger)
                free(data);
            data = bigger;
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "out of memory reading %s\n", path);
        return 1;
    }
    /* an exact-size copy, so that a read past the input's end shows under a sanitizer */
    uint8_t* exact = (uint8_t*)malloc(size ? size : 1);
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    replayed++;
    return 0;
}

static int by_name(const void* a, const void* b)
{
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static int replay(const char* path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "cannot find %s\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR* dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "cannot list %s\n", path);
        return 1;
    }
    size_t count = 0, cap = 64;
    char** names = (char**)malloc(cap * sizeof(char*));
    for (struct dirent* entry; (entry = readdir(dir)) != NULL;) {
        if (entry->d_name[0] == '.')
            continue;
        if (count == cap)
            names = (char**)realloc(names, (cap *= 2) * sizeof(char*));
        size_t length = strlen(path) + strlen(entry->d_name) + 2;
        names[count] = (char*)malloc(length);
        snprintf(names[count], length, "%s/%s", path, entry->d_name);
        count++;
    }
    closedir(dir);
    qsort(names, count, sizeof(char*), by_name);
    int status = 0;
    for (size_t i = 0; i < count; ++i) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            status |= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    return status;
}

int main(int argc, char** argv)
{
    int status = 0;
    for (int i = 1; i < argc; ++i)
        status |= replay(argv[i]);
    printf("replayed %zu inputs through %s\n", replayed, argc > 0 ? argv[0] : "the target");
    if (replayed == 0) {
        fprintf(stderr, "no input replayed\n");
        return 1;
    }
    return status;
}
