/* OpenSHMEM (shmem.h and liboshmem, which Open MPI provides: in Debian libopenmpi-dev) */
/* The area's probe (csrc/Makefile): the area is built where this compiles and links. */
#include <shmem.h>
int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
