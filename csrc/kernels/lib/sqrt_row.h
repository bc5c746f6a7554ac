/* sqrt_row.h - square roots over an array with vector instructions. The build keeps errno for
 * sqrt (no -fno-math-errno), which stops the compiler from vectorizing any loop that calls it;
 * kernels therefore gather their square roots into rows and take them here (the instructions
 * set no errno: the arguments must not be negative). */
#ifndef HPC_SQRT_ROW_H
#define HPC_SQRT_ROW_H

/* x[i] = sqrt(x[i]) for i < len. */
void hpc_sqrt_row(int len, double *restrict x);

#endif
