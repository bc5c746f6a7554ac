/* column_physics.h - the column-physics kernel of column.c: state, kernel,
 * long-double reference and operation counts. */
#ifndef HPC_COLUMN_PHYSICS_H
#define HPC_COLUMN_PHYSICS_H

typedef struct {
    long ncols;
    int nlev, nlon, nchunks;
    /* Per chunk, [level][longitude] with nlon longitudes (the last chunk
     * padded with copies of its last column). */
    double *T, *q, *pint;     /* inputs; pint has nlev + 1 interfaces */
    double *u, *B, *dp, *rho, *ucum, *flux, *heat;  /* work and output */
} column_state;

void column_alloc(column_state *s, long ncols, int nlev, int nlon);
void column_free(column_state *s);
/* The kernel over all columns. */
void column_run(column_state *s);
/* Heating rate of global column c at level k. */
double column_heating(const column_state *s, long c, int k);
/* Damage one output (--inject corrupt). */
void column_corrupt(column_state *s, long c, int k);
/* Reference heating rates ref[c * nlev + k], computed in long double. */
void column_reference(long ncols, int nlev, double *ref);

double column_flops_per_column(int nlev);
double column_sqrt_per_column(int nlev);
double column_exp_per_column(int nlev);
double column_div_per_column(int nlev);

#endif
