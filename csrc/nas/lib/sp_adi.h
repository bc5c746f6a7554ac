/* sp_adi.h - NPB SP's diagonalised ADI time step on LU's grid and fields (docs/nas_sp.md). */
#ifndef SP_ADI_H
#define SP_ADI_H

#include "adi_pipe.h"
#include "adi_rhs.h"

/* SP's own phases after the shared ones (sp_phase_defs). */
enum { SP_PH_XSOLVE = LU_PH_OWN, SP_PH_YSOLVE, SP_PH_ZSOLVE, SP_PH_ADD, SP_NPHASES };
extern const hpc_phase_def sp_phase_defs[SP_NPHASES];

typedef struct {
    lu_ctx *g;              /* the grid, u, the right-hand side (g->rsd) and the forcing */
    double *de;             /* the normalised (d, e) of the rows of a direction's batches */
    /* a batch of ADI_LANES lines side by side, the lines innermost: */
    double (*co)[3][5][ADI_LANES];  /* the rows (two before the lines, then their points) */
    double (*rr)[5][ADI_LANES];     /* the right-hand sides, likewise */
    double (*lv)[3][ADI_LANES];     /* velocity, rhon and speed, with the ends' neighbours */
    adi_pipe pipe;          /* the line solves across the ranks */
    adi_prim prim;          /* the primitives of u (the right-hand side's, reused) */
} sp_ctx;

/* 0, or -1 without memory. */
int sp_setup(sp_ctx *sp, lu_ctx *g);
void sp_free(sp_ctx *sp);

/* One SP time step (NPB's adi): the right-hand side dt (R(u) - frct), its transform, the
 * scalar pentadiagonal solves along i, j and k each followed by its transform, u = u + du.
 * Collective. */
void sp_step(sp_ctx *sp);

#endif
