/* bw_kernels.h - the bandwidth kernels of mem-bandwidth and mem-contention
 * (Cachebench's read, write, read-modify-write, memset, memcpy; STREAM's copy
 * and triad; non-temporal-store variants where the compiler has them).
 *
 * A working set of W bytes is split into the mode's arrays (1 for read,
 * write, rmw, memset; 2 for memcpy, copy; 3 for triad), each n elements of 8
 * bytes, n a multiple of 8 (whole cache lines). Bytes counted per call (the
 * "application bytes": what the program asks to read plus write):
 *   read 8n, write 8n, rmw 16n, memset 8n, memcpy 16n, copy 16n, triad 24n.
 * Write-allocate adds 8n for every array written with ordinary stores (the
 * line is read before it is overwritten): write, memset, memcpy, copy, triad;
 * not rmw (the line was just read) and not the -nt modes (non-temporal stores
 * bypass the caches). glibc's memset/memcpy may switch to non-temporal stores
 * for large sizes themselves, so for them the extra is an upper bound. */
#ifndef HPC_BW_KERNELS_H
#define HPC_BW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    BW_READ, BW_WRITE, BW_RMW, BW_MEMSET, BW_MEMCPY, BW_COPY, BW_TRIAD,
    BW_WRITE_NT, BW_COPY_NT, BW_TRIAD_NT, BW_NMODES
} bw_mode;
/* The names in bw_mode order, as an option's choices. */
#define BW_MODE_NAMES \
    "read|write|rmw|memset|memcpy|copy|triad|write-nt|copy-nt|triad-nt"

typedef struct {
    const char *name;
    int arrays;           /* arrays the working set is split into */
    int words_counted;    /* 8-byte words counted per element and call */
    int words_allocate;   /* extra words per element read by write-allocate */
    const char *rule;     /* the byte-counting rule, for the record */
} bw_mode_info;

extern const bw_mode_info bw_modes[BW_NMODES];

/* 1 when the non-temporal variants were compiled in (x86 with SSE2). */
int bw_have_nt(void);
/* Mode by name, or -1. */
int bw_mode_by_name(const char *name);

/* One thread's buffer for one working set: the arrays inside base. */
typedef struct {
    bw_mode mode;
    size_t n;             /* elements per array */
    void *a, *b, *c;      /* a: read or written; b, c: sources (uint64_t or double) */
    uint64_t calls;       /* kernel calls since bw_prepare */
    uint64_t sum;         /* read: last sum */
    uint64_t expect_sum;  /* read: the sum a correct pass gives */
} bw_buf;

/* Bytes of buffer needed for working set ws in any mode (arrays + padding). */
size_t bw_buffer_bytes(size_t ws);
/* Lay the mode's arrays out in base, fill them with the check pattern (seed). */
void bw_prepare(bw_buf *w, bw_mode mode, char *base, size_t ws, uint64_t seed);
/* Working-set bytes the arrays actually occupy (n rounded to whole lines). */
size_t bw_ws_bytes(const bw_buf *w);
/* Run the kernel 'reps' times. */
void bw_run(bw_buf *w, long reps);
/* Damage the destination (for --inject corrupt). */
void bw_corrupt(bw_buf *w);
/* Verify the data after bw_run; NULL if right, else what is wrong (index in *where). */
const char *bw_check(bw_buf *w, size_t *where);

#endif
