/* sysinfo.h - facts about the machine that memory benchmarks need. */
#ifndef HPC_SYSINFO_H
#define HPC_SYSINFO_H

/* MemAvailable from /proc/meminfo in bytes, or -1 if unknown. */
long long hpc_mem_available(void);

/* Size in bytes of the last-level data cache, or -1 if unknown. *source
 * says where it came from. sysfs is asked first: in some VMs glibc's
 * sysconf(_SC_LEVEL3_CACHE_SIZE) reports a wrong size. */
long long hpc_llc_bytes(const char **source);

/* Transparent huge page mode ("always", "madvise", "never" or "unknown"). */
const char *hpc_thp_mode(void);

#endif
