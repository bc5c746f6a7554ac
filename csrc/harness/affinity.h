/* affinity.h - where a benchmark runs and where its memory lives: CPU binding,
 * NUMA home of a mapping, page size. Plain system calls (no libnuma/hwloc), so
 * the build needs nothing more than MPI.
 *
 *     if (!hpc_cpu_exists(cpu)) hpc_usage_error(...);   // before binding
 *     hpc_bind_cpu(cpu);
 *     hpc_pages got;
 *     char *buf = hpc_map(bytes, HPC_PAGES_THP, node, &got, why, sizeof why);
 */
#ifndef HPC_AFFINITY_H
#define HPC_AFFINITY_H

#include <stddef.h>

/* Online CPUs the calling thread may be bound to (from the affinity mask at
 * start and /sys/devices/system/cpu/online). */
int hpc_cpu_exists(int cpu);
/* Bind the calling thread to one CPU; 0 on success. */
int hpc_bind_cpu(int cpu);

/* Number of NUMA nodes (highest online node + 1; 1 without NUMA support). */
int hpc_numa_nodes(void);
/* Node 'node' is online and has memory. */
int hpc_numa_node_exists(int node);
/* NUMA node of the page holding addr (after it was touched), or -1. */
int hpc_numa_node_of(const void *addr);
/* NUMA node of a CPU (the node whose cpulist holds it; 0 without NUMA support), or -1. */
int hpc_cpu_node(int cpu);
/* The firmware's distance between two nodes (/sys/devices/system/node/nodeN/distance,
 * ACPI SLIT: 10 is local), or -1 when unknown. */
int hpc_numa_distance(int from, int to);
/* Share of a touched mapping's pages that live on 'node', from up to 4096 pages evenly
 * spread over it (a mapping larger than a node's memory spills), or -1 when unknown. */
double hpc_numa_share_on(const void *p, size_t bytes, int node);

typedef enum {
    HPC_PAGES_BASE,  /* base pages: MADV_NOHUGEPAGE, even if THP is "always" */
    HPC_PAGES_THP,   /* transparent huge pages: MADV_HUGEPAGE */
    HPC_PAGES_HUGE   /* explicit 2 MiB hugetlb pages (MAP_HUGETLB) */
} hpc_pages;

const char *hpc_pages_name(hpc_pages p);

/* Map 'bytes' of anonymous memory with the page kind asked for, bound to NUMA
 * node 'node' (-1: first touch decides), and touch every page (the page
 * faults happen here, never while timing). When the page kind is not
 * available, falls back to base pages, sets *got accordingly and writes the
 * reason into why. Returns NULL (and why) only when no memory can be mapped.
 * Release with hpc_unmap(p, bytes, *got). */
void *hpc_map(size_t bytes, hpc_pages want, int node, hpc_pages *got, char *why, size_t whylen);
void hpc_unmap(void *p, size_t bytes, hpc_pages got);

/* Bytes of the mapping backed by huge pages (AnonHugePages of /proc/self/smaps
 * for the range), or -1 if unknown: tells whether THP was actually granted. */
long long hpc_huge_bytes(const void *p, size_t bytes);

#endif
