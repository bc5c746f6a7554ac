/* sysinfo.c - /proc and /sys lookups: free memory, cache size, THP. */
#include "sysinfo.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

long long hpc_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* Read a one-line sysfs file. */
static int read_line(const char *path, char *buf, int len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

long long hpc_llc_bytes(const char **source)
{
    /* The highest-level data or unified cache of CPU 0. */
    long long best = -1;
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[128], type[32], size[32], level[16];
        const char *dir = "/sys/devices/system/cpu/cpu0/cache";
        snprintf(path, sizeof path, "%s/index%d/type", dir, i);
        if (read_line(path, type, sizeof type))
            break;
        snprintf(path, sizeof path, "%s/index%d/level", dir, i);
        if (read_line(path, level, sizeof level))
            continue;
        snprintf(path, sizeof path, "%s/index%d/size", dir, i);
        if (read_line(path, size, sizeof size))
            continue;
        if (strcmp(type, "Instruction") == 0)
            continue;
        long long v = 0;
        char unit = 0;
        if (sscanf(size, "%lld%c", &v, &unit) < 1)
            continue;
        v *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
        int lv = 0;
        sscanf(level, "%d", &lv);
        if (lv > best_level) {
            best_level = lv;
            best = v;
        }
    }
    if (best > 0) {
        *source = "sysfs";
        return best;
    }
    long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (v <= 0)
        v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    *source = v > 0 ? "sysconf" : "unknown";
    return v > 0 ? v : -1;
}

const char *hpc_thp_mode(void)
{
    static char mode[32] = "unknown";
    char line[128];
    if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof line) == 0) {
        /* e.g. "always [madvise] never": the selected word is in brackets */
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b && b - a - 1 < (long)sizeof mode) {
            memcpy(mode, a + 1, (size_t)(b - a - 1));
            mode[b - a - 1] = '\0';
        }
    }
    return mode;
}
