/* bt_adi.h - NPB BT's ADI time step on LU's grid and fields (docs/nas_bt.md). */
#ifndef BT_ADI_H
#define BT_ADI_H

#include "adi_pipe.h"
#include "adi_rhs.h"

/* BT's own phases after the shared ones (bt_phase_defs). */
enum { BT_PH_XSOLVE = LU_PH_OWN, BT_PH_YSOLVE, BT_PH_ZSOLVE, BT_PH_ADD, BT_NPHASES };
extern const hpc_phase_def bt_phase_defs[BT_NPHASES];

typedef struct {
    lu_ctx *g;          /* the grid, u, the right-hand side (g->rsd) and the forcing */
    double w[3][3];     /* the weights of the diagonal block of each direction's solve */
    double *cp;         /* the eliminated upper blocks C' of a direction's batches of lines */
    double (*rr)[5][ADI_LANES];  /* a batch's right-hand sides, the lanes innermost */
    adi_pipe pipe;      /* the line solves across the ranks */
    adi_prim prim;      /* the primitives of u (the right-hand side's) */
} bt_ctx;

/* 0, or -1 without memory. */
int bt_setup(bt_ctx *bt, lu_ctx *g);
void bt_free(bt_ctx *bt);

/* One BT time step (NPB's adi): the right-hand side dt (R(u) - frct), the block tridiagonal
 * solves along i, j and k, u = u + du. Collective. */
void bt_step(bt_ctx *bt);

#endif
