/* evh1_grid.h - EVH1's domain in pencils and the transposes between them.
 *
 * The global grid n[0] x n[1] x n[2] on a P x Q process grid (rank = q P + p). In layout
 * EV_LX a rank holds whole x lines: y in block p of P, z in block q of Q; in EV_LY whole y
 * lines (x in block p, z in block q); in EV_LZ whole z lines (x in block p, y in block q).
 * Every layout stores the 5 fields (density, x, y, z velocity, total specific energy) of its
 * box as [field][z][y][x], x fastest. A transpose X <-> Y exchanges blocks among the P ranks
 * of a row (same q), Y <-> Z among the Q ranks of a column (same p). What a rank sends to a
 * partner is the overlap of its box before with the partner's box after, which is also how
 * the counts, displacements and datatypes are built: one rule for every transpose.
 *
 * Variants: EV_ALLTOALLV packs each partner's block, one MPI_Alltoallv, unpacks (EVH1's
 * way); EV_PAIRWISE packs and exchanges with MPI_Sendrecv, partner m + k and m - k in step k;
 * EV_ALLTOALLW sends the blocks in place with subarray datatypes, one MPI_Alltoallw, no
 * packing by hand.
 */
#ifndef EVH1_GRID_H
#define EVH1_GRID_H

#include "harness.h"

enum { EV_F_RHO, EV_F_UX, EV_F_UY, EV_F_UZ, EV_F_E, EV_NF };
typedef enum { EV_LX, EV_LY, EV_LZ } ev_layout;
typedef enum { EV_ALLTOALLV, EV_PAIRWISE, EV_ALLTOALLW, EV_NVARIANTS } ev_variant;
/* Phases of a step (phases.h). */
enum { EV_PH_COMPUTE, EV_PH_PACK, EV_PH_TRANSPOSE, EV_PH_DT, EV_NPH };

typedef struct {
    int lo[3], n[3];  /* global start and extent per axis */
} ev_box;

typedef struct {
    ev_layout from, to;
    MPI_Comm comm;
    int N, m;                     /* ranks in comm, mine */
    ev_box *sbox, *rbox;          /* per partner: the boxes sent and received, global */
    int *scnt, *sdsp, *rcnt, *rdsp;  /* doubles (alltoallv, pairwise) */
    MPI_Datatype *stype, *rtype;  /* alltoallw: subarrays of the boxes */
    int *one, *zero;              /* alltoallw: counts 1, byte displacements 0 */
} ev_xpose;

typedef struct {
    int n[3], P, Q, p, q;
    ev_variant variant;
    ev_layout layout;        /* where the state is now */
    ev_box box[3];           /* my box in each layout */
    double *s, *t;           /* the state in the current layout; the other buffer */
    double *sbuf, *rbuf;     /* packed blocks */
    MPI_Comm row, col;
    ev_xpose xp[4];          /* X->Y, Y->X, Y->Z, Z->Y */
    hpc_phases *ph;
} ev_grid;

/* 0, or -1 without memory. Collective. */
int ev_grid_init(ev_grid *g, const int n[3], int P, int Q, ev_variant v, hpc_phases *ph);
void ev_grid_free(ev_grid *g);

/* Zones of a box; the offset of global zone (i, j, k) in a field of box b. */
long ev_box_zones(const ev_box *b);
static inline long ev_at(const ev_box *b, int i, int j, int k)
{
    return ((long)(k - b->lo[2]) * b->n[1] + (j - b->lo[1])) * b->n[0] + (i - b->lo[0]);
}

/* Move the state to layout `to` (one step from the current one: X <-> Y <-> Z).
 * Collective over the row or the column. */
void ev_transpose(ev_grid *g, ev_layout to);

#endif
