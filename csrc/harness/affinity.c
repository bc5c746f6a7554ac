/* affinity.c - CPU binding, NUMA placement and page size with plain system calls. */
#include "affinity.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* From <numaif.h> / <linux/mempolicy.h>, written out so libnuma-dev is not needed. */
#define HPC_MPOL_BIND 2
#define HPC_MPOL_F_NODE (1 << 0)
#define HPC_MPOL_F_ADDR (1 << 1)
#define HPC_MPOL_MF_STRICT (1 << 0)
#define HPC_MPOL_MF_MOVE (1 << 1)
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define HUGE_2M ((size_t)2 << 20)

static int in_list(const char *path, int id)
{
    /* sysfs lists like "0-3,8,10-11" */
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    int found = 0;
    if (fgets(buf, sizeof buf, f)) {
        for (char *tok = strtok(buf, ",\n"); tok && !found; tok = strtok(NULL, ",\n")) {
            int lo, hi;
            int k = sscanf(tok, "%d-%d", &lo, &hi);
            if (k == 1)
                hi = lo;
            if (k >= 1 && id >= lo && id <= hi)
                found = 1;
        }
    }
    fclose(f);
    return found;
}

int hpc_cpu_exists(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return 0;
    int online = in_list("/sys/devices/system/cpu/online", cpu);
    if (online == 0)
        return 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return online > 0;
    return CPU_ISSET(cpu, &set);
}

int hpc_bind_cpu(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int hpc_numa_nodes(void)
{
    int n = 0;
    for (int node = 0; node < 4096; node++)
        if (in_list("/sys/devices/system/node/online", node) == 1)
            n = node + 1;
    return n > 0 ? n : 1;
}

int hpc_numa_node_exists(int node)
{
    if (node < 0 || node >= 4096)
        return 0;
    int r = in_list("/sys/devices/system/node/has_memory", node);
    if (r < 0)  /* no NUMA support in the kernel: one node, 0 */
        return node == 0;
    return r;
}

int hpc_numa_node_of(const void *addr)
{
    int node = -1;
    if (syscall(SYS_get_mempolicy, &node, NULL, 0UL, addr, HPC_MPOL_F_NODE | HPC_MPOL_F_ADDR) != 0)
        return -1;
    return node;
}

int hpc_cpu_node(int cpu)
{
    char path[96];
    for (int node = 0, n = hpc_numa_nodes(); node < n; node++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
        int r = in_list(path, cpu);
        if (r < 0 && node == 0 && n == 1)  /* no NUMA support in the kernel: one node, 0 */
            return 0;
        if (r == 1)
            return node;
    }
    return -1;
}

int hpc_numa_distance(int from, int to)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/distance", from);
    FILE *f = from >= 0 && to >= 0 ? fopen(path, "r") : NULL;
    int d = -1, k = 0;
    while (f && fscanf(f, "%d", &d) == 1 && k < to)
        k++;
    if (f)
        fclose(f);
    return k == to ? d : -1;
}

double hpc_numa_share_on(const void *p, size_t bytes, int node)
{
    const size_t page = 4096, most = 4096;
    size_t pages = (bytes + page - 1) / page, k = pages < most ? pages : most, on = 0;
    for (size_t i = 0; i < k; i++) {
        int at = hpc_numa_node_of((const char *)p + (pages - 1) * i / (k > 1 ? k - 1 : 1) * page);
        if (at < 0)
            return -1;
        on += at == node;
    }
    return k ? (double)on / (double)k : -1;
}

const char *hpc_pages_name(hpc_pages p)
{
    return p == HPC_PAGES_HUGE ? "huge-2M" : p == HPC_PAGES_THP ? "thp" : "base";
}

static size_t map_len(size_t bytes, hpc_pages got)
{
    return got == HPC_PAGES_HUGE ? (bytes + HUGE_2M - 1) / HUGE_2M * HUGE_2M : bytes;
}

void *hpc_map(size_t bytes, hpc_pages want, int node, hpc_pages *got, char *why, size_t whylen)
{
    why[0] = '\0';
    if (bytes == 0)
        bytes = 1;
    void *p = MAP_FAILED;
    *got = want;
    if (want == HPC_PAGES_HUGE) {
        p = mmap(NULL, map_len(bytes, HPC_PAGES_HUGE), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT), -1, 0);
        if (p == MAP_FAILED) {
            snprintf(why, whylen, "explicit 2 MiB huge pages unavailable (mmap MAP_HUGETLB: %s; "
                     "see /proc/sys/vm/nr_hugepages): using base pages", strerror(errno));
            *got = HPC_PAGES_BASE;
        }
    }
    if (p == MAP_FAILED) {
        /* THP wants 2 MiB-aligned ranges: map 2 MiB more and align. */
        size_t len = bytes + (*got == HPC_PAGES_THP ? HUGE_2M : 0);
        char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) {
            snprintf(why, whylen, "cannot map %zu bytes: %s", bytes, strerror(errno));
            return NULL;
        }
        if (*got == HPC_PAGES_THP) {
            char *al = (char *)(((uintptr_t)raw + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
            if (al > raw)
                munmap(raw, (size_t)(al - raw));
            size_t tail = (size_t)(raw + len - (al + bytes));
            if (tail)
                munmap(al + bytes, tail);
            raw = al;
            if (madvise(raw, bytes, MADV_HUGEPAGE) != 0) {
                snprintf(why, whylen, "transparent huge pages unavailable (madvise "
                         "MADV_HUGEPAGE: %s): using base pages", strerror(errno));
                *got = HPC_PAGES_BASE;
            }
        }
        if (*got == HPC_PAGES_BASE)
            madvise(raw, bytes, MADV_NOHUGEPAGE);  /* base pages even when THP is "always" */
        p = raw;
    }
    if (node >= 0) {
        unsigned long mask[4096 / (8 * sizeof(unsigned long))] = {0};
        mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
        if (syscall(SYS_mbind, p, map_len(bytes, *got), HPC_MPOL_BIND, mask, 4096UL,
                    HPC_MPOL_MF_STRICT | HPC_MPOL_MF_MOVE) != 0 &&
            !(errno == ENOSYS && node == 0)) {
            snprintf(why, whylen, "cannot bind memory to NUMA node %d: %s", node, strerror(errno));
            hpc_unmap(p, bytes, *got);
            return NULL;
        }
    }
    memset(p, 0, bytes);  /* first touch: the pages are placed (and faulted in) here */
    return p;
}

void hpc_unmap(void *p, size_t bytes, hpc_pages got)
{
    if (p)
        munmap(p, map_len(bytes ? bytes : 1, got));
}

long long hpc_huge_bytes(const void *p, size_t bytes)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    char line[512];
    int inside = 0;
    long long total = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        long long kb;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = a < hi && b > lo;
        else if (inside && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
            total += kb * 1024;
    }
    fclose(f);
    return total;
}
